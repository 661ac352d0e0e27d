//! How bad a finding is.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How bad a finding is, from `low` to `critical`; ordered, so `>=` compares with a
/// threshold (`--fail-on`, an installer's refusal, a registry's setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; rarely harmful alone.
    Low,
    /// Harmful in some settings; read it before running the skill.
    Medium,
    /// The skill tells the agent to do something a user would refuse if asked.
    High,
    /// An attack: code from the network, stolen credentials, hidden instructions.
    Critical,
}

impl Severity {
    /// Every severity, lowest first.
    pub const ALL: [Severity; 4] = [Self::Low, Self::Medium, Self::High, Self::Critical];

    /// The lowercase name (`high`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }

    /// One step lower (`low` stays `low`): what an allow-listed installer does to a
    /// remote-code finding.
    #[must_use]
    pub const fn lowered(self) -> Self {
        match self {
            Self::Low | Self::Medium => Self::Low,
            Self::High => Self::Medium,
            Self::Critical => Self::High,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`Severity`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown severity `{0}` (expected low, medium, high or critical)")]
pub struct UnknownSeverity(pub String);

impl FromStr for Severity {
    type Err = UnknownSeverity;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "low" => Ok(Self::Low),
            "medium" => Ok(Self::Medium),
            "high" => Ok(Self::High),
            "critical" => Ok(Self::Critical),
            _ => Err(UnknownSeverity(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_and_parsed() {
        assert!(Severity::Critical > Severity::High);
        assert!(Severity::Medium > Severity::Low);
        for s in Severity::ALL {
            assert_eq!(s.as_str().parse::<Severity>(), Ok(s));
        }
        assert_eq!("HIGH".parse::<Severity>(), Ok(Severity::High));
        assert!("severe".parse::<Severity>().is_err());
        assert_eq!(Severity::Critical.lowered(), Severity::High);
    }
}

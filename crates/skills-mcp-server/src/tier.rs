//! Seed 004's tier gate: a skill may declare the lowest tier that may use it
//! (`metadata.min-tier`), and `skills mcp --tier N` does not serve skills above `N`. The
//! enforcement seed 004 left to prompts becomes a boundary where this server is the agent's
//! source of skills.

use skills_frontmatter::conventions::{MIN_TIER as KEY, parse_tier};

/// The tier `source` (a whole `SKILL.md`) declares; `None` when it declares none (or one that
/// is not a positive integer: `skills lint` reports that).
pub(crate) fn declared(source: &str) -> Option<u32> {
    skills_frontmatter::SkillMd::parse(source.as_bytes())
        .ok()?
        .min_tier()
}

/// The tier a manifest's frontmatter declares.
pub(crate) fn of_frontmatter(extra: &serde_json::Map<String, serde_json::Value>) -> Option<u32> {
    match extra.get("metadata")?.get(KEY)? {
        serde_json::Value::String(s) => parse_tier(s).ok(),
        serde_json::Value::Number(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0),
        _ => None,
    }
}

/// The refusal for a skill of tier `needs` from a server of tier `max`, when it is above.
pub(crate) fn refusal(id: &str, needs: Option<u32>, max: Option<u32>) -> Option<String> {
    match (needs, max) {
        (Some(needs), Some(max)) if needs > max => Some(format!(
            "Skill '{id}' needs tier {needs} (metadata.{KEY}); this server serves skills up to tier {max}. Escalate to a session of tier {needs} or above."
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_tiers() {
        let md = |m: &str| format!("---\nname: x\ndescription: d\nmetadata:\n  {m}\n---\nb\n");
        assert_eq!(declared(&md("min-tier: \"2\"")), Some(2));
        assert_eq!(declared(&md("min-tier: two")), None);
        assert_eq!(declared(&md("other: \"2\"")), None);
        assert!(
            refusal("x", Some(2), Some(1))
                .unwrap()
                .contains("needs tier 2")
        );
        assert_eq!(refusal("x", Some(1), Some(1)), None);
        assert_eq!(refusal("x", Some(3), None), None);
    }
}

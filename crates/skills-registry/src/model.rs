//! Seed 001's data model: the [`SkillCard`] and what it holds, and the three views of it.

use serde::{Deserialize, Serialize};

/// Who may see a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Every authenticated user (and anonymous readers when the registry allows them).
    Public,
    /// Only its owner.
    Private,
    /// Members of its `allowed_groups`.
    Group,
}

impl Visibility {
    /// The stored and serialized form: `public`, `private`, `group`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
            Self::Group => "group",
        }
    }

    /// The value of a stored form, `None` for anything else.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "public" => Some(Self::Public),
            "private" => Some(Self::Private),
            "group" => Some(Self::Group),
            _ => None,
        }
    }
}

/// Whether the skill's raw `SKILL.md` answered its last health check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    /// A 2xx answer to `HEAD`.
    Healthy,
    /// Any other answer, or none.
    Unhealthy,
    /// Not checked yet.
    Unknown,
}

impl HealthStatus {
    /// The stored and serialized form: `healthy`, `unhealthy`, `unknown`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
            Self::Unhealthy => "unhealthy",
            Self::Unknown => "unknown",
        }
    }

    /// The value of a stored form; anything unknown reads as [`HealthStatus::Unknown`].
    #[must_use]
    pub fn parse(text: &str) -> Self {
        match text {
            "healthy" => Self::Healthy,
            "unhealthy" => Self::Unhealthy,
            _ => Self::Unknown,
        }
    }
}

/// A tool the skill needs (seed 001's `ToolReference`), from its `allowed-tools`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolReference {
    /// The tool's name (`Read`, `Bash`, `mcp__github__create_issue`).
    pub tool_name: String,
    /// The MCP server that provides it, when known.
    pub server_path: Option<String>,
    /// A version constraint, when one is given.
    pub version: Option<String>,
    /// Capability filters: `Bash(git:*)` is `Bash` with `["git:*"]`.
    pub capabilities: Vec<String>,
}

impl ToolReference {
    /// The references of an `allowed-tools` value: space-separated tools, each optionally
    /// with comma-separated capabilities in parentheses (`Bash(git:*) Read`), as
    /// [`skills_frontmatter::parse_allowed_tools`] splits them.
    ///
    /// ```
    /// let tools = skills_registry::ToolReference::parse_allowed_tools("Bash(git:*, gh:*) Read");
    /// assert_eq!(tools[0].tool_name, "Bash");
    /// assert_eq!(tools[0].capabilities, ["git:*", "gh:*"]);
    /// assert_eq!(tools[1].tool_name, "Read");
    /// ```
    #[must_use]
    pub fn parse_allowed_tools(allowed: &str) -> Vec<Self> {
        skills_frontmatter::parse_allowed_tools(allowed)
            .into_iter()
            .map(|tool| Self {
                tool_name: tool.name.to_string(),
                server_path: None,
                version: None,
                capabilities: tool.capabilities.into_iter().map(str::to_string).collect(),
            })
            .collect()
    }
}

/// What kind of thing a [`CompatibilityRequirement`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RequirementType {
    /// An agent product (`claude-code`).
    Product,
    /// A tool or program (`python3`).
    Tool,
    /// An API.
    Api,
    /// An environment (an OS, a network).
    Environment,
}

/// A machine-readable compatibility constraint (seed 001's `CompatibilityRequirement`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompatibilityRequirement {
    /// What kind of thing `target` is.
    #[serde(rename = "type")]
    pub kind: RequirementType,
    /// Its identifier.
    pub target: String,
    /// The lowest version that works.
    pub min_version: Option<String>,
    /// The highest version that works.
    pub max_version: Option<String>,
    /// `false` for an optional enhancement.
    pub required: bool,
}

/// One user's rating of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingDetail {
    /// Who rated.
    pub user: String,
    /// 1 to 5 stars.
    pub rating: u8,
}

/// A registered skill: every field of seed 001's SkillCard, plus the content cache's
/// `content_version` (the SHA-256 of the cached `SKILL.md`, hex) and `content_updated_at`.
/// Times are RFC 3339 in UTC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillCard {
    /// `/skills/{name}`: unique and immutable.
    pub path: String,
    /// Lowercase letters, digits and hyphens, as the spec requires.
    pub name: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// The URL it was registered with (a GitHub blob page, say).
    pub skill_md_url: String,
    /// The raw file that URL translates to: what is fetched and health-checked.
    pub skill_md_raw_url: String,
    /// The repository, when the host is known.
    pub repository_url: Option<String>,
    /// `metadata.version`.
    pub version: Option<String>,
    /// `metadata.author`.
    pub author: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`: the human-readable requirements.
    pub compatibility: Option<String>,
    /// `metadata.tags` (comma- or space-separated in the file), plus any given at
    /// registration.
    pub tags: Vec<String>,
    /// Machine-readable requirements.
    pub requirements: Vec<CompatibilityRequirement>,
    /// The agents the skill is written for (`metadata.target-agents`).
    pub target_agents: Vec<String>,
    /// `allowed-tools`, as references.
    pub allowed_tools: Vec<ToolReference>,
    /// Who may see it.
    pub visibility: Visibility,
    /// The groups that may see a `group` skill.
    pub allowed_groups: Vec<String>,
    /// Who registered it.
    pub owner: String,
    /// Disabled skills are hidden from everyone's lists but admins'.
    pub is_enabled: bool,
    /// The registry the skill comes from: this one's name, or a federation peer's.
    pub registry_name: String,
    /// The last health check's answer.
    pub health_status: HealthStatus,
    /// When it was last checked.
    pub last_checked_time: Option<String>,
    /// The average rating, 0 when nobody rated.
    pub num_stars: f64,
    /// Every rating.
    pub rating_details: Vec<RatingDetail>,
    /// SHA-256 (hex) of the cached `SKILL.md`.
    pub content_version: String,
    /// When the cached content last changed.
    pub content_updated_at: String,
    /// When it was registered.
    pub created_at: String,
    /// When the card last changed.
    pub updated_at: String,
    /// Published as a folder to this registry (`skills publish DIR`): its files and versions
    /// are kept here ([`VersionRecord`]); `false` for a skill registered by URL.
    #[serde(default)]
    pub hosted: bool,
    /// This registry's audit of the cached `SKILL.md` (`skills audit`'s rules), made at
    /// registration and whenever the content changes; `None` for a skill registered before
    /// the audit, until its content next changes.
    #[serde(default)]
    pub audit: Option<AuditSummary>,
    /// For a skill imported from a federation peer: the peer's own audit, as its card said
    /// (this registry audits the content again, in [`SkillCard::audit`]).
    #[serde(default)]
    pub peer_audit: Option<AuditSummary>,
}

/// One published version of a hosted skill. Its files never change once published; a yank
/// only hides it from "the latest" (an exact `NAME@VERSION` still installs it, as cargo
/// does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionRecord {
    /// The skill's name.
    pub name: String,
    /// `metadata.version` when the author set one, else the publish counter (`1`, `2`, ...).
    pub version: String,
    /// The order of publication, from 1.
    pub seq: i64,
    /// `sha256:` digest of the files, as `skills.lock` records an installed skill's
    /// (`skills_add::tree_hash`): for each file in path order, `f`, the path, NUL, the size
    /// as 8 bytes big-endian, the bytes.
    pub digest: String,
    /// `sha256:` of the `.skill` archive as it was published (`<name>/…` entries).
    pub archive_digest: String,
    /// `sha256:` of the same files as a flat ZIP (`SKILL.md` at the root), what the
    /// discovery index (`/.well-known/agent-skills/index.json`) points installers at.
    pub flat_archive_digest: String,
    /// The files' total size in bytes.
    pub size: i64,
    /// Withdrawn from "the latest", still installable by exact version.
    pub yanked: bool,
    /// Who published it.
    pub publisher: String,
    /// When (RFC 3339).
    pub published_at: String,
}

/// One file of a published version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// `/`-separated path in the skill (`scripts/run.sh`).
    pub path: String,
    /// `sha256:` and the hex SHA-256 of its bytes: the blob it is stored as.
    pub digest: String,
    /// Its size in bytes.
    pub size: i64,
    /// Installed with mode 0755 rather than 0644.
    pub executable: bool,
}

/// What a card says of an audit: the highest severity, the count of each, and the digest of
/// what was audited (`skills_audit::Report::digest`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditSummary {
    /// The highest severity found, `None` when nothing was.
    pub max_severity: Option<skills_audit::Severity>,
    /// Findings of each severity.
    pub counts: AuditCounts,
    /// The SHA-256 (hex) of what was audited: the skill's `SKILL.md`, as its only file.
    pub digest: String,
}

/// Findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditCounts {
    /// Critical findings.
    pub critical: usize,
    /// High findings.
    pub high: usize,
    /// Medium findings.
    pub medium: usize,
    /// Low findings.
    pub low: usize,
}

impl AuditSummary {
    /// The summary of `report`.
    #[must_use]
    pub fn of(report: &skills_audit::Report) -> Self {
        let c = report.counts();
        Self {
            max_severity: report.max_severity(),
            counts: AuditCounts {
                critical: c.critical,
                high: c.high,
                medium: c.medium,
                low: c.low,
            },
            digest: report.digest.clone(),
        }
    }
}

/// How much of a card to show: seed 001's progressive disclosure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// Name, description, tags, stars, health and visibility: enough to choose.
    #[default]
    Card,
    /// Everything but the content: requirements, tools, target agents, URLs, state.
    Summary,
    /// The summary and the whole `SKILL.md`.
    Full,
}

impl SkillCard {
    /// The card as JSON in `view`; `content` is the cached `SKILL.md`, shown in the full
    /// view only.
    #[must_use]
    pub fn to_view(&self, view: View, content: Option<&str>) -> serde_json::Value {
        serde_json::to_value(self.view(view, content)).unwrap_or(serde_json::Value::Null)
    }

    /// The card in `view`, to serialize straight to bytes (no JSON tree in between).
    #[must_use]
    pub fn view<'a>(&'a self, view: View, content: Option<&'a str>) -> Viewed<'a> {
        Viewed {
            card: self,
            view,
            content,
        }
    }
}

/// A [`SkillCard`] as one [`View`] shows it: serializes the view's fields, in the card's
/// order. The card view: path, name, description, tags, visibility, is_enabled,
/// registry_name, health_status, num_stars and audit. The summary view: every field but
/// `rating_details`. The full view: the summary and `content`.
#[derive(Debug, Clone, Copy)]
pub struct Viewed<'a> {
    card: &'a SkillCard,
    view: View,
    content: Option<&'a str>,
}

impl Serialize for Viewed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let c = self.card;
        let all = self.view != View::Card;
        let mut map = serializer.serialize_map(None)?;
        // (in the card view?, field), in SkillCard's order.
        macro_rules! fields {
            ($($card:literal $name:ident),* $(,)?) => {
                $(
                    if $card || all {
                        map.serialize_entry(stringify!($name), &c.$name)?;
                    }
                )*
            };
        }
        fields!(
            true path,
            true name,
            true description,
            false skill_md_url,
            false skill_md_raw_url,
            false repository_url,
            false version,
            false author,
            false license,
            false compatibility,
            true tags,
            false requirements,
            false target_agents,
            false allowed_tools,
            true visibility,
            false allowed_groups,
            false owner,
            true is_enabled,
            true registry_name,
            true health_status,
            false last_checked_time,
            true num_stars,
            false content_version,
            false content_updated_at,
            false created_at,
            false updated_at,
            false hosted,
            true audit,
            false peer_audit,
        );
        if self.view == View::Full {
            map.serialize_entry("content", &self.content)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_tools_split_outside_parentheses_only() {
        let tools = ToolReference::parse_allowed_tools("  Bash(git add:*, gh:*)  Read\tmcp__x__y ");
        let names: Vec<&str> = tools.iter().map(|t| t.tool_name.as_str()).collect();
        assert_eq!(names, ["Bash", "Read", "mcp__x__y"]);
        assert_eq!(tools[0].capabilities, ["git add:*", "gh:*"]);
        assert!(ToolReference::parse_allowed_tools("  ").is_empty());
    }

    #[test]
    fn each_view_has_its_fields() {
        let card: SkillCard = serde_json::from_value(serde_json::json!({
            "path": "/skills/a", "name": "a", "description": "d", "skill_md_url": "u",
            "skill_md_raw_url": "r", "repository_url": null, "version": null, "author": null,
            "license": null, "compatibility": null, "tags": ["t"], "requirements": [],
            "target_agents": [], "allowed_tools": [], "visibility": "public",
            "allowed_groups": [], "owner": "o", "is_enabled": true, "registry_name": "local",
            "health_status": "unknown", "last_checked_time": null, "num_stars": 0.0,
            "rating_details": [{"user": "o", "rating": 5}], "content_version": "v",
            "content_updated_at": "c", "created_at": "c", "updated_at": "u"
        }))
        .unwrap();
        let keys = |v: serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        assert_eq!(
            keys(card.to_view(View::Card, None)),
            [
                "path",
                "name",
                "description",
                "tags",
                "visibility",
                "is_enabled",
                "registry_name",
                "health_status",
                "num_stars",
                "audit"
            ]
        );
        let summary = keys(card.to_view(View::Summary, None));
        let every = keys(serde_json::to_value(&card).unwrap());
        let expected: Vec<String> = every
            .into_iter()
            .filter(|k| k != "rating_details")
            .collect();
        assert_eq!(summary, expected);
        let full = card.to_view(View::Full, Some("body"));
        assert_eq!(full["content"], "body");
        assert_eq!(keys(full).len(), expected.len() + 1);
    }

    #[test]
    fn enums_read_back_what_they_write() {
        for v in [Visibility::Public, Visibility::Private, Visibility::Group] {
            assert_eq!(Visibility::parse(v.as_str()), Some(v));
        }
        assert_eq!(Visibility::parse("PUBLIC"), None);
        for h in [
            HealthStatus::Healthy,
            HealthStatus::Unhealthy,
            HealthStatus::Unknown,
        ] {
            assert_eq!(HealthStatus::parse(h.as_str()), h);
        }
    }
}

//! Registration: fetch a `SKILL.md`, lint it, fill a card from it; and the other changes of
//! a skill's entry (update, delete, enable).

use serde::Deserialize;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::fetch;
use crate::model::{
    CompatibilityRequirement, HealthStatus, RequirementType, SkillCard, ToolReference, Visibility,
};
use crate::store::Store;
use crate::time;

use super::Registry;
use super::access::check_access;

/// A registration request (`POST /api/skills`), and the body of `PUT` (every field
/// optional there: what is left out keeps its value).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Registration {
    /// The skill's `SKILL.md`: a page URL of a known host, or a raw URL.
    pub skill_md_url: Option<String>,
    /// Who may see it; `public` when not given at registration.
    pub visibility: Option<Visibility>,
    /// The groups that may see a `group` skill (required for `group`).
    pub allowed_groups: Option<Vec<String>>,
    /// Tags beside those of `metadata.tags`.
    pub tags: Option<Vec<String>>,
}

impl Registration {
    /// A request to register `url` with the defaults.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            skill_md_url: Some(url.into()),
            ..Self::default()
        }
    }
}

/// The machine-readable requirements a skill declares: one per tool of each fallback chain
/// (`metadata.tools.<domain>`, see `skills_frontmatter::conventions`). A chain of one tool
/// requires it; in a longer chain any one serves, so each is optional on its own.
fn requirements_of(md: &skills_frontmatter::SkillMd) -> Vec<CompatibilityRequirement> {
    md.tool_chains()
        .iter()
        .flat_map(|chain| {
            let required = chain.tools.len() == 1;
            chain
                .tools
                .iter()
                .map(move |tool| CompatibilityRequirement {
                    kind: RequirementType::Tool,
                    target: tool.to_string(),
                    min_version: None,
                    max_version: None,
                    required,
                })
        })
        .collect()
}

/// Lint rules a registration does not apply: they need the skill's other files, and the
/// registry fetches its `SKILL.md` alone.
const NEEDS_FILES: [&str; 2] = ["link-missing", "reference-too-deep"];

/// A fetched and linted `SKILL.md`, ready to become a card.
struct Checked {
    card: SkillCard,
    content: String,
}

impl<S: Store> Registry<S> {
    /// Audits `text`, the `SKILL.md` of `name` (its only file here): the card's summary, or
    /// [`RegistryError::Invalid`] naming each finding at or above the registry's
    /// `audit_refuse_at` setting when there is one.
    pub(crate) fn audit_content(
        &self,
        name: &str,
        text: &str,
    ) -> Result<crate::model::AuditSummary, RegistryError> {
        self.judge_audit(name, &audit_skill_md(text))
    }

    /// The summary of an audit `report` of `name`'s files, or the refusal of a registry
    /// with `audit_refuse_at` when it finds anything at or above that.
    pub(crate) fn judge_audit(
        &self,
        name: &str,
        report: &skills_audit::Report,
    ) -> Result<crate::model::AuditSummary, RegistryError> {
        if let Some(at) = self.config.audit_refuse_at {
            let found: Vec<String> = report
                .at_least(at)
                .map(|f| {
                    format!(
                        "{}:{}:{} {} {}: {}",
                        f.path, f.line, f.column, f.severity, f.rule, f.message
                    )
                })
                .collect();
            if !found.is_empty() {
                return Err(RegistryError::Invalid(format!(
                    "`{name}` is refused: this registry takes no skill whose audit finds anything at or above {at}, and it found {}: {}",
                    found.len(),
                    found.join("; ")
                )));
            }
        }
        Ok(crate::model::AuditSummary::of(report))
    }

    /// The audit of `name`'s cached `SKILL.md`, as `caller` may see it: its card and the
    /// report (every finding), made now from the content the registry serves.
    ///
    /// # Errors
    ///
    /// As [`Registry::content`].
    pub async fn audit(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<(SkillCard, skills_audit::Report), RegistryError> {
        let card = self.get(caller, name).await?;
        let (text, _) = self.content(caller, name).await?;
        let report = tokio::task::spawn_blocking(move || audit_skill_md(&text))
            .await
            .map_err(|e| RegistryError::Internal(e.to_string()))?;
        Ok((card, report))
    }

    /// Registers the skill at `request.skill_md_url` for `caller`, its owner.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Unauthorized`] without a user, [`RegistryError::Invalid`] for a bad
    /// request, [`RegistryError::Fetch`] when the file cannot be fetched,
    /// [`RegistryError::Lint`] when it has errors, [`RegistryError::Conflict`] when the name
    /// is taken.
    pub async fn register(
        &self,
        caller: &Caller,
        request: Registration,
    ) -> Result<SkillCard, RegistryError> {
        let Some(owner) = caller.user.clone() else {
            return Err(RegistryError::Unauthorized);
        };
        let url = request
            .skill_md_url
            .clone()
            .ok_or_else(|| RegistryError::Invalid("`skill_md_url` is required".into()))?;
        let visibility = request.visibility.unwrap_or(Visibility::Public);
        let groups = request.allowed_groups.clone().unwrap_or_default();
        check_access(visibility, &groups)?;
        let checked = self
            .check(
                &url,
                visibility,
                groups,
                request.tags.unwrap_or_default(),
                owner,
            )
            .await?;
        match self.store.insert(&checked.card, &checked.content).await {
            Err(crate::store::StoreError::Conflict(name)) => Err(RegistryError::Conflict(name)),
            other => other.map_err(RegistryError::from),
        }?;
        self.changed();
        self.get(caller, &checked.card.name).await
    }

    /// Refetches and revalidates `name` (from a new URL when `request` names one), and
    /// applies `request`'s access and tags. Only its owner or an admin may.
    ///
    /// # Errors
    ///
    /// As [`Registry::register`], [`RegistryError::NotFound`], [`RegistryError::Forbidden`]
    /// for a caller who sees the skill but does not own it, and [`RegistryError::Invalid`]
    /// when the file now names another skill.
    pub async fn update(
        &self,
        caller: &Caller,
        name: &str,
        request: Registration,
    ) -> Result<SkillCard, RegistryError> {
        let current = self.owned(caller, name).await?;
        if current.hosted {
            return Err(RegistryError::Invalid(format!(
                "`{name}` is hosted here, not registered by URL: `skills publish` its folder to make a new version"
            )));
        }
        let url = request.skill_md_url.unwrap_or(current.skill_md_url.clone());
        let visibility = request.visibility.unwrap_or(current.visibility);
        let groups = request
            .allowed_groups
            .unwrap_or(current.allowed_groups.clone());
        check_access(visibility, &groups)?;
        let extra_tags = request.tags.unwrap_or_default();
        let checked = self
            .check(&url, visibility, groups, extra_tags, current.owner.clone())
            .await?;
        if checked.card.name != name {
            return Err(RegistryError::Invalid(format!(
                "the SKILL.md at {url} is now named `{}`; a skill's name never changes: register it as a new skill",
                checked.card.name
            )));
        }
        if !self.store.update(&checked.card, &checked.content).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.get(caller, name).await
    }

    /// Deletes `name`. Only its owner or an admin may.
    ///
    /// # Errors
    ///
    /// [`RegistryError::NotFound`], [`RegistryError::Forbidden`].
    pub async fn delete(&self, caller: &Caller, name: &str) -> Result<(), RegistryError> {
        self.owned(caller, name).await?;
        if self.store.delete(name).await? {
            self.changed();
            Ok(())
        } else {
            Err(RegistryError::NotFound(name.to_string()))
        }
    }

    /// Enables or disables `name`. Admins only.
    ///
    /// # Errors
    ///
    /// [`RegistryError::NotFound`], [`RegistryError::Forbidden`].
    pub async fn set_enabled(
        &self,
        caller: &Caller,
        name: &str,
        enabled: bool,
    ) -> Result<SkillCard, RegistryError> {
        if caller.user.is_none() && !caller.admin {
            return Err(RegistryError::Unauthorized);
        }
        self.get(caller, name).await?;
        if !caller.admin {
            return Err(RegistryError::Forbidden(
                "only an admin enables or disables skills".into(),
            ));
        }
        if !self.store.set_enabled(name, enabled).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.get(caller, name).await
    }

    /// Fetches, parses and lints the `SKILL.md` at `url` and fills a card from it.
    async fn check(
        &self,
        url: &str,
        visibility: Visibility,
        allowed_groups: Vec<String>,
        extra_tags: Vec<String>,
        owner: String,
    ) -> Result<Checked, RegistryError> {
        let translation = skills_url::to_raw(url)
            .map_err(|e| RegistryError::Invalid(format!("`skill_md_url`: {e}")))?;
        let raw = translation.raw.clone();
        let policy = self.config.fetch.clone();
        let fetched = tokio::task::spawn_blocking(move || fetch::get(&raw, &policy))
            .await
            .map_err(|e| RegistryError::Internal(e.to_string()))??;
        let dir_name = directory_name(translation.path.as_deref());
        let body = fetched.body;
        let (body, (diagnostics, name_hint)) = tokio::task::spawn_blocking(move || {
            lint(&body, dir_name.as_deref()).map(|linted| (body, linted))
        })
        .await
        .map_err(|e| RegistryError::Internal(e.to_string()))??;
        if diagnostics
            .iter()
            .any(|d| d.severity == skills_lint::Severity::Error)
        {
            return Err(RegistryError::Lint(diagnostics));
        }
        let text = String::from_utf8(body)
            .map_err(|_| RegistryError::Invalid("the SKILL.md is not UTF-8".into()))?;
        let md = skills_frontmatter::SkillMd::parse_str(text.clone())
            .map_err(|e| RegistryError::Invalid(format!("the SKILL.md does not parse: {e}")))?;
        let name = md.name().map_or(name_hint, str::to_string);
        let mut card = card_of(
            &md,
            &text,
            name,
            Access {
                visibility,
                allowed_groups,
                extra_tags,
                owner,
            },
            &self.config.name,
        );
        card.skill_md_url.clone_from(&translation.input);
        card.skill_md_raw_url.clone_from(&translation.raw);
        card.repository_url.clone_from(&translation.repository);
        card.audit = Some(self.audit_content(&card.name, &text)?);
        Ok(Checked {
            card,
            content: text,
        })
    }
}

/// Who may see a skill and what tags it gets beside its own: what a registration or a
/// publication asks for.
pub(super) struct Access {
    pub(super) visibility: Visibility,
    pub(super) allowed_groups: Vec<String>,
    pub(super) extra_tags: Vec<String>,
    pub(super) owner: String,
}

/// A card filled from a parsed `SKILL.md` (`text`): its metadata, the access asked for, and
/// this registry's name; no URLs (the caller sets them).
pub(super) fn card_of(
    md: &skills_frontmatter::SkillMd,
    text: &str,
    name: String,
    access: Access,
    registry_name: &str,
) -> SkillCard {
    let metadata = md.metadata();
    let meta = |key: &str| {
        metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| (*v).to_string())
    };
    let mut tags = split_list(meta("tags").as_deref().unwrap_or_default());
    for tag in access.extra_tags {
        let tag = tag.trim().to_string();
        if !tag.is_empty() && !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    let now = time::rfc3339(time::now_ms());
    SkillCard {
        path: format!("/skills/{name}"),
        description: md.description().unwrap_or_default().trim().to_string(),
        skill_md_url: String::new(),
        skill_md_raw_url: String::new(),
        repository_url: None,
        version: meta("version"),
        author: meta("author"),
        license: md.license().map(str::to_string),
        compatibility: md.compatibility().map(str::to_string),
        tags,
        requirements: requirements_of(md),
        target_agents: split_list(
            meta("target-agents")
                .or_else(|| meta("target_agents"))
                .as_deref()
                .unwrap_or_default(),
        ),
        allowed_tools: md
            .allowed_tools()
            .map(ToolReference::parse_allowed_tools)
            .unwrap_or_default(),
        visibility: access.visibility,
        allowed_groups: access.allowed_groups,
        owner: access.owner,
        is_enabled: true,
        registry_name: registry_name.to_string(),
        // Fetched (a 2xx answer: as good as a health check, and as recent) or hosted here.
        health_status: HealthStatus::Healthy,
        last_checked_time: Some(now.clone()),
        num_stars: 0.0,
        rating_details: Vec::new(),
        content_version: skills_core::digest::sha256_hex(text.as_bytes()),
        content_updated_at: now.clone(),
        created_at: now.clone(),
        updated_at: now,
        hosted: false,
        audit: None,
        peer_audit: None,
        name,
    }
}

/// Fills the fields of `card` that its `SKILL.md` decides (description, version, author,
/// license, compatibility, requirements, agents, allowed tools; its tags join the card's)
/// from `text`, the content verified against the card's digest: a peer's card may say one
/// thing and the file another. A file that does not parse leaves the card as it is.
pub(crate) fn refresh_from_content(card: &mut SkillCard, text: &str) {
    let Ok(md) = skills_frontmatter::SkillMd::parse(text.as_bytes()) else {
        return;
    };
    let fresh = card_of(
        &md,
        text,
        card.name.clone(),
        Access {
            visibility: card.visibility,
            allowed_groups: Vec::new(),
            extra_tags: card.tags.clone(),
            owner: card.owner.clone(),
        },
        &card.registry_name,
    );
    card.description = fresh.description;
    card.version = fresh.version;
    card.author = fresh.author;
    card.license = fresh.license;
    card.compatibility = fresh.compatibility;
    card.tags = fresh.tags;
    card.requirements = fresh.requirements;
    card.target_agents = fresh.target_agents;
    card.allowed_tools = fresh.allowed_tools;
}

/// The audit of a `SKILL.md` a registry holds (its skill's only file). The file's own
/// `skills-audit: allow` markers are not honoured: its author wrote them.
pub(crate) fn audit_skill_md(text: &str) -> skills_audit::Report {
    let mut config = skills_audit::Config::new();
    config.inline = false;
    skills_audit::Auditor::new(config).audit_bytes(text.as_bytes())
}

/// The directory a `SKILL.md` path in a repository names (`skills/pdf/SKILL.md` → `pdf`).
fn directory_name(path: Option<&str>) -> Option<String> {
    let path = path?;
    let mut segments = path.rsplit('/');
    segments.next();
    segments
        .next()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A comma- or space-separated list.
pub(super) fn split_list(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

/// Lints `body` as the `SKILL.md` of a directory named `dir_name`, or, when the URL's path
/// names no directory, of one named as the file names itself (nothing says what else its
/// name should be): the findings, and the name to use when the file has none.
pub(crate) fn lint(
    body: &[u8],
    dir_name: Option<&str>,
) -> Result<(Vec<skills_lint::Diagnostic>, String), RegistryError> {
    let own_name = || {
        skills_frontmatter::SkillMd::parse(body)
            .ok()
            .and_then(|md| md.name().map(str::to_string))
    };
    let dir = dir_name
        .map(str::to_string)
        .or_else(own_name)
        .filter(|d| !d.contains(['/', '\\']) && d != "." && d != "..")
        .unwrap_or_else(|| "skill".to_string());
    let mut config = skills_lint::Config::default();
    for rule in NEEDS_FILES {
        config
            .set(rule, skills_lint::Level::Allow)
            .map_err(|e| RegistryError::Internal(e.to_string()))?;
    }
    let report = skills_lint::Linter::new(config).lint_source(&dir, body);
    Ok((report.diagnostics, report.name.unwrap_or(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A peer's card that says other things than its verified `SKILL.md` is corrected
    /// from the file; its tags are kept beside the file's.
    #[test]
    fn a_card_is_refreshed_from_its_verified_content() {
        let text = "---\nname: pdf\ndescription: Fills PDF forms. Use when asked.\nlicense: MIT\nmetadata:\n  version: \"1.2\"\n  tags: pdf\n---\nBody.\n";
        let md = skills_frontmatter::SkillMd::parse(text.as_bytes()).unwrap();
        let access = || Access {
            visibility: Visibility::Public,
            allowed_groups: Vec::new(),
            extra_tags: vec!["peer-tag".to_string()],
            owner: "peer".to_string(),
        };
        let mut claimed = card_of(&md, text, "pdf".to_string(), access(), "peer");
        claimed.description = "<script>lies</script>".to_string();
        claimed.version = Some("../../x".to_string());
        claimed.license = Some("<b>".to_string());
        refresh_from_content(&mut claimed, text);
        assert_eq!(claimed.description, "Fills PDF forms. Use when asked.");
        assert_eq!(claimed.version.as_deref(), Some("1.2"));
        assert_eq!(claimed.license.as_deref(), Some("MIT"));
        assert!(claimed.tags.contains(&"pdf".to_string()));
        assert!(claimed.tags.contains(&"peer-tag".to_string()));
    }

    #[test]
    fn directory_names_come_from_the_path_in_the_repository() {
        assert_eq!(
            directory_name(Some("skills/pdf/SKILL.md")).as_deref(),
            Some("pdf")
        );
        assert_eq!(directory_name(Some("SKILL.md")), None);
        assert_eq!(directory_name(None), None);
    }

    #[test]
    fn the_fetched_file_is_linted_alone_in_the_directory_its_url_names() {
        let body = b"---\nname: pdf\ndescription: Fills PDF forms. Use when asked.\n---\nSee [forms](references/FORMS.md).\n";
        let linted = |dir: Option<&str>| {
            let (diagnostics, name) = lint(body, dir).unwrap();
            let rules: Vec<_> = diagnostics.iter().map(|d| d.rule).collect();
            (rules, name)
        };
        // Its other files were not fetched: a link to one is not held against it.
        assert_eq!(linted(Some("pdf")), (vec![], "pdf".to_string()));
        // A URL naming no directory holds the name to nothing.
        assert_eq!(linted(None), (vec![], "pdf".to_string()));
        assert_eq!(
            linted(Some("forms")),
            (
                vec![skills_lint::RuleId::NameDirMismatch],
                "pdf".to_string()
            )
        );
        // A file without a name is named after its directory (and refused for it).
        let (diagnostics, name) = lint(b"---\ndescription: x\n---\nBody.\n", Some("pdf")).unwrap();
        assert_eq!(name, "pdf");
        assert!(
            diagnostics
                .iter()
                .any(|d| d.rule == skills_lint::RuleId::NameMissing
                    && d.severity == skills_lint::Severity::Error)
        );
    }

    #[test]
    fn lists_split_on_commas_and_spaces_once_each() {
        assert_eq!(
            split_list("pdf, forms  pdf,,docs"),
            ["pdf", "forms", "docs"]
        );
        assert!(split_list("").is_empty());
    }
}

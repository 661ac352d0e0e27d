//! Hosting: skills published as a folder (`skills publish DIR`: the `.skill` archive
//! `skills package` makes), kept here file by file, content-addressed, in versions that
//! never change once published; yanks; and what the discovery index
//! (`/.well-known/agent-skills/index.json`) lists.

use std::io::{Cursor, Write as _};

use serde::Serialize;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::{FileRecord, SkillCard, VersionRecord, Visibility};
use crate::store::{ListQuery, Publication, Store, StoreError};
use crate::time;

use super::Registry;
use super::access::check_access;
use super::register::{Access, card_of};

/// The largest upload: a skill holds at most 16 MiB of files
/// ([`skills_core::layout::MAX_SKILL_BYTES`]), and its archive, deflated, is smaller; a
/// little room for the archive's own headers.
pub const MAX_UPLOAD: usize = 17 * 1024 * 1024;

/// What a publication asks for beside the archive: the access of a new skill, or the new
/// access of an existing one (`None` keeps it).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PublishOptions {
    /// Who may see it; `public` for a new skill when not given.
    pub visibility: Option<Visibility>,
    /// Comma-separated groups of a `group` skill.
    pub groups: Option<String>,
    /// Comma-separated tags beside those of `metadata.tags`.
    pub tags: Option<String>,
}

/// What [`Registry::publish`] did.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Published {
    /// `false` when the files are those of the latest version already: nothing was
    /// published, and `version` is that one.
    pub created: bool,
    /// The version, with its files.
    #[serde(flatten)]
    pub detail: VersionDetail,
}

/// A version and its files, as the API shows it.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct VersionDetail {
    /// The version.
    #[serde(flatten)]
    pub version: VersionRecord,
    /// Its files, by path.
    pub files: Vec<FileRecord>,
}

/// An archive unpacked, checked and hashed, ready to be stored.
struct Unpacked {
    content: String,
    md: skills_frontmatter::SkillMd,
    files: Vec<(FileRecord, Vec<u8>)>,
    digest: String,
    flat: Vec<u8>,
    size: i64,
}

/// `sha256:` and the hex SHA-256 of `bytes`: how a blob is named.
fn blob_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", skills_core::digest::sha256_hex(bytes))
}

/// The digest of a set of files as `skills.lock` records an installed skill's
/// (`skills_add::tree_hash`): for each file in byte order of its path, `f`, the path, NUL,
/// its size as 8 big-endian bytes, its bytes.
pub(crate) fn tree_digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut files: Vec<(&str, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let total: usize = files.iter().map(|(p, b)| p.len() + b.len() + 10).sum();
    let mut stream = Vec::with_capacity(total);
    for (path, bytes) in files {
        stream.push(b'f');
        stream.extend_from_slice(path.as_bytes());
        stream.push(0);
        stream.extend_from_slice(&(bytes.len() as u64).to_be_bytes());
        stream.extend_from_slice(bytes);
    }
    format!("sha256:{}", skills_core::digest::sha256_hex(&stream))
}

/// Whether `version` may name a version: 1 to 64 of letters, digits, `.`, `_`, `+`, `-`,
/// starting with a letter or digit (it is a path segment and follows an `@`).
pub(crate) fn is_valid_version(version: &str) -> bool {
    // `latest` names the newest version in every path that takes a version: a version of
    // that name could be read by no path and yanked by one.
    !version.eq_ignore_ascii_case("latest")
        && (1..=64).contains(&version.len())
        && version
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
}

/// Unpacks the uploaded archive of skill `name` within the skill limits, lints it as
/// `skills lint` would, and reads its files.
fn unpack(name: &str, archive: &[u8]) -> Result<Unpacked, RegistryError> {
    let temp = tempfile::tempdir()
        .map_err(|e| RegistryError::Internal(format!("a temporary directory: {e}")))?;
    let limits = skills_package::Limits {
        max_bytes: skills_core::layout::MAX_SKILL_BYTES,
        max_entries: skills_core::layout::MAX_SKILL_FILES,
    };
    let label = std::path::PathBuf::from(format!("{name}.skill"));
    let id = skills_package::unpack(Cursor::new(archive), &label, temp.path(), &limits).map_err(
        |e| {
            RegistryError::BadArchive(format!(
                "the upload is not a skill archive the registry takes: {e}"
            ))
        },
    )?;
    if id != name {
        return Err(RegistryError::BadArchive(format!(
            "the archive holds the skill `{id}`, not `{name}`: publish it as `{id}`"
        )));
    }
    let dir = temp.path().join(&id);
    let report = skills_lint::Linter::new(skills_lint::Config::default())
        .lint_paths(std::slice::from_ref(&dir))
        .map_err(|e| RegistryError::BadArchive(e.to_string()))?;
    let diagnostics: Vec<skills_lint::Diagnostic> = report
        .skills
        .into_iter()
        .flat_map(|s| s.diagnostics)
        .chain(report.other)
        .collect();
    if diagnostics
        .iter()
        .any(|d| d.severity == skills_lint::Severity::Error)
    {
        return Err(RegistryError::Lint(diagnostics));
    }
    let collected =
        skills_package::collect_all(&dir).map_err(|e| RegistryError::BadArchive(e.to_string()))?;
    let mut files = Vec::with_capacity(collected.entries.len());
    for entry in &collected.entries {
        let bytes = std::fs::read(&entry.source)
            .map_err(|e| RegistryError::Internal(format!("{}: {e}", entry.source.display())))?;
        files.push((
            FileRecord {
                path: entry.path.clone(),
                digest: blob_digest(&bytes),
                size: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
                executable: entry.executable,
            },
            bytes,
        ));
    }
    let content = files
        .iter()
        .find(|(f, _)| f.path == skills_core::layout::SKILL_MD)
        .map(|(_, bytes)| String::from_utf8(bytes.clone()))
        .ok_or_else(|| RegistryError::BadArchive("the archive has no SKILL.md".into()))?
        .map_err(|_| RegistryError::BadArchive("the SKILL.md is not UTF-8".into()))?;
    let md = skills_frontmatter::SkillMd::parse_str(content.clone())
        .map_err(|e| RegistryError::Invalid(format!("the SKILL.md does not parse: {e}")))?;
    let digest = tree_digest(files.iter().map(|(f, b)| (f.path.as_str(), b.as_slice())));
    let flat = flat_zip(&files)?;
    let size = files.iter().map(|(f, _)| f.size).sum();
    Ok(Unpacked {
        content,
        md,
        files,
        digest,
        flat,
        size,
    })
}

/// The files as a ZIP with `SKILL.md` at its root (the layout the discovery index's
/// `archive` entries have), as reproducible as `skills package`'s: sorted, 1980-01-01,
/// deflate level 6, modes 0644 or 0755.
fn flat_zip(files: &[(FileRecord, Vec<u8>)]) -> Result<Vec<u8>, RegistryError> {
    use zip::write::SimpleFileOptions;
    let failed = |e: &dyn std::fmt::Display| RegistryError::Internal(format!("zip: {e}"));
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (file, bytes) in files {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(6))
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(if file.executable { 0o755 } else { 0o644 });
        zip.start_file(file.path.as_str(), options)
            .map_err(|e| failed(&e))?;
        zip.write_all(bytes).map_err(|e| failed(&e))?;
    }
    Ok(zip.finish().map_err(|e| failed(&e))?.into_inner())
}

/// The version `asked` names among `versions` (oldest first): `latest` is the newest not
/// yanked; anything else that exact version, yanked or not.
fn pick<'a>(versions: &'a [VersionRecord], asked: &str) -> Option<&'a VersionRecord> {
    if asked == "latest" {
        versions.iter().rev().find(|v| !v.yanked)
    } else {
        versions.iter().find(|v| v.version == asked)
    }
}

impl<S: Store> Registry<S> {
    /// Publishes the `.skill` archive `archive` as the next version of the hosted skill
    /// `name` (creating it, owned by `caller`): unpacked within the skill limits, linted,
    /// every file stored by its digest. Files equal to the latest version's publish
    /// nothing (`created: false`).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Unauthorized`] without a user; [`RegistryError::Forbidden`] or
    /// [`RegistryError::NotFound`] for a skill of someone else;
    /// [`RegistryError::Conflict`] for a name registered by URL;
    /// [`RegistryError::BadArchive`], [`RegistryError::Lint`], [`RegistryError::Invalid`]
    /// for what the archive holds; [`RegistryError::VersionExists`] for a version published
    /// with other files.
    pub async fn publish(
        &self,
        caller: &Caller,
        name: &str,
        archive: Vec<u8>,
        options: PublishOptions,
    ) -> Result<Published, RegistryError> {
        let Some(user) = caller.user.clone() else {
            return Err(RegistryError::Unauthorized);
        };
        if !skills_frontmatter::is_valid_name(name) || !name.is_ascii() {
            return Err(RegistryError::Invalid(format!(
                "`{name}` is not a skill name: lowercase letters, digits and hyphens"
            )));
        }
        let existing = match self.store.get(name).await? {
            Some(_) => Some(self.owned(caller, name).await?),
            None => None,
        };
        if existing.as_ref().is_some_and(|card| !card.hosted) {
            return Err(RegistryError::Conflict(name.to_string()));
        }
        let split = |text: Option<&String>| -> Option<Vec<String>> {
            text.map(|t| {
                t.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
        };
        let visibility = options
            .visibility
            .or(existing.as_ref().map(|c| c.visibility))
            .unwrap_or(Visibility::Public);
        let groups = split(options.groups.as_ref())
            .or_else(|| existing.as_ref().map(|c| c.allowed_groups.clone()))
            .unwrap_or_default();
        // Groups asked for with another visibility are refused below; a skill's old groups
        // go when it stops being a group skill.
        let groups = if visibility == Visibility::Group || options.groups.is_some() {
            groups
        } else {
            Vec::new()
        };
        check_access(visibility, &groups)?;
        let extra_tags = split(options.tags.as_ref()).unwrap_or_default();
        let owned_name = name.to_string();
        let unpacked = tokio::task::spawn_blocking(move || {
            unpack(&owned_name, &archive).map(|u| (u, archive))
        })
        .await
        .map_err(|e| RegistryError::Internal(e.to_string()))?;
        let (unpacked, archive) = unpacked?;
        let versions = self.store.versions(name).await?;
        if let Some(last) = versions.last()
            && last.digest == unpacked.digest
        {
            let files = self.store.version_files(name, &last.version).await?;
            return Ok(Published {
                created: false,
                detail: VersionDetail {
                    version: last.clone(),
                    files,
                },
            });
        }
        let seq = versions.last().map_or(1, |v| v.seq + 1);
        let mut card = card_of(
            &unpacked.md,
            &unpacked.content,
            name.to_string(),
            Access {
                visibility,
                allowed_groups: groups,
                extra_tags,
                owner: existing.as_ref().map_or(user.clone(), |c| c.owner.clone()),
            },
            &self.config.name,
        );
        // Every file of the publication is audited (the registry's `SKILL.md`-only audit of
        // registered skills sees one file); the author's inline allow markers are not
        // honoured, as for registrations.
        let sources: Vec<skills_audit::SourceFile<'_>> = unpacked
            .files
            .iter()
            .map(|(file, bytes)| skills_audit::SourceFile::new(&file.path, bytes))
            .collect();
        let mut audit_config = skills_audit::Config::new();
        audit_config.inline = false;
        let report = skills_audit::Auditor::new(audit_config).audit_files(&sources);
        card.audit = Some(self.judge_audit(name, &report)?);
        let version = match card.version.clone() {
            Some(v) if !is_valid_version(&v) => {
                return Err(RegistryError::Invalid(format!(
                    "metadata.version `{v}` cannot name a version: use letters, digits, `.`, `_`, `+` and `-` (at most 64), starting with a letter or digit, and not `latest`"
                )));
            }
            Some(v) => v,
            // The next number no version has: an author's pinned `2` does not block it.
            None => (seq..)
                .map(|n| n.to_string())
                .find(|n| versions.iter().all(|v| v.version != *n))
                .unwrap_or_else(|| seq.to_string()),
        };
        if versions.iter().any(|v| v.version == version) {
            return Err(RegistryError::VersionExists(format!("{name}@{version}")));
        }
        card.version = Some(version.clone());
        card.hosted = true;
        let file_url = format!("/api/skills/{name}/versions/{version}/files/SKILL.md");
        card.skill_md_url.clone_from(&file_url);
        card.skill_md_raw_url = file_url;
        let record = VersionRecord {
            name: name.to_string(),
            version: version.clone(),
            seq,
            digest: unpacked.digest.clone(),
            archive_digest: blob_digest(&archive),
            flat_archive_digest: blob_digest(&unpacked.flat),
            size: unpacked.size,
            yanked: false,
            publisher: user,
            published_at: time::rfc3339(time::now_ms()),
        };
        let files: Vec<FileRecord> = unpacked.files.iter().map(|(f, _)| f.clone()).collect();
        let mut blobs: Vec<(String, Vec<u8>)> = unpacked
            .files
            .into_iter()
            .map(|(f, bytes)| (f.digest, bytes))
            .collect();
        blobs.push((record.archive_digest.clone(), archive));
        blobs.push((record.flat_archive_digest.clone(), unpacked.flat));
        blobs.sort_by(|a, b| a.0.cmp(&b.0));
        blobs.dedup_by(|a, b| a.0 == b.0);
        let publication = Publication::new(card, unpacked.content, record, files, blobs);
        match self.store.publish(&publication).await {
            Err(StoreError::Conflict(at)) => return Err(RegistryError::VersionExists(at)),
            // Someone else created it (or registered it by URL) while this was checked.
            Err(StoreError::NotOwner(name)) => return Err(RegistryError::Conflict(name)),
            other => other?,
        }
        self.changed();
        let detail = self.version(caller, name, &version).await?;
        Ok(Published {
            created: true,
            detail,
        })
    }

    /// Every version of `name` the caller may see, oldest first (empty for a skill
    /// registered by URL).
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn versions(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<Vec<VersionRecord>, RegistryError> {
        self.get(caller, name).await?;
        Ok(self.store.versions(name).await?)
    }

    /// `name@version` (`latest`: the newest not yanked) and its files.
    ///
    /// # Errors
    ///
    /// As [`Registry::get`]; [`RegistryError::NotFound`] for a version there is not.
    pub async fn version(
        &self,
        caller: &Caller,
        name: &str,
        version: &str,
    ) -> Result<VersionDetail, RegistryError> {
        let versions = self.versions(caller, name).await?;
        let record = pick(&versions, version)
            .cloned()
            .ok_or_else(|| RegistryError::NotFound(format!("{name}@{version}")))?;
        let files = self.store.version_files(name, &record.version).await?;
        Ok(VersionDetail {
            version: record,
            files,
        })
    }

    /// The bytes of the file `path` of `name@version`, and its record.
    ///
    /// # Errors
    ///
    /// As [`Registry::version`]; [`RegistryError::NotFound`] for a path the version does
    /// not have.
    pub async fn file(
        &self,
        caller: &Caller,
        name: &str,
        version: &str,
        path: &str,
    ) -> Result<(FileRecord, Vec<u8>), RegistryError> {
        let detail = self.version(caller, name, version).await?;
        let file = detail
            .files
            .into_iter()
            .find(|f| f.path == path)
            .ok_or_else(|| RegistryError::NotFound(format!("{name}@{version}/{path}")))?;
        let bytes = self.blob(&file.digest).await?;
        Ok((file, bytes))
    }

    /// The archive of `name@version`: the `.skill` as published, or (`flat`) the same files
    /// with `SKILL.md` at the root. The version's record says its digest.
    ///
    /// # Errors
    ///
    /// As [`Registry::version`].
    pub async fn archive(
        &self,
        caller: &Caller,
        name: &str,
        version: &str,
        flat: bool,
    ) -> Result<(VersionRecord, Vec<u8>), RegistryError> {
        let detail = self.version(caller, name, version).await?;
        let digest = if flat {
            &detail.version.flat_archive_digest
        } else {
            &detail.version.archive_digest
        };
        let bytes = self.blob(digest).await?;
        Ok((detail.version, bytes))
    }

    async fn blob(&self, digest: &str) -> Result<Vec<u8>, RegistryError> {
        let bytes = self
            .store
            .blob(digest)
            .await?
            .ok_or_else(|| RegistryError::Internal(format!("the blob {digest} is missing")))?;
        if blob_digest(&bytes) != digest {
            return Err(RegistryError::Internal(format!(
                "the blob {digest} does not match its digest"
            )));
        }
        Ok(bytes)
    }

    /// Yanks (or, with `yanked` false, restores) `name@version`. Its owner or an admin.
    ///
    /// # Errors
    ///
    /// As [`Registry::delete`]; [`RegistryError::NotFound`] for a version there is not.
    pub async fn yank(
        &self,
        caller: &Caller,
        name: &str,
        version: &str,
        yanked: bool,
    ) -> Result<VersionDetail, RegistryError> {
        self.owned(caller, name).await?;
        if !self.store.set_yanked(name, version, yanked).await? {
            return Err(RegistryError::NotFound(format!("{name}@{version}")));
        }
        self.follow_latest(name).await?;
        self.changed();
        self.version(caller, name, version).await
    }

    /// Removes `name@version` and its files (those no other version has). Removing the
    /// last version removes the skill. Its owner or an admin.
    ///
    /// # Errors
    ///
    /// As [`Registry::delete`]; [`RegistryError::NotFound`] for a version there is not.
    pub async fn unpublish(
        &self,
        caller: &Caller,
        name: &str,
        version: &str,
    ) -> Result<(), RegistryError> {
        self.owned(caller, name).await?;
        let versions = self.store.versions(name).await?;
        if !versions.iter().any(|v| v.version == version) {
            return Err(RegistryError::NotFound(format!("{name}@{version}")));
        }
        if versions.len() == 1 {
            self.store.delete(name).await?;
        } else {
            self.store.delete_version(name, version).await?;
            self.follow_latest(name).await?;
        }
        self.changed();
        Ok(())
    }

    /// Makes the card and the cached `SKILL.md` of the hosted skill `name` those of its
    /// latest version (after a yank, a restore or an unpublication), so that its page, its
    /// `/content`, search and the views describe what `latest` installs. Its access, owner,
    /// state and ratings stay; its tags are the version's `metadata.tags` and those it had.
    async fn follow_latest(&self, name: &str) -> Result<(), RegistryError> {
        let Some(current) = self.store.get(name).await? else {
            return Ok(());
        };
        let versions = self.store.versions(name).await?;
        // Every version yanked: the card keeps the newest, which an exact version installs.
        let Some(latest) = pick(&versions, "latest").or_else(|| versions.last()) else {
            return Ok(());
        };
        let files = self.store.version_files(name, &latest.version).await?;
        let Some(skill_md) = files
            .iter()
            .find(|f| f.path == skills_core::layout::SKILL_MD)
        else {
            return Ok(());
        };
        let content = String::from_utf8(self.blob(&skill_md.digest).await?).map_err(|_| {
            RegistryError::Internal(format!("{name}@{}: SKILL.md is not UTF-8", latest.version))
        })?;
        let md = skills_frontmatter::SkillMd::parse_str(content.clone())
            .map_err(|e| RegistryError::Internal(format!("{name}@{}: {e}", latest.version)))?;
        let mut card = card_of(
            &md,
            &content,
            name.to_string(),
            Access {
                visibility: current.visibility,
                allowed_groups: current.allowed_groups.clone(),
                extra_tags: current.tags.clone(),
                owner: current.owner.clone(),
            },
            &self.config.name,
        );
        let file_url = format!(
            "/api/skills/{name}/versions/{}/files/SKILL.md",
            latest.version
        );
        card.skill_md_url.clone_from(&file_url);
        card.skill_md_raw_url = file_url;
        card.version = Some(latest.version.clone());
        card.hosted = true;
        self.store.update(&card, &content).await?;
        Ok(())
    }

    /// The discovery index (`/.well-known/agent-skills/index.json`, schema 0.2.0) of what an
    /// anonymous caller may see: nothing unless the registry has public reads. A hosted
    /// skill is its latest version's flat archive; a registered one its `SKILL.md`.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`].
    pub async fn discovery_index(&self) -> Result<serde_json::Value, RegistryError> {
        let mut skills = Vec::new();
        if self.config.public_read {
            let anonymous = Caller::default();
            let mut query = ListQuery {
                enabled: Some(true),
                limit: crate::http::MAX_PAGE,
                ..ListQuery::default()
            };
            loop {
                let (cards, next) = self.list(&anonymous, &query).await?;
                for card in cards {
                    if let Some(entry) = self.index_entry(&card).await? {
                        skills.push(entry);
                    }
                }
                match next {
                    Some(after) => query.after = Some(after),
                    None => break,
                }
            }
        }
        Ok(serde_json::json!({
            "$schema": DISCOVERY_SCHEMA,
            "skills": skills,
        }))
    }

    async fn index_entry(
        &self,
        card: &SkillCard,
    ) -> Result<Option<serde_json::Value>, RegistryError> {
        let name = &card.name;
        // What installers take: the spec's names, a description of at most 1,024 characters.
        let description: String = card.description.chars().take(1024).collect();
        if !skills_frontmatter::is_valid_name(name) || !name.is_ascii() || description.is_empty() {
            return Ok(None);
        }
        if card.hosted {
            let versions = self.store.versions(name).await?;
            let Some(latest) = pick(&versions, "latest") else {
                return Ok(None);
            };
            return Ok(Some(serde_json::json!({
                "name": name,
                "type": "archive",
                "description": description,
                "url": format!("/api/skills/{name}/versions/{}/archive?layout=flat", latest.version),
                "digest": latest.flat_archive_digest,
            })));
        }
        Ok(Some(serde_json::json!({
            "name": name,
            "type": "skill-md",
            "description": description,
            "url": format!("/api/skills/{name}/content"),
            "digest": format!("sha256:{}", card.content_version),
        })))
    }
}

/// The `$schema` of the discovery index this registry serves (the one npm `skills` 1.7.4
/// reads with `type`, `url` and `digest` entries).
pub const DISCOVERY_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_path_segments() {
        for ok in ["1", "1.2.0", "2.0.0-rc.1", "1.0+build.5", "v2"] {
            assert!(is_valid_version(ok), "{ok}");
        }
        for bad in [
            "",
            "-1",
            ".1",
            "1/2",
            "1 2",
            "é",
            "latest?",
            &"1".repeat(65),
        ] {
            assert!(!is_valid_version(bad), "{bad}");
        }
    }

    #[test]
    fn the_tree_digest_is_the_locks() {
        // The empty tree, as skills_add::tree_hash gives it.
        assert_eq!(
            tree_digest([]),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let a = tree_digest([("b", b"2".as_slice()), ("a", b"1".as_slice())]);
        let b = tree_digest([("a", b"1".as_slice()), ("b", b"2".as_slice())]);
        assert_eq!(a, b);
        assert_ne!(
            a,
            tree_digest([("a", b"12".as_slice()), ("b", b"".as_slice())])
        );
    }

    #[test]
    fn latest_skips_yanked_versions_and_exact_ones_do_not() {
        let v = |version: &str, yanked| VersionRecord {
            name: "a".into(),
            version: version.into(),
            seq: 0,
            digest: String::new(),
            archive_digest: String::new(),
            flat_archive_digest: String::new(),
            size: 0,
            yanked,
            publisher: "u".into(),
            published_at: String::new(),
        };
        let versions = [v("1", false), v("2", true)];
        assert_eq!(
            pick(&versions, "latest").map(|v| v.version.as_str()),
            Some("1")
        );
        assert_eq!(pick(&versions, "2").map(|v| v.version.as_str()), Some("2"));
        assert!(pick(&versions, "3").is_none());
        assert!(pick(&[v("1", true)], "latest").is_none());
    }
}

//! What a skill file is and what the index keeps of it: its id (from its path), whether a
//! file directly in a root is a flat skill, and the name and description from its
//! frontmatter. The walk and [`crate::Roots::find`] both read skills through here, so a
//! lookup without a scan agrees with a scan on ids, on flat files and on which skills are
//! malformed.

use std::ffi::OsStr;
use std::path::Path;

use skills_core::ReadError;
use skills_core::layout::is_skill_md;
use skills_frontmatter::{MAX_FILE_BYTES, ParseError, SkillMd, Value};

use crate::SkipReason;

pub use skills_core::layout::NOT_FLAT_SKILLS;

/// What one skill file said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) name: String,
    pub(crate) description: String,
}

/// The id of a skill: its directory's name, or a flat file's stem.
pub(crate) fn skill_id(path: &Path, dir: &Path, flat: bool) -> String {
    let name = if flat {
        path.file_stem()
    } else {
        dir.file_name()
    };
    name.map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a file directly in a root is to discovery (see the crate docs on flat skills).
pub(crate) enum Flat {
    /// A `NAME.md` skill.
    Skill,
    /// `SKILL.md` directly in a root.
    SkillMd,
    /// Anything else.
    Not,
}

/// What a file directly in a root is.
pub(crate) fn flat_file(name: &OsStr) -> Flat {
    if name.to_str().is_some() && is_skill_md(name) {
        Flat::SkillMd
    } else if skills_core::layout::is_flat_skill_name(name) {
        Flat::Skill
    } else {
        Flat::Not
    }
}

/// Reads and parses a skill file and takes what the index keeps from it.
pub(crate) fn parse_meta(path: &Path, size: u64, flat: bool, id: &str) -> Result<Meta, SkipReason> {
    if size > MAX_FILE_BYTES {
        return Err(SkipReason::Parse(ParseError::TooLarge {
            size,
            limit: MAX_FILE_BYTES,
        }));
    }
    // A skill file that links out of its directory is not read: its target could be any
    // file of the user's, and a skipped skill's reason quotes what it holds.
    let root = path.parent().unwrap_or(path);
    let bytes =
        skills_core::fs::read_bounded_in(path, root, MAX_FILE_BYTES).map_err(|e| match e {
            ReadError::TooLarge { size, limit } => {
                SkipReason::Parse(ParseError::TooLarge { size, limit })
            }
            other => SkipReason::Unreadable(other.to_string()),
        })?;
    let md = SkillMd::parse_vec(bytes).map_err(|e| match e {
        ParseError::MissingFrontmatter { .. } if flat => SkipReason::NoFrontmatter,
        e => SkipReason::Parse(e),
    })?;
    let name = match string_field(&md, "name")? {
        Some(name) => name,
        None if flat => id.to_string(),
        None => return Err(SkipReason::MissingName),
    };
    let description = string_field(&md, "description")?.ok_or(SkipReason::MissingDescription)?;
    Ok(Meta { name, description })
}

/// A required-looking string field: `None` when absent, an error when present but not a
/// non-empty string.
fn string_field(md: &SkillMd, key: &'static str) -> Result<Option<String>, SkipReason> {
    match md.field(key).map(|e| &e.value) {
        None => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Err(SkipReason::Empty(key)),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Null) => Err(SkipReason::Empty(key)),
        Some(_) => Err(SkipReason::NotString(key)),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::test_support::{custom, ids, skill, tmp, write};
    use crate::{Index, Scope};

    #[test]
    fn malformed_skills_are_skipped_with_reasons() {
        let t = tmp();
        let root = t.path().join("skills");
        skill(&root.join("good"));
        write(
            &root.join("colon/SKILL.md"),
            "---\nname: colon\ndescription: Use when: asked\n---\n",
        );
        write(&root.join("no-name/SKILL.md"), "---\ndescription: d\n---\n");
        write(&root.join("no-desc/SKILL.md"), "---\nname: no-desc\n---\n");
        write(
            &root.join("empty-desc/SKILL.md"),
            "---\nname: e\ndescription: \"\"\n---\n",
        );
        write(
            &root.join("list-name/SKILL.md"),
            "---\nname: [a]\ndescription: d\n---\n",
        );
        write(&root.join("no-fm/SKILL.md"), "# Title\n");
        fs::create_dir_all(root.join("binary")).unwrap();
        fs::write(root.join("binary/SKILL.md"), b"---\nname: \xff\n---\n").unwrap();

        let index = Index::scan(&custom(&[&root]));
        assert_eq!(ids(index.skills()), ["good"]);
        let reasons: Vec<(&str, String)> = index
            .skipped()
            .iter()
            .map(|s| (s.id.as_str(), s.reason.to_string()))
            .collect();
        assert_eq!(reasons.len(), 7, "{reasons:?}");
        let reason = |id: &str| reasons.iter().find(|(i, _)| *i == id).unwrap().1.clone();
        assert!(
            reason("colon").starts_with("invalid YAML in frontmatter"),
            "{}",
            reason("colon")
        );
        assert_eq!(reason("no-name"), "missing name");
        assert_eq!(reason("no-desc"), "missing description");
        assert_eq!(reason("empty-desc"), "`description` is empty");
        assert_eq!(reason("list-name"), "`name` is not a string");
        assert!(reason("no-fm").contains("must start with a `---` line"));
        assert!(reason("binary").contains("not valid UTF-8"));
        let skipped = &index.skipped()[0];
        assert_eq!(
            (skipped.root.as_path(), skipped.scope),
            (root.as_path(), Scope::Custom)
        );
        // Each skip is also a warning that says why.
        let warnings: Vec<String> = index.warnings().iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 7);
        assert!(
            warnings.iter().any(
                |w| w.contains("skipped skill `no-desc`") && w.ends_with("missing description")
            )
        );
    }
}

//! `SKILL.md` itself: whether it is spelt so clients find it (`skill-md-lowercase`,
//! `skill-md-missing`), whether it can be read (`file-unreadable`, `file-too-large`, the parse
//! errors), and the file-scope rules `skills-frontmatter` implements, at their configured
//! severities.

use std::borrow::Cow;

use skills_frontmatter::{MAX_FILE_BYTES, SkillMd};

use crate::diagnostic::{Diagnostic, Text};
use crate::linter::Linter;
use crate::rules::RuleId;
use crate::walk;

/// `skill-md-lowercase` and `skill-md-missing` for a skill whose `SKILL.md` is spelt in
/// another letter case: the walk accepts any case, clients do not. `skill-md-flat` for a
/// flat skill file, which no client that follows the specification loads.
pub(crate) fn check_file_name(linter: &Linter, skill: &walk::SkillDir, out: &mut Vec<Diagnostic>) {
    let md = &skill.skill_md;
    if skill.flat {
        let file = md
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let stem = md
            .file_stem()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        // As renderers show paths: `skills lint .` reaches `./x.md`, shown `x.md`.
        let shown = md.strip_prefix(".").unwrap_or(md);
        let dir = shown.with_extension("");
        out.extend(linter.diagnostic(
            RuleId::SkillMdFlat,
            format!(
                "`{file}` is a flat skill file: agents that follow the Agent Skills \
                 specification load `{stem}/SKILL.md`, not `{file}`"
            ),
            Some(format!(
                "make it a skill directory: `mkdir {} && mv {} {}`",
                dir.display(),
                shown.display(),
                dir.join("SKILL.md").display()
            )),
            md.clone(),
            None,
            None,
        ));
        return;
    }
    let md_name = md.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if md_name == "skill.md" {
        out.extend(linter.diagnostic(
            RuleId::SkillMdLowercase,
            "the file is named `skill.md`; most clients look for `SKILL.md`".to_string(),
            Some(format!(
                "rename it: `mv {} {}`",
                md.display(),
                skill.dir.join("SKILL.md").display()
            )),
            md.clone(),
            None,
            None,
        ));
    } else if md_name != "SKILL.md" {
        out.extend(linter.diagnostic(
            RuleId::SkillMdMissing,
            format!(
                "no `SKILL.md` in {}; found `{md_name}` instead",
                skill.dir.display()
            ),
            Some(format!(
                "rename `{md_name}` to `SKILL.md`: the name is case-sensitive"
            )),
            md.clone(),
            None,
            None,
        ));
    }
}

/// The bytes of `SKILL.md` as [`parse`] reads them; `None` where it reads nothing: the
/// skill could not be listed, or `SKILL.md` is not a regular file, a link out of the
/// skill, or over [`MAX_FILE_BYTES`] by the listing.
pub(crate) fn read(skill: &walk::SkillDir) -> Option<std::io::Result<Vec<u8>>> {
    let md = &skill.skill_md;
    if skill.unlisted.is_some()
        || skill.not_a_file.is_some()
        || skill.links_out.iter().any(|(link, _)| link == md)
    {
        return None;
    }
    let listed = super::file_size(skill, md);
    if listed.is_some_and(|size| size > MAX_FILE_BYTES) {
        return None;
    }
    // Not in the listing (an ignored file): read up to the limit.
    Some(skill.read(md, listed.unwrap_or(u64::MAX), MAX_FILE_BYTES))
}

/// `SKILL.md` parsed, or `None` after reporting why it cannot be: not a regular file, over
/// [`MAX_FILE_BYTES`], unreadable, or not a valid frontmatter and body.
pub(crate) fn parse(
    linter: &Linter,
    skill: &walk::SkillDir,
    out: &mut Vec<Diagnostic>,
) -> Option<SkillMd> {
    let md = &skill.skill_md;
    if let Some(what) = skill.not_a_file {
        out.extend(
            linter.diagnostic(
                RuleId::FileUnreadable,
                format!("SKILL.md is {what}, not a regular file; it is not read"),
                Some(
                    "make `SKILL.md` a regular file holding the frontmatter and instructions"
                        .to_string(),
                ),
                md.clone(),
                None,
                None,
            ),
        );
        return None;
    }
    if let Some((_, target)) = skill.links_out.iter().find(|(link, _)| link == md) {
        // Its target could be any file of the user's (`/proc/self/environ`): it is not
        // read, so no diagnostic can quote it.
        out.extend(linter.diagnostic(
            RuleId::FileUnreadable,
            format!(
                "SKILL.md is a symlink to {}, outside the skill; it is not read",
                target.display()
            ),
            Some(
                "put the SKILL.md itself in the skill directory (link the whole directory instead, if it lives elsewhere)"
                    .to_string(),
            ),
            md.clone(),
            None,
            None,
        ));
        return None;
    }
    let listed = super::file_size(skill, md);
    // Not in the listing (an ignored file): read up to the limit.
    let size = listed.unwrap_or(u64::MAX);
    if let Some(size) = listed.filter(|&s| s > MAX_FILE_BYTES) {
        out.extend(linter.diagnostic(
            RuleId::FileTooLarge,
            format!("SKILL.md is {size} bytes; files over {MAX_FILE_BYTES} bytes are not read"),
            None,
            md.clone(),
            None,
            None,
        ));
        return None;
    }
    let bytes = match skill.read(md, size, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            out.extend(linter.diagnostic(
                RuleId::FileUnreadable,
                format!("cannot read SKILL.md: {e}"),
                None,
                md.clone(),
                None,
                None,
            ));
            return None;
        }
    };
    match SkillMd::parse_vec(bytes) {
        Ok(s) => Some(s),
        Err(e) => {
            // Errors are rare: read the file again rather than keep a copy of every one
            // (a skill in memory still has its text).
            let bytes = match skill.source() {
                Some(source) => Cow::Borrowed(source),
                None => Cow::Owned(skill.read(md, size, MAX_FILE_BYTES).unwrap_or_default()),
            };
            // Invalid UTF-8 is shown with U+FFFD in its place; the valid prefix (and so
            // the offset) is unchanged, and the replacement is three bytes long.
            let shown = String::from_utf8_lossy(&bytes);
            let span = match &e {
                skills_frontmatter::ParseError::InvalidUtf8 { offset } => {
                    Some(*offset..offset + char::REPLACEMENT_CHARACTER.len_utf8())
                }
                _ => e.span(),
            };
            let text = Text::new(&shown);
            out.extend(linter.diagnostic(
                RuleId::from(e.check()),
                e.to_string(),
                Some(e.help()),
                md.clone(),
                span,
                Some(&text),
            ));
            None
        }
    }
}

/// The file-scope rules, which need the name of the skill's directory besides the file.
pub(crate) fn check_file_rules(
    linter: &Linter,
    skill: &walk::SkillDir,
    skill_md: &SkillMd,
    text: Option<&Text<'_>>,
    out: &mut Vec<Diagnostic>,
) {
    let md = &skill.skill_md;
    let dir_name = dir_name(skill);
    let profile = linter.config().profile;
    for f in skill_md.validate(dir_name.as_deref()) {
        if f.check == skills_frontmatter::Check::VendorField
            && f.span
                .as_ref()
                .and_then(|span| skill_md.source().get(span.clone()))
                .is_some_and(|key| profile.expects_field(key))
        {
            continue;
        }
        out.extend(linter.diagnostic(
            RuleId::from(f.check),
            f.message,
            f.help,
            md.clone(),
            f.span,
            text,
        ));
    }
}

/// The name a skill's directory is known by: its last component, or for `.` and `..` the
/// last component of the absolute path (none for a skill in memory: it is not on disk to
/// resolve).
fn dir_name(skill: &walk::SkillDir) -> Option<String> {
    let dir = &skill.dir;
    // A flat skill's id is its file's stem, the directory it stands for.
    if skill.flat {
        return dir.file_stem().map(|n| n.to_string_lossy().into_owned());
    }
    match dir.file_name() {
        Some(n) => Some(n.to_string_lossy().into_owned()),
        None if skill.on_disk() => std::fs::canonicalize(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::linter::Linter;
    use crate::rules::RuleId;
    use crate::test_support::{rules_of, skill};

    #[cfg(unix)]
    #[test]
    fn skill_md_that_is_a_directory_or_fifo_is_unreadable() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("d/SKILL.md")).unwrap();
        std::fs::create_dir_all(t.path().join("f")).unwrap();
        let fifo = t.path().join("f/SKILL.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let linter = Linter::new(Config::default());
        let report = linter.lint_paths(&[t.path().to_path_buf()]).unwrap();
        let messages: Vec<_> = report
            .diagnostics()
            .map(|d| (d.rule, d.path.clone(), d.message.clone()))
            .collect();
        assert!(messages.contains(&(
            RuleId::FileUnreadable,
            t.path().join("d/SKILL.md"),
            "SKILL.md is a directory, not a regular file; it is not read".to_string()
        )));
        if made.is_ok_and(|s| s.success()) {
            // Never opened, so the walk does not block on the pipe.
            assert!(
                messages.contains(&(
                    RuleId::FileUnreadable,
                    fifo.clone(),
                    "SKILL.md is a named pipe (FIFO), not a regular file; it is not read"
                        .to_string()
                )),
                "{messages:?}"
            );
            // The file given directly is reported too, not silently skipped.
            let report = linter.lint_paths(&[fifo]).unwrap();
            assert_eq!(rules_of(&report), [RuleId::FileUnreadable]);
        }
        // A regular SKILL.md beside a directory spelt `skill.md` wins.
        skill(t.path(), "both", "body\n");
        std::fs::create_dir(t.path().join("both/skill.md")).unwrap();
        let report = linter.lint_paths(&[t.path().join("both")]).unwrap();
        assert_eq!(rules_of(&report), Vec::<RuleId>::new());
    }
}

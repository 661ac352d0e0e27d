//! Links out of `SKILL.md` and out of the skill: `link-missing`, `link-outside-skill` (for
//! references and for symlinks) and `reference-too-deep`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use skills_frontmatter::{MAX_FILE_BYTES, ReferenceKind, SkillMd};

use super::{closest_file, exists};
use crate::diagnostic::{Diagnostic, Text};
use crate::linter::Linter;
use crate::rules::RuleId;
use crate::walk;

/// `link-outside-skill` for the symlinks the walk did not follow because they leave the skill.
pub(crate) fn check_links_out(linter: &Linter, skill: &walk::SkillDir, out: &mut Vec<Diagnostic>) {
    // A SKILL.md that links out is reported where it is not read (`file-unreadable`).
    for (link, target) in skill.links_out.iter().filter(|(l, _)| *l != skill.skill_md) {
        let shown = link.strip_prefix(&skill.dir).unwrap_or(link);
        out.extend(linter.diagnostic(
            RuleId::LinkOutsideSkill,
            format!(
                "`{}` is a symlink to {}, outside the skill; it is not followed",
                shown.display(),
                target.display()
            ),
            Some("copy the files into the skill, or remove the link: `skills package` and `skills install` refuse links out of a skill".to_string()),
            link.clone(),
            None,
            None,
        ));
    }
}

/// The references in `SKILL.md`'s body: each must stay in the skill and name one of its files.
/// Each Markdown file linked is read once, however often it is linked, for `reference-too-deep`.
pub(crate) fn check_references(
    linter: &Linter,
    skill: &walk::SkillDir,
    skill_md: &SkillMd,
    text: Option<&Text<'_>>,
    out: &mut Vec<Diagnostic>,
) {
    let md = &skill.skill_md;
    let mut followed = HashSet::new();
    let mut looked_up = HashMap::new();
    for r in skill_md.references() {
        let Some(resolved) = r.resolved.as_deref().filter(|_| !r.is_absolute()) else {
            out.extend(linter.diagnostic(
                RuleId::LinkOutsideSkill,
                format!("`{}` points outside the skill directory", r.target),
                Some("copy the file into the skill and refer to it with a path relative to the skill root".to_string()),
                md.clone(),
                Some(r.span.clone()),
                text,
            ));
            continue;
        };
        if resolved.is_empty() {
            continue;
        }
        let full = skill.dir.join(resolved);
        if skill.flat {
            // Packages, installs and the MCP server have the file and nothing beside it.
            out.extend(
                linter.diagnostic(
                    RuleId::LinkMissing,
                    format!(
                        "`{}` is not part of the skill: a flat skill file is its only file",
                        r.target
                    ),
                    Some(
                        "make it a skill directory (`NAME/SKILL.md`) and put the file in it"
                            .to_string(),
                    ),
                    md.clone(),
                    Some(r.span.clone()),
                    text,
                ),
            );
            continue;
        }
        // A path the body names again is looked up once.
        let presence = *looked_up
            .entry(resolved.to_string())
            .or_insert_with(|| super::presence(skill, &full));
        if presence != super::Presence::Present {
            let left_out = presence == super::Presence::LeftOut;
            out.extend(
                linter.diagnostic(
                    RuleId::LinkMissing,
                    if left_out {
                        format!(
                            "`{}` is not part of the skill: an ignore file, the repository's \
                             .gitignore or its secret-looking name leaves it out, so packages, \
                             installs and the MCP server do not have it",
                            r.target
                        )
                    } else {
                        format!("`{}` does not exist in the skill", r.target)
                    },
                    Some(match closest_file(skill, resolved) {
                        _ if left_out => "stop ignoring it (or include it with `!name` in \
                                          .skillignore), or link to a file that is part of the skill"
                            .to_string(),
                        Some(c) => {
                            format!("did you mean `{c}`? Paths are relative to the skill directory")
                        }
                        None => "add the file, or fix the path (relative to the skill directory)"
                            .to_string(),
                    }),
                    md.clone(),
                    Some(r.span.clone()),
                    text,
                ),
            );
            continue;
        }
        if r.kind == ReferenceKind::Link
            && is_markdown(resolved)
            && !resolved.eq_ignore_ascii_case("SKILL.md")
            && followed.insert(resolved.to_string())
        {
            check_nested(linter, skill, resolved, &full, out);
        }
    }
}

/// `reference-too-deep`: a Markdown file linked from `SKILL.md` that links to further
/// Markdown files of the skill.
fn check_nested(
    linter: &Linter,
    skill: &walk::SkillDir,
    rel: &str,
    full: &Path,
    out: &mut Vec<Diagnostic>,
) {
    let listed = super::file_size(skill, full);
    if listed.is_some_and(|s| s > MAX_FILE_BYTES) {
        return;
    }
    // Not in the listing: read up to the limit.
    let size = listed.unwrap_or(u64::MAX);
    let Ok(content) = skill
        .read(full, size, MAX_FILE_BYTES)
        .and_then(|b| String::from_utf8(b).map_err(std::io::Error::other))
    else {
        return;
    };
    let text = Text::new(&content);
    let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
    for r in skills_frontmatter::find_references(&content) {
        if r.kind != ReferenceKind::Link || r.is_absolute() {
            continue;
        }
        let joined = if parent.is_empty() {
            r.target.clone()
        } else {
            format!("{parent}/{}", r.target)
        };
        let Some(target) = skills_frontmatter::resolve_reference(&joined) else {
            continue;
        };
        if !is_markdown(&target) || target == rel || target.eq_ignore_ascii_case("SKILL.md") {
            continue;
        }
        if exists(skill, &skill.dir.join(&target)) {
            out.extend(linter.diagnostic(
                RuleId::ReferenceTooDeep,
                format!("`{rel}` (linked from SKILL.md) links on to `{target}`: references nested more than one level deep"),
                Some(format!("link `{target}` directly from SKILL.md")),
                full.to_path_buf(),
                Some(r.span.clone()),
                Some(&text),
            ));
        }
    }
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::diagnostic::Position;
    use crate::test_support::{rules_of, skill, write};

    #[test]
    fn links_missing_outside_and_nested() {
        let t = tempfile::tempdir().unwrap();
        skill(
            t.path(),
            "s",
            "See [a](references/a.md), [x](references/x.md), [o](../o.md), `scripts/run.sh`\n\
             (outputs go to assets/out/, which prose names and lint does not check)\n",
        );
        write(t.path(), "s/references/a.md", "More in [b](b.md).\n");
        write(t.path(), "s/references/b.md", "b\n");
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().join("s")])
            .unwrap();
        let mut got = rules_of(&report);
        got.sort_unstable();
        assert_eq!(
            got,
            [
                RuleId::LinkMissing,
                RuleId::LinkMissing,
                RuleId::LinkOutsideSkill,
                RuleId::ReferenceTooDeep
            ]
        );
        let nested = report
            .diagnostics()
            .find(|d| d.rule == RuleId::ReferenceTooDeep)
            .unwrap();
        assert!(nested.path.ends_with("references/a.md"));
        assert_eq!(
            nested.start,
            Some(Position {
                line: 1,
                column: 13
            })
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_a_skill_are_reported_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        for i in 0..20 {
            write(&outside, &format!("big/{i}.txt"), "x");
        }
        write(&outside, "secret.md", "[deeper](x.md)");
        let root = t.path().join("skills");
        skill(&root, "s", "See [notes](notes/README.md).\n");
        write(&root, "s/notes/README.md", "notes\n");
        std::os::unix::fs::symlink(outside.join("big"), root.join("s/data")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.md"), root.join("s/notes/secret.md"))
            .unwrap();
        // Inside the skill: followed, not reported.
        std::os::unix::fs::symlink("notes", root.join("s/docs")).unwrap();
        // Outside any skill (a skills folder linking a skill kept elsewhere): followed.
        skill(&outside, "kept", "body\n");
        std::os::unix::fs::symlink(outside.join("kept"), root.join("kept")).unwrap();

        let report = Linter::new(Config::default())
            .lint_paths(std::slice::from_ref(&root))
            .unwrap();
        let dirs: Vec<_> = report.skills.iter().map(|s| s.dir.clone()).collect();
        assert_eq!(dirs, [root.join("kept"), root.join("s")]);
        let found: Vec<_> = report
            .diagnostics()
            .map(|d| (d.rule, d.path.clone(), d.message.clone()))
            .collect();
        let canonical = outside.canonicalize().unwrap();
        assert_eq!(
            found,
            [
                (
                    RuleId::LinkOutsideSkill,
                    root.join("s/data"),
                    format!(
                        "`data` is a symlink to {}, outside the skill; it is not followed",
                        canonical.join("big").display()
                    )
                ),
                // Reached again through the inside link `docs -> notes`.
                (
                    RuleId::LinkOutsideSkill,
                    root.join("s/docs/secret.md"),
                    format!(
                        "`docs/secret.md` is a symlink to {}, outside the skill; it is not followed",
                        canonical.join("secret.md").display()
                    )
                ),
                (
                    RuleId::LinkOutsideSkill,
                    root.join("s/notes/secret.md"),
                    format!(
                        "`notes/secret.md` is a symlink to {}, outside the skill; it is not followed",
                        canonical.join("secret.md").display()
                    )
                ),
            ]
        );
    }
}

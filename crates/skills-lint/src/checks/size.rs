//! The MCP skills extension's limits on a whole skill: `too-many-files` and
//! `skill-too-large`.

use crate::diagnostic::Diagnostic;
use crate::linter::Linter;
use crate::rules::RuleId;
use crate::walk;

pub use skills_core::layout::{MAX_SKILL_BYTES, MAX_SKILL_FILES};

pub(crate) fn check_size(linter: &Linter, skill: &walk::SkillDir, out: &mut Vec<Diagnostic>) {
    let count = skill.files().len();
    if count > MAX_SKILL_FILES {
        out.extend(linter.diagnostic(
            RuleId::TooManyFiles,
            format!("the skill holds {count} files; the MCP skills extension serves at most {MAX_SKILL_FILES}"),
            None,
            skill.dir.clone(),
            None,
            None,
        ));
    }
    let total: u64 = skill.files().iter().map(|f| f.size).sum();
    if total > MAX_SKILL_BYTES {
        out.extend(linter.diagnostic(
            RuleId::SkillTooLarge,
            format!("the skill's files add up to {total} bytes; the MCP skills extension serves at most {MAX_SKILL_BYTES}"),
            None,
            skill.dir.clone(),
            None,
            None,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::test_support::{rules_of, skill, write};

    #[test]
    fn too_many_files() {
        let t = tempfile::tempdir().unwrap();
        skill(t.path(), "s", "body\n");
        for i in 0..MAX_SKILL_FILES {
            write(t.path(), &format!("s/assets/{i}.txt"), "");
        }
        let report = Linter::new(Config::default())
            .lint_paths(&[t.path().join("s")])
            .unwrap();
        assert_eq!(rules_of(&report), [RuleId::TooManyFiles]);
    }
}

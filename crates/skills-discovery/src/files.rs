//! The files of one skill, for `skills show` and what the MCP server serves.

use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::{DiscoveryError, Skill};

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkillFile {
    /// The path relative to the skill directory (for a flat skill, its file name).
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

/// The directories the specification names for a skill's resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileGroup {
    /// Under `scripts/`.
    Scripts,
    /// Under `references/`.
    References,
    /// Under `assets/`.
    Assets,
    /// Anything else, `SKILL.md` included.
    Other,
}

impl SkillFile {
    /// Which resource directory the file is in.
    pub fn group(&self) -> FileGroup {
        match self.path.components().next() {
            Some(Component::Normal(first)) if self.path.components().count() > 1 => {
                match first.to_str() {
                    Some("scripts") => FileGroup::Scripts,
                    Some("references") => FileGroup::References,
                    Some("assets") => FileGroup::Assets,
                    _ => FileGroup::Other,
                }
            }
            _ => FileGroup::Other,
        }
    }
}

pub(crate) fn list(skill: &Skill) -> Result<Vec<SkillFile>, DiscoveryError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DiscoveryError::Io { path, source }
    };
    if skill.flat {
        let size = fs::metadata(&skill.skill_md)
            .map_err(io(&skill.skill_md))?
            .len();
        let path = skill
            .skill_md
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_default();
        return Ok(vec![SkillFile { path, size }]);
    }
    // The one file policy: what `skills package` would hold is what is listed and served.
    // What it would refuse (a link out of the skill, a loop) is simply not listed here.
    let listing = skills_core::files::list(&skill.dir).map_err(io(&skill.dir))?;
    Ok(listing
        .files
        .into_iter()
        .map(|f| SkillFile {
            path: PathBuf::from(f.path),
            size: f.size,
        })
        .collect())
}

#[cfg(all(test, unix))]
mod tests {
    use crate::test_support::{custom, skill, tmp, write};
    use crate::{FileGroup, Index};

    #[test]
    fn files_are_listed_without_leaving_the_skill() {
        use std::os::unix::fs::symlink;
        let t = tmp();
        let dir = t.path().join("skills/pdf");
        skill(&dir);
        write(&dir.join("scripts/fill.py"), "print()\n");
        write(&dir.join("references/FORMS.md"), "# Forms\n");
        write(&dir.join("assets/logo.svg"), "<svg/>");
        write(&dir.join("notes/todo.txt"), "x");
        write(&dir.join(".gitignore"), "*.pyc\n");
        write(&dir.join("scripts/fill.pyc"), "bytecode");
        write(&dir.join("node_modules/x/index.js"), "");
        write(&t.path().join("secret.txt"), "outside");
        symlink(t.path().join("secret.txt"), dir.join("assets/secret.txt")).unwrap();
        symlink("../references/FORMS.md", dir.join("assets/forms.md")).unwrap();
        symlink(t.path(), dir.join("escape")).unwrap();
        let index = Index::scan(&custom(&[&t.path().join("skills")]));
        let files = index.get("pdf").unwrap().files().unwrap();
        let listed: Vec<(&str, FileGroup)> = files
            .iter()
            .map(|f| (f.path.to_str().unwrap(), f.group()))
            .collect();
        assert_eq!(
            listed,
            [
                (".gitignore", FileGroup::Other),
                ("SKILL.md", FileGroup::Other),
                ("assets/forms.md", FileGroup::Assets),
                ("assets/logo.svg", FileGroup::Assets),
                ("notes/todo.txt", FileGroup::Other),
                ("references/FORMS.md", FileGroup::References),
                ("scripts/fill.py", FileGroup::Scripts),
            ]
        );
        assert_eq!(files[2].size, 8);
    }
}

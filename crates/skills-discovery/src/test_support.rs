//! Helpers the crate's tests share: skill trees written into temporary directories (never the
//! real home).

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::{Roots, Skill};

pub(crate) fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub(crate) fn md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")
}

/// `dir/SKILL.md` naming the skill after the directory.
pub(crate) fn skill(dir: &Path) -> PathBuf {
    let name = dir.file_name().unwrap().to_str().unwrap().to_lowercase();
    let path = dir.join("SKILL.md");
    write(&path, &md(&name, "Does things. Use when asked."));
    path
}

pub(crate) fn ids<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> Vec<&'a str> {
    skills.into_iter().map(|s| s.id.as_str()).collect()
}

pub(crate) fn tmp() -> TempDir {
    tempfile::tempdir().unwrap()
}

/// A root of explicit directories.
pub(crate) fn custom(paths: &[&Path]) -> Roots {
    Roots::custom(paths.iter().map(|p| p.to_path_buf()))
}

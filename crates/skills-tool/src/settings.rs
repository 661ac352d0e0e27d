//! The nearest `skills.toml`, for the sections other than `[lint]` (which `skills-lint`
//! reads itself): `[registry]` and `[doctor]`.

use std::path::PathBuf;

use crate::errors;
use crate::errors::plain as error;

/// The nearest `skills.toml` from the current directory up, and its text; `None` when there
/// is none.
pub(crate) fn nearest() -> Result<Option<(PathBuf, String)>, miette::Report> {
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(None);
    };
    let Some(path) = cwd
        .ancestors()
        .map(|d| d.join(skills_lint::CONFIG_FILE))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    // Bounded, regular files only: a skills.toml that arrives with a clone can be a link to
    // /dev/zero.
    let bytes = skills_core::read_bounded(&path, 4 * 1024 * 1024).map_err(|e| {
        errors::plain(
            format!("{}: {e}", path.display()),
            "make skills.toml a readable regular file",
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        errors::plain(
            format!("{}: not UTF-8 text", path.display()),
            "save skills.toml as UTF-8",
        )
    })?;
    Ok(Some((path, text)))
}

/// The project the current directory is in: the nearest ancestor with a `.git`, else the
/// current directory.
pub(crate) fn project_root() -> Result<PathBuf, miette::Report> {
    let cwd = std::env::current_dir().map_err(|e| {
        error(
            format!("cannot read the current directory: {e}"),
            "run it from a directory that exists and you can read",
        )
    })?;
    Ok(skills_discovery::project_root(&cwd))
}

/// The cache of fetched repositories (`skills add`, and `skills install` of a `SKILL.md`
/// URL): `SKILLS_CACHE_DIR`, else `$XDG_CACHE_HOME/skills`, else `~/.cache/skills`.
pub(crate) fn cache_dir() -> Result<PathBuf, miette::Report> {
    if let Some(dir) = std::env::var_os("SKILLS_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
    {
        return Ok(dir.join("skills"));
    }
    let home = std::env::home_dir()
        .filter(|h| !h.as_os_str().is_empty())
        .ok_or_else(|| error("no home directory", "set HOME, or SKILLS_CACHE_DIR"))?;
    Ok(home.join(".cache/skills"))
}

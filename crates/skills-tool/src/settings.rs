//! The nearest `skills.toml`, for the sections other than `[lint]` (which `skills-lint`
//! reads itself): `[registry]` and `[doctor]`.

use std::path::PathBuf;

use crate::errors;

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
    let text = std::fs::read_to_string(&path).map_err(|e| {
        errors::plain(
            format!("{}: {e}", path.display()),
            "check that the file is readable",
        )
    })?;
    Ok(Some((path, text)))
}

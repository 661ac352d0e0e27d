//! Which skills roots a command searches.

use std::path::PathBuf;

use skills_discovery::Roots;

/// The skills roots in force: `--skills-dir`, else `SKILLS_PATH`, else the defaults for the
/// current directory and the home directory.
pub(crate) fn resolve(skills_dirs: &[PathBuf]) -> Roots {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
    let skills_path = std::env::var_os("SKILLS_PATH");
    Roots::resolve(&cwd, home.as_deref(), skills_dirs, skills_path.as_deref())
}

//! Listing skills named by relative paths, as `skills lint .` names them. In its own test
//! binary: it changes the working directory, which no other test may share.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

use skills_core::files::{Lister, Problem};

#[cfg(unix)]
#[test]
fn skills_named_from_the_working_directory_resolve_where_they_really_are() {
    use std::os::unix::fs::symlink;
    let t = tempfile::tempdir().unwrap();
    let real = fs::canonicalize(t.path()).unwrap();
    fs::create_dir_all(real.join("plain/docs")).unwrap();
    fs::write(real.join("plain/SKILL.md"), "x").unwrap();
    fs::write(real.join("plain/docs/a.md"), "x").unwrap();
    fs::create_dir_all(real.join("elsewhere/pdf")).unwrap();
    fs::write(real.join("elsewhere/pdf/SKILL.md"), "x").unwrap();
    symlink("elsewhere/pdf", real.join("pdf")).unwrap();
    fs::create_dir_all(real.join("leaky")).unwrap();
    fs::write(real.join("leaky/SKILL.md"), "x").unwrap();
    fs::write(real.join("secret.md"), "x").unwrap();
    symlink("../secret.md", real.join("leaky/escape.md")).unwrap();
    std::env::set_current_dir(&real).unwrap();

    let lister = Lister::new();
    for name in ["plain", "./plain", "././plain", "elsewhere/../plain"] {
        let listing = lister.list(Path::new(name)).unwrap();
        let reals: Vec<_> = listing.files.iter().map(|f| f.real.clone()).collect();
        assert_eq!(
            reals,
            [real.join("plain/SKILL.md"), real.join("plain/docs/a.md")],
            "{name}"
        );
    }
    for name in ["pdf", "./pdf"] {
        let listing = lister.list(Path::new(name)).unwrap();
        assert_eq!(listing.files.len(), 1, "{name}");
        assert!(
            listing
                .files
                .iter()
                .all(|f| f.real == real.join("elsewhere/pdf/SKILL.md")),
            "{name}: {:?}",
            listing.files
        );
        let walked = lister.list_entry(Path::new(name), true).unwrap();
        assert_eq!(walked.files.len(), 1, "{name}");
    }
    // The root a link must stay inside is the real skill directory, however it was named.
    let leaky = lister.list(Path::new("./leaky")).unwrap();
    assert!(
        matches!(leaky.problems.as_slice(), [Problem::SymlinkEscape { link, .. }] if link == "escape.md"),
        "{:?}",
        leaky.problems
    );
}

//! Bytes as a ZIP archive: `unpack` into a fresh directory, then `install_dir` into a root.
//! Whatever the archive holds, nothing may appear outside the destination, no symlink may be
//! created, and the limits must hold.

#![no_main]

use std::fs;
use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use skills_package::{Limits, install_dir, unpack};

const LIMITS: Limits = Limits {
    max_bytes: 256 * 1024,
    max_entries: 64,
};

/// Every path under `dir` (not following symlinks), with the bytes its files hold.
fn walk(dir: &Path, out: &mut Vec<(String, u64)>) {
    let Ok(read) = fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert!(
            !meta.file_type().is_symlink(),
            "a symlink was created: {path:?}"
        );
        out.push((path.display().to_string(), meta.len()));
        if meta.is_dir() {
            walk(&path, out);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(tmp) = tempfile::tempdir() else { return };
    let dest = tmp.path().join("dest");
    let root = tmp.path().join("root");
    fs::create_dir(&dest).unwrap_or_else(|e| panic!("{dest:?}: {e}"));
    fs::create_dir(&root).unwrap_or_else(|e| panic!("{root:?}: {e}"));

    let result = unpack(Cursor::new(data), Path::new("fuzz.zip"), &dest, &LIMITS);

    let mut found = Vec::new();
    walk(tmp.path(), &mut found);
    let dest_prefix = format!("{}/", dest.display());
    for (path, _) in &found {
        assert!(
            path == &dest.display().to_string()
                || path == &root.display().to_string()
                || path.starts_with(&dest_prefix),
            "{path} was written outside {dest:?} ({result:?})"
        );
    }
    let files: Vec<_> = found
        .iter()
        .filter(|(p, _)| Path::new(p).is_file())
        .collect();
    assert!(
        files.len() <= LIMITS.max_entries,
        "{} files for {result:?}",
        files.len()
    );
    let written: u64 = files.iter().map(|(_, len)| len).sum();
    assert!(
        written <= LIMITS.max_bytes,
        "{written} bytes written for {result:?}"
    );

    if let Ok(id) = result {
        let staged = dest.join(&id);
        assert!(
            staged.is_dir(),
            "unpack returned {id:?} but {staged:?} is not a directory"
        );
        match install_dir(&staged, &root, &id, false) {
            Ok(installed) => assert_eq!(installed, root.join(&id)),
            Err(e) => panic!("installing {id:?} into an empty root failed: {e}"),
        }
        let mut after = Vec::new();
        walk(&root, &mut after);
        let root_prefix = format!("{}/{id}", root.display());
        for (path, _) in &after {
            assert!(
                path.starts_with(&root_prefix),
                "{path} outside {root_prefix}"
            );
        }
    }
});

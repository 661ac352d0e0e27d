//! Strings as URLs: `to_raw`, `to_repository` and `is_trusted` must return, never panic; a
//! translation's raw URL must translate again and its repository URL be well-formed, and a
//! malformed URL is never trusted.

#![no_main]

use libfuzzer_sys::fuzz_target;
use skills_url::{UrlError, is_trusted, to_raw, to_repository};

fuzz_target!(|input: &str| {
    match to_raw(input) {
        Ok(t) => {
            let _ = (t.is_changed(), t.host.to_string());
            if let Err(e) = to_raw(&t.raw) {
                panic!("the raw URL {:?} of {input:?} is refused: {e}", t.raw);
            }
            // A repository URL is well-formed, though not always a file (Bitbucket's
            // repository page is refused as one, GitHub's names `HEAD/SKILL.md`).
            if let Some(repo) = &t.repository {
                match to_raw(repo) {
                    Ok(_) | Err(UrlError::Incomplete { .. } | UrlError::NotAFile { .. }) => {}
                    Err(e) => panic!("the repository URL {repo:?} of {input:?} is malformed: {e}"),
                }
            }
            let _ = is_trusted(&t.raw, &[]);
        }
        // A page of a known host that is not a file (`gitlab.com/a/b/c`) is still a
        // well-formed URL on a trusted host; anything malformed must not be trusted.
        Err(UrlError::Incomplete { .. } | UrlError::NotAFile { .. }) => {}
        Err(e) => {
            let _ = e.to_string();
            assert!(
                !is_trusted(input, &[]),
                "{input:?} is malformed ({e}) but trusted"
            );
        }
    }
    let _ = to_repository(input);
    let _ = is_trusted(input, &["example.com", input]);
});

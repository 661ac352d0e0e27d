//! Strings as URLs: `to_raw`, `to_repository` and `is_trusted` must return, never panic; a
//! translation's raw and repository URLs must themselves be URLs the crate accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use skills_url::{is_trusted, to_raw, to_repository};

fuzz_target!(|input: &str| {
    match to_raw(input) {
        Ok(t) => {
            let _ = (t.is_changed(), t.host.to_string());
            if let Err(e) = to_raw(&t.raw) {
                panic!("the raw URL {:?} of {input:?} is refused: {e}", t.raw);
            }
            if let Some(repo) = &t.repository {
                if let Err(e) = to_raw(repo) {
                    panic!("the repository URL {repo:?} of {input:?} is refused: {e}");
                }
            }
            let _ = is_trusted(&t.raw, &[]);
        }
        Err(e) => {
            let _ = e.to_string();
            assert!(!is_trusted(input, &[]), "{input:?} is refused but trusted");
        }
    }
    let _ = to_repository(input);
    let _ = is_trusted(input, &["example.com", input]);
});

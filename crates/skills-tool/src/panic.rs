//! What a user sees when `skills` has a bug: a short message that says so and where to
//! report it, not a Rust panic with a hint about backtraces.
//!
//! A panic is a bug by definition (nothing read from disk, the user or a client may cause
//! one), so the message asks for a report. The process still ends as Rust ends it on a panic,
//! with exit code 101, which scripts can tell apart from 2 (the command failed on its input).
//! With `RUST_BACKTRACE` set (to anything but `0`), Rust's own hook runs and prints the
//! backtrace.

use std::ffi::OsStr;

/// Where bugs are reported.
const ISSUES: &str = "https://github.com/skills-rs/skills/issues";

pub(crate) fn install() {
    if backtrace_requested(std::env::var_os("RUST_BACKTRACE").as_deref()) {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        // `panic!("literal")` carries a &str, `panic!("{x}")` a String.
        let payload = info.payload();
        let text = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let text = message(text, location.as_deref());
        crate::printer::plain_stderr(&text);
    }));
}

/// As Rust reads `RUST_BACKTRACE`: set and not `0` means a backtrace is wanted.
pub(crate) fn backtrace_requested(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| v != "0")
}

/// The text printed for a panic with `payload` at `location` (`file:line:column`).
pub(crate) fn message(payload: &str, location: Option<&str>) -> String {
    let mut out = format!(
        "error: internal error in skills {}: {payload}\n",
        env!("SKILLS_VERSION")
    );
    if let Some(location) = location {
        out.push_str(&format!("  at {location}\n"));
    }
    out.push_str(&format!(
        "This is a bug in skills, not a problem with your skills or arguments. Please report \
         it, with the command you ran, at {ISSUES}\n(set RUST_BACKTRACE=1 for a backtrace)"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backtrace_is_requested_like_rust_reads_the_variable() {
        assert!(!backtrace_requested(None));
        assert!(!backtrace_requested(Some(OsStr::new("0"))));
        assert!(backtrace_requested(Some(OsStr::new("1"))));
        assert!(backtrace_requested(Some(OsStr::new("full"))));
        assert!(backtrace_requested(Some(OsStr::new(""))));
    }

    #[test]
    fn message_names_the_bug_the_place_and_where_to_report() {
        let text = message("index out of bounds", Some("crates/x/src/lib.rs:3:9"));
        assert!(text.starts_with(&format!(
            "error: internal error in skills {}",
            env!("CARGO_PKG_VERSION")
        )));
        assert!(text.contains(": index out of bounds\n  at crates/x/src/lib.rs:3:9\n"));
        assert!(text.contains(ISSUES));
        assert!(!text.contains("stack backtrace"));
        assert!(!message("boom", None).contains("  at "));
    }

    /// Set in the child process that `hook_replaces_the_panic_message` starts.
    const CHILD: &str = "SKILLS_PANIC_HOOK_TEST_CHILD";

    /// Not a test of its own: the child half of `hook_replaces_the_panic_message`.
    #[test]
    #[ignore = "run by hook_replaces_the_panic_message in a child process"]
    fn panicking_child() {
        if std::env::var_os(CHILD).is_some() {
            install();
            panic!("the child panics {}", "on purpose");
        }
    }

    /// Runs `panicking_child` in a new process of this test binary, with `RUST_BACKTRACE`
    /// set to `backtrace` or unset; its stderr.
    fn child_stderr(backtrace: Option<&str>) -> String {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--ignored",
            "--exact",
            "panic::tests::panicking_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env_remove("RUST_BACKTRACE");
        if let Some(value) = backtrace {
            cmd.env("RUST_BACKTRACE", value);
        }
        let output = cmd.output().unwrap();
        assert!(!output.status.success(), "the child did not panic");
        String::from_utf8_lossy(&output.stderr).into_owned()
    }

    #[test]
    fn hook_replaces_the_panic_message() {
        let stderr = child_stderr(None);
        assert!(
            stderr.contains("error: internal error in skills")
                && stderr.contains(
                    ": the child panics on purpose\n  at crates/skills-tool/src/panic.rs:"
                ),
            "{stderr}"
        );
        assert!(
            !stderr.contains("RUST_BACKTRACE=1` environment variable"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked at"), "{stderr}");

        let stderr = child_stderr(Some("1"));
        assert!(stderr.contains("panicked at"), "{stderr}");
        assert!(stderr.contains("stack backtrace"), "{stderr}");
        assert!(!stderr.contains("internal error in skills"), "{stderr}");
    }
}

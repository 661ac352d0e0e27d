//! Fetching a repository with the `git` executable into a cache: shallow, one ref, under a
//! lock, so two `skills` processes never share a half-updated checkout.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::AddError;

/// The transports `git` may use for a source: never `ext::` (it runs a command) or others a
/// repository could name.
const ALLOWED_PROTOCOLS: &str = "file:git:http:https:ssh";

/// A repository checked out at one commit in the cache; the cache entry stays locked while
/// this lives.
#[derive(Debug)]
pub struct Checkout {
    /// The work tree.
    pub dir: PathBuf,
    /// The commit checked out (40 or 64 hex digits).
    pub commit: String,
    _lock: File,
}

/// Fetches `reference` (the default branch when `None`) of `url` into `cache` and checks it
/// out. A branch or tag is fetched with depth 1; a commit that cannot be fetched alone (the
/// server does not allow it) is found in a full fetch of the branches.
///
/// With `sparse` (a directory of the repository), only that directory (and the files at
/// the root) is checked out, and file contents are fetched for it alone where the server
/// supports partial clones (`--filter=blob:none`); a large repository of many skills then
/// costs what one skill does. Without it, the whole tree is checked out.
///
/// # Errors
///
/// [`AddError::GitMissing`] without a `git` executable, [`AddError::Git`] when a `git`
/// command fails (its message included), [`AddError::Io`] for the cache.
pub fn fetch(
    cache: &Path,
    url: &str,
    reference: Option<&str>,
    sparse: Option<&str>,
) -> Result<Checkout, AddError> {
    if url.starts_with('-') || reference.is_some_and(|r| r.starts_with('-')) {
        return Err(AddError::Git {
            url: url.to_string(),
            message: "a URL or ref cannot start with `-`".to_string(),
        });
    }
    if !is_fetchable_url(url) {
        return Err(AddError::Git {
            url: url.to_string(),
            message: "not a repository URL git may fetch (https, http, ssh, git or file, or user@host:path)".to_string(),
        });
    }
    if let Some(reference) = reference.filter(|r| !is_ref_name(r)) {
        return Err(AddError::Git {
            url: url.to_string(),
            message: format!(
                "`{}` is not a branch, tag or commit name",
                crate::clip(reference, 80)
            ),
        });
    }
    let digest = skills_core::digest::sha256_hex(url.as_bytes());
    let key = digest.get(..20).unwrap_or(&digest).to_string();
    let root = cache.join("git");
    std::fs::create_dir_all(&root).map_err(|e| AddError::io(&root, e))?;
    let lock_path = root.join(format!("{key}.lock"));
    let lock = File::create(&lock_path).map_err(|e| AddError::io(&lock_path, e))?;
    lock.lock().map_err(|e| AddError::io(&lock_path, e))?;
    let dir = root.join(&key);
    if !dir.join(".git").is_dir() {
        let _ = std::fs::remove_dir_all(&dir);
        run(url, Command::new("git").args(["init", "--quiet"]).arg(&dir))?;
    }
    let git = |args: &[&str]| {
        let mut command = Command::new("git");
        command.arg("-C").arg(&dir).args(args);
        command
    };
    // A named remote, so that file contents left out by a partial fetch can be fetched
    // when a later checkout needs them.
    for (key, value) in [
        ("remote.origin.url", url),
        ("remote.origin.promisor", "true"),
        ("extensions.partialClone", "origin"),
    ] {
        run(url, &mut git(&["config", key, value]))?;
    }
    match sparse {
        Some(path) => run(
            url,
            &mut git(&["sparse-checkout", "set", "--cone", "--", path]),
        )?,
        None => run(url, &mut git(&["sparse-checkout", "disable"]))?,
    };
    let wanted = reference.unwrap_or("HEAD");
    let mut shallow_args = vec!["fetch", "--quiet", "--depth", "1", "--no-tags"];
    if sparse.is_some() {
        shallow_args.push("--filter=blob:none");
    }
    shallow_args.extend(["--", "origin", wanted]);
    let shallow = run(url, &mut git(&shallow_args));
    let target = match shallow {
        Ok(_) => "FETCH_HEAD".to_string(),
        Err(first) => {
            // A commit named by hash: fetch the branches and tags, then look it up.
            if !reference.is_some_and(is_commit_like) {
                return Err(first);
            }
            run(
                url,
                &mut git(&[
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    "--",
                    "origin",
                    "+refs/heads/*:refs/skills/heads/*",
                    "+refs/tags/*:refs/skills/tags/*",
                ]),
            )?;
            format!("{wanted}^{{commit}}")
        }
    };
    run(
        url,
        &mut git(&[
            "-c",
            "advice.detachedHead=false",
            "checkout",
            "--quiet",
            "--force",
            "--detach",
            &target,
        ]),
    )?;
    run(url, &mut git(&["clean", "-ffdxq"]))?;
    let out = run(url, &mut git(&["rev-parse", "HEAD"]))?;
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(Checkout {
        dir,
        commit,
        _lock: lock,
    })
}

/// 7 to 64 hex digits.
pub(crate) fn is_commit_like(reference: &str) -> bool {
    (7..=64).contains(&reference.len()) && reference.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `url` is a repository URL `git` may be handed: one of the [`ALLOWED_PROTOCOLS`]
/// with `://`, or scp-like `user@host:path`; never an option (`-...`), a transport helper
/// (`ext::`, `fd::`) or text with spaces or control characters.
pub(crate) fn is_fetchable_url(url: &str) -> bool {
    if url.is_empty()
        || url.len() > 4096
        || url.starts_with('-')
        || url.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return false;
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        return ALLOWED_PROTOCOLS.split(':').any(|p| p == scheme) && !rest.starts_with('-');
    }
    // scp-like: `user@host:path`, the host not an option and without `::` (a helper).
    url.split_once(':').is_some_and(|(user_host, path)| {
        !path.is_empty()
            && !path.starts_with(':')
            && user_host.split_once('@').is_some_and(|(user, host)| {
                !user.is_empty()
                    && !host.is_empty()
                    && !host.starts_with('-')
                    && !host.contains('/')
            })
    })
}

/// Whether `reference` is a name `git fetch` may be given as a ref: not an option, and
/// nothing `git check-ref-format` refuses (spaces, control characters, `~^:?*[\`, `..`,
/// `@{`).
pub(crate) fn is_ref_name(reference: &str) -> bool {
    !reference.is_empty()
        && reference.len() <= 1024
        && !reference.starts_with(['-', '/'])
        && !reference.ends_with(['/', '.'])
        && !reference.contains("..")
        && !reference.contains("@{")
        && !reference
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\".contains(c))
}

/// Runs a `git` command without a terminal prompt and with the safe transports only.
fn run(url: &str, command: &mut Command) -> Result<Output, AddError> {
    let output = command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                AddError::GitMissing
            } else {
                AddError::Git {
                    url: url.to_string(),
                    message: e.to_string(),
                }
            }
        })?;
    if output.status.success() {
        return Ok(output);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let message: String = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    Err(AddError::Git {
        url: url.to_string(),
        message: crate::clip(&message, 500),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_like() {
        assert!(is_commit_like("0123abc"));
        assert!(!is_commit_like("main"));
        assert!(!is_commit_like("abc"));
    }

    #[test]
    fn urls_and_refs_git_may_be_given() {
        for good in [
            "https://github.com/o/r.git",
            "file:///tmp/repo",
            "ssh://git@host/o/r",
            "git@github.com:o/r.git",
        ] {
            assert!(is_fetchable_url(good), "{good}");
        }
        for bad in [
            "-oProxyCommand=x",
            "ext::sh -c touch% /tmp/x",
            "fd::3",
            "ftp://host/r",
            "https://host/a b",
            "ssh://-oProxyCommand=x/r",
            "git@-oProxy:r",
            "/abs/path",
            "",
        ] {
            assert!(!is_fetchable_url(bad), "{bad}");
        }
        for good in ["main", "v1.2", "feature/x", "0123abc"] {
            assert!(is_ref_name(good), "{good}");
        }
        for bad in [
            "--upload-pack=x",
            "a..b",
            "a b",
            "x^",
            "/x",
            "x/",
            "@{-1}",
            "",
        ] {
            assert!(!is_ref_name(bad), "{bad}");
        }
    }

    #[test]
    fn dashes_are_refused_before_git_runs() {
        let t = tempfile::tempdir().unwrap();
        let e = fetch(t.path(), "--upload-pack=touch /tmp/x", None, None).unwrap_err();
        assert!(e.to_string().contains("cannot start with `-`"), "{e}");
        assert!(!t.path().join("git").exists());
    }
}

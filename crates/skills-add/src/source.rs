//! What `skills add SOURCE` names: a git repository (and a ref, a path and a skill in it), a
//! local directory, or something `skills install` takes (an archive, a `SKILL.md` URL, a
//! registry name).

use std::path::{Path, PathBuf};

/// A parsed `SOURCE`. [`Source::Other`] takes whatever the others do not, so a new kind of
/// source would be a new reading of some of its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A local directory: one skill, or a tree holding skills.
    Dir(PathBuf),
    /// A git repository.
    Git(GitSource),
    /// Anything else `skills install` takes: a `.skill` or `.zip` archive (a path or a URL),
    /// the URL of a `SKILL.md`, or the name of a skill in a registry. Kept as given.
    Other(String),
}

/// A git repository, and what to take from it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GitSource {
    /// What `git` clones: `https://github.com/o/r.git`, `git@host:o/r.git`, `file:///…`.
    pub url: String,
    /// The branch, tag or commit (`#ref`, or the ref of a tree URL); the default branch
    /// when `None`.
    pub reference: Option<String>,
    /// The directory in the repository to look for skills under (`owner/repo/path`, a tree
    /// URL's path).
    pub path: Option<String>,
    /// The one skill wanted (`owner/repo@skill`).
    pub skill: Option<String>,
}

/// Reads `SOURCE` as `skills add` does, in this order:
///
/// 1. `./x`, `../x`, `/x`, `~/x`, or any path that exists: a directory is [`Source::Dir`];
///    a file is [`Source::Other`] (an archive).
/// 2. `file://`, `ssh://`, `git://`, `user@host:path` and `http(s)://….git`: a repository,
///    with an optional `#ref`.
/// 3. GitHub, GitLab and Bitbucket page URLs of a repository or a directory (`/tree/REF/DIR`):
///    a repository, its ref and path. Page URLs of a file (`SKILL.md`, an archive) and other
///    hosts' URLs are [`Source::Other`].
/// 4. `owner/repo[/path][@skill][#ref]`: a GitHub repository.
/// 5. Anything else is [`Source::Other`] (a registry name, or an error from `install`).
///
/// ```
/// use skills_add::{GitSource, Source, parse_source};
///
/// let Source::Git(git) = parse_source("anthropics/skills/skills@pdf#v2") else { panic!() };
/// assert_eq!(git.url, "https://github.com/anthropics/skills.git");
/// assert_eq!(git.path.as_deref(), Some("skills"));
/// assert_eq!(git.skill.as_deref(), Some("pdf"));
/// assert_eq!(git.reference.as_deref(), Some("v2"));
///
/// let Source::Git(git) = parse_source("https://gitlab.com/g/sub/p/-/tree/main/skills/pdf") else { panic!() };
/// assert_eq!(git.url, "https://gitlab.com/g/sub/p.git");
/// assert_eq!((git.reference.as_deref(), git.path.as_deref()), (Some("main"), Some("skills/pdf")));
/// ```
#[must_use]
pub fn parse_source(source: &str) -> Source {
    let source = source.trim();
    if is_path_like(source) || Path::new(source).exists() {
        let path = expand_home(source);
        return if path.is_dir() {
            Source::Dir(path)
        } else {
            Source::Other(source.to_string())
        };
    }
    let lower = source.to_ascii_lowercase();
    let (base, reference) = split_fragment(source);
    if lower.starts_with("file://")
        || lower.starts_with("ssh://")
        || lower.starts_with("git://")
        || is_scp_like(base)
    {
        return git(base, reference, None, None);
    }
    if lower.starts_with("http://") || lower.starts_with("https://") {
        if base.to_ascii_lowercase().ends_with(".git") {
            return git(base, reference, None, None);
        }
        return web(source);
    }
    shorthand(source).unwrap_or_else(|| Source::Other(source.to_string()))
}

fn git(url: &str, reference: Option<&str>, path: Option<String>, skill: Option<String>) -> Source {
    Source::Git(GitSource {
        url: url.to_string(),
        reference: reference.filter(|r| !r.is_empty()).map(str::to_string),
        path: path.filter(|p| !p.is_empty()),
        skill,
    })
}

/// `./x`, `../x`, `/x`, `~/x`, `.`, `..` (and their Windows spellings).
fn is_path_like(source: &str) -> bool {
    source == "."
        || source == ".."
        || ["./", "../", "/", "~/", ".\\", "..\\"]
            .iter()
            .any(|p| source.starts_with(p))
        || source.as_bytes().get(1..3) == Some(b":\\")
}

fn expand_home(source: &str) -> PathBuf {
    if let Some(rest) = source.strip_prefix("~/")
        && let Some(home) = std::env::home_dir()
    {
        return home.join(rest);
    }
    PathBuf::from(source)
}

/// `(before, after)` the last `#`.
fn split_fragment(source: &str) -> (&str, Option<&str>) {
    match source.rsplit_once('#') {
        Some((base, fragment)) => (base, Some(fragment)),
        None => (source, None),
    }
}

/// `git@github.com:o/r.git`: a user, a host, a colon, no scheme.
fn is_scp_like(source: &str) -> bool {
    let Some((user_host, path)) = source.split_once(':') else {
        return false;
    };
    !source.contains("://")
        && !path.is_empty()
        && user_host
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && !host.is_empty() && !host.contains('/'))
}

/// A page URL of a known host: its repository, ref and directory.
fn web(source: &str) -> Source {
    let other = || Source::Other(source.to_string());
    let clean = source
        .split(['?', '#'])
        .next()
        .unwrap_or(source)
        .trim_end_matches('/')
        .to_ascii_lowercase();
    if [".md", ".skill", ".zip"].iter().any(|e| clean.ends_with(e)) {
        return other();
    }
    let Ok(t) = skills_url::to_raw(source) else {
        return other();
    };
    let Some(repository) = t.repository else {
        return other();
    };
    if !matches!(
        t.host,
        skills_url::HostKind::GitHub
            | skills_url::HostKind::GitHubEnterprise
            | skills_url::HostKind::GitLab
            | skills_url::HostKind::Bitbucket
    ) {
        return other();
    }
    // The translation names the SKILL.md a directory URL stands for; the directory is wanted.
    let path = t.path.map(|p| {
        p.strip_suffix("SKILL.md")
            .unwrap_or(&p)
            .trim_matches('/')
            .to_string()
    });
    let reference = t.reference.filter(|r| r != "HEAD");
    git(
        &format!("{repository}.git"),
        reference.as_deref(),
        path,
        None,
    )
}

/// `owner/repo[/path][@skill][#ref]`.
fn shorthand(source: &str) -> Option<Source> {
    let (rest, reference) = split_fragment(source);
    let (rest, skill) = match rest.rsplit_once('@') {
        Some((rest, skill)) if !skill.is_empty() && !skill.contains('/') => {
            (rest, Some(skill.to_string()))
        }
        Some(_) => return None,
        None => (rest, None),
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let ok = |s: &&str| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    if segments.len() < 2 || !segments.iter().all(ok) {
        return None;
    }
    let (owner, repo) = (segments.first()?, segments.get(1)?);
    let path = segments.get(2..).map(|p| p.join("/"));
    Some(git(
        &format!("https://github.com/{owner}/{repo}.git"),
        reference,
        path,
        skill,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_of(source: &str) -> GitSource {
        match parse_source(source) {
            Source::Git(g) => g,
            other => panic!("{source}: {other:?}"),
        }
    }

    #[test]
    fn shorthands() {
        let g = git_of("vercel-labs/agent-skills");
        assert_eq!(g.url, "https://github.com/vercel-labs/agent-skills.git");
        assert_eq!((g.reference, g.path, g.skill), (None, None, None));
        let g = git_of("o/r/skills/pdf#feature/x");
        assert_eq!(g.path.as_deref(), Some("skills/pdf"));
        assert_eq!(g.reference.as_deref(), Some("feature/x"));
        let g = git_of("o/r@pdf");
        assert_eq!(g.skill.as_deref(), Some("pdf"));
        for not in ["pdf", "o/", "/r", "o//r", "o/r@", "o/../r", "o/r x"] {
            assert!(!matches!(parse_source(not), Source::Git(_)), "{not}");
        }
    }

    #[test]
    fn git_urls() {
        let g = git_of("git@github.com:o/r.git#v1");
        assert_eq!(g.url, "git@github.com:o/r.git");
        assert_eq!(g.reference.as_deref(), Some("v1"));
        assert_eq!(
            git_of("file:///srv/skills.git").url,
            "file:///srv/skills.git"
        );
        assert_eq!(git_of("ssh://git@h/o/r").url, "ssh://git@h/o/r");
        assert_eq!(
            git_of("https://git.acme.com/o/r.git").url,
            "https://git.acme.com/o/r.git"
        );
    }

    #[test]
    fn page_urls() {
        let g = git_of("https://github.com/anthropics/skills/tree/main/skills/pdf/");
        assert_eq!(g.url, "https://github.com/anthropics/skills.git");
        assert_eq!(g.reference.as_deref(), Some("main"));
        assert_eq!(g.path.as_deref(), Some("skills/pdf"));
        let g = git_of("https://github.com/anthropics/skills");
        assert_eq!((g.reference, g.path), (None, None));
        for other in [
            "https://github.com/o/r/blob/main/pdf/SKILL.md",
            "https://example.com/pdf.skill",
            "https://example.com/x",
        ] {
            assert_eq!(parse_source(other), Source::Other(other.to_string()));
        }
    }

    #[test]
    fn paths() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("o/r");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(t.path().join("a.skill"), "x").unwrap();
        let dir_s = dir.to_str().unwrap();
        assert_eq!(parse_source(dir_s), Source::Dir(dir.clone()));
        let archive = t.path().join("a.skill");
        let archive = archive.to_str().unwrap();
        assert_eq!(parse_source(archive), Source::Other(archive.to_string()));
        assert_eq!(parse_source("."), Source::Dir(PathBuf::from(".")));
    }
}

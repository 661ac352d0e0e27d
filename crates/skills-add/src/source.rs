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
    if let Some(url) = pasted_url(source) {
        return parse_source(&url);
    }
    shorthand(source).unwrap_or_else(|| Source::Other(source.to_string()))
}

/// Hosts whose URLs people paste without the scheme. None of them can be the owner of the
/// `owner/repo` shorthand: GitHub owners have no dot.
const PASTED_HOSTS: &[&str] = &[
    "github.com",
    "www.github.com",
    "raw.githubusercontent.com",
    "gist.github.com",
    "gist.githubusercontent.com",
    "gitlab.com",
    "www.gitlab.com",
    "bitbucket.org",
    "www.bitbucket.org",
];

/// `source` with `https://` in front when it is a URL of a known host pasted without its
/// scheme (`github.com/o/r/tree/main/skills/pdf`, as a browser's address bar copies it);
/// `None` otherwise.
///
/// ```
/// use skills_add::pasted_url;
///
/// assert_eq!(
///     pasted_url("github.com/o/r/blob/main/x/SKILL.md").as_deref(),
///     Some("https://github.com/o/r/blob/main/x/SKILL.md")
/// );
/// assert_eq!(pasted_url("anthropics/skills"), None);
/// assert_eq!(pasted_url("https://github.com/o/r"), None);
/// ```
#[must_use]
pub fn pasted_url(source: &str) -> Option<String> {
    let (host, rest) = source.trim().split_once('/')?;
    (PASTED_HOSTS.contains(&host.to_ascii_lowercase().as_str()) && !rest.is_empty())
        .then(|| format!("https://{}", source.trim()))
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
    if !is_git_host(t.host) {
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

/// Hosts whose page URLs name a repository, a ref and a path that `git` can fetch.
fn is_git_host(host: skills_url::HostKind) -> bool {
    matches!(
        host,
        skills_url::HostKind::GitHub
            | skills_url::HostKind::GitHubEnterprise
            | skills_url::HostKind::GitLab
            | skills_url::HostKind::Bitbucket
    )
}

/// The repository, ref and directory of the `SKILL.md` that a page or raw URL of a git host
/// (GitHub, GitHub Enterprise, GitLab, Bitbucket) points at, so that the whole skill can be
/// fetched rather than its one file. [`GitSource::path`] is the directory that holds the
/// `SKILL.md` (`None` at the root of the repository), [`GitSource::reference`] the ref the
/// URL names (`None` for the default branch), decoded from the URL's percent-escapes.
///
/// `None` for another host or a gist (a gist is one flat set of files, not a skill's
/// directory), for a URL of another file, and for a ref or path that cannot be used safely:
/// a ref `git` would refuse, or a path segment that decodes to nothing, `.` or `..`, or to
/// text with `/`, `\`, `:` or a control character. The URL is only read, never fetched; a
/// ref with a `/` in a blob URL is the guess of [`skills_url::to_raw`] (its first segment),
/// so the caller must be ready for the ref or the directory not to be there.
///
/// ```
/// use skills_add::skill_md_repository;
///
/// let git = skill_md_repository("https://github.com/o/r/blob/v2/skills/pdf/SKILL.md").unwrap();
/// assert_eq!(git.url, "https://github.com/o/r.git");
/// assert_eq!(git.reference.as_deref(), Some("v2"));
/// assert_eq!(git.path.as_deref(), Some("skills/pdf"));
///
/// let git = skill_md_repository("https://raw.githubusercontent.com/o/r/HEAD/SKILL.md").unwrap();
/// assert_eq!((git.reference, git.path), (None, None));
///
/// assert!(skill_md_repository("https://github.com/o/r/blob/main/pdf.skill").is_none());
/// assert!(skill_md_repository("https://example.com/pdf/SKILL.md").is_none());
/// ```
#[must_use]
pub fn skill_md_repository(url: &str) -> Option<GitSource> {
    let t = skills_url::to_raw(url).ok()?;
    if !is_git_host(t.host) {
        return None;
    }
    let repository = t.repository?;
    let reference = decode(t.reference.as_deref()?)?;
    if !crate::git::is_ref_name(&reference) {
        return None;
    }
    let mut segments = t
        .path?
        .split('/')
        .map(decode)
        .collect::<Option<Vec<String>>>()?;
    let file = segments.pop()?;
    if !skills_core::layout::is_skill_md(std::ffi::OsStr::new(&file))
        || !segments.iter().all(|s| is_plain_segment(s))
    {
        return None;
    }
    Some(GitSource {
        url: format!("{repository}.git"),
        reference: (reference != "HEAD").then_some(reference),
        path: (!segments.is_empty()).then(|| segments.join("/")),
        skill: None,
    })
}

/// `text` with its percent-escapes decoded; `None` when an escape is malformed or the
/// result is not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A directory name that is the same one on every system and stays where it is: not empty,
/// `.` or `..`, without separators (`/`, `\`), `:` (drives, streams) or control characters.
fn is_plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && !segment.contains(['/', '\\', ':'])
        && !segment.chars().any(char::is_control)
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
        // Pasted without the scheme, as an address bar copies it.
        let g = git_of("github.com/anthropics/skills/tree/main/skills/pdf");
        assert_eq!(g.url, "https://github.com/anthropics/skills.git");
        assert_eq!(g.path.as_deref(), Some("skills/pdf"));
        let g = git_of("gitlab.com/g/sub/p/-/tree/main/skills/pdf");
        assert_eq!(g.url, "https://gitlab.com/g/sub/p.git");
        // A first segment that is no known host stays the shorthand's owner.
        assert_eq!(git_of("o/r").url, "https://github.com/o/r.git");
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
    fn skill_md_urls_name_their_repository_and_directory() {
        let git = skill_md_repository(
            "https://gitlab.com/g/sub/p/-/blob/refs%2Fheads%2Fmain/my%20skills/pdf/skill.md",
        )
        .unwrap();
        assert_eq!(git.url, "https://gitlab.com/g/sub/p.git");
        assert_eq!(git.reference.as_deref(), Some("refs/heads/main"));
        assert_eq!(git.path.as_deref(), Some("my skills/pdf"));
        let git = skill_md_repository("https://github.com/o/r/tree/main/skills/pdf/").unwrap();
        assert_eq!(git.path.as_deref(), Some("skills/pdf"));
        let git = skill_md_repository("https://bitbucket.org/w/r/raw/v1/SKILL.md").unwrap();
        assert_eq!((git.reference.as_deref(), git.path), (Some("v1"), None));
        let git = skill_md_repository("https://github.acme.com/o/r/blob/main/a/SKILL.md").unwrap();
        assert_eq!(git.url, "https://github.acme.com/o/r.git");
        for not in [
            "https://gist.github.com/u/0123456789abcdef0123456789abcdef01234567",
            "https://gist.githubusercontent.com/u/abc/raw/SKILL.md",
            "https://github.com/o/r/blob/main/README.md",
            "https://github.com/o/r/issues/1",
            "https://example.com/o/r/blob/main/SKILL.md",
            // Escapes that would leave the repository, or name another directory.
            "https://github.com/o/r/blob/main/a%2F..%2F..%2Fx/SKILL.md",
            "https://github.com/o/r/blob/main/a%5Cb/SKILL.md",
            "https://github.com/o/r/blob/main/c%3A/SKILL.md",
            "https://github.com/o/r/blob/main/a%00/SKILL.md",
            "https://github.com/o/r/blob/main/%ff/SKILL.md",
            // Refs git would take as an option or refuse.
            "https://github.com/o/r/blob/-x/SKILL.md",
            "https://github.com/o/r/blob/a%20b/SKILL.md",
        ] {
            assert_eq!(skill_md_repository(not), None, "{not}");
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

//! Translate the web-page URL of an Agent Skill's `SKILL.md` to the URL of its raw bytes, and
//! back to its repository.
//!
//! People share the URL in their address bar: a GitHub `blob` page, a GitLab `/-/blob/` page,
//! a Bitbucket `src` page, a gist, or a `tree` page of the skill's directory. Fetching a skill
//! needs the raw file instead. [`to_raw`] does that translation without any network access,
//! so it is the same on every machine and can be tested with a table; [`to_repository`] goes
//! back from any of these URLs (raw ones included) to the repository, and [`is_trusted`] says
//! whether a URL points at one of the [`TRUSTED_HOSTS`] that `skills install` fetches from.
//!
//! ```
//! use skills_url::{HostKind, is_trusted, to_raw, to_repository};
//!
//! let t = to_raw("https://github.com/org/repo/blob/main/skills/pdf/SKILL.md?plain=1#L5")?;
//! assert_eq!(t.raw, "https://raw.githubusercontent.com/org/repo/main/skills/pdf/SKILL.md");
//! assert_eq!(t.repository.as_deref(), Some("https://github.com/org/repo"));
//! assert_eq!(t.host, HostKind::GitHub);
//! assert_eq!(t.reference.as_deref(), Some("main"));
//! assert_eq!(t.path.as_deref(), Some("skills/pdf/SKILL.md"));
//!
//! // A directory (`tree`) URL names the skill's SKILL.md.
//! let t = to_raw("https://gitlab.com/group/sub/project/-/tree/v1.2/skills/pdf/")?;
//! assert_eq!(t.raw, "https://gitlab.com/group/sub/project/-/raw/v1.2/skills/pdf/SKILL.md");
//!
//! // Raw URLs pass through unchanged; the repository is still known.
//! let raw = "https://bitbucket.org/team/repo/raw/main/SKILL.md";
//! assert_eq!(to_raw(raw)?.raw, raw);
//! assert_eq!(to_repository(raw)?, "https://bitbucket.org/team/repo");
//!
//! assert!(is_trusted(raw, &[]));
//! assert!(!is_trusted("https://example.com/SKILL.md", &[]));
//! assert!(is_trusted("https://example.com/SKILL.md", &["example.com"]));
//!
//! // What people paste: a known host without `https://`.
//! let t = to_raw("github.com/org/repo/blob/main/SKILL.md")?;
//! assert_eq!(t.raw, "https://raw.githubusercontent.com/org/repo/main/SKILL.md");
//!
//! // Malformed input is an error that says what is wrong, never a panic.
//! let err = to_raw("skills/pdf/SKILL.md").unwrap_err();
//! assert_eq!(err.to_string(), "`skills/pdf/SKILL.md` is not a URL: it does not start with https://");
//! # Ok::<(), skills_url::UrlError>(())
//! ```
//!
//! The rules, and why (refs with slashes, queries, fragments, GitHub Enterprise and self-hosted
//! GitLab), are in `docs/url.md` of the repository; in short:
//!
//! - Only the shape of the URL is used. A ref containing `/` (`feature/x`) cannot be told from
//!   a directory in a blob URL, so the raw URL keeps the segments in the same order and lets
//!   the server resolve them, as the page itself does; only [`Translation::reference`] and
//!   [`Translation::path`] are a guess (the first segment is taken as the ref, or
//!   `refs/heads/X` / `refs/tags/X`).
//! - The query of a page URL (`?plain=1`, `?at=main`) is dropped, except GitLab's `ref_type`;
//!   fragments (`#L10`) are dropped. Percent-escapes are kept byte for byte.
//! - A URL that already points at raw bytes, or at a host this crate does not know, is
//!   returned unchanged.

mod error;
mod parse;

use std::fmt;

pub use error::UrlError;
use parse::Parsed;

/// The hosts `skills install` fetches from without being told to trust more: the hosts that
/// serve the raw files of GitHub, GitLab.com, Bitbucket Cloud and gists (`gist.github.com`
/// for a gist linked without its owner: its `/ID/raw` redirects to
/// `gist.githubusercontent.com`).
pub const TRUSTED_HOSTS: &[&str] = &[
    "raw.githubusercontent.com",
    "gitlab.com",
    "bitbucket.org",
    "gist.githubusercontent.com",
    "gist.github.com",
];

/// The name of the file a skill directory holds.
const SKILL_MD: &str = "SKILL.md";

/// Which kind of host a URL belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostKind {
    /// `github.com` and `raw.githubusercontent.com`.
    GitHub,
    /// A GitHub Enterprise Server (or `*.ghe.com`) host: one with `github` in a label of its
    /// name, recognised only with a GitHub-shaped path (`/OWNER/REPO/blob/...`).
    GitHubEnterprise,
    /// `gitlab.com`, or any host whose path has GitLab's `/-/blob/`, `/-/tree/`, `/-/raw/` or
    /// `/-/blame/`.
    GitLab,
    /// `bitbucket.org`.
    Bitbucket,
    /// `gist.github.com` and `gist.githubusercontent.com`.
    Gist,
    /// Any other host: the URL is taken to point at the file itself.
    Other,
}

impl HostKind {
    /// A stable lowercase name: `github`, `github-enterprise`, `gitlab`, `bitbucket`, `gist`,
    /// `other`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GitHub => "github",
            Self::GitHubEnterprise => "github-enterprise",
            Self::GitLab => "gitlab",
            Self::Bitbucket => "bitbucket",
            Self::Gist => "gist",
            Self::Other => "other",
        }
    }

    /// The name people use: `GitHub`, `GitLab`, ...
    fn display_name(self) -> &'static str {
        match self {
            Self::GitHub => "GitHub",
            Self::GitHubEnterprise => "GitHub Enterprise",
            Self::GitLab => "GitLab",
            Self::Bitbucket => "Bitbucket",
            Self::Gist => "gist",
            Self::Other => "web",
        }
    }
}

impl fmt::Display for HostKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// The result of [`to_raw`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Translation {
    /// The input, trimmed.
    pub input: String,
    /// The URL of the raw file. Equal to the input (with characters that must be
    /// percent-encoded encoded) when the input already was raw or its host is unknown.
    pub raw: String,
    /// The repository's web URL (`https://github.com/OWNER/REPO`,
    /// `https://gitlab.com/GROUP/SUB/PROJECT`, the gist's page), when the host is known.
    pub repository: Option<String>,
    /// The kind of host.
    pub host: HostKind,
    /// The ref (branch, tag, commit; `HEAD` for a repository root; a gist revision), when the
    /// URL names one. A guess when the real ref contains `/`: see the crate documentation.
    pub reference: Option<String>,
    /// The file's path in the repository, percent-encoded as in the URL, when known.
    pub path: Option<String>,
}

impl Translation {
    /// Whether [`raw`](Self::raw) differs from the input.
    #[must_use]
    pub fn is_changed(&self) -> bool {
        self.raw != self.input
    }
}

/// Translates the URL of a skill's page (or directory) to the URL of its raw `SKILL.md`.
///
/// Accepted, by host:
///
/// | input | raw |
/// | --- | --- |
/// | `github.com/O/R/blob/REF/PATH` (also `blame`, `raw`) | `raw.githubusercontent.com/O/R/REF/PATH` |
/// | `github.com/O/R/tree/REF/DIR` | `raw.githubusercontent.com/O/R/REF/DIR/SKILL.md` |
/// | `github.com/O/R` | `raw.githubusercontent.com/O/R/HEAD/SKILL.md` |
/// | `GHE/O/R/blob/REF/PATH` | `GHE/O/R/raw/REF/PATH` |
/// | `HOST/P/ROJ/ECT/-/blob/REF/PATH` | `HOST/P/ROJ/ECT/-/raw/REF/PATH` |
/// | `bitbucket.org/W/R/src/REF/PATH` | `bitbucket.org/W/R/raw/REF/PATH` |
/// | `gist.github.com/U/ID[/REV]` | `gist.githubusercontent.com/U/ID/raw[/REV]` |
/// | `gist.github.com/ID[/REV]` | `gist.github.com/ID/raw[/REV]` (GitHub redirects it) |
///
/// `tree` URLs (and Bitbucket `src` URLs that end with `/`) get `/SKILL.md` appended unless
/// they already end with it. Raw URLs and unknown hosts pass through unchanged. A URL of a
/// host the rules know may leave out `https://` (`github.com/o/r/blob/main/SKILL.md`).
///
/// # Errors
///
/// [`UrlError`] when the input is not an `http(s)` URL (nor one of a known host without
/// its scheme), has credentials, invalid
/// characters or escapes, `.`/`..` segments, or is a page of a known host that is not a file
/// or directory (an issue, a user) or lacks a part (a blob URL without a path).
pub fn to_raw(input: &str) -> Result<Translation, UrlError> {
    let (url, found) = match parse::parse(input) {
        Ok(url) => {
            let found = route(&url).map_err(|e| e.into_error(input))?;
            (url, found)
        }
        Err(missing @ UrlError::MissingScheme { .. }) => without_scheme(input)
            .ok_or(missing)?
            .map_err(|e| e.into_error(input))?,
        Err(e) => return Err(e),
    };
    let raw = found.raw.unwrap_or_else(|| url.cleaned.clone());
    Ok(Translation {
        input: input.trim().to_string(),
        raw,
        repository: found.repository,
        host: found.host,
        reference: found.reference,
        path: found.path,
    })
}

/// `github.com/o/r/blob/…`, typed or pasted without `https://`, read as an `https` URL when
/// its host is one the rules know (GitHub, GitLab, Bitbucket, gists, and GitHub Enterprise
/// or GitLab hosts by the shape of the path). `None` for anything else, which stays a
/// [`UrlError::MissingScheme`]: `notes.md/SKILL.md` could as well be a file as a host.
fn without_scheme(input: &str) -> Option<Result<(Parsed, Found), Problem>> {
    let text = input.trim();
    let authority = text.split(['/', '?', '#']).next().unwrap_or_default();
    if !text.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !authority.contains('.')
        || text.contains("://")
    {
        return None;
    }
    let url = parse::parse(&format!("https://{text}")).ok()?;
    match route(&url) {
        Ok(found) if found.host == HostKind::Other => None,
        Ok(found) => Some(Ok((url, found))),
        Err(problem) => Some(Err(problem)),
    }
}

/// The repository a URL belongs to: [`Translation::repository`] of [`to_raw`].
///
/// ```
/// # use skills_url::to_repository;
/// let repo = to_repository("https://raw.githubusercontent.com/o/r/refs/heads/main/SKILL.md")?;
/// assert_eq!(repo, "https://github.com/o/r");
/// # Ok::<(), skills_url::UrlError>(())
/// ```
///
/// # Errors
///
/// Those of [`to_raw`], and [`UrlError::NoRepository`] for a host whose repositories are not
/// known.
pub fn to_repository(input: &str) -> Result<String, UrlError> {
    let t = to_raw(input)?;
    t.repository.ok_or_else(|| UrlError::NoRepository {
        input: t.input.clone(),
    })
}

/// A redirect's `Location` resolved against the URL that sent it: an absolute URL as it
/// is, a scheme-relative one (`//host/x`) with the base's scheme, an absolute path on the
/// base's host, and a relative path beside the base's last segment. The result still has
/// to pass [`is_trusted`]: a redirect is a new URL.
///
/// ```
/// use skills_url::resolve_location;
/// let base = "https://h.example/a/b/c.skill?x=1";
/// assert_eq!(resolve_location(base, "https://o.example/x"), "https://o.example/x");
/// assert_eq!(resolve_location(base, "//o.example/x"), "https://o.example/x");
/// assert_eq!(resolve_location(base, "/x"), "https://h.example/x");
/// assert_eq!(resolve_location(base, "d.skill"), "https://h.example/a/b/d.skill");
/// assert_eq!(resolve_location("http://h:1", "x"), "http://h:1/x");
/// ```
#[must_use]
pub fn resolve_location(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let (scheme, rest) = base.split_at(scheme_end);
    if let Some(net) = location.strip_prefix("//") {
        return format!("{scheme}{net}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    if location.starts_with('/') {
        return format!("{scheme}{authority}{location}");
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let dir = path
        .rfind('/')
        .map_or("/", |i| path.get(..=i).unwrap_or("/"));
    format!("{scheme}{authority}{dir}{location}")
}

/// Whether `url` may be fetched: an `https` URL whose host is one of [`TRUSTED_HOSTS`] or of
/// `extra_hosts`.
///
/// Hosts compare exactly, ignoring ASCII case and a trailing dot: `gitlab.com` does not trust
/// `evil-gitlab.com` or `gitlab.com.evil.org`, nor a subdomain. A URL with a port other than
/// 443 is trusted only when an extra host names it as `HOST:PORT`. Plain `http` is never
/// trusted (anyone on the path could change the bytes), and neither is a malformed URL (one
/// [`to_raw`] refuses for its syntax: credentials, invalid characters or escapes, `.`/`..`
/// segments, ...). Only the host counts: a well-formed page of a trusted host that is not a
/// file (`https://gitlab.com/a/b/c`, which [`to_raw`] refuses as incomplete) is trusted.
/// Check every redirect too: this looks at one URL.
#[must_use]
pub fn is_trusted(url: &str, extra_hosts: &[&str]) -> bool {
    let Ok(url) = parse::parse(url) else {
        return false;
    };
    if url.scheme != "https" {
        return false;
    }
    let host = match url.port {
        Some(port) => format!("{}:{port}", url.host),
        None => url.host.clone(),
    };
    TRUSTED_HOSTS.iter().chain(extra_hosts).any(|trusted| {
        let trusted = trusted.trim();
        let trusted = trusted.strip_suffix('.').unwrap_or(trusted);
        trusted.eq_ignore_ascii_case(&host)
    })
}

/// What a host-specific rule found. `raw: None` means "the input, unchanged".
#[derive(Debug)]
struct Found {
    host: HostKind,
    raw: Option<String>,
    repository: Option<String>,
    reference: Option<String>,
    path: Option<String>,
}

impl Found {
    /// An unknown host: the URL is the file.
    fn other() -> Self {
        Self {
            host: HostKind::Other,
            raw: None,
            repository: None,
            reference: None,
            path: None,
        }
    }
}

/// An error of a rule, before the input is attached.
#[derive(Debug)]
enum Problem {
    Incomplete(HostKind, &'static str),
    NotAFile(HostKind, String),
}

impl Problem {
    fn into_error(self, input: &str) -> UrlError {
        let input = input.trim().to_string();
        match self {
            Self::Incomplete(host, expected) => UrlError::Incomplete {
                input,
                host,
                expected,
            },
            Self::NotAFile(host, what) => UrlError::NotAFile { input, host, what },
        }
    }
}

/// A ref and a path inside a repository, as segments.
#[derive(Debug)]
struct Located {
    /// Ref and path segments, in URL order, with `SKILL.md` appended for a directory.
    segments: Vec<String>,
    reference: String,
    path: String,
}

/// Splits `tail` (`REF/PATH...`) into the ref and the path. The ref is `refs/heads/X` or
/// `refs/tags/X` when spelled so, else the first segment. `directory` appends `SKILL.md`
/// unless the path ends with it; a file needs a path.
fn locate(tail: &[String], directory: bool) -> Option<Located> {
    let ref_len = match tail {
        [refs, kind, _, ..] if refs == "refs" && (kind == "heads" || kind == "tags") => 3,
        _ => 1,
    };
    let (reference, path) = tail.split_at_checked(ref_len)?;
    let mut segments = tail.to_vec();
    if directory {
        if path.last().map(String::as_str) != Some(SKILL_MD) {
            segments.push(SKILL_MD.to_string());
        }
    } else if path.is_empty() {
        return None;
    }
    let path = segments.get(ref_len..).unwrap_or_default().join("/");
    Some(Located {
        segments,
        reference: reference.join("/"),
        path,
    })
}

/// Dispatches on the host (and, for unknown hosts, on the shape of the path).
fn route(url: &Parsed) -> Result<Found, Problem> {
    let segs = url.segments.as_slice();
    match url.host.as_str() {
        _ if url.port.is_some() => {}
        "github.com" | "www.github.com" => return github(segs),
        "raw.githubusercontent.com" => return github_raw(segs),
        "gist.github.com" => return gist(segs),
        "gist.githubusercontent.com" => return gist_raw(segs),
        "gitlab.com" | "www.gitlab.com" => {
            return gitlab(url, "https://gitlab.com").unwrap_or_else(|| gitlab_other(segs));
        }
        "bitbucket.org" | "www.bitbucket.org" => return bitbucket(url),
        _ => {}
    }
    if let Some(found) = gitlab(url, &url.origin()) {
        return found;
    }
    if looks_like_ghe(&url.host)
        && let Some(found) = github_enterprise(url)
    {
        return found;
    }
    Ok(Found::other())
}

/// Splits `OWNER/REPO[.git]/rest...`.
fn owner_repo(segs: &[String]) -> Option<(&str, &str, &[String])> {
    match segs {
        [owner, repo, rest @ ..] => Some((owner, repo.strip_suffix(".git").unwrap_or(repo), rest)),
        _ => None,
    }
}

const GITHUB_FILE: &str =
    "github.com/OWNER/REPO/blob/REF/PATH or github.com/OWNER/REPO/tree/REF/DIR";

fn github(segs: &[String]) -> Result<Found, Problem> {
    let host = HostKind::GitHub;
    let Some((owner, repo, rest)) = owner_repo(segs) else {
        return match segs {
            [] => Err(Problem::Incomplete(host, GITHUB_FILE)),
            _ => Err(Problem::NotAFile(host, "user or organization".to_string())),
        };
    };
    let directory = match rest.first().map(String::as_str) {
        None => true,
        Some("blob" | "blame" | "raw") => false,
        Some("tree") => true,
        Some(other) => return Err(Problem::NotAFile(host, other.to_string())),
    };
    let head = ["HEAD".to_string()];
    let tail = if rest.is_empty() {
        head.as_slice()
    } else {
        rest.get(1..).unwrap_or_default()
    };
    let loc = locate(tail, directory).ok_or(Problem::Incomplete(host, GITHUB_FILE))?;
    Ok(Found {
        host,
        raw: Some(format!(
            "https://raw.githubusercontent.com/{owner}/{repo}/{}",
            loc.segments.join("/")
        )),
        repository: Some(format!("https://github.com/{owner}/{repo}")),
        reference: Some(loc.reference),
        path: Some(loc.path),
    })
}

fn github_raw(segs: &[String]) -> Result<Found, Problem> {
    let host = HostKind::GitHub;
    let (owner, repo, tail) = owner_repo(segs).ok_or(Problem::Incomplete(
        host,
        "raw.githubusercontent.com/OWNER/REPO/REF/PATH",
    ))?;
    let loc = locate(tail, false).ok_or(Problem::Incomplete(
        host,
        "raw.githubusercontent.com/OWNER/REPO/REF/PATH",
    ))?;
    Ok(Found {
        host,
        raw: None,
        repository: Some(format!("https://github.com/{owner}/{repo}")),
        reference: Some(loc.reference),
        path: Some(loc.path),
    })
}

const GIST: &str = "gist.github.com/[USER/]ID[/REVISION]";

/// A 40-hex-digit commit id (a gist revision).
fn is_revision(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A gist's id: 20 or 32 hex digits, or only decimal digits (the oldest gists). Never a
/// revision (40 hex digits), so `ID/REVISION` cannot be read as `USER/ID`.
fn is_gist_id(s: &str) -> bool {
    let hex = (s.len() == 20 || s.len() == 32) && s.bytes().all(|b| b.is_ascii_hexdigit());
    let old = (1..=12).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    hex || old
}

fn gist(segs: &[String]) -> Result<Found, Problem> {
    let host = HostKind::Gist;
    if let Some(found) = gist_without_user(segs) {
        return found;
    }
    let (user, id, rest) = owner_repo(segs).ok_or(Problem::Incomplete(host, GIST))?;
    let base = format!("https://gist.githubusercontent.com/{user}/{id}/raw");
    let repository = Some(format!("https://gist.github.com/{user}/{id}"));
    let (raw, reference, path) = match rest {
        [] => (base, None, None),
        [rev] if is_revision(rev) => (format!("{base}/{rev}"), Some(rev.clone()), None),
        [raw, tail @ ..] if raw == "raw" => {
            let (reference, path) = gist_tail(tail);
            let mut url = base;
            for s in tail {
                url.push('/');
                url.push_str(s);
            }
            (url, reference, path)
        }
        [other, ..] => return Err(Problem::NotAFile(host, other.clone())),
    };
    Ok(Found {
        host,
        raw: Some(raw),
        repository,
        reference,
        path,
    })
}

/// `gist.github.com/ID`, `…/ID/REVISION` and `…/ID/raw/…`, as links to a gist are often
/// shared (and as GitHub wrote them before gists had their owner in the path). The raw
/// URL needs the owner, which only GitHub knows: `gist.github.com/ID/raw` is the URL that
/// GitHub redirects to it (`gist.githubusercontent.com/USER/ID/raw/…`), so that is the
/// translation, with the revision or file kept after `/raw`. `None` when the first segment
/// is not a gist id, or the second is one (`USER/ID`, a user named like an id).
fn gist_without_user(segs: &[String]) -> Option<Result<Found, Problem>> {
    let (id, rest) = segs.split_first()?;
    if !is_gist_id(id) {
        return None;
    }
    let tail: &[String] = match rest {
        [] => &[],
        [rev] if is_revision(rev) => rest,
        [raw, tail @ ..] if raw == "raw" => tail,
        [other, ..] if is_gist_id(other) => return None,
        [other, ..] => return Some(Err(Problem::NotAFile(HostKind::Gist, other.clone()))),
    };
    let (reference, path) = gist_tail(tail);
    let mut raw = format!("https://gist.github.com/{id}/raw");
    for s in tail {
        raw.push('/');
        raw.push_str(s);
    }
    Some(Ok(Found {
        host: HostKind::Gist,
        raw: Some(raw),
        repository: Some(format!("https://gist.github.com/{id}")),
        reference,
        path,
    }))
}

/// The revision and file name after a gist's `/raw`.
fn gist_tail(tail: &[String]) -> (Option<String>, Option<String>) {
    match tail {
        [] => (None, None),
        [one] if is_revision(one) => (Some(one.clone()), None),
        [one] => (None, Some(one.clone())),
        [rev, file @ ..] => (Some(rev.clone()), Some(file.join("/"))),
    }
}

fn gist_raw(segs: &[String]) -> Result<Found, Problem> {
    let host = HostKind::Gist;
    let expected = "gist.githubusercontent.com/USER/ID/raw[/REVISION][/FILE]";
    let (user, id, rest) = owner_repo(segs).ok_or(Problem::Incomplete(host, expected))?;
    let (reference, path) = match rest {
        [raw, tail @ ..] if raw == "raw" => gist_tail(tail),
        _ => return Err(Problem::Incomplete(host, expected)),
    };
    Ok(Found {
        host,
        raw: None,
        repository: Some(format!("https://gist.github.com/{user}/{id}")),
        reference,
        path,
    })
}

const GITLAB_FILE: &str = "HOST/GROUP/PROJECT/-/blob/REF/PATH or HOST/GROUP/PROJECT/-/tree/REF/DIR";

/// A GitLab file or directory URL on any host: `PROJECT/PATH/-/(blob|tree|raw|blame)/...`,
/// the project path having at least two segments. `None` when the path has no such shape.
fn gitlab(url: &Parsed, origin: &str) -> Option<Result<Found, Problem>> {
    let segs = url.segments.as_slice();
    let dash = segs.iter().enumerate().position(|(i, s)| {
        i >= 2
            && s == "-"
            && segs
                .get(i + 1)
                .is_some_and(|k| matches!(k.as_str(), "blob" | "tree" | "raw" | "blame"))
    })?;
    let host = HostKind::GitLab;
    let project = segs.get(..dash)?.join("/");
    let kind = segs.get(dash + 1)?.as_str();
    let tail = segs.get(dash + 2..).unwrap_or_default();
    let Some(loc) = locate(tail, kind == "tree") else {
        return Some(Err(Problem::Incomplete(host, GITLAB_FILE)));
    };
    let raw = (kind != "raw").then(|| {
        let mut raw = format!("{origin}/{project}/-/raw/{}", loc.segments.join("/"));
        // `ref_type=heads|tags` tells a branch from a tag of the same name; the raw
        // endpoint honours it. Nothing else in a page's query matters to the raw file.
        if let Some(pair) = url.query_pairs("ref_type").next() {
            raw.push('?');
            raw.push_str(pair);
        }
        raw
    });
    Some(Ok(Found {
        host,
        raw,
        repository: Some(format!("{origin}/{project}")),
        reference: Some(loc.reference),
        path: Some(loc.path),
    }))
}

/// A `gitlab.com` URL that is not a file or directory.
fn gitlab_other(segs: &[String]) -> Result<Found, Problem> {
    let host = HostKind::GitLab;
    match segs.first().map(String::as_str) {
        // The REST API serves files too (`/api/v4/projects/ID/repository/files/F/raw?ref=R`).
        Some("api") => Ok(Found {
            host,
            ..Found::other()
        }),
        None => Err(Problem::Incomplete(host, GITLAB_FILE)),
        Some(_) => {
            let what = match segs.iter().position(|s| s == "-") {
                Some(i) => segs.get(i + 1).cloned().unwrap_or_else(|| "-".to_string()),
                None => "project or group".to_string(),
            };
            Err(Problem::NotAFile(host, what))
        }
    }
}

const BITBUCKET_FILE: &str = "bitbucket.org/WORKSPACE/REPO/src/REF/PATH";

fn bitbucket(url: &Parsed) -> Result<Found, Problem> {
    let host = HostKind::Bitbucket;
    let Some((workspace, repo, rest)) = owner_repo(&url.segments) else {
        return match url.segments.as_slice() {
            [] => Err(Problem::Incomplete(host, BITBUCKET_FILE)),
            _ => Err(Problem::NotAFile(host, "workspace".to_string())),
        };
    };
    let (kind, tail) = match rest {
        [kind, tail @ ..] if kind == "src" || kind == "raw" => (kind.as_str(), tail),
        [] => return Err(Problem::NotAFile(host, "repository".to_string())),
        [other, ..] => return Err(Problem::NotAFile(host, other.clone())),
    };
    // `src` pages show files and directories alike; Bitbucket writes directories with a
    // trailing slash, and the root of a ref has no path at all.
    let directory = kind == "src" && (url.trailing_slash || tail.len() == 1);
    let loc = locate(tail, directory).ok_or(Problem::Incomplete(host, BITBUCKET_FILE))?;
    let raw = (kind == "src").then(|| {
        format!(
            "https://bitbucket.org/{workspace}/{repo}/raw/{}",
            loc.segments.join("/")
        )
    });
    Ok(Found {
        host,
        raw,
        repository: Some(format!("https://bitbucket.org/{workspace}/{repo}")),
        reference: Some(loc.reference),
        path: Some(loc.path),
    })
}

/// A host that may be GitHub Enterprise: a label containing `github` (`github.acme.com`,
/// `acme-github.internal`) or a `*.ghe.com` name, but none of GitHub's other services.
fn looks_like_ghe(host: &str) -> bool {
    const NOT_GHE: &[&str] = &[
        "github.com",
        "github.io",
        "githubusercontent.com",
        "github.blog",
        "githubassets.com",
        "githubapp.com",
    ];
    let own_service = NOT_GHE
        .iter()
        .any(|d| host == *d || host.strip_suffix(d).is_some_and(|p| p.ends_with('.')));
    !own_service
        && (host.split('.').any(|label| label.contains("github")) || host.ends_with(".ghe.com"))
}

const GHE_FILE: &str = "HOST/OWNER/REPO/blob/REF/PATH or HOST/OWNER/REPO/tree/REF/DIR";

/// GitHub Enterprise. The raw file is `HOST/OWNER/REPO/raw/REF/PATH`, the page's own "Raw"
/// link, which serves the file or redirects to `raw.HOST` when subdomain isolation is on.
/// `None` when the path is not GitHub-shaped (the host is then treated as unknown).
fn github_enterprise(url: &Parsed) -> Option<Result<Found, Problem>> {
    let host = HostKind::GitHubEnterprise;
    let origin = url.origin();
    // `raw.HOST/OWNER/REPO/REF/PATH` (subdomain isolation) and `HOST/raw/OWNER/REPO/REF/PATH`.
    let (web_origin, raw_segs) = match url.host.strip_prefix("raw.") {
        Some(web) if looks_like_ghe(web) => (
            Some(format!("{}://{web}", url.scheme)),
            url.segments.as_slice(),
        ),
        _ => match url.segments.split_first() {
            Some((first, rest)) if first == "raw" => (Some(origin.clone()), rest),
            _ => (None, &[][..]),
        },
    };
    if let Some(web_origin) = web_origin {
        let (owner, repo, tail) = owner_repo(raw_segs)?;
        let loc = locate(tail, false)?;
        return Some(Ok(Found {
            host,
            raw: None,
            repository: Some(format!("{web_origin}/{owner}/{repo}")),
            reference: Some(loc.reference),
            path: Some(loc.path),
        }));
    }
    let (owner, repo, rest) = owner_repo(&url.segments)?;
    let (kind, tail) = rest.split_first()?;
    let directory = match kind.as_str() {
        "blob" | "blame" | "raw" => false,
        "tree" => true,
        _ => return None,
    };
    let Some(loc) = locate(tail, directory) else {
        return Some(Err(Problem::Incomplete(host, GHE_FILE)));
    };
    let raw =
        (kind != "raw").then(|| format!("{origin}/{owner}/{repo}/raw/{}", loc.segments.join("/")));
    Some(Ok(Found {
        host,
        raw,
        repository: Some(format!("{origin}/{owner}/{repo}")),
        reference: Some(loc.reference),
        path: Some(loc.path),
    }))
}

#[cfg(test)]
mod tests;

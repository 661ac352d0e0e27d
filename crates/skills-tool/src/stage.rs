//! Getting a skill's files from any source `install` and `add` take (an archive path or
//! URL, a `SKILL.md` URL, a registry name, a directory) into a staging directory, under
//! the packaging file policy, before anything is moved into place. A `SKILL.md` URL of a
//! git host brings the skill's whole directory from the repository; the file alone is
//! installed only when that cannot be had, with a warning that says why and what is missing. Shared by commands, so
//! it is not one (no command imports another).

use std::fs;
use std::io::Cursor;
use std::path::Path;
use std::time::Duration;

use skills_core::durable::{self, INSTALL_PREFIX};
use skills_package::Limits;

use crate::args::DownloadArgs;
use crate::errors::{self, plain as error};
use crate::printer::Printer;
use crate::render;

/// Redirects followed, each checked against the trusted hosts.
const MAX_REDIRECTS: usize = 5;

/// The most bytes one download may have.
const MAX_DOWNLOAD: u64 = 32 * 1024 * 1024;

/// The whole request, connection to last byte, unless `SKILLS_HTTP_TIMEOUT` (seconds) says.
const TIMEOUT: Duration = Duration::from_secs(30);

/// [`TIMEOUT`], or `SKILLS_HTTP_TIMEOUT` seconds (as cargo has `CARGO_HTTP_TIMEOUT`: slow
/// links want more, tests want less).
fn timeout() -> Duration {
    std::env::var("SKILLS_HTTP_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(TIMEOUT, Duration::from_secs)
}

/// What to do about a failed request: the advice depends on why it failed.
fn network_help(e: &ureq::Error, timeout: Duration) -> String {
    match e {
        ureq::Error::Timeout(_) => format!(
            "the download took longer than {} s; check the network, or allow more with SKILLS_HTTP_TIMEOUT=SECONDS",
            timeout.as_secs()
        ),
        ureq::Error::BodyExceedsLimit(_) => format!(
            "downloads are limited to {} MiB; download the archive yourself and run `skills install FILE`",
            MAX_DOWNLOAD / (1024 * 1024)
        ),
        ureq::Error::HostNotFound => "check the host name and the network".to_string(),
        _ => "check the URL and the network, then try again".to_string(),
    }
}

/// A staging directory inside the skills root `root` (so the install is one rename), after
/// clearing what a killed run left there (its staging or set-aside copy).
pub(crate) fn staging_in(root: &Path) -> Result<tempfile::TempDir, miette::Report> {
    let _ = durable::remove_stale(root, INSTALL_PREFIX);
    tempfile::Builder::new()
        .prefix(&durable::temp_prefix(INSTALL_PREFIX))
        .tempdir_in(root)
        .map_err(|e| {
            error(
                format!(
                    "{}: cannot create a temporary directory: {e}",
                    root.display()
                ),
                "check that the skills directory is writable",
            )
        })
}

/// A staged skill: its id (its folder under the staging directory), and the registry it
/// came from when it was a registry's skill.
pub(crate) struct Staged {
    pub(crate) id: String,
    pub(crate) registry: Option<String>,
    /// The registry version installed, for a skill hosted there.
    pub(crate) version: Option<String>,
}

/// Puts the skill from `source` (an archive path or URL, a `SKILL.md` URL, a registry
/// name, a skill directory) into `staging/<id>`: what `install` and `add` share.
pub(crate) fn stage_source(
    source: &str,
    download: &DownloadArgs,
    staging: &Path,
    printer: &Printer,
) -> Result<Staged, miette::Report> {
    let local = |id| Staged {
        id,
        registry: None,
        version: None,
    };
    // A URL pasted without its scheme (`github.com/o/r/blob/main/x/SKILL.md`).
    let pasted = skills_add::pasted_url(source);
    let source = pasted.as_deref().unwrap_or(source);
    let lower = source.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        // The SKILL.md of a repository is one file of a skill: its directory is fetched
        // with git, and the file alone only when that cannot be done.
        let only = match stage_from_repository(source, &download.allow_hosts, staging, printer)? {
            FromRepository::Staged(id) => return Ok(local(id)),
            FromRepository::Not(only) => only,
        };
        // A site (not a file's URL): the skills its discovery index lists, when it has one.
        if matches!(only, OnlyFile::NoRepository)
            && let Some(id) = stage_well_known(source, &download.allow_hosts, staging, printer)?
        {
            return Ok(local(id));
        }
        let (bytes, url) = fetch(source, &download.allow_hosts).inspect_err(|_| {
            // Both ways failed: the error is the download's, and this is the other.
            if let OnlyFile::Unfetched(why) = &only {
                printer.note(&format!(
                    "the repository could not be fetched either: {why}"
                ));
            }
        })?;
        let name = last_segment(&url);
        return if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            skills_package::unpack(
                Cursor::new(bytes),
                Path::new(&name),
                staging,
                &Limits::default(),
            )
            .map_err(|e| errors::package(&e))
            .map(local)
        } else {
            stage_skill_md(&bytes, &url, &only, staging, printer).map(local)
        };
    }
    if crate::registry_client::is_skill_name(source) {
        // A lock's registry is where the skill came from; else the one configured.
        let client = match &download.locked_registry {
            Some(url) => Some(crate::registry_client::Client::locked(url)?),
            None => crate::registry_client::Client::configured(download.registry.as_deref())?,
        };
        if let Some(client) = client {
            return stage_registry(&client, source, download, staging, printer);
        }
    }
    stage_path(source, staging, printer).map(local)
}

/// The discovery index's path under a site (npm `skills` reads it too, and the
/// `.well-known/skills/` of its first version).
const WELL_KNOWN: [&str; 2] = [".well-known/agent-skills", ".well-known/skills"];

/// The `$schema` of the discovery index entries with `type`, `url` and `digest`.
const DISCOVERY_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// The skills of the discovery index of the site `url` (`/.well-known/agent-skills/index.json`
/// below it: a registry's, or any site's), each into `staging/<name>`: a `skill-md` entry
/// as its `SKILL.md`, an `archive` entry unpacked (a ZIP, with `SKILL.md` at its root or in
/// one folder), each checked against the index's `sha256:` digest first. The index and
/// the files are fetched from the site's own origin only (https, or http to a host named
/// with --allow-host), without redirects. `None` when the site has no index (the URL is
/// then downloaded as a file is); the first skill's id otherwise.
fn stage_well_known(
    url: &str,
    allow: &[String],
    staging: &Path,
    printer: &Printer,
) -> Result<Option<String>, miette::Report> {
    let lower = url.to_ascii_lowercase();
    let clean = lower.split(['?', '#']).next().unwrap_or_default();
    if [".md", ".skill", ".zip", ".json"]
        .iter()
        .any(|e| clean.ends_with(e))
    {
        return Ok(None);
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(None);
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let origin = format!("{}://{authority}", scheme.to_ascii_lowercase());
    // https to any site the user names; plain http only to one named with --allow-host.
    let http_allowed = allow
        .iter()
        .any(|h| h.trim().eq_ignore_ascii_case(authority));
    if origin.starts_with("http://") && !http_allowed {
        return Ok(None);
    }
    if authority.is_empty() || authority.contains('@') {
        return Ok(None);
    }
    let timeout = timeout();
    let agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(concat!("skills/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent();
    let get = |target: &str| -> Result<Option<Vec<u8>>, miette::Report> {
        let mut response = agent
            .get(target)
            .call()
            .map_err(|e| error(format!("{target}: {e}"), network_help(&e, timeout)))?;
        if !(200..300).contains(&response.status().as_u16()) {
            return Ok(None);
        }
        response
            .body_mut()
            .with_config()
            .limit(MAX_DOWNLOAD)
            .read_to_vec()
            .map(Some)
            .map_err(|e| error(format!("{target}: {e}"), network_help(&e, timeout)))
    };
    let base = path.trim_matches('/');
    let mut found = None;
    for known in WELL_KNOWN {
        let index_url = if base.is_empty() {
            format!("{origin}/{known}/index.json")
        } else {
            format!("{origin}/{base}/{known}/index.json")
        };
        if let Some(bytes) = get(&index_url)?
            && let Ok(index) = serde_json::from_slice::<serde_json::Value>(&bytes)
            && index.get("$schema").and_then(serde_json::Value::as_str) == Some(DISCOVERY_SCHEMA)
        {
            found = Some((index_url, index));
            break;
        }
    }
    let Some((index_url, index)) = found else {
        return Ok(None);
    };
    printer.status(&format!("reading {index_url}\n"));
    let mut first = None;
    let entries = index
        .get("skills")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default();
    for entry in &entries {
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
        };
        let (name, kind, target, digest) =
            (text("name"), text("type"), text("url"), text("digest"));
        if !skills_frontmatter::is_valid_name(name) || !name.is_ascii() {
            printer.warn(&format!(
                "{index_url}: `{}` is not a skill name; left out",
                render::terminal_safe(name)
            ));
            continue;
        }
        // The entry's URL, resolved against the index, on the index's own origin.
        let artifact = if target.starts_with('/') {
            format!("{origin}{target}")
        } else if target
            .to_ascii_lowercase()
            .starts_with(&format!("{origin}/"))
        {
            target.to_string()
        } else if !target.contains("://") && !target.is_empty() {
            let dir = index_url
                .rsplit_once('/')
                .map_or(index_url.as_str(), |(d, _)| d);
            format!("{dir}/{target}")
        } else {
            printer.warn(&format!(
                "{name}: not fetched: its URL ({}) is not on {origin}, the site whose index lists it",
                render::terminal_safe(target)
            ));
            continue;
        };
        let Some(bytes) = get(&artifact)? else {
            printer.warn(&format!(
                "{name}: not fetched: {artifact} did not answer 2xx"
            ));
            continue;
        };
        let actual = format!("sha256:{}", skills_core::digest::sha256_hex(&bytes));
        if actual != digest {
            return Err(error(
                format!(
                    "{name}: {artifact} ({actual}) is not what {index_url} lists ({digest}); nothing was installed"
                ),
                "try again; if it persists, the site serves other content than its index lists",
            ));
        }
        match kind {
            "skill-md" => {
                let dir = staging.join(name);
                fs::create_dir_all(&dir)
                    .and_then(|()| fs::write(dir.join("SKILL.md"), &bytes))
                    .map_err(|e| {
                        error(
                            format!("{}: {e}", dir.display()),
                            "check that the destination is writable",
                        )
                    })?;
            }
            "archive" if bytes.starts_with(b"PK") => {
                let unpacked = skills_package::unpack(
                    Cursor::new(bytes),
                    Path::new(&format!("{name}.zip")),
                    staging,
                    &Limits::default(),
                )
                .map_err(|e| errors::package(&e))?;
                if unpacked != name {
                    return Err(error(
                        format!(
                            "{artifact}: the archive holds `{unpacked}`, not `{name}` as {index_url} says"
                        ),
                        "the site's index and archive disagree; tell its owner",
                    ));
                }
            }
            other => {
                printer.warn(&format!(
                    "{name}: not fetched: {artifact} is a `{}`, which this skills does not install (a ZIP `archive` or a `skill-md`)",
                    render::terminal_safe(other)
                ));
                continue;
            }
        }
        first.get_or_insert_with(|| name.to_string());
    }
    first.map(Some).ok_or_else(|| {
        error(
            format!("{index_url} lists no skill this skills can install"),
            "the warnings above say why each was left out",
        )
    })
}

/// [`stage_source`] of a registry skill, `NAME` or `NAME@VERSION`: a hosted skill's every
/// file, each checked against its digest (a lock's version when `sync` asks for it, else
/// the one named, else the latest not yanked); a skill registered by URL from its
/// repository when its host is a git host (the whole folder), else its cached `SKILL.md`
/// alone, with a warning that names what is not installed.
fn stage_registry(
    client: &crate::registry_client::Client,
    source: &str,
    download: &DownloadArgs,
    staging: &Path,
    printer: &Printer,
) -> Result<Staged, miette::Report> {
    use crate::registry_client as registry;
    let (name, asked) = registry::split_version(source);
    let asked = download.locked_version.as_deref().or(asked);
    let card = registry::card(client, name)?;
    let staged = |id: String, version: Option<String>| Staged {
        id,
        registry: Some(client.base().to_string()),
        version,
    };
    if card.get("hosted").and_then(serde_json::Value::as_bool) == Some(true) {
        let got = registry::download(client, name, asked)?;
        let root = staging.join(name);
        for (path, bytes, executable) in &got.files {
            let to = root.join(path);
            let written = to
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::write(&to, bytes))
                .and_then(|()| set_mode(&to, *executable));
            written.map_err(|e| {
                error(
                    format!("{}: {e}", to.display()),
                    "check that the destination is writable",
                )
            })?;
        }
        printer.detail(&format!(
            "{name}@{}: {} file(s), {}\n",
            got.version,
            got.files.len(),
            got.digest
        ));
        return Ok(staged(name.to_string(), Some(got.version)));
    }
    if let Some(version) = asked {
        return Err(error(
            format!(
                "{name} is registered in {} by the URL of its SKILL.md, which has no versions: `{name}@{version}` names none",
                client.base()
            ),
            format!("install `{name}` (what its URL holds now)"),
        ));
    }
    // Registered by URL: the skill's folder from its repository where the host allows.
    let url = card
        .get("skill_md_url")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let only = match stage_from_repository(&url, &download.allow_hosts, staging, printer)? {
        FromRepository::Staged(id) => return Ok(staged(id, None)),
        FromRepository::Not(OnlyFile::NoRepository) => OnlyFile::Registry(url),
        FromRepository::Not(other) => other,
    };
    let bytes = registry::fetch_skill_md(client, name)?;
    let from = format!(
        "{}/api/skills/{}/content",
        client.base(),
        registry::encode(name)
    );
    let id = stage_skill_md(&bytes, &from, &only, staging, printer)?;
    Ok(staged(id, None))
}

/// [`stage_source`] of a path: a directory, a skill's `SKILL.md`, an archive.
fn stage_path(source: &str, staging: &Path, printer: &Printer) -> Result<String, miette::Report> {
    let path = Path::new(source);
    let meta = fs::metadata(path).map_err(|e| {
        error(
            format!("{source}: {e}"),
            "pass a .skill or .zip archive, a skill directory, an http(s) URL, or a skill's name with --registry URL (or SKILLS_REGISTRY)",
        )
    })?;
    if meta.is_dir() {
        return stage_dir(path, staging, printer);
    }
    // Opening a FIFO waits for a writer: forever.
    if !meta.is_file() {
        return Err(error(
            format!(
                "{source}: {}, not an archive",
                skills_core::describe_file_type(meta.file_type())
            ),
            "pass a .skill or .zip archive, a skill directory, an http(s) URL, or a skill's name with --registry URL (or SKILLS_REGISTRY)",
        ));
    }
    // A skill's own SKILL.md stands for its directory.
    if path
        .file_name()
        .is_some_and(skills_core::layout::is_skill_md)
        && let Some(dir) = path.parent().filter(|d| d.is_dir())
    {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        return stage_dir(dir, staging, printer);
    }
    let mut file = fs::File::open(path).map_err(|e| {
        error(
            format!("{source}: {e}"),
            "check that the archive is readable",
        )
    })?;
    // A ZIP archive starts with a local file header (or, empty, with its end record): say
    // what else it is rather than the reader's "Could not find EOCD".
    let mut magic = [0u8; 4];
    let read = std::io::Read::read(&mut file, &mut magic).unwrap_or(0);
    if !matches!(magic.get(..read), Some(b"PK\x03\x04" | b"PK\x05\x06")) {
        return Err(error(
            format!("{source}: not a .skill or .zip archive"),
            "pass an archive made by `skills package` (or any ZIP of a skill), a skill directory or its SKILL.md, or a SKILL.md URL",
        ));
    }
    std::io::Seek::rewind(&mut file).map_err(|e| {
        error(
            format!("{source}: {e}"),
            "check that the archive is readable",
        )
    })?;
    skills_package::unpack(file, path, staging, &Limits::default()).map_err(|e| errors::package(&e))
}

/// Copies a skill directory as it would be packaged (same excludes, same symlink rules).
fn stage_dir(dir: &Path, staging: &Path, printer: &Printer) -> Result<String, miette::Report> {
    if !dir.join("SKILL.md").is_file() {
        return Err(error(
            format!("{}: not a skill directory (no SKILL.md)", dir.display()),
            "pass the directory that holds the skill's SKILL.md",
        ));
    }
    let id = skills_package::skill_id(dir).map_err(|e| errors::package(&e))?;
    stage_dir_as(dir, &id, staging, printer)?;
    Ok(id)
}

/// Copies the skill directory `dir` to `staging/<id>` as it would be packaged.
pub(crate) fn stage_dir_as(
    dir: &Path,
    id: &str,
    staging: &Path,
    printer: &Printer,
) -> Result<(), miette::Report> {
    let collected = skills_package::collect_all(dir).map_err(|e| errors::package(&e))?;
    for warning in render::skills::skipped_files(id, &collected.skipped) {
        printer.warn(&warning);
    }
    let root = staging.join(id);
    for entry in collected.entries {
        let to = root.join(&entry.path);
        let copied = to
            .parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| fs::copy(&entry.source, &to))
            .and_then(|_| set_mode(&to, entry.executable));
        copied.map_err(|e| {
            error(
                format!("{}: cannot copy: {e}", entry.source.display()),
                "check that the skill is readable and the destination writable",
            )
        })?;
    }
    Ok(())
}

/// Why a skill is installed from its SKILL.md alone, for the warning that says so.
enum OnlyFile {
    /// The URL is not a SKILL.md in a repository of a git host (another host, a gist, an
    /// archive's URL): the file is all it names.
    NoRepository,
    /// The URL is a SKILL.md in a repository, which could not be fetched (no git, no
    /// network, a host git cannot clone from) or has no such file at that ref: why.
    Unfetched(String),
    /// A skill registered in a registry by this URL, which names no repository of a git
    /// host: the registry has its SKILL.md alone.
    Registry(String),
}

/// What [`stage_from_repository`] did.
enum FromRepository {
    /// The skill's directory is staged under this id.
    Staged(String),
    /// Nothing was staged: the file alone is to be downloaded, for this reason.
    Not(OnlyFile),
}

/// The skill a `SKILL.md` URL of a git host (GitHub, GitLab, Bitbucket, GitHub Enterprise)
/// belongs to, fetched from its repository as `skills add` fetches (shallow, one ref, only
/// the skill's directory checked out) and staged as a local directory is: every file of
/// the skill, not the SKILL.md alone (a real skill had 18 files). Git runs only for a URL
/// whose download would be allowed (a trusted host, or one named with --allow-host), so a
/// host that is refused is never contacted.
fn stage_from_repository(
    source: &str,
    allow: &[String],
    staging: &Path,
    printer: &Printer,
) -> Result<FromRepository, miette::Report> {
    let Some(git) = skills_add::skill_md_repository(source) else {
        return Ok(FromRepository::Not(OnlyFile::NoRepository));
    };
    if !skills_url::to_raw(source).is_ok_and(|t| allowed(&t.raw, allow)) {
        // The download refuses it, with the error that says how to allow it.
        return Ok(FromRepository::Not(OnlyFile::NoRepository));
    }
    let unfetched = |why: String| Ok(FromRepository::Not(OnlyFile::Unfetched(why)));
    let cache = match crate::settings::cache_dir() {
        Ok(cache) => cache,
        Err(e) => return unfetched(e.to_string()),
    };
    let at = git
        .reference
        .as_deref()
        .map(|r| format!(" at {r}"))
        .unwrap_or_default();
    printer.status(&format!("fetching {}{at}\n", git.url));
    let checkout = match skills_add::git::fetch(
        &cache,
        &git.url,
        git.reference.as_deref(),
        git.path.as_deref(),
    ) {
        Ok(checkout) => checkout,
        Err(e) => return unfetched(e.to_string()),
    };
    let path = git.path.as_deref().unwrap_or_default();
    let dir = checkout.dir.join(path);
    // The path comes from the URL and the tree from the repository: a directory that is a
    // link out of the checkout (to the user's files) is not a skill of this repository.
    let inside = fs::canonicalize(&dir)
        .ok()
        .zip(fs::canonicalize(&checkout.dir).ok())
        .is_some_and(|(d, c)| d.starts_with(c));
    let commit = checkout.commit.get(..12).unwrap_or(&checkout.commit);
    if dir.exists() && !inside {
        return unfetched(format!(
            "{path} in {} at {commit} leads out of the repository",
            git.url
        ));
    }
    if !inside || !dir.join("SKILL.md").is_file() {
        let file = if path.is_empty() {
            "SKILL.md".to_string()
        } else {
            format!("{path}/SKILL.md")
        };
        return unfetched(format!("{} has no {file} at {commit}", git.url));
    }
    // A skill in a directory installs under that directory's name, as a copy of the
    // directory would; one at the root of its repository under its own `name` (the
    // checkout's directory is named for the cache).
    let id = match path.rsplit('/').next().filter(|n| !n.is_empty()) {
        Some(name) => name.to_string(),
        None => {
            let bytes = skills_core::fs::read_bounded_in(
                &dir.join("SKILL.md"),
                &dir,
                skills_frontmatter::MAX_FILE_BYTES,
            )
            .map_err(|e| {
                error(
                    format!("{}: SKILL.md: {e}", git.url),
                    "the repository's SKILL.md could not be read",
                )
            })?;
            skills_frontmatter::SkillMd::parse(&bytes)
                .ok()
                .as_ref()
                .and_then(skill_md_id)
                .ok_or_else(|| not_skill(source))?
        }
    };
    stage_dir_as(&dir, &id, staging, printer)?;
    Ok(FromRepository::Staged(id))
}

/// The error for a download that is neither a SKILL.md with a usable name nor an archive.
fn not_skill(url: &str) -> miette::Report {
    error(
        format!("{url}: not a SKILL.md with a name, nor a ZIP archive"),
        "pass the URL of a SKILL.md (or its blob page) or of a .skill archive",
    )
}

/// The frontmatter `name` of a SKILL.md, when it can be a directory's name: one path
/// component, not `.` or `..`, without `:` or control characters.
fn skill_md_id(md: &skills_frontmatter::SkillMd) -> Option<String> {
    let id = md.name().map(str::trim).unwrap_or_default().to_string();
    let safe = !id.is_empty()
        && id != "."
        && id != ".."
        && !id.contains(['/', '\\', '\0', ':'])
        && !id.chars().any(char::is_control);
    safe.then_some(id)
}

/// A downloaded SKILL.md, installed alone: the id is its `name`, which must be one path
/// component. `only` says why the rest of the skill is not here, for the warning.
fn stage_skill_md(
    bytes: &[u8],
    url: &str,
    only: &OnlyFile,
    staging: &Path,
    printer: &Printer,
) -> Result<String, miette::Report> {
    let md = skills_frontmatter::SkillMd::parse(bytes).map_err(|_| not_skill(url))?;
    let id = skill_md_id(&md).ok_or_else(|| not_skill(url))?;
    // Only this file could be had: say so, and why, and which files it names are not here
    // (a real skill had 18, and the install said nothing).
    let mut missing: Vec<String> = md
        .references()
        .into_iter()
        .filter_map(|r| r.resolved)
        .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("SKILL.md"))
        .collect();
    missing.sort();
    missing.dedup();
    let why = match only {
        OnlyFile::NoRepository => {
            ": the URL is not the SKILL.md of a skill in a GitHub, GitLab or Bitbucket repository"
                .to_string()
        }
        OnlyFile::Unfetched(why) => format!(": the repository could not be fetched ({why})"),
        OnlyFile::Registry(url) => format!(
            ": the skill is registered by the URL of its SKILL.md ({url}), whose host has no repository to fetch its folder from, and the registry keeps that file alone"
        ),
    };
    let named = if missing.is_empty() {
        "it names no other file, but any the skill has are not installed".to_string()
    } else {
        format!(
            "the files it names are not installed: {}",
            render::first_few(&missing, 10)
        )
    };
    // A repository that was to be fetched may hold more than the file names: say so even
    // when it names nothing. Elsewhere the file is all there is to know of.
    if !missing.is_empty() || matches!(only, OnlyFile::Unfetched(_)) {
        printer.warn(&format!(
            "{id}: only SKILL.md was fetched from {url}{why}; {named}"
        ));
    }
    let dir = staging.join(&id);
    fs::create_dir_all(&dir)
        .and_then(|()| fs::write(dir.join("SKILL.md"), bytes))
        .map_err(|e| {
            error(
                format!("{}: {e}", dir.display()),
                "check that the destination is writable",
            )
        })?;
    Ok(id)
}

#[cfg(unix)]
fn set_mode(path: &Path, executable: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _executable: bool) -> std::io::Result<()> {
    Ok(())
}

/// Downloads `url` (translated to raw first), checking it and every redirect against the
/// trusted hosts. Returns the bytes and the final URL.
fn fetch(input: &str, allow: &[String]) -> Result<(Vec<u8>, String), miette::Report> {
    let mut url = skills_url::to_raw(input)
        .map(|t| t.raw)
        .map_err(|e| error(e.to_string(), "see docs/url.md for the URLs understood"))?;
    let timeout = timeout();
    let agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(concat!("skills/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent();
    for _ in 0..=MAX_REDIRECTS {
        if !allowed(&url, allow) {
            return Err(error(
                format!("{url}: not a trusted host; refusing to download"),
                format!(
                    "trusted over https: {}; pass --allow-host HOST (or HOST:PORT) to trust another",
                    skills_url::TRUSTED_HOSTS.join(", ")
                ),
            ));
        }
        let mut response = agent
            .get(&url)
            .call()
            .map_err(|e| error(format!("{url}: {e}"), network_help(&e, timeout)))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    error(
                        format!("{url}: HTTP {status} without a Location"),
                        "the server redirected nowhere".to_string(),
                    )
                })?;
            url = skills_url::resolve_location(&url, location);
            continue;
        }
        if !(200..300).contains(&status) {
            return Err(error(
                format!("{url}: HTTP {status}"),
                "check the URL".to_string(),
            ));
        }
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_DOWNLOAD)
            .read_to_vec()
            .map_err(|e| error(format!("{url}: {e}"), network_help(&e, timeout)))?;
        return Ok((bytes, url));
    }
    Err(error(
        format!("{input}: more than {MAX_REDIRECTS} redirects"),
        "pass the final URL".to_string(),
    ))
}

/// https to a trusted or allowed host; plain http only to a host named with --allow-host.
fn allowed(url: &str, allow: &[String]) -> bool {
    let extra: Vec<&str> = allow.iter().map(String::as_str).collect();
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return skills_url::is_trusted(url, &extra);
    }
    let Some(rest) = url
        .get("http://".len()..)
        .filter(|_| lower.starts_with("http://"))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let named = extra.iter().any(|h| {
        let h = h.trim();
        h.strip_suffix('.')
            .unwrap_or(h)
            .eq_ignore_ascii_case(authority)
    });
    // The https form is checked too, for the URL's well-formedness (no credentials, ...).
    named && skills_url::is_trusted(&format!("https://{rest}"), &extra)
}

/// The last path segment of a URL (for the id of a flat archive).
fn last_segment(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.rsplit('/').next().unwrap_or_default().to_string()
}

/// Writes the paths of `report` under `from` as `to` makes them from the rest: a staged
/// copy's findings name the skill where it is going (`.agents/skills/pdf/SKILL.md`) or where
/// it came from (`owner/repo:skills/pdf/SKILL.md`), not a staging directory or the
/// repository cache. Renderers take the source text from the findings, so the new paths
/// need not exist.
pub(crate) fn rebase_report(
    report: &mut skills_lint::Report,
    from: &Path,
    to: &dyn Fn(&Path) -> std::path::PathBuf,
) {
    let rebase = |path: &mut std::path::PathBuf| {
        if let Ok(rest) = path.strip_prefix(from) {
            *path = to(rest);
        }
    };
    for skill in &mut report.skills {
        rebase(&mut skill.dir);
        rebase(&mut skill.skill_md);
        for d in &mut skill.diagnostics {
            rebase(&mut d.path);
        }
    }
    for d in &mut report.other {
        rebase(&mut d.path);
    }
}

/// `label:rest` (`owner/repo:skills/pdf/SKILL.md`), for [`rebase_report`].
pub(crate) fn labelled(label: &str, rest: &Path) -> std::path::PathBuf {
    let rest = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    std::path::PathBuf::from(format!("{label}:{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let allow = vec!["127.0.0.1:8080".to_string()];
        assert!(allowed("http://127.0.0.1:8080/a", &allow));
        assert!(!allowed("http://127.0.0.1:8081/a", &allow));
        assert!(!allowed("http://raw.githubusercontent.com/a", &allow));
        assert!(allowed(
            "https://raw.githubusercontent.com/o/r/m/SKILL.md",
            &[]
        ));
        assert!(!allowed("https://evil.example/SKILL.md", &allow));
        assert!(!allowed("ftp://127.0.0.1:8080/a", &allow));
    }
}

//! `skills` as a client of a skills registry (`skills registry serve`, docs/registry.md):
//! where the registry is, the token, the requests, and the registry's problems
//! (`application/problem+json`) as our diagnostics.
//!
//! The registry is `--registry URL`, else `SKILLS_REGISTRY`, else `[registry] url` in the
//! nearest `skills.toml`; the token `SKILLS_REGISTRY_TOKEN`, else `[registry] token`. A
//! token is never a flag: flags land in shell history and in `ps`.
//!
//! A skill added from a registry has that registry's URL in `skills.lock`, and `sync`,
//! `check` and `update` ask it again ([`Client::locked`]). A lock arrives with a repository,
//! so the token goes there only when it is also the registry configured here: a pull request
//! that points the lock at another host must not receive the user's token.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::errors;

/// The environment variable naming the registry.
pub(crate) const REGISTRY_ENV: &str = "SKILLS_REGISTRY";
/// The environment variable holding the token.
pub(crate) const TOKEN_ENV: &str = "SKILLS_REGISTRY_TOKEN";

/// The largest JSON answer read from a registry (a `SKILL.md` is at most 1 MiB there, a
/// version's file list at most 512 entries).
const MAX_ANSWER: u64 = 2 * 1024 * 1024;

/// The largest file read from a registry: a whole skill is at most 16 MiB.
const MAX_FILE: u64 = skills_core::layout::MAX_SKILL_BYTES + 1024 * 1024;

/// A registry to talk to.
pub(crate) struct Client {
    base: String,
    token: Option<String>,
    /// A token is configured, but not for this registry (one a lock names), so none is sent.
    withheld: bool,
    agent: ureq::Agent,
}

/// `[registry]` of skills.toml.
#[derive(Debug, Default, serde::Deserialize)]
struct FileSettings {
    #[serde(default)]
    registry: Section,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    url: Option<String>,
    token: Option<String>,
}

/// The nearest skills.toml's `[registry]`, from the current directory up.
fn file_settings() -> Result<Section, miette::Report> {
    let Some((path, text)) = crate::settings::nearest()? else {
        return Ok(Section::default());
    };
    let settings: FileSettings = toml::from_str(&text).map_err(|e| {
        errors::plain(
            format!("{}: [registry]: {}", path.display(), e.message()),
            "[registry] takes `url` and `token`",
        )
    })?;
    Ok(settings.registry)
}

impl Client {
    /// The registry named by `flag`, the environment or skills.toml; `None` when none is.
    pub(crate) fn configured(flag: Option<&str>) -> Result<Option<Self>, miette::Report> {
        let file = file_settings()?;
        let Some(base) = flag
            .map(str::to_string)
            .or_else(|| env(REGISTRY_ENV))
            .or(file.url)
        else {
            return Ok(None);
        };
        let base = normalize(&base);
        if !skills_add::is_registry_url(&base) {
            return Err(errors::plain(
                format!("`{base}` is not a registry URL"),
                format!(
                    "give the registry's http(s) URL, such as http://127.0.0.1:8470, without a user, password, query or fragment (the token goes in {TOKEN_ENV})"
                ),
            ));
        }
        Ok(Some(Self::new(base, env(TOKEN_ENV).or(file.token), false)))
    }

    /// The registry `url` that a lock names for a skill: asked whatever registry is
    /// configured, since the skill came from there. The configured token is sent only when
    /// `url` is the configured registry (`SKILLS_REGISTRY`, else `[registry] url`).
    pub(crate) fn locked(url: &str) -> Result<Self, miette::Report> {
        let base = normalize(url);
        if !skills_add::is_registry_url(&base) {
            // Lock entries are checked when the lock is read; this holds for any caller.
            return Err(errors::plain(
                format!("`{base}` is not a registry URL"),
                "set `registry` in skills.lock to the registry's http(s) URL",
            ));
        }
        let file = file_settings()?;
        let token = env(TOKEN_ENV).or(file.token);
        let ours = env(REGISTRY_ENV)
            .or(file.url)
            .is_some_and(|configured| same_registry(&configured, &base));
        let (token, withheld) = match token {
            Some(token) if ours => (Some(token), false),
            Some(_) => (None, true),
            None => (None, false),
        };
        Ok(Self::new(base, token, withheld))
    }

    fn new(base: String, token: Option<String>, withheld: bool) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .user_agent(concat!("skills/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Self {
            base,
            token,
            withheld,
            agent,
        }
    }

    /// As [`Client::configured`], with an error that says how to name one when none is.
    pub(crate) fn required(flag: Option<&str>) -> Result<Self, miette::Report> {
        Self::configured(flag)?.ok_or_else(|| {
            errors::plain(
                "no skills registry is configured",
                format!(
                    "pass --registry URL, set {REGISTRY_ENV}, or put `url` under [registry] in skills.toml"
                ),
            )
        })
    }

    /// The registry's URL.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// `METHOD path` with an optional JSON body: the answer's status and body.
    fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Vec<u8>), miette::Report> {
        let text = body.map(Value::to_string).unwrap_or_default();
        let content = (method != "GET" && method != "DELETE")
            .then_some(("application/json", text.as_bytes()));
        self.send_raw(method, path, content, MAX_ANSWER)
    }

    /// `METHOD path` with an optional body of a content type: the answer's status and
    /// body, at most `limit` bytes of it.
    fn send_raw(
        &self,
        method: &str,
        path: &str,
        body: Option<(&str, &[u8])>,
        limit: u64,
    ) -> Result<(u16, Vec<u8>), miette::Report> {
        let url = format!("{}{path}", self.base);
        let auth = self.token.as_ref().map(|t| format!("Bearer {t}"));
        let result = match method {
            "GET" | "DELETE" => {
                let mut request = if method == "GET" {
                    self.agent.get(&url)
                } else {
                    self.agent.delete(&url)
                };
                if let Some(auth) = &auth {
                    request = request.header("Authorization", auth);
                }
                request.call()
            }
            _ => {
                let mut request = match method {
                    "PUT" => self.agent.put(&url),
                    _ => self.agent.post(&url),
                };
                if let Some(auth) = &auth {
                    request = request.header("Authorization", auth);
                }
                let (content_type, bytes) = body.unwrap_or(("application/json", b""));
                request.header("Content-Type", content_type).send(bytes)
            }
        };
        let mut response = result.map_err(|e| {
            errors::plain(
                format!("{}: {e}", self.base),
                "check that the registry runs and the URL is right",
            )
        })?;
        let status = response.status().as_u16();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| errors::plain(format!("{url}: {e}"), ""))?;
        Ok((status, bytes))
    }

    /// `POST path` with `archive` (a `.skill`): the JSON answer and its status, or the
    /// registry's problem as an error naming what was `asked`.
    pub(crate) fn upload(
        &self,
        path: &str,
        archive: &[u8],
        asked: &str,
    ) -> Result<(u16, Value), miette::Report> {
        let (status, bytes) =
            self.send_raw("POST", path, Some(("application/zip", archive)), MAX_ANSWER)?;
        if !(200..300).contains(&status) {
            return Err(self.problem(status, &bytes, Some(asked)));
        }
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            errors::plain(
                format!(
                    "{}{path}: not the JSON of a skills registry: {e}",
                    self.base
                ),
                "check that the URL is a skills registry",
            )
        })?;
        Ok((status, value))
    }

    /// `DELETE path`, or the registry's problem as an error naming what was `asked`.
    pub(crate) fn delete(&self, path: &str, asked: &str) -> Result<(), miette::Report> {
        let (status, bytes) = self.send_raw("DELETE", path, None, MAX_ANSWER)?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(self.problem(status, &bytes, Some(asked)))
        }
    }

    /// A JSON answer, or the registry's problem as an error.
    pub(crate) fn json(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, miette::Report> {
        self.json_about(method, path, body, None)
    }

    /// As [`Client::json`], with what was asked said in the error (`cannot publish `pdf`
    /// from URL`): the registry's answer may not name it.
    pub(crate) fn json_about(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        asked: Option<&str>,
    ) -> Result<Value, miette::Report> {
        let (status, bytes) = self.send(method, path, body)?;
        if !(200..300).contains(&status) {
            return Err(self.problem(status, &bytes, asked));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            errors::plain(
                format!(
                    "{}{path}: not the JSON of a skills registry: {e}",
                    self.base
                ),
                "check that the URL is a skills registry",
            )
        })
    }

    /// The bytes of an answer (at most a skill's 16 MiB), or the registry's problem as an
    /// error.
    pub(crate) fn bytes(&self, path: &str) -> Result<Vec<u8>, miette::Report> {
        let (status, bytes) = self.send_raw("GET", path, None, MAX_FILE)?;
        if (200..300).contains(&status) {
            Ok(bytes)
        } else {
            Err(self.problem(status, &bytes, None))
        }
    }

    /// An error answer as a diagnostic: what was asked (when the caller says), the
    /// problem's title and detail (once: a detail that repeats its title stands alone), and
    /// what to do. The registry's text is someone else's: made safe for a terminal.
    fn problem(&self, status: u16, body: &[u8], asked: Option<&str>) -> miette::Report {
        let problem: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let text = |key: &str| problem.get(key).and_then(Value::as_str).unwrap_or_default();
        let kind = text("type").trim_start_matches("/problems/");
        let said =
            problem_text(text("title"), text("detail")).unwrap_or_else(|| format!("HTTP {status}"));
        let said = crate::render::terminal_safe(&said);
        let message = match asked {
            Some(asked) => format!("{}: {asked}: {said}", self.base),
            None => format!("{}: {said}", self.base),
        };
        let help = match kind {
            // A registry shows an anonymous caller no private skill: not found, too.
            "unauthorized" | "invalid-token" | "not-found" if self.withheld => format!(
                "skills.lock names this registry, and your token is sent only to the one {REGISTRY_ENV} (else `[registry] url` in skills.toml) names, so none was sent: if you trust {}, set {REGISTRY_ENV}={}",
                self.base, self.base
            ),
            "unauthorized" | "invalid-token" => format!(
                "set {TOKEN_ENV} to a token of this registry (`skills registry token create` on its server)"
            ),
            "not-found" => "`skills search` lists the skills you may see".to_string(),
            "forbidden" => "only the skill's owner or an admin may do this".to_string(),
            "conflict" => "a skill of that name is registered; its owner updates it".to_string(),
            "version-exists" => "set a new `metadata.version` in the SKILL.md (or leave it out: versions are then numbered 1, 2, …) and publish again".to_string(),
            "bad-archive" => "`skills package DIR --list` shows what is packaged; a skill is at most 512 files and 16 MiB".to_string(),
            "lint-failed" => lint_help(&problem),
            "untrusted-url" => {
                "the registry fetches only from the hosts it trusts; use a raw or page URL of one"
                    .to_string()
            }
            _ => String::new(),
        };
        errors::plain(message, help)
    }
}

/// A problem's title and detail as one text: `title: detail`, or the detail alone when it
/// says the title again (`authentication required: send …` under `Authentication
/// required`; `a skill named `pdf` is already registered` under `Already registered`);
/// `None` when the problem has neither.
fn problem_text(title: &str, detail: &str) -> Option<String> {
    /// The words of a text, lowercased, each without a plural `s`.
    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| {
                let w = w.to_lowercase();
                match w.strip_suffix('s') {
                    Some(stem) if stem.len() > 2 => stem.to_string(),
                    _ => w,
                }
            })
            .collect()
    }
    let (title, detail) = (title.trim(), detail.trim());
    match (title.is_empty(), detail.is_empty()) {
        (true, true) => None,
        (false, true) => Some(title.to_string()),
        (true, false) => Some(detail.to_string()),
        (false, false) => {
            let detail_words = words(detail);
            let repeated = words(title).iter().all(|w| detail_words.contains(w));
            Some(if repeated {
                detail.to_string()
            } else {
                format!("{title}: {detail}")
            })
        }
    }
}

/// A variable's value, unless unset or blank.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// A registry URL as the client keeps it: trimmed, without trailing slashes.
fn normalize(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

/// Whether two registry URLs name one registry: the same after [`normalize`], the scheme
/// and host compared without case (as URLs compare them), the path with it.
fn same_registry(a: &str, b: &str) -> bool {
    let key = |url: &str| {
        let url = normalize(url);
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url.as_str()));
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        format!(
            "{}://{}/{path}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        )
    };
    key(a) == key(b)
}

/// The lint errors a registry refused a `SKILL.md` for, one per line, as `skills lint`
/// would name them.
fn lint_help(problem: &Value) -> String {
    let lines: Vec<String> = problem
        .get("diagnostics")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|d| d.get("severity").and_then(Value::as_str) == Some("error"))
                .map(|d| {
                    let field = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
                    format!("{}: {}", field("rule"), field("message"))
                })
                .collect()
        })
        .unwrap_or_default();
    format!(
        "fix these and publish again (`skills lint` shows them with their lines):\n{}",
        lines.join("\n")
    )
}

/// Percent-encodes a path segment or query value.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A skill's `SKILL.md` from the registry, checked against the card's `content_version`
/// (its SHA-256): what arrives is what the registry linted.
pub(crate) fn fetch_skill_md(client: &Client, name: &str) -> Result<Vec<u8>, miette::Report> {
    let path = format!("/api/skills/{}", encode(name));
    let card = client.json("GET", &format!("{path}?view=summary"), None)?;
    let expected = card
        .get("content_version")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let content = client.bytes(&format!("{path}/content"))?;
    check_digest(&content, &expected, name)?;
    Ok(content)
}

fn check_digest(content: &[u8], expected: &str, name: &str) -> Result<(), miette::Report> {
    let actual = skills_core::digest::sha256_hex(content);
    if expected.is_empty() || !actual.eq_ignore_ascii_case(expected) {
        return Err(errors::plain(
            format!(
                "{name}: the SKILL.md received (sha256 {actual}) is not the one the registry lists (content_version {expected}); nothing was installed"
            ),
            "try again; if it persists, the registry or something between you and it serves other content",
        ));
    }
    Ok(())
}

/// Whether `source` of `skills install` names a registry skill (NAME or NAME@VERSION)
/// rather than a path or URL.
pub(crate) fn is_skill_name(source: &str) -> bool {
    let (name, version) = split_version(source);
    !name.is_empty()
        && !Path::new(source).exists()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        && version.is_none_or(is_version)
}

/// `NAME@VERSION` as the name and the version; a NAME alone has none.
pub(crate) fn split_version(spec: &str) -> (&str, Option<&str>) {
    match spec.split_once('@') {
        Some((name, version)) => (name, Some(version)),
        None => (spec, None),
    }
}

/// Whether `text` can be a registry version: 1 to 64 of letters, digits, `.`, `_`, `+`,
/// `-`, starting with a letter or digit (the registry's rule).
pub(crate) fn is_version(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
}

/// A hosted skill's version fetched from a registry: every file, each checked against its
/// digest and all against the version's.
pub(crate) struct Downloaded {
    pub(crate) version: String,
    pub(crate) digest: String,
    pub(crate) files: Vec<(String, Vec<u8>, bool)>,
}

/// Whether a path the registry lists is one this client writes: relative, `/`-separated
/// components, none empty, `.` or `..`, no `\`, `:` or control characters. A registry is
/// someone else's server.
fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|c| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && !c.contains(['\\', ':'])
                && !c.chars().any(char::is_control)
        })
}

/// The card of `name` (summary view).
pub(crate) fn card(client: &Client, name: &str) -> Result<Value, miette::Report> {
    client.json(
        "GET",
        &format!("/api/skills/{}?view=summary", encode(name)),
        None,
    )
}

/// `version` (or the latest not yanked) of the hosted skill `name`: every file, each
/// checked against its `sha256:` digest, and the whole against the version's digest (what
/// `skills.lock` records). Nothing is returned that does not match.
pub(crate) fn download(
    client: &Client,
    name: &str,
    version: Option<&str>,
) -> Result<Downloaded, miette::Report> {
    let base = format!(
        "/api/skills/{}/versions/{}",
        encode(name),
        encode(version.unwrap_or("latest"))
    );
    let detail = client.json("GET", &base, None)?;
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let (version, digest) = (text(&detail, "version"), text(&detail, "digest"));
    let listed = detail
        .get("files")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // A skill's limits hold before anything is fetched and while it is: a registry that
    // lists 60 files of 17 MiB had them all held in memory (1.1 GB) before the digest
    // said no.
    let too_big = |what: String| {
        errors::plain(
            format!("{name}@{version}: {what}; nothing was installed"),
            "a skill holds at most 512 files and 16 MiB; the registry serves something else: tell its operator",
        )
    };
    if listed.len() > skills_core::layout::MAX_SKILL_FILES {
        return Err(too_big(format!(
            "the registry lists {} files, over the {} a skill may have",
            listed.len(),
            skills_core::layout::MAX_SKILL_FILES
        )));
    }
    let mut received: u64 = 0;
    let mut files = Vec::new();
    for file in listed {
        let path = text(file, "path");
        if !is_safe_path(&path) {
            return Err(errors::plain(
                format!(
                    "{name}@{version}: the registry lists a file `{}`, which is not a path inside a skill; nothing was installed",
                    crate::render::terminal_safe(&path)
                ),
                "the registry is not a skills registry this client can trust; tell its operator",
            ));
        }
        let url_path: Vec<String> = path.split('/').map(encode).collect();
        let bytes = client.bytes(&format!("{base}/files/{}", url_path.join("/")))?;
        received = received.saturating_add(bytes.len() as u64);
        if received > skills_core::layout::MAX_SKILL_BYTES {
            return Err(too_big(format!(
                "its files are over the {} MiB a skill may hold",
                skills_core::layout::MAX_SKILL_BYTES >> 20
            )));
        }
        let expected = text(file, "digest");
        let actual = format!("sha256:{}", skills_core::digest::sha256_hex(&bytes));
        if actual != expected {
            return Err(errors::plain(
                format!(
                    "{name}@{version}: {path} received ({actual}) is not the one the registry lists ({expected}); nothing was installed"
                ),
                "try again; if it persists, the registry or something between you and it serves other content",
            ));
        }
        let executable = file
            .get("executable")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        files.push((path, bytes, executable));
    }
    let whole = skills_add::bytes_hash(files.iter().map(|(p, b, _)| (p.as_str(), b.as_slice())));
    if whole != digest {
        return Err(errors::plain(
            format!(
                "{name}@{version}: the files received ({whole}) are not the version the registry lists ({digest}); nothing was installed"
            ),
            "try again; if it persists, the registry serves other content than it lists",
        ));
    }
    Ok(Downloaded {
        version,
        digest,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_that_differs_installs_nothing() {
        let digest = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assert!(check_digest(b"hello", digest, "x").is_ok());
        assert!(check_digest(b"hello", &digest.to_uppercase(), "x").is_ok());
        let e = check_digest(b"hellO", digest, "x").unwrap_err();
        assert!(e.to_string().contains("nothing was installed"), "{e}");
        assert!(check_digest(b"hello", "", "x").is_err());
    }

    /// The registry's titles and details said once each (`Authentication required:
    /// authentication required: send …` was doubled).
    #[test]
    fn a_detail_that_repeats_its_title_stands_alone() {
        for (title, detail, text) in [
            (
                "Authentication required",
                "authentication required: send `Authorization: Bearer <token>`",
                "authentication required: send `Authorization: Bearer <token>`",
            ),
            (
                "The token was refused",
                "the token was refused: unknown token",
                "the token was refused: unknown token",
            ),
            (
                "Already registered",
                "a skill named `pdf` is already registered",
                "a skill named `pdf` is already registered",
            ),
            (
                "The SKILL.md has lint errors",
                "the SKILL.md has 2 lint error(s)",
                "the SKILL.md has 2 lint error(s)",
            ),
            (
                "Not found",
                "no skill named `pdf`",
                "Not found: no skill named `pdf`",
            ),
            ("Forbidden", "", "Forbidden"),
            ("", "no skill named `pdf`", "no skill named `pdf`"),
        ] {
            assert_eq!(
                problem_text(title, detail).as_deref(),
                Some(text),
                "{title}"
            );
        }
        assert_eq!(problem_text(" ", ""), None);
    }

    #[test]
    fn names_and_values_are_encoded() {
        assert_eq!(encode("pdf-processing"), "pdf-processing");
        assert_eq!(encode("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn names_are_told_from_paths_and_urls() {
        assert!(is_skill_name("pdf-processing"));
        assert!(!is_skill_name("./pdf"));
        assert!(!is_skill_name("https://example.com/x"));
        assert!(!is_skill_name("pdf.skill"));
        assert!(!is_skill_name(""));
    }
}

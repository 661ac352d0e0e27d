//! The registry's web pages: `/`, the skills found by a search, sorted and paged, with
//! tag filters; `/skills/{name}`, one skill: the command that adds it, its facts (rating,
//! lint, health, times), its files and its rendered `SKILL.md`; `/api/docs`, the API
//! generated from the OpenAPI document; and the pages of errors (401, 404), which say
//! what to do next.
//!
//! Server-rendered HTML (minijinja templates, escaped by default), no script at all. A
//! `SKILL.md` is someone else's text: its Markdown is rendered, then sanitized with ammonia
//! (no script, no event attribute, no `javascript:` link, no raw HTML it does not know),
//! and every page is sent with a Content-Security-Policy that allows no script, so a
//! sanitizer miss still runs nothing.
//!
//! A browser sends no bearer token: the pages show what an anonymous caller may see (public
//! skills with `--public-read`), or what the token of a proxy in front sets.

use std::sync::{Arc, LazyLock};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use minijinja::Environment;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::View;
use crate::service::Registry;
use crate::store::{ListQuery, Sort, Store};

/// What a page may load: its own inline styles and images, nothing that runs.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Skills on one page of the list.
const PAGE: u32 = 24;

/// The last page a list goes to (a position past it is the last page's).
const MAX_PAGE_NUMBER: u32 = 10_000;

/// The orders the list offers, as `(sort, label)`.
const SORTS: [(&str, &str); 4] = [
    ("relevance", "Relevance"),
    ("rating", "Rating"),
    ("updated", "Recently updated"),
    ("name", "Name"),
];

static TEMPLATES: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // Built-in templates: a failure here is a bug the tests catch, and the page then says so.
    for (name, source) in [
        ("layout.html", include_str!("web/layout.html")),
        ("list.html", include_str!("web/list.html")),
        ("skill.html", include_str!("web/skill.html")),
        ("error.html", include_str!("web/error.html")),
        ("docs.html", include_str!("web/docs.html")),
    ] {
        if let Err(e) = env.add_template(name, source) {
            tracing::error!(template = name, error = %e, "web template");
        }
    }
    env
});

/// `GET /`'s query. Anything it does not understand is the default, as a page does not
/// refuse a hand-edited address.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PageParams {
    q: Option<String>,
    tag: Option<String>,
    sort: Option<String>,
    page: Option<String>,
}

fn html(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn render(template: &str, ctx: &impl serde::Serialize) -> Result<String, RegistryError> {
    TEMPLATES
        .get_template(template)
        .and_then(|t| t.render(minijinja::value::Serde(ctx)))
        .map_err(|e| RegistryError::Internal(format!("template {template}: {e}")))
}

/// One thing to do next on an error page: words, a command, a link.
#[derive(Debug, Default, Serialize)]
struct Step {
    text: String,
    code: Option<String>,
    href: Option<String>,
    link: Option<String>,
}

impl Step {
    fn says(text: &str) -> Self {
        Self {
            text: text.to_string(),
            ..Self::default()
        }
    }

    fn code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    fn link(mut self, href: impl Into<String>, link: &str) -> Self {
        self.href = Some(href.into());
        self.link = Some(link.to_string());
        self
    }
}

/// The registry as the browser reached it (`Host`, and `X-Forwarded-Proto` from a proxy
/// that ends TLS), for the commands a page shows.
fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("127.0.0.1:8470");
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"));
    format!("{}://{host}", if https { "https" } else { "http" })
}

/// A styled page for an error, with what to do next: the same words as the API's problem
/// where there is one.
fn error_page<S: Store>(
    registry: &Registry<S>,
    error: &RegistryError,
    headers: &HeaderMap,
    mut next: Vec<Step>,
) -> Response {
    let base = base_url(headers);
    let (status, title, message) = match error {
        RegistryError::NotFound(_) => (
            StatusCode::NOT_FOUND,
            "Not found",
            sentence(&error.to_string()),
        ),
        RegistryError::Unauthorized | RegistryError::InvalidToken(_) => {
            next = vec![
                Step::says("Ask the registry's operator for a token; on the server,")
                    .code("skills registry token create --user NAME"),
                Step::says("Use the API or the skills command with it:").code(format!(
                    "curl -H \"Authorization: Bearer $TOKEN\" {base}/api/skills"
                )),
                Step::says("or").code(format!(
                    "SKILLS_REGISTRY={base} SKILLS_REGISTRY_TOKEN=$TOKEN skills search"
                )),
                Step::says("Or ask the operator to turn on anonymous reads (")
                    .code("--public-read"),
                Step::says("").link("/api/docs", "The API's documentation"),
            ];
            (
                StatusCode::UNAUTHORIZED,
                "Sign-in needed",
                "This registry shows its skills to people with a token only, and a browser sends none.".to_string(),
            )
        }
        RegistryError::Invalid(_) => (
            StatusCode::BAD_REQUEST,
            "Not a request this registry understands",
            error.to_string(),
        ),
        _ => {
            tracing::error!(error = %error, "web page");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "The registry could not answer",
                "Something failed on the server; its log says what. Try again in a moment."
                    .to_string(),
            )
        }
    };
    if next.is_empty() {
        next.push(Step::says("").link("/", "See every skill"));
    }
    let page = render(
        "error.html",
        &serde_json::json!({
            "registry": registry.config().name,
            "q": "",
            "title": title,
            "message": message,
            "next": next,
        }),
    );
    match page {
        Ok(body) => html(status, body),
        // The templates are built in; a failure is a bug, and the answer still says what.
        Err(_) => html(status, escape(&message)),
    }
}

/// `text` with its first letter capital, as a page's sentence starts.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The order a page asks for; anything else is relevance.
fn sort_of(text: Option<&str>) -> Sort {
    match text {
        Some("rating") => Sort::Rating,
        Some("updated") => Sort::Updated,
        Some("name") => Sort::Name,
        _ => Sort::Relevance,
    }
}

/// `GET /`: the skills the caller may see, found by `q`, filtered by `tag`, sorted, paged.
pub(crate) async fn list_page<S: Store>(
    registry: Arc<Registry<S>>,
    caller: Caller,
    params: PageParams,
    headers: &HeaderMap,
) -> Response {
    match list_html(&registry, &caller, params).await {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => error_page(&registry, &e, headers, Vec::new()),
    }
}

async fn list_html<S: Store>(
    registry: &Registry<S>,
    caller: &Caller,
    params: PageParams,
) -> Result<String, RegistryError> {
    let q = params.q.unwrap_or_default().trim().to_string();
    let tag = params.tag.filter(|t| !t.trim().is_empty());
    let sort = sort_of(params.sort.as_deref());
    let page = params
        .page
        .and_then(|p| p.trim().parse::<u32>().ok())
        .unwrap_or(1)
        .clamp(1, MAX_PAGE_NUMBER);
    let mut query = ListQuery {
        q: Some(q.clone()).filter(|q| !q.is_empty()),
        tag: tag.clone(),
        sort,
        limit: PAGE,
        ..ListQuery::default()
    };
    let total = registry.count(caller, &query).await?;
    let pages = u32::try_from(total.div_ceil(u64::from(PAGE)))
        .unwrap_or(MAX_PAGE_NUMBER)
        .clamp(1, MAX_PAGE_NUMBER);
    let page = page.min(pages);
    query.offset = (page - 1).saturating_mul(PAGE);
    let (cards, _) = registry.list(caller, &query).await?;
    let mut tags: Vec<&str> = cards
        .iter()
        .flat_map(|c| c.tags.iter().map(String::as_str))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    let skills: Vec<crate::model::Viewed<'_>> =
        cards.iter().map(|c| c.view(View::Card, None)).collect();
    render(
        "list.html",
        &serde_json::json!({
            "registry": registry.config().name,
            "q": q,
            "tag": tag,
            "sort": sort.as_str(),
            "sorts": SORTS,
            "tags": tags,
            "skills": skills,
            "total": total,
            "page": page,
            "pages": pages,
        }),
    )
}

/// `GET /skills/{name}`: one skill, its `SKILL.md` rendered and sanitized.
pub(crate) async fn skill_page<S: Store>(
    registry: Arc<Registry<S>>,
    caller: Caller,
    name: String,
    headers: &HeaderMap,
) -> Response {
    match skill_html(&registry, &caller, &name, headers).await {
        Ok(body) => html(StatusCode::OK, body),
        Err(e @ RegistryError::NotFound(_)) => {
            // Skills of a close name (a typo) or about it, as a search finds them.
            let query = ListQuery {
                q: Some(name.clone()),
                limit: 3,
                ..ListQuery::default()
            };
            let close = registry
                .list(&caller, &query)
                .await
                .map(|(cards, _)| cards)
                .unwrap_or_default();
            let mut next: Vec<Step> = close
                .iter()
                .map(|card| {
                    Step::says("Did you mean")
                        .link(format!("/skills/{}", urlencode(&card.name)), &card.name)
                })
                .collect();
            next.push(
                Step::says("Search the skills for it:")
                    .link(format!("/?q={}", urlencode(&name)), &format!("“{name}”")),
            );
            next.push(Step::says("").link("/", "See every skill"));
            error_page(&registry, &e, headers, next)
        }
        Err(e) => error_page(&registry, &e, headers, Vec::new()),
    }
}

/// A time for a page: RFC 3339 for machines, how long ago for people.
fn when(iso: &str, now: ::time::OffsetDateTime) -> Value {
    serde_json::json!({"iso": iso, "ago": crate::time::ago(iso, now)})
}

/// Bytes as people read them: `812 B`, `4.2 KiB`, `1.5 MiB`.
fn human_size(bytes: usize) -> String {
    #[allow(clippy::cast_precision_loss)] // a file's size, shown to one decimal
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    }
}

/// A path segment percent-encoded (all but unreserved characters).
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

async fn skill_html<S: Store>(
    registry: &Registry<S>,
    caller: &Caller,
    name: &str,
    headers: &HeaderMap,
) -> Result<String, RegistryError> {
    let card = registry.rating(caller, name).await?;
    let (content, _) = registry.content(caller, name).await?;
    // The rules registration ran: the warnings it let through, and errors a newer rule
    // finds in what was registered before it.
    let (findings, _) = crate::service::lint_skill_md(content.as_bytes(), Some(&card.name))?;
    let errors = findings
        .iter()
        .filter(|d| d.severity == skills_lint::Severity::Error)
        .count();
    let lint = serde_json::json!({
        "errors": errors,
        "warnings": findings.len() - errors,
        "findings": findings.iter().map(|d| serde_json::json!({
            "rule": d.rule.as_str(),
            "message": d.message,
            "line": d.start.map(|p| p.line),
        })).collect::<Vec<_>>(),
    });
    let size = content.len();
    let body = skills_frontmatter::SkillMd::parse(content.as_bytes())
        .map(|md| md.body().to_string())
        .unwrap_or(content);
    // A hosted skill's versions and its latest version's files, each linked with its size;
    // a skill registered by URL has the one file the registry keeps.
    let (versions, files, archive) = if card.hosted {
        let versions = registry.versions(caller, name).await?;
        match registry.version(caller, name, "latest").await {
            Ok(detail) => {
                let files = detail
                    .files
                    .iter()
                    .map(|f| {
                        serde_json::json!({
                            "path": f.path,
                            "size": human_size(usize::try_from(f.size).unwrap_or(0)),
                            "href": format!(
                                "/api/skills/{}/versions/{}/files/{}",
                                encode_segment(&card.name),
                                encode_segment(&detail.version.version),
                                f.path.split('/').map(encode_segment).collect::<Vec<_>>().join("/")
                            ),
                        })
                    })
                    .collect::<Vec<_>>();
                let archive = serde_json::json!({
                    "href": format!(
                        "/api/skills/{}/versions/{}/archive",
                        encode_segment(&card.name),
                        encode_segment(&detail.version.version)
                    ),
                    "name": format!("{}-{}.skill", card.name, detail.version.version),
                });
                (versions, files, Some(archive))
            }
            Err(RegistryError::NotFound(_)) => (versions, Vec::new(), None),
            Err(e) => return Err(e),
        }
    } else {
        (
            Vec::new(),
            vec![
                serde_json::json!({"path": skills_core::layout::SKILL_MD, "size": human_size(size), "href": null}),
            ],
            None,
        )
    };
    let versions: Vec<_> = versions
        .iter()
        .rev()
        .map(|v| {
            serde_json::json!({
                "version": v.version,
                "digest": v.digest,
                "yanked": v.yanked,
                "published": when(&v.published_at, crate::time::now()),
            })
        })
        .collect();
    let source = Some(card.skill_md_url.clone()).filter(|u| {
        let lower = u.to_ascii_lowercase();
        lower.starts_with("https://") || lower.starts_with("http://")
    });
    let now = crate::time::now();
    render(
        "skill.html",
        &serde_json::json!({
            "registry": registry.config().name,
            "q": "",
            "tag": null,
            "s": card.view(View::Summary, None),
            "ratings": card.rating_details.len(),
            "add": format!("skills add {} --registry {}", card.name, base_url(headers)),
            "lint": lint,
            "updated": when(&card.content_updated_at, now),
            "created": when(&card.created_at, now),
            "checked": card.last_checked_time.as_deref().map(|t| when(t, now)),
            "source": source,
            "versions": versions,
            "files": files,
            "archive": archive,
            "body": markdown_to_safe_html(&body),
        }),
    )
}

/// A path segment or query value, percent-encoded.
fn urlencode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The page of a path nothing is routed to, for a browser (the API's callers get a
/// problem).
pub(crate) fn not_found_page<S: Store>(
    registry: &Registry<S>,
    path: &str,
    headers: &HeaderMap,
) -> Response {
    let error = RegistryError::NotFound(path.to_string());
    let next = vec![
        Step::says("").link("/", "See every skill"),
        Step::says("").link("/api/docs", "The API's documentation"),
    ];
    let mut response = error_page(registry, &error, headers, next);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// `GET /api/docs`: the OpenAPI document as a page for people.
pub(crate) fn api_docs_page<S: Store>(registry: &Registry<S>) -> Response {
    match api_docs_html(&registry.config().name) {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => error_page(registry, &e, &HeaderMap::new(), Vec::new()),
    }
}

/// A schema in a few words: a name it refers to, a list of one, a choice of values.
fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference
            .rsplit('/')
            .next()
            .unwrap_or(reference)
            .to_string();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        return format!("one of {}", values.join(", "));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(choices) = schema.get(key).and_then(Value::as_array) {
            return choices.iter().map(type_of).collect::<Vec<_>>().join(" or ");
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!(
                "list of {}",
                schema.get("items").map_or_else(String::new, type_of)
            )
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_string(),
    }
}

/// The schema of a body or an answer: of its first media type.
fn content_type_of(item: &Value) -> Option<String> {
    let content = item.get("content")?.as_object()?;
    let (media, body) = content.iter().next()?;
    let schema = body.get("schema").map(type_of).unwrap_or_default();
    Some(if schema.is_empty() || schema == "string" {
        media.clone()
    } else {
        format!("{media}: {schema}")
    })
}

fn api_docs_html(registry: &str) -> Result<String, RegistryError> {
    let doc: Value = serde_json::from_str(crate::http::OPENAPI)
        .map_err(|e| RegistryError::Internal(format!("openapi.json: {e}")))?;
    // Descriptions are CommonMark (OpenAPI says so): rendered and sanitized as a SKILL.md.
    let prose = |v: &Value, key: &str| {
        markdown_to_safe_html(v.get(key).and_then(Value::as_str).unwrap_or_default())
    };
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let parameter = |p: &Value| {
        serde_json::json!({
            "name": text(p, "name"),
            "in": text(p, "in"),
            "required": p.get("required").and_then(Value::as_bool).unwrap_or(false),
            "type": p.get("schema").map(type_of).unwrap_or_default(),
            "description": prose(p, "description"),
        })
    };
    let mut operations = Vec::new();
    for (path, item) in doc
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let shared: Vec<Value> = item
            .get("parameters")
            .and_then(Value::as_array)
            .map(|ps| ps.iter().map(parameter).collect())
            .unwrap_or_default();
        for method in ["get", "post", "put", "delete"] {
            let Some(op) = item.get(method) else { continue };
            let mut parameters = shared.clone();
            parameters.extend(
                op.get("parameters")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(parameter),
            );
            let responses: Vec<Value> = op
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(status, r)| {
                    serde_json::json!({
                        "status": status,
                        "description": text(r, "description"),
                        "schema": content_type_of(r),
                    })
                })
                .collect();
            let public = op
                .get("security")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty);
            let id = text(op, "operationId");
            operations.push(serde_json::json!({
                "id": if id.is_empty() { format!("{method}-{path}") } else { id },
                "method": method.to_uppercase(),
                "path": path,
                "summary": text(op, "summary"),
                "description": prose(op, "description"),
                "public": public,
                "parameters": parameters,
                "body": op.get("requestBody").and_then(content_type_of),
                "responses": responses,
            }));
        }
    }
    let schemas: Vec<Value> = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, schema)| {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let fields: Vec<Value> = schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(field, s)| {
                    serde_json::json!({
                        "name": field,
                        "type": type_of(s),
                        "required": required.contains(&field.as_str()),
                        "description": prose(s, "description"),
                    })
                })
                .collect();
            serde_json::json!({
                "name": name,
                "description": prose(schema, "description"),
                "fields": fields,
            })
        })
        .collect();
    let info = doc.get("info").cloned().unwrap_or(Value::Null);
    render(
        "docs.html",
        &serde_json::json!({
            "registry": registry,
            "q": "",
            "title": text(&info, "title"),
            "description": prose(&info, "description"),
            "openapi": text(&doc, "openapi"),
            "operations": operations,
            "schemas": schemas,
        }),
    )
}

/// Markdown to HTML that runs nothing: rendered, then sanitized.
pub fn markdown_to_safe_html(markdown: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let parser = Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    );
    let mut rendered = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut rendered, parser);
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(&rendered)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_markdown_renders_inert() {
        let out = markdown_to_safe_html(
            "# Title\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\n<img src=x onerror=alert(1)>\n\n<a href=\"#\" onclick=\"alert(1)\">a</a>\n\n<iframe src=\"https://evil.example\"></iframe>\n\n`<b>code</b>`\n",
        );
        for bad in ["<script", "javascript:", "onerror", "onclick", "<iframe"] {
            assert!(!out.contains(bad), "{bad} in {out}");
        }
        assert!(out.contains("<h1>Title</h1>"), "{out}");
        assert!(
            out.contains("<code>&lt;b&gt;code&lt;/b&gt;</code>"),
            "{out}"
        );
    }

    #[test]
    fn the_templates_render() {
        let list = render(
            "list.html",
            &serde_json::json!({"registry": "r", "q": "a b", "tag": "t", "tags": ["t", "u"],
                "sort": "rating", "sorts": SORTS, "total": 30, "page": 2, "pages": 3,
                "skills": [{"name": "x", "description": "d", "num_stars": 1.5,
                    "health_status": "unknown", "visibility": "public", "registry_name": "p",
                    "tags": ["t"]}, {"name": "y", "description": "e", "num_stars": 0.0,
                    "health_status": "healthy", "visibility": "public", "registry_name": "r",
                    "tags": []}]}),
        );
        let list = list.unwrap_or_else(|e| e.to_string());
        for expected in [
            "30 skills matching “a b” tagged t · page 2 of 3",
            "href=\"/?q=a%20b&amp;tag=t&amp;sort=rating&amp;page=3\">Next →",
            "href=\"/?q=a%20b&amp;tag=t&amp;sort=rating&amp;page=1\">← Previous",
            "href=\"/?q=a%20b&amp;tag=t&amp;page=1\">Relevance",
            "href=\"/?q=a%20b&amp;tag=t&amp;sort=updated&amp;page=1\">Recently updated",
            "aria-current=\"true\">Rating",
            "href=\"/?q=a%20b&amp;sort=rating&amp;page=1\" title=\"Remove the filter\"",
            "from p",
            "★ 1.5",
            "Not rated",
            "name=\"sort\" value=\"rating\"",
        ] {
            assert!(list.contains(expected), "{expected}\n{list}");
        }
        assert!(!list.contains("★ 0.0"), "{list}");
        let skill = render(
            "skill.html",
            &serde_json::json!({"registry": "r", "q": "", "tag": null, "ratings": 1,
                "s": {"name": "x", "description": "d", "num_stars": 4.0,
                    "health_status": "healthy", "visibility": "public", "registry_name": "r",
                    "owner": "o", "tags": [], "allowed_tools": [{"tool_name": "Bash",
                    "capabilities": ["git:*"]}], "content_version": "0123456789abcdef"},
                "add": "skills add x --registry http://h", "source": null, "body": "<p>b</p>",
                "lint": {"errors": 0, "warnings": 1, "findings": [{"rule": "body-too-long",
                    "message": "long", "line": 3}]},
                "updated": {"iso": "2026-11-25T00:00:00Z", "ago": "2 days ago"},
                "created": {"iso": "2026-11-20T00:00:00Z", "ago": "7 days ago"},
                "checked": null, "files": [{"path": "SKILL.md", "size": "1.2 KiB"}]}),
        );
        let skill = skill.unwrap_or_else(|e| e.to_string());
        for expected in [
            "★ 4.0 from 1 rating",
            "Bash(git:*)",
            // (minijinja escapes `/` too)
            "skills add x --registry http:&#x2f;&#x2f;h",
            "1 warning",
            "<code>body-too-long</code> long (line 3)",
            "<time datetime=\"2026-11-25T00:00:00Z\" title=\"2026-11-25T00:00:00Z\">2 days ago</time>",
            "sha256:0123456789ab<",
            "audit: not run",
            "1.2 KiB",
        ] {
            assert!(skill.contains(expected), "{expected}\n{skill}");
        }
    }

    #[test]
    fn sizes_and_sorts_read_as_people_write_them() {
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(4300), "4.2 KiB");
        assert_eq!(human_size(1_572_864), "1.5 MiB");
        assert_eq!(sort_of(Some("rating")), Sort::Rating);
        assert_eq!(sort_of(Some("sideways")), Sort::Relevance);
        assert_eq!(urlencode("a b/ü"), "a%20b%2F%C3%BC");
    }

    #[test]
    fn the_api_page_has_every_endpoint_of_the_document() {
        let page = api_docs_html("r").unwrap();
        for (method, path) in crate::http::ENDPOINTS {
            if method != "HEAD" {
                assert!(
                    // (minijinja escapes `/` too)
                    page.contains(&format!(
                        "<span class=\"method\">{method}</span> {}</h3>",
                        path.replace('/', "&#x2f;")
                    )),
                    "{method} {path}"
                );
            }
        }
        assert!(page.contains("id=\"schema-SkillList\""), "{page}");
        assert!(!page.to_lowercase().contains("seed 001"), "{page}");
    }
}

//! The registry's web pages: `/`, the skills with a search box and tag filters, and
//! `/skills/{name}`, one skill's summary, its rendered `SKILL.md`, rating, health and the
//! command that installs it.
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
use serde::Deserialize;

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::View;
use crate::service::Registry;
use crate::store::{ListQuery, Store};

/// What a page may load: its own inline styles and images, nothing that runs.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Skills on one page of the list.
const PAGE: u32 = 48;

static TEMPLATES: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // Built-in templates: a failure here is a bug the tests catch, and the page then says so.
    for (name, source) in [
        ("layout.html", include_str!("web/layout.html")),
        ("list.html", include_str!("web/list.html")),
        ("skill.html", include_str!("web/skill.html")),
    ] {
        if let Err(e) = env.add_template(name, source) {
            tracing::error!(template = name, error = %e, "web template");
        }
    }
    env
});

/// `GET /` and `GET /skills/{name}`'s query.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PageParams {
    q: Option<String>,
    tag: Option<String>,
    cursor: Option<String>,
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

/// A page for an error: the same words as the API's problem, as HTML.
fn error_page<S: Store>(registry: &Registry<S>, error: &RegistryError) -> Response {
    let (status, message) = match error {
        RegistryError::NotFound(_) => (StatusCode::NOT_FOUND, error.to_string()),
        RegistryError::Unauthorized | RegistryError::InvalidToken(_) => (
            StatusCode::UNAUTHORIZED,
            "This registry shows its skills to signed-in users only: use its API with a token, or ask its operator for --public-read.".to_string(),
        ),
        RegistryError::Invalid(_) => (StatusCode::BAD_REQUEST, error.to_string()),
        _ => {
            tracing::error!(error = %error, "web page");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "The registry could not answer; its log says why.".to_string(),
            )
        }
    };
    let body = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><p>{}</p><p><a href=\"/\">All skills</a></p>",
        escape(&registry.config().name),
        escape(&message)
    );
    html(status, body)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `GET /`: the skills the caller may see, filtered by `q` and `tag`.
pub(crate) async fn list_page<S: Store>(
    registry: Arc<Registry<S>>,
    caller: Caller,
    params: PageParams,
) -> Response {
    match list_html(&registry, &caller, params).await {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => error_page(&registry, &e),
    }
}

async fn list_html<S: Store>(
    registry: &Registry<S>,
    caller: &Caller,
    params: PageParams,
) -> Result<String, RegistryError> {
    let q = params.q.unwrap_or_default().trim().to_string();
    let tag = params.tag.filter(|t| !t.trim().is_empty());
    let after = match params.cursor.as_deref() {
        Some(cursor) => Some(crate::cursor::decode(cursor)?),
        None => None,
    };
    let query = ListQuery {
        q: Some(q.clone()).filter(|q| !q.is_empty()),
        tag: tag.clone(),
        after,
        limit: PAGE,
        ..ListQuery::default()
    };
    let (cards, next) = registry.list(caller, &query).await?;
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
            "tags": tags,
            "skills": skills,
            "next": next.as_deref().map(crate::cursor::encode),
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
        Err(e) => error_page(&registry, &e),
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
    let body = skills_frontmatter::SkillMd::parse(content.as_bytes())
        .map(|md| md.body().to_string())
        .unwrap_or(content);
    // The registry as the browser reached it, for the command to copy.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("127.0.0.1:8470");
    // A hosted skill's files: its latest version's, each linked with its size.
    let files = if card.hosted {
        match registry.version(caller, name, "latest").await {
            Ok(detail) => Some(serde_json::json!({
                "version": detail.version.version,
                "archive": format!("/api/skills/{}/versions/{}/archive", card.name, detail.version.version),
                "list": detail.files.iter().map(|f| serde_json::json!({
                    "path": f.path,
                    "size": f.size,
                    "href": format!(
                        "/api/skills/{}/versions/{}/files/{}",
                        card.name,
                        detail.version.version,
                        f.path.split('/').map(encode_segment).collect::<Vec<_>>().join("/")
                    ),
                })).collect::<Vec<_>>(),
            })),
            Err(RegistryError::NotFound(_)) => None,
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    let source = Some(card.skill_md_url.clone()).filter(|u| {
        let lower = u.to_ascii_lowercase();
        lower.starts_with("https://") || lower.starts_with("http://")
    });
    render(
        "skill.html",
        &serde_json::json!({
            "registry": registry.config().name,
            "q": "",
            "tag": null,
            "s": card.view(View::Summary, None),
            "ratings": card.rating_details.len(),
            "install": format!("SKILLS_REGISTRY=http://{host} skills install {}", card.name),
            "source": source,
            "files": files,
            "body": markdown_to_safe_html(&body),
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
                "skills": [{"name": "x", "description": "d", "num_stars": 1.5,
                    "health_status": "unknown", "visibility": "public", "registry_name": "p",
                    "tags": ["t"]}],
                "next": "abc"}),
        );
        let list = list.unwrap_or_else(|e| e.to_string());
        assert!(
            list.contains("href=\"/?cursor=abc&amp;q=a%20b&amp;tag=t\""),
            "{list}"
        );
        assert!(list.contains("from p"), "{list}");
        let skill = render(
            "skill.html",
            &serde_json::json!({"registry": "r", "q": "", "tag": null, "ratings": 1,
                "s": {"name": "x", "description": "d", "num_stars": 4.0,
                    "health_status": "healthy", "visibility": "public", "registry_name": "r",
                    "owner": "o", "tags": [], "allowed_tools": [{"tool_name": "Bash",
                    "capabilities": ["git:*"]}], "content_updated_at": "2026-11-25T00:00:00Z"},
                "install": "skills install x", "source": null, "body": "<p>b</p>"}),
        );
        let skill = skill.unwrap_or_else(|e| e.to_string());
        assert!(
            skill.contains("★ 4.0 (1 rating)") && skill.contains("Bash(git:*)"),
            "{skill}"
        );
    }
}

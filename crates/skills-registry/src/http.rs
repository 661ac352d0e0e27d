//! The HTTP API: seed 001's endpoints over axum, errors as `application/problem+json`
//! (RFC 9457) with one stable `type` per kind.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, post, put};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::View;
use crate::service::{Registration, Registry};
use crate::store::{ListQuery, Store};

/// The largest page a list returns.
pub const MAX_PAGE: u32 = 200;
/// The page size when none is asked for.
pub const DEFAULT_PAGE: u32 = 50;

/// The OpenAPI 3.1 document of this API, served at `/api/openapi.json` (and checked in as
/// `docs/registry-openapi.json`).
pub const OPENAPI: &str = include_str!("openapi.json");

/// Every endpoint of the API and the pages the router serves, as `(method, path
/// template)`: what tests hold the OpenAPI document and the router to. Beside them, `/mcp`
/// speaks MCP (Streamable HTTP), not REST; `docs/registry.md` documents it.
pub const ENDPOINTS: [(&str, &str); 31] = [
    ("GET", "/"),
    ("GET", "/skills/{name}"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/api/openapi.json"),
    ("GET", "/api/docs"),
    ("GET", "/api/skills"),
    ("POST", "/api/skills"),
    ("GET", "/api/skills/{name}"),
    ("PUT", "/api/skills/{name}"),
    ("DELETE", "/api/skills/{name}"),
    ("PUT", "/api/skills/{name}/enable"),
    ("PUT", "/api/skills/{name}/disable"),
    ("GET", "/api/skills/{name}/health"),
    ("GET", "/api/skills/{name}/content"),
    ("GET", "/api/skills/{name}/audit"),
    ("GET", "/api/skills/{name}/tools"),
    ("GET", "/api/skills/{name}/rating"),
    ("POST", "/api/skills/{name}/rate"),
    ("GET", "/api/skills/{name}/versions"),
    ("POST", "/api/skills/{name}/versions"),
    ("GET", "/api/skills/{name}/versions/{version}"),
    ("DELETE", "/api/skills/{name}/versions/{version}"),
    ("PUT", "/api/skills/{name}/versions/{version}/yank"),
    ("DELETE", "/api/skills/{name}/versions/{version}/yank"),
    ("GET", "/api/skills/{name}/versions/{version}/archive"),
    ("GET", "/api/skills/{name}/versions/{version}/files/{*path}"),
    ("GET", "/.well-known/agent-skills/index.json"),
    ("HEAD", "/healthz"),
    ("HEAD", "/readyz"),
    ("HEAD", "/.well-known/agent-skills/index.json"),
];

/// What [`router`] routes beside `/mcp`, as `(method, path template, handler)`: built from
/// this table alone, so a test can hold it to [`ENDPOINTS`] (and so to the OpenAPI document).
type Routes<S> = Vec<(&'static str, &'static str, MethodRouter<Arc<Registry<S>>>)>;

fn routes<S: Store>() -> Routes<S> {
    vec![
        ("GET", "/", get(list_page::<S>)),
        ("GET", "/skills/{name}", get(skill_page::<S>)),
        ("GET", "/healthz", get(|| async { "ok\n" })),
        ("GET", "/readyz", get(ready::<S>)),
        (
            "GET",
            "/api/openapi.json",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }),
        ),
        ("GET", "/api/docs", get(api_docs::<S>)),
        ("GET", "/api/skills", get(list::<S>)),
        ("POST", "/api/skills", post(register::<S>)),
        ("GET", "/api/skills/{name}", get(show::<S>)),
        ("PUT", "/api/skills/{name}", put(update::<S>)),
        ("DELETE", "/api/skills/{name}", delete(delete_skill::<S>)),
        ("PUT", "/api/skills/{name}/enable", put(enable::<S>)),
        ("PUT", "/api/skills/{name}/disable", put(disable::<S>)),
        ("GET", "/api/skills/{name}/health", get(health::<S>)),
        ("GET", "/api/skills/{name}/content", get(content::<S>)),
        ("GET", "/api/skills/{name}/audit", get(audit::<S>)),
        ("GET", "/api/skills/{name}/tools", get(tools::<S>)),
        ("GET", "/api/skills/{name}/rating", get(rating::<S>)),
        ("POST", "/api/skills/{name}/rate", post(rate::<S>)),
        ("GET", "/api/skills/{name}/versions", get(versions::<S>)),
        ("POST", "/api/skills/{name}/versions", post(publish::<S>)),
        (
            "GET",
            "/api/skills/{name}/versions/{version}",
            get(version::<S>),
        ),
        (
            "DELETE",
            "/api/skills/{name}/versions/{version}",
            delete(unpublish::<S>),
        ),
        (
            "PUT",
            "/api/skills/{name}/versions/{version}/yank",
            put(yank::<S>),
        ),
        (
            "DELETE",
            "/api/skills/{name}/versions/{version}/yank",
            delete(unyank::<S>),
        ),
        (
            "GET",
            "/api/skills/{name}/versions/{version}/archive",
            get(archive::<S>),
        ),
        (
            "GET",
            "/api/skills/{name}/versions/{version}/files/{*path}",
            get(file::<S>),
        ),
        (
            "GET",
            "/.well-known/agent-skills/index.json",
            get(discovery::<S>),
        ),
    ]
}

/// The router for `registry`: every endpoint, `/healthz` and `/readyz`. When the state
/// directory cannot be prepared (see [`try_router`]), the error is logged and each `/mcp`
/// request answers it (`500`).
pub fn router<S: Store>(registry: Arc<Registry<S>>) -> Router {
    let config = registry.config();
    let views = crate::mcp::Views::open_or_broken(config.mcp.clone(), config.state_dir.as_deref());
    routes_with(registry, views)
}

/// As [`router`], failing when the state directory
/// ([`RegistryConfig::state_dir`](crate::RegistryConfig::state_dir)) cannot be prepared:
/// made, locked, and its MCP views left by an earlier run removed.
///
/// # Errors
///
/// [`RegistryError::Internal`] naming the directory and the cause: it cannot be made or
/// emptied, or another server holds it.
pub fn try_router<S: Store>(
    registry: Arc<Registry<S>>,
) -> std::result::Result<Router, RegistryError> {
    let config = registry.config();
    let state_dir = config.state_dir.as_deref();
    let views = crate::mcp::Views::open(config.mcp.clone(), state_dir).map_err(|e| {
        let dir = state_dir
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        RegistryError::Internal(format!("state directory {dir}: {e}"))
    })?;
    Ok(routes_with(registry, views))
}

/// [`try_router`] for an [`AnyStore`](crate::AnyStore), the store `skills registry serve`
/// opens. Not generic, so the handlers are compiled in this crate once, not again in each
/// binary that serves them (docs/performance.md, "Building").
///
/// # Errors
///
/// As [`try_router`].
pub fn try_router_any(
    registry: Arc<Registry<crate::AnyStore>>,
) -> std::result::Result<Router, RegistryError> {
    try_router(registry)
}

fn routes_with<S: Store>(registry: Arc<Registry<S>>, views: crate::mcp::Views) -> Router {
    let views = Arc::new(views);
    routes::<S>()
        .into_iter()
        // Methods of one path are merged by axum (and a method routed twice panics).
        .fold(Router::new(), |router, (_, path, handler)| {
            router.route(path, handler)
        })
        .fallback(fallback::<S>)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&registry),
            read_whole_body::<S>,
        ))
        // After the layer: MCP bodies have their own bound, and SSE answers stream.
        .route(
            "/mcp",
            axum::routing::any(mcp::<S>).layer(axum::Extension(views)),
        )
        .with_state(registry)
}

/// `/mcp`: the MCP endpoint of the caller's view (`mcp.rs`).
async fn mcp<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    axum::Extension(views): axum::Extension<Arc<crate::mcp::Views>>,
    Auth(caller): Auth,
    request: axum::extract::Request,
) -> Result<Response> {
    let started = std::time::Instant::now();
    let method = request.method().clone();
    let response = crate::mcp::handle(&registry, &views, &caller, request).await?;
    tracing::info!(
        "{method} /mcp {} {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    Ok(response)
}

/// The largest request body: a registration or a rating is a few hundred bytes.
pub const MAX_BODY: usize = 64 * 1024;

/// Reads each request's body whole before routing, and logs the request once answered. A handler that answers without reading
/// it (an error, an endpoint that takes none) would otherwise leave bytes on a keep-alive
/// connection, and the server would close it under a client about to reuse it.
async fn read_whole_body<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let started = std::time::Instant::now();
    let (parts, body) = request.into_parts();
    let (method, path) = (parts.method.clone(), parts.uri.path().to_string());
    // A publication is a skill's archive; everything else a few hundred bytes. Only a
    // request whose token is valid may send an archive's worth: one without a token is
    // refused by the publication anyway, and one with a made-up token is refused here,
    // before its body is read (each held 17 MiB of memory first).
    let limit = if method == axum::http::Method::POST && path.ends_with("/versions") {
        match uploader(&registry, &parts.headers).await {
            Ok(true) => Ok(crate::service::MAX_UPLOAD),
            Ok(false) => Ok(MAX_BODY),
            Err(problem) => Err(problem),
        }
    } else {
        Ok(MAX_BODY)
    };
    let read = match limit {
        Ok(limit) => axum::body::to_bytes(body, limit)
            .await
            .map_err(|e| (e, limit)),
        Err(problem) => {
            let response = problem.into_response();
            tracing::info!(
                "{method} {path} {} {:.1} ms",
                response.status().as_u16(),
                started.elapsed().as_secs_f64() * 1000.0
            );
            return response;
        }
    };
    let response = match read {
        Ok(bytes) => {
            next.run(axum::extract::Request::from_parts(
                parts,
                axum::body::Body::from(bytes),
            ))
            .await
        }
        // The deadline of serve_router (skills-mcp-server's listen.rs): a client sending
        // its body too slowly.
        Err((error, _)) if timed_out(&error) => Problem {
            status: StatusCode::REQUEST_TIMEOUT,
            kind: "timeout",
            title: "Request body too slow",
            detail: "the request body did not arrive in time".to_string(),
            extra: None,
        }
        .into_response(),
        Err((_, limit)) => Problem {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            kind: "too-large",
            title: "Request body too large",
            detail: format!("request bodies are limited to {limit} bytes"),
            extra: None,
        }
        .into_response(),
    };
    // One line a request (seen with `skills registry serve -v`); the query is left out, it
    // may name what a caller searched for.
    tracing::info!(
        "{method} {path} {} {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// Whether the request may upload an archive: `true` for a valid token, `false` without
/// one; a token that is malformed, unknown or revoked is its 401 problem.
async fn uploader<S: Store>(
    registry: &Registry<S>,
    headers: &axum::http::HeaderMap,
) -> std::result::Result<bool, Problem> {
    Ok(caller_of(registry, headers)
        .await?
        .is_some_and(|caller| caller.user.is_some()))
}

/// The caller `Authorization: Bearer <token>` names: `None` without the header; a token
/// that is malformed, unknown or revoked is its 401 problem.
async fn caller_of<S: Store>(
    registry: &Registry<S>,
    headers: &axum::http::HeaderMap,
) -> std::result::Result<Option<Caller>, Problem> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(bearer_token)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Problem::from(RegistryError::Unauthorized))?;
    match registry.authenticate(token).await? {
        Some(caller) => Ok(Some(caller)),
        None => Err(RegistryError::InvalidToken("the token is unknown or revoked".into()).into()),
    }
}

/// Whether reading a body failed on its deadline (a `TimedOut` I/O error in the chain).
fn timed_out(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(error);
    while let Some(e) = cause {
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        cause = e.source();
    }
    false
}

/// An RFC 9457 problem.
#[derive(Debug)]
struct Problem {
    status: StatusCode,
    kind: &'static str,
    title: &'static str,
    detail: String,
    extra: Option<Box<Value>>,
}

impl Problem {
    /// A `503`: the cause goes to the log, not to the caller.
    fn unavailable(title: &'static str, detail: &str) -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "unavailable",
            title,
            detail: detail.to_string(),
            extra: None,
        }
    }

    fn not_found_route() -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            kind: "not-found",
            title: "Not found",
            detail: "no such endpoint; see /api/openapi.json".to_string(),
            extra: None,
        }
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut body = json!({
            "type": format!("/problems/{}", self.kind),
            "title": self.title,
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if let (Value::Object(map), Some(Value::Object(extra))) =
            (&mut body, self.extra.map(|e| *e))
        {
            map.extend(extra);
        }
        let mut response = (self.status, Json(body)).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if self.status == StatusCode::UNAUTHORIZED {
            // RFC 6750 §3.1: a token that was sent and refused is `invalid_token`.
            let challenge = if self.kind == "invalid-token" {
                "Bearer error=\"invalid_token\""
            } else {
                "Bearer"
            };
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        response
    }
}

impl From<RegistryError> for Problem {
    fn from(error: RegistryError) -> Self {
        let detail = error.to_string();
        let (status, kind, title, extra) = match error {
            RegistryError::Invalid(_) => {
                (StatusCode::BAD_REQUEST, "invalid", "Invalid request", None)
            }
            RegistryError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "Authentication required",
                None,
            ),
            RegistryError::InvalidToken(_) => (
                StatusCode::UNAUTHORIZED,
                "invalid-token",
                "The token was refused",
                None,
            ),
            RegistryError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden", "Forbidden", None),
            RegistryError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found", "Not found", None),
            RegistryError::Conflict(_) => {
                (StatusCode::CONFLICT, "conflict", "Already registered", None)
            }
            RegistryError::VersionExists(_) => (
                StatusCode::CONFLICT,
                "version-exists",
                "That version is published",
                None,
            ),
            RegistryError::BadArchive(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad-archive",
                "Not a skill archive the registry takes",
                None,
            ),
            RegistryError::Lint(diagnostics) => {
                let errors = diagnostics
                    .iter()
                    .filter(|d| d.severity == skills_lint::Severity::Error)
                    .count();
                let items: Vec<Value> = diagnostics
                    .iter()
                    .map(|d| {
                        serde_json::to_value(d.to_json("SKILL.md".to_string()))
                            .unwrap_or(Value::Null)
                    })
                    .collect();
                (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "lint-failed",
                    "The SKILL.md has lint errors",
                    Some(Box::new(json!({
                        "version": skills_lint::JSON_SCHEMA_VERSION,
                        "diagnostics": items,
                        "summary": {
                            "skills": 1,
                            "errors": errors,
                            "warnings": diagnostics.len() - errors,
                        },
                    }))),
                )
            }
            RegistryError::Fetch(ref e) => match e {
                crate::fetch::FetchError::Untrusted { .. }
                | crate::fetch::FetchError::Blocked { .. } => (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "untrusted-url",
                    "The URL may not be fetched",
                    None,
                ),
                _ => (
                    StatusCode::BAD_GATEWAY,
                    "fetch-failed",
                    "The SKILL.md could not be fetched",
                    None,
                ),
            },
            RegistryError::Store(ref e) => {
                tracing::error!(error = %e, "database");
                return Self::unavailable(
                    "The registry's database is unavailable",
                    "try again later",
                );
            }
            RegistryError::IdentityProvider(ref e) => {
                tracing::error!(error = %e, "identity provider");
                return Self::unavailable(
                    "The identity provider is unavailable",
                    "tokens cannot be checked now; try again later",
                );
            }
            RegistryError::Internal(ref e) => {
                tracing::error!(error = %e, "internal");
                return Self {
                    status: StatusCode::INTERNAL_SERVER_ERROR,
                    kind: "internal",
                    title: "Internal error",
                    detail: "the registry failed; its log says why".to_string(),
                    extra: None,
                };
            }
        };
        Self {
            status,
            kind,
            title,
            detail,
            extra,
        }
    }
}

type Result<T> = std::result::Result<T, Problem>;

/// The skill a `{path}` names: its name (`pdf`), or its card's `path` percent-encoded
/// (`%2Fskills%2Fpdf`), as seed 001 addresses skills by path.
struct SkillPath(String);

impl<S: Send + Sync> FromRequestParts<S> for SkillPath {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self> {
        let Path(path) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| Problem::from(RegistryError::Invalid(e.body_text())))?;
        let name = path
            .strip_prefix("/skills/")
            .or_else(|| path.strip_prefix("skills/"))
            .unwrap_or(&path);
        Ok(Self(name.to_string()))
    }
}

/// The caller, from `Authorization: Bearer <token>`; anonymous without one.
struct Auth(Caller);

impl<S: Store> FromRequestParts<Arc<Registry<S>>> for Auth {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, registry: &Arc<Registry<S>>) -> Result<Self> {
        Ok(Self(
            caller_of(registry, &parts.headers)
                .await?
                .unwrap_or_default(),
        ))
    }
}

/// The token of an `Authorization` value `Bearer <token>`. The scheme is matched in any
/// case (RFC 7235 §2.1: `bearer` and `BEARER` are the same scheme), and the token trimmed.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("Bearer").then(|| token.trim())
}

async fn list_page<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    params: std::result::Result<
        Query<crate::web::PageParams>,
        axum::extract::rejection::QueryRejection,
    >,
    headers: HeaderMap,
) -> Response {
    // A page takes what it understands of a hand-edited address.
    let params = params.map(|Query(p)| p).unwrap_or_default();
    crate::web::list_page(registry, caller, params, &headers).await
}

async fn api_docs<S: Store>(State(registry): State<Arc<Registry<S>>>) -> Response {
    crate::web::api_docs_page(&registry)
}

/// A path nothing is routed to: a page for a browser (one that accepts HTML, outside
/// `/api/`), else a problem.
async fn fallback<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Response {
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if wants_html && !uri.path().starts_with("/api/") {
        crate::web::not_found_page(&registry, uri.path(), &headers)
    } else {
        Problem::not_found_route().into_response()
    }
}

async fn skill_page<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    headers: HeaderMap,
) -> Response {
    crate::web::skill_page(registry, caller, name, &headers).await
}

/// How long `/readyz` waits for the database: a probe's own timeout is often a second or
/// two, and a database that takes longer than this to answer `SELECT 1` is not ready.
const READY_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

async fn ready<S: Store>(State(registry): State<Arc<Registry<S>>>) -> Response {
    match tokio::time::timeout(READY_WITHIN, registry.store().ping()).await {
        Ok(Ok(())) => "ready\n".into_response(),
        Ok(Err(e)) => Problem::from(RegistryError::Store(e)).into_response(),
        Err(_) => {
            tracing::error!("database: no answer to a ping within {READY_WITHIN:?}");
            Problem::unavailable("The registry's database is unavailable", "try again later")
                .into_response()
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    q: Option<String>,
    sort: Option<crate::store::Sort>,
    tag: Option<String>,
    registry: Option<String>,
    enabled: Option<bool>,
    exportable: Option<bool>,
    view: Option<View>,
    limit: Option<u32>,
    cursor: Option<String>,
}

/// A list query's place: after a name (a list by name) or at a position (another order).
/// A cursor of the other kind is refused: it came from another list.
pub(crate) fn place(
    query: &mut ListQuery,
    cursor: Option<&str>,
) -> std::result::Result<(), RegistryError> {
    let Some(cursor) = cursor else {
        return Ok(());
    };
    let by_name = query.sort.effective(query.q.as_deref()) == crate::store::Sort::Name;
    match (crate::cursor::decode_any(cursor)?, by_name) {
        (crate::cursor::Cursor::After(name), true) => query.after = Some(name),
        (crate::cursor::Cursor::Offset(offset), false) => query.offset = offset,
        _ => {
            return Err(RegistryError::Invalid(
                "`cursor` is of a list in another order: keep `sort` and `q` as they were".into(),
            ));
        }
    }
    Ok(())
}

fn query_error(error: &axum::extract::rejection::QueryRejection) -> Problem {
    RegistryError::Invalid(format!("query: {}", error.body_text())).into()
}

/// A page of a list.
#[derive(serde::Serialize)]
struct Page<'a> {
    skills: Vec<crate::model::Viewed<'a>>,
    next_cursor: Option<String>,
    /// How many skills match, on every page.
    total: u64,
}

/// A cached JSON body as a response.
fn cached(body: axum::body::Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The cached answer to `caller`'s request of `uri`; or, on a miss, the guard to hold while
/// computing it (clients that miss together wait for the first one's answer).
async fn lookup<'a, S: Store>(
    registry: &'a Registry<S>,
    caller: &Caller,
    uri: &axum::http::Uri,
) -> std::result::Result<Response, crate::cache::Slot<'a>> {
    let ttl = registry.response_ttl();
    registry
        .responses()
        .lookup(caller, &uri.to_string(), registry.generation(), ttl)
        .await
        .map(cached)
}

/// Serializes `value`, keeps it in the response cache in `slot`, and answers it.
fn cache_and_answer(
    slot: crate::cache::Slot<'_>,
    value: &impl serde::Serialize,
) -> Result<Response> {
    let body = serde_json::to_vec(value)
        .map_err(|e| Problem::from(RegistryError::Internal(e.to_string())))?;
    let body = axum::body::Bytes::from(body);
    slot.fill(body.clone());
    Ok(cached(body))
}

async fn list<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    uri: axum::http::Uri,
    params: std::result::Result<Query<ListParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Response> {
    let slot = match lookup(&registry, &caller, &uri).await {
        Ok(hit) => return Ok(hit),
        Err(slot) => slot,
    };
    let Query(params) = params.map_err(|e| query_error(&e))?;
    let limit = params.limit.unwrap_or(DEFAULT_PAGE);
    if limit == 0 || limit > MAX_PAGE {
        return Err(RegistryError::Invalid(format!("`limit` must be 1 to {MAX_PAGE}")).into());
    }
    let mut query = ListQuery {
        q: params.q,
        sort: params.sort.unwrap_or_default(),
        tag: params.tag,
        registry: params.registry,
        enabled: params.enabled,
        exportable: params.exportable.unwrap_or(false),
        limit,
        ..ListQuery::default()
    };
    place(&mut query, params.cursor.as_deref())?;
    let view = params.view.unwrap_or_default();
    let (cards, next) = if view == View::Full {
        registry.list_full(&caller, &query).await?
    } else {
        let (cards, next) = registry.list(&caller, &query).await?;
        (cards.into_iter().map(|card| (card, None)).collect(), next)
    };
    let skills: Vec<crate::model::Viewed<'_>> = cards
        .iter()
        .map(|(card, content)| card.view(view, content.as_deref()))
        .collect();
    let total = registry.count(&caller, &query).await?;
    let page = Page {
        skills,
        next_cursor: next,
        total,
    };
    cache_and_answer(slot, &page)
}

fn json_body(
    body: std::result::Result<Json<Registration>, axum::extract::rejection::JsonRejection>,
) -> Result<Registration> {
    body.map(|Json(b)| b)
        .map_err(|e| RegistryError::Invalid(format!("body: {}", e.body_text())).into())
}

async fn register<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    body: std::result::Result<Json<Registration>, axum::extract::rejection::JsonRejection>,
) -> Result<Response> {
    let request = json_body(body)?;
    let card = registry.register(&caller, request).await?;
    let location = format!("/api/skills/{}", card.name);
    let mut response = (
        StatusCode::CREATED,
        Json(card.view(View::Summary, None)).into_response(),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewParams {
    view: Option<View>,
}

async fn show<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    uri: axum::http::Uri,
    params: std::result::Result<Query<ViewParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Response> {
    let slot = match lookup(&registry, &caller, &uri).await {
        Ok(hit) => return Ok(hit),
        Err(slot) => slot,
    };
    let Query(params) = params.map_err(|e| query_error(&e))?;
    let view = params.view.unwrap_or(View::Summary);
    let (card, content) = if view == View::Full {
        let (card, content) = registry.get_full(&caller, &name).await?;
        (card, Some(content))
    } else {
        (registry.get(&caller, &name).await?, None)
    };
    cache_and_answer(slot, &card.view(view, content.as_deref()))
}

async fn update<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    body: std::result::Result<Json<Registration>, axum::extract::rejection::JsonRejection>,
) -> Result<Response> {
    let request = json_body(body)?;
    let card = registry.update(&caller, &name, request).await?;
    Ok(Json(card.view(View::Summary, None)).into_response())
}

async fn delete_skill<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<StatusCode> {
    registry.delete(&caller, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn enable<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Response> {
    let card = registry.set_enabled(&caller, &name, true).await?;
    Ok(Json(card.view(View::Summary, None)).into_response())
}

async fn disable<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Response> {
    let card = registry.set_enabled(&caller, &name, false).await?;
    Ok(Json(card.view(View::Summary, None)).into_response())
}

async fn health<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Json<Value>> {
    let card = registry.health(&caller, &name).await?;
    Ok(Json(json!({
        "path": card.path,
        "name": card.name,
        "skill_md_raw_url": card.skill_md_raw_url,
        "health_status": card.health_status,
        "last_checked_time": card.last_checked_time,
    })))
}

async fn audit<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Json<Value>> {
    let (card, report) = registry.audit(&caller, &name).await?;
    Ok(Json(json!({
        "path": card.path,
        "name": card.name,
        "content_version": card.content_version,
        "audit": crate::model::AuditSummary::of(&report),
        "peer_audit": card.peer_audit,
        "findings": report.findings,
    })))
}

async fn content<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    headers: HeaderMap,
) -> Result<Response> {
    let (text, version) = registry.content(&caller, &name).await?;
    let etag = format!("\"{version}\"");
    let matches = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag);
    let mut response = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
            text,
        )
            .into_response()
    };
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    Ok(response)
}

async fn tools<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Json<Value>> {
    let card = registry.get(&caller, &name).await?;
    let report = registry.tool_availability(&card);
    Ok(Json(
        json!({ "path": card.path, "name": card.name, "tools": report }),
    ))
}

async fn rating<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Json<Value>> {
    let card = registry.rating(&caller, &name).await?;
    Ok(Json(rating_json(&card)))
}

fn rating_json(card: &crate::model::SkillCard) -> Value {
    json!({
        "path": card.path,
        "name": card.name,
        "num_stars": card.num_stars,
        "num_ratings": card.rating_details.len(),
        "rating_details": card.rating_details,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RateBody {
    rating: i64,
}

async fn rate<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    body: std::result::Result<Json<RateBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>> {
    let Json(body) = body
        .map_err(|e| Problem::from(RegistryError::Invalid(format!("body: {}", e.body_text()))))?;
    let card = registry.rate(&caller, &name, body.rating).await?;
    Ok(Json(rating_json(&card)))
}

/// `{name}` and `{version}` of a version's endpoints.
#[derive(Debug, Deserialize)]
struct VersionPath {
    name: String,
    version: String,
}

/// `{name}`, `{version}` and the file's `{*path}`.
#[derive(Debug, Deserialize)]
struct FilePath {
    name: String,
    version: String,
    path: String,
}

fn path_error(error: &axum::extract::rejection::PathRejection) -> Problem {
    RegistryError::Invalid(error.body_text()).into()
}

async fn versions<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
) -> Result<Json<Value>> {
    let versions = registry.versions(&caller, &name).await?;
    Ok(Json(json!({ "name": name, "versions": versions })))
}

async fn publish<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    SkillPath(name): SkillPath,
    params: std::result::Result<
        Query<crate::service::PublishOptions>,
        axum::extract::rejection::QueryRejection,
    >,
    body: axum::body::Bytes,
) -> Result<Response> {
    let Query(options) = params.map_err(|e| query_error(&e))?;
    let published = registry
        .publish(&caller, &name, body.to_vec(), options)
        .await?;
    let status = if published.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut response = (status, Json(&published)).into_response();
    let location = format!(
        "/api/skills/{name}/versions/{}",
        published.detail.version.version
    );
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

async fn version<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<VersionPath>, axum::extract::rejection::PathRejection>,
) -> Result<Json<crate::service::VersionDetail>> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    Ok(Json(registry.version(&caller, &p.name, &p.version).await?))
}

async fn unpublish<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<VersionPath>, axum::extract::rejection::PathRejection>,
) -> Result<StatusCode> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    registry.unpublish(&caller, &p.name, &p.version).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn yank<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<VersionPath>, axum::extract::rejection::PathRejection>,
) -> Result<Json<crate::service::VersionDetail>> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    Ok(Json(
        registry.yank(&caller, &p.name, &p.version, true).await?,
    ))
}

async fn unyank<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<VersionPath>, axum::extract::rejection::PathRejection>,
) -> Result<Json<crate::service::VersionDetail>> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    Ok(Json(
        registry.yank(&caller, &p.name, &p.version, false).await?,
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchiveParams {
    /// `flat`: `SKILL.md` at the root, as the discovery index's installers expect.
    layout: Option<String>,
}

/// Bytes that never change (a version's files do not), with their digest as the ETag.
fn immutable(bytes: Vec<u8>, digest: &str, content_type: &'static str) -> Response {
    let mut response = ([(header::CONTENT_TYPE, content_type)], bytes).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("\"{digest}\"")) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    response
}

async fn archive<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<VersionPath>, axum::extract::rejection::PathRejection>,
    params: std::result::Result<Query<ArchiveParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Response> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    let Query(params) = params.map_err(|e| query_error(&e))?;
    let flat = match params.layout.as_deref() {
        None | Some("skill") => false,
        Some("flat") => true,
        Some(other) => {
            return Err(RegistryError::Invalid(format!(
                "`layout` is `skill` (the default: `{}/…` entries) or `flat`, not `{other}`",
                p.name
            ))
            .into());
        }
    };
    let (record, bytes) = registry.archive(&caller, &p.name, &p.version, flat).await?;
    let digest = if flat {
        record.flat_archive_digest
    } else {
        record.archive_digest
    };
    let mut response = immutable(bytes, &digest, "application/zip");
    let file = format!(
        "attachment; filename=\"{}-{}.{}\"",
        record.name,
        record.version,
        if flat { "zip" } else { "skill" }
    );
    if let Ok(value) = HeaderValue::from_str(&file) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

async fn file<S: Store>(
    State(registry): State<Arc<Registry<S>>>,
    Auth(caller): Auth,
    path: std::result::Result<Path<FilePath>, axum::extract::rejection::PathRejection>,
) -> Result<Response> {
    let Path(p) = path.map_err(|e| path_error(&e))?;
    let (record, bytes) = registry.file(&caller, &p.name, &p.version, &p.path).await?;
    let content_type = if record.path.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else {
        "application/octet-stream"
    };
    let mut response = immutable(bytes, &record.digest, content_type);
    if let Ok(value) = HeaderValue::from_str(&record.digest) {
        response.headers_mut().insert("x-skills-digest", value);
    }
    Ok(response)
}

/// `/.well-known/agent-skills/index.json`: what anonymous callers may install, for any
/// installer that reads the discovery index (npm `skills add https://registry`).
async fn discovery<S: Store>(State(registry): State<Arc<Registry<S>>>) -> Result<Json<Value>> {
    Ok(Json(registry.discovery_index().await?))
}

/// Serves `router` on `listener` within `limits` (a registry's are
/// [`RegistryConfig::connections`](crate::RegistryConfig::connections)) until `shutdown`
/// resolves; requests in flight finish first. A client that takes longer than the header
/// timeout to send its headers, or leaves a keep-alive connection idle that long, is
/// disconnected; past the most connections, new ones wait to be accepted, so the server
/// never runs out of file descriptors ([`skills_mcp_server::serve_router`]).
///
/// # Errors
///
/// The listener's I/O error.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: &skills_mcp_server::ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    skills_mcp_server::serve_router(listener, router, limits, shutdown).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_openapi_document_lists_exactly_the_endpoints() {
        let doc: Value = serde_json::from_str(OPENAPI).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        let mut documented = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                if method != "parameters" {
                    documented.insert((method.to_uppercase(), path.clone()));
                }
            }
        }
        // HEAD comes with every GET; the document lists the GETs.
        let served: BTreeSet<(String, String)> = ENDPOINTS
            .iter()
            .filter(|(m, _)| *m != "HEAD")
            .map(|(m, p)| ((*m).to_string(), (*p).to_string()))
            .collect();
        assert_eq!(documented, served);
    }

    /// The two kinds no API test can provoke from outside: what went wrong goes to the log,
    /// never into the answer.
    #[test]
    fn internal_failures_answer_without_their_cause() {
        let cause = "INSERT INTO skills (name) VALUES ($1): panicked at store.rs:12";
        for (error, status, kind) in [
            (
                RegistryError::Internal(cause.to_string()),
                500,
                "/problems/internal",
            ),
            (
                RegistryError::Store(crate::StoreError::Database(sqlx::Error::Protocol(
                    cause.to_string(),
                ))),
                503,
                "/problems/unavailable",
            ),
        ] {
            let response = Problem::from(error).into_response();
            assert_eq!(response.status().as_u16(), status);
            assert_eq!(
                response.headers()[header::CONTENT_TYPE],
                "application/problem+json"
            );
            let body = futures_util::FutureExt::now_or_never(axum::body::to_bytes(
                response.into_body(),
                usize::MAX,
            ))
            .unwrap()
            .unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["type"], kind);
            assert!(!body.to_string().contains("INSERT"), "{body}");
            assert!(!body.to_string().contains("store.rs"), "{body}");
        }
    }

    #[test]
    fn the_router_routes_exactly_the_endpoints() {
        let routed: BTreeSet<(&str, &str)> = routes::<crate::SqliteStore>()
            .iter()
            .map(|(m, p, _)| (*m, *p))
            .collect();
        let listed: BTreeSet<(&str, &str)> = ENDPOINTS
            .iter()
            .filter(|(m, _)| *m != "HEAD")
            .copied()
            .collect();
        assert_eq!(routed, listed);
        // HEAD comes with a GET.
        for (method, path) in ENDPOINTS {
            if method == "HEAD" {
                assert!(routed.contains(&("GET", path)), "{path}");
            }
        }
    }
}

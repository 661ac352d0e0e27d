//! The test harness: a fixture HTTP server standing in for a raw-file host, a registry on
//! SQLite in a temp dir, both on 127.0.0.1 ports of their own, and a blocking client.

#![allow(
    dead_code,
    unreachable_pub,
    clippy::panic,
    clippy::print_stderr,
    clippy::unwrap_used
)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use skills_registry::{AnyStore, Registry, RegistryConfig, Store};

pub mod postgres;

/// Which database a harness runs on.
#[derive(Clone)]
pub enum Backend {
    /// A SQLite file in the harness's temp dir.
    Sqlite,
    /// A new database on this cluster, one per harness.
    Postgres(Arc<postgres::Cluster>),
}

impl Backend {
    /// A PostgreSQL backend on a cluster of its own; `None` when PostgreSQL is missing.
    pub fn postgres() -> Option<Self> {
        postgres::Cluster::start().map(|c| Self::Postgres(Arc::new(c)))
    }
}

static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// What the fixture answers for a path.
#[derive(Clone)]
enum Answer {
    File(String),
    Redirect(String),
    /// Headers, then a body that never comes.
    Stall,
}

#[derive(Default)]
struct Fixture {
    answers: Mutex<HashMap<String, Answer>>,
    hits: AtomicUsize,
    /// How long each answer waits before it is sent.
    delay: Mutex<std::time::Duration>,
    in_flight: AtomicUsize,
    /// The most requests seen in flight at once.
    most_in_flight: AtomicUsize,
}

pub struct Harness {
    runtime: tokio::runtime::Runtime,
    /// The database the registry runs on.
    pub database_url: String,
    pub registry: Arc<Registry<AnyStore>>,
    base: String,
    fixture: Arc<Fixture>,
    fixture_port: u16,
    _dir: tempfile::TempDir,
}

impl Harness {
    /// A registry on `backend` that trusts the fixture (loopback allowed).
    pub fn start(backend: &Backend) -> Self {
        Self::start_with(backend, |_, _| {})
    }

    /// As [`Harness::start`], with `configure` given the config and the fixture's port.
    pub fn start_with(backend: &Backend, configure: impl FnOnce(&mut RegistryConfig, u16)) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let fixture = Arc::new(Fixture::default());
        let fixture_listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let fixture_port = fixture_listener.local_addr().unwrap().port();
        let served = Arc::clone(&fixture);
        let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
            let served = Arc::clone(&served);
            async move {
                let stall = matches!(
                    served.answers.lock().unwrap().get(request.uri().path()),
                    Some(Answer::Stall)
                );
                if stall {
                    served.hits.fetch_add(1, Ordering::SeqCst);
                    let never = futures_util::stream::pending::<Result<Vec<u8>, std::io::Error>>();
                    return Response::new(axum::body::Body::from_stream(never));
                }
                let now = served.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                served.most_in_flight.fetch_max(now, Ordering::SeqCst);
                let delay = *served.delay.lock().unwrap();
                tokio::time::sleep(delay).await;
                let response = answer(&served, request.uri().path());
                served.in_flight.fetch_sub(1, Ordering::SeqCst);
                response
            }
        });
        runtime.spawn(async move { axum::serve(fixture_listener, app).await });

        let dir = tempfile::tempdir().unwrap();
        let mut config = RegistryConfig::default();
        config.name = "test-registry".to_string();
        config.fetch.trust_hosts = vec![format!("127.0.0.1:{fixture_port}")];
        config.fetch.allow_loopback = true;
        // Nothing in the system's temporary directory but the harness's own.
        config.state_dir = Some(dir.path().join("state"));
        configure(&mut config, fixture_port);
        let url = match backend {
            Backend::Sqlite => format!("sqlite://{}", dir.path().join("registry.db").display()),
            Backend::Postgres(cluster) => {
                let name = format!("registry_{}", DATABASES.fetch_add(1, Ordering::SeqCst));
                runtime.block_on(async {
                    use sqlx::Connection;
                    let mut admin = sqlx::PgConnection::connect(&cluster.url("postgres"))
                        .await
                        .unwrap();
                    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                        .execute(&mut admin)
                        .await
                        .unwrap();
                });
                cluster.url(&name)
            }
        };
        let database_url = url.clone();
        let registry = runtime.block_on(async {
            let store = AnyStore::open(&url).await.unwrap();
            store.migrate().await.unwrap();
            Registry::new(store, config)
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let router = skills_registry::http::router(Arc::clone(&registry));
        let limits = registry.config().connections.clone();
        runtime.spawn(async move {
            skills_registry::http::serve(listener, router, &limits, std::future::pending()).await
        });
        Self {
            runtime,
            database_url,
            registry,
            base,
            fixture,
            fixture_port,
            _dir: dir,
        }
    }

    /// Serves `body` at `path` on the fixture.
    pub fn serve(&self, path: &str, body: &str) {
        self.fixture
            .answers
            .lock()
            .unwrap()
            .insert(path.to_string(), Answer::File(body.to_string()));
    }

    /// Redirects `path` to `location`.
    pub fn redirect(&self, path: &str, location: &str) {
        self.fixture
            .answers
            .lock()
            .unwrap()
            .insert(path.to_string(), Answer::Redirect(location.to_string()));
    }

    /// Answers `path` with headers and a body that never comes.
    pub fn stall(&self, path: &str) {
        self.fixture
            .answers
            .lock()
            .unwrap()
            .insert(path.to_string(), Answer::Stall);
    }

    /// Stops serving `path` (404 from then on).
    pub fn remove(&self, path: &str) {
        self.fixture.answers.lock().unwrap().remove(path);
    }

    /// What the fixture serves at `path`.
    pub fn served(&self, path: &str) -> String {
        match self.fixture.answers.lock().unwrap().get(path) {
            Some(Answer::File(body)) => body.clone(),
            _ => panic!("{path} is not served"),
        }
    }

    /// Makes every later answer of the fixture wait `delay`, and forgets how many were in
    /// flight at once.
    pub fn delay_answers(&self, delay: std::time::Duration) {
        *self.fixture.delay.lock().unwrap() = delay;
        self.fixture.most_in_flight.store(0, Ordering::SeqCst);
    }

    /// The most requests the fixture had in flight at once since [`Harness::delay_answers`].
    pub fn most_in_flight(&self) -> usize {
        self.fixture.most_in_flight.load(Ordering::SeqCst)
    }

    /// Spawns `future` on the harness's runtime.
    pub fn spawn<F>(&self, future: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.runtime.spawn(future);
    }

    /// Serves a valid `SKILL.md` named `name` at `/o/r/main/{name}/SKILL.md` and registers
    /// it as `client`.
    pub fn register(&self, client: &Client, name: &str) -> Reply {
        let path = format!("/o/r/main/{name}/SKILL.md");
        self.serve(
            &path,
            &skill_md(name, &format!("Does {name}. Use when {name}."), ""),
        );
        client.post(
            "/api/skills",
            &serde_json::json!({"skill_md_url": self.url(&path)}),
        )
    }

    /// Requests the fixture has answered.
    pub fn fixture_hits(&self) -> usize {
        self.fixture.hits.load(Ordering::SeqCst)
    }

    pub fn fixture_port(&self) -> u16 {
        self.fixture_port
    }

    /// The fixture URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.fixture_port)
    }

    /// A client with a new token for `user`.
    pub fn client(&self, user: &str, groups: &[&str], admin: bool) -> Client {
        let groups = groups.iter().map(|g| g.to_string()).collect();
        let (token, _) = self
            .runtime
            .block_on(self.registry.create_token(user, groups, admin))
            .unwrap();
        Client::with_token(self, &token)
    }

    /// A new token for `user`, as sent after `Bearer `.
    pub fn token(&self, user: &str, groups: &[&str], admin: bool) -> String {
        let groups = groups.iter().map(|g| g.to_string()).collect();
        self.runtime
            .block_on(self.registry.create_token(user, groups, admin))
            .unwrap()
            .0
    }

    /// The registry's base URL (`http://127.0.0.1:PORT`).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// A client with a new token for `user`, and the token's id.
    pub fn client_and_id(&self, user: &str) -> (Client, String) {
        let (token, record) = self
            .runtime
            .block_on(self.registry.create_token(user, Vec::new(), false))
            .unwrap();
        (Client::with_token(self, &token), record.id)
    }

    /// Runs `future` on the harness's runtime.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

fn answer(fixture: &Fixture, path: &str) -> Response {
    fixture.hits.fetch_add(1, Ordering::SeqCst);
    let found = fixture.answers.lock().unwrap().get(path).cloned();
    match found {
        Some(Answer::File(body)) => (StatusCode::OK, body).into_response(),
        Some(Answer::Redirect(location)) => {
            let mut r = StatusCode::FOUND.into_response();
            r.headers_mut()
                .insert(header::LOCATION, HeaderValue::from_str(&location).unwrap());
            r
        }
        Some(Answer::Stall) | None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A `SKILL.md` with `name`, `description` and more frontmatter lines.
pub fn skill_md(name: &str, description: &str, more: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{more}---\n# {name}\n\nSteps.\n")
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub struct Client {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
}

pub struct Reply {
    pub status: u16,
    pub body: String,
    headers: Vec<(String, String)>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> String {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
}

impl Client {
    pub fn anonymous(h: &Harness) -> Self {
        Self::new(h, None)
    }

    pub fn with_token(h: &Harness, token: &str) -> Self {
        Self::new(h, Some(token.to_string()))
    }

    fn new(h: &Harness, token: Option<String>) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .new_agent();
        Self {
            base: h.base.clone(),
            token,
            agent,
        }
    }

    fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Reply {
        let url = format!("{}{path}", self.base);
        let mut request = ureq::http::Request::builder().method(method).uri(&url);
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = match body {
            Some(Value::String(raw)) if method == "POST" && raw.starts_with("zip:") => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&raw["zip:".len()..])
                    .unwrap();
                let request = request
                    .header("content-type", "application/zip")
                    .body(bytes)
                    .unwrap();
                self.agent.run(request)
            }
            Some(json) => {
                let request = request
                    .header("content-type", "application/json")
                    .body(json.to_string())
                    .unwrap();
                self.agent.run(request)
            }
            None => self.agent.run(request.body(()).unwrap()),
        };
        let mut response = response.unwrap();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
            .collect();
        Reply {
            status: response.status().as_u16(),
            body: response.body_mut().read_to_string().unwrap_or_default(),
            headers,
        }
    }

    /// POSTs `body` as JSON with `headers` beside the token (MCP's, say).
    pub fn post_with(&self, path: &str, headers: &[(&str, &str)], body: &Value) -> Reply {
        self.send("POST", path, headers, Some(body))
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], None)
    }

    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send("GET", path, headers, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Reply {
        self.send("POST", path, &[], Some(body))
    }

    /// POSTs `bytes` as `application/zip` (a publication).
    pub fn post_zip(&self, path: &str, bytes: &[u8]) -> Reply {
        use base64::Engine as _;
        let raw = format!(
            "zip:{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        );
        self.send("POST", path, &[], Some(&Value::String(raw)))
    }

    pub fn put(&self, path: &str, body: &Value) -> Reply {
        self.send("PUT", path, &[], Some(body))
    }

    pub fn head(&self, path: &str) -> Reply {
        self.send("HEAD", path, &[], None)
    }

    pub fn delete(&self, path: &str) -> Reply {
        self.send("DELETE", path, &[], None)
    }
}

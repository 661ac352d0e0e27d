//! `skills mcp --gateway` driven through rmcp's client, in front of real downstream MCP
//! servers: this test binary itself, started by the gateway with `SKILLS_GATEWAY_FIXTURE`
//! set, is a small server (`trino`: tools of every content type, a slow one that reports
//! progress until cancelled, one that crashes the process; `fetch`: a universal tool;
//! `stuck`: the hostile one, with a tool that never answers, one whose result is over 16 MiB,
//! one that floods `tools/list_changed`, one after which `tools/list` pages forever).
//! Hence its own harness (libtest-mimic): as a server it must print nothing but MCP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr,
    missing_docs
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt as _};
use serde_json::{Value, json};

/// Set to a server name, the binary is that downstream server.
const FIXTURE: &str = "SKILLS_GATEWAY_FIXTURE";
/// Where the `slow` and `hang` tools write when their call is cancelled (`chatty` when it
/// is done).
const MARKER: &str = "SKILLS_GATEWAY_MARKER";
/// Where the `stuck` server writes how many `tools/list` requests it has answered.
const COUNT: &str = "SKILLS_GATEWAY_COUNT";

fn main() -> ExitCode {
    if let Ok(name) = std::env::var(FIXTURE) {
        return fixture::serve(&name);
    }
    let args = libtest_mimic::Arguments::from_args();
    let trial =
        |name: &'static str,
         test: fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>| {
            libtest_mimic::Trial::test(name, move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap()
                    .block_on(test());
                Ok(())
            })
        };
    let tests = vec![
        trial("the_skills_mcp_binary_hands_a_gateway_to_skills", || {
            Box::pin(the_skills_mcp_binary_hands_a_gateway_to_skills())
        }),
        trial("level_one_then_a_skill_scope_proxied", || {
            Box::pin(level_one_then_a_skill_scope_proxied())
        }),
        trial("progress_cancellation_and_a_crash", || {
            Box::pin(progress_cancellation_and_a_crash())
        }),
        trial("over_http_both_ways_with_a_scope_per_session", || {
            Box::pin(over_http_both_ways_with_a_scope_per_session())
        }),
        trial(
            "over_http_a_stateless_client_names_its_scope_in_meta",
            || Box::pin(over_http_a_stateless_client_names_its_scope_in_meta()),
        ),
        trial(
            "over_http_a_listen_stream_hears_of_downstream_and_skill_changes",
            || Box::pin(over_http_a_listen_stream_hears_of_downstream_and_skill_changes()),
        ),
        trial("a_server_that_does_not_start_is_reported", || {
            Box::pin(a_server_that_does_not_start_is_reported())
        }),
        trial(
            "hanging_calls_leave_ping_other_servers_and_cancel_served",
            || Box::pin(hanging_calls_leave_ping_other_servers_and_cancel_served()),
        ),
        trial("a_call_past_its_timeout_is_a_tool_error", || {
            Box::pin(a_call_past_its_timeout_is_a_tool_error())
        }),
        trial("a_list_changed_flood_is_coalesced", || {
            Box::pin(a_list_changed_flood_is_coalesced())
        }),
        trial(
            "endless_pages_are_cut",
            || Box::pin(endless_pages_are_cut()),
        ),
        trial("a_result_over_16_mib_is_a_tool_error", || {
            Box::pin(a_result_over_16_mib_is_a_tool_error())
        }),
        trial(
            "a_progress_flood_to_a_client_that_does_not_read_stays_small",
            || Box::pin(a_progress_flood_to_a_client_that_does_not_read_stays_small()),
        ),
        trial("stdin_closed_with_calls_in_flight_exits_soon", || {
            Box::pin(stdin_closed_with_calls_in_flight_exits_soon())
        }),
        libtest_mimic::Trial::test("lint_holds_references_to_the_gateway", || {
            lint_holds_references_to_the_gateway();
            Ok(())
        }),
        libtest_mimic::Trial::test("a_bad_gateway_file_names_the_line", || {
            a_bad_gateway_file_names_the_line();
            Ok(())
        }),
        trial("the_docs_example_runs_as_shipped", || {
            Box::pin(the_docs_example_runs_as_shipped())
        }),
    ];
    libtest_mimic::run(&args, tests).exit_code()
}

/// Counts tools/list_changed and keeps the progress notifications.
#[derive(Clone, Default)]
struct Client {
    tools_changed: Arc<AtomicUsize>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.fetch_add(1, Ordering::SeqCst);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

type Session = RunningService<RoleClient, Client>;

/// A skills directory, a gateway file over this binary's two fixture servers (and the
/// extra servers given), and the file the gateway logs to.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(extra: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            &root.join("skills/trino-debug/SKILL.md"),
            "---\nname: trino-debug\ndescription: Debug and optimize slow Trino queries. Use when a query is slow.\n---\nYou are a Trino query optimization expert.\n",
        );
        write(
            &root.join("skills/trino-debug/tools.json"),
            r#"[{"server": "trino", "name": "*"}]"#,
        );
        write(
            &root.join("skills/trino-debug/resources.json"),
            r#"[{"server": "trino", "uri": "trino://rules/optimization.md"}]"#,
        );
        write(
            &root.join("skills/report-writer/SKILL.md"),
            "---\nname: report-writer\ndescription: Write a report from query results. Use when the user wants a report.\n---\nYou write short reports.\n",
        );
        write(
            &root.join("skills/report-writer/tools.json"),
            r#"[{"server": "trino", "name": "query"},
                {"name": "draft", "description": "Drafts the report (the client's own tool).", "inputSchema": {"type": "object"}}]"#,
        );
        let exe = std::env::current_exe().unwrap();
        let mut servers = json!({
            "trino": {"command": exe, "env": {FIXTURE: "trino", MARKER: root.join("cancelled")}},
            "fetch": {"command": exe, "env": {FIXTURE: "fetch"}, "universal": true}
        });
        if let Value::Object(more) = extra {
            servers.as_object_mut().unwrap().extend(more);
        }
        write(
            &root.join("gateway.json"),
            json!({"mcpServers": servers}).to_string(),
        );
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    async fn start(&self) -> (Session, Client) {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"));
        command.arg("mcp");
        self.start_with(command).await
    }

    /// [`Setup::start`] with `command` and the gateway's options.
    async fn start_with(&self, mut command: tokio::process::Command) -> (Session, Client) {
        let log = std::fs::File::create(self.path("gateway.log")).unwrap();
        command
            .arg("--skills-dir")
            .arg(self.path("skills"))
            .arg("--gateway")
            .arg(self.path("gateway.json"));
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::from(log))
            .spawn()
            .unwrap();
        let client = Client::default();
        let session = client.clone().serve(transport).await.unwrap();
        (session, client)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.path("gateway.log")).unwrap()
    }

    /// Adds the `stuck` server to the gateway file (universal, so that its tools are there
    /// at Level 1), with `settings` merged into its entry.
    fn add_stuck(&self, settings: Value) {
        let exe = std::env::current_exe().unwrap();
        let mut entry = json!({
            "command": exe,
            "env": {FIXTURE: "stuck", MARKER: self.path("stuck-cancelled"), COUNT: self.path("stuck-lists")},
            "universal": true
        });
        if let Value::Object(more) = settings {
            entry.as_object_mut().unwrap().extend(more);
        }
        let file = self.path("gateway.json");
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        doc["mcpServers"]["stuck"] = entry;
        write(&file, doc.to_string());
    }

    /// Like [`Setup::start`], with the gateway's process: its stdin is closed when the
    /// session ends.
    async fn spawn(&self) -> (Session, Client, tokio::process::Child) {
        let log = std::fs::File::create(self.path("gateway.log")).unwrap();
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"))
            .arg("mcp")
            .arg("--skills-dir")
            .arg(self.path("skills"))
            .arg("--gateway")
            .arg(self.path("gateway.json"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::from(log))
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        let client = Client::default();
        let session = client.clone().serve((stdout, stdin)).await.unwrap();
        (session, client, child)
    }

    /// How many times the `stuck` server was asked for its tools (pages included).
    fn lists(&self) -> usize {
        std::fs::read_to_string(self.path("stuck-lists"))
            .map(|s| s.trim().parse().unwrap_or(0))
            .unwrap_or(0)
    }

    /// How many of the `stuck` server's calls were cancelled.
    fn cancelled(&self) -> usize {
        std::fs::read_to_string(self.path("stuck-cancelled"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Sends a call of `tool` without waiting for its answer.
async fn send_call(
    session: &Session,
    tool: &str,
    args: Value,
) -> rmcp::service::RequestHandle<RoleClient> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.as_object().cloned();
    session
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap()
}

/// `ping`, answered within 10 s.
async fn ping(session: &Session) {
    let pinged = tokio::time::timeout(
        Duration::from_secs(10),
        session
            .peer()
            .send_request(ClientRequest::PingRequest(Default::default())),
    )
    .await;
    assert!(matches!(pinged, Ok(Ok(_))), "no answer to ping: {pinged:?}");
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

async fn names(session: &Session) -> Vec<String> {
    session
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

async fn call(session: &Session, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.as_object().cloned();
    session.call_tool(params).await
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until `done` holds, at most 10 s.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Seed 000's two levels as tools/list: the router's tools only, then a skill's scope
/// after view_skill (with the notification), proxied calls of every content type, the
/// swap to another skill, the refusal outside the scope, and back to Level 1.
/// `skills-mcp` leaves the MCP client out (docs/performance.md): given `--gateway`, it
/// runs `skills mcp` beside it, which serves the gateway itself.
async fn the_skills_mcp_binary_hands_a_gateway_to_skills() {
    let setup = Setup::new(json!({}));
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills-mcp"));
    let (session, _client) = setup.start_with(command).await;
    assert_eq!(names(&session).await, ["view_skill", "fetch"]);
    let loaded = call(&session, "view_skill", json!({"skill_name": "trino-debug"}))
        .await
        .unwrap();
    assert_eq!(loaded.is_error, Some(false), "{}", text(&loaded));
    session.cancel().await.unwrap();
}

async fn level_one_then_a_skill_scope_proxied() {
    let setup = Setup::new(json!({}));
    let (session, client) = setup.start().await;

    assert_eq!(names(&session).await, ["view_skill", "fetch"]);
    let outside = call(&session, "query", json!({"sql": "select 1"}))
        .await
        .unwrap();
    assert_eq!(outside.is_error, Some(true));
    assert!(
        text(&outside).contains("it belongs to skill `report-writer`, `trino-debug`"),
        "{}",
        text(&outside)
    );

    let loaded = call(&session, "view_skill", json!({"skill_name": "trino-debug"}))
        .await
        .unwrap();
    assert_eq!(loaded.is_error, Some(false), "{}", text(&loaded));
    let prompt = text(&loaded);
    assert!(
        prompt.contains("You are a Trino query optimization expert."),
        "{prompt}"
    );
    // The references are shown as the downstream tools they name.
    assert!(prompt.contains("Run a SQL query on Trino."), "{prompt}");
    eventually("tools/list_changed", || {
        client.tools_changed.load(Ordering::SeqCst) >= 1
    })
    .await;
    assert_eq!(
        names(&session).await,
        [
            "view_skill",
            "leave_skill",
            "fetch",
            "query",
            "explain",
            "chart",
            "broken",
            "slow",
            "crash",
            "grow"
        ]
    );
    let tools = session.list_all_tools().await.unwrap();
    let query = tools.iter().find(|t| t.name == "query").unwrap();
    assert_eq!(query.input_schema["required"], json!(["sql"]));
    assert_eq!(
        query.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    let rows = call(&session, "query", json!({"sql": "select 1"}))
        .await
        .unwrap();
    assert_eq!(text(&rows), "3 rows for: select 1");
    let plan = call(&session, "explain", json!({"sql": "select 1"}))
        .await
        .unwrap();
    assert_eq!(
        plan.structured_content,
        Some(json!({"plan": "TableScan", "cost": 42}))
    );
    let chart = call(&session, "chart", json!({})).await.unwrap();
    let image = chart.content[0].as_image().expect("an image");
    assert_eq!(
        (image.mime_type.as_str(), image.data.as_str()),
        ("image/png", "iVBORw0KGgo=")
    );
    let broken = call(&session, "broken", json!({})).await.unwrap();
    assert_eq!(broken.is_error, Some(true));
    assert_eq!(text(&broken), "the catalog is offline");
    let fetched = call(&session, "fetch", json!({"url": "https://example.com"}))
        .await
        .unwrap();
    assert_eq!(text(&fetched), "fetched https://example.com");

    // Another skill swaps the scope: `query` stays, `explain` goes.
    call(
        &session,
        "view_skill",
        json!({"skill_name": "report-writer"}),
    )
    .await
    .unwrap();
    eventually("the second tools/list_changed", || {
        client.tools_changed.load(Ordering::SeqCst) >= 2
    })
    .await;
    assert_eq!(
        names(&session).await,
        ["view_skill", "leave_skill", "fetch", "query"]
    );
    let refused = call(&session, "explain", json!({"sql": "x"}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).starts_with(
            "Tool `explain` is not available in the scope of skill `report-writer`: it belongs to skill `trino-debug`."
        ),
        "{}",
        text(&refused)
    );

    let left = call(&session, "leave_skill", json!({})).await.unwrap();
    assert!(
        text(&left).contains("Left skill `report-writer`"),
        "{}",
        text(&left)
    );
    eventually("the third tools/list_changed", || {
        client.tools_changed.load(Ordering::SeqCst) >= 3
    })
    .await;
    assert_eq!(names(&session).await, ["view_skill", "fetch"]);

    // Scoped resources: none at Level 1, the skill's after view_skill, read from the server;
    // outside the scope a read names the skill.
    let none: Vec<String> = session
        .list_all_resources()
        .await
        .unwrap()
        .iter()
        .map(|r| r.uri.clone())
        .collect();
    assert!(none.is_empty(), "{none:?}");
    let rule = rmcp::model::ReadResourceRequestParams::new("trino://rules/optimization.md");
    let refused = session.read_resource(rule.clone()).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("it belongs to skill `trino-debug`"),
        "{refused}"
    );
    call(&session, "view_skill", json!({"skill_name": "trino-debug"}))
        .await
        .unwrap();
    let listed: Vec<String> = session
        .list_all_resources()
        .await
        .unwrap()
        .iter()
        .map(|r| r.uri.clone())
        .collect();
    assert_eq!(listed, ["trino://rules/optimization.md"]);
    let read = session.read_resource(rule).await.unwrap();
    assert!(
        matches!(&read.contents[0], rmcp::model::ResourceContents::TextResourceContents { text, .. } if text == "Filter on partition columns first."),
        "{read:?}"
    );
    let other = rmcp::model::ReadResourceRequestParams::new("trino://catalog/tables.json");
    assert!(session.read_resource(other).await.is_err());
    call(&session, "leave_skill", json!({})).await.unwrap();

    // A name no skill and no server has stays a protocol error.
    let unknown = call(&session, "nope", json!({})).await.unwrap_err();
    assert!(matches!(unknown, ServiceError::McpError(_)), "{unknown:?}");
    session.cancel().await.unwrap();

    let log = setup.log();
    for line in [
        "[gateway] server=trino started, 7 tools",
        "[gateway] scope: skill=trino-debug tools=7",
        "[gateway] skill=trino-debug tool=query server=trino duration=",
        "[gateway] skill=trino-debug tool=broken server=trino",
        "[gateway] scope: skill=report-writer tools=1",
        "[gateway] skill=report-writer tool=explain refused: outside the scope",
        "[gateway] scope: left skill=report-writer",
        "[gateway] skill=trino-debug resource=trino://rules/optimization.md server=trino",
        "[gateway] skill=- tool=nope refused: unknown tool",
        "[gateway] skill=- resource=trino://rules/optimization.md refused: outside the scope",
        "[gateway] skill=trino-debug resource=trino://catalog/tables.json refused: unknown resource",
    ] {
        assert!(log.contains(line), "no {line:?} in the log:\n{log}");
    }
    assert!(log.contains("outcome=tool-error"), "{log}");
    // The log is the gateway's words: rmcp's warnings printed each error answer as a Rust
    // value (`response error … error=ErrorData { code: ErrorCode(-32602), … }`).
    for rust in ["ErrorData", "ErrorCode"] {
        assert!(!log.contains(rust), "{rust:?} in the log:\n{log}");
    }
}

/// Progress of a slow downstream call reaches the client; cancelling it cancels it
/// downstream; a server that dies under a call is a tool error, restarted, and answers the
/// next call.
async fn progress_cancellation_and_a_crash() {
    let setup = Setup::new(json!({}));
    let (session, client) = setup.start().await;
    call(&session, "view_skill", json!({"skill_name": "trino-debug"}))
        .await
        .unwrap();

    let mut params = CallToolRequestParams::new("slow");
    params.arguments = json!({}).as_object().cloned();
    let handle = session
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    eventually("two progress notifications", || {
        client
            .progress
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.progress_token == token)
            .count()
            >= 2
    })
    .await;
    handle
        .cancel(Some("the user gave up".to_string()))
        .await
        .unwrap();
    let marker = setup.path("cancelled");
    eventually("the downstream call cancelled", || marker.exists()).await;

    let crashed = call(&session, "crash", json!({})).await.unwrap();
    assert_eq!(crashed.is_error, Some(true));
    assert!(
        text(&crashed).contains("MCP server `trino` stopped during the call of `crash`")
            && text(&crashed).contains("it was restarted"),
        "{}",
        text(&crashed)
    );
    let again = call(&session, "query", json!({"sql": "select 2"}))
        .await
        .unwrap();
    assert_eq!(text(&again), "3 rows for: select 2");
    session.cancel().await.unwrap();
}

/// A Streamable HTTP downstream server (the `fetch` fixture, served by this test) behind a
/// gateway that is itself served over Streamable HTTP: two sessions, each with its own
/// scope, over the same downstream servers.
async fn over_http_both_ways_with_a_scope_per_session() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use tokio::io::AsyncBufReadExt as _;

    let service = StreamableHttpService::new(
        || Ok(fixture::Fixture::named("fetch")),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let downstream = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let app = axum::Router::new().nest_service("/mcp", service);
        axum::serve(listener, app).await.unwrap();
    });
    let setup = Setup::new(json!({}));
    // `fetch` is now the HTTP server, with a header the gateway must send.
    let exe = std::env::current_exe().unwrap();
    write(
        &setup.path("gateway.json"),
        json!({"mcpServers": {
            "trino": {"command": exe, "env": {FIXTURE: "trino"}},
            "fetch": {"url": downstream, "headers": {"X-Team": "data"}, "universal": true}
        }})
        .to_string(),
    );
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("mcp")
        .arg("--skills-dir")
        .arg(setup.path("skills"))
        .arg("--gateway")
        .arg(setup.path("gateway.json"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("the gateway announces its address");
        if let Some((_, url)) = line.split_once("Streamable HTTP at ") {
            break url.trim().to_string();
        }
    };
    // reqwest brings no TLS provider; a program using it installs one (ring, as skills does).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let connect = || async {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
        let client = Client::default();
        (client.clone().serve(transport).await.unwrap(), client)
    };
    let (first, _) = connect().await;
    let (second, _) = connect().await;
    call(&first, "view_skill", json!({"skill_name": "trino-debug"}))
        .await
        .unwrap();
    assert!(names(&first).await.contains(&"explain".to_string()));
    assert_eq!(names(&second).await, ["view_skill", "fetch"]);
    let fetched = call(&second, "fetch", json!({"url": "https://example.org"}))
        .await
        .unwrap();
    assert_eq!(text(&fetched), "fetched https://example.org (X-Team: data)");
    let rows = call(&first, "query", json!({"sql": "select 3"}))
        .await
        .unwrap();
    assert_eq!(text(&rows), "3 rows for: select 3");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

/// The `_meta` key of a request's active skill (docs/gateway.md).
const SCOPE_KEY: &str = "io.github.skills-rs/activeSkill";

/// A 2026-07-28 client of the gateway over HTTP, as bytes: no `initialize`, no session, so
/// the scope cannot be the session's. `view_skill` answers with the scope in its result's
/// `_meta`; a request that sends it back is in the skill's scope (its tools listed and
/// proxied), one that does not is at Level 1, and a scope that names no skill is refused.
/// No `notifications/tools/list_changed` rides on the answers (the stateless revision
/// sends those on `subscriptions/listen` streams only).
async fn over_http_a_stateless_client_names_its_scope_in_meta() {
    use tokio::io::AsyncBufReadExt as _;
    let setup = Setup::new(json!({}));
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("mcp")
        .arg("--skills-dir")
        .arg(setup.path("skills"))
        .arg("--gateway")
        .arg(setup.path("gateway.json"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("the gateway announces its address");
        if let Some((_, url)) = line.split_once("Streamable HTTP at ") {
            break url.trim().to_string();
        }
    };
    // Every message of the answer to one stateless request (SSE or JSON).
    let post =
        |method: &'static str, name: Option<&str>, mut params: Value, scope: Option<Value>| {
            let url = url.clone();
            let name = name.map(str::to_string);
            let mut meta = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
            if let Some(scope) = scope {
                meta[SCOPE_KEY] = scope;
            }
            params["_meta"] = meta;
            let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
            std::thread::spawn(move || {
                let agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .build()
                    .new_agent();
                let mut request = agent
                    .post(&url)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", method);
                if let Some(name) = &name {
                    request = request.header("Mcp-Name", name);
                }
                let text = request
                    .send(body.to_string())
                    .unwrap()
                    .into_body()
                    .read_to_string()
                    .unwrap();
                let messages: Vec<Value> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:").or(Some(l)))
                    .filter_map(|l| serde_json::from_str(l.trim()).ok())
                    .collect();
                assert!(!messages.is_empty(), "no message in {text:?}");
                messages
            })
            .join()
            .unwrap()
        };
    let answer = |messages: &[Value]| {
        messages
            .iter()
            .find(|m| m["id"] == 7)
            .cloned()
            .unwrap_or_else(|| panic!("no answer in {messages:?}"))
    };
    let tool_names = |messages: &[Value]| -> Vec<String> {
        answer(messages)["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{messages:?}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let call = |tool: &'static str, arguments: Value, scope: Option<Value>| {
        post(
            "tools/call",
            Some(tool),
            json!({"name": tool, "arguments": arguments}),
            scope,
        )
    };

    assert_eq!(
        tool_names(&post("tools/list", None, json!({}), None)),
        ["view_skill", "fetch"]
    );
    let refused = answer(&call("explain", json!({"sql": "select 1"}), None));
    let refusal = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refusal.contains(&format!(
            "Call view_skill with skill_name \"trino-debug\" first, then send the `_meta` its result gives (\"{SCOPE_KEY}\": \"trino-debug\") with this call."
        )),
        "{refusal}"
    );

    let viewed = call("view_skill", json!({"skill_name": "trino-debug"}), None);
    let result = &answer(&viewed)["result"];
    assert_eq!(result["_meta"][SCOPE_KEY], "trino-debug", "{result}");
    assert!(
        viewed
            .iter()
            .all(|m| m["method"] != "notifications/tools/list_changed"),
        "{viewed:?}"
    );

    let scope = Some(json!("trino-debug"));
    let scoped = tool_names(&post("tools/list", None, json!({}), scope.clone()));
    assert!(
        scoped.starts_with(&["view_skill".into(), "leave_skill".into(), "fetch".into()])
            && scoped.contains(&"explain".to_string()),
        "{scoped:?}"
    );
    let explained = answer(&call("explain", json!({"sql": "select 1"}), scope.clone()));
    assert_eq!(
        explained["result"]["structuredContent"],
        json!({"plan": "TableScan", "cost": 42}),
        "{explained}"
    );
    let resources = answer(&post("resources/list", None, json!({}), scope.clone()));
    assert_eq!(
        resources["result"]["resources"][0]["uri"], "trino://rules/optimization.md",
        "{resources}"
    );
    // Nothing was held: a request without the scope is at Level 1 again.
    assert_eq!(
        tool_names(&post("tools/list", None, json!({}), None)),
        ["view_skill", "fetch"]
    );
    // Another skill's scope: its tools, not trino-debug's.
    let report = tool_names(&post(
        "tools/list",
        None,
        json!({}),
        Some(json!("report-writer")),
    ));
    assert!(
        report.contains(&"query".to_string()) && !report.contains(&"explain".to_string()),
        "{report:?}"
    );
    // leave_skill says to send none.
    let left = answer(&call("leave_skill", json!({}), scope.clone()));
    assert_eq!(left["result"]["_meta"][SCOPE_KEY], Value::Null, "{left}");
    // A scope that names no skill, or is not a name, is refused.
    for bad in [json!("nope"), json!(3)] {
        let refused = answer(&post("tools/list", None, json!({}), Some(bad.clone())));
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains(SCOPE_KEY),
            "{refused}"
        );
    }
    drop(child);
}

/// A 2026-07-28 client's `subscriptions/listen` stream on the gateway over HTTP: told,
/// with its `subscriptionId`, when a downstream server's tools change (the `stuck` server's
/// `flood` announces a change) and when a skill appears on disk; and only of the type it
/// asked for.
async fn over_http_a_listen_stream_hears_of_downstream_and_skill_changes() {
    use std::io::BufRead as _;
    use tokio::io::AsyncBufReadExt as _;
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("mcp")
        .arg("--skills-dir")
        .arg(setup.path("skills"))
        .arg("--gateway")
        .arg(setup.path("gateway.json"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("the gateway announces its address");
        if let Some((_, url)) = line.split_once("Streamable HTTP at ") {
            break url.trim().to_string();
        }
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let agent = || {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent()
    };
    let (events, received) = std::sync::mpsc::channel::<Value>();
    let listen = json!({"jsonrpc": "2.0", "id": "gw-listen", "method": "subscriptions/listen",
        "params": {"_meta": meta.clone(), "notifications": {"toolsListChanged": true}}});
    let listen_url = url.clone();
    std::thread::spawn(move || {
        let response = agent()
            .post(&listen_url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "subscriptions/listen")
            .send(listen.to_string())
            .unwrap();
        let stream = std::io::BufReader::new(response.into_body().into_reader());
        for line in stream.lines() {
            let Ok(line) = line else { break };
            if let Some(data) = line.strip_prefix("data:")
                && let Ok(message) = serde_json::from_str::<Value>(data.trim())
                && events.send(message).is_err()
            {
                break;
            }
        }
    });
    let next = |what: &str| {
        received
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no {what} within 20 s"))
    };
    let ack = next("acknowledgement");
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    let told = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "gw-listen"}}});

    // A downstream change: `flood` makes the stuck server announce a new tool.
    let flood = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "flood", "arguments": {"count": 3}, "_meta": meta}});
    let called_url = url.clone();
    let answer = std::thread::spawn(move || {
        agent()
            .post(&called_url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "flood")
            .send(flood.to_string())
            .unwrap()
            .into_body()
            .read_to_string()
            .unwrap()
    })
    .join()
    .unwrap();
    assert!(answer.contains("flooded"), "{answer}");
    assert_eq!(next("a notification of the downstream change"), told);

    // The flood's later re-lists may tell again; each is the same notification, and only
    // the type asked for.
    std::thread::sleep(Duration::from_secs(1));
    while let Ok(more) = received.try_recv() {
        assert_eq!(more, told);
    }
    // A skill on disk.
    write(
        &setup.path("skills/fresh/SKILL.md"),
        "---\nname: fresh\ndescription: Brand new. Use when testing.\n---\n# Fresh\n",
    );
    assert_eq!(next("a notification of the new skill"), told);
    drop(received);
    drop(child);
}

/// A downstream server that cannot be started leaves the others served; the log says why.
async fn a_server_that_does_not_start_is_reported() {
    let setup = Setup::new(json!({
        "docs": {"command": "/nonexistent/docs-mcp", "universal": true},
        "search": {"command": "/nonexistent/search-mcp", "universal": ["lookup"]}
    }));
    let (session, _client) = setup.start().await;
    assert_eq!(names(&session).await, ["view_skill", "fetch"]);
    // Its tools are not listed, so a call of one was `unknown tool "…"`: it says which
    // server is not running, and why.
    let named = call(&session, "lookup", json!({})).await.unwrap();
    assert_eq!(named.is_error, Some(true));
    assert!(
        text(&named).starts_with(
            "Tool `lookup` is not available: it is a tool of MCP server `search`, which is not running (cannot start `/nonexistent/search-mcp`: "
        ),
        "{}",
        text(&named)
    );
    let maybe = call(&session, "summarize", json!({})).await.unwrap();
    assert_eq!(maybe.is_error, Some(true));
    assert!(
        text(&maybe).starts_with(
            "Tool `summarize` is not available: MCP server `docs`, whose tools are all universal, is not running (cannot start `/nonexistent/docs-mcp`: "
        ) && text(&maybe).ends_with("), so its tools are not listed."),
        "{}",
        text(&maybe)
    );
    session.cancel().await.unwrap();
    let log = setup.log();
    assert!(
        log.contains("[gateway] server=docs not started: cannot start `/nonexistent/docs-mcp`"),
        "{log}"
    );
    assert!(
        log.contains("[gateway] skill=- tool=lookup refused: its server is not running"),
        "{log}"
    );
}

/// With more calls hanging on a server than the gateway lets be in flight, the client is
/// still read: the calls over the cap are refused at once, `ping` and another server's
/// tools are answered, and `notifications/cancelled` reaches the hanging call downstream.
async fn hanging_calls_leave_ping_other_servers_and_cancel_served() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let (session, _client, _child) = setup.spawn().await;
    let mut handles = Vec::new();
    for _ in 0..70 {
        handles.push(send_call(&session, "hang", json!({})).await);
    }
    ping(&session).await;
    let fetched = tokio::time::timeout(
        Duration::from_secs(10),
        call(&session, "fetch", json!({"url": "https://example.net"})),
    )
    .await
    .expect("another server's tool answers")
    .unwrap();
    assert_eq!(text(&fetched), "fetched https://example.net");
    // The six over the cap are answered, with a tool error that says why.
    let mut refused = Vec::new();
    for _ in 0..200 {
        for (i, handle) in handles.iter_mut().enumerate() {
            if let Ok(answer) = handle.rx.try_recv() {
                refused.push((i, answer));
            }
        }
        if refused.len() >= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(refused.len(), 6, "{refused:?}");
    for (_, answer) in &refused {
        let Ok(rmcp::model::ServerResult::CallToolResult(result)) = answer else {
            panic!("{answer:?}");
        };
        assert_eq!(result.is_error, Some(true));
        assert!(
            text(result).contains("MCP server `stuck` has 64 calls in flight"),
            "{}",
            text(result)
        );
    }
    let pending = (0..handles.len())
        .find(|i| refused.iter().all(|(r, _)| r != i))
        .unwrap();
    handles
        .swap_remove(pending)
        .cancel(Some("the user gave up".to_string()))
        .await
        .unwrap();
    eventually("the hanging call cancelled downstream", || {
        setup.cancelled() >= 1
    })
    .await;
    ping(&session).await;
    session.cancel().await.unwrap();
}

/// A call that outlasts its server's `callTimeout` is a tool error that names the server,
/// the tool and the limit, and is cancelled downstream.
async fn a_call_past_its_timeout_is_a_tool_error() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({"callTimeout": 1}));
    let (session, _client) = setup.start().await;
    let result = tokio::time::timeout(Duration::from_secs(15), call(&session, "hang", json!({})))
        .await
        .expect("the call is answered")
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("MCP server `stuck` did not answer the call of `hang` within 1 s"),
        "{}",
        text(&result)
    );
    eventually("the call cancelled downstream", || setup.cancelled() >= 1).await;
    session.cancel().await.unwrap();
    assert!(setup.log().contains("outcome=timeout"), "{}", setup.log());
}

/// Tens of thousands of `tools/list_changed` from one server cost a few re-lists, not one
/// each: the gateway's memory stays small, and the last change is followed.
async fn a_list_changed_flood_is_coalesced() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let (session, _client, child) = setup.spawn().await;
    let pid = child.id().unwrap();
    let flooded = tokio::time::timeout(
        Duration::from_secs(60),
        call(&session, "flood", json!({"count": 20000})),
    )
    .await
    .expect("the flood ends")
    .unwrap();
    assert_eq!(text(&flooded), "flooded");
    for _ in 0..600 {
        if names(&session).await.contains(&"extra".to_string()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(names(&session).await.contains(&"extra".to_string()));
    let lists = setup.lists();
    assert!(lists < 1000, "{lists} re-lists for 20,000 notifications");
    let rss = rss_kib(pid);
    assert!(rss < 400 * 1024, "the gateway holds {rss} KiB");
    ping(&session).await;
    session.cancel().await.unwrap();
}

/// A server whose `tools/list` answers `nextCursor` forever is listed up to the page cap,
/// then left: the pages asked for stop growing, and the gateway still answers.
async fn endless_pages_are_cut() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let (session, _client, child) = setup.spawn().await;
    let pid = child.id().unwrap();
    let before = setup.lists();
    call(&session, "endless", json!({})).await.unwrap();
    let mut last = 0;
    let mut steady = 0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = setup.lists();
        assert!(now < before + 1000, "{now} pages asked for, and counting");
        if now == last && now > before {
            steady += 1;
            if steady == 5 {
                break;
            }
        } else {
            steady = 0;
        }
        last = now;
    }
    assert_eq!(steady, 5, "the listing never stopped ({last} pages)");
    let rss = rss_kib(pid);
    assert!(rss < 400 * 1024, "the gateway holds {rss} KiB");
    ping(&session).await;
    // What was listed before the cut is served.
    assert!(names(&session).await.contains(&"page99".to_string()));
    session.cancel().await.unwrap();
    assert!(
        setup
            .log()
            .contains("server=stuck: tools/list stopped after"),
        "{}",
        setup.log()
    );
}

/// A result the gateway will not read (over 16 MiB) is a tool error, and the server's
/// next answers are read as before.
async fn a_result_over_16_mib_is_a_tool_error() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let (session, _client) = setup.start().await;
    let result = tokio::time::timeout(Duration::from_secs(30), call(&session, "huge", json!({})))
        .await
        .expect("the call is answered")
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result)
            .contains("MCP server `stuck` answered the call of `huge` with a message over 16 MiB"),
        "{}",
        text(&result)
    );
    let small = call(&session, "small", json!({})).await.unwrap();
    assert_eq!(text(&small), "small");
    session.cancel().await.unwrap();
}

/// A server that floods progress to a client that reads nothing: the progress the gateway
/// cannot deliver is dropped, not queued, and its memory stays small.
async fn a_progress_flood_to_a_client_that_does_not_read_stays_small() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let log = std::fs::File::create(setup.path("gateway.log")).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("mcp")
        .arg("--skills-dir")
        .arg(setup.path("skills"))
        .arg("--gateway")
        .arg(setup.path("gateway.json"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::from(log))
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line))
        .await
        .unwrap()
        .unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "chatty", "arguments": {"count": 30000}, "_meta": {"progressToken": "p"}}});
    stdin
        .write_all(format!("{initialized}\n{call}\n").as_bytes())
        .await
        .unwrap();
    // stdout is not read from here on.
    let marker = setup.path("stuck-cancelled");
    for _ in 0..1200 {
        if std::fs::read_to_string(&marker).is_ok_and(|m| m.contains("done")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        std::fs::read_to_string(&marker).is_ok_and(|m| m.contains("done")),
        "the server never finished its progress"
    );
    let rss = rss_kib(pid);
    assert!(rss < 100 * 1024, "the gateway holds {rss} KiB");
}

/// When the client closes stdin with calls in flight (more than the read-ahead holds), the
/// gateway gives them up within a few seconds and exits.
async fn stdin_closed_with_calls_in_flight_exits_soon() {
    let setup = Setup::new(json!({}));
    setup.add_stuck(json!({}));
    let (session, _client, mut child) = setup.spawn().await;
    let mut handles = Vec::new();
    for _ in 0..70 {
        handles.push(send_call(&session, "hang", json!({})).await);
    }
    // Answered after the calls were read.
    ping(&session).await;
    session.cancel().await.unwrap();
    let started = std::time::Instant::now();
    let exited = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    assert!(
        matches!(exited, Ok(Ok(_))),
        "still running {:?} after stdin closed",
        started.elapsed()
    );
    // The gateway gives the calls 2 s; rmcp alone would wait 5 s for their answers.
    assert!(
        started.elapsed() < Duration::from_millis(4500),
        "exited {:?} after stdin closed",
        started.elapsed()
    );
}

/// `skills lint --gateway FILE` lists each server's tools as the gateway does and holds the
/// references to them (`tool-reference-unknown`, with a did-you-mean); a server that cannot
/// be listed is a warning, and is checked by name only.
fn lint_holds_references_to_the_gateway() {
    let setup = Setup::new(json!({"docs": {"command": "/nonexistent/docs-mcp"}}));
    let lint = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
            .current_dir(setup.dir.path())
            .args(["lint", "--no-config", "--gateway", "gateway.json"])
            .args(args)
            .output()
            .unwrap()
    };
    let clean = lint(&["skills"]);
    let stderr = String::from_utf8_lossy(&clean.stderr);
    assert_eq!(clean.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "gateway.json: cannot list the tools of `docs` (cannot start `/nonexistent/docs-mcp`"
        ),
        "{stderr}"
    );
    write(
        &setup.path("skills/typo/SKILL.md"),
        "---
name: typo
description: Query Trino with typos. Use when testing references.
---
Query.
",
    );
    write(
        &setup.path("skills/typo/tools.json"),
        r#"[{"server": "trino", "name": "qurey"}, {"server": "trinoo", "name": "query"}, {"server": "docs", "name": "search"}]"#,
    );
    let found = lint(&["--format", "json", "skills"]);
    assert_eq!(found.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&found.stdout).unwrap();
    let findings: Vec<(String, String, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0].0, "tool-reference-unknown");
    assert_eq!(findings[0].1, "server `trino` has no tool `qurey`");
    assert!(
        findings[0].2.starts_with("did you mean `query`?"),
        "{findings:#?}"
    );
    assert_eq!(findings[1].1, "server `trinoo` is not in the gateway file");
    // Without --gateway the references are only checked for their shape.
    let plain = std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .current_dir(setup.dir.path())
        .args(["lint", "--no-config", "skills"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
}

/// A gateway file the gateway cannot use stops it before it serves, with the place.
fn a_bad_gateway_file_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gateway.json");
    write(
        &file,
        "{\n  \"mcpServers\": {\n    \"trino\": {\"args\": []}\n  }\n}\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["mcp", "--gateway"])
        .arg(&file)
        // The message starts with the temporary path, whose length depends on `TMPDIR`: wide
        // enough that it is not wrapped.
        .env("COLUMNS", "400")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "gateway.json:3:5: server `trino` needs a `command` (stdio) or an http(s) `url`"
        ),
        "{stderr}"
    );
    // A file that is not there has no line and column (it was `nope.json:1:1: cannot read
    // it`).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["mcp", "--gateway", "nope.json"])
        .current_dir(dir.path())
        .env("COLUMNS", "400")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nope.json: there is no such file") && stderr.contains("mcpServers"),
        "{stderr}"
    );
}

/// docs/gateway.md's example, `examples/gateway/`, needs nothing but `skills`: its
/// downstream server is `skills mcp` over the example's `library`. Run where the docs say
/// (in the example's directory, `skills` on `PATH`), each exchange of the docs' transcript is
/// what the gateway answers: the tools listed, the refusal, the scoped call.
async fn the_docs_example_runs_as_shipped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let example = root.join("examples/gateway");
    let doc = std::fs::read_to_string(root.join("docs/gateway.md")).unwrap();
    let block = doc
        .split("<!-- example:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- example:end -->").next())
        .expect("docs/gateway.md has the example between its markers");
    let exe = Path::new(env!("CARGO_BIN_EXE_skills"));
    let path = std::env::join_paths(std::iter::once(exe.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut command = tokio::process::Command::new(exe);
    command
        .args(["mcp", "--skills-dir", "skills", "--gateway", "gateway.json"])
        .current_dir(&example)
        .env("PATH", path);
    assert!(
        block
            .contains("cd examples/gateway\nskills mcp --skills-dir skills --gateway gateway.json"),
        "{block}"
    );
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = Client::default();
    let session = client.clone().serve(transport).await.unwrap();
    let mut exchanges = 0;
    let lines: Vec<&str> = block.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(request) = line.strip_prefix("→ ") else {
            continue;
        };
        let answers: Vec<&str> = lines[i + 1..]
            .iter()
            .map_while(|l| l.strip_prefix("← "))
            .collect();
        if request == "tools/list" {
            assert_eq!(names(&session).await.join(", "), answers.join(""), "{line}");
        } else {
            let rest = request.strip_prefix("tools/call ").expect(line);
            let (tool, args) = rest.split_once(' ').unwrap();
            let result = call(&session, tool, serde_json::from_str(args).unwrap())
                .await
                .unwrap();
            let got = text(&result);
            for answer in answers {
                if answer == "notifications/tools/list_changed" {
                    let changed = &client.tools_changed;
                    eventually(answer, || changed.load(Ordering::SeqCst) >= 1).await;
                } else if let Some(error) = answer.strip_prefix("(isError) ") {
                    assert_eq!(result.is_error, Some(true), "{line}");
                    assert_eq!(got, error, "{line}");
                } else {
                    assert_eq!(result.is_error, Some(false), "{line}: {got}");
                    for part in answer.split('…').map(str::trim).filter(|p| !p.is_empty()) {
                        assert!(got.contains(part), "{line}: no {part:?} in {got}");
                    }
                }
            }
        }
        exchanges += 1;
    }
    assert_eq!(exchanges, 5, "{block}");
    session.cancel().await.unwrap();
}

/// The downstream servers this binary becomes.
mod fixture {
    use std::process::ExitCode;
    use std::time::Duration;

    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
        ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
    };
    use rmcp::service::RequestContext;
    use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
    use serde_json::{Value, json};

    pub(super) fn serve(name: &str) -> ExitCode {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = Fixture::named(name);
        runtime.block_on(async move {
            let service = server.serve(rmcp::transport::stdio()).await.unwrap();
            let _ = service.waiting().await;
        });
        ExitCode::SUCCESS
    }

    pub(super) struct Fixture {
        name: String,
        /// Set by `grow` and `flood`: the server then has one tool more.
        grown: std::sync::atomic::AtomicBool,
        /// Set by `endless`: `tools/list` then answers `nextCursor` forever.
        endless: std::sync::atomic::AtomicBool,
        /// How many `tools/list` requests were answered.
        lists: std::sync::atomic::AtomicUsize,
    }

    impl Fixture {
        pub(super) fn named(name: &str) -> Self {
            Self {
                name: name.to_string(),
                grown: std::sync::atomic::AtomicBool::new(false),
                endless: std::sync::atomic::AtomicBool::new(false),
                lists: std::sync::atomic::AtomicUsize::new(0),
            }
        }
    }

    /// Appends a line to the file `MARKER` names.
    fn mark(line: &str) {
        use std::io::Write as _;
        if let Ok(marker) = std::env::var(super::MARKER) {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(marker)
                .unwrap();
            file.write_all(format!("{line}\n").as_bytes()).unwrap();
        }
    }

    fn schema(value: Value) -> rmcp::model::JsonObject {
        value.as_object().cloned().unwrap_or_default()
    }

    fn tools(name: &str) -> Vec<Tool> {
        let sql = || {
            schema(
                json!({"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}),
            )
        };
        let none = || schema(json!({"type": "object"}));
        match name {
            "trino" => vec![
                Tool::new("query", "Run a SQL query on Trino.", sql())
                    .with_annotations(ToolAnnotations::new().read_only(true)),
                Tool::new(
                    "explain",
                    "The plan of a query, as structured content.",
                    sql(),
                ),
                Tool::new("chart", "A chart of the last result, as an image.", none()),
                Tool::new("broken", "Always fails.", none()),
                Tool::new("slow", "Reports progress until cancelled.", none()),
                Tool::new("crash", "Ends the server's process.", none()),
                Tool::new("grow", "Adds the tool `extra` and says so.", none()),
            ],
            "stuck" => vec![
                Tool::new("hang", "Never answers (until cancelled).", none()),
                Tool::new("huge", "Answers with 17 MiB of text.", none()),
                Tool::new("small", "Answers `small`.", none()),
                Tool::new(
                    "flood",
                    "Sends `count` tools/list_changed, then adds `extra` and says so once more.",
                    none(),
                ),
                Tool::new("endless", "From now on, tools/list pages forever.", none()),
                Tool::new(
                    "chatty",
                    "Sends `count` progress notifications, then says `done` in MARKER.",
                    none(),
                ),
            ],
            _ => vec![Tool::new(
                "fetch",
                "Fetch a URL.",
                schema(json!({"type": "object", "properties": {"url": {"type": "string"}}})),
            )],
        }
    }

    impl ServerHandler for Fixture {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(
                ServerCapabilities::builder()
                    .enable_tools()
                    .enable_resources()
                    .build(),
            )
        }

        async fn list_resources(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListResourcesResult, ErrorData> {
            let resources = match self.name.as_str() {
                "trino" => vec![
                    Resource::new("trino://rules/optimization.md", "optimization rules"),
                    Resource::new("trino://catalog/tables.json", "tables"),
                ],
                _ => Vec::new(),
            };
            Ok(ListResourcesResult::with_all_items(resources))
        }

        async fn read_resource(
            &self,
            request: ReadResourceRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<ReadResourceResponse, ErrorData> {
            let text = match request.uri.as_str() {
                "trino://rules/optimization.md" => "Filter on partition columns first.",
                "trino://catalog/tables.json" => "[\"orders\"]",
                other => {
                    return Err(ErrorData::resource_not_found(format!("no {other}"), None));
                }
            };
            Ok(ReadResourceResult::new(vec![ResourceContents::text(text, request.uri)]).into())
        }

        async fn list_tools(
            &self,
            request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            use std::sync::atomic::Ordering;
            let lists = self.lists.fetch_add(1, Ordering::SeqCst) + 1;
            if let Ok(count) = std::env::var(super::COUNT) {
                std::fs::write(count, lists.to_string()).unwrap();
            }
            if self.endless.load(Ordering::SeqCst) {
                let page: u64 = request
                    .and_then(|r| r.cursor)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let mut result = ListToolsResult::with_all_items(vec![Tool::new(
                    format!("page{page}"),
                    "One more page.",
                    schema(json!({"type": "object"})),
                )]);
                result.next_cursor = Some((page + 1).to_string());
                return Ok(result);
            }
            let mut all = tools(&self.name);
            if self.grown.load(std::sync::atomic::Ordering::SeqCst) {
                all.push(Tool::new(
                    "extra",
                    "Added by `grow`.",
                    schema(json!({"type": "object"})),
                ));
            }
            Ok(ListToolsResult::with_all_items(all))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let arg = |key: &str| {
                request
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get(key))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let result = match request.name.as_ref() {
                "query" => CallToolResult::success(vec![ContentBlock::text(format!(
                    "3 rows for: {}",
                    arg("sql")
                ))]),
                "explain" => CallToolResult::structured(json!({"plan": "TableScan", "cost": 42})),
                "chart" => {
                    CallToolResult::success(vec![ContentBlock::image("iVBORw0KGgo=", "image/png")])
                }
                "broken" => {
                    CallToolResult::error(vec![ContentBlock::text("the catalog is offline")])
                }
                "fetch" => {
                    // Over HTTP, the header the gateway file gives is echoed.
                    let team = context
                        .extensions
                        .get::<axum::http::request::Parts>()
                        .and_then(|parts| parts.headers.get("x-team"))
                        .and_then(|v| v.to_str().ok())
                        .map(|team| format!(" (X-Team: {team})"))
                        .unwrap_or_default();
                    CallToolResult::success(vec![ContentBlock::text(format!(
                        "fetched {}{team}",
                        arg("url")
                    ))])
                }
                "slow" => {
                    let token = context.meta.get_progress_token();
                    // At once, as fast servers do: before the gateway has seen the answer
                    // to its send, so the route may not be recorded yet.
                    if let Some(token) = &token {
                        let _ = context
                            .peer
                            .notify_progress(ProgressNotificationParam::new(token.clone(), 0.5))
                            .await;
                    }
                    let mut step = 0.0;
                    loop {
                        tokio::select! {
                            () = context.ct.cancelled() => {
                                if let Ok(marker) = std::env::var(super::MARKER) {
                                    std::fs::write(marker, "cancelled").unwrap();
                                }
                                break CallToolResult::error(vec![ContentBlock::text("cancelled")]);
                            }
                            () = tokio::time::sleep(Duration::from_millis(50)) => {
                                step += 1.0;
                                if let Some(token) = &token {
                                    let _ = context
                                        .peer
                                        .notify_progress(ProgressNotificationParam::new(token.clone(), step))
                                        .await;
                                }
                                if step > 200.0 {
                                    break CallToolResult::success(vec![ContentBlock::text("done")]);
                                }
                            }
                        }
                    }
                }
                "crash" => std::process::exit(3),
                "grow" => {
                    self.grown.store(true, std::sync::atomic::Ordering::SeqCst);
                    let _ = context.peer.notify_tool_list_changed().await;
                    CallToolResult::success(vec![ContentBlock::text("grown")])
                }
                "extra" => CallToolResult::success(vec![ContentBlock::text("extra here")]),
                "hang" => {
                    context.ct.cancelled().await;
                    mark("cancelled");
                    CallToolResult::error(vec![ContentBlock::text("cancelled")])
                }
                "huge" => CallToolResult::success(vec![ContentBlock::text("x".repeat(17 << 20))]),
                "small" => CallToolResult::success(vec![ContentBlock::text("small")]),
                "flood" => {
                    let count = request
                        .arguments
                        .as_ref()
                        .and_then(|a| a.get("count"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    for _ in 0..count {
                        let _ = context.peer.notify_tool_list_changed().await;
                    }
                    self.grown.store(true, std::sync::atomic::Ordering::SeqCst);
                    let _ = context.peer.notify_tool_list_changed().await;
                    CallToolResult::success(vec![ContentBlock::text("flooded")])
                }
                "chatty" => {
                    let count = request
                        .arguments
                        .as_ref()
                        .and_then(|a| a.get("count"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    if let Some(token) = context.meta.get_progress_token() {
                        for step in 0..count {
                            let _ = context
                                .peer
                                .notify_progress(ProgressNotificationParam::new(
                                    token.clone(),
                                    step as f64,
                                ))
                                .await;
                        }
                    }
                    mark("done");
                    CallToolResult::success(vec![ContentBlock::text("chatty")])
                }
                "endless" => {
                    self.endless
                        .store(true, std::sync::atomic::Ordering::SeqCst);
                    let _ = context.peer.notify_tool_list_changed().await;
                    CallToolResult::success(vec![ContentBlock::text("endless")])
                }
                other => {
                    return Err(ErrorData::invalid_params(format!("no tool {other}"), None));
                }
            };
            Ok(result.into())
        }
    }
}

//! `serve` over an in-memory duplex stream: a whole session, and every input the fuzz target
//! `mcp` ever found a problem with (`testdata/fuzz/mcp/`), replayed after `initialize`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use skills_discovery::Roots;
use skills_mcp_server::{Config, LogLevel};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const INIT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// Writes `INIT` and `input`, closes the input and returns what the server wrote, once
/// `serve` has returned.
fn session(input: &[u8]) -> (Result<(), skills_mcp_server::ServeError>, Vec<Value>) {
    let config = Config::new(Roots::custom([testdata().join("examples")])).log_level(LogLevel::Off);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut bytes = INIT.as_bytes().to_vec();
    bytes.extend_from_slice(input);
    let (result, output) = runtime.block_on(async move {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let write = async move {
            client_write.write_all(&bytes).await.unwrap();
            client_write.shutdown().await.unwrap();
            // Keep the write half alive until the server is done: dropping it early would
            // not close the stream (the read half holds it), but be explicit.
            client_write
        };
        let read = async move {
            let mut out = Vec::new();
            client_read.read_to_end(&mut out).await.unwrap();
            out
        };
        let serve = skills_mcp_server::serve(config, server_read, server_write);
        let (_, output, result) = tokio::join!(write, read, serve);
        (result, output)
    });
    let messages = output
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("the server wrote a line that is not JSON"))
        .collect();
    (result, messages)
}

fn response(messages: &[Value], id: i64) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no response with id {id} in {messages:#?}"))
}

#[test]
fn a_session_over_a_duplex_stream() {
    let (result, messages) = session(
        concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}"#,
            "\n",
        )
        .as_bytes(),
    );
    result.unwrap();
    assert_eq!(
        response(&messages, 0)["result"]["serverInfo"]["name"],
        "skills-mcp-server"
    );
    let tools = response(&messages, 1)["result"]["tools"]
        .as_array()
        .unwrap();
    assert!(
        tools.iter().any(|t| t["name"] == "list_skills"),
        "{tools:#?}"
    );
    let listed = response(&messages, 2).to_string();
    assert!(listed.contains("pdf-processing"), "{listed}");
}

#[test]
fn no_initialize_is_a_session_error() {
    let config = Config::new(Roots::custom([testdata().join("examples")])).log_level(LogLevel::Off);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(async move {
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n";
        skills_mcp_server::serve(config, input, tokio::io::sink()).await
    });
    assert!(
        matches!(result, Err(skills_mcp_server::ServeError::Session(_))),
        "{result:?}"
    );
}

/// Every request with a readable id gets exactly one answer, whatever surrounds it.
#[test]
fn every_request_with_an_id_is_answered_once() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{{"name":"list_skills","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let lines = [
        r#"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":5}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_skill","arguments":"x"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":12,"method":"resources/read","params":null}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"\ud800"}}}"#.to_owned(),
        deep,
        r#"{"jsonrpc":"2.0","id":15,"method":"ping"}{"jsonrpc":"2.0","id":16,"method":"tools/list"}"#.to_owned(),
        r#"{"jsonrpc":"1.0","id":17,"method":"ping"}"#.to_owned(),
        r#"[{"jsonrpc":"2.0","id":18,"method":"ping"}]"#.to_owned(),
        "this is not JSON".to_owned(),
        // The last line has no newline: it still counts.
        r#"{"jsonrpc":"2.0","id":19,"method":"ping"}"#.to_owned(),
    ];
    let (result, messages) = session(lines.join("\n").as_bytes());
    result.unwrap();
    let code = |id: i64| response(&messages, id)["error"]["code"].as_i64();
    for id in [10, 11, 12, 13, 14] {
        assert_eq!(code(id), Some(-32602), "{:#?}", response(&messages, id));
    }
    assert!(response(&messages, 15)["result"].is_object());
    assert!(response(&messages, 16)["result"]["tools"].is_array());
    assert_eq!(code(17), Some(-32600));
    assert_eq!(code(18), Some(-32600));
    assert!(response(&messages, 19)["result"].is_object());
    for id in 0..=19 {
        let answers = messages.iter().filter(|m| m["id"] == id).count();
        assert_eq!(answers, usize::from(id == 0 || id >= 10), "answers to {id}");
    }
}

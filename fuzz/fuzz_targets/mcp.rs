//! Bytes as newline-delimited JSON-RPC after `initialize` and `initialized`: the server
//! (`skills_mcp_server::serve` over an in-memory duplex stream, serving
//! `testdata/examples`) must answer with JSON lines only and stop when the input ends.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use skills_discovery::Roots;
use skills_mcp_server::{Config, LogLevel};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const INIT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

fuzz_target!(|data: &[u8]| {
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/examples");
    let config = Config::new(Roots::custom([skills]))
        .log_level(LogLevel::Off)
        .page_size(1);
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let mut input = INIT.as_bytes().to_vec();
    input.extend_from_slice(data);
    let output = runtime.block_on(async move {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server);
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let write = async move {
            // The server may stop reading (and drop its end) before all is written.
            let _ = client_write.write_all(&input).await;
            let _ = client_write.shutdown().await;
            client_write
        };
        let read = async move {
            let mut out = Vec::new();
            let _ = client_read.read_to_end(&mut out).await;
            out
        };
        let serve = skills_mcp_server::serve(config, server_read, server_write);
        let (_, output, _) = tokio::join!(write, read, serve);
        output
    });
    for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = String::from_utf8_lossy(line);
        assert!(
            text.starts_with('{') && text.ends_with('}'),
            "not a JSON object: {text}"
        );
    }
});

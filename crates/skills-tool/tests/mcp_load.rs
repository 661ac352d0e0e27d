//! `skills mcp` under load and abuse, spoken to as raw JSON-RPC lines (no SDK, so the client
//! can pipeline, send garbage and vanish): thousands of pipelined requests while skills are
//! created and deleted, a hundred clients at once, malformed and oversized messages, clients
//! that disappear mid-request. Nothing may be lost, nothing may crash, memory must not grow
//! with the number of requests. Figures (latency, RSS) are `cargo xtask bench mcp`'s job.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

/// Longer than any healthy run on a loaded 2-core machine: only a hang reaches it.
const PATIENCE: Duration = Duration::from_secs(120);

fn write_skill(root: &Path, id: &str) {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {id}\ndescription: Skill {id}. Use when testing.\n---\n# {id}\n"),
    )
    .unwrap();
}

fn tree(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        write_skill(dir.path(), &format!("s{i}"));
    }
    dir
}

/// A server child process; every line it writes arrives on `lines`.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<std::sync::Mutex<String>>,
}

impl Server {
    fn start(root: &Path) -> Self {
        Self::start_exe(Path::new(env!("CARGO_BIN_EXE_skills")), root)
    }

    fn start_exe(exe: &Path, root: &Path) -> Self {
        Self::launch(exe, root, "error", true)
    }

    /// `drain_stderr: false` keeps stderr a pipe that nobody reads.
    fn launch(exe: &Path, root: &Path, log_level: &str, drain_stderr: bool) -> Self {
        let mut child = Command::new(exe)
            .arg("mcp")
            .arg("--skills-dir")
            .arg(root)
            .args(["--log-level", log_level])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(std::sync::Mutex::new(String::new()));
        if drain_stderr {
            let mut err = child.stderr.take().unwrap();
            let sink = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut err, &mut text);
                sink.lock().unwrap().push_str(&text);
            });
        }
        let stdin = child.stdin.take();
        let mut server = Self {
            child,
            stdin,
            lines,
            stderr,
        };
        server.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "load-test", "version": "1"}
            }}),
        );
        let init = server.response(0);
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&serde_json::to_vec(message).unwrap());
    }

    /// The next message that is not a notification.
    fn next(&self) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|e| panic!("no answer from the server: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
            // Answers carry an id; an error about a message whose id could not be read
            // (JSON-RPC's "Invalid Request") may carry none.
            if message.get("id").is_some() || message.get("error").is_some() {
                return message;
            }
            assert!(
                message["method"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("notifications/")),
                "{message}"
            );
        }
    }

    fn response(&self, id: u64) -> Value {
        let message = self.next();
        assert_eq!(message["id"], id, "{message}");
        message
    }

    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    fn rss_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// Closes stdin and checks the server leaves on its own, cleanly.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = wait(&mut self.child);
        let stderr = self.stderr.lock().unwrap().clone();
        assert!(status.success(), "exit {status}; stderr:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// Waits for a child, failing the test (and killing it) if it does not exit in time.
fn wait(child: &mut Child) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit after its client left");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Creates and deletes skills in `root` until `stop`, so requests meet a changing tree.
fn churn(root: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut rounds = 0;
        while !stop.load(Ordering::Relaxed) {
            let id = format!("churn{}", rounds % 7);
            if root.join(&id).exists() {
                let _ = std::fs::remove_dir_all(root.join(&id));
            } else {
                write_skill(&root, &id);
            }
            rounds += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        rounds
    })
}

/// The request with id `i` of a mixed workload, and what its answer must look like.
fn request(i: u64, skills: usize) -> (Value, fn(&Value) -> bool) {
    let k = i as usize % skills;
    let (method, params, check): (&str, Value, fn(&Value) -> bool) = match i % 6 {
        0 => (
            "tools/call",
            json!({"name": "get_skill", "arguments": {"id": format!("s{k}")}}),
            |m| {
                m["result"]["isError"] == false
                    && m["result"]["structuredContent"]["content"].is_string()
            },
        ),
        1 => (
            "tools/call",
            json!({"name": "skill", "arguments": {"name": "../../etc/passwd"}}),
            |m| m["result"]["isError"] == true,
        ),
        2 => (
            "tools/call",
            json!({"name": "list_skills", "arguments": {}}),
            |m| m["result"]["structuredContent"]["skills"].is_array(),
        ),
        3 => ("skills/list", json!({}), |m| {
            m["result"]["skills"].is_array()
        }),
        4 => (
            "resources/read",
            json!({"uri": format!("skill://s{k}/SKILL.md")}),
            |m| m["result"]["contents"][0]["text"].is_string(),
        ),
        _ => ("no/such/method", json!({}), |m| {
            m["error"]["code"] == -32601
        }),
    };
    (
        json!({"jsonrpc": "2.0", "id": i, "method": method, "params": params}),
        check,
    )
}

#[test]
fn ten_thousand_pipelined_requests_while_skills_change() {
    const SKILLS: usize = 20;
    const REQUESTS: u64 = 10_000;
    let dir = tree(SKILLS);
    let mut server = Server::start(dir.path());
    let stop = Arc::new(AtomicBool::new(false));
    let churner = churn(dir.path().to_path_buf(), Arc::clone(&stop));

    // All requests written by one thread without waiting, with garbage in between; the
    // answers are read here at the same time.
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut out = std::io::BufWriter::new(&mut stdin);
        for i in 1..=REQUESTS {
            let (message, _) = request(i, SKILLS);
            serde_json::to_writer(&mut out, &message).unwrap();
            out.write_all(b"\n").unwrap();
            if i % 97 == 0 {
                out.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": \n").unwrap();
            }
        }
        out.flush().unwrap();
        drop(out);
        stdin
    });
    let mut answered: HashMap<u64, Value> = HashMap::new();
    let mut rss_at_2000 = 0;
    while answered.len() < REQUESTS as usize {
        let message = server.next();
        let Some(id) = message["id"].as_u64() else {
            panic!("only well-formed requests were sent, yet: {message}");
        };
        assert!(
            answered.insert(id, message).is_none(),
            "id {id} answered twice"
        );
        if answered.len() == 2_000 {
            rss_at_2000 = server.rss_kib("VmRSS:");
        }
    }
    server.stdin = Some(writer.join().unwrap());
    stop.store(true, Ordering::Relaxed);
    assert!(churner.join().unwrap() > 0);

    for i in 1..=REQUESTS {
        let (_, check) = request(i, SKILLS);
        let message = &answered[&i];
        assert!(check(message), "request {i}: {message}");
    }
    // Memory does not grow with the number of requests: 8,000 more cost less than 4 MB.
    let rss_at_end = server.rss_kib("VmRSS:");
    assert!(
        rss_at_end < rss_at_2000 + 4 * 1024,
        "RSS grew from {rss_at_2000} KiB to {rss_at_end} KiB"
    );
    // Still serving, and the churned skills are seen or not, never half.
    let listed = server.call(
        REQUESTS + 1,
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    let count = listed["result"]["structuredContent"]["skills"]
        .as_array()
        .unwrap()
        .len();
    assert!((SKILLS..=SKILLS + 7).contains(&count), "{count}");
    server.finish();
}

/// A client that writes requests far faster than it reads answers must not make the server
/// hold every answer at once: it stops reading ahead, and the pipe pushes back.
#[test]
fn pipelined_requests_are_answered_in_bounded_memory() {
    const REQUESTS: u64 = 1_000;
    let dir = tempfile::tempdir().unwrap();
    // Answers of about 100 KB (a 50 KB body, as text and as structured content): all of
    // them at once would be about 100 MB.
    let body = "Lorem ipsum dolor sit amet. ".repeat(50 * 1024 / 28);
    std::fs::create_dir_all(dir.path().join("big")).unwrap();
    std::fs::write(
        dir.path().join("big/SKILL.md"),
        format!("---\nname: big\ndescription: Big. Use when testing.\n---\n{body}\n"),
    )
    .unwrap();
    let mut server = Server::start(dir.path());
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for i in 1..=REQUESTS {
            let message = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "get_skill", "arguments": {"id": "big"}}});
            serde_json::to_writer(&mut stdin, &message).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin
    });
    let mut answered = 0;
    while answered < REQUESTS {
        let line = server.lines.recv_timeout(PATIENCE).expect("an answer");
        if line.contains("\"id\":") {
            assert!(
                line.contains("Lorem ipsum"),
                "{}",
                &line[..line.len().min(300)]
            );
            answered += 1;
        }
    }
    server.stdin = Some(writer.join().unwrap());
    let peak = server.rss_kib("VmHWM:");
    assert!(
        peak < 60 * 1024,
        "peak RSS {peak} KiB: answers piled up instead of the client being slowed"
    );
    server.finish();
}

/// Errors are logged with the client's text in them (a URI it could not read). A client
/// that sends huge ones by the thousand and never reads stderr must get every answer: the
/// log is clipped, rate-limited and written off the serving thread.
#[test]
fn a_client_that_never_reads_stderr_gets_every_answer() {
    // Each logged line is clipped to about 2 KB: 400 of them are 800 KB, a dozen times what a
    // pipe holds, so a server that waited for its stderr would hang long before the end.
    const REQUESTS: u64 = 400;
    let dir = tree(1);
    let mut server = Server::launch(
        Path::new(env!("CARGO_BIN_EXE_skills")),
        dir.path(),
        "debug",
        false,
    );
    let uri = format!("skill://s0/{}", "x".repeat(100_000));
    let mut stdin = server.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for i in 1..=REQUESTS {
            let message = json!({"jsonrpc": "2.0", "id": i, "method": "resources/read",
                "params": {"uri": uri}});
            serde_json::to_writer(&mut stdin, &message).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin
    });
    for _ in 1..=REQUESTS {
        let answer = server.next();
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.len() < 1_000,
            "the answer quotes {} bytes",
            message.len()
        );
    }
    server.stdin = Some(writer.join().unwrap());
    // What did reach stderr is in clipped lines.
    let mut err = server.child.stderr.take().unwrap();
    server.stdin = None;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut err, &mut text).unwrap();
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 2_200, "a log line of {longest} bytes");
    server.finish();
}

#[test]
fn a_hundred_clients_at_once() {
    const CLIENTS: usize = 100;
    const SKILLS: usize = 10;
    let dir = tree(SKILLS);
    let stop = Arc::new(AtomicBool::new(false));
    let churner = churn(dir.path().to_path_buf(), Arc::clone(&stop));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let root = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut server = Server::start(&root);
                for i in 1..=30u64 {
                    let (message, check) = request(i + c as u64, SKILLS);
                    let id = message["id"].as_u64().unwrap();
                    server.send(&message);
                    let answer = server.response(id);
                    assert!(check(&answer), "client {c}, request {id}: {answer}");
                }
                server.finish();
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    churner.join().unwrap();
}

#[test]
fn hostile_messages_are_refused_and_the_server_goes_on() {
    let dir = tree(3);
    let mut server = Server::start(dir.path());
    // Not JSON, not JSON-RPC, wrong shapes: no crash, and the next request is answered.
    for garbage in [
        &b"not json at all"[..],
        b"{\"jsonrpc\": \"2.0\", \"id\": 1",
        b"[]",
        b"[{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}]",
        b"{\"jsonrpc\": \"1.0\", \"id\": 3, \"method\": \"tools/list\"}",
        b"{\"id\": 4}",
        b"\xff\xfe\x00garbage",
        b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": \"nope\"}",
        b"{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/call\", \"params\": {\"name\": 7}}",
        b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"resources/read\", \"params\": {\"uri\": \"skill://s1/../../../etc/passwd\"}}",
        b"",
    ] {
        server.send_raw(garbage);
    }
    // Whatever was answered above, the server is alive: a fresh id gets its answer. Answers
    // to ids 1-7 (errors) may come first; skip them.
    server.send(&json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call",
        "params": {"name": "get_skill", "arguments": {"id": "s1"}}}));
    let answer = loop {
        let message = server.next();
        if message["id"] == 100 {
            break message;
        }
        assert!(message.get("error").is_some(), "{message}");
    };
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    // An oversized message (over the 16 MiB line limit) is dropped, not buffered without
    // end, and the connection goes on.
    let mut huge = Vec::with_capacity(17 << 20);
    huge.extend_from_slice(b"{\"jsonrpc\": \"2.0\", \"id\": 101, \"method\": \"tools/call\", \"params\": {\"name\": \"get_skill\", \"arguments\": {\"id\": \"");
    huge.resize(17 << 20, b'a');
    huge.extend_from_slice(b"\"}}}");
    server.send_raw(&huge);
    drop(huge);
    let answer = server.call(
        102,
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    assert!(
        answer["result"]["structuredContent"]["skills"].is_array(),
        "{answer}"
    );
    let peak = server.rss_kib("VmHWM:");
    assert!(
        peak < 200 * 1024,
        "peak RSS {peak} KiB after a 17 MiB message"
    );
    server.finish();
}

#[test]
fn clients_that_vanish_mid_request() {
    let dir = tree(50);
    // Leaves with requests in flight and its end of stdout closed: the server must notice
    // and exit cleanly (no panic on the broken pipe, no hang).
    for _ in 0..5 {
        let mut server = Server::start(dir.path());
        for i in 1..=200u64 {
            let (message, _) = request(i, 50);
            server.send(&message);
        }
        let Server {
            mut child,
            stdin,
            lines,
            stderr,
        } = server;
        drop(lines);
        drop(stdin);
        let status = wait(&mut child);
        let stderr = stderr.lock().unwrap().clone();
        assert!(!stderr.contains("panicked"), "{stderr}");
        // A signal (SIGPIPE) is a clean way out too; a crash would be a non-zero code
        // with a panic message.
        assert!(
            status.success() || status.code().is_none(),
            "{status}: {stderr}"
        );
    }
}

/// `skills mcp` hands over to `skills-mcp` beside it (a smaller process), and serves by
/// itself when that binary is not there.
#[test]
#[cfg(target_os = "linux")]
fn skills_mcp_hands_over_to_the_server_binary_or_serves_itself() {
    let dir = tree(2);
    let exe_of =
        |server: &Server| std::fs::read_link(format!("/proc/{}/exe", server.child.id())).unwrap();
    let mut server = Server::start(dir.path());
    assert!(
        exe_of(&server).ends_with("skills-mcp"),
        "{}",
        exe_of(&server).display()
    );
    let listed = server.call(
        1,
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    assert_eq!(
        listed["result"]["structuredContent"]["skills"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    server.finish();

    // A lone copy of `skills`: no sibling, so it serves in its own process.
    let alone = tempfile::tempdir().unwrap();
    let copy = alone.path().join("skills");
    std::fs::copy(env!("CARGO_BIN_EXE_skills"), &copy).unwrap();
    let mut server = Server::start_exe(&copy, dir.path());
    assert_eq!(exe_of(&server), copy);
    let listed = server.call(
        1,
        "tools/call",
        json!({"name": "list_skills", "arguments": {}}),
    );
    assert_eq!(
        listed["result"]["structuredContent"]["skills"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    server.finish();
}

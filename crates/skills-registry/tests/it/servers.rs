//! What the registry's server holds against clients that misbehave: the bearer scheme in
//! any case; connections that stall or idle, too many connections, too many MCP sessions.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support;

use support::{Backend, Client, Harness};

/// RFC 7235 §2.1: the auth scheme is case-insensitive, so `bearer` and `BEARER` are the
/// same as `Bearer`; an unknown scheme is still refused.
#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let h = Harness::start(&Backend::Sqlite);
    let token = h.token("alice", &[], false);
    let anonymous = Client::anonymous(&h);
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let value = format!("{scheme} {token}");
        let reply = anonymous.get_with("/api/skills", &[("authorization", &value)]);
        assert_eq!(reply.status, 200, "{scheme}: {}", reply.body);
    }
    for refused in [
        format!("Basic {token}"),
        format!("Bearer{token}"),
        "bearer ".to_string(),
    ] {
        let reply = anonymous.get_with("/api/skills", &[("authorization", &refused)]);
        assert_eq!(reply.status, 401, "{refused}: {}", reply.body);
    }
}

/// A connection that sends part of its headers and then nothing, or stays idle after an
/// answer, is closed once the header timeout has passed (1 s here), not held open.
#[test]
fn stalled_and_idle_connections_are_closed() {
    let h = Harness::start_with(&Backend::Sqlite, |config, _| {
        config.connections.header_timeout = Duration::from_secs(1);
    });
    let address = h.base().trim_start_matches("http://").to_string();
    let mut partial = TcpStream::connect(&address).unwrap();
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .unwrap();
    let mut idle = TcpStream::connect(&address).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let silent = TcpStream::connect(&address).unwrap();
    for (what, stream) in [
        ("partial headers", partial),
        ("idle keep-alive", idle),
        ("no bytes", silent),
    ] {
        let closed = closed_within(stream, Duration::from_secs(15));
        assert!(closed.is_some(), "{what}: still open after 15 s");
    }
}

/// A body sent too slowly (half of it, then nothing) is refused once the body timeout (1 s
/// here) has passed, with a `408` problem, and the connection is closed.
#[test]
fn a_body_sent_too_slowly_is_refused_and_its_connection_closed() {
    let h = Harness::start_with(&Backend::Sqlite, |config, _| {
        config.connections.body_timeout = Duration::from_secs(1);
    });
    let token = h.token("alice", &[], false);
    let address = h.base().trim_start_matches("http://").to_string();
    let mut slow = TcpStream::connect(&address).unwrap();
    let head = format!(
        "POST /api/skills HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"skill_md_url\": "
    );
    slow.write_all(head.as_bytes()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut answer = Vec::new();
    // To the end: the server closes the connection after its answer.
    let _ = slow.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("/problems/timeout"), "{answer}");
}

/// Past the most connections (2 here), a new connection is not served until one closes:
/// the server never holds more descriptors than its limit, whatever clients do.
#[test]
fn connections_past_the_limit_wait_for_a_free_one() {
    let h = Harness::start_with(&Backend::Sqlite, |config, _| {
        config.connections.max_connections = 2;
        config.connections.header_timeout = Duration::from_secs(60);
    });
    let address = h.base().trim_start_matches("http://").to_string();
    let held: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut stream = TcpStream::connect(&address).unwrap();
            stream.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
            stream
        })
        .collect();
    // Accepted by the kernel (the listen backlog), not by the server.
    let mut third = TcpStream::connect(&address).unwrap();
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    third
        .set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let mut first = [0u8; 1];
    assert!(
        third.read(&mut first).is_err(),
        "a third connection was served beside two"
    );
    drop(held);
    third
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut answer = Vec::new();
    third.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// How long `stream` took to be closed by the server (EOF or reset), if it was within
/// `bound`; whatever the server answered first is read and dropped.
fn closed_within(mut stream: TcpStream, bound: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buffer = [0u8; 4096];
    while started.elapsed() < bound {
        stream
            .set_read_timeout(Some(
                bound
                    .saturating_sub(started.elapsed())
                    .max(Duration::from_millis(10)),
            ))
            .unwrap();
        match stream.read(&mut buffer) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}"#;

/// MCP's headers, with the session when there is one.
fn mcp_headers(session: Option<&str>) -> Vec<(&str, &str)> {
    let mut headers = vec![
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    headers
}

/// A new MCP session of `client` at `/mcp`, initialized; its id.
fn mcp_session(client: &Client) -> String {
    let initialize: Value = serde_json::from_str(INITIALIZE).unwrap();
    let reply = client.post_with("/mcp", &mcp_headers(None), &initialize);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let id = reply.header("mcp-session-id");
    assert!(!id.is_empty(), "no session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = client.post_with("/mcp", &mcp_headers(Some(&id)), &initialized);
    assert_eq!(reply.status, 202, "{}", reply.body);
    id
}

/// The HTTP status of a `ping` in `session`: 200 while it lives, 404 once ended.
fn mcp_ping(client: &Client, session: &str) -> u16 {
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    client
        .post_with("/mcp", &mcp_headers(Some(session)), &ping)
        .status
}

/// Sessions are capped per user (4 here) and in all (6): a new one past a cap ends the
/// least recently used (the user's, then anyone's), whose next request is a `404` (the
/// transport's answer for an ended session), while the others go on.
#[test]
fn mcp_sessions_are_capped_per_user_and_in_all() {
    let h = Harness::start_with(&Backend::Sqlite, |config, _| {
        config.mcp.max_sessions_per_caller = 4;
        config.mcp.max_sessions = 6;
    });
    let alice = h.client("alice", &[], false);
    let a: Vec<String> = (0..4).map(|_| mcp_session(&alice)).collect();
    // a[0] used again: a[1] is now alice's least recently used.
    assert_eq!(mcp_ping(&alice, &a[0]), 200);
    let a4 = mcp_session(&alice);
    assert_eq!(mcp_ping(&alice, &a[1]), 404, "alice's least recently used");
    for live in [&a[0], &a[2], &a[3], &a4] {
        assert_eq!(mcp_ping(&alice, live), 200);
    }
    // Another token of the same user (another view: other groups) counts against the
    // same cap: alice's least recently used, a[0], goes.
    let alice_again = h.client("alice", &["team"], false);
    let a5 = mcp_session(&alice_again);
    assert_eq!(mcp_ping(&alice, &a[0]), 404, "alice's, whatever the token");
    assert_eq!(mcp_ping(&alice_again, &a5), 200);
    // Bob's third session takes the total past 6: the least recently used of anyone's
    // goes, alice's a[2].
    let bob = h.client("bob", &[], false);
    let b: Vec<String> = (0..3).map(|_| mcp_session(&bob)).collect();
    assert_eq!(mcp_ping(&alice, &a[2]), 404, "the oldest of all");
    for live in [&a[3], &a4] {
        assert_eq!(mcp_ping(&alice, live), 200);
    }
    assert_eq!(mcp_ping(&alice_again, &a5), 200);
    for live in &b {
        assert_eq!(mcp_ping(&bob, live), 200);
    }
}

/// Every file and directory under `dir`, with its mode.
#[cfg(unix)]
fn modes(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u32, bool)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        found.push((
            path.clone(),
            meta.permissions().mode() & 0o777,
            meta.is_dir(),
        ));
        if meta.is_dir() {
            found.extend(modes(&path));
        }
    }
    found
}

/// Whether a directory named like the views' old home (`skills-mcp-*`) in the system's
/// temporary directory holds a skill named `name`. Other processes' directories may be
/// there (the machine is shared), so what is looked for is this test's skill.
#[cfg(unix)]
fn in_temporary_views(name: &str) -> bool {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("skills-mcp-"))
        .filter(|e| e.path().is_dir())
        .any(|e| {
            std::fs::read_dir(e.path())
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .any(|view| view.path().join(name).exists())
        })
}

/// `/mcp`'s per-caller views hold private skills: they live under the state directory's
/// `mcp-views/`, emptied at start (a killed server's leftovers go), in 0700 directories
/// with 0600 files; nothing goes to the system's temporary directory; a second server
/// cannot take (and empty) the same state directory.
#[cfg(unix)]
#[test]
fn mcp_views_are_private_and_under_the_state_directory() {
    let state = tempfile::tempdir().unwrap();
    let views = state.path().join("mcp-views");
    std::fs::create_dir_all(views.join("7/left-over")).unwrap();
    std::fs::write(views.join("7/left-over/SKILL.md"), "private").unwrap();
    let dir = state.path().to_path_buf();
    let h = Harness::start_with(&Backend::Sqlite, |config, _| {
        config.state_dir = Some(dir);
    });
    assert!(
        !views.join("7").exists(),
        "what a killed server left is gone"
    );
    let alice = h.client("alice", &[], false);
    // A name no other process uses, to look for in the temporary directory.
    let name = format!("secret-{}", std::process::id());
    let path = format!("/o/r/main/{name}/SKILL.md");
    h.serve(
        &path,
        &support::skill_md(&name, "Private. Use when asked.", ""),
    );
    let reply = alice.post(
        "/api/skills",
        &json!({"skill_md_url": h.url(&path), "visibility": "private"}),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    let session = mcp_session(&alice);
    assert_eq!(mcp_ping(&alice, &session), 200);
    assert!(
        !in_temporary_views(&name),
        "nothing in the temporary directory"
    );

    let file = format!("{name}/SKILL.md");
    let found = modes(&views);
    assert!(
        found.iter().any(|(p, _, _)| p.ends_with(&file)),
        "{found:?}"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let top = std::fs::metadata(&views).unwrap().permissions().mode() & 0o777;
    assert_eq!(top, 0o700, "mcp-views/");
    for (path, mode, is_dir) in &found {
        let want = if *is_dir { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{}", path.display());
    }

    // A second server on the same state directory is refused, and empties nothing.
    let mut config = skills_registry::RegistryConfig::default();
    config.state_dir = Some(state.path().to_path_buf());
    let second = h.block_on(async {
        let store = skills_registry::AnyStore::open("sqlite::memory:")
            .await
            .unwrap();
        skills_registry::Registry::new(store, config)
    });
    let refused = skills_registry::http::try_router(second).unwrap_err();
    assert!(refused.to_string().contains("another server"), "{refused}");
    assert!(
        modes(&views).iter().any(|(p, _, _)| p.ends_with(&file)),
        "the running server's views are still there"
    );
}

/// The median time of a `GET` of `{skill}/content` by `bob`, for a skill he may not see and
/// one that does not exist, taken in turns: (hidden, missing).
fn content_medians(bob: &Client, rounds: usize) -> (Duration, Duration) {
    let mut hidden = Vec::with_capacity(rounds);
    let mut missing = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        for (path, times) in [
            ("/api/skills/alices-secret/content", &mut hidden),
            ("/api/skills/no-such-skill/content", &mut missing),
        ] {
            let started = Instant::now();
            let reply = bob.get(path);
            times.push(started.elapsed());
            assert_eq!(reply.status, 404, "{path}");
            assert!(reply.body.contains("not-found"), "{}", reply.body);
        }
    }
    hidden.sort();
    missing.sort();
    (hidden[rounds / 2], missing[rounds / 2])
}

/// A skill the caller may not see answers `404` as one that is not there, and as fast:
/// the visibility rule is in the query, so the hidden skill is not read. Its 8,000 ratings
/// make reading it slow (their average is part of a card): read and then refused, as
/// before the fix, it answered 1.5 to 2 ms behind the missing one in a debug build, while
/// the medians of answers taken in turns differ by some tens of microseconds now, well
/// inside the 0.5 ms bound.
#[test]
fn a_hidden_skill_answers_as_fast_as_a_missing_one() {
    let h = Harness::start(&Backend::Sqlite);
    let alice = h.client("alice", &[], false);
    let path = "/o/r/main/alices-secret/SKILL.md";
    h.serve(
        path,
        &support::skill_md("alices-secret", "Private. Use when asked.", ""),
    );
    let reply = alice.post(
        "/api/skills",
        &json!({"skill_md_url": h.url(path), "visibility": "private"}),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
    h.block_on(async {
        use skills_registry::Store as _;
        for i in 0..8000u32 {
            let user = format!("rater-{i}");
            h.registry
                .store()
                .rate("alices-secret", &user, u8::try_from(i % 5 + 1).unwrap())
                .await
                .unwrap();
        }
    });
    let bob = h.client("bob", &[], false);
    content_medians(&bob, 50);
    let (hidden, missing) = content_medians(&bob, 400);
    assert!(
        hidden < missing + Duration::from_micros(500),
        "hidden {hidden:?}, missing {missing:?}"
    );
}

//! Several `skills registry serve` processes on one PostgreSQL database behave as one
//! registry (docs/registry.md, "Running several instances"); and a server on SQLite sees at
//! once what other processes write to its file (`skills registry sync` from cron, `token
//! revoke`).

use std::io::{BufRead, BufReader, Write};
use std::process::Child;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::package::{Routes, route, serve};
use crate::registry::{agent, call, names_at, postgres, start, stop};
use crate::skills;

/// How soon a write through one instance must be seen through the others.
const BOUND: Duration = Duration::from_millis(100);

/// A `SKILL.md` named `name`.
fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Does {name}. Use when {name} is asked for.\n---\nSteps.\n"
    )
}

/// A fixture serving the `SKILL.md` of `s000` … `s599` at `/o/r/main/NAME/SKILL.md`.
fn fixture() -> String {
    let mut routes = Routes::new();
    for i in 0..600 {
        let name = format!("s{i:03}");
        route(
            &mut routes,
            &format!("/o/r/main/{name}/SKILL.md"),
            200,
            &[],
            skill_md(&name).as_bytes(),
        );
    }
    serve(routes)
}

/// `skills registry token create` on `database`: the token and its id.
fn token(dir: &std::path::Path, database: &[&str], user: &str, admin: bool) -> (String, String) {
    let mut args = vec!["registry", "token", "create", "--user", user];
    if admin {
        args.push("--admin");
    }
    args.extend_from_slice(database);
    let created = skills(dir, &args);
    created.assert_code(0);
    let id = created
        .stderr
        .split_whitespace()
        .find(|w| w.starts_with("tok_"))
        .unwrap_or_else(|| panic!("no token id: {}", created.stderr))
        .to_string();
    (created.stdout.trim().to_string(), id)
}

fn register(base: &str, token: &str, fixture: &str, name: &str) -> u16 {
    call(
        "POST",
        &format!("{base}/api/skills"),
        token,
        Some(json!({"skill_md_url": format!("http://{fixture}/o/r/main/{name}/SKILL.md")})),
    )
    .0
}

/// Polls `done` every 2 ms; how long it took to hold (15 s at most).
fn time_until(what: &str, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "never happened: {what}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    start.elapsed()
}

/// A JSON-RPC request to `/mcp` as a 2026-07-28 client sends it: no session, the protocol
/// version in a header and in the request's `_meta`. The status and the body.
fn stateless_mcp(
    base: &str,
    token: &str,
    method: &str,
    params: serde_json::Value,
) -> (u16, String) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    });
    let mut request = agent()
        .post(&format!("{base}/mcp"))
        .header("Authorization", &format!("Bearer {token}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = params["name"].as_str() {
        request = request.header("Mcp-Name", name);
    }
    let response = request
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
        .unwrap();
    let status = response.status().as_u16();
    (status, response.into_body().read_to_string().unwrap())
}

/// Three servers on one PostgreSQL database: a write through any is seen through the
/// others within [`BOUND`] (their caches were just filled, and live 60 s), a token revoked
/// from the command line is refused by all at once, `/mcp` answers 2026-07-28 clients on
/// any of them while a legacy session belongs to the one that started it, and killing one
/// during a burst of writes through all three loses nothing that was acknowledged.
#[cfg(unix)]
#[test]
fn three_servers_on_one_postgresql_are_one_registry() {
    let Some(cluster) = postgres::Cluster::start() else {
        return;
    };
    let url = cluster.url("postgres");
    let database = ["--database", url.as_str()];
    let fixture = fixture();
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (root, _) = token(dirs[0].path(), &database, "root", true);
    let (alice, alice_id) = token(dirs[0].path(), &database, "alice", false);
    // Each in a directory of its own: the state directory (`/mcp`'s views) is per server.
    let mut servers: Vec<(Child, String, BufReader<std::process::ChildStderr>)> = dirs
        .iter()
        .map(|dir| {
            let (child, address, stderr) = start(
                dir.path(),
                &[
                    &["--trust-host", fixture.as_str(), "--allow-loopback"],
                    &database[..],
                ]
                .concat(),
            );
            (child, format!("http://{address}"), stderr)
        })
        .collect();
    let bases: Vec<String> = servers.iter().map(|(_, base, _)| base.clone()).collect();

    // A write through each in turn, read through the other two, whose lists were cached
    // just before the write.
    let mut seen = Vec::new();
    for i in 0..12 {
        let name = format!("s{i:03}");
        let writer = i % 3;
        let readers: Vec<&String> = (0..3).filter(|r| *r != writer).map(|r| &bases[r]).collect();
        for reader in &readers {
            assert!(!names_at(reader, &root).contains(&name));
        }
        assert_eq!(register(&bases[writer], &root, &fixture, &name), 201);
        let written = Instant::now();
        for reader in &readers {
            time_until(&format!("{name} through {reader}"), || {
                names_at(reader, &root).contains(&name)
            });
            seen.push(written.elapsed());
        }
    }
    seen.sort();
    eprintln!("a write seen through the other servers after: {seen:?}");
    let median = seen[seen.len() / 2];
    assert!(median < BOUND, "median {median:?}: {seen:?}");
    // The old answer: a cached list lived 1 s after a write elsewhere.
    let slowest = seen[seen.len() - 1];
    assert!(slowest < Duration::from_millis(500), "{seen:?}");

    // A disable through one is seen by the others' cached cards too.
    let card = |base: &str| call("GET", &format!("{base}/api/skills/s000"), &alice, None).0;
    assert_eq!(card(&bases[1]), 200);
    assert_eq!(card(&bases[2]), 200);
    let (status, _) = call(
        "PUT",
        &format!("{}/api/skills/s000/disable", bases[0]),
        &root,
        None,
    );
    assert_eq!(status, 200);
    let hidden = time_until("s000 disabled everywhere", || {
        card(&bases[1]) == 404 && card(&bases[2]) == 404
    });
    assert!(hidden < Duration::from_millis(500), "{hidden:?}");

    // A token revoked from the command line: every server had just trusted it (its token
    // cache keeps a token 2 s), and refuses it at once.
    for base in &bases {
        assert_eq!(
            call("GET", &format!("{base}/api/skills"), &alice, None).0,
            200
        );
    }
    skills(
        dirs[1].path(),
        &[
            &["registry", "token", "revoke", alice_id.as_str()],
            &database[..],
        ]
        .concat(),
    )
    .assert_code(0);
    let revoked = Instant::now();
    for base in &bases {
        time_until("the revoked token refused", || {
            call("GET", &format!("{base}/api/skills"), &alice, None).0 == 401
        });
    }
    let refused = revoked.elapsed();
    assert!(refused < Duration::from_millis(500), "{refused:?}");

    // /mcp: a 2026-07-28 client (no session) is answered by any server, with what was
    // written through another.
    assert_eq!(register(&bases[0], &root, &fixture, "s100"), 201);
    for base in &bases[1..] {
        let (status, body) = stateless_mcp(
            base,
            &root,
            "tools/call",
            json!({"name": "list_skills", "arguments": {}}),
        );
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("s100"), "{body}");
    }
    // Their views, now made, follow the change feed: a later write through the first server
    // is in them at once, not after the view's expiry (a minute while the feed is heard).
    assert_eq!(register(&bases[0], &root, &fixture, "s101"), 201);
    let listed = time_until("s101 in every /mcp", || {
        bases[1..].iter().all(|base| {
            let (_, body) = stateless_mcp(
                base,
                &root,
                "tools/call",
                json!({"name": "list_skills", "arguments": {}}),
            );
            body.contains("s101")
        })
    });
    assert!(listed < Duration::from_millis(500), "{listed:?}");
    // A legacy (2025-11-25) session lives in the server that started it: another answers
    // 404, on which a client starts a new session. A load balancer routes by
    // `Mcp-Session-Id` (sticky sessions) for such clients.
    let initialized = agent()
        .post(&format!("{}/mcp", bases[0]))
        .header("Authorization", &format!("Bearer {root}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}}})
            .to_string(),
        )
        .unwrap();
    assert_eq!(initialized.status(), 200);
    let session = initialized
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_string();
    let elsewhere = agent()
        .post(&format!("{}/mcp", bases[1]))
        .header("Authorization", &format!("Bearer {root}"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string())
        .unwrap();
    assert_eq!(elsewhere.status(), 404);

    // A burst of registrations through all three, one server killed (SIGKILL) in the
    // middle: everything acknowledged is there, read through the two left.
    let acked = Arc::new(Mutex::new(Vec::<(usize, String)>::new()));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (acked, root, fixture, base) =
                (Arc::clone(&acked), root.clone(), fixture.clone(), bases[w].clone());
            std::thread::spawn(move || {
                for i in (200 + w..600).step_by(3) {
                    let name = format!("s{i:03}");
                    let body = json!({"skill_md_url": format!("http://{fixture}/o/r/main/{name}/SKILL.md")});
                    let Ok(response) = agent()
                        .post(&format!("{base}/api/skills"))
                        .header("authorization", &format!("Bearer {root}"))
                        .header("content-type", "application/json")
                        .send(body.to_string())
                    else {
                        return; // this server is gone
                    };
                    if response.status() == 201 {
                        acked.lock().unwrap().push((w, name));
                    }
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.lock().unwrap().len() < 60 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let (mut killed, _, _) = servers.remove(2);
    killed.kill().unwrap();
    killed.wait().unwrap();
    for writer in writers {
        writer.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 60,
        "the burst was cut short: {}",
        acked.len()
    );
    let through_killed = acked.iter().filter(|(w, _)| *w == 2).count();
    assert!(
        through_killed < 400 / 3,
        "the kill came after the burst: nothing was tested"
    );
    for base in &bases[..2] {
        for (_, name) in &acked {
            let (status, _) = call("GET", &format!("{base}/api/skills/{name}"), &root, None);
            assert_eq!(status, 200, "{name} was acknowledged, then lost ({base})");
        }
    }
    for (child, _, stderr) in servers {
        stop(child, stderr);
    }
}

/// A stand-in for the outside world of the background jobs, slow on purpose: `HEAD` of
/// any path (a skill's health) and `GET /api/skills…` (a federation peer's empty export)
/// take `delay`; `GET` of a `SKILL.md` answers at once. It records, per kind, how many
/// requests came and the most that were in flight at once.
struct Outside {
    address: String,
    heads: Arc<Counter>,
    exports: Arc<Counter>,
}

#[derive(Default)]
struct Counter {
    now: AtomicUsize,
    most: AtomicUsize,
    total: AtomicUsize,
}

impl Counter {
    fn enter(&self) {
        self.total.fetch_add(1, Ordering::SeqCst);
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

fn outside(delay: Duration) -> Outside {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (heads, exports) = (Arc::new(Counter::default()), Arc::new(Counter::default()));
    let (h, e) = (Arc::clone(&heads), Arc::clone(&exports));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (heads, exports) = (Arc::clone(&h), Arc::clone(&e));
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                reader.read_line(&mut request).unwrap_or_default();
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let mut parts = request.split(' ');
                let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
                let (counter, body) = if method == "HEAD" {
                    (Some(&heads), String::new())
                } else if path.starts_with("/api/skills") {
                    (
                        Some(&exports),
                        r#"{"skills":[],"next_cursor":null}"#.to_string(),
                    )
                } else {
                    let name = path.split('/').nth(4).unwrap_or("x");
                    (None, skill_md(name))
                };
                if let Some(counter) = counter {
                    counter.enter();
                    std::thread::sleep(delay);
                    counter.leave();
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                    body.len(),
                    if method == "HEAD" { "" } else { body.as_str() }
                );
            });
        }
    });
    Outside {
        address,
        heads,
        exports,
    }
}

/// Three servers on one PostgreSQL database, each configured to run a health round and a
/// federation sync every second: they take turns (an advisory lock, and the time of the
/// last start in the database), so no two rounds or syncs overlap and there is about one
/// of each per second, not three.
#[cfg(unix)]
#[test]
fn servers_on_one_postgresql_take_turns_at_health_rounds_and_syncs() {
    let Some(cluster) = postgres::Cluster::start() else {
        return;
    };
    let url = cluster.url("postgres");
    let database = ["--database", url.as_str()];
    let outside = outside(Duration::from_millis(400));
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (root, _) = token(dirs[0].path(), &database, "root", true);
    let config = format!(
        "allow_loopback = true\ntrust_hosts = [\"{0}\"]\nhealth_interval_secs = 1\nhealth_ttl_secs = 1\nsync_interval_secs = 1\n\n[[peers]]\nname = \"peer\"\nurl = \"http://{0}\"\n",
        outside.address
    );
    let servers: Vec<_> = dirs
        .iter()
        .map(|dir| {
            std::fs::write(dir.path().join("r.toml"), &config).unwrap();
            start(
                dir.path(),
                &[&["--config", "r.toml"], &database[..]].concat(),
            )
        })
        .collect();
    let base = format!("http://{}", servers[0].1);
    for i in 0..4 {
        assert_eq!(
            register(&base, &root, &outside.address, &format!("s{i:03}")),
            201
        );
    }
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let seconds = started.elapsed().as_secs_f64();
    for (child, _, stderr) in servers {
        stop(child, stderr);
    }
    let (exports, heads) = (
        outside.exports.total.load(Ordering::SeqCst),
        outside.heads.total.load(Ordering::SeqCst),
    );
    eprintln!("in {seconds:.1} s: {exports} syncs, {heads} health checks of 4 skills");
    assert_eq!(
        outside.exports.most.load(Ordering::SeqCst),
        1,
        "two syncs at once"
    );
    // A round checks the 4 skills at once (8 at a time); rounds never overlap.
    assert!(
        outside.heads.most.load(Ordering::SeqCst) <= 4,
        "two health rounds at once"
    );
    // One sync a second at most (each instance ticks every second: three without turns),
    // give or take the early ticks a start within three quarters of the interval allows.
    assert!(
        exports as f64 <= seconds / 0.75 + 2.0,
        "{exports} syncs in {seconds:.1} s"
    );
    assert!(exports >= 2, "the servers did not sync: {exports}");
    assert!(heads >= 4, "no health round ran: {heads}");
}

/// A server on SQLite and other processes writing its file, as cron's `skills registry
/// sync` and an operator's `token revoke` do: the server sees their writes at once (it
/// watches the file's `data_version`), not after its cache's 60 s or its tokens' 2 s.
#[cfg(unix)]
#[test]
fn a_server_on_sqlite_sees_what_other_processes_write_at_once() {
    let fixture = fixture();
    let (peer_dir, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A peer registry exporting one public skill.
    let (peer_root, _) = token(peer_dir.path(), &[], "root", true);
    let (for_us, _) = token(peer_dir.path(), &[], "registry", false);
    let (peer, peer_address, peer_stderr) = start(
        peer_dir.path(),
        &[
            "--name",
            "peer",
            "--trust-host",
            &fixture,
            "--allow-loopback",
        ],
    );
    let peer_base = format!("http://{peer_address}");
    let (status, text) = call(
        "POST",
        &format!("{peer_base}/api/skills"),
        &peer_root,
        Some(
            json!({"skill_md_url": format!("http://{fixture}/o/r/main/s001/SKILL.md"), "visibility": "public"}),
        ),
    );
    assert_eq!(status, 201, "{text}");

    // Our server syncs only when cron says so (sync_interval_secs = 0).
    std::fs::write(
        dir.path().join("r.toml"),
        format!(
            "allow_loopback = true\nsync_interval_secs = 0\n\n[[peers]]\nname = \"peer\"\nurl = \"{peer_base}\"\ntoken = \"{for_us}\"\n"
        ),
    )
    .unwrap();
    let (alice, alice_id) = token(dir.path(), &[], "alice", false);
    let (server, address, stderr) = start(dir.path(), &["--config", "r.toml"]);
    let base = format!("http://{address}");
    assert!(names_at(&base, &alice).is_empty(), "cached: an empty list");

    let synced = skills(dir.path(), &["registry", "sync", "--config", "r.toml"]);
    synced.assert_code(0);
    assert!(synced.stdout.contains("1 added"), "{}", synced.stdout);
    let seen = time_until("the synced skill listed", || {
        names_at(&base, &alice) == ["s001"]
    });
    assert!(seen < Duration::from_millis(500), "{seen:?}");

    // A token made from the command line works at once; one revoked is refused at once,
    // though the server had just trusted it.
    let (bob, _) = token(dir.path(), &[], "bob", false);
    assert_eq!(
        call("GET", &format!("{base}/api/skills"), &bob, None).0,
        200
    );
    skills(dir.path(), &["registry", "token", "revoke", &alice_id]).assert_code(0);
    let refused = time_until("the revoked token refused", || {
        call("GET", &format!("{base}/api/skills"), &alice, None).0 == 401
    });
    assert!(refused < Duration::from_millis(500), "{refused:?}");
    stop(server, stderr);
    // The watch's connection closed before the pool's: the last to close checkpointed the
    // WAL into the file, which can be copied alone now.
    assert!(
        !dir.path().join("skills-registry.db-wal").exists(),
        "the WAL was left beside the database"
    );
    stop(peer, peer_stderr);
}

//! `cargo xtask bench gateway [--servers 10] [--tools 50] [--calls 1000]`: what
//! `skills mcp --gateway` saves and what it costs (issue 18, seed 000).
//!
//! 1. Generates, under `target/bench/gateway/`, `--servers` downstream MCP servers of
//!    `--tools` tools each (this xtask binary in its `gateway-fixture` mode: a small
//!    JSON-RPC server whose tools have realistic descriptions and three-argument schemas,
//!    and echo their arguments), and one skill per server whose `tools.json` references five
//!    of that server's tools.
//! 2. Tokens of `tools/list` (its JSON, one token per four bytes as `skills prompt --stats`
//!    counts): **flat**, the gateway with every server universal (what an agent configured
//!    with all the servers sees); **Level 1**, the gateway as configured (no universal
//!    tools); **Level 2**, after `view_skill` of each skill.
//! 3. Latency: `--calls` sequential `tools/call` of one tool straight to its server, then as
//!    many through the gateway (Level 2 of that server's skill); median and p99 of each, and
//!    the difference of the medians and of the p99s (target: under 1 ms added).

use std::fmt::Write as _;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::mcp::{Server, Stats};
use super::{flags, ms, positive};
use crate::{build_skills_and_server, target_dir};

/// The most the gateway may add to a call (issue 18).
const ADDED_TARGET: Duration = Duration::from_millis(1);
/// Tools each skill references.
const SCOPED: usize = 5;

struct Options {
    servers: usize,
    tools: usize,
    calls: usize,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options {
        servers: 10,
        tools: 50,
        calls: 1_000,
    };
    let usage = "cargo xtask bench gateway [--servers 10] [--tools 50] [--calls 1000]";
    for (flag, value) in flags(args, &["--servers", "--tools", "--calls"], usage)? {
        match flag {
            "--servers" => options.servers = positive(&value, flag)?,
            "--tools" => options.tools = positive(&value, flag)?.max(SCOPED),
            _ => options.calls = positive(&value, flag)?,
        }
    }
    Ok(options)
}

pub(super) fn run(args: &[String]) -> Result<()> {
    let options = parse(args)?;
    let exe = build_skills_and_server()?;
    let me = std::env::current_exe().context("where is xtask")?;
    let root = target_dir()?.join("bench").join("gateway");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root)?;
    let skills = root.join("skills");
    for s in 0..options.servers {
        let dir = skills.join(format!("skill-{s}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: skill-{s}\ndescription: Work with the systems of team {s}. Use when the user asks about team {s}'s data.\n---\nYou are team {s}'s specialist. Use the tools below, one at a time.\n"
            ),
        )?;
        let refs: Vec<Value> = (0..SCOPED)
            .map(|t| json!({"server": format!("server-{s}"), "name": tool_name(s, t)}))
            .collect();
        std::fs::write(dir.join("tools.json"), serde_json::to_string(&refs)?)?;
    }
    let gateway_file = |universal: bool| -> Result<PathBuf> {
        let mut servers = serde_json::Map::new();
        for s in 0..options.servers {
            servers.insert(
                format!("server-{s}"),
                json!({
                    "command": me,
                    "args": ["gateway-fixture", s.to_string(), options.tools.to_string()],
                    "universal": universal
                }),
            );
        }
        let path = root.join(if universal {
            "flat.json"
        } else {
            "gateway.json"
        });
        std::fs::write(&path, json!({"mcpServers": servers}).to_string())?;
        Ok(path)
    };
    let start_gateway = |file: &Path| -> Result<Server> {
        let mut command = Command::new(&exe);
        command
            .arg("mcp")
            .arg("--skills-dir")
            .arg(&skills)
            .arg("--gateway")
            .arg(file)
            .args(["--log-level", "warn"]);
        let mut server = Server::spawn(command)?;
        initialize(&mut server)?;
        Ok(server)
    };

    eprintln!("flat: every server universal...");
    let mut flat = start_gateway(&gateway_file(true)?)?;
    let (flat_list, _) = flat.call("tools/list", json!({}))?;
    flat.stop()?;

    eprintln!("the gateway...");
    let mut gateway = start_gateway(&gateway_file(false)?)?;
    let (level1, _) = gateway.call("tools/list", json!({}))?;
    let mut level2 = Vec::new();
    for s in 0..options.servers {
        let (loaded, _) = gateway.call(
            "tools/call",
            json!({"name": "view_skill", "arguments": {"skill_name": format!("skill-{s}")}}),
        )?;
        if loaded.get("isError") == Some(&Value::Bool(true)) {
            bail!("view_skill skill-{s} failed: {loaded}");
        }
        let (list, _) = gateway.call("tools/list", json!({}))?;
        level2.push(list);
    }

    // Latency: the last skill is active; its first tool, straight and through.
    let last = options.servers - 1;
    let tool = tool_name(last, 0);
    let arguments = json!({"query": "orders by day", "limit": 10, "verbose": false});
    let mut direct = Server::spawn({
        let mut c = Command::new(&me);
        c.args([
            "gateway-fixture",
            &last.to_string(),
            &options.tools.to_string(),
        ]);
        c
    })?;
    initialize(&mut direct)?;
    eprintln!("{} calls straight to the server...", options.calls);
    let straight = timed(&mut direct, &tool, &arguments, options.calls)?;
    direct.stop()?;
    eprintln!("{} calls through the gateway...", options.calls);
    let through = timed(&mut gateway, &tool, &arguments, options.calls)?;
    gateway.stop()?;

    let tokens = |list: &Value| -> Result<(usize, usize)> {
        let tools = list
            .get("tools")
            .and_then(Value::as_array)
            .context("no tools")?;
        Ok((tools.len(), serde_json::to_string(list)?.len().div_ceil(4)))
    };
    let (flat_n, flat_t) = tokens(&flat_list)?;
    let (l1_n, l1_t) = tokens(&level1)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} servers × {} tools; each skill references {SCOPED} tools of one server\n",
        options.servers, options.tools
    );
    let _ = writeln!(out, "| tools/list | tools | tokens | vs. flat |");
    let _ = writeln!(out, "| --- | ---: | ---: | ---: |");
    let share = |t: usize| format!("{:.1}%", t as f64 * 100.0 / flat_t.max(1) as f64);
    let _ = writeln!(
        out,
        "| flat (every downstream tool) | {flat_n} | {flat_t} | 100% |"
    );
    let _ = writeln!(
        out,
        "| Level 1 (gateway) | {l1_n} | {l1_t} | {} |",
        share(l1_t)
    );
    let mut l2: Vec<(usize, usize)> = Vec::new();
    for list in &level2 {
        l2.push(tokens(list)?);
    }
    let (min, max) = (
        l2.iter().map(|x| x.1).min().unwrap_or_default(),
        l2.iter().map(|x| x.1).max().unwrap_or_default(),
    );
    let _ = writeln!(
        out,
        "| Level 2 (one skill active), {} skills | {} | {min}–{max} | {}–{} |",
        l2.len(),
        l2.first().map_or(0, |x| x.0),
        share(min),
        share(max)
    );
    let (s, t) = (Stats::of(straight), Stats::of(through));
    let _ = writeln!(
        out,
        "\n| {} calls of `{tool}` | median | p99 |",
        options.calls
    );
    let _ = writeln!(out, "| --- | ---: | ---: |");
    let _ = writeln!(
        out,
        "| straight to the server | {:.3} ms | {:.3} ms |",
        ms(s.median),
        ms(s.p99)
    );
    let _ = writeln!(
        out,
        "| through the gateway | {:.3} ms | {:.3} ms |",
        ms(t.median),
        ms(t.p99)
    );
    let added = t.median.saturating_sub(s.median);
    let added99 = t.p99.saturating_sub(s.p99);
    let _ = writeln!(
        out,
        "| added by the gateway | {:.3} ms | {:.3} ms |",
        ms(added),
        ms(added99)
    );
    let _ = writeln!(
        out,
        "\ntarget: under {} ms added per call (median): {}",
        ms(ADDED_TARGET),
        if added < ADDED_TARGET {
            "met"
        } else {
            "NOT met"
        }
    );
    print!("{out}");
    Ok(())
}

fn initialize(server: &mut Server) -> Result<()> {
    server.call(
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "xtask-bench-gateway", "version": "0"}
        }),
    )?;
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
}

/// `calls` sequential calls of `tool`, each checked after its clock stopped.
fn timed(
    server: &mut Server,
    tool: &str,
    arguments: &Value,
    calls: usize,
) -> Result<Vec<Duration>> {
    let params = json!({"name": tool, "arguments": arguments});
    // Warm up: the first calls pay for lazy set-up on both sides.
    for _ in 0..20 {
        server.call("tools/call", params.clone())?;
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let (result, elapsed) = server.call("tools/call", params.clone())?;
        if result.get("isError") == Some(&Value::Bool(true)) {
            bail!("{tool} failed: {result}");
        }
        times.push(elapsed);
    }
    Ok(times)
}

fn tool_name(server: usize, tool: usize) -> String {
    format!("team{server}_{}_{tool}", verb(tool))
}

/// The verb of tool `t`: the list, round and round.
fn verb(t: usize) -> &'static str {
    VERBS.get(t % VERBS.len()).copied().unwrap_or("run")
}

const VERBS: [&str; 10] = [
    "list_tables",
    "describe_table",
    "run_query",
    "explain_query",
    "cancel_query",
    "list_jobs",
    "get_job",
    "list_dashboards",
    "export_csv",
    "grant_access",
];

/// A tool as real servers describe theirs: a sentence or two, three typed arguments.
fn tool(server: usize, t: usize) -> Value {
    json!({
        "name": tool_name(server, t),
        "title": format!("Team {server}: {}", verb(t).replace('_', " ")),
        "description": format!(
            "{} in team {server}'s warehouse. Returns at most `limit` rows as JSON; set `verbose` for column types and timing. Fails when the caller lacks read access to the schema.",
            verb(t).replace('_', " ")
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look up: a table, a job id or a SQL text."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "The most rows to return."},
                "verbose": {"type": "boolean", "description": "Include column types and timing."}
            },
            "required": ["query"]
        },
        "annotations": {"readOnlyHint": t % VERBS.len() != 4 && t % VERBS.len() != 9}
    })
}

/// `cargo xtask gateway-fixture SERVER TOOLS`: a downstream MCP server for the benchmark on
/// stdin/stdout: `initialize`, `tools/list` (all in one page), `tools/call` (echoes the
/// arguments as text), `ping`; notifications are read and ignored.
pub(crate) fn fixture(args: &[String]) -> Result<()> {
    let [server, tools] = args else {
        bail!("usage: cargo xtask gateway-fixture SERVER TOOLS");
    };
    let server: usize = server.parse()?;
    let count: usize = tools.parse()?;
    let list: Vec<Value> = (0..count).map(|t| tool(server, t)).collect();
    let stdin = std::io::stdin();
    // A protocol stream, not terminal output: the server's stdout is the gateway's pipe.
    #[allow(clippy::disallowed_methods)]
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let result = match method {
            "initialize" => json!({
                "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": format!("bench-server-{server}"), "version": "0"}
            }),
            "tools/list" => json!({"tools": list}),
            "tools/call" => {
                let arguments = message
                    .pointer("/params/arguments")
                    .cloned()
                    .unwrap_or(Value::Null);
                json!({"content": [{"type": "text", "text": arguments.to_string()}], "isError": false})
            }
            _ => json!({}),
        };
        let mut bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result}))?;
        bytes.push(b'\n');
        stdout.write_all(&bytes)?;
        stdout.flush()?;
    }
    Ok(())
}

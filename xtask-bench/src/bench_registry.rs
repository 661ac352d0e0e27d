//! `cargo xtask bench registry`: `skills registry serve` (the release binary) under load.
//!
//! Fills a database with N public skills straight through the store (registration over
//! HTTP would time the fetch and the linter, not the registry), starts the server on it,
//! then for each of three requests (a card: `GET /api/skills/{name}`; a page by tag:
//! `GET /api/skills?tag=…&limit=50`; the content: `GET /api/skills/{name}/content`) runs
//! `wrk` with C keep-alive connections for S seconds (a Lua script picks a random skill or
//! tag per request) and reports requests per second, p50 and p99, and the server's peak
//! RSS. wrk runs on the same machine: on 2 cores it takes CPU from the server (far less
//! than clients of our own: a thread per connection took more CPU than the server), so the
//! figures are a floor.
//!
//! Without `--database`, the same run is made on SQLite and then on PostgreSQL, in a
//! cluster the bench starts itself (initdb + pg_ctl in a temp dir) when PostgreSQL's
//! binaries are installed.
//!
//! Issue 14's targets on 2 cores with SQLite: ≥ 10,000 req/s and p99 < 10 ms for a card,
//! list p99 < 20 ms, peak RSS < 60 MB.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use skills_registry::{
    AnyStore, HealthStatus, Registry, RegistryConfig, SkillCard, Store, Visibility,
};

use crate::build_skills;

struct Options {
    skills: usize,
    clients: usize,
    seconds: u64,
    database: Option<String>,
    /// A `skills` binary to run instead of building the release one.
    exe: Option<std::path::PathBuf>,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options {
        skills: 10_000,
        clients: 64,
        seconds: 5,
        database: None,
        exe: None,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--skills" => options.skills = value.parse().context("--skills")?,
            "--clients" => options.clients = value.parse().context("--clients")?,
            "--seconds" => options.seconds = value.parse().context("--seconds")?,
            "--database" => options.database = Some(value.clone()),
            "--exe" => options.exe = Some(value.into()),
            other => bail!(
                "unknown option `{other}` (usage: cargo xtask bench registry [--skills 10000] [--clients 64] [--seconds 5] [--database URL] [--exe PATH])"
            ),
        }
    }
    Ok(options)
}

const TAGS: usize = 20;

fn card(i: usize) -> SkillCard {
    let name = format!("skill-{i:05}");
    SkillCard {
        path: format!("/skills/{name}"),
        description: format!("Does task {i} for the benchmark. Use when task {i} is asked for."),
        skill_md_url: format!("https://github.com/o/r/blob/main/skills/{name}/SKILL.md"),
        skill_md_raw_url: format!(
            "https://raw.githubusercontent.com/o/r/main/skills/{name}/SKILL.md"
        ),
        repository_url: Some("https://github.com/o/r".into()),
        version: Some("1.0".into()),
        author: Some("bench".into()),
        license: Some("MIT".into()),
        compatibility: None,
        tags: vec![format!("tag-{}", i % TAGS), "bench".into()],
        requirements: Vec::new(),
        target_agents: Vec::new(),
        allowed_tools: skills_registry::ToolReference::parse_allowed_tools("Read Bash(git:*)"),
        visibility: Visibility::Public,
        allowed_groups: Vec::new(),
        owner: "bench".into(),
        is_enabled: true,
        registry_name: "local".into(),
        // Checked and healthy, as in a registry that has run a while: the background
        // checker finds nothing due during the run (its HEADs would go to GitHub).
        health_status: HealthStatus::Healthy,
        last_checked_time: Some(String::new()),
        num_stars: 0.0,
        rating_details: Vec::new(),
        content_version: format!("{i:064x}"),
        content_updated_at: String::new(),
        created_at: String::new(),
        updated_at: String::new(),
        audit: None,
        peer_audit: None,
        name,
    }
}

/// Fills the database and returns a user's token.
fn populate(url: &str, skills: usize) -> Result<String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = AnyStore::open(url).await?;
        store.migrate().await?;
        let body = format!(
            "---\nname: x\ndescription: y\n---\n{}",
            "Step.\n".repeat(300)
        );
        let started = Instant::now();
        for i in 0..skills {
            store.insert(&card(i), &body).await?;
        }
        eprintln!(
            "inserted {skills} skills in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let registry = Registry::new(store, RegistryConfig::default());
        let (token, _) = registry.create_token("reader", Vec::new(), false).await?;
        registry.store().close().await;
        Ok::<_, anyhow::Error>(token)
    })
}

fn start(exe: &std::path::Path, url: &str) -> Result<(Child, String)> {
    let mut child = Command::new(exe)
        .args([
            "registry",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--database",
            url,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().context("no stderr")?;
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line)?;
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .with_context(|| format!("no address announced: {line:?}"))?
        .to_string();
    Ok((child, address))
}

/// The server's CPU time so far (user + system), from `/proc/PID/stat`.
fn cpu_time(child: &Child) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).ok()?;
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// A `/proc/PID/status` field in KiB (`VmHWM:`, `RssAnon:`, `RssFile:`).
fn status_kib(child: &Child, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Load {
    rps: f64,
    p50: Duration,
    p99: Duration,
    errors: usize,
}

/// Runs `wrk` against `address` with `clients` connections for `seconds`, each request's
/// path from the Lua expression `path` (evaluated per request).
fn load(address: &str, token: &str, clients: usize, seconds: u64, path: &str) -> Result<Load> {
    let script = tempfile::Builder::new().suffix(".lua").tempfile()?;
    std::fs::write(
        script.path(),
        format!(
            "math.randomseed(os.time())\nrequest = function()\n  return wrk.format(\"GET\", {path})\nend\n"
        ),
    )?;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(clients.max(1));
    let output = Command::new("wrk")
        .arg(format!("-t{threads}"))
        .arg(format!("-c{}", clients.max(threads)))
        .arg(format!("-d{seconds}s"))
        .args(["--latency", "-s"])
        .arg(script.path())
        .args(["-H", &format!("authorization: Bearer {token}")])
        .arg(format!("http://{address}"))
        .output()
        .context("running wrk (Debian: apt-get install wrk)")?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse_wrk(&text).with_context(|| format!("wrk's output not understood:\n{text}"))
}

/// Requests per second, p50, p99 and errors from wrk's `--latency` report.
fn parse_wrk(text: &str) -> Option<Load> {
    let field = |prefix: &str| {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(prefix))
            .map(str::trim)
    };
    let duration = |value: &str| -> Option<Duration> {
        let (number, unit) = value.split_at(value.find(|c: char| c.is_ascii_alphabetic())?);
        let number: f64 = number.parse().ok()?;
        let seconds = match unit {
            "us" => number / 1e6,
            "ms" => number / 1e3,
            "s" => number,
            "m" => number * 60.0,
            _ => return None,
        };
        Some(Duration::from_secs_f64(seconds))
    };
    let errors = field("Non-2xx or 3xx responses:").map_or(Some(0), |n| n.parse().ok())?
        + field("Socket errors:").map_or(0, |e| {
            e.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<usize>().ok())
                .sum()
        });
    Some(Load {
        rps: field("Requests/sec:")?.parse().ok()?,
        p50: duration(field("50%")?)?,
        p99: duration(field("99%")?)?,
        errors,
    })
}

/// The registry crate's throwaway PostgreSQL cluster (initdb + pg_ctl in a temp dir), as its
/// tests start it.
#[path = "../../crates/skills-registry/tests/support/postgres.rs"]
#[allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::panic,
    clippy::print_stderr
)]
mod postgres;

pub(super) fn run(args: &[String]) -> Result<()> {
    let options = parse(args)?;
    let exe = match &options.exe {
        Some(exe) => exe.clone(),
        None => build_skills()?,
    };
    if let Some(url) = &options.database {
        return bench(&exe, url, "given", &options);
    }
    // Both stores, in one run: SQLite in a temp dir, then PostgreSQL in a cluster of its
    // own when its binaries are installed (as the API tests do).
    let dir = tempfile::tempdir()?;
    let sqlite = format!("sqlite://{}", dir.path().join("registry.db").display());
    bench(&exe, &sqlite, "SQLite", &options)?;
    match postgres::Cluster::start() {
        Some(cluster) => {
            println!();
            bench(&exe, &cluster.url("postgres"), "PostgreSQL", &options)
        }
        None => Ok(()),
    }
}

/// Fills the database at `url`, serves it, loads each request kind and prints the table.
fn bench(exe: &std::path::Path, url: &str, label: &str, options: &Options) -> Result<()> {
    let token = populate(url, options.skills)?;
    let (mut child, address) = start(exe, url)?;
    let skills = options.skills.max(1);
    let last = skills.saturating_sub(1);
    let kinds: [(&str, String); 4] = [
        (
            "GET /api/skills/{name}",
            format!("string.format(\"/api/skills/skill-%05d\", math.random(0, {last}))"),
        ),
        (
            "GET /api/skills?tag=…&limit=50",
            format!(
                "string.format(\"/api/skills?tag=tag-%d&limit=50\", math.random(0, {}))",
                TAGS - 1
            ),
        ),
        (
            "GET /api/skills?limit=50",
            "\"/api/skills?limit=50\"".to_string(),
        ),
        (
            "GET /api/skills/{name}/content",
            format!("string.format(\"/api/skills/skill-%05d/content\", math.random(0, {last}))"),
        ),
    ];
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut table = format!(
        "{} skills, {} connections (wrk) for {} s each, {cores} cores, database {}\n\n| request | req/s | p50 (ms) | p99 (ms) | server CPU per request (µs) | errors |\n|---|---:|---:|---:|---:|---:|\n",
        options.skills, options.clients, options.seconds, label
    );
    for (label, path) in kinds {
        let cpu_before = cpu_time(&child);
        let result = load(&address, &token, options.clients, options.seconds, &path)?;
        let per_request = match (cpu_before, cpu_time(&child)) {
            (Some(before), Some(after)) if result.rps > 0.0 => format!(
                "{:.0}",
                (after - before).as_secs_f64() * 1e6 / (result.rps * options.seconds as f64)
            ),
            _ => "?".to_string(),
        };
        table.push_str(&format!(
            "| `{label}` | {:.0} | {:.2} | {:.2} | {per_request} | {} |\n",
            result.rps,
            result.p50.as_secs_f64() * 1000.0,
            result.p99.as_secs_f64() * 1000.0,
            result.errors
        ));
    }
    let mb = |field: &str| {
        status_kib(&child, field).map_or("?".to_string(), |kib| {
            format!("{:.1} MB", kib as f64 / 1024.0)
        })
    };
    let memory = format!(
        "server peak RSS: {} (at the end: {} anonymous, {} file-backed)\n",
        mb("VmHWM:"),
        mb("RssAnon:"),
        mb("RssFile:")
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    table.push('\n');
    table.push_str(&memory);
    print!("{table}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_reports_are_read() {
        let report = "Running 5s test @ http://127.0.0.1:8471
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.99ms    1.32ms  15.97ms   74.14%
    Req/Sec    16.25k     5.87k   28.74k    64.00%
  Latency Distribution
     50%  850.00us
     75%    2.56ms
     90%    3.67ms
     99%    1.02s
  161765 requests in 5.01s, 175.76MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  32314.51
Transfer/sec:     35.11MB
";
        let load = parse_wrk(report).unwrap();
        assert!((load.rps - 32314.51).abs() < 1e-6);
        assert_eq!(load.p50, Duration::from_micros(850));
        assert_eq!(load.p99, Duration::from_millis(1020));
        assert_eq!(load.errors, 7);
        assert!(parse_wrk("wrk: unknown option").is_none());
    }
}

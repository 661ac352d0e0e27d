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
//! binaries are installed. On PostgreSQL it runs again with two servers on the database
//! (the connections split between them, a wrk each), beside one, and reports how soon a
//! write through one server is seen through the other.
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
        hosted: false,
        audit: None,
        peer_audit: None,
        name,
    }
}

/// Fills the database and returns a user's token and an admin's.
fn populate(url: &str, skills: usize) -> Result<(String, String)> {
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
        let (admin, _) = registry.create_token("admin", Vec::new(), true).await?;
        registry.store().close().await;
        Ok::<_, anyhow::Error>((token, admin))
    })
}

/// `skills registry serve` on `url`, in `cwd` (each server's state directory, by default
/// `skills-registry.state` there, is its own).
fn start(exe: &std::path::Path, url: &str, cwd: &std::path::Path) -> Result<(Child, String)> {
    let mut child = Command::new(exe)
        .current_dir(cwd)
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

/// The requests loaded, each a label and the Lua expression of its path.
fn kinds(skills: usize) -> [(&'static str, String); 4] {
    let last = skills.max(1).saturating_sub(1);
    [
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
    ]
}

/// One request kind's figures over every server: requests per second summed, the worst
/// server's p50 and p99, the servers' CPU per request.
struct Row {
    rps: f64,
    p50: Duration,
    p99: Duration,
    cpu_us: Option<f64>,
    errors: usize,
}

/// What [`load_servers`] measured, and the servers, still running.
struct Loaded {
    rows: Vec<Row>,
    /// Each server's memory, as a phrase.
    memory: Vec<String>,
    servers: Vec<(Child, String)>,
    /// The servers' working directories.
    _dirs: Vec<tempfile::TempDir>,
}

/// Starts `instances` servers on `url` and loads each request kind on all of them at
/// once, the connections split between them (a load balancer's round robin, without
/// one): the rows, and each server's memory.
fn load_servers(
    exe: &std::path::Path,
    url: &str,
    token: &str,
    options: &Options,
    instances: usize,
) -> Result<Loaded> {
    let (mut servers, mut dirs) = (Vec::new(), Vec::new());
    for _ in 0..instances {
        let dir = tempfile::tempdir()?;
        servers.push(start(exe, url, dir.path())?);
        dirs.push(dir);
    }
    let mut rows = Vec::new();
    for (_, path) in kinds(options.skills) {
        let cpu_before: Vec<_> = servers.iter().map(|(child, _)| cpu_time(child)).collect();
        let clients = (options.clients / instances).max(1);
        let loads: Vec<Result<Load>> = std::thread::scope(|scope| {
            let runs: Vec<_> = servers
                .iter()
                .map(|(_, address)| {
                    let path = path.as_str();
                    scope.spawn(move || load(address, token, clients, options.seconds, path))
                })
                .collect();
            runs.into_iter()
                .map(|run| {
                    run.join()
                        .unwrap_or_else(|_| bail!("wrk's thread panicked"))
                })
                .collect()
        });
        let loads = loads.into_iter().collect::<Result<Vec<_>>>()?;
        let cpu: Option<Duration> = servers
            .iter()
            .zip(cpu_before)
            .map(|((child, _), before)| Some(cpu_time(child)? - before?))
            .sum();
        let rps: f64 = loads.iter().map(|l| l.rps).sum();
        rows.push(Row {
            rps,
            p50: loads.iter().map(|l| l.p50).max().unwrap_or_default(),
            p99: loads.iter().map(|l| l.p99).max().unwrap_or_default(),
            cpu_us: cpu
                .filter(|_| rps > 0.0)
                .map(|cpu| cpu.as_secs_f64() * 1e6 / (rps * options.seconds as f64)),
            errors: loads.iter().map(|l| l.errors).sum(),
        });
    }
    let memory = servers
        .iter()
        .map(|(child, _)| {
            let mb = |field: &str| {
                status_kib(child, field).map_or("?".to_string(), |kib| {
                    format!("{:.1} MB", kib as f64 / 1024.0)
                })
            };
            format!(
                "{} (at the end: {} anonymous, {} file-backed)",
                mb("VmHWM:"),
                mb("RssAnon:"),
                mb("RssFile:")
            )
        })
        .collect();
    Ok(Loaded {
        rows,
        memory,
        servers,
        _dirs: dirs,
    })
}

fn stop_all(servers: Vec<(Child, String)>) {
    for (mut child, _) in servers {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let _ = child.wait();
    }
}

/// Fills the database at `url`, serves it, loads each request kind and prints the table;
/// on PostgreSQL, again with two servers on the database, beside one, and how soon a write
/// through one is seen through the other.
fn bench(exe: &std::path::Path, url: &str, label: &str, options: &Options) -> Result<()> {
    let (token, admin) = populate(url, options.skills)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let shared = url.starts_with("postgres");
    let Loaded {
        rows: one,
        memory,
        servers,
        _dirs: _one,
    } = load_servers(exe, url, &token, options, 1)?;
    stop_all(servers);
    let two = if shared {
        let Loaded {
            rows,
            memory,
            servers,
            _dirs: _two,
        } = load_servers(exe, url, &token, options, 2)?;
        let seen = propagation(&servers, &admin);
        stop_all(servers);
        Some((rows, memory, seen?))
    } else {
        None
    };
    let mut table = format!(
        "{} skills, {} connections (wrk) for {} s each, {cores} cores, database {label}\n\n",
        options.skills, options.clients, options.seconds
    );
    let cells = |row: &Row| {
        format!(
            "{:.0} | {:.2} | {:.2} | {} | {}",
            row.rps,
            row.p50.as_secs_f64() * 1000.0,
            row.p99.as_secs_f64() * 1000.0,
            row.cpu_us.map_or("?".to_string(), |us| format!("{us:.0}")),
            row.errors
        )
    };
    match &two {
        None => table.push_str(
            "| request | req/s | p50 (ms) | p99 (ms) | server CPU per request (µs) | errors |\n|---|---:|---:|---:|---:|---:|\n",
        ),
        Some(_) => table.push_str(
            "| request | 1 server: req/s | p50 (ms) | p99 (ms) | CPU per request (µs) | errors | 2 servers: req/s | p50 (ms) | p99 (ms) | CPU per request (µs) | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        ),
    }
    for (i, (kind, _)) in kinds(options.skills).iter().enumerate() {
        let Some(row) = one.get(i) else { continue };
        table.push_str(&format!("| `{kind}` | {}", cells(row)));
        if let Some(row) = two.as_ref().and_then(|(rows, _, _)| rows.get(i)) {
            table.push_str(&format!(" | {}", cells(row)));
        }
        table.push_str(" |\n");
    }
    table.push_str(&format!("\nserver peak RSS: {}\n", memory.join(", ")));
    if let Some((_, memory, seen)) = &two {
        table.push_str(&format!(
            "with two servers, each: {}\n{seen}\n",
            memory.join("; ")
        ));
    }
    print!("{table}");
    Ok(())
}

/// How soon a change through the first server is seen through the second, whose cached
/// answer is fresh: 50 times, a card read through the second, disabled (or enabled) through
/// the first, then read through the second every 0.2 ms until it shows the change.
fn propagation(servers: &[(Child, String)], admin: &str) -> Result<String> {
    let (Some((_, first)), Some((_, second))) = (servers.first(), servers.get(1)) else {
        bail!("two servers are needed");
    };
    let path = "/api/skills/skill-00000";
    let mut seen = Vec::new();
    for i in 0..50 {
        let (enable, expect) = if i % 2 == 0 {
            ("disable", "\"is_enabled\":false")
        } else {
            ("enable", "\"is_enabled\":true")
        };
        let (_, before) = http(second, "GET", path, admin)?;
        if before.contains(expect) {
            bail!("the card shows the change before it was made: {before}");
        }
        let (status, body) = http(first, "PUT", &format!("{path}/{enable}"), admin)?;
        if status != 200 {
            bail!("{enable}: {status} {body}");
        }
        let written = Instant::now();
        loop {
            let (_, body) = http(second, "GET", path, admin)?;
            if body.contains(expect) {
                break;
            }
            if written.elapsed() > Duration::from_secs(5) {
                bail!("the change was not seen through the second server in 5 s");
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        seen.push(written.elapsed());
    }
    seen.sort();
    let ms = |d: Option<&Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    Ok(format!(
        "a write through one server seen through the other after (50 writes): p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        ms(seen.get(25)),
        ms(seen.get(45)),
        ms(seen.last())
    ))
}

/// One HTTP/1.1 request on a connection of its own: the status and the body.
fn http(address: &str, method: &str, path: &str, token: &str) -> Result<(u16, String)> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(address)?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("not an HTTP answer: {answer:?}"))?;
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_string());
    Ok((status, body))
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

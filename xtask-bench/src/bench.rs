//! `cargo xtask bench <name> [options]`: benchmarks of the release `skills` binary on
//! synthetic skill trees. Each benchmark is an entry of [`BENCHES`].
//!
//! - `lint` (here): `skills lint` against `rg`.
//! - `add` (`bench_add.rs`): `skills add --all` of one repository of many skills, then
//!   `check`, `update` and `sync` of them (and npm `skills`' `add`, when given).
//! - `discovery` (`bench_discovery.rs`): `skills list`, `skills show` and the in-process
//!   `Index::refresh` against `find`, on the same generated trees.
//! - `mcp` (`bench_mcp.rs`): round trips of `skills mcp` and its peak RSS, on the same trees.
//! - `registry` (`bench_registry.rs`): `skills registry serve` under concurrent load.
//! - `gateway` (`bench_gateway.rs`): what `skills mcp --gateway` saves in `tools/list`, and
//!   what it adds to a call.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{build_skills, target_dir};

#[path = "bench_add.rs"]
mod add;
#[path = "bench_audit.rs"]
mod audit;
#[path = "bench_discovery.rs"]
mod discovery;
#[path = "bench_gateway.rs"]
pub(crate) mod gateway;
#[path = "bench_mcp.rs"]
pub(crate) mod mcp;
#[path = "bench_registry.rs"]
mod registry;

/// A benchmark: its name (`cargo xtask bench <name>`), what it measures, and its entry point.
struct Bench {
    name: &'static str,
    about: &'static str,
    run: fn(&[String]) -> Result<()>,
}

/// Every benchmark. Add an entry to add `cargo xtask bench <name>`.
const BENCHES: &[Bench] = &[
    Bench {
        name: "lint",
        about: "time `skills lint` (and `rg`, for scale) on generated trees; options: [--sizes 1000,10000] [--runs N]; or on a real tree copied N times: --corpus DIR [--copies N] [--files all|skill-md|crawl] [--runs N] (every output format, peak RSS, and `skilo`/`rg` when installed)",
        run: lint,
    },
    Bench {
        name: "audit",
        about: "`skills audit` against Cisco's `skill-scanner` (static mode, when installed) on a corpus, against `skills lint --format json` on it copied N times, and both scanners' recall and false positives on testdata/audit/labelled; options: [--corpus ../shared/corpus-large] [--copies 30] [--runs 5] [--peer PATH]",
        run: audit::run,
    },
    Bench {
        name: "add",
        about: "`skills add <repo> --all` of N skills from one local git repository (empty and warm cache), then `check`, `update` and `sync` of them (and `sync` into a fresh clone), with each one's ratio to `add`; options: [--skills 500] [--corpus DIR] [--runs 5] [--npm node_modules/.bin/skills]",
        run: add::run,
    },
    Bench {
        name: "discovery",
        about: "time `skills list`/`show` (and `find`, for scale) and Index::refresh on generated trees; options: [--sizes 1000,10000] [--runs N]",
        run: discovery::run,
    },
    Bench {
        name: "mcp",
        about: "round trips of `skills mcp` (get_skill, skills/list: median, p99) and its peak RSS; options: [--sizes 100,1000] [--calls N]",
        run: mcp::run,
    },
    Bench {
        name: "mcp-load",
        about: "`skills mcp` under load: pipelined get_skill on one connection, then many clients at once (median, p99, peak RSS); options: [--skills 1000] [--requests 10000] [--clients 100] [--calls 100]",
        run: mcp::run_load,
    },
    Bench {
        name: "registry",
        about: "`skills registry serve` under load: req/s, p50, p99 of a card, a page by tag and the content, and peak RSS; options: [--skills 10000] [--clients 64] [--seconds 5] [--database URL] [--exe PATH]",
        run: registry::run,
    },
    Bench {
        name: "gateway",
        about: "`skills mcp --gateway`: tokens of tools/list flat vs. Level 1 vs. each Level 2, and the latency a proxied call adds (median, p99); options: [--servers 10] [--tools 50] [--calls 1000]",
        run: gateway::run,
    },
];

/// Runs the benchmark named by the first argument.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let Some((name, rest)) = args.split_first() else {
        bail!("no benchmark given\n{}", known());
    };
    if matches!(name.as_str(), "help" | "-h" | "--help") {
        print!("{}", known());
        return Ok(());
    }
    match BENCHES.iter().find(|b| b.name == name) {
        Some(bench) => (bench.run)(rest),
        None => bail!("unknown benchmark `{name}`\n{}", known()),
    }
}

fn known() -> String {
    let mut out = String::from("benchmarks (cargo xtask bench <name>):\n");
    for b in BENCHES {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "  {:<10} {}", b.name, b.about);
    }
    out
}

/// Options of `bench lint` and `bench discovery`.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    sizes: Vec<usize>,
    runs: usize,
}

const WARMUP_RUNS: usize = 2;

/// Parses `[--sizes 1000,10000] [--runs N]` for the benchmark `bench`.
fn parse_options(bench: &str, args: &[String]) -> Result<Options> {
    let mut options = Options {
        sizes: vec![1_000, 10_000],
        runs: 10,
    };
    let usage = format!("cargo xtask bench {bench} [--sizes 1000,10000] [--runs N]");
    for (flag, value) in flags(args, &["--sizes", "--runs"], &usage)? {
        match flag {
            "--sizes" => options.sizes = positive_list(&value, flag)?,
            _ => options.runs = positive(&value, flag)?,
        }
    }
    Ok(options)
}

/// The `--flag value` and `--flag=value` pairs of `args`, each flag one of `known`; anything
/// else is an error that shows `usage`.
pub(crate) fn flags<'k>(
    args: &[String],
    known: &[&'k str],
    usage: &str,
) -> Result<Vec<(&'k str, String)>> {
    let mut pairs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        let Some(&flag) = known.iter().find(|k| **k == flag) else {
            bail!("unknown option `{flag}` (usage: {usage})");
        };
        let value = inline
            .or_else(|| args.next().cloned())
            .with_context(|| format!("`{flag}` needs a value"))?;
        pairs.push((flag, value));
    }
    Ok(pairs)
}

/// A positive number; `_` may group digits.
pub(crate) fn positive(value: &str, flag: &str) -> Result<usize> {
    value
        .trim()
        .replace('_', "")
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .with_context(|| format!("`{flag}`: `{value}` is not a positive number"))
}

/// Comma-separated positive numbers.
fn positive_list(value: &str, flag: &str) -> Result<Vec<usize>> {
    value.split(',').map(|s| positive(s, flag)).collect()
}

/// One row of the results.
struct Row {
    skills: usize,
    lint: Duration,
    rg: Option<Duration>,
}

/// `bench lint`: `skills lint <tree>` against `rg -c '^name:' -g SKILL.md <tree>` (the floor:
/// walking the same tree and reading every `SKILL.md`, with no parsing).
fn lint(args: &[String]) -> Result<()> {
    if args
        .iter()
        .any(|a| a == "--corpus" || a.starts_with("--corpus="))
    {
        return corpus(args);
    }
    let options = parse_options("lint", args)?;
    let exe = build_skills()?;
    let rg = has_rg();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    eprintln!(
        "cores: {cores}; {} timed runs after {WARMUP_RUNS} warm-up runs, median wall clock",
        options.runs
    );
    if let Some(load) = discovery::load_average() {
        eprintln!("load average: {load} (measure on an idle machine)");
    }
    if !rg {
        eprintln!("note: `rg` is not on PATH; install ripgrep to compare");
    }

    let mut rows = Vec::new();
    for &n in &options.sizes {
        let tree = generate_tree(n)?;
        check_tree(&exe, &tree, n)?;
        let lint = median_time(options.runs, || {
            let mut cmd = Command::new(&exe);
            cmd.arg("lint").arg(&tree).arg("--no-config");
            cmd
        })
        .context("timing skills lint")?;
        let rg = if rg {
            Some(
                median_time(options.runs, || {
                    let mut cmd = Command::new("rg");
                    cmd.args(["-c", "^name:", "-g", "SKILL.md"]).arg(&tree);
                    cmd
                })
                .context("timing rg")?,
            )
        } else {
            None
        };
        eprintln!(
            "{n} skills: skills lint {:.1} ms{}",
            ms(lint),
            rg.map(|d| format!(", rg {:.1} ms", ms(d)))
                .unwrap_or_default()
        );
        rows.push(Row {
            skills: n,
            lint,
            rg,
        });
    }

    println!();
    println!("cores: {cores} (std::thread::available_parallelism)");
    println!(
        "median of {} runs after {WARMUP_RUNS} warm-up runs",
        options.runs
    );
    println!();
    print!("{}", results_table(&rows));
    if !rg {
        println!();
        println!("install ripgrep to compare");
    }
    Ok(())
}

/// `bench lint --corpus DIR [--copies N] [--runs N]`: a real collection (skills with their
/// references and scripts, and the findings real skills have) copied N times under one root,
/// linted in every output format, beside `skilo lint` and `rg` when they are installed.
/// Output goes to /dev/null with `NO_COLOR=1`; the peak RSS of one more run is read with
/// GNU `time` when it is installed.
///
/// `--files skill-md` copies only the `SKILL.md` files, the shape of a crawl of published
/// skills (issue 13's held-out tree): every reference a skill makes is then missing, so the
/// run reports several findings a skill and rendering weighs more.
fn corpus(args: &[String]) -> Result<()> {
    let usage =
        "cargo xtask bench lint --corpus DIR [--copies N] [--files all|skill-md|crawl] [--runs N]";
    let (mut dir, mut copies, mut runs, mut files) = (None, 1, 5, Files::All);
    for (flag, value) in flags(args, &["--corpus", "--copies", "--files", "--runs"], usage)? {
        match flag {
            "--corpus" => dir = Some(PathBuf::from(value)),
            "--copies" => copies = positive(&value, flag)?,
            "--files" => {
                files = match value.as_str() {
                    "all" => Files::All,
                    "skill-md" => Files::SkillMd,
                    "crawl" => Files::Crawl,
                    other => {
                        bail!("`--files`: `{other}` is not `all`, `skill-md` or `crawl`")
                    }
                }
            }
            _ => runs = positive(&value, flag)?,
        }
    }
    let dir = dir.with_context(|| format!("no --corpus (usage: {usage})"))?;
    let exe = build_skills()?;
    let tree = copied_tree(&dir, copies, files)?;
    let (skills, findings) = count_skills(&exe, &tree)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let what = match files {
        Files::All => "",
        Files::SkillMd => " (SKILL.md files only)",
        Files::Crawl => " (SKILL.md files only, four skills a repository, as a crawl holds them)",
    };
    eprintln!(
        "{} copies of {}{what}: {skills} skills, {findings} findings; cores: {cores}",
        copies,
        dir.display()
    );
    if let Some(load) = discovery::load_average() {
        eprintln!("load average: {load} (measure on an idle machine)");
    }
    // Every command to time: a label, the program and its arguments.
    let tree_arg = tree.display().to_string();
    let mut commands: Vec<(String, PathBuf, Vec<String>)> = Vec::new();
    for format in ["json", "concise", "human", "sarif"] {
        commands.push((
            format!("skills lint --format {format}"),
            exe.clone(),
            vec![
                "lint".into(),
                "--format".into(),
                format.into(),
                tree_arg.clone(),
            ],
        ));
    }
    if let Some(skilo) = on_path("skilo") {
        commands.push((
            "skilo lint".into(),
            skilo,
            vec!["lint".into(), tree_arg.clone()],
        ));
    } else {
        eprintln!("note: `skilo` is not on PATH; `cargo install skilo` to compare");
    }
    if let Some(rg) = on_path("rg") {
        let args = ["-c", "^name:", "-g", "SKILL.md", &tree_arg]
            .map(String::from)
            .to_vec();
        commands.push(("rg -c '^name:' -g SKILL.md".into(), rg, args));
    } else {
        eprintln!("note: `rg` is not on PATH; install ripgrep to compare");
    }
    let makes: Vec<Box<dyn Fn() -> Command + '_>> = commands
        .iter()
        .map(|(_, program, args)| {
            Box::new(move || {
                let mut cmd = Command::new(program);
                cmd.args(args).env("NO_COLOR", "1");
                cmd
            }) as Box<dyn Fn() -> Command + '_>
        })
        .collect();
    eprintln!(
        "timing {} commands in {} rounds of one run each ({WARMUP_RUNS} warm-up rounds)...",
        commands.len(),
        runs
    );
    let times = median_times_interleaved(runs, &makes).context("timing the commands")?;
    let mut rows: Vec<(&str, Duration, Option<u64>)> = Vec::new();
    for ((label, program, args), time) in commands.iter().zip(times) {
        let rss = peak_rss_kib(program, args);
        eprintln!("{label}: {:.0} ms", ms(time));
        rows.push((label, time, rss));
    }
    // The targets are ratios (issue 13: json <= 0.8x skilo, human <= 1.3x json), so the
    // table says them rather than leaving the division to the reader.
    let time_of = |label: &str| rows.iter().find(|r| r.0 == label).map(|r| r.1);
    let (json, skilo) = (time_of("skills lint --format json"), time_of("skilo lint"));
    let ratio = |time: Duration, base: Option<Duration>| {
        base.filter(|b| !b.is_zero()).map_or_else(
            || "-".to_string(),
            |b| format!("{:.2}", time.as_secs_f64() / b.as_secs_f64()),
        )
    };
    println!();
    println!(
        "{} copies of `{}`{what} ({} skills, {} findings), {cores} cores, median of {runs} rounds (each command once a round) after {WARMUP_RUNS} warm-up rounds, output to /dev/null, NO_COLOR=1",
        copies,
        dir.display(),
        thousands(skills),
        thousands(findings)
    );
    println!();
    println!("| command | time (ms) | × json | × skilo | peak RSS (MiB) |");
    println!("|---|---:|---:|---:|---:|");
    for (label, time, rss) in &rows {
        let rss = rss.map_or_else(|| "-".to_string(), |k| format!("{:.0}", k as f64 / 1024.0));
        println!(
            "| `{label}` | {:.0} | {} | {} | {rss} |",
            ms(*time),
            ratio(*time, json),
            ratio(*time, skilo)
        );
    }
    Ok(())
}

/// What `bench lint --corpus` copies of the collection, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Files {
    /// Whole skill directories: `c<i>/<the collection's own paths>`.
    All,
    /// Only the `SKILL.md` files, at the collection's own paths.
    SkillMd,
    /// Only the `SKILL.md` files, four skills to a repository, as a crawl of published
    /// skills lays them out: `repos/<owner>@<repo>/<prefix>/<skill>/SKILL.md`, where the
    /// prefix varies between repositories as it does between real ones (`skills`,
    /// `agent/skills`, `plugins/tools/skills`, `docs/skills`). Many more directories a
    /// skill, and deeper paths, than the other two shapes.
    Crawl,
}

/// Skills a repository in the crawl shape.
const CRAWL_SKILLS_PER_REPO: usize = 4;
/// Where a repository of the crawl shape keeps its skills, picked by the repository number.
const CRAWL_PREFIXES: [&str; 4] = [
    "skills",
    "agent/skills",
    "plugins/tools/skills",
    "docs/skills",
];

/// `dir` copied `copies` times under `target/bench/corpus-<name>-x<copies><suffix>` (reused
/// when it is already there, so runs compare on the same files), in the shape `files` says.
fn copied_tree(dir: &Path, copies: usize, files: Files) -> Result<PathBuf> {
    let name = dir.file_name().map_or_else(
        || "corpus".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let suffix = match files {
        Files::All => "",
        Files::SkillMd => "-skill-md",
        Files::Crawl => "-crawl",
    };
    let root = target_dir()?.join(format!("bench/corpus-{name}-x{copies}{suffix}"));
    let done = root.join(".complete");
    if done.is_file() {
        return Ok(root);
    }
    if root.exists() {
        std::fs::remove_dir_all(&root)
            .with_context(|| format!("cannot clear {}", root.display()))?;
    }
    write_copies(dir, &root, copies, files)?;
    std::fs::write(&done, "")?;
    Ok(root)
}

/// Writes `copies` copies of `dir` under `root` in the shape `files` says.
fn write_copies(dir: &Path, root: &Path, copies: usize, files: Files) -> Result<()> {
    match files {
        Files::All | Files::SkillMd => {
            for i in 1..=copies {
                copy_dir(dir, &root.join(format!("c{i}")), files == Files::SkillMd)?;
            }
        }
        Files::Crawl => {
            let skills = top_level_skills(dir)?;
            for i in 0..copies {
                for (k, skill) in skills.iter().enumerate() {
                    let repo = (i * skills.len() + k) / CRAWL_SKILLS_PER_REPO;
                    let prefix = CRAWL_PREFIXES
                        .get(repo % CRAWL_PREFIXES.len())
                        .unwrap_or(&"skills");
                    let name = skill.file_name().unwrap_or_default();
                    let to = root
                        .join(format!("repos/owner{}@repo{repo}", repo % 97))
                        .join(prefix)
                        .join(name);
                    copy_dir(skill, &to, true)?;
                    mark_copy(&to, i)?;
                }
            }
        }
    }
    Ok(())
}

/// Appends a comment naming copy `i` to every `SKILL.md` under `dir`. Identical copies of a
/// skill are one skill to `skills lint` (reported once, as an agent's copy of a skill it
/// links is): a crawl of different repositories holds different files, and each copy here
/// is linted and reported as one of them would be.
fn mark_copy(dir: &Path, i: usize) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            mark_copy(&entry.path(), i)?;
        } else if entry.file_name() == "SKILL.md" {
            let path = entry.path();
            let mut text = std::fs::read(&path)?;
            text.extend_from_slice(format!("\n<!-- crawl copy {i} -->\n").as_bytes());
            std::fs::write(&path, text)?;
        }
    }
    Ok(())
}

/// The directories under `dir` that hold a `SKILL.md` and are not inside another one, sorted.
fn top_level_skills(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        if at != dir && at.join("SKILL.md").is_file() {
            found.push(at);
            continue;
        }
        for entry in
            std::fs::read_dir(&at).with_context(|| format!("cannot read {}", at.display()))?
        {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Copies the files under `from` to `to`; with `only_skill_md`, only the files named
/// `SKILL.md`, and only the folders that hold one on the way to it.
fn copy_dir(from: &Path, to: &Path, only_skill_md: bool) -> Result<()> {
    if !only_skill_md {
        // Empty folders too: a skill's empty `scripts/` is part of its shape.
        std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    }
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_dir(&src, &dst, only_skill_md)?;
        } else if kind.is_file() && (!only_skill_md || entry.file_name() == "SKILL.md") {
            std::fs::create_dir_all(to)
                .with_context(|| format!("cannot create {}", to.display()))?;
            std::fs::copy(&src, &dst).with_context(|| format!("cannot copy {}", src.display()))?;
        }
    }
    Ok(())
}

/// How many skills `skills lint` finds in `tree`, and how many findings it reports.
fn count_skills(exe: &Path, tree: &Path) -> Result<(usize, usize)> {
    let out = Command::new(exe)
        .arg("lint")
        .arg(tree)
        .args(["--statistics", "--format", "json"])
        .output()
        .context("cannot run skills lint")?;
    let doc: Value = serde_json::from_slice(&out.stdout).context("skills lint --statistics")?;
    let skills = doc
        .get("skills")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .context("no skill count")?;
    let findings = doc
        .get("rules")
        .and_then(Value::as_array)
        .context("no rule counts")?
        .iter()
        .filter_map(|rule| rule.get("count").and_then(Value::as_u64))
        .filter_map(|n| usize::try_from(n).ok())
        .sum();
    Ok((skills, findings))
}

/// `name` on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The peak resident memory of one run, in KiB, through GNU `time -f %M`; `None` when that
/// is not installed.
fn peak_rss_kib(program: &Path, args: &[String]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let out = Command::new(time)
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines().rev().find_map(|l| l.trim().parse().ok())
}

fn results_table(rows: &[Row]) -> String {
    let mut out = String::from("| skills | skills lint (ms) | rg (ms) | ratio |\n");
    out.push_str("|---:|---:|---:|---:|\n");
    for r in rows {
        let (rg, ratio) = match r.rg {
            Some(rg) if !rg.is_zero() => (
                format!("{:.1}", ms(rg)),
                format!("{:.2}×", ms(r.lint) / ms(rg)),
            ),
            _ => ("-".to_string(), "-".to_string()),
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| {} | {:.1} | {rg} | {ratio} |",
            thousands(r.skills),
            ms(r.lint)
        );
    }
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `10000` as `10,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn has_rg() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a command `WARMUP_RUNS + runs` times with its output discarded, and returns the
/// median wall-clock time of the timed runs. Fails if a run is killed or exits with a status
/// above 1 (1 is "findings" for `skills lint`, "no match" for `rg`).
fn median_time(runs: usize, make: impl Fn() -> Command) -> Result<Duration> {
    let mut times = Vec::with_capacity(runs);
    for i in 0..WARMUP_RUNS + runs {
        let elapsed = time_once(make())?;
        if i >= WARMUP_RUNS {
            times.push(elapsed);
        }
    }
    times.sort_unstable();
    Ok(median(&times))
}

/// The median wall clock of each command, timed in rounds that run every command once
/// (after [`WARMUP_RUNS`] such rounds). A shared machine's speed drifts by tens of percent
/// within minutes; timing all of one command's runs before the next's folds that drift
/// into their ratio, while in rounds it moves every command alike.
fn median_times_interleaved(
    runs: usize,
    makes: &[Box<dyn Fn() -> Command + '_>],
) -> Result<Vec<Duration>> {
    let mut times = vec![Vec::with_capacity(runs); makes.len()];
    for round in 0..WARMUP_RUNS + runs {
        // Each round starts one command later: the first run of a round takes whatever the
        // machine did since the last (another job's burst, a cache gone cold), and a table
        // whose first command always took it measured that command up to 10% slow.
        for i in (0..makes.len()).map(|k| (round + k) % makes.len()) {
            let (Some(make), Some(times)) = (makes.get(i), times.get_mut(i)) else {
                continue;
            };
            let elapsed = time_once(make())?;
            if round >= WARMUP_RUNS {
                times.push(elapsed);
            }
        }
    }
    Ok(times
        .into_iter()
        .map(|mut t| {
            t.sort_unstable();
            median(&t)
        })
        .collect())
}

/// Runs `cmd` once, output discarded, and answers how long it took; exit codes 0 and 1
/// (findings) count as success.
fn time_once(mut cmd: Command) -> Result<Duration> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let start = Instant::now();
    let status = cmd.status().context("cannot start the command")?;
    let elapsed = start.elapsed();
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("the command failed ({status})");
    }
    Ok(elapsed)
}

fn median(sorted: &[Duration]) -> Duration {
    let mid = sorted.len() / 2;
    match (sorted.get(mid.wrapping_sub(1)), sorted.get(mid)) {
        (Some(&a), Some(&b)) if sorted.len().is_multiple_of(2) => (a + b) / 2,
        (_, Some(&m)) => m,
        _ => Duration::ZERO,
    }
}

/// Lints the tree once with JSON output: it must hold `n` skills and no findings (the
/// generator writes clean skills, so a finding is a bug in one or the other).
fn check_tree(exe: &Path, tree: &Path, n: usize) -> Result<()> {
    let out = Command::new(exe)
        .arg("lint")
        .arg(tree)
        .args(["--format", "json", "--no-config"])
        .output()
        .context("cannot run skills lint")?;
    let report: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "skills lint {} ({}) did not print JSON:\n{}",
            tree.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let summary = report.get("summary");
    let get = |k: &str| summary.and_then(|s| s.get(k)).and_then(Value::as_u64);
    if get("skills") != Some(n as u64) {
        bail!(
            "skills lint found {:?} skills in {}, expected {n}",
            get("skills"),
            tree.display()
        );
    }
    let (errors, warnings) = (get("errors").unwrap_or(0), get("warnings").unwrap_or(0));
    if errors + warnings > 0 {
        let first = report
            .get("diagnostics")
            .and_then(|d| d.get(0))
            .map(Value::to_string)
            .unwrap_or_default();
        eprintln!(
            "warning: the generated tree has {errors} error(s) and {warnings} warning(s); first: {first}"
        );
    }
    Ok(())
}

/// Bump when the generated content changes, so existing trees are regenerated.
const GENERATOR_VERSION: &str = "bench-lint-tree v1";
/// Written last: a tree without it (an interrupted run) is generated again.
const MARKER: &str = ".generated";

/// Whether `dir` was made from what `stamp` says (its `marker` file holds `stamp`), to be
/// reused; otherwise `dir` is removed, to be made again.
pub(crate) fn reuse_or_clear(dir: &Path, marker: &Path, stamp: &str) -> Result<bool> {
    if std::fs::read_to_string(marker).is_ok_and(|s| s == stamp) {
        eprintln!("reusing {}", dir.display());
        return Ok(true);
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    Ok(false)
}

/// `target/bench/lint-<n>/`, holding `skills/skill-<i>/...`; reused when already complete.
pub(crate) fn generate_tree(n: usize) -> Result<PathBuf> {
    let root = target_dir()?.join("bench").join(format!("lint-{n}"));
    let marker = root.join(MARKER);
    let stamp = format!("{GENERATOR_VERSION}\n{n} skills\n");
    if reuse_or_clear(&root, &marker, &stamp)? {
        return Ok(root);
    }
    eprintln!("generating {n} skills in {}...", root.display());
    write_tree(&root, n)?;
    std::fs::write(&marker, stamp).with_context(|| format!("cannot write {}", marker.display()))?;
    Ok(root)
}

/// Writes `n` generated skills under `root/skills/`.
fn write_tree(root: &Path, n: usize) -> Result<()> {
    let skills = root.join("skills");
    let mut rng = Lcg::new(0x5eed_2026);
    for i in 0..n {
        let skill = generate_skill(i, &mut rng);
        let dir = skills.join(&skill.name);
        for (rel, text) in &skill.files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants): deterministic, no crate.
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }
}

#[rustfmt::skip]
const VERBS: &[&str] = &[
    "extract", "convert", "validate", "summarize", "format", "merge", "split", "analyze",
    "generate", "review", "migrate", "index", "compress", "render", "translate", "audit",
];
#[rustfmt::skip]
const NOUNS: &[&str] = &[
    "invoices", "spreadsheets", "log files", "pull requests", "release notes", "PDF forms",
    "database schemas", "API responses", "test reports", "images", "configuration files",
    "meeting notes", "changelogs", "dependency manifests", "dashboards", "support tickets",
];
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "input", "file", "each", "record", "before", "after", "check", "that", "output", "is",
    "valid", "and", "then", "write", "result", "to", "a", "new", "location", "keep", "original",
    "unchanged", "when", "field", "missing", "report", "clearly", "prefer", "small", "steps",
    "over", "one", "large", "change", "user", "asks", "for", "confirm", "names", "dates", "totals",
    "match", "source", "use", "existing", "tools", "where", "possible", "avoid", "guessing",
    "values", "list", "every", "assumption", "in", "summary",
];

/// One generated skill: its directory name and its files (relative path, text).
struct Skill {
    name: String,
    files: Vec<(String, String)>,
}

fn sentence(rng: &mut Lcg) -> String {
    let len = 8 + rng.below(10);
    let words: Vec<&str> = (0..len).map(|_| rng.pick(WORDS)).collect();
    let mut out = String::new();
    if let Some(first) = words.first() {
        let mut chars = first.chars();
        if let Some(c) = chars.next() {
            out.extend(c.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    for w in words.iter().skip(1) {
        out.push(' ');
        out.push_str(w);
    }
    out.push('.');
    out
}

/// A paragraph of a few sentences, wrapped at about 90 columns.
fn paragraph(rng: &mut Lcg, out: &mut String) {
    let sentences = 3 + rng.below(3);
    let mut line = String::new();
    for _ in 0..sentences {
        for word in sentence(rng).split(' ') {
            if !line.is_empty() && line.len() + 1 + word.len() > 90 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

/// A skill with about 150 lines of Markdown; about a third link `references/` files, about a
/// third ship `scripts/run.sh`, and the rest point at an external page.
fn generate_skill(i: usize, rng: &mut Lcg) -> Skill {
    let name = format!("skill-{i}");
    let verb = rng.pick(VERBS);
    let noun = rng.pick(NOUNS);
    let other = rng.pick(NOUNS);
    let with_refs = rng.below(3) == 0;
    let with_examples = with_refs && rng.below(2) == 0;
    let with_script = rng.below(3) == 0;

    let mut md = String::new();
    let _ = write!(
        md,
        "---\nname: {name}\ndescription: {} {noun} and {other} with a checked, repeatable \
         workflow. Use when the user asks to {verb} {noun}, or mentions {other} that need \
         attention.\n---\n\n",
        capitalize(verb)
    );
    let _ = writeln!(md, "# {} {noun}\n", capitalize(verb));
    paragraph(rng, &mut md);

    md.push_str("## When to use this skill\n\n");
    for _ in 0..5 {
        let _ = writeln!(
            md,
            "- The user wants to {} {}.",
            rng.pick(VERBS),
            rng.pick(NOUNS)
        );
    }
    md.push('\n');

    md.push_str("## Workflow\n\n");
    for step in 1..=7 {
        let _ = writeln!(md, "{step}. {}", sentence(rng));
    }
    md.push('\n');
    paragraph(rng, &mut md);

    md.push_str("## Example\n\n```bash\n");
    if with_script {
        md.push_str("bash scripts/run.sh --input data/input.txt --output out/\n");
    } else {
        let _ = writeln!(md, "tool {verb} --input data/input.txt --output out/");
    }
    for k in 0..8 {
        let _ = writeln!(md, "echo \"step {k}: {}\"", rng.pick(VERBS));
    }
    md.push_str("```\n\n");

    for section in 0..4 {
        let _ = writeln!(
            md,
            "## {} {}\n",
            capitalize(rng.pick(VERBS)),
            rng.pick(NOUNS)
        );
        paragraph(rng, &mut md);
        let _ = writeln!(md, "### Notes on part {}\n", section + 1);
        for _ in 0..4 {
            let _ = writeln!(md, "- {}", sentence(rng));
        }
        md.push('\n');
        paragraph(rng, &mut md);
    }

    md.push_str("## Troubleshooting\n\n| Problem | What to do |\n|---|---|\n");
    for _ in 0..6 {
        let _ = writeln!(
            md,
            "| {}: the {} step fails | {} |",
            capitalize(rng.pick(NOUNS)),
            rng.pick(VERBS),
            sentence(rng)
        );
    }
    md.push('\n');

    md.push_str("## Checklist\n\n");
    for _ in 0..6 {
        let _ = writeln!(md, "- [ ] {}", sentence(rng));
    }
    md.push('\n');

    md.push_str("## More information\n\n");
    if with_refs {
        md.push_str(
            "- Read [the reference](references/REFERENCE.md) for every option and edge case.\n",
        );
        if with_examples {
            md.push_str("- Worked cases are in [examples](references/EXAMPLES.md).\n");
        }
    }
    if with_script {
        md.push_str("- Run `scripts/run.sh` to apply the workflow to a whole folder at once.\n");
    }
    md.push_str("- The upstream [documentation](https://example.com/docs) describes the format.\n");

    let mut files = vec![("SKILL.md".to_string(), md)];
    if with_refs {
        let mut reference = format!("# {} reference\n\n", capitalize(verb));
        for _ in 0..6 {
            paragraph(rng, &mut reference);
        }
        files.push(("references/REFERENCE.md".to_string(), reference));
    }
    if with_examples {
        let mut examples = String::from("# Examples\n\n");
        for k in 1..=3 {
            let _ = writeln!(examples, "## Example {k}\n");
            paragraph(rng, &mut examples);
        }
        files.push(("references/EXAMPLES.md".to_string(), examples));
    }
    if with_script {
        files.push((
            "scripts/run.sh".to_string(),
            format!("#!/bin/sh\nset -eu\necho \"{name}: {verb} $*\"\n"),
        ));
    }
    Skill { name, files }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_md_only_copy_keeps_the_skill_md_files_and_their_folders() {
        let from = tempfile::tempdir().unwrap();
        let skill = from.path().join("skills/pdf");
        std::fs::create_dir_all(skill.join("references")).unwrap();
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: pdf\n---\n").unwrap();
        std::fs::write(skill.join("references/REF.md"), "ref").unwrap();
        std::fs::create_dir_all(from.path().join("docs")).unwrap();
        std::fs::write(from.path().join("docs/README.md"), "docs").unwrap();

        let to = tempfile::tempdir().unwrap();
        copy_dir(from.path(), &to.path().join("only"), true).unwrap();
        let only = to.path().join("only");
        assert!(only.join("skills/pdf/SKILL.md").is_file());
        assert!(!only.join("skills/pdf/references").exists());
        assert!(!only.join("skills/pdf/scripts").exists());
        assert!(!only.join("docs").exists());

        copy_dir(from.path(), &to.path().join("all"), false).unwrap();
        let all = to.path().join("all");
        assert!(all.join("skills/pdf/references/REF.md").is_file());
        assert!(all.join("skills/pdf/scripts").is_dir());
        assert!(all.join("docs/README.md").is_file());
    }

    #[test]
    fn a_crawl_copy_spreads_the_skills_over_repositories_of_four() {
        let from = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c", "d", "e"] {
            let skill = from.path().join("skills").join(name);
            std::fs::create_dir_all(skill.join("references")).unwrap();
            std::fs::write(skill.join("SKILL.md"), format!("---\nname: {name}\n---\n")).unwrap();
            std::fs::write(skill.join("references/REF.md"), "ref").unwrap();
        }
        // A skill nested in another moves with it.
        let inner = from.path().join("skills/a/inner");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(inner.join("SKILL.md"), "---\nname: inner\n---\n").unwrap();

        let to = tempfile::tempdir().unwrap();
        write_copies(from.path(), to.path(), 2, Files::Crawl).unwrap();
        let repos = to.path().join("repos");
        // Ten skills, four a repository: three repositories, each with its own prefix.
        assert!(repos.join("owner0@repo0/skills/a/SKILL.md").is_file());
        assert!(repos.join("owner0@repo0/skills/a/inner/SKILL.md").is_file());
        assert!(repos.join("owner0@repo0/skills/d/SKILL.md").is_file());
        assert!(repos.join("owner1@repo1/agent/skills/e/SKILL.md").is_file());
        assert!(repos.join("owner1@repo1/agent/skills/c/SKILL.md").is_file());
        assert!(
            repos
                .join("owner2@repo2/plugins/tools/skills/e/SKILL.md")
                .is_file()
        );
        assert!(!repos.join("owner0@repo0/skills/a/references").exists());
        // Each copy differs from the others, as files of different repositories do.
        let first = std::fs::read_to_string(repos.join("owner0@repo0/skills/a/SKILL.md")).unwrap();
        let second =
            std::fs::read_to_string(repos.join("owner1@repo1/agent/skills/c/SKILL.md")).unwrap();
        assert!(first.ends_with("<!-- crawl copy 0 -->\n"), "{first}");
        assert!(second.ends_with("<!-- crawl copy 1 -->\n"), "{second}");
        let count = walk_count(&repos);
        assert_eq!(count, 12, "10 skills and 2 nested ones");
    }

    fn walk_count(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                if e.file_type().unwrap().is_dir() {
                    walk_count(&e.path())
                } else {
                    usize::from(e.file_name() == "SKILL.md")
                }
            })
            .sum()
    }

    #[test]
    fn interleaved_timing_runs_every_command_each_round_and_refuses_failures() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let append = |word: &'static str| {
            let log = log.clone();
            Box::new(move || {
                let mut cmd = Command::new("sh");
                cmd.args([
                    "-c",
                    &format!("echo {word} >> \"$0\""),
                    log.to_str().unwrap(),
                ]);
                cmd
            }) as Box<dyn Fn() -> Command>
        };
        let times = median_times_interleaved(2, &[append("a"), append("b")]).unwrap();
        assert_eq!(times.len(), 2);
        // Every command once a round, each round starting one command later.
        let rounds = WARMUP_RUNS + 2;
        let expected: String = (0..rounds)
            .map(|round| if round % 2 == 0 { "a\nb\n" } else { "b\na\n" })
            .collect();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), expected);
        let fails: Box<dyn Fn() -> Command> = Box::new(|| {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", "exit 2"]);
            cmd
        });
        assert!(median_times_interleaved(1, &[fails]).is_err());
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options() {
        assert_eq!(
            parse_options("lint", &[]).unwrap(),
            Options {
                sizes: vec![1000, 10000],
                runs: 10
            }
        );
        assert_eq!(
            parse_options("discovery", &strings(&["--sizes", "10,20_000", "--runs=3"])).unwrap(),
            Options {
                sizes: vec![10, 20000],
                runs: 3
            }
        );
        assert!(parse_options("lint", &strings(&["--runs", "0"])).is_err());
        assert!(parse_options("lint", &strings(&["--sizes"])).is_err());
        let err = parse_options("discovery", &strings(&["--size", "1"])).unwrap_err();
        assert!(
            err.to_string().contains("cargo xtask bench discovery"),
            "{err}"
        );
    }

    #[test]
    fn unknown_benchmarks_list_the_known_ones() {
        let err = run(&strings(&["nope"])).unwrap_err().to_string();
        assert!(err.contains("unknown benchmark `nope`"), "{err}");
        assert!(err.contains("  lint "), "{err}");
        assert!(err.contains("  discovery "), "{err}");
    }

    #[test]
    fn generated_skills_are_deterministic_and_about_150_lines() {
        let mut a = Lcg::new(7);
        let mut b = Lcg::new(7);
        let mut with_refs = 0;
        let mut with_script = 0;
        for i in 0..300 {
            let s = generate_skill(i, &mut a);
            let t = generate_skill(i, &mut b);
            assert_eq!(s.files, t.files);
            let (path, md) = &s.files[0];
            assert_eq!(path, "SKILL.md");
            assert!(md.starts_with(&format!("---\nname: skill-{i}\ndescription: ")));
            assert!(md.contains("Use when"));
            let lines = md.lines().count();
            assert!((120..=190).contains(&lines), "{lines} lines");
            if s.files.iter().any(|(p, _)| p == "references/REFERENCE.md") {
                with_refs += 1;
                assert!(md.contains("(references/REFERENCE.md)"));
            }
            if s.files.iter().any(|(p, _)| p == "scripts/run.sh") {
                with_script += 1;
                assert!(md.contains("`scripts/run.sh`"));
            } else {
                assert!(!md.contains("scripts/"));
            }
        }
        assert!((70..=130).contains(&with_refs), "{with_refs}");
        assert!((70..=130).contains(&with_script), "{with_script}");
    }

    #[test]
    fn generated_tree_is_clean() {
        let root = std::env::temp_dir().join(format!("xtask-bench-tree-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        write_tree(&root, 90).unwrap();
        let report = skills_lint::Linter::new(skills_lint::Config::default())
            .lint_paths(std::slice::from_ref(&root))
            .unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(report.skills.len(), 90);
        let findings: Vec<_> = report
            .diagnostics()
            .map(|d| format!("{}: {} {}", d.path.display(), d.rule, d.message))
            .collect();
        assert!(findings.is_empty(), "{findings:#?}");
    }

    #[test]
    fn formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        let d = Duration::from_millis;
        assert_eq!(median(&[d(1), d(2), d(9)]), d(2));
        assert_eq!(median(&[d(1), d(3)]), d(2));
        assert_eq!(median(&[]), Duration::ZERO);
    }
}

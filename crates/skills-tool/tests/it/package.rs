//! `skills package` and `skills install` through the binary.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use crate::{skills, snapshot};

/// A valid skill `root/id` with a script (executable on Unix) and a reference.
pub(crate) fn make_skill(root: &Path, id: &str) -> PathBuf {
    let dir = root.join(id);
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {id}\ndescription: Extract text from PDF files. Use when the user asks about PDFs.\n---\n\n# Demo\n\nRun `scripts/run.sh`; details in [the reference](references/REF.md).\n"
        ),
    )
    .unwrap();
    fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    fs::write(dir.join("references/REF.md"), "# Reference\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            dir.join("scripts/run.sh"),
            fs::Permissions::from_mode(0o750),
        )
        .unwrap();
    }
    dir
}

/// Names and Unix modes of the entries of a ZIP file, in archive order.
pub(crate) fn entries(bytes: &[u8]) -> Vec<(String, u32)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let f = zip.by_index(i).unwrap();
            (
                f.name().unwrap().into_owned(),
                f.unix_mode().unwrap() & 0o777,
            )
        })
        .collect()
}

fn set_mtime(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn package_is_byte_reproducible() {
    let t = tempfile::tempdir().unwrap();
    make_skill(t.path(), "demo");
    let run = skills(t.path(), &["package", "demo", "-o", "out"]);
    run.assert_code(0).assert_quiet();
    assert_eq!(
        run.stdout,
        "packaged demo -> out/demo.skill (3 files, 204 bytes)\n"
    );
    let first = fs::read(t.path().join("out/demo.skill")).unwrap();
    for f in ["SKILL.md", "scripts/run.sh", "references/REF.md"] {
        set_mtime(&t.path().join("demo").join(f), 1_234_567_890);
    }
    skills(t.path(), &["package", "demo", "-o", "out"]).assert_code(0);
    let second = fs::read(t.path().join("out/demo.skill")).unwrap();
    assert!(first == second, "archives differ");
    // --format zip: the same bytes under another name.
    skills(
        t.path(),
        &["package", "demo", "-o", "out", "--format", "zip"],
    )
    .assert_code(0);
    assert!(fs::read(t.path().join("out/demo.zip")).unwrap() == first);
    let exec = if cfg!(unix) { 0o755 } else { 0o644 };
    assert_eq!(
        entries(&first),
        [
            ("demo/SKILL.md".to_string(), 0o644),
            ("demo/references/REF.md".to_string(), 0o644),
            ("demo/scripts/run.sh".to_string(), exec),
        ]
    );
    // Nothing but the archives in the output directory (no temporary files).
    let mut names: Vec<String> = fs::read_dir(t.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["demo.skill", "demo.zip"]);
}

#[test]
fn package_excludes_and_lists() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    for f in [
        ".git/HEAD",
        "__pycache__/m.cpython-312.pyc",
        "node_modules/x/index.js",
        ".DS_Store",
        "scripts/old.pyc",
        "scripts/build/tmp.txt",
        "drafts/idea.md",
    ] {
        let p = dir.join(f);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "x").unwrap();
    }
    fs::write(dir.join(".gitignore"), "build/\n").unwrap();
    fs::write(dir.join(".skillignore"), "drafts/\n.*ignore\n").unwrap();
    let run = skills(t.path(), &["package", "demo", "--list"]);
    run.assert_code(0).assert_quiet();
    snapshot(
        "package__list",
        "skills package demo --list",
        None,
        &run.stdout,
    );
    assert!(
        !t.path().join("demo.skill").exists(),
        "--list wrote an archive"
    );
}

#[cfg(unix)]
#[test]
fn package_refuses_symlink_escape() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    fs::write(t.path().join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink("../../secret.txt", dir.join("references/leak.md")).unwrap();
    let run = skills(t.path(), &["package", "demo", "--no-lint"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("demo/references/leak.md: symlink points outside the skill"),
        "{}",
        run.stderr
    );
    assert!(!t.path().join("demo.skill").exists());
    let names: Vec<_> = fs::read_dir(t.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "a temporary file was left behind");

    // A link inside the skill is stored as the file it points to.
    fs::remove_file(dir.join("references/leak.md")).unwrap();
    std::os::unix::fs::symlink("REF.md", dir.join("references/alias.md")).unwrap();
    skills(t.path(), &["package", "demo"]).assert_code(0);
    let names: Vec<String> = entries(&fs::read(t.path().join("demo.skill")).unwrap())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(names.contains(&"demo/references/alias.md".to_string()));
}

#[test]
fn package_blocked_by_lint_errors() {
    let t = tempfile::tempdir().unwrap();
    let dir = make_skill(t.path(), "demo");
    fs::write(
        dir.join("SKILL.md"),
        "---\nname: Not_Valid\ndescription: Does things. Use when asked.\n---\nBody.\n",
    )
    .unwrap();
    let run = skills(t.path(), &["package", "demo"]);
    run.assert_code(1);
    assert!(run.stderr.contains("name-"), "{}", run.stderr);
    assert!(run.stderr.contains("not packaged"), "{}", run.stderr);
    assert!(!t.path().join("demo.skill").exists());

    skills(t.path(), &["package", "demo", "--no-lint"]).assert_code(0);
    assert!(t.path().join("demo.skill").is_file());
}

#[test]
fn package_refuses_a_directory_without_skill_md() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir(t.path().join("empty")).unwrap();
    let run = skills(t.path(), &["package", "empty"]);
    run.assert_code(2);
    assert!(run.stderr.contains("no SKILL.md"), "{}", run.stderr);
}

// ---- skills install ----

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use zip::write::SimpleFileOptions;

/// A ZIP file with these entries (name, content), stored as written.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(*name, SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

pub(crate) const SKILL_MD: &str = "---\nname: demo\ndescription: Extract text from PDF files. Use when the user asks about PDFs.\n---\n\n# Demo\n\nSay hi.\n";

/// What the test server answers for a path: status, extra headers, body.
pub(crate) type Routes = HashMap<String, (u16, Vec<(String, String)>, Vec<u8>)>;

/// Reads one request's head from `stream` and returns the path it asks for.
fn request_path(stream: &std::net::TcpStream) -> String {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    reader.read_line(&mut request).unwrap_or_default();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
    }
    request.split(' ').nth(1).unwrap_or("/").to_string()
}

/// Starts an HTTP/1.1 server on 127.0.0.1 in a thread; returns its `HOST:PORT`.
pub(crate) fn serve(routes: Routes) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let path = request_path(&stream);
            let (status, headers, body) =
                routes
                    .get(&path)
                    .cloned()
                    .unwrap_or((404, Vec::new(), b"not found".to_vec()));
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    addr
}

pub(crate) fn route(
    routes: &mut Routes,
    path: &str,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    routes.insert(
        path.to_string(),
        (
            status,
            headers
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
            body.to_vec(),
        ),
    );
}

/// The names in `dir`, sorted (to see that no staging directory is left); none when a
/// failed install removed the directory it had created.
fn names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn install_from_directory_into_the_project_root() {
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("project");
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::create_dir_all(project.join("sub")).unwrap();
    make_skill(t.path(), "demo");
    fs::create_dir_all(t.path().join("demo/__pycache__")).unwrap();
    fs::write(t.path().join("demo/__pycache__/x.pyc"), "x").unwrap();
    let run = skills(&project.join("sub"), &["install", "../../demo"]);
    run.assert_code(0).assert_quiet();
    let installed = project.join(".agents/skills/demo");
    assert!(installed.join("SKILL.md").is_file(), "{}", run.stdout);
    assert!(installed.join("scripts/run.sh").is_file());
    assert!(!installed.join("__pycache__").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(installed.join("scripts/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    assert_eq!(names(&project.join(".agents/skills")), ["demo"]);
}

#[test]
fn install_from_archive_and_overwrite_only_with_force() {
    let t = tempfile::tempdir().unwrap();
    make_skill(t.path(), "demo");
    skills(t.path(), &["package", "demo", "-o", "dist"]).assert_code(0);
    let run = skills(t.path(), &["install", "dist/demo.skill", "--to", "skills"]);
    run.assert_code(0).assert_quiet();
    assert_eq!(run.stdout, "installed demo -> skills/demo\n");
    assert!(t.path().join("skills/demo/references/REF.md").is_file());

    // The same skill again is done already: exit 0 (it was 2, "already installed").
    let again = skills(t.path(), &["install", "dist/demo.skill", "--to", "skills"]);
    again.assert_code(0);
    assert_eq!(
        again.stdout,
        "demo is installed already, unchanged -> skills/demo\n"
    );

    fs::write(t.path().join("skills/demo/local.md"), "mine").unwrap();
    let run = skills(t.path(), &["install", "dist/demo.skill", "--to", "skills"]);
    run.assert_code(2);
    assert!(run.stderr.contains("already installed"), "{}", run.stderr);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert!(t.path().join("skills/demo/local.md").is_file());

    skills(
        t.path(),
        &["install", "dist/demo.skill", "--to", "skills", "--force"],
    )
    .assert_code(0);
    assert!(!t.path().join("skills/demo/local.md").exists());
    assert!(t.path().join("skills/demo/SKILL.md").is_file());
    assert_eq!(names(&t.path().join("skills")), ["demo"]);
}

#[test]
fn install_refuses_unsafe_archives() {
    let t = tempfile::tempdir().unwrap();
    let md = SKILL_MD.as_bytes();
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "slip",
            zip_of(&[("demo/SKILL.md", md), ("../evil", b"x")]),
            "refused",
        ),
        (
            "deep",
            zip_of(&[("demo/SKILL.md", md), ("demo/../../evil", b"x")]),
            "refused",
        ),
        (
            "abs",
            zip_of(&[("demo/SKILL.md", md), ("/tmp/evil", b"x")]),
            "refused",
        ),
        (
            "drive",
            zip_of(&[("demo/SKILL.md", md), ("C:/evil", b"x")]),
            "refused",
        ),
        (
            "backslash",
            zip_of(&[("demo/SKILL.md", md), ("demo\\..\\evil", b"x")]),
            "refused",
        ),
        (
            "two-roots",
            zip_of(&[("demo/SKILL.md", md), ("other/x", b"x")]),
            "layout",
        ),
    ];
    // A symlink entry.
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.start_file("demo/SKILL.md", SimpleFileOptions::default())
        .unwrap();
    w.write_all(md).unwrap();
    w.add_symlink("demo/passwd", "/etc/passwd", SimpleFileOptions::default())
        .unwrap();
    cases.push(("symlink", w.finish().unwrap().into_inner(), "symlink"));
    // A zip bomb: 65 MiB of zeros, deflated to a few dozen KiB.
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.start_file("demo/SKILL.md", SimpleFileOptions::default())
        .unwrap();
    w.write_all(md).unwrap();
    w.start_file(
        "demo/zeros",
        SimpleFileOptions::default().compression_level(Some(9)),
    )
    .unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..65 {
        w.write_all(&chunk).unwrap();
    }
    cases.push(("bomb", w.finish().unwrap().into_inner(), "zip bomb"));
    // Too many entries.
    let many: Vec<String> = (0..2_001).map(|i| format!("demo/f{i}")).collect();
    let entries: Vec<(&str, &[u8])> = many.iter().map(|n| (n.as_str(), &b""[..])).collect();
    cases.push(("many", zip_of(&entries), "entries"));
    // 400 nested directories in a 1 KB archive: once minutes of CPU, and a stack overflow
    // in the registry.
    let deep = format!("demo/{}x.txt", "d/".repeat(400));
    cases.push((
        "nested",
        zip_of(&[("demo/SKILL.md", md), (&deep, b"x")]),
        "32 directories deep",
    ));
    // A top folder that is not a skill name would become a folder beside the skills, or
    // (`--to .` and `--force`) replace the project's own `.git`.
    for top in [".git", "..demo", "~", " demo"] {
        let entry: &'static str = format!("{top}/SKILL.md").leak();
        cases.push((top.trim(), zip_of(&[(entry, md)]), "is not a skill name"));
    }

    for (name, bytes, expected) in cases {
        let archive = t.path().join(format!("{name}.skill"));
        fs::write(&archive, bytes).unwrap();
        let run = skills(
            t.path(),
            &[
                "install",
                archive.to_str().unwrap(),
                "--to",
                "skills",
                "--force",
                "--allow-lint-errors",
            ],
        );
        run.assert_code(2);
        assert!(run.stderr.contains(expected), "{name}: {}", run.stderr);
        assert!(!t.path().join("evil").exists(), "{name}");
        assert_eq!(
            names(&t.path().join("skills")),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

/// What packaging leaves out (`.git`, caches) is not unpacked: a planted `.git/config` ran
/// its `core.fsmonitor` command on the next `git status` in the skill.
#[test]
fn install_leaves_out_a_git_directory_of_the_archive() {
    let t = tempfile::tempdir().unwrap();
    let bytes = zip_of(&[
        ("demo/SKILL.md", SKILL_MD.as_bytes()),
        ("demo/.git/HEAD", b"ref: refs/heads/main\n"),
        (
            "demo/.git/config",
            b"[core]\n\tfsmonitor = \"touch pwned; false\"\n",
        ),
        ("demo/notes.md", b"notes\n"),
    ]);
    fs::write(t.path().join("demo.skill"), bytes).unwrap();
    skills(t.path(), &["install", "demo.skill", "--to", "skills"]).assert_code(0);
    let skill = t.path().join("skills/demo");
    assert!(skill.join("notes.md").is_file());
    assert!(!skill.join(".git").exists());
}

/// A FIFO named like an archive: opening it waited for a writer, forever.
#[cfg(unix)]
#[test]
fn install_from_a_fifo_is_refused_at_once() {
    let t = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(t.path().join("fifo.skill"))
        .status()
        .unwrap();
    assert!(status.success());
    let run = skills(t.path(), &["install", "fifo.skill", "--to", "skills"]);
    run.assert_code(2);
    assert!(run.stderr.contains("a named pipe (FIFO)"), "{}", run.stderr);
}

#[test]
fn install_refuses_a_skill_with_lint_errors() {
    let t = tempfile::tempdir().unwrap();
    let bad = "---\nname: Demo_Skill\ndescription: Does things. Use when asked.\n---\nBody.\n";
    fs::write(
        t.path().join("demo.zip"),
        zip_of(&[("demo/SKILL.md", bad.as_bytes())]),
    )
    .unwrap();
    let run = skills(t.path(), &["install", "demo.zip", "--to", "skills"]);
    run.assert_code(1);
    assert!(run.stderr.contains("not installed"), "{}", run.stderr);
    // Findings name the skill where it would go, not the staging directory.
    assert!(
        run.stderr.contains("skills/demo/SKILL.md") && !run.stderr.contains(".skills-install-"),
        "{}",
        run.stderr
    );
    assert_eq!(names(&t.path().join("skills")), Vec::<String>::new());
}

#[test]
fn install_from_a_flat_archive_takes_the_archive_name() {
    let t = tempfile::tempdir().unwrap();
    fs::write(
        t.path().join("demo.zip"),
        zip_of(&[("SKILL.md", SKILL_MD.as_bytes())]),
    )
    .unwrap();
    skills(t.path(), &["install", "demo.zip", "--to", "skills"]).assert_code(0);
    assert!(t.path().join("skills/demo/SKILL.md").is_file());
}

#[test]
fn install_over_http() {
    let t = tempfile::tempdir().unwrap();
    make_skill(t.path(), "demo");
    skills(t.path(), &["package", "demo", "-o", "dist"]).assert_code(0);
    let archive = fs::read(t.path().join("dist/demo.skill")).unwrap();
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/skills/demo/SKILL.md",
        200,
        &[],
        SKILL_MD.as_bytes(),
    );
    route(&mut routes, "/dist/demo.skill", 200, &[], &archive);
    route(
        &mut routes,
        "/moved",
        302,
        &[("Location", "/dist/demo.skill")],
        b"",
    );
    route(
        &mut routes,
        "/away",
        302,
        &[("Location", "https://evil.example/demo.skill")],
        b"",
    );
    let host = serve(routes);
    let url = |path: &str| format!("http://{host}{path}");

    // Not allowed: plain http to a host nobody named.
    let run = skills(
        t.path(),
        &["install", &url("/dist/demo.skill"), "--to", "a"],
    );
    run.assert_code(2);
    assert!(run.stderr.contains("not a trusted host"), "{}", run.stderr);

    let ok = |path: &str, to: &str| {
        let run = skills(
            t.path(),
            &["install", &url(path), "--to", to, "--allow-host", &host],
        );
        run.assert_code(0);
        assert!(t.path().join(to).join("demo/SKILL.md").is_file(), "{path}");
    };
    ok("/skills/demo/SKILL.md", "b");
    ok("/dist/demo.skill", "c");
    assert!(t.path().join("c/demo/scripts/run.sh").is_file());
    // A redirect to the same allowed host is followed.
    ok("/moved", "d");

    // A redirect to a host that is not trusted is refused before connecting.
    let run = skills(
        t.path(),
        &["install", &url("/away"), "--to", "e", "--allow-host", &host],
    );
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("https://evil.example/demo.skill: not a trusted host"),
        "{}",
        run.stderr
    );
    assert_eq!(names(&t.path().join("e")), Vec::<String>::new());

    // Errors from the server are reported.
    let run = skills(
        t.path(),
        &[
            "install",
            &url("/missing"),
            "--to",
            "f",
            "--allow-host",
            &host,
        ],
    );
    run.assert_code(2);
    assert!(run.stderr.contains("HTTP 404"), "{}", run.stderr);
}

/// Answers every request with headers promising `length` bytes, sends `sent` bytes of
/// them, then holds the connection open for `stall`.
fn serve_partial(length: usize, sent: usize, stall: std::time::Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            request_path(&stream);
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&vec![b'x'; sent]);
            std::thread::sleep(stall);
        }
    });
    addr
}

#[test]
fn a_slow_or_oversized_download_is_named_for_what_it_is() {
    let t = tempfile::tempdir().unwrap();
    let install = |host: &str, timeout: &str| {
        let output = assert_cmd::cargo::cargo_bin_cmd!("skills")
            .current_dir(t.path())
            .args([
                "install",
                &format!("http://{host}/demo.skill"),
                "--to",
                "out",
            ])
            .args(["--allow-host", host])
            .env("NO_COLOR", "1")
            .env("SKILLS_HTTP_TIMEOUT", timeout)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8(output.stderr)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Stalls after 10 bytes: a timeout, with the timeout's advice and not the size limit's.
    let slow = serve_partial(1000, 10, std::time::Duration::from_secs(10));
    let stderr = install(&slow, "1");
    assert!(stderr.contains("took longer than 1 s"), "{stderr}");
    assert!(stderr.contains("SKILLS_HTTP_TIMEOUT"), "{stderr}");
    assert!(!stderr.contains("MiB"), "{stderr}");
    // Over 32 MiB: the limit's advice.
    let big = serve_partial(40 << 20, 40 << 20, std::time::Duration::ZERO);
    let stderr = install(&big, "30");
    assert!(stderr.contains("limited to 32 MiB"), "{stderr}");
    assert!(!t.path().join("out").exists());
}

/// A file that is not an archive is named for what it is (it was "Could not find EOCD",
/// with help about paths); a skill's SKILL.md stands for its directory.
#[test]
fn install_says_what_is_not_an_archive_and_takes_a_skill_md() {
    let t = tempfile::tempdir().unwrap();
    fs::write(t.path().join("notes.txt"), "just text\n").unwrap();
    let run = skills(t.path(), &["install", "notes.txt", "--to", "skills"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("notes.txt: not a .skill or .zip archive")
            && !run.stderr.contains("EOCD"),
        "{}",
        run.stderr
    );
    make_skill(t.path(), "demo");
    let run = skills(t.path(), &["install", "demo/SKILL.md", "--to", "skills"]);
    run.assert_code(0);
    assert!(t.path().join("skills/demo/scripts/run.sh").is_file());
}

/// A `SKILL.md` URL of no repository (another host) brings that file alone: the install says
/// so, and which files it names were not fetched (it said nothing, and a real skill had 18).
/// A repository's `SKILL.md` URL brings the whole skill: `install_url.rs`.
#[test]
fn a_skill_md_alone_names_the_files_it_could_not_bring() {
    let t = tempfile::tempdir().unwrap();
    // Prose and folders name no file: "see assets/code," was listed as not installed.
    let body = "---\nname: demo\ndescription: Fill forms. Use when a form is sent.\n---\n\nRun [the script](scripts/fill.py), read `references/forms.md`.\nSee assets/code, and write to `assets/output/`. Outputs go to assets/output/.\n";
    let mut routes = Routes::new();
    route(
        &mut routes,
        "/skills/demo/SKILL.md",
        200,
        &[],
        body.as_bytes(),
    );
    let host = serve(routes);
    let run = skills(
        t.path(),
        &[
            "install",
            &format!("http://{host}/skills/demo/SKILL.md"),
            "--to",
            "skills",
            "--allow-host",
            &host,
        ],
    );
    run.assert_code(0);
    assert!(
        crate::unwrapped(&run.stderr)
            .contains("the URL is not the SKILL.md of a skill in a GitHub, GitLab or Bitbucket repository; the files it names are not installed: references/forms.md, scripts/fill.py"),
        "{}",
        run.stderr
    );
}

/// A `--global` install that a project skill of the same name shadows says so (it said
/// nothing, and agents loaded the project's).
#[test]
fn an_install_shadowed_by_a_higher_priority_root_says_so() {
    let t = tempfile::tempdir().unwrap();
    let (project, home) = (t.path().join("project"), t.path().join("home"));
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::create_dir_all(&home).unwrap();
    make_skill(t.path(), "demo");
    let mine = project.join(".agents/skills/demo");
    fs::create_dir_all(&mine).unwrap();
    fs::write(
        mine.join("SKILL.md"),
        "---\nname: demo\ndescription: The project's own. Use when asked.\n---\nBody.\n",
    )
    .unwrap();
    let run = crate::skills_with(
        &project,
        &["install", "--global", "../demo"],
        &[("HOME", &home), ("COLUMNS", Path::new("400"))],
    );
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("demo is shadowed: .agents/skills/demo/SKILL.md comes first"),
        "{}",
        run.stderr
    );
    // One warning, one line: no blank line after it.
    assert!(!run.stderr.contains("\n\n"), "{:?}", run.stderr);
    // Installed where nothing comes first: no word.
    let quiet = crate::skills_with(
        &project,
        &["install", "../demo", "--to", "elsewhere"],
        &[("HOME", &home)],
    );
    quiet.assert_code(0);
    assert!(!quiet.stderr.contains("shadowed"), "{}", quiet.stderr);
}

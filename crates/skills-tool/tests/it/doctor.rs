//! `skills doctor` on fake machines: a HOME and a project holding each agent's MCP
//! configuration as that agent writes it, a PATH of stub executables, and seed 004's example
//! skills as fixtures (`testdata/doctor/skills`), resolved with and without each tool.

use std::path::{Path, PathBuf};

use crate::{Run, skills_with, testdata};

struct Machine {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    bin: PathBuf,
}

impl Machine {
    /// A project with seed 004's skills in `.claude/skills`, an empty HOME, an empty PATH.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (project, home, bin) = (root.join("project"), root.join("home"), root.join("bin"));
        for d in [
            &project.join(".git"),
            &project.join(".claude/skills"),
            &home,
            &bin,
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for entry in std::fs::read_dir(testdata().join("doctor/skills")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(
                entry.path(),
                project.join(".claude/skills").join(entry.file_name()),
            )
            .unwrap();
        }
        Self {
            _dir: dir,
            project,
            home,
            bin,
        }
    }

    /// Puts a stub executable `name` on PATH.
    fn install(&self, name: &str) {
        self.write_executable(name, "#!/bin/sh\nexit 0\n");
    }

    /// Puts a stub executable `name` on PATH that prints `line` (as `--version` would).
    fn install_printing(&self, name: &str, line: &str) {
        self.write_executable(name, &format!("#!/bin/sh\necho '{line}'\n"));
    }

    fn write_executable(&self, name: &str, script: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.bin.join(name);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn doctor(&self, args: &[&str]) -> Run {
        let mut all = vec!["doctor"];
        all.extend_from_slice(args);
        skills_with(
            &self.project,
            &all,
            &[
                ("HOME", &self.home),
                ("PATH", &self.bin),
                ("XDG_STATE_HOME", &self.home.join(".local/state")),
            ],
        )
    }
}

#[cfg(unix)]
#[test]
fn every_agents_mcp_configuration_and_the_path_resolve_seed_004s_skills() {
    let m = Machine::new();
    // Claude Code: a global server and one for this project only, in ~/.claude.json.
    m.write(
        &m.home.join(".claude.json"),
        &format!(
            r#"{{"numStartups": 3, "mcpServers": {{"docker": {{"type": "stdio", "command": "npx", "args": ["-y", "mcp-docker"]}}}},
               "projects": {{"{}": {{"mcpServers": {{"github": {{"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}}}},
                             "/elsewhere": {{"mcpServers": {{"gitea": {{"command": "gitea-mcp"}}}}}}}}}}"#,
            m.project.display()
        ),
    );
    // Cursor, VS Code (its key is `servers`), Codex (TOML), Gemini CLI.
    m.write(
        &m.project.join(".cursor/mcp.json"),
        r#"{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}"#,
    );
    m.write(&m.project.join(".vscode/mcp.json"), r#"{"servers": {"playwright": {"type": "stdio", "command": "npx", "args": ["@playwright/mcp"]}}}"#);
    m.write(
        &m.home.join(".codex/config.toml"),
        "[mcp_servers.kubernetes]\ncommand = \"kubectl-mcp\"\n",
    );
    m.write(
        &m.home.join(".gemini/settings.json"),
        r#"{"mcpServers": {"redis": {"httpUrl": "http://127.0.0.1:9/mcp"}}}"#,
    );
    // The stdio servers' commands, but not Codex's `kubectl-mcp`.
    for tool in ["gh", "docker", "curl", "git", "npx", "uvx"] {
        m.install(tool);
    }

    let run = m.doctor(&[]);
    run.assert_code(1);
    assert_eq!(
        run.stdout,
        "MCP servers: fetch (cursor), playwright (vscode), docker (claude-code), github (claude-code), redis (gemini-cli), kubernetes (codex, command not found)\n\
         CLIs: curl, docker, gh, git\n\
         [skill:container-health] Using: mcp__docker__list_containers (MCP)\n\
         [skill:container-ops] Using: mcp__docker__restart_container (MCP)\n\
         [skill:database-query] ERROR: nothing available for database: configure an MCP server named postgres, postgresql, mysql or sqlite, or install psql, mysql or sqlite3\n\
         [skill:database-query] ERROR: nothing available for json: install jq\n\
         [skill:git-pr] Using: git (CLI)\n\
         [skill:git-pr] WARNING: no MCP server gitea, no tea for git-gitea, falling back to curl (HTTP)\n\
         [skill:git-pr] Using: mcp__github__create_pull_request (MCP)\n\
         [skill:http-request] Using: mcp__fetch__* (MCP)\n"
    );
    assert_eq!(run.stderr, "");

    // JSON: the inventory and each resolution, with the evidence.
    let json = m.doctor(&["git-pr", "--format", "json"]);
    json.assert_code(0);
    let doc = crate::schemas::check("doctor", &json);
    let every = m.doctor(&["--format", "json"]);
    every.assert_code(1);
    crate::schemas::check("doctor", &every);
    assert_eq!(doc["version"], 1);
    let servers: Vec<&str> = doc["inventory"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        servers,
        [
            "fetch",
            "playwright",
            "docker",
            "github",
            "redis",
            "kubernetes"
        ]
    );
    let domains = doc["skills"][0]["domains"].as_array().unwrap();
    let gitea = domains.iter().find(|d| d["domain"] == "git-gitea").unwrap();
    assert_eq!(gitea["tool"], "curl");
    assert_eq!(gitea["kind"], "http");
    assert_eq!(gitea["fallback"], true);
    assert_eq!(
        gitea["evidence"][0],
        serde_json::json!({"from": "allowed-tools", "tool": "mcp__gitea__create_pull_request"})
    );
}

#[cfg(unix)]
#[test]
fn a_bare_machine_says_what_to_install_and_the_cli_path_when_there_is_no_mcp() {
    let m = Machine::new();
    let bare = m.doctor(&["container-ops"]);
    bare.assert_code(1);
    assert_eq!(
        bare.stdout,
        "MCP servers: none\nCLIs: none\n\
         [skill:container-ops] ERROR: nothing available for container: configure an MCP server named docker, or install docker or podman\n"
    );
    m.install("podman");
    let cli = m.doctor(&["container-ops"]);
    cli.assert_code(0);
    assert!(
        cli.stdout.ends_with("[skill:container-ops] WARNING: no MCP server docker, no docker for container, falling back to podman (CLI)\n"),
        "{}",
        cli.stdout
    );
    // A configuration file that is not JSON is a warning that names it; the rest goes on.
    m.write(&m.project.join(".mcp.json"), "{ nope");
    let warned = m.doctor(&["container-ops"]);
    warned.assert_code(0);
    assert!(
        warned
            .stderr
            .contains(".mcp.json: line 1, column 3: not JSON"),
        "{}",
        warned.stderr
    );
    let unknown = m.doctor(&["container-opps"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("did you mean `container-ops`?"),
        "{}",
        unknown.stderr
    );
}

/// docs/doctor.md's table of domains is `skills_doctor::domains::builtin()`, row for row.
#[test]
fn the_docs_domain_table_is_the_code_table() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/doctor.md"))
            .unwrap();
    let start = doc.find("| Domain | MCP servers | CLIs | HTTP |").unwrap();
    let rows: Vec<&str> = doc[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let domains = skills_doctor::domains::builtin();
    assert_eq!(rows.len(), domains.len(), "{rows:#?}");
    for (row, domain) in rows.iter().zip(&domains) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[1], format!("`{}`", domain.name), "{row}");
        assert_eq!(cells[2], domain.mcp.join(", "), "{row}");
        assert_eq!(cells[3], domain.cli.join(", "), "{row}");
        assert_eq!(cells[4], if domain.http { "yes" } else { "" }, "{row}");
    }
}

/// What `curl --version` prints first.
const CURL_VERSION: &str = "curl 8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0 OpenSSL/3.0.13 zlib/1.3 brotli/1.1.0 zstd/1.5.5 libidn2/2.3.7 libpsl/0.21.2 (+libidn2/2.3.7) libssh/0.10.6/openssl/zlib nghttp2/1.59.0 librtmp/2.3 OpenLDAP/2.6.7";

/// `--probe` with real servers: `skills mcp` itself as a stdio server named `docker` (so its
/// tools are not the Docker tool the skill names: seed 004's "MCP restart not available"),
/// a program that does not exist, and one that never answers. Each is reported; none hangs
/// the run; without `--probe` none is started.
#[cfg(unix)]
#[test]
fn probe_lists_real_tools_and_reports_servers_that_fail_or_hang() {
    let m = Machine::new();
    let empty = m.home.join("no-skills");
    std::fs::create_dir_all(&empty).unwrap();
    let marker = m.home.join("started");
    m.write(
        &m.project.join(".mcp.json"),
        &serde_json::json!({"mcpServers": {
            "docker": {"command": env!("CARGO_BIN_EXE_skills"), "args": ["mcp", "--log-level", "off", "--skills-dir", empty]},
            "github": {"command": "/nonexistent/github-mcp"},
            "gitea": {"command": "/bin/sh", "args": ["-c", format!(": > '{}'; while read line; do :; done", marker.display())]}
        }})
        .to_string(),
    );
    m.install_printing("docker", "Docker version 27.3.1, build ce12230");
    m.install_printing("curl", CURL_VERSION);
    // A command whose `--version` never ends is stopped at the deadline.
    m.write_executable("jq", "#!/bin/sh\nexec /bin/sleep 30\n");

    let plain = m.doctor(&["container-health"]);
    plain.assert_code(0);
    assert!(
        plain
            .stdout
            .contains("Using: mcp__docker__list_containers (MCP)"),
        "{}",
        plain.stdout
    );
    assert!(!marker.exists(), "without --probe nothing is started");

    // The project's .mcp.json came with the clone: its servers start only once trusted.
    let untrusted = m.doctor(&["container-health", "--probe", "--probe-timeout", "2"]);
    assert!(
        !marker.exists(),
        "an untrusted project's server was started"
    );
    assert!(
        untrusted
            .stderr
            .contains(".mcp.json: its MCP servers were not started")
            && untrusted.stderr.contains("--trust-project"),
        "{}",
        untrusted.stderr
    );
    let trusted = m.doctor(&[
        "container-health",
        "--probe",
        "--probe-timeout",
        "2",
        "--trust-project",
    ]);
    assert!(marker.exists(), "{}", trusted.stderr);
    std::fs::remove_file(&marker).unwrap();

    // Remembered: later runs start the same file's servers without the flag.
    let started = std::time::Instant::now();
    let probed = m.doctor(&[
        "container-health",
        "container-ops",
        "git-pr",
        "--probe",
        "--probe-timeout",
        "2",
    ]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    probed.assert_code(1); // git-pr needs git, which is not installed
    assert!(marker.exists(), "the stdio server was started");
    assert!(
        probed.stdout.starts_with("MCP servers: docker (claude-code, 5 tools), github (claude-code, no answer), gitea (claude-code, no answer)\n"),
        "{}",
        probed.stdout
    );
    assert!(
        probed.stdout.contains(
            "[skill:container-health] WARNING: mcp__docker__list_containers not offered by MCP server docker for container, falling back to docker (CLI)\n"
        ),
        "{}",
        probed.stdout
    );
    // Seed 004's own example, from the chain container-ops declares.
    assert!(
        probed.stdout.contains(
            "[skill:container-ops] WARNING: mcp__docker__restart_container not offered by MCP server docker for container, falling back to docker (CLI)\n"
        ),
        "{}",
        probed.stdout
    );
    // Versions, under --probe only, as their numbers (curl's first line is 200 characters
    // of libraries: six CLIs made a 600-character line); none for a stub that never ends.
    assert!(
        probed
            .stdout
            .contains("\nCLIs: curl 8.5.0, docker 27.3.1, jq\n"),
        "{}",
        probed.stdout
    );
    assert!(
        plain.stdout.contains("\nCLIs: curl, docker, jq\n"),
        "{}",
        plain.stdout
    );
    assert!(
        probed.stdout.contains("[skill:git-pr] WARNING: MCP server gitea did not answer (no answer within 2 s), no tea for git-gitea, falling back to curl (HTTP)\n"),
        "{}",
        probed.stdout
    );
    assert!(
        probed
            .stderr
            .contains("MCP server `github` (.mcp.json): cannot start `/nonexistent/github-mcp`"),
        "{}",
        probed.stderr
    );
    let json = m.doctor(&[
        "container-health",
        "--probe",
        "--probe-timeout",
        "2",
        "--format",
        "json",
    ]);
    let doc = crate::schemas::check("doctor", &json);
    assert_eq!(
        doc["inventory"]["clis"]["docker"]["version"],
        "Docker version 27.3.1, build ce12230"
    );
    assert!(
        doc["inventory"]["clis"]["curl"]["version"]
            .as_str()
            .unwrap()
            .starts_with("curl 8.5.0 (x86_64-pc-linux-gnu) libcurl/8.5.0")
    );
    let docker = &doc["inventory"]["servers"][0];
    assert_eq!(
        docker["tools"],
        serde_json::json!([
            "list_skills",
            "get_skill",
            "skill",
            "view_skill",
            "tool_inventory"
        ])
    );
    assert!(
        doc["inventory"]["servers"][1]["probe_error"]
            .as_str()
            .unwrap()
            .starts_with("cannot start")
    );
    assert_eq!(docker["project"], true);
}

/// A cloned repository's `.mcp.json` names a command (here `touch`): `doctor --probe` does
/// not run it until the user trusts that file, and a trusted file that changes (a pull
/// request) is not trusted any more. It ran without asking before.
#[cfg(unix)]
#[test]
fn a_projects_servers_start_only_once_the_user_trusts_the_file_as_it_is() {
    let m = Machine::new();
    let marker = m.home.join("ran");
    let config = |marker: &Path| {
        serde_json::json!({"mcpServers": {
            "docker": {"command": "/bin/sh", "args": ["-c", format!(": > '{}'", marker.display())]}
        }})
        .to_string()
    };
    m.write(&m.project.join(".mcp.json"), &config(&marker));
    let untrusted = m.doctor(&["--probe", "--probe-timeout", "2"]);
    assert!(
        !marker.exists(),
        "an untrusted project's server was started"
    );
    // Taken at its word, as without --probe: not "no answer".
    assert!(
        untrusted
            .stdout
            .starts_with("MCP servers: docker (claude-code, not started)\n"),
        "{}",
        untrusted.stdout
    );
    m.doctor(&["--probe", "--probe-timeout", "2", "--trust-project"]);
    assert!(marker.exists());
    // The file changes: the new command is not run until it is trusted again.
    let other = m.home.join("ran-again");
    m.write(&m.project.join(".mcp.json"), &config(&other));
    let changed = m.doctor(&["--probe", "--probe-timeout", "2"]);
    assert!(
        !other.exists(),
        "a changed project file's server was started"
    );
    assert!(
        changed
            .stderr
            .contains("you trusted an earlier version of it"),
        "{}",
        changed.stderr
    );
    // The user's own files are theirs: no trust asked.
    let home_marker = m.home.join("home-ran");
    m.write(&m.project.join(".mcp.json"), "{}");
    m.write(&m.home.join(".claude.json"), &config(&home_marker));
    m.doctor(&["--probe", "--probe-timeout", "2"]);
    assert!(home_marker.exists());
}

/// A repository's skills.toml that names a CLI by path (`/abs/evil.sh`, `../../evil.sh`):
/// refused with the fix, never run with `--version`, never reported as installed (it was
/// both). PATH entries that are relative (`.`) are not searched either.
#[cfg(unix)]
#[test]
fn clis_are_bare_names_looked_up_on_path_never_paths() {
    let m = Machine::new();
    let marker = m.home.join("ran");
    let evil = m.project.join("evil.sh");
    m.write(
        &evil,
        &format!(
            "#!/bin/sh
: > '{}'
",
            marker.display()
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for cli in [
        evil.display().to_string(),
        "../../evil.sh".to_string(),
        "./evil.sh".to_string(),
    ] {
        m.write(
            &m.project.join("skills.toml"),
            &format!("[[doctor.domains]]\nname = \"evil\"\ncli = [\"{cli}\"]\n"),
        );
        let run = m.doctor(&["--probe", "--probe-timeout", "2"]);
        run.assert_code(2);
        assert!(
            crate::unwrapped(&run.stderr)
                .contains("a CLI is a bare command name looked up on PATH"),
            "{cli}: {}",
            run.stderr
        );
        assert!(!marker.exists(), "{cli} was run");
    }
    // A bare name found only through a relative PATH entry is not the machine's CLI.
    std::fs::rename(&evil, m.project.join("evilcli")).unwrap();
    m.write(
        &m.project.join("skills.toml"),
        "[[doctor.domains]]\nname = \"evil\"\ncli = [\"evilcli\"]\n",
    );
    let run = skills_with(
        &m.project,
        &["doctor", "--probe", "--probe-timeout", "2"],
        &[("HOME", &m.home), ("PATH", Path::new("."))],
    );
    assert!(!run.stdout.contains("evilcli"), "{}", run.stdout);
    assert!(!marker.exists());
}

/// A `.mcp.json` that is a link to `/dev/zero` (git can commit one): a warning, no unbounded
/// read (it grew by 1.8 GB/s).
#[cfg(unix)]
#[test]
fn a_config_file_that_is_not_a_regular_file_is_not_read() {
    let m = Machine::new();
    std::os::unix::fs::symlink("/dev/zero", m.project.join(".mcp.json")).unwrap();
    let run = m.doctor(&[]);
    assert!(
        run.stderr.contains(".mcp.json") && run.stderr.contains("not a regular file"),
        "{}",
        run.stderr
    );
}

/// `[[doctor.domains]]` in skills.toml adds a domain (or replaces a built-in one), and the
/// lint configuration beside it still reads.
/// A command the project's skills.toml names and its own folder holds (on PATH, as direnv's
/// `PATH_add bin` puts it) is the repository's code: `--probe` ran it for its version.
#[cfg(unix)]
#[test]
fn a_command_inside_the_project_is_run_only_when_trusted() {
    use std::os::unix::fs::PermissionsExt as _;
    let m = Machine::new();
    m.write(
        &m.project.join("skills.toml"),
        "[[doctor.domains]]\nname = \"git-forgejo\"\ncli = [\"fj\"]\n",
    );
    let marker = m.home.join("ran");
    let fj = m.project.join("bin/fj");
    m.write(
        &fj,
        &format!("#!/bin/sh\n: > '{}'\necho 'fj 1.0'\n", marker.display()),
    );
    std::fs::set_permissions(&fj, std::fs::Permissions::from_mode(0o755)).unwrap();
    let probe = |trust: bool| {
        let mut args = vec!["doctor", "--probe", "--probe-timeout", "2"];
        if trust {
            args.push("--trust-project");
        }
        skills_with(
            &m.project,
            &args,
            &[
                ("HOME", &m.home),
                ("PATH", &m.project.join("bin")),
                ("XDG_STATE_HOME", &m.home.join(".local/state")),
            ],
        )
    };
    let untrusted = probe(false);
    assert!(!marker.exists(), "{}", untrusted.stderr);
    assert!(
        untrusted.stderr.contains("is the project's own"),
        "{}",
        untrusted.stderr
    );
    let trusted = probe(true);
    assert!(marker.exists(), "{}\n{}", trusted.stdout, trusted.stderr);
}

#[cfg(unix)]
#[test]
fn skills_toml_extends_the_domains() {
    let m = Machine::new();
    m.write(
        &m.project.join(".claude/skills/forgejo-pr.md"),
        "---\nname: forgejo-pr\ndescription: Open a pull request on Forgejo. Use when a change is ready.\nallowed-tools: mcp__forgejo__create_pull_request Bash(fj:*)\n---\n# Forgejo PR\n",
    );
    m.write(
        &m.project.join("skills.toml"),
        "[lint]\nstrict = false\n\n[[doctor.domains]]\nname = \"git-forgejo\"\nmcp = [\"forgejo\"]\ncli = [\"fj\"]\nhttp = true\n\n[[doctor.domains]]\nname = \"json\"\ncli = [\"jaq\"]\n",
    );
    m.install("fj");
    m.install("jaq");
    let run = m.doctor(&["forgejo-pr", "database-query"]);
    assert!(
        run.stdout.contains("[skill:forgejo-pr] WARNING: no MCP server forgejo for git-forgejo, falling back to fj (CLI)\n"),
        "{}",
        run.stdout
    );
    // database-query's `jq` is no longer the json domain's command: `jaq` is.
    assert!(!run.stdout.contains("for json"), "{}", run.stdout);
    m.run_lint_still_reads_the_file();

    m.write(
        &m.project.join("skills.toml"),
        "[[doctor.domains]]\nname = \"x\"\nmcp = \"not a list\"\n",
    );
    let bad = m.doctor(&[]);
    bad.assert_code(2);
    assert!(
        bad.stderr.contains("skills.toml: [doctor]:"),
        "{}",
        bad.stderr
    );
}

impl Machine {
    fn run_lint_still_reads_the_file(&self) {
        self.write(
            &self.project.join("skills/demo/SKILL.md"),
            "---\nname: demo\ndescription: A demo skill. Use when testing the lint configuration.\n---\n# Demo\n\nSay hi.\n",
        );
        let lint = skills_with(&self.project, &["lint", "skills"], &[("HOME", &self.home)]);
        lint.assert_code(0);
        assert!(!lint.stderr.contains("skills.toml"), "{}", lint.stderr);
    }
}

/// A repository's `.claude-ops/skills/git-pr.md` (Gitea only) overrides the baseline git-pr
/// for `--repo` runs only.
#[cfg(unix)]
#[test]
fn repo_skills_override_the_baseline_for_that_repo_only() {
    let m = Machine::new();
    let repo = m.home.join("repos/infra");
    m.write(
        &repo.join(".claude-ops/skills/git-pr.md"),
        "---\nname: git-pr\ndescription: Open pull requests on our Gitea only. Use for infra changes.\nallowed-tools: Bash(tea:*)\n---\n# Gitea PR\n\n```bash\ntea pr create\n```\n",
    );
    m.install("tea");
    let repo_arg = repo.to_str().unwrap();
    let scoped = m.doctor(&["git-pr", "--repo", repo_arg]);
    scoped.assert_code(0);
    // The skill shows `tea` and names no MCP tool: the CLI is its choice, not a fallback
    // (it was a WARNING).
    assert!(
        scoped
            .stdout
            .ends_with("CLIs: tea\n[skill:git-pr] Using: tea (CLI)\n"),
        "{}",
        scoped.stdout
    );
    let baseline = m.doctor(&["git-pr"]);
    assert!(
        baseline.stdout.contains("for git-github"),
        "{}",
        baseline.stdout
    );
    let shown = skills_with(
        &m.project,
        &["show", "git-pr", "--repo", repo_arg],
        &[("HOME", &m.home)],
    );
    shown.assert_code(0);
    assert!(
        shown
            .stdout
            .contains("Open pull requests on our Gitea only."),
        "{}",
        shown.stdout
    );
    let missing = m.doctor(&["--repo", "/nonexistent/repo"]);
    missing.assert_code(2);
    assert!(
        missing
            .stderr
            .contains("--repo /nonexistent/repo: not a directory"),
        "{}",
        missing.stderr
    );
}

/// 120,000 configured servers (60,000 names, each configured twice): every name is looked
/// up once, not compared with every server before it (quadratic: about a minute in a debug
/// build; now about 5 s with the JSON of 120,000 servers). The bound is several times the
/// linear run on a loaded CI machine and far below the quadratic one's.
#[cfg(unix)]
#[test]
fn many_configured_servers_take_linear_time() {
    let m = Machine::new();
    let servers: serde_json::Map<String, serde_json::Value> = (0..60_000)
        .map(|i| {
            (
                format!("server-{i}"),
                serde_json::json!({"command": format!("cmd-{i}")}),
            )
        })
        .collect();
    let text = serde_json::json!({ "mcpServers": servers }).to_string();
    m.write(&m.project.join(".mcp.json"), &text);
    // The same names in another letter case: shadowed.
    m.write(
        &m.home.join(".claude.json"),
        &text.replace("\"server-", "\"SERVER-"),
    );
    let started = std::time::Instant::now();
    let run = m.doctor(&["container-health", "--format", "json"]);
    let took = started.elapsed();
    // container-health needs docker, which this machine lacks: exit 1, not 2.
    run.assert_code(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        doc["inventory"]["servers"].as_array().unwrap().len(),
        60_000
    );
    assert_eq!(
        doc["inventory"]["shadowed"].as_array().unwrap().len(),
        60_000
    );
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
}

/// A server whose command is not there serves no skill, and doctor says so without
/// running anything (it reported `Using: mcp__kubernetes__* (MCP)` for Codex's
/// `kubectl-mcp`, which was nowhere): a bare name is looked up on PATH, a path checked
/// where it points. A skill that shows the CLI and names no MCP tool then uses the CLI; a
/// configured server that cannot serve is still a warning.
#[cfg(unix)]
#[test]
fn a_server_whose_command_is_not_there_serves_nothing() {
    let m = Machine::new();
    let marker = m.home.join("ran");
    m.write(
        &m.project.join(".claude/skills/k8s-restart.md"),
        "---\nname: k8s-restart\ndescription: Restart a stuck deployment. Use when pods do not come up.\n---\n# Restart\n\n```bash\nkubectl rollout restart deploy/web\n```\n",
    );
    m.write(
        &m.home.join(".codex/config.toml"),
        "[mcp_servers.kubernetes]\ncommand = \"kubectl-mcp\"\n",
    );
    let bare = m.doctor(&["k8s-restart"]);
    bare.assert_code(1);
    assert_eq!(
        bare.stdout,
        "MCP servers: kubernetes (codex, command not found)\nCLIs: none\n\
         [skill:k8s-restart] ERROR: nothing available for kubernetes (MCP server kubernetes cannot start (`kubectl-mcp` is not on PATH)): configure an MCP server named kubernetes or k8s, or install kubectl\n"
    );
    m.install("kubectl");
    let cli = m.doctor(&["k8s-restart"]);
    cli.assert_code(0);
    assert!(
        cli.stdout.ends_with("[skill:k8s-restart] WARNING: MCP server kubernetes cannot start (`kubectl-mcp` is not on PATH) for kubernetes, falling back to kubectl (CLI)\n"),
        "{}",
        cli.stdout
    );
    // Found on PATH (a stub that would leave a marker if it ran): the server is taken at its
    // word, and nothing ran.
    m.write_executable(
        "kubectl-mcp",
        &format!("#!/bin/sh\n: > '{}'\n", marker.display()),
    );
    let found = m.doctor(&["k8s-restart", "--format", "json"]);
    found.assert_code(0);
    let doc = crate::schemas::check("doctor", &found);
    assert_eq!(
        doc["inventory"]["servers"][0]["unavailable"],
        serde_json::Value::Null
    );
    assert_eq!(doc["skills"][0]["domains"][0]["tool"], "mcp__kubernetes__*");
    assert!(!marker.exists(), "doctor ran the server's command");
    // Paths: absolute, and relative to the project (where agents start their servers).
    m.write(
        &m.project.join(".mcp.json"),
        r#"{"mcpServers": {"k8s": {"command": "/nonexistent/k8s-mcp"}, "docker": {"command": "./tools/docker-mcp"}}}"#,
    );
    let paths = m.doctor(&["k8s-restart", "--format", "json"]);
    let doc = crate::schemas::check("doctor", &paths);
    let servers = doc["inventory"]["servers"].as_array().unwrap();
    assert_eq!(servers[0]["name"], "k8s");
    assert_eq!(
        servers[0]["unavailable"],
        "`/nonexistent/k8s-mcp` does not exist"
    );
    assert_eq!(
        servers[1]["unavailable"],
        "`./tools/docker-mcp` does not exist"
    );
    m.write(&m.project.join("tools/docker-mcp"), "#!/bin/sh\n");
    let not_executable = m.doctor(&["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&not_executable.stdout).unwrap();
    assert_eq!(
        doc["inventory"]["servers"][1]["unavailable"],
        "`./tools/docker-mcp` is not an executable file"
    );
}

/// A probe that fails says why in the words of the cause, not in the MCP library's types
/// (`Send message error Transport [rmcp::transport::worker::WorkerTransport<
/// StreamableHttpClientWorker<reqwest::Client>>] error: Client error: …`).
#[cfg(unix)]
#[test]
fn a_failed_probe_says_why_without_rust_types() {
    let m = Machine::new();
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    m.write(
        &m.home.join(".claude.json"),
        &format!(
            r#"{{"mcpServers": {{"docker": {{"url": "http://127.0.0.1:{port}/mcp"}}, "github": {{"command": "/bin/sh", "args": ["-c", "exit 0"]}}}}}}"#
        ),
    );
    let run = m.doctor(&["container-health", "--probe", "--probe-timeout", "5"]);
    let stderr = crate::unwrapped(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "home/.claude.json): the MCP session failed: error sending request for url (http://127.0.0.1:{port}/mcp): Connection refused"
        )),
        "{stderr}"
    );
    assert!(
        // It exits at once: it stopped reading, or closed the connection, as the race goes.
        stderr.contains("MCP server `github` (")
            && (stderr.contains("the MCP session failed: the server stopped reading its input (did it exit?)")
                || stderr.contains("the MCP session failed: the server closed the connection before it answered `initialize`")),
        "{stderr}"
    );
    for rust in [
        "rmcp::",
        "Transport [",
        "reqwest::",
        "Worker",
        "Some(",
        "{ ",
    ] {
        assert!(!stderr.contains(rust), "{rust:?} in: {stderr}");
        assert!(!run.stdout.contains(rust), "{rust:?} in: {}", run.stdout);
    }
}

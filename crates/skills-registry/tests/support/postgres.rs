//! A throwaway PostgreSQL cluster for one test: `initdb` in a temp dir, `pg_ctl start` on a
//! free loopback port, `pg_ctl stop -m immediate` when dropped. Run as the `postgres` user
//! when the tests run as root (PostgreSQL refuses to run as root).

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The directory holding `initdb` and `pg_ctl`: `PATH`, then Debian's
/// `/usr/lib/postgresql/*/bin`, newest first.
fn bin_dir() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("initdb").is_file() && dir.join("pg_ctl").is_file() {
                return Some(dir);
            }
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Cluster {
    /// A running cluster, or `None` when PostgreSQL is not installed (then the PostgreSQL
    /// tests are skipped, unless `SKILLS_REQUIRE_POSTGRES` is set, as `.ci/run` sets it).
    pub fn start() -> Option<Self> {
        let Some(bin) = bin_dir() else {
            assert!(
                std::env::var_os("SKILLS_REQUIRE_POSTGRES").is_none(),
                "SKILLS_REQUIRE_POSTGRES is set but initdb and pg_ctl are not installed"
            );
            eprintln!("note: PostgreSQL is not installed; skipping the PostgreSQL run");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let as_postgres = is_root();
        if as_postgres {
            let status = Command::new("chown")
                .args(["postgres:", dir.path().to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success(), "chown of the cluster directory failed");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Self {
            dir,
            bin,
            port,
            as_postgres,
        };
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        );
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200",
            cluster.dir.path().display()
        );
        let log = cluster.dir.path().join("log");
        cluster.run(
            "pg_ctl",
            &[
                "-D",
                &data,
                "-o",
                &options,
                "-w",
                "-l",
                log.to_str().unwrap(),
                "start",
            ],
        );
        Some(cluster)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let output = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(args)
                .output()
        } else {
            Command::new(&program).args(args).output()
        }
        .unwrap();
        assert!(
            output.status.success(),
            "{} failed:\n{}{}",
            program.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// The URL of database `name` on this cluster.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    pub fn log(&self) -> PathBuf {
        Path::new(self.dir.path()).join("log")
    }
}

impl Cluster {
    /// Stops the server at once, as a crash or a failover would.
    pub fn stop(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-m", "immediate", "stop"]);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let program = self.bin.join("pg_ctl");
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(["-D", &data, "-m", "immediate", "stop"])
                .output()
        } else {
            Command::new(&program)
                .args(["-D", &data, "-m", "immediate", "stop"])
                .output()
        };
    }
}

//! The `skills-mcp` binary: the MCP server of `skills mcp` alone, so that the server's
//! process maps only the code it runs. `skills mcp` `exec`s it when it sits beside `skills`.
//!
//! Its options and start-up are `skills_mcp_server::launch`'s, as `skills mcp`'s are;
//! errors are printed plainly: nothing in this file reaches clap or miette, so neither is
//! linked into the server's process (about 0.45 MB less resident, docs/performance.md). A
//! test holds its help to `skills mcp`'s (`tests/it/cli.rs`).

// The server's process has no `Printer` (that would link miette): help, version and usage
// errors are its only output besides the protocol.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use skills_mcp_server::CLIENT_CONFIGS;
use skills_mcp_server::launch::{Launch, Parsed};

fn main() -> ExitCode {
    skills_tool::install_panic_hook();
    let launch = match Launch::parse(std::env::args_os()) {
        Ok(Parsed::Serve(launch)) => launch,
        Ok(Parsed::Help) => {
            println!("{SERVER_HELP}\n{CLIENT_CONFIGS}");
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("skills-mcp {}", env!("SKILLS_VERSION"));
            return ExitCode::SUCCESS;
        }
        Ok(_) => return ExitCode::from(2),
        Err(e) => {
            eprintln!(
                "error: {e}\n\nUsage: skills-mcp [OPTIONS]\n\nFor more information, try '--help'."
            );
            return ExitCode::from(2);
        }
    };
    // The gateway and the audit gate are `skills mcp`'s: this binary leaves out the MCP
    // client and the parsers they need (docs/performance.md), so it hands such a launch to
    // `skills` beside it.
    #[cfg(unix)]
    if (launch.gateway.is_some() || launch.audit.is_some())
        && let Some(skills) = sibling("skills")
    {
        use std::os::unix::process::CommandExt as _;
        let error = std::process::Command::new(&skills)
            .arg("mcp")
            .args(launch.to_args())
            .exec();
        eprintln!("error: cannot run {}: {error}", skills.display());
        return ExitCode::from(2);
    }
    let served = launch.serve_skills(|at| {
        eprintln!("skills mcp: Streamable HTTP at http://{at}/mcp");
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.help.is_empty() => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}\n  help: {}", e.help);
            ExitCode::from(2)
        }
    }
}

/// `name` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling(name: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let other = exe.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    (other != exe && other.is_file()).then_some(other)
}

/// `skills-mcp --help`. The description and the options are `skills mcp`'s (tests in
/// `tests/it/cli.rs` and `tests/it/mcp.rs` hold them together).
const SERVER_HELP: &str = "\
Serve the skills to agents over MCP (stdio or HTTP): the server `skills mcp` runs.

Speaks the Model Context Protocol on stdin/stdout, or with --http ADDR over Streamable
HTTP at http://ADDR/mcp. Serves the tools list_skills, get_skill, skill, view_skill and
tool_inventory (which tool, MCP server, CLI or HTTP, each skill will use on this
machine), the init-skills and skills-router prompts, and the
io.modelcontextprotocol/skills extension (skills/list, skills/get, resources). Skills
are re-read on every request. Logs go to stderr. Meant to be started or connected to by
an MCP client, not used by hand.

Usage: skills-mcp [OPTIONS]

Options:
      --skills-dir <DIR>
          Serve the skills in DIR instead of the default roots (repeatable). Also SKILLS_PATH.
      --log-level <LOG_LEVEL>
          How much to log on stderr [default: warn (info with --gateway)]
          [possible values: off, error, warn, info, debug, trace]
      --tools <FILE>
          Universal tools after view_skill, for the skills-router prompt and view_skill: a
          JSON array of MCP tool definitions (read once, at start)
      --resources <FILE>
          Global resources for the skills-router prompt and view_skill: a JSON array of MCP
          resource definitions (read once, at start)
      --http <ADDR>
          Serve over MCP's Streamable HTTP at http://ADDR/mcp instead of stdin/stdout
          (127.0.0.1:8471, say; port 0 picks a free one)
      --allow-host <HOST>
          With --http: also accept this Host header (loopback names always are; repeatable)
      --allow-origin <ORIGIN>
          With --http: also accept this browser Origin (loopback ones always are; repeatable)
      --tier <N>
          Serve only skills of tier N and below (a skill's metadata.min-tier); the tools refuse
          the others with an error that names the tier
      --audit <SEVERITY>
          Serve only skills whose audit finds nothing at or above SEVERITY (low, medium, high,
          critical); the others are not listed, and a warning on stderr names them and why
      --gateway <FILE>
          Serve as a gateway in front of the MCP servers FILE lists (.mcp.json's format):
          view_skill, then only the active skill's tools (docs/gateway.md)
  -h, --help
          Print help
  -V, --version
          Print version
";

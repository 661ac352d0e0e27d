//! `skills mcp`: the MCP server (all the work is in `skills-mcp-server`, whose `launch`
//! module is the one start-up of `skills mcp` and the `skills-mcp` binary alike).

use skills_mcp_server::LogLevel;
use skills_mcp_server::launch::Launch;

use crate::args::McpArgs;
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::{Printer, Ui};

/// `skills mcp`: hands over to the `skills-mcp` binary beside this one when there is one
/// (the server's process then maps only the server's code: a few megabytes less resident
/// memory, see docs/performance.md), else serves in this process. A gateway and an audit
/// gate are served here: `skills-mcp` leaves out the MCP client and the audit's parsers
/// they need.
pub(crate) fn run(
    args: &McpArgs,
    skills_dirs: &[std::path::PathBuf],
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let mut launch = Launch::default();
    launch.skills_dirs = skills_dirs.to_vec();
    launch.log_level = Some(log_level(args, printer.ui()));
    launch.tools.clone_from(&args.tools);
    launch.resources.clone_from(&args.resources);
    launch.http.clone_from(&args.http);
    launch.allow_hosts.clone_from(&args.allow_hosts);
    launch.allow_origins.clone_from(&args.allow_origins);
    launch.tier = args.tier;
    launch.audit = args.audit;
    launch.gateway.clone_from(&args.gateway);
    // Bad files (tools, resources, a gateway file) are refused before the client connects,
    // with the file and line, whichever process then serves.
    let config = launch
        .config()
        .map_err(|e| errors::plain(e.message, e.help))?;
    #[cfg(unix)]
    if let Some(server) = sibling().filter(|_| launch.gateway.is_none() && launch.audit.is_none()) {
        use std::os::unix::process::CommandExt as _;
        // Only returns on failure; then serve here instead.
        let error = std::process::Command::new(&server)
            .args(launch.to_args())
            .exec();
        printer.note(&format!(
            "cannot run {}: {error}; serving from skills itself",
            server.display()
        ));
    }
    launch
        .serve(config, |at| {
            printer.status(&format!("skills mcp: Streamable HTTP at http://{at}/mcp\n"));
        })
        .map_err(|e| errors::plain(e.message, e.help))?;
    Ok(ExitStatus::Success)
}

/// `skills-mcp` next to the running executable, if it is there.
#[cfg(unix)]
fn sibling() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let server = exe.with_file_name(format!("skills-mcp{}", std::env::consts::EXE_SUFFIX));
    (server != exe && server.is_file()).then_some(server)
}

/// The log level: --log-level wins; otherwise -q and -v move the default one step. The
/// default is warn, and info for a gateway, whose one line per scope change and call is
/// its log (docs/gateway.md).
fn log_level(args: &McpArgs, ui: Ui) -> LogLevel {
    let default = if args.gateway.is_some() {
        LogLevel::Info
    } else {
        LogLevel::Warn
    };
    args.log_level.unwrap_or(if ui.quiet() {
        LogLevel::Error
    } else if ui.verbose() {
        LogLevel::Info
    } else {
        default
    })
}

//! The `skills-mcp` binary: the MCP server of `skills mcp` alone, so that the server's
//! process maps only the code it runs. Everything happens in [`skills_tool::run_mcp`].

fn main() -> std::process::ExitCode {
    skills_tool::install_panic_hook();
    skills_tool::run_mcp(std::env::args_os())
}

//! The `skills` binary. Everything happens in [`skills_tool::run`].

fn main() -> std::process::ExitCode {
    skills_tool::install_panic_hook();
    skills_tool::run(std::env::args_os())
}

//! The `skills` binary. Everything happens in [`skills_tool::run`].

fn main() -> std::process::ExitCode {
    skills_tool::run(std::env::args_os())
}

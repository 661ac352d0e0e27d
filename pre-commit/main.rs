//! `skills-pre-commit`: the `skills` command under the name pre-commit installs.
//!
//! pre-commit's `language: rust` runs `cargo install --path .` at the repository root, so
//! the root manifest holds this package (see `.pre-commit-hooks.yaml`). Its binary cannot
//! also be called `skills`: two binaries of one name in a workspace collide in `target/`.

fn main() -> std::process::ExitCode {
    skills_tool::install_panic_hook();
    skills_tool::run(std::env::args_os())
}

//! The `skills` binary. Everything happens in [`skills_tool::run`].

// A lint of a large tree makes about a hundred small allocations a skill on every thread of
// its pool, and glibc's allocator was 13% of its CPU time: with mimalloc the crawl shape
// lints 6-9% faster, for about 10 MB more peak resident memory (docs/performance.md, "The
// allocator"). Only this binary: the libraries leave the choice to their users, and
// `skills-mcp`, which serves on a small memory budget, keeps the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    skills_tool::install_panic_hook();
    skills_tool::run(std::env::args_os())
}

//! Development tasks: `cargo xtask ci`.
fn main() {}

//! `skills instructions`: the usage guide for agents, optionally with the skills catalog,
//! printed or written into a file such as `AGENTS.md`.

use std::path::{Path, PathBuf};

use clap::Args;
use skills_discovery::{Index, Roots};
use skills_export::{CATALOG_CLOSE, CATALOG_OPEN, INSTRUCTIONS_CLOSE, INSTRUCTIONS_OPEN};

use crate::{Status, Ui, emit, fail};

#[derive(Debug, Args)]
pub(crate) struct InstructionsArgs {
    /// Print the guide as plain Markdown, without the <skills-mcp-instructions> wrapper.
    #[arg(long, conflicts_with = "write")]
    pub(crate) no_xml: bool,

    /// Also print the <available_skills> catalog of the discovered skills.
    #[arg(long)]
    pub(crate) catalog: bool,

    /// Update FILE in place instead of printing: replace its <skills-mcp-instructions> block
    /// (and, with --catalog, its <available_skills> block), or append them; the rest of the
    /// file is kept byte for byte. Running it twice changes nothing.
    #[arg(long, value_name = "FILE")]
    pub(crate) write: Option<PathBuf>,
}

pub(crate) fn run(args: &InstructionsArgs, roots: &Roots, ui: Ui) -> Status {
    let guide = skills_export::instructions(!args.no_xml);
    let catalog = if args.catalog {
        crate::list::catalog(&Index::scan(roots))
    } else {
        String::new()
    };
    let Some(file) = &args.write else {
        let mut text = guide;
        if !catalog.is_empty() {
            text.push('\n');
            text.push_str(&catalog);
        }
        return match emit(&text) {
            Ok(()) | Err(Status::Success) => Status::Success,
            Err(s) => s,
        };
    };
    let existing = match std::fs::read(file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                return fail(
                    ui,
                    miette::Report::new(
                        miette::MietteDiagnostic::new(format!("{} is not UTF-8 text", file.display()))
                            .with_help("--write only edits text files; print with `skills instructions` and paste instead"),
                    ),
                );
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return fail(ui, io_error(file, &e)),
    };
    let mut updated =
        skills_export::replace_block(&existing, INSTRUCTIONS_OPEN, INSTRUCTIONS_CLOSE, &guide);
    if args.catalog {
        updated = if catalog.is_empty() {
            skills_export::remove_block(&updated, CATALOG_OPEN, CATALOG_CLOSE)
        } else {
            skills_export::replace_block(&updated, CATALOG_OPEN, CATALOG_CLOSE, &catalog)
        };
    }
    if updated == existing {
        if !ui.quiet() {
            eprintln!("{} is up to date", file.display());
        }
        return Status::Success;
    }
    match write_atomically(file, updated.as_bytes()) {
        Ok(()) => {
            if !ui.quiet() {
                eprintln!("updated {}", file.display());
            }
            Status::Success
        }
        Err(e) => fail(ui, io_error(file, &e)),
    }
}

fn io_error(file: &Path, e: &std::io::Error) -> miette::Report {
    miette::Report::new(
        miette::MietteDiagnostic::new(format!("cannot write {}: {e}", file.display()))
            .with_help("check that the directory exists and is writable; the file was not changed"),
    )
}

/// Writes to a temporary file beside `file`, then renames it over `file`: a reader (or a
/// crash, a kill, a full disk) sees the old content or the new, never half of it. The old
/// file's permissions are kept; a symlink is written through (its target is replaced, the
/// link stays); the directory is synced after the rename. A temporary file left by a killed
/// run is removed first.
pub(crate) fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    // `AGENTS.md -> CLAUDE.md`: update CLAUDE.md, keep the link.
    let resolved = match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(file).or_else(|_| {
            // A dangling link: create the file it names.
            std::fs::read_link(file).map(|to| match file.parent() {
                Some(parent) => parent.join(to),
                None => to,
            })
        })?,
        _ => file.to_path_buf(),
    };
    let file = resolved.as_path();
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let base = format!(".{name}.skills-tmp-");
    let _ = skills_package::durable::remove_stale(dir, &base);
    let mut tmp = tempfile::Builder::new()
        .prefix(&skills_package::durable::temp_prefix(&base))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(file) {
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    tmp.persist(file).map_err(|e| e.error)?;
    skills_package::durable::sync_dir(dir)
}

//! `skills instructions`: the usage guide for agents, optionally with the skills catalog,
//! printed or written into a file such as `AGENTS.md`.

use std::path::{Path, PathBuf};

use clap::Args;
use skills_discovery::{Index, Roots};
use skills_export::Block;

use crate::util::write;
use crate::{Status, Ui, emit, fail, render};

#[derive(Debug, Args)]
pub(crate) struct InstructionsArgs {
    /// Print the guide as plain Markdown, without the <skills-mcp-instructions> wrapper.
    #[arg(long, conflicts_with = "write")]
    pub(crate) no_xml: bool,

    /// Also print the <available_skills> catalog of the discovered skills.
    #[arg(long)]
    pub(crate) catalog: bool,

    /// Update FILE in place instead of printing: replace the block between the
    /// `<!-- skills:begin instructions -->` and `<!-- skills:end instructions -->` lines (and,
    /// with --catalog, the `catalog` block), or append it; the rest of the file is kept byte
    /// for byte, and running it twice changes nothing. Marker lines inside code blocks are
    /// the user's text; a lone, repeated or nested marker is refused (exit 2, nothing written),
    /// as is a FILE that is not a regular file, is read-only or has other hard links.
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
    match update(file, &guide, args.catalog.then_some(catalog.as_str())) {
        Ok(false) => {
            if !ui.quiet() {
                eprintln!("{} is up to date", file.display());
            }
            Status::Success
        }
        Ok(true) => {
            if !ui.quiet() {
                eprintln!("updated {}", file.display());
            }
            Status::Success
        }
        Err(report) => fail(ui, *report),
    }
}

/// The largest file `--write` reads: an instructions file is a page of text, not a data set.
const MAX_FILE: u64 = 16 << 20;

/// Updates `file`'s instructions block (and its catalog block, when `catalog` is given: an
/// empty one removes it). Says whether the file changed; writes nothing on any error.
fn update(file: &Path, guide: &str, catalog: Option<&str>) -> Result<bool, Box<miette::Report>> {
    let refuse = |message: String, help: String| {
        Box::new(miette::Report::new(
            miette::MietteDiagnostic::new(message).with_help(help),
        ))
    };
    write::check_target(file).map_err(|e| refuse(e.to_string(), e.help()))?;
    let existing = match std::fs::metadata(file) {
        Ok(meta) if meta.len() > MAX_FILE => {
            return Err(refuse(
                format!(
                    "{} is {} bytes; --write reads files up to {MAX_FILE} bytes",
                    file.display(),
                    meta.len()
                ),
                "print with `skills instructions` and paste the block instead".into(),
            ));
        }
        Ok(_) => {
            let bytes =
                std::fs::read(file).map_err(|e| refuse(io_message(file, &e), IO_HELP.into()))?;
            String::from_utf8(bytes).map_err(|_| {
                refuse(
                    format!("{} is not UTF-8 text", file.display()),
                    "--write only edits text files; print with `skills instructions` and paste instead".into(),
                )
            })?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(refuse(io_message(file, &e), IO_HELP.into())),
    };
    let mut updates = vec![(Block::Instructions, Some(guide))];
    if let Some(catalog) = catalog {
        updates.push((Block::Catalog, Some(catalog).filter(|c| !c.is_empty())));
    }
    let updated = skills_export::update_blocks(&existing, &updates).map_err(|e| {
        let name = render::path_str(file);
        let (code, span) = render::snippet::Snippet::new(name, &existing, e.span.clone(), Some(1));
        let message = format!("{}: {e}; nothing was written", file.display());
        Box::new(
            miette::Report::new(
                miette::MietteDiagnostic::new(message)
                    .with_help(format!(
                        "{}; skills only replaces the text between its `<!-- skills:begin ... -->` and \
                         `<!-- skills:end ... -->` lines (lines inside code blocks do not count)",
                        e.help()
                    ))
                    .with_label(miette::LabeledSpan::at(span, "this marker")),
            )
            .with_source_code(code),
        )
    })?;
    if updated == existing {
        return Ok(false);
    }
    write::write_atomically(file, updated.as_bytes()).map_err(|e| {
        refuse(
            format!("cannot write {}: {e}", file.display()),
            IO_HELP.into(),
        )
    })?;
    Ok(true)
}

const IO_HELP: &str = "check that the directory exists and is writable; the file was not changed";

fn io_message(file: &Path, e: &std::io::Error) -> String {
    format!("cannot read {}: {e}", file.display())
}

//! `skills instructions`: the usage guide for agents, optionally with the skills catalog,
//! printed or written into a file such as `AGENTS.md`.

use std::path::Path;

use skills_core::{ReadError, durable};
use skills_discovery::{Index, Roots};
use skills_export::Block;

use crate::args::InstructionsArgs;
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

pub(crate) fn run(
    args: &InstructionsArgs,
    roots: &Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let guide = skills_export::instructions(!args.no_xml);
    let catalog = if args.catalog {
        render::skills::catalog(&Index::scan(roots))
    } else {
        String::new()
    };
    let Some(file) = &args.write else {
        let mut text = guide;
        if !catalog.is_empty() {
            text.push('\n');
            text.push_str(&catalog);
        }
        printer.out(&text)?;
        return Ok(ExitStatus::Success);
    };
    let changed = update(file, &guide, args.catalog.then_some(catalog.as_str()))?;
    printer.status(&if changed {
        format!("updated {}\n", file.display())
    } else {
        format!("{} is up to date\n", file.display())
    });
    Ok(ExitStatus::Success)
}

/// The largest file `--write` reads: an instructions file is a page of text, not a data set.
const MAX_FILE: u64 = 16 << 20;

/// Updates `file`'s instructions block (and its catalog block, when `catalog` is given: an
/// empty one removes it). Says whether the file changed; writes nothing on any error.
fn update(file: &Path, guide: &str, catalog: Option<&str>) -> Result<bool, miette::Report> {
    let refuse = |message: String, help: String| errors::plain(message, help);
    durable::check_target(file).map_err(|e| refuse(e.to_string(), errors::target_help(&e)))?;
    let existing = match skills_core::read_bounded(file, MAX_FILE) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            refuse(
                format!("{} is not UTF-8 text", file.display()),
                "--write only edits text files; print with `skills instructions` and paste instead"
                    .into(),
            )
        })?,
        Err(ReadError::TooLarge { size, .. }) => {
            return Err(refuse(
                format!(
                    "{} is {size} bytes; --write reads files up to {MAX_FILE} bytes",
                    file.display(),
                ),
                "print with `skills instructions` and paste the block instead".into(),
            ));
        }
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(refuse(
                format!("cannot read {}: {e}", file.display()),
                IO_HELP.into(),
            ));
        }
    };
    let mut updates = vec![(Block::Instructions, Some(guide))];
    if let Some(catalog) = catalog {
        updates.push((Block::Catalog, Some(catalog).filter(|c| !c.is_empty())));
    }
    let updated = skills_export::update_blocks(&existing, &updates).map_err(|e| {
        let name = render::path_str(file);
        let (code, span) = render::snippet::Snippet::new(name, &existing, e.span.clone(), Some(1));
        let message = format!("{}: {e}; nothing was written", file.display());
        miette::Report::new(
            miette::MietteDiagnostic::new(message)
                .with_help(format!(
                    "{}; skills only replaces the text between its `<!-- skills:begin ... -->` and \
                     `<!-- skills:end ... -->` lines (lines inside code blocks do not count)",
                    e.help()
                ))
                .with_label(miette::LabeledSpan::at(span, "this marker")),
        )
        .with_source_code(code)
    })?;
    if updated == existing {
        return Ok(false);
    }
    durable::write_atomically(file, updated.as_bytes()).map_err(|e| {
        refuse(
            format!("cannot write {}: {e}", file.display()),
            IO_HELP.into(),
        )
    })?;
    Ok(true)
}

const IO_HELP: &str = "check that the directory exists and is writable; the file was not changed";

//! The one place that writes to the terminal.
//!
//! Commands build text (with `render`) and hand it to a [`Printer`]; nothing else in the
//! crate prints. So `-q`/`-v` mean the same in every command, a failed write to stdout is
//! one [`StdoutError`] for `exit` to map to an exit status, and the terminal's settings
//! (colors, width) are read once. A leaf: it knows no other module of the crate (as uv's
//! printer), so rendering and exit codes can change without touching it.

// The one module allowed to touch stdout and stderr (clippy.toml disallows it elsewhere).
#![allow(clippy::disallowed_methods)]

use std::io::{IsTerminal as _, Write as _};

/// A write to stdout that failed; `exit` tells a reader that went away (not a failure)
/// from a real error.
#[derive(Debug)]
pub(crate) struct StdoutError(pub(crate) std::io::Error);

/// How much a command says besides its result (`-q`, `-v`). The same for every command:
/// quiet drops summary lines, notes and progress; verbose adds detail on stderr. Findings,
/// warnings, errors and the result itself are printed at every level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// The output settings renderers need: plain data, copied freely.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ui {
    /// Whether output gets colors.
    pub(crate) color: bool,
    /// Width to wrap diagnostics and tables at.
    pub(crate) width: usize,
    /// Whether `width` is the terminal's or `$COLUMNS`', not the default for a pipe: only
    /// then are quoted source lines cut to fit it (a file or a CI log keeps them whole up to
    /// a fixed length, for search and copy).
    pub(crate) width_stated: bool,
    /// `-q`, `-v` or neither.
    pub(crate) verbosity: Verbosity,
}

impl Ui {
    /// `-q`: no summary lines, notes or progress.
    pub(crate) fn quiet(self) -> bool {
        self.verbosity == Verbosity::Quiet
    }

    /// `-v`: more detail on stderr.
    pub(crate) fn verbose(self) -> bool {
        self.verbosity == Verbosity::Verbose
    }
}

/// The narrowest width laid out for: a terminal or `$COLUMNS` narrower than this gets this.
const MIN_WIDTH: usize = 20;
/// The width when neither the terminal nor `$COLUMNS` says (a pipe, a file): what `ls`,
/// `man` and most programs assume.
const DEFAULT_WIDTH: usize = 80;

/// The one rule for the width of tables, diagnostics and help: the terminal stdout is
/// (asked with `TIOCGWINSZ`, as `ls` and cargo ask theirs), else `$COLUMNS`, else 80.
/// `tty` is the terminal's width, `None` when stdout is not one (or says 0). The second
/// value says whether the width was stated (by the terminal or `$COLUMNS`) rather than
/// assumed.
fn terminal_width(tty: Option<u16>, columns: Option<&str>) -> (usize, bool) {
    tty.map(usize::from)
        .filter(|w| *w > 0)
        .or_else(|| {
            columns
                .and_then(|c| c.trim().parse::<usize>().ok())
                .filter(|w| *w > 0)
        })
        .map_or((DEFAULT_WIDTH, false), |w| (w.max(MIN_WIDTH), true))
}

/// The width to lay out for, read from the terminal and the environment now
/// ([`terminal_width`]'s rule), and whether it was stated. The printer reads it once;
/// `--help`, drawn by clap before there is a printer, reads it too.
fn stated_width() -> (usize, bool) {
    let tty = terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0);
    terminal_width(tty, std::env::var("COLUMNS").ok().as_deref())
}

/// The width to lay out for ([`terminal_width`]'s rule).
pub(crate) fn width() -> usize {
    stated_width().0
}

/// Writes a command's output (stdout) and its messages (stderr).
#[derive(Debug)]
pub(crate) struct Printer {
    ui: Ui,
}

impl Printer {
    /// `color` is `--color`: `Some(true)` always, `Some(false)` never, `None` when stdout is
    /// a terminal and `NO_COLOR` is not set.
    pub(crate) fn new(color: Option<bool>, verbosity: Verbosity) -> Self {
        let tty = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = color.unwrap_or(tty && !no_color);
        let (width, width_stated) = stated_width();
        Self {
            ui: Ui {
                color,
                width,
                width_stated,
                verbosity,
            },
        }
    }

    /// The settings, for renderers.
    pub(crate) fn ui(&self) -> Ui {
        self.ui
    }

    /// Whether stdout is a terminal (some output differs: headers, escaping).
    pub(crate) fn stdout_is_terminal(&self) -> bool {
        std::io::stdout().is_terminal()
    }

    /// Writes the command's result to stdout. A reader that went away (`skills lint | head`)
    /// is an error too: not a failure of the command, but nothing more should be written.
    pub(crate) fn out(&self, text: &str) -> Result<(), StdoutError> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(StdoutError)
    }

    /// A message on stderr, as given (it ends with its own newline when it needs one).
    /// Nothing can be done when stderr is gone, so a failure is ignored.
    pub(crate) fn err(&self, text: &str) {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// `warning: TEXT`, at every verbosity: a warning is part of the result. Ends with one
    /// newline whether `text` has one or not (a second made a blank line).
    pub(crate) fn warn(&self, text: &str) {
        self.err(&format!("warning: {}\n", text.trim_end_matches('\n')));
    }

    /// `note: TEXT`, unless `-q`; one newline at the end, as [`Printer::warn`].
    pub(crate) fn note(&self, text: &str) {
        if !self.ui.quiet() {
            self.err(&format!("note: {}\n", text.trim_end_matches('\n')));
        }
    }

    /// A summary or progress line on stderr, unless `-q`.
    pub(crate) fn status(&self, text: &str) {
        if !self.ui.quiet() {
            self.err(text);
        }
    }

    /// Detail on stderr, only with `-v`.
    pub(crate) fn detail(&self, text: &str) {
        if self.ui.verbose() {
            self.err(text);
        }
    }
}

/// For the panic hook, which has no [`Printer`]: a line on stderr, failures ignored.
pub(crate) fn plain_stderr(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_the_terminal_width() {
        // The terminal first: an exported $COLUMNS left over from another size loses.
        assert_eq!(terminal_width(Some(60), Some("100")), (60, true));
        assert_eq!(terminal_width(Some(160), None), (160, true));
        // A terminal that does not know its size (0) is no answer.
        assert_eq!(terminal_width(Some(0), Some("120")), (120, true));
        // Not a terminal: $COLUMNS, then 80.
        assert_eq!(terminal_width(None, Some("120")), (120, true));
        assert_eq!(terminal_width(None, Some(" 80 ")), (80, true));
        assert_eq!(terminal_width(None, None), (80, false));
        assert_eq!(terminal_width(None, Some("wide")), (80, false));
        assert_eq!(terminal_width(None, Some("0")), (80, false));
        // Narrower than 20 columns is laid out for 20.
        assert_eq!(terminal_width(None, Some("12")), (20, true));
        assert_eq!(terminal_width(Some(8), None), (20, true));
    }
}

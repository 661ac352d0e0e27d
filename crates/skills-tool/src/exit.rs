//! How a command ends, and the one mapping from that to the process's exit code.
//!
//! Exit codes are a contract: `0` success, `1` findings (lint errors, or warnings with
//! `--strict`), `2` the command itself failed. A command returns
//! `Result<ExitStatus, Error>`; [`code`] is the only place that turns it into an
//! [`ExitCode`], renders a failure, and treats a closed stdout as success.

use std::process::ExitCode;

use crate::printer::Printer;

/// What a command that ran to its end reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitStatus {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and found problems (already printed).
    Failure,
    /// Exit 2: the command could not do its job, and has said why on stderr.
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(s: ExitStatus) -> Self {
        match s {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}

/// Why a command stopped before its end.
#[derive(Debug)]
pub(crate) enum Error {
    /// stdout was closed by its reader (`skills lint | head`): the reader has what it
    /// wanted, so this is not a failure.
    BrokenPipe,
    /// The command failed: the report (message, help) is printed and the exit code is 2.
    Report(miette::Report),
}

impl From<crate::printer::StdoutError> for Error {
    fn from(e: crate::printer::StdoutError) -> Self {
        Self::stdout(e.0)
    }
}

impl Error {
    /// A failed write to stdout.
    pub(crate) fn stdout(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Self::BrokenPipe
        } else {
            crate::errors::plain(format!("cannot write to stdout: {e}"), "").into()
        }
    }
}

impl From<miette::Report> for Error {
    fn from(report: miette::Report) -> Self {
        Self::Report(report)
    }
}

/// The exit code of a command's result; prints the report of a failure.
pub(crate) fn code(result: Result<ExitStatus, Error>, printer: &Printer) -> ExitCode {
    match result {
        Ok(status) => status.into(),
        Err(Error::BrokenPipe) => ExitStatus::Success.into(),
        Err(Error::Report(report)) => {
            crate::render::print_error(printer, report.as_ref());
            ExitStatus::Error.into()
        }
    }
}

//! One module per command. Each `run` takes its arguments (from `args`) and the
//! [`Printer`](crate::printer::Printer), and returns
//! `Result<ExitStatus, Error>` (`crate::exit`); no command imports another: what two
//! commands share lives in `render`, `errors` or `util`.

pub(crate) mod add;
pub(crate) mod audit;
pub(crate) mod client;
pub(crate) mod doctor;
pub(crate) mod generate;
pub(crate) mod install;
pub(crate) mod instructions;
pub(crate) mod lint;
pub(crate) mod list;
pub(crate) mod mcp;
pub(crate) mod new;
pub(crate) mod package;
pub(crate) mod prompt;
pub(crate) mod registry;
pub(crate) mod show;
pub(crate) mod url;

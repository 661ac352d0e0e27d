//! The command line: clap definitions only.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// Lint, find and show Agent Skills (SKILL.md directories).
#[derive(Debug, Parser)]
#[command(
    name = "skills",
    version = env!("SKILLS_VERSION"),
    about,
    long_about = None,
    propagate_version = true
)]
pub(crate) struct Cli {
    /// Print only results, findings and errors: no summary line, notes or progress.
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub(crate) quiet: bool,

    /// Say more on stderr: each skill checked and the time taken (lint), info logs (mcp).
    #[arg(long, short = 'v', global = true, help_heading = GLOBAL)]
    pub(crate) verbose: bool,

    /// When to use colors: auto (a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = GLOBAL)]
    pub(crate) color: ColorChoice,

    /// Look for skills in DIR instead of the default roots (repeatable; the first wins when
    /// two hold the same skill). Also SKILLS_PATH, separated like PATH.
    #[arg(long = "skills-dir", value_name = "DIR", global = true, help_heading = GLOBAL)]
    pub(crate) skills_dirs: Vec<PathBuf>,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check skills against the specification and its best practices.
    ///
    /// Each PATH may be a skill directory, a SKILL.md file, or any directory, which is walked
    /// for skills (honouring .gitignore, entering hidden directories such as .claude/skills,
    /// skipping .git and node_modules). Settings are read from the nearest skills.toml.
    ///
    /// Exit status: 0 when there are no errors (and, with --strict, no warnings), 1 when
    /// there are, 2 when the run itself failed (bad arguments, unreadable path, bad
    /// skills.toml).
    #[command(
        after_help = "Rules and their documentation: skills lint --explain RULE, or docs/lint-rules.md."
    )]
    Lint(LintArgs),

    /// List the installed skills, in priority order.
    ///
    /// Roots, first match wins: the project's .agents/skills, .agent/skills and .claude/skills
    /// in the current directory and each parent up to the repository root, then the same
    /// three in the home directory. --skills-dir or SKILLS_PATH replace them.
    List(ListArgs),

    /// Show one skill, found by id (its directory name), ignoring case.
    ///
    /// Without --view, prints the whole SKILL.md: with a short header at a terminal, raw when
    /// piped (so `skills show x > SKILL.md` round-trips).
    Show(ShowArgs),

    /// Print the raw URL of a SKILL.md given its page URL (blob, tree, gist), offline.
    ///
    /// GitHub blob -> raw.githubusercontent.com, GitLab /-/blob/ -> /-/raw/, Bitbucket /src/ ->
    /// /raw/, gists -> gist.githubusercontent.com; tree URLs name the directory's SKILL.md.
    /// Exit status 2 when the URL is malformed. Rules: docs/url.md.
    Url(crate::url::UrlArgs),

    /// Print the usage guide for agents (the MCP init-skills prompt), or write it into a file.
    ///
    /// `skills instructions --catalog --write AGENTS.md` keeps an AGENTS.md block with the
    /// guide and the catalog of installed skills up to date.
    Instructions(crate::instructions::InstructionsArgs),

    /// Create a new skill that lints clean, with optional scripts/, references/, assets/.
    New(crate::new::NewArgs),

    /// Lint skills and write them as byte-reproducible .skill (ZIP) archives.
    ///
    /// Writes DIR/<id>.skill whose entries are <id>/<path>, leaving out .git, __pycache__,
    /// node_modules, .DS_Store, *.pyc and what .gitignore or .skillignore exclude. A skill
    /// with lint errors is not packaged (exit 1). Honours SOURCE_DATE_EPOCH. docs/package.md.
    Package(crate::package::PackageArgs),

    /// Render the Level-1 router prompt, or one skill's Level-2 prompt.
    ///
    /// `skills prompt router` lists every skill (name, description), the universal tools
    /// (view_skill, then --tools) and the global resources (--resources). `skills prompt
    /// NAME` gives the skill's SKILL.md body as persona with its tools.json and
    /// resources.json. --template renders your own Jinja2 template; --format json prints the
    /// context instead. docs/prompt.md.
    Prompt(crate::prompt::PromptArgs),

    /// Install a skill from a .skill/.zip archive, a directory or an http(s) URL.
    ///
    /// Installs into the project's .agents/skills (at the repository root), --global
    /// ~/.agents/skills, or --to DIR. Archives are unpacked safely and the skill must lint
    /// clean of errors; downloads only from trusted hosts. docs/package.md.
    Install(crate::install::InstallArgs),

    /// Serve the skills to AI agents over MCP (stdio).
    ///
    /// Speaks the Model Context Protocol on stdin/stdout: the list_skills, get_skill and skill
    /// tools, the init-skills prompt, and the io.modelcontextprotocol/skills extension
    /// (skills/list, skills/get, resources). Skills are re-read on every request. Logs go to
    /// stderr. Meant to be started by an MCP client, not run by hand.
    #[command(after_long_help = crate::mcp::CLIENT_CONFIGS)]
    Mcp(McpArgs),

    /// Print a shell completion script to stdout.
    ///
    /// The script is generated from the same definitions as --help, so it always matches
    /// this version of skills.
    #[command(after_long_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),

    /// Print the man page skills(1), or write one page per command into a directory.
    ///
    /// Generated from the same definitions as --help; meant for packagers:
    /// `skills man --out DIR` writes skills.1, skills-lint.1, ...
    #[command(hide = true)]
    Man(ManArgs),
}

/// Where each shell looks for completions, shown by `skills completions --help`.
const COMPLETIONS_HELP: &str = "\
Install (or load in the current shell):

  bash:        skills completions bash > ~/.local/share/bash-completion/completions/skills
  zsh:         skills completions zsh > ~/.zfunc/_skills   (with fpath+=~/.zfunc before compinit)
  fish:        skills completions fish > ~/.config/fish/completions/skills.fish
  powershell:  skills completions powershell | Out-String | Invoke-Expression   (in $PROFILE)
  elvish:      eval (skills completions elvish | slurp)   (in ~/.config/elvish/rc.elv)";

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write skills.1 and a page per command (skills-lint.1, ...) into DIR instead of
    /// printing skills.1.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// How much to log on stderr [default: warn; info with -v, error with -q].
    #[arg(long, value_enum)]
    pub(crate) log_level: Option<LogLevel>,

    /// Universal tools after view_skill, for the skills-router prompt and view_skill: a JSON
    /// array of MCP tool definitions (read once, at start).
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<std::path::PathBuf>,

    /// Global resources for the skills-router prompt and view_skill: a JSON array of MCP
    /// resource definitions (read once, at start).
    #[arg(long, value_name = "FILE")]
    pub(crate) resources: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Also list shadowed and skipped skills, with the reason.
    #[arg(long)]
    pub(crate) all: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub(crate) format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    /// A table for people.
    Table,
    /// One JSON document (schema in docs/discovery.md).
    Json,
    /// The <available_skills> catalog agents embed in their prompt.
    Xml,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The skill's id (directory name), any letter case.
    pub(crate) name: String,

    /// How much to show: card (name, description, tags), summary (plus license,
    /// compatibility, allowed tools, metadata and files), full (plus the body).
    #[arg(long, value_enum)]
    pub(crate) view: Option<View>,

    /// Output format of a view.
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub(crate) format: ShowFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum View {
    Card,
    Summary,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShowFormat {
    /// Text for people.
    Text,
    /// A SkillCard-shaped JSON object.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// Skill directories, SKILL.md files, or directories to search [default: .]
    pub(crate) paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,

    /// Report RULE as an error (repeatable).
    #[arg(long, short = 'D', value_name = "RULE")]
    pub(crate) deny: Vec<String>,

    /// Report RULE as a warning (repeatable).
    #[arg(long, short = 'W', value_name = "RULE")]
    pub(crate) warn: Vec<String>,

    /// Do not report RULE (repeatable).
    #[arg(long, short = 'A', value_name = "RULE")]
    pub(crate) allow: Vec<String>,

    /// Warnings fail the run too (exit 1).
    #[arg(long)]
    pub(crate) strict: bool,

    /// Ignore skills.toml files.
    #[arg(long)]
    pub(crate) no_config: bool,

    /// Print the documentation of RULE and exit.
    #[arg(long, value_name = "RULE", exclusive = true)]
    pub(crate) explain: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Diagnostics with the source line, a label and the fix, then a summary.
    Human,
    /// One JSON document (schema in docs/lint.md).
    Json,
    /// GitHub Actions workflow annotations.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use clap::CommandFactory;

    use super::Cli;

    /// Flags that give a `--format json` command a second document shape, with its schema.
    const JSON_VARIANTS: &[(&str, &str, &str)] = &[("prompt", "stats", "prompt-stats")];

    /// The schema files every `--format json` output needs: `<command>.schema.json`, and one
    /// per flag of `JSON_VARIANTS`.
    fn json_outputs() -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for cmd in Cli::command().get_subcommands() {
            let offers_json = cmd
                .get_arguments()
                .filter(|a| a.get_id() == "format")
                .flat_map(|a| a.get_possible_values())
                .any(|v| v.get_name() == "json");
            if !offers_json {
                continue;
            }
            names.insert(cmd.get_name().to_string());
            for (command, flag, schema) in JSON_VARIANTS {
                if *command == cmd.get_name() {
                    assert!(
                        cmd.get_arguments().any(|a| a.get_id() == *flag),
                        "`{command}` has no --{flag}: update JSON_VARIANTS"
                    );
                    names.insert((*schema).to_string());
                }
            }
        }
        names
    }

    /// A new JSON output without a schema in docs/schemas/ fails here, and so does a schema
    /// left behind by an output that is gone. `tests/it/schemas.rs` validates real output
    /// against each of them.
    #[test]
    fn every_json_output_has_a_schema() {
        let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = manifest_dir.join("../../docs/schemas");
        if !manifest_dir.join("../../xtask").is_dir() {
            // Built from the published package (crates.io, a distribution's build): the
            // schemas live in the repository, not in the package. In the repository this
            // check always runs.
            eprintln!("not in the repository: docs/schemas/ is not there to compare with");
            return;
        }
        let mut files = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".schema.json");
            files.insert(
                stem.unwrap_or_else(|| panic!("{name}: not a *.schema.json file"))
                    .to_string(),
            );
        }
        let outputs = json_outputs();
        assert!(
            outputs.contains("lint") && outputs.contains("list"),
            "{outputs:?}"
        );
        assert_eq!(
            outputs, files,
            "the JSON outputs of the CLI (left) and the schemas in docs/schemas/ (right) differ"
        );
    }
}

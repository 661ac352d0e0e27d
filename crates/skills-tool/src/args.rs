//! The command line: every clap type and help text, and nothing else. Nothing here
//! imports from the rest of the crate; the commands read these types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use skills_mcp_server::LogLevel;

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

impl ColorChoice {
    /// What the printer takes: `Some` when forced, `None` to ask the terminal.
    pub(crate) fn forced(self) -> Option<bool> {
        match self {
            Self::Auto => None,
            Self::Always => Some(true),
            Self::Never => Some(false),
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check skills against the specification and best practices.
    ///
    /// Each PATH may be a skill directory, a SKILL.md file, a flat NAME.md skill, or any
    /// directory, which is walked for skills (honouring .gitignore, entering hidden
    /// directories such as .claude/skills, skipping .git and node_modules). Settings are read
    /// from the nearest skills.toml.
    ///
    /// Exit status: 0 when there are no errors (and, with --strict, no warnings), 1 when
    /// there are, 2 when the run itself failed (bad arguments, unreadable path, bad
    /// skills.toml).
    #[command(
        after_help = "Rules: `skills lint --rules` lists them, `skills lint --explain RULE` explains one."
    )]
    Lint(LintArgs),

    /// Check skills for what an agent should not be told to do.
    ///
    /// Reads every file of each skill (the files `skills package` would ship) and archives
    /// (.skill, .zip, read without extracting): instructions aimed at the agent against the
    /// user (also hidden in HTML comments or invisible Unicode), code downloaded or decoded
    /// and run, credentials read beside a network send, persistence, destructive commands,
    /// committed secrets, obfuscation and over-broad grants. Shell, Python and JavaScript are
    /// parsed, so a payload quoted in documentation is not taken for a command. Nothing is
    /// run. Each PATH is handled as by `skills lint`. Suppressions: `[audit] allow` in the
    /// nearest skills.toml, or a `skills-audit: allow RULE -- reason` marker on the line.
    ///
    /// Exit status: 0 when no finding is at or above --fail-on, 1 when one is, 2 when the
    /// run itself failed (bad arguments, unreadable path, bad skills.toml).
    #[command(
        after_help = "Rules: `skills audit --rules` lists them, `skills audit --explain RULE` explains one. Details: docs/audit.md."
    )]
    Audit(AuditArgs),

    /// List the installed skills, in priority order.
    ///
    /// Roots, first match wins: the project's .agents/skills, .agent/skills and .claude/skills
    /// in the current directory and each parent up to the repository root, then the same
    /// three in the home directory. --skills-dir or SKILLS_PATH replace them.
    List(ListArgs),

    /// Show one installed skill, found by id, ignoring case.
    ///
    /// The id is the skill's directory name. Without --view, prints the whole SKILL.md:
    /// with a short header at a terminal, raw when piped (so `skills show x > SKILL.md`
    /// round-trips).
    Show(ShowArgs),

    /// Print the raw URL of a SKILL.md page URL, offline.
    ///
    /// GitHub blob -> raw.githubusercontent.com, GitLab /-/blob/ -> /-/raw/, Bitbucket
    /// /src/ -> /raw/, gists -> gist.githubusercontent.com; tree URLs name the directory's
    /// SKILL.md. The https:// of a GitHub, GitLab, Bitbucket or gist URL may be left out.
    /// Exit status 2 when the URL is malformed. Rules: docs/url.md.
    Url(UrlArgs),

    /// Print the usage guide for agents, or keep it in AGENTS.md.
    ///
    /// The guide is the MCP server's init-skills prompt.
    /// `skills instructions --catalog --write AGENTS.md` keeps an AGENTS.md block with the
    /// guide and the catalog of installed skills up to date.
    Instructions(InstructionsArgs),

    /// Create a skill where discovery finds it.
    ///
    /// The skill goes to the project's .agents/skills (at the repository root), or to the
    /// first --skills-dir, or to --path DIR. Its description is a placeholder that `skills
    /// lint` reports until you write it. With --with, also scripts/, references/ or assets/,
    /// each with a starter file.
    New(NewArgs),

    /// Lint skills and write them as reproducible .skill archives.
    ///
    /// Writes DIR/<id>.skill, a ZIP archive whose entries are <id>/<path>, leaving out .git, __pycache__,
    /// node_modules, .DS_Store, *.pyc and what .gitignore, .ignore or .skillignore exclude.
    /// A skill with lint errors is not packaged (exit 1). Honours SOURCE_DATE_EPOCH.
    /// docs/package.md.
    Package(PackageArgs),

    /// Render an agent's prompt: the skills router, or one skill's.
    ///
    /// `skills prompt router` lists every skill (name, description), the universal tools
    /// (view_skill, then --tools) and the global resources (--resources): what an agent
    /// reads first. `skills prompt NAME` gives the skill's SKILL.md body as persona with its
    /// tools.json and resources.json: what it reads once it picks the skill. --template
    /// renders your own Jinja2 template; --format json prints the context instead.
    /// docs/prompt.md.
    Prompt(PromptArgs),

    /// Install one skill from an archive, a folder, a URL or a registry.
    ///
    /// Installs into the project's .agents/skills (at the repository root), -g/--global
    /// ~/.agents/skills, or --to DIR. Archives are unpacked safely and the skill must lint
    /// clean of errors; downloads only from trusted hosts. docs/package.md.
    Install(InstallArgs),

    /// Install skills for every agent, from git, a folder or an archive.
    ///
    /// SOURCE is owner/repo[/path][@skill][#ref] (GitHub), a GitHub, GitLab or Bitbucket
    /// page URL, any git URL (https, ssh, file://), a directory, or what `skills install`
    /// takes. The canonical copy goes to .agents/skills/NAME (--global: ~/.agents/skills);
    /// agents that read another folder get a relative link (the detected ones, or
    /// --agent). Each skill must lint clean; skills.lock records what was installed.
    /// docs/add.md.
    Add(AddArgs),

    /// Make the skills folders match skills.lock (after a clone, in CI).
    ///
    /// Installs missing or modified skills again from their locked source and commit,
    /// and puts back missing agent links. --frozen changes nothing and fails on any
    /// difference. Without skills.lock, npm `skills`' skills-lock.json is read, and
    /// --write-lock writes skills.lock from it. docs/add.md.
    Sync(SyncArgs),

    /// Say which locked skills changed at their source or here.
    ///
    /// Fetches each skill's source at its locked ref (the default branch when none) and
    /// compares the files with skills.lock; exit 1 when any differs. docs/add.md.
    Check(CheckArgs),

    /// Install the newest version of locked skills, and lock it.
    ///
    /// Each skill (all when none is named) is fetched at its locked ref, linted, and
    /// replaced in one step; one modified here is left alone unless --force. docs/add.md.
    Update(UpdateArgs),

    /// Remove skills that `skills add` installed.
    ///
    /// Removes the canonical copy, the agents' links and the lock entry. docs/add.md.
    Remove(RemoveArgs),

    /// Say which tool each skill will use here: MCP server, CLI or HTTP.
    ///
    /// Reads the MCP servers the agents are configured with (Claude Code, Claude Desktop,
    /// Cursor, VS Code, Codex, Gemini CLI, .claude-ops/mcp.json; nothing is started) and
    /// the CLIs on PATH, then walks MCP -> CLI -> HTTP for each domain a skill needs (from
    /// its allowed-tools, shell blocks and scripts). Exit 1 when a skill has nothing for a
    /// domain it needs. docs/doctor.md.
    Doctor(DoctorArgs),

    /// Search a skills registry: names, descriptions, tags, instructions.
    ///
    /// The registry is --registry URL, else SKILLS_REGISTRY, else `[registry] url` in the
    /// nearest skills.toml; the token SKILLS_REGISTRY_TOKEN or `[registry] token`.
    /// docs/registry.md.
    Search(SearchArgs),

    /// Publish a skill's folder to a skills registry, or register a SKILL.md URL.
    ///
    /// A folder (the current skill by default) is linted, packaged as `skills package`
    /// packages it and uploaded: the registry keeps every file, and a changed set of files
    /// is a new version (`metadata.version`, else the next number). A URL is registered:
    /// the registry fetches the file, lints it and keeps it. docs/registry.md.
    Publish(PublishArgs),

    /// Withdraw a version you published from "latest"; it stays installable.
    ///
    /// A yanked version is skipped by `skills add NAME` and `skills update`, while an exact
    /// NAME@VERSION and skills.lock still install it (as cargo does). --undo restores it.
    /// docs/registry.md.
    Yank(YankArgs),

    /// Remove a published version of a skill, or the whole skill.
    ///
    /// NAME@VERSION removes that version and its files; NAME --all removes the skill and
    /// every version. docs/registry.md.
    Unpublish(UnpublishArgs),

    /// Rate a skill in a skills registry, 1 to 5 stars.
    ///
    /// Rating the same skill again changes your rating.
    Rate(RateArgs),

    /// Serve the skills to agents over MCP (stdio or HTTP).
    ///
    /// Speaks the Model Context Protocol on stdin/stdout, or with --http ADDR over
    /// Streamable HTTP at http://ADDR/mcp. Serves the tools list_skills, get_skill, skill,
    /// view_skill and tool_inventory (which tool, MCP server, CLI or HTTP, each skill will
    /// use on this machine), the init-skills and skills-router prompts, and the
    /// io.modelcontextprotocol/skills extension (skills/list, skills/get, resources).
    /// Skills are re-read on every request. Logs go to stderr. Meant to be started or
    /// connected to by an MCP client, not used by hand.
    #[command(after_long_help = skills_mcp_server::CLIENT_CONFIGS)]
    Mcp(McpArgs),

    /// Run a skills registry for a team: register, search, rate.
    ///
    /// Skills are registered by the URL of their SKILL.md and served over a REST API.
    /// `skills registry serve` listens on 127.0.0.1:8470 and keeps everything in
    /// ./skills-registry.db (SQLite); --database postgres://… runs it on PostgreSQL.
    /// Registration fetches each SKILL.md from trusted hosts only and lints it first.
    /// Endpoints, configuration, tokens: docs/registry.md.
    Registry(RegistryArgs),

    /// Print a shell completion script.
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

#[derive(Debug, Args)]
pub(crate) struct RegistryArgs {
    #[command(subcommand)]
    pub(crate) command: RegistryCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RegistryCommand {
    /// Serve the registry's HTTP API until Ctrl-C or SIGTERM (requests in flight finish).
    ///
    /// Applies the database's migrations first. Logs problems on stderr; with -v, one line
    /// per request too (method, path, status, time).
    Serve(RegistryServeArgs),

    /// Apply the database migrations, then exit.
    Migrate(RegistryDbArgs),

    /// Issue, list and revoke the registry's API tokens.
    Token(RegistryTokenArgs),

    /// Sync once with the federation peers of the config file ([[peers]]), then exit.
    ///
    /// Imports what each peer exports and the peer's filter takes, updates what changed,
    /// removes what it dropped; a peer that fails changes nothing. Exit 1 when a peer
    /// failed. `serve` also syncs every sync_interval_secs (300 by default).
    Sync(RegistrySyncArgs),
}

#[derive(Debug, Args)]
pub(crate) struct RegistrySyncArgs {
    #[command(flatten)]
    pub(crate) db: RegistryDbArgs,

    /// Allow peers on loopback and private addresses, and plain http to loopback ones.
    #[arg(long)]
    pub(crate) allow_loopback: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RegistryDbArgs {
    /// The database: sqlite://PATH or postgres://USER:PASSWORD@HOST/DB [default: the
    /// config file's `database`, else sqlite://skills-registry.db]
    #[arg(long, value_name = "URL")]
    pub(crate) database: Option<String>,

    /// The registry's configuration file (TOML; docs/registry.md). Flags win over it.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct RegistryServeArgs {
    #[command(flatten)]
    pub(crate) db: RegistryDbArgs,

    /// The address to listen on [default: the config file's `listen`, else
    /// 127.0.0.1:8470]
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: Option<String>,

    /// The registry's name, the `registry_name` of skills registered here [default: local]
    #[arg(long)]
    pub(crate) name: Option<String>,

    /// Trust HOST (or HOST:PORT) to fetch SKILL.md files from, beside the built-in hosts
    /// (repeatable).
    #[arg(long = "trust-host", value_name = "HOST")]
    pub(crate) trust_hosts: Vec<String>,

    /// Allow loopback and private addresses, and plain http to loopback hosts (for tests
    /// and air-gapped mirrors).
    #[arg(long)]
    pub(crate) allow_loopback: bool,

    /// Refuse registrations (and updates and federation imports) whose audit finds anything
    /// at or above SEVERITY (low, medium, high, critical); else `audit_refuse_at` in the
    /// configuration file. Every skill's audit is on its card either way.
    #[arg(long, value_name = "SEVERITY")]
    pub(crate) audit_refuse_at: Option<skills_audit::Severity>,

    /// Let anonymous callers read public skills.
    #[arg(long)]
    pub(crate) public_read: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RegistryTokenArgs {
    #[command(subcommand)]
    pub(crate) command: TokenCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TokenCommand {
    /// Issue a token for a user and print it once on stdout (only its hash is kept).
    Create(TokenCreateArgs),

    /// List the tokens: id, user, groups, admin, created, revoked.
    List(TokenListArgs),

    /// Revoke a token by its id (tok_…); a running server refuses it within 2 seconds.
    Revoke(TokenRevokeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct TokenCreateArgs {
    #[command(flatten)]
    pub(crate) db: RegistryDbArgs,

    /// The user the token authenticates (the owner of what they register).
    #[arg(long)]
    pub(crate) user: String,

    /// A group the user is in (repeatable): they see skills shared with it.
    #[arg(long = "group", value_name = "GROUP")]
    pub(crate) groups: Vec<String>,

    /// The user is an admin: sees everything, enables and disables skills.
    #[arg(long)]
    pub(crate) admin: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TokenListArgs {
    #[command(flatten)]
    pub(crate) db: RegistryDbArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TokenFormat::Table)]
    pub(crate) format: TokenFormat,
}

/// `skills registry token list --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TokenFormat {
    /// Aligned columns.
    Table,
    /// A JSON array.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct TokenRevokeArgs {
    #[command(flatten)]
    pub(crate) db: RegistryDbArgs,

    /// The token's id, as `token list` shows it.
    pub(crate) id: String,
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
    /// How much to log on stderr [default: warn (info with --gateway); info with -v, error
    /// with -q].
    #[arg(long, value_parser = log_levels())]
    pub(crate) log_level: Option<LogLevel>,

    /// Universal tools after view_skill, for the skills-router prompt and view_skill: a JSON
    /// array of MCP tool definitions (read once, at start).
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<std::path::PathBuf>,

    /// Global resources for the skills-router prompt and view_skill: a JSON array of MCP
    /// resource definitions (read once, at start).
    #[arg(long, value_name = "FILE")]
    pub(crate) resources: Option<std::path::PathBuf>,

    /// Serve over MCP's Streamable HTTP at http://ADDR/mcp instead of stdin/stdout
    /// (127.0.0.1:8471, say; port 0 picks a free one).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,

    /// With --http: also accept this Host header (loopback names always are; repeatable).
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub(crate) allow_hosts: Vec<String>,

    /// With --http: also accept this browser Origin (loopback ones always are; repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allow_origins: Vec<String>,

    /// Serve only skills of tier N and below (a skill's metadata.min-tier); the tools refuse
    /// the others with an error that names the tier
    #[arg(long, value_name = "N")]
    pub(crate) tier: Option<u32>,

    /// Serve only skills whose audit finds nothing at or above SEVERITY (low, medium, high,
    /// critical); the others are not listed, and a warning on stderr names them and why
    #[arg(long, value_name = "SEVERITY")]
    pub(crate) audit: Option<skills_audit::Severity>,

    /// Serve as a gateway in front of the MCP servers FILE lists (.mcp.json's format):
    /// view_skill, then only the active skill's tools (docs/gateway.md)
    #[arg(long, value_name = "FILE")]
    pub(crate) gateway: Option<std::path::PathBuf>,
}

/// `--log-level`: the server's own levels, listed in `--help` and completions.
fn log_levels() -> impl clap::builder::TypedValueParser<Value = LogLevel> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(LogLevel::ALL.map(LogLevel::as_str))
        .try_map(|name| name.parse::<LogLevel>())
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

    /// Skills of the repository at PATH (its .claude-ops/skills) override the others of
    /// the same name, for this command only (the skills a repository brings).
    #[arg(long, value_name = "PATH")]
    pub(crate) repo: Option<PathBuf>,
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
    /// One JSON document.
    Json,
}

/// The arguments of a lint run, which `--explain` and `--rules` (which run nothing) refuse;
/// the global options (`--color`, `-q`...) go with either.
const LINT_RUN_ARGS: [&str; 8] = [
    "paths",
    "deny",
    "warn",
    "allow",
    "strict",
    "no_config",
    "statistics",
    "gateway",
];

#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// Skill directories, SKILL.md files, flat NAME.md skills, or directories to search
    /// [default: the --skills-dir directories, else .]
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
    #[arg(long, value_name = "RULE", conflicts_with_all = LINT_RUN_ARGS)]
    pub(crate) explain: Option<String>,

    /// List every rule: its id, default severity and what it reports (a table, or with
    /// --format json one document), and exit.
    #[arg(long, conflicts_with_all = LINT_RUN_ARGS, conflicts_with = "explain")]
    pub(crate) rules: bool,

    /// Print how many findings each rule has, most first, instead of the findings (as a
    /// table, or with --format json as one document).
    #[arg(long)]
    pub(crate) statistics: bool,

    /// Hold tools.json references to the MCP servers of this gateway file and their tools
    /// (tool-reference-unknown): each server is started, asked for its tools and stopped
    #[arg(long, value_name = "FILE")]
    pub(crate) gateway: Option<PathBuf>,
}

/// The arguments of `skills audit` that conflict with `--explain` and `--rules`.
const AUDIT_RUN_ARGS: [&str; 4] = ["paths", "fail_on", "no_config", "exhaustive"];

/// `skills audit [PATH...] [--format F] [--fail-on SEVERITY]`.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Skill directories, SKILL.md files, Markdown files, .skill or .zip archives, or
    /// directories to search [default: the --skills-dir directories, else .]
    pub(crate) paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,

    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = FailOn::High)]
    pub(crate) fail_on: FailOn,

    /// Ignore skills.toml files (no [audit] suppressions).
    #[arg(long)]
    pub(crate) no_config: bool,

    /// Parse every piece of code, also what a one-pass prefilter shows can hold no finding:
    /// several times slower, the same findings (a check on the prefilter).
    #[arg(long)]
    pub(crate) exhaustive: bool,

    /// Print the documentation of RULE and exit.
    #[arg(long, value_name = "RULE", conflicts_with_all = AUDIT_RUN_ARGS)]
    pub(crate) explain: Option<String>,

    /// List every rule: its id, category, default severity and what it reports (a table,
    /// or with --format json one document), and exit.
    #[arg(long, conflicts_with_all = AUDIT_RUN_ARGS, conflicts_with = "explain")]
    pub(crate) rules: bool,
}

/// The severities `--fail-on` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// Any finding.
    Low,
    /// Medium and above.
    Medium,
    /// High and critical.
    High,
    /// Critical only.
    Critical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Diagnostics with the source line, a label and the fix, then a summary.
    Human,
    /// One line per finding: `path:line:col: rule message`, then the summary.
    Concise,
    /// One JSON document (schema in docs/lint.md).
    Json,
    /// GitHub Actions workflow annotations.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

/// `skills install SOURCE [--to DIR | --global] [--force] [--allow-host HOST]...`.
#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// A .skill or .zip archive, a skill directory, an http(s) URL of a SKILL.md or of an
    /// archive (GitHub, GitLab, Bitbucket and gist page URLs are translated to raw first; a
    /// SKILL.md in a GitHub, GitLab or Bitbucket repository brings its whole directory,
    /// fetched with git), or the name of a skill in a registry (--registry).
    pub(crate) source: String,

    /// Install into DIR (a skills root) instead of the project's .agents/skills.
    #[arg(long, value_name = "DIR", conflicts_with = "global")]
    pub(crate) to: Option<PathBuf>,

    /// Install into ~/.agents/skills.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,

    /// Replace an installed skill with the same id.
    #[arg(long, short = 'f')]
    pub(crate) force: bool,

    /// Install a skill that has lint errors (under the destination's skills.toml settings):
    /// the errors are shown and counted.
    #[arg(long)]
    pub(crate) allow_lint_errors: bool,

    #[command(flatten)]
    pub(crate) risk: RiskArgs,

    #[command(flatten)]
    pub(crate) download: DownloadArgs,
}

/// What the audit of a skill to install may find (docs/audit.md, "Where it runs").
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct RiskArgs {
    /// Install even though the audit finds RULE at high or critical severity (repeatable;
    /// `skills audit --explain RULE` says what it is). `add`, `sync` and `update` record it in
    /// skills.lock with the digest of the files, so `sync` does not ask again and a changed
    /// skill is asked about again.
    #[arg(long = "allow-risk", value_name = "RULE", value_parser = crate::risk::parse_rule)]
    pub(crate) allow_risk: Vec<skills_audit::RuleId>,
}

/// Where `install` and `add` may download a source from.
#[derive(Debug, Default, Args)]
pub(crate) struct DownloadArgs {
    /// Also download from HOST, or HOST:PORT for another port (repeatable). Plain http is
    /// allowed only for hosts named here.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,

    /// A SOURCE that is neither a path nor a URL is a skill of this registry (else
    /// SKILLS_REGISTRY, else `[registry] url` in skills.toml), NAME or NAME@VERSION: every
    /// file is checked against the registry's digest before it is installed.
    #[arg(long, value_name = "URL")]
    pub(crate) registry: Option<String>,

    /// The registry a lock entry names for its skill (`sync`, `check`, `update`): asked
    /// instead of the configured one, never a flag.
    #[arg(skip)]
    pub(crate) locked_registry: Option<String>,

    /// The version a lock entry names for its registry skill (`sync`): installed even when
    /// yanked, never a flag.
    #[arg(skip)]
    pub(crate) locked_version: Option<String>,
}

/// `skills add SOURCE [--list] [--skill NAME]... [--all] [--agent ID]... [--global] [--copy]`.
#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// owner/repo[/path][@skill][#ref], a repository or directory page URL, a git URL, a
    /// directory, an archive, a SKILL.md URL, or a registry skill's name.
    pub(crate) source: String,

    /// List the skills in SOURCE and install nothing.
    #[arg(long, short = 'l')]
    pub(crate) list: bool,

    /// Install this skill of SOURCE (repeatable; `*` for all).
    #[arg(long = "skill", short = 's', value_name = "NAME")]
    pub(crate) skills: Vec<String>,

    /// Install every skill of SOURCE.
    #[arg(long, conflicts_with = "skills")]
    pub(crate) all: bool,

    /// Link into this agent's folder (repeatable; `*` for all): claude-code, windsurf,
    /// goose, roo, ... Default: the agents whose folder the project (or home) has.
    #[arg(long = "agent", short = 'a', value_name = "ID")]
    pub(crate) agents: Vec<String>,

    /// Install into ~/.agents/skills and the agents' folders under the home directory.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,

    /// Copy into the agents' folders instead of linking.
    #[arg(long)]
    pub(crate) copy: bool,

    /// Replace a skill of the same name that `skills add` did not install.
    #[arg(long, short = 'f')]
    pub(crate) force: bool,

    /// Install skills that have lint errors (under the project's skills.toml settings): the
    /// errors are shown and counted, and the lock records how many were accepted.
    #[arg(long)]
    pub(crate) allow_lint_errors: bool,

    #[command(flatten)]
    pub(crate) risk: RiskArgs,

    #[command(flatten)]
    pub(crate) download: DownloadArgs,
}

/// `skills sync [--frozen] [--global] [--write-lock]`.
#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// Change nothing; exit 1 when the folders differ from the lock (for CI).
    #[arg(long)]
    pub(crate) frozen: bool,

    /// Replace skills (and agents' copies) edited here with the locked version; without it
    /// an edited skill is left alone and named, as `update` does.
    #[arg(long, short = 'f', conflicts_with = "frozen")]
    pub(crate) force: bool,

    /// The user's skills (~/.agents/skills and the global lock) instead of the project's.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,

    /// In a project with npm `skills`' skills-lock.json and no skills.lock: write skills.lock
    /// from the skills installed from it (each with its commit and digest), to be read from
    /// then on.
    #[arg(long, conflicts_with_all = ["frozen", "global"])]
    pub(crate) write_lock: bool,

    #[command(flatten)]
    pub(crate) risk: RiskArgs,
}

/// `skills doctor [NAME]... [--format text|json]`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// The skills to resolve, by id, any letter case (default: every skill found).
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,

    /// Output format: lines for people, or one JSON document (docs/schemas/doctor.schema.json).
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub(crate) format: ShowFormat,

    /// Start each configured stdio MCP server (connect to each HTTP one), list its tools,
    /// and stop it. Without it nothing is executed.
    #[arg(long)]
    pub(crate) probe: bool,

    /// How long a probed server has to start and list its tools.
    #[arg(long, value_name = "SECS", default_value_t = 10, requires = "probe")]
    pub(crate) probe_timeout: u64,

    /// Trust the project's MCP configuration files (.mcp.json, .cursor/mcp.json, ...) as they
    /// are now, and remember it: their servers are probed now and by later runs until a
    /// file changes. Without it, a project's servers are not started.
    #[arg(long, requires = "probe")]
    pub(crate) trust_project: bool,

    /// Skills of the repository at PATH (its .claude-ops/skills) override the others of
    /// the same name, for this command only (the skills a repository brings).
    #[arg(long, value_name = "PATH")]
    pub(crate) repo: Option<PathBuf>,
}

/// `skills check [NAME]... [--global]`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The skills to check (default: every locked one).
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,

    /// The user's skills (the global lock) instead of the project's.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,
}

/// `skills update [NAME]... [--global] [--force]`.
#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// The skills to update (default: every locked one).
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,

    /// The user's skills (the global lock) instead of the project's.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,

    /// Replace a skill even when it was modified here.
    #[arg(long, short = 'f')]
    pub(crate) force: bool,

    #[command(flatten)]
    pub(crate) risk: RiskArgs,
}

/// `skills remove NAME... [--global]`.
#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The skills to remove.
    #[arg(value_name = "NAME", required = true)]
    pub(crate) names: Vec<String>,

    /// The user's skills (the global lock) instead of the project's.
    #[arg(long, short = 'g')]
    pub(crate) global: bool,

    /// Remove a locked skill even though its files were changed here since it was
    /// installed (the changes are lost).
    #[arg(long, short = 'f')]
    pub(crate) force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct InstructionsArgs {
    /// Print the guide as plain Markdown, without the <skills-mcp-instructions> wrapper.
    #[arg(long, conflicts_with = "write")]
    pub(crate) no_xml: bool,

    /// Also print the <available_skills> catalog of the discovered skills (with --write, a
    /// project's skill is located relative to FILE, a skill in your home as ~/...).
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

#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// The skill's name: lowercase letters, digits and single hyphens, at most 64 characters.
    pub(crate) name: String,

    /// The directory to create the skill in (the skill goes to DIR/NAME) [default: the
    /// project's .agents/skills, or the first --skills-dir]
    #[arg(long, value_name = "DIR")]
    pub(crate) path: Option<PathBuf>,

    /// Optional folders to add, with a starter file each (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FOLDERS")]
    pub(crate) with: Vec<Folder>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Folder {
    Scripts,
    References,
    Assets,
}

/// `skills package PATH... [-o DIR] [--format skill|zip] [--no-lint] [--list]`.
#[derive(Debug, Args)]
pub(crate) struct PackageArgs {
    /// Skill directories (each holding a SKILL.md), or flat skill files (NAME.md, packaged as
    /// NAME/SKILL.md).
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Directory to write the archives to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
    pub(crate) output: PathBuf,

    /// Archive format: `skill` writes <id>.skill, `zip` writes <id>.zip (the same bytes).
    #[arg(long, value_enum, default_value_t = PackageFormat::Skill)]
    pub(crate) format: PackageFormat,

    /// Package even when the skill has lint errors.
    #[arg(long)]
    pub(crate) no_lint: bool,

    /// Print the files that would be packaged, with their sizes, and write nothing.
    #[arg(long, short = 'l')]
    pub(crate) list: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PackageFormat {
    /// <id>.skill, the extension Claude and Anthropic's packager use.
    Skill,
    /// <id>.zip.
    Zip,
}

/// `skills prompt`.
#[derive(Debug, Args)]
pub(crate) struct PromptArgs {
    /// `router` for the prompt that lists every skill, or a skill's id for its own prompt.
    #[arg(value_name = "router|NAME")]
    pub(crate) target: String,

    /// Universal tools after view_skill: a JSON array of MCP tool definitions.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<PathBuf>,

    /// Global resources: a JSON array of MCP resource definitions.
    #[arg(long, value_name = "FILE")]
    pub(crate) resources: Option<PathBuf>,

    /// Render this Jinja2 template instead of the built-in one (same variables; values are
    /// escaped for XML only when FILE ends in .xml, .xml.j2, .xml.jinja or .xml.jinja2).
    #[arg(long, value_name = "FILE")]
    pub(crate) template: Option<PathBuf>,

    /// Output: the rendered prompt, or the context object the templates see.
    #[arg(long, value_enum, default_value_t = PromptFormat::Text)]
    pub(crate) format: PromptFormat,

    /// Print token estimates (bytes / 4) instead of the prompt: this prompt, the router
    /// prompt, and every skill loaded in full.
    #[arg(long)]
    pub(crate) stats: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PromptFormat {
    /// The rendered prompt.
    Text,
    /// The context as JSON (with --stats: the estimates as JSON).
    Json,
}

/// Where the registry is: `--registry`, else `SKILLS_REGISTRY`, else skills.toml.
#[derive(Debug, Args)]
pub(crate) struct RegistryClientArgs {
    /// The registry's URL (http://127.0.0.1:8470, https://skills.example.com). The token is
    /// never a flag: SKILLS_REGISTRY_TOKEN, or `[registry] token` in skills.toml.
    #[arg(long, value_name = "URL")]
    pub(crate) registry: Option<String>,
}

/// `skills search QUERY [--tag T]…`.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Words to find in skills' names, descriptions, tags and instructions, best match
    /// first (a typo in a name is forgiven); empty lists everything.
    #[arg(default_value = "")]
    pub(crate) query: String,

    /// Only skills with this tag.
    #[arg(long, value_name = "TAG")]
    pub(crate) tag: Option<String>,

    /// The order: relevance (by name without words), rating, updated (latest first), name.
    #[arg(long, value_enum, default_value_t = SearchSort::Relevance)]
    pub(crate) sort: SearchSort,

    /// At most this many skills (1 to 200).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub(crate) limit: u32,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub(crate) format: ShowFormat,

    #[command(flatten)]
    pub(crate) registry: RegistryClientArgs,
}

/// `skills search --sort`: the registry's orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SearchSort {
    Relevance,
    Rating,
    Updated,
    Name,
}

impl SearchSort {
    /// The registry's `sort` value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Relevance => "relevance",
            Self::Rating => "rating",
            Self::Updated => "updated",
            Self::Name => "name",
        }
    }
}

/// `skills publish [DIR|URL] [--visibility V] [--group G]… [--tag T]…`.
#[derive(Debug, Args)]
pub(crate) struct PublishArgs {
    /// The skill's folder (default: the current directory), or a SKILL.md's URL (a page of
    /// GitHub, GitLab, Bitbucket, a gist, or a raw URL) to register instead.
    #[arg(value_name = "DIR|URL")]
    pub(crate) source: Option<String>,

    /// Who may see it: public (every user of the registry), private (you), group. A new
    /// skill is public unless this says; a new version keeps the skill's unless this says.
    #[arg(long, value_enum)]
    pub(crate) visibility: Option<PublishVisibility>,

    /// A group that may see a `group` skill (repeatable; required for group).
    #[arg(long = "group", value_name = "GROUP")]
    pub(crate) groups: Vec<String>,

    /// A tag beside those of the skill's metadata.tags (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub(crate) tags: Vec<String>,

    #[command(flatten)]
    pub(crate) registry: RegistryClientArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PublishVisibility {
    /// Every user of the registry.
    Public,
    /// Only you (and admins).
    Private,
    /// The groups given with --group.
    Group,
}

/// `skills yank NAME@VERSION [--undo]`.
#[derive(Debug, Args)]
pub(crate) struct YankArgs {
    /// The skill and the version, NAME@VERSION.
    #[arg(value_name = "NAME@VERSION")]
    pub(crate) spec: String,

    /// Restore the yanked version.
    #[arg(long)]
    pub(crate) undo: bool,

    #[command(flatten)]
    pub(crate) registry: RegistryClientArgs,
}

/// `skills unpublish NAME@VERSION | NAME --all`.
#[derive(Debug, Args)]
pub(crate) struct UnpublishArgs {
    /// NAME@VERSION: that version; NAME with --all: the skill and every version.
    #[arg(value_name = "NAME[@VERSION]")]
    pub(crate) spec: String,

    /// Remove the skill itself, every version.
    #[arg(long)]
    pub(crate) all: bool,

    #[command(flatten)]
    pub(crate) registry: RegistryClientArgs,
}

/// `skills rate NAME STARS`.
#[derive(Debug, Args)]
pub(crate) struct RateArgs {
    /// The skill's name in the registry.
    pub(crate) name: String,

    /// 1 to 5.
    #[arg(value_parser = clap::value_parser!(u8).range(1..=5))]
    pub(crate) stars: u8,

    #[command(flatten)]
    pub(crate) registry: RegistryClientArgs,
}

/// `skills url URL [--format text|json]`.
#[derive(Debug, Args)]
pub(crate) struct UrlArgs {
    /// A GitHub, GitHub Enterprise, GitLab, Bitbucket or gist URL of a SKILL.md (blob) or of
    /// a skill directory (tree); raw URLs and other hosts are printed unchanged.
    pub(crate) url: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = UrlFormat::Text)]
    pub(crate) format: UrlFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UrlFormat {
    /// The raw URL alone.
    Text,
    /// input, raw, repository, host, reference, path and trusted (docs/url.md).
    Json,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use clap::CommandFactory;

    use super::Cli;

    /// Flags that give a `--format json` command a second document shape, with its schema.
    const JSON_VARIANTS: &[(&str, &str, &str)] = &[
        ("prompt", "stats", "prompt-stats"),
        ("lint", "statistics", "lint-statistics"),
        ("lint", "rules", "lint-rules"),
        ("audit", "rules", "audit-rules"),
    ];

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

    /// Every command and its subcommands, depth first.
    fn all_commands(cmd: &clap::Command) -> Vec<&clap::Command> {
        let mut out = vec![cmd];
        for sub in cmd.get_subcommands() {
            out.extend(all_commands(sub));
        }
        out
    }

    /// A long option has one short form, or none, wherever it exists (`-g` is `--global`
    /// in every command that has `--global`), and a short form means one long option.
    #[test]
    fn short_flags_are_the_same_everywhere() {
        let cmd = Cli::command();
        let mut shorts: std::collections::BTreeMap<String, BTreeSet<String>> =
            std::collections::BTreeMap::new();
        let mut longs: std::collections::BTreeMap<char, BTreeSet<String>> =
            std::collections::BTreeMap::new();
        for command in all_commands(&cmd) {
            for arg in command.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                let short = arg.get_short();
                shorts
                    .entry(long.to_string())
                    .or_default()
                    .insert(short.map(String::from).unwrap_or_default());
                if let Some(short) = short {
                    longs.entry(short).or_default().insert(long.to_string());
                }
            }
        }
        let mixed: Vec<_> = shorts.iter().filter(|(_, s)| s.len() > 1).collect();
        assert!(
            mixed.is_empty(),
            "long options with differing short forms: {mixed:?}"
        );
        let shared: Vec<_> = longs.iter().filter(|(_, l)| l.len() > 1).collect();
        assert!(
            shared.is_empty(),
            "short forms of several long options: {shared:?}"
        );
        assert!(shorts["global"].contains("g"));
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

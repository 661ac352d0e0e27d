//! `skills prompt router|NAME`: the progressive-disclosure prompts of seed 000.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use skills_discovery::{Index, Roots};
use skills_prompt::{Builtin, Context, Globals, PromptError};

use crate::list::display_path;
use crate::{Status, Ui, emit, fail};

/// `skills prompt` (wired into `cli::Command` as `Prompt`).
#[derive(Debug, Args)]
pub(crate) struct PromptArgs {
    /// `router` for the Level-1 prompt, or a skill's id for its Level-2 prompt.
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

    /// Print token estimates (bytes / 4) instead of the prompt: this prompt, Level 1, and
    /// every skill loaded in full.
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

pub(crate) fn run(args: &PromptArgs, roots: &Roots, ui: Ui) -> Status {
    match build(args, roots) {
        Ok(text) => match emit(&text) {
            Ok(()) | Err(Status::Success) => Status::Success,
            Err(s) => s,
        },
        Err(Failure::NotFound(name)) => {
            // As `skills show`: an unknown skill is exit 1, not a failed command.
            fail(
                ui,
                miette::Report::new(
                    miette::MietteDiagnostic::new(format!("skill `{name}` not found"))
                        .with_help("`skills list` shows the installed skills; `skills prompt router` renders the router"),
                ),
            );
            Status::Failure
        }
        Err(Failure::Prompt(e)) => fail_prompt(ui, &e),
    }
}

/// Reports a prompt error with a hint of where to look.
pub(crate) fn fail_prompt(ui: Ui, e: &PromptError) -> Status {
    fail(
        ui,
        miette::Report::new(miette::MietteDiagnostic::new(e.to_string()).with_help(help(e))),
    )
}

/// How to fix a prompt error.
pub(crate) fn help(e: &PromptError) -> &'static str {
    match e {
        PromptError::Template { .. } => "the template's variables are listed in docs/prompt.md",
        PromptError::Io { .. } => "check the path",
        _ => {
            "`skills lint` explains what is wrong with a skill's tools.json or resources.json; \
             --tools and --resources files are JSON arrays of MCP definitions (docs/prompt.md)"
        }
    }
}

/// The universal tools and global resources of `--tools` and `--resources`, checked for
/// names that clash with `view_skill` or each other.
pub(crate) fn load_globals(
    tools: Option<&Path>,
    resources: Option<&Path>,
) -> Result<Globals, PromptError> {
    let globals = Globals {
        tools: match tools {
            Some(p) => skills_prompt::load_tools(p)?,
            None => Vec::new(),
        },
        resources: match resources {
            Some(p) => skills_prompt::load_resources(p)?,
            None => Vec::new(),
        },
    };
    Context::router(&[], &globals)?;
    Ok(globals)
}

enum Failure {
    NotFound(String),
    Prompt(PromptError),
}

impl From<PromptError> for Failure {
    fn from(e: PromptError) -> Self {
        Failure::Prompt(e)
    }
}

fn build(args: &PromptArgs, roots: &Roots) -> Result<String, Failure> {
    let globals = load_globals(args.tools.as_deref(), args.resources.as_deref())?;
    let index = Index::scan(roots);
    let skills = index.skills();
    let (ctx, builtin) = if args.target == "router" {
        (Context::router(skills, &globals)?, Builtin::Router)
    } else {
        let skill = index
            .get(&args.target)
            .ok_or_else(|| Failure::NotFound(args.target.clone()))?;
        (Context::skill(skill, skills, &globals)?, Builtin::Skill)
    };
    if args.format == PromptFormat::Json && !args.stats {
        return Ok(to_json(&ctx));
    }
    let prompt = match &args.template {
        Some(path) => {
            let source = std::fs::read_to_string(path).map_err(|source| PromptError::Io {
                path: path.clone(),
                source,
            })?;
            let name = display_path(path);
            skills_prompt::render_template(&name, &source, &ctx)?
        }
        None => skills_prompt::render_builtin(builtin, &ctx)?,
    };
    if !args.stats {
        let newline = if prompt.ends_with('\n') { "" } else { "\n" };
        return Ok(prompt + newline);
    }
    let s = skills_prompt::stats(&prompt, skills, &globals)?;
    if args.format == PromptFormat::Json {
        return Ok(to_json(&s));
    }
    let which = match &ctx.skill {
        Some(skill) => format!("level 2 ({})", skill.name),
        None => "level 1 (router)".to_string(),
    };
    let mut out = format!("this prompt, {which}: ~{} tokens\n", s.prompt_tokens);
    out.push_str(&format!("level 1 (router): ~{} tokens\n", s.level1_tokens));
    out.push_str(&format!(
        "every skill in full ({} skills: bodies, tools, resources): ~{} tokens\n",
        s.skills, s.full_tokens
    ));
    out.push_str(&format!(
        "progressive disclosure saves ~{} tokens ({}%) until a skill is loaded\n",
        s.saved_tokens, s.saved_percent
    ));
    Ok(out)
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .map_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"), |s| s + "\n")
}

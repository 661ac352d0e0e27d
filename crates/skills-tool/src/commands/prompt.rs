//! `skills prompt router|NAME`: the progressive-disclosure prompts of seed 000.

use skills_discovery::{Index, Roots};
use skills_prompt::{Builtin, Context, Globals, PromptError};

use crate::args::{PromptArgs, PromptFormat};
use crate::errors;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render::display_path;

pub(crate) fn run(
    args: &PromptArgs,
    roots: &Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    match build(args, roots) {
        Ok(text) => {
            // As `skills show`: byte for byte into a pipe (the agent's prompt), and at a
            // terminal with the skill's control characters shown as escapes, not obeyed.
            if printer.stdout_is_terminal() {
                printer.out(&crate::render::terminal_safe(&text))?;
            } else {
                printer.out(&text)?;
            }
            Ok(ExitStatus::Success)
        }
        // As `skills show`: an unknown skill is exit 1, not a failed command, and a
        // skipped one says why it was skipped.
        Err(Failure::NotFound(name)) => Ok(crate::render::skills::not_found(&name, roots, printer)),
        Err(Failure::Prompt(e)) => Err(errors::prompt(&e).into()),
    }
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
    let globals = Globals::load(args.tools.as_deref(), args.resources.as_deref())?;
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

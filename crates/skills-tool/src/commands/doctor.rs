//! `skills doctor`: seed 004's tool inventory and, for each skill, the tool each domain it
//! needs will use here (`skills-doctor` does the work; this module reports).

use serde::Serialize;
use skills_discovery::{Index, Roots, Skill};
use skills_doctor::inventory::{self, Inventory};
use skills_doctor::{SkillReport, domains::Domain};

use crate::args::{DoctorArgs, ShowFormat};
use crate::errors::plain as error;
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::render;

/// Bumped on any incompatible change to the JSON below.
const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    inventory: &'a Inventory,
    skills: &'a [SkillReport],
}

/// The domain table: the built-in one with the nearest skills.toml's `[[doctor.domains]]`.
fn domains() -> Result<Vec<Domain>, miette::Report> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let (domains, _) = skills_doctor::domains::nearest(&cwd).map_err(|e| {
        error(
            e.to_string(),
            "each [[doctor.domains]] takes name, and mcp, cli (lists of names) and http (true or false); docs/doctor.md",
        )
    })?;
    Ok(domains)
}

/// Asks each configured server for its tools, one after the other, each within `timeout`.
fn probe(
    inventory: &mut Inventory,
    timeout: std::time::Duration,
    printer: &Printer,
) -> Result<(), miette::Report> {
    use skills_doctor::inventory::Transport;
    use skills_mcp_server::{ProbeTarget, probe_tools};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| error(format!("cannot start the async runtime: {e}"), ""))?;
    for server in &mut inventory.servers {
        let target = match &server.transport {
            Transport::Stdio { command, args } => ProbeTarget::Stdio { command, args },
            Transport::Http { url } => ProbeTarget::Http { url },
            _ => continue,
        };
        match runtime.block_on(probe_tools(target, timeout)) {
            Ok(tools) => server.tools = Some(tools),
            Err(e) => {
                printer.warn(&render::terminal_safe(&format!(
                    "MCP server `{}` ({}): {e}",
                    server.name,
                    render::relative(&server.file)
                )));
                server.probe_error = Some(e.to_string());
            }
        }
    }
    Ok(())
}

pub(crate) fn run(
    args: &DoctorArgs,
    roots: &Roots,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    let index = Index::scan(roots);
    let skills: Vec<&Skill> = if args.names.is_empty() {
        index.skills().iter().collect()
    } else {
        let mut chosen = Vec::new();
        for name in &args.names {
            let skill = index.get(name).ok_or_else(|| {
                let ids: Vec<&str> = index.skills().iter().map(|s| s.id.as_str()).collect();
                let hint = skills_core::suggest::closest(name, ids.iter().copied())
                    .first()
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                error(
                    format!("no skill named `{name}`"),
                    format!("{hint}`skills list` shows the skills found"),
                )
            })?;
            chosen.push(skill);
        }
        chosen
    };
    let domains = domains()?;
    let places = inventory::Places::here(super::install::project_root()?);
    let mut inventory = inventory::build(&places, &skills_doctor::commands(&domains));
    for problem in &inventory.problems {
        printer.warn(problem);
    }
    if args.probe {
        let timeout = std::time::Duration::from_secs(args.probe_timeout.max(1));
        probe(&mut inventory, timeout, printer)?;
        inventory::probe_versions(&mut inventory, timeout);
    }
    let mut reports = Vec::new();
    for skill in &skills {
        let text = std::fs::read_to_string(&skill.skill_md).map_err(|e| {
            error(
                format!("{}: {e}", render::relative(&skill.skill_md)),
                "check that the file is readable",
            )
        })?;
        // A flat NAME.md shares its directory with other skills: no scripts of its own.
        let flat = skill.skill_md.file_name().is_some_and(|n| n != "SKILL.md");
        let dir = (!flat).then_some(skill.dir.as_path());
        reports.push(skills_doctor::report(
            &skill.id,
            &skill.skill_md,
            dir,
            &text,
            &inventory,
            &domains,
        ));
    }
    match args.format {
        ShowFormat::Json => {
            let doc = Document {
                version: SCHEMA_VERSION,
                inventory: &inventory,
                skills: &reports,
            };
            let text = serde_json::to_string_pretty(&doc)
                .map_err(|e| error(e.to_string(), "report this bug"))?;
            printer.out(&format!("{text}\n"))?;
        }
        ShowFormat::Text => {
            // Names and paths come from files anyone can write: no escape sequence passes.
            printer.out(&render::terminal_safe(&inventory.summary()))?;
            for report in &reports {
                for line in report.lines() {
                    printer.out(&format!("{}\n", render::terminal_safe(&line)))?;
                }
            }
        }
    }
    Ok(if reports.iter().any(SkillReport::failed) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

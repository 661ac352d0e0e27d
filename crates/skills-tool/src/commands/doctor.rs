//! `skills doctor`: seed 004's tool inventory and, for each skill, the tool each domain it
//! needs will use here (`skills-doctor` does the work; this module reports).

use serde::Serialize;
use skills_discovery::{Index, Roots, Skill};
use skills_doctor::domains::Domain;
use skills_doctor::inventory::{self, Inventory};
use skills_doctor::needs::{self, Evidence};
use skills_doctor::resolve::{self, Kind, Resolution};

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
    skills: Vec<SkillItem<'a>>,
}

#[derive(Serialize)]
struct SkillItem<'a> {
    name: &'a str,
    path: &'a std::path::Path,
    domains: Vec<DomainItem<'a>>,
}

#[derive(Serialize)]
struct DomainItem<'a> {
    domain: &'a str,
    tool: Option<&'a str>,
    kind: Option<Kind>,
    fallback: bool,
    line: String,
    evidence: &'a [Evidence],
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
    let domains: Vec<Domain> = skills_doctor::domains::builtin();
    let project = super::install::project_root()?;
    let places = inventory::Places::here(project);
    let inventory = inventory::build(&places, &skills_doctor::commands(&domains));
    for problem in &inventory.problems {
        printer.warn(problem);
    }
    let mut results = Vec::new();
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
        let needs = needs::needs(&text, dir, &domains);
        let resolutions = resolve::resolve(&needs, &inventory, &domains);
        results.push((*skill, needs, resolutions));
    }
    let failed = results
        .iter()
        .any(|(_, _, rs)| rs.iter().any(|r| r.using.is_none()));
    match args.format {
        ShowFormat::Json => {
            let doc = Document {
                version: SCHEMA_VERSION,
                inventory: &inventory,
                skills: results
                    .iter()
                    .map(|(skill, needs, rs)| SkillItem {
                        name: &skill.id,
                        path: &skill.skill_md,
                        domains: rs.iter().map(|r| item(skill, needs, r, &domains)).collect(),
                    })
                    .collect(),
            };
            let text = serde_json::to_string_pretty(&doc)
                .map_err(|e| error(e.to_string(), "report this bug"))?;
            printer.out(&format!("{text}\n"))?;
        }
        ShowFormat::Text => {
            printer.out(&summary(&inventory))?;
            for (skill, _, rs) in &results {
                if rs.is_empty() {
                    printer.out(&format!(
                        "[skill:{}] needs no tool of a known domain\n",
                        skill.id
                    ))?;
                }
                for r in rs {
                    let line = r.line(&skill.id, &domains);
                    printer.out(&format!("{}\n", render::terminal_safe(&line)))?;
                }
            }
        }
    }
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

fn item<'a>(
    skill: &Skill,
    needs: &'a needs::Needs,
    r: &'a Resolution,
    domains: &[Domain],
) -> DomainItem<'a> {
    DomainItem {
        domain: &r.domain,
        tool: r.using.as_ref().map(|(t, _)| t.as_str()),
        kind: r.using.as_ref().map(|(_, k)| *k),
        fallback: r.fallback,
        line: r.line(&skill.id, domains),
        evidence: needs.domains.get(&r.domain).map_or(&[], Vec::as_slice),
    }
}

/// The inventory in two lines: servers (and the agent whose file has each), then CLIs.
fn summary(inventory: &Inventory) -> String {
    let servers: Vec<String> = inventory
        .servers
        .iter()
        .map(|s| format!("{} ({})", s.name, s.agent))
        .collect();
    let clis: Vec<&str> = inventory.clis.keys().map(String::as_str).collect();
    let none = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    format!(
        "MCP servers: {}\nCLIs: {}\n",
        render::terminal_safe(&none(&servers)),
        if clis.is_empty() {
            "none".to_string()
        } else {
            clis.join(", ")
        }
    )
}

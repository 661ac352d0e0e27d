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

/// Which of the project's configuration files may have their servers started: those the
/// user trusted (now, with `--trust-project`, or before, unchanged since). Says once per
/// file what is not started and how to allow it.
fn trusted_files(
    inventory: &Inventory,
    trust_now: bool,
    printer: &Printer,
) -> Result<Vec<std::path::PathBuf>, miette::Report> {
    use skills_doctor::trust::{self, Trust, Trusted};
    let mut files: Vec<&std::path::Path> = inventory
        .servers
        .iter()
        .filter(|s| s.project)
        .map(|s| s.file.as_path())
        .collect();
    files.sort();
    files.dedup();
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let home = std::env::home_dir()
        .filter(|h| !h.as_os_str().is_empty())
        .ok_or_else(|| error("no home directory", "set HOME"))?;
    let store = trust::default_path(&home);
    let mut trusted = Trusted::load(&store).map_err(|e| {
        error(
            e.to_string(),
            "delete the file to forget every trust decision, then trust again",
        )
    })?;
    let mut out = Vec::new();
    for file in files {
        if trust_now {
            trusted.trust(file).map_err(|e| error(e.to_string(), ""))?;
            out.push(file.to_path_buf());
            continue;
        }
        match trusted.check(file) {
            Trust::Trusted => out.push(file.to_path_buf()),
            state => printer.warn(&render::terminal_safe(&format!(
                "{}: its MCP servers were not started: the file comes with the project and you {}; read it, then run `skills doctor --probe --trust-project` to trust it as it is",
                render::relative(file),
                if state == Trust::Changed {
                    "trusted an earlier version of it"
                } else {
                    "have not trusted it"
                }
            ))),
        }
    }
    if trust_now {
        trusted
            .save()
            .map_err(|e| error(e.to_string(), "check that your state directory is writable"))?;
    }
    Ok(out)
}

/// Asks each configured server for its tools, one after the other, each within `timeout`;
/// a project's server only when its file is in `trusted`.
fn probe(
    inventory: &mut Inventory,
    trusted: &[std::path::PathBuf],
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
        if server.project && !trusted.contains(&server.file) {
            server.not_started = Some(
                "configured by the project, whose file you have not trusted (--trust-project)"
                    .to_string(),
            );
            continue;
        }
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
    let project = crate::settings::project_root()?;
    let places = inventory::Places::here(project.clone());
    let mut inventory = inventory::build(&places, &skills_doctor::commands(&domains));
    for problem in &inventory.problems {
        printer.warn(problem);
    }
    if args.probe {
        let timeout = std::time::Duration::from_secs(args.probe_timeout.max(1));
        let trusted = trusted_files(&inventory, args.trust_project, printer)?;
        probe(&mut inventory, &trusted, timeout, printer)?;
        // A command found inside the project (its folder on PATH, as direnv's `PATH_add`
        // puts it) is the repository's code: run only when the project is trusted, as its
        // `.mcp.json` servers are.
        let held: Vec<(String, inventory::Cli)> = if args.trust_project {
            Vec::new()
        } else {
            let inside = |path: &std::path::Path| {
                let real = |p: &std::path::Path| std::fs::canonicalize(p).ok();
                real(path)
                    .zip(real(&project))
                    .is_some_and(|(cli, project)| cli.starts_with(project))
            };
            let names: Vec<String> = inventory
                .clis
                .iter()
                .filter(|(_, cli)| inside(&cli.path))
                .map(|(name, _)| name.clone())
                .collect();
            names
                .into_iter()
                .filter_map(|name| inventory.clis.remove_entry(&name))
                .collect()
        };
        inventory::probe_versions(&mut inventory, timeout);
        for (name, cli) in held {
            printer.warn(&render::terminal_safe(&format!(
                "`{name}` is the project's own ({}): not run for its version (--trust-project runs it)",
                render::relative(&cli.path)
            )));
            inventory.clis.insert(name, cli);
        }
    }
    let mut reports = Vec::new();
    for skill in &skills {
        let text = skills_core::read_bounded(&skill.skill_md, skills_frontmatter::MAX_FILE_BYTES)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .map_err(|e| {
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

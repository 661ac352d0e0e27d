//! `skills search`, `skills publish`, `skills rate`: the registry's API from the command
//! line (`crate::registry_client` finds the registry and turns its problems into our
//! errors).

use serde_json::{Value, json};

use crate::args::{
    PublishArgs, PublishVisibility, RateArgs, SearchArgs, ShowFormat, UnpublishArgs, YankArgs,
};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::registry_client::{Client, encode};
use crate::render;
use crate::render::cells;

pub(crate) fn search(args: &SearchArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let mut path = format!(
        "/api/skills?view=card&limit={}&sort={}",
        args.limit,
        args.sort.as_str()
    );
    if !args.query.trim().is_empty() {
        path.push_str(&format!("&q={}", encode(args.query.trim())));
    }
    if let Some(tag) = &args.tag {
        path.push_str(&format!("&tag={}", encode(tag)));
    }
    let page = client.json("GET", &path, None)?;
    let skills = page
        .get("skills")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if args.format == ShowFormat::Json {
        let text = serde_json::to_string_pretty(&Value::Array(skills))
            .map_err(|e| crate::errors::plain(e.to_string(), ""))?;
        printer.out(&format!("{text}\n"))?;
        return Ok(ExitStatus::Success);
    }
    let query = args.query.trim();
    // What was looked for, and where: the words are searched in names, descriptions, tags
    // and instructions (docs/registry.md).
    let asked = match (query.is_empty(), &args.tag) {
        (true, None) => String::new(),
        (false, None) => format!(" matching `{query}`"),
        (true, Some(tag)) => format!(" tagged `{tag}`"),
        (false, Some(tag)) => format!(" tagged `{tag}` matching `{query}`"),
    };
    let asked = render::terminal_safe(&asked);
    if skills.is_empty() {
        printer.status(&format!("no skills{asked} in {}\n", client.base()));
        return Ok(ExitStatus::Success);
    }
    printer.out(&table(&skills, printer.ui().width))?;
    // A registry older than the count says nothing of it: what came is what there is,
    // unless there is a next page.
    let total = page
        .get("total")
        .and_then(Value::as_u64)
        .and_then(|t| usize::try_from(t).ok());
    let more = page.get("next_cursor").is_some_and(|c| !c.is_null());
    match total {
        Some(total) if total > skills.len() => printer.note(&format!(
            "{} of {}{asked} in {}; narrow the search or raise --limit",
            skills.len(),
            render::human::plural(total, "skill"),
            client.base()
        )),
        None if more => printer.note(&format!(
            "more than {} skills{asked} in {}; narrow the search or raise --limit",
            args.limit,
            client.base()
        )),
        _ => printer.status(&format!(
            "{}{asked} in {}\n",
            render::human::plural(skills.len(), "skill"),
            client.base()
        )),
    }
    Ok(ExitStatus::Success)
}

/// The widest the tags column gets before it is cut: the description needs the room more.
const MAX_TAGS_WIDTH: usize = 24;

/// The widest the name column gets while the description has less than
/// [`MIN_DESCRIPTION_WIDTH`].
const MIN_NAME_WIDTH: usize = 16;

/// The narrowest the description is cut to, while the other columns can give room.
const MIN_DESCRIPTION_WIDTH: usize = 20;

/// What the stars column shows for a skill nobody rated.
const UNRATED: &str = "\u{2013}";

/// A header, then one line per skill: name, stars (`–` when nobody rated it), tags, and
/// the description's first line, each line within `width` (display cells, so wide
/// characters count double): the description is cut first, down to
/// [`MIN_DESCRIPTION_WIDTH`], then the tags, then the name; past that the description
/// takes what is left. Each cell is made safe for a terminal: a registry's text is
/// someone else's.
fn table(skills: &[Value], width: usize) -> String {
    let text = |s: &Value, key: &str| {
        let raw = render::terminal_safe(s.get(key).and_then(Value::as_str).unwrap_or_default());
        cells::one_line(&raw).replace(['\n', '\r'], " ")
    };
    let rows: Vec<[String; 4]> = skills
        .iter()
        .map(|s| {
            let stars = s.get("num_stars").and_then(Value::as_f64).unwrap_or(0.0);
            let tags: Vec<String> = s
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let tags = render::terminal_safe(&tags.join(",")).replace(['\n', '\r', '\t'], " ");
            [
                text(s, "name"),
                // Ratings are 1 to 5: an average of 0 is nobody's.
                if stars > 0.0 {
                    format!("{stars:.1}")
                } else {
                    UNRATED.to_string()
                },
                cells::cut_end(&tags, MAX_TAGS_WIDTH).into_owned(),
                text(s, "description"),
            ]
        })
        .collect();
    let header = ["NAME", "STARS", "TAGS", "DESCRIPTION"].map(String::from);
    let column = |i: usize| {
        std::iter::once(&header)
            .chain(&rows)
            .map(|r| r.get(i).map_or(0, |c| cells::width(c)))
            .max()
            .unwrap_or(0)
    };
    let (mut name_w, stars_w, mut tags_w) = (column(0), column(1), column(2));
    let gaps = 6;
    let room =
        |name_w: usize, tags_w: usize| width.saturating_sub(name_w + stars_w + tags_w + gaps);
    // How many columns short the description is of its least.
    let short = |name_w: usize, tags_w: usize| {
        (name_w + stars_w + tags_w + gaps + MIN_DESCRIPTION_WIDTH).saturating_sub(width)
    };
    // Tags, then the name, give room until the description has its least.
    tags_w = tags_w
        .saturating_sub(short(name_w, tags_w))
        .max(cells::width("TAGS"));
    if name_w > MIN_NAME_WIDTH {
        name_w = name_w
            .saturating_sub(short(name_w, tags_w))
            .max(MIN_NAME_WIDTH);
    }
    let desc_w = room(name_w, tags_w);
    let mut out = String::new();
    for [name, stars, tags, description] in std::iter::once(&header).chain(&rows) {
        let stars = format!(
            "{}{stars}",
            " ".repeat(stars_w.saturating_sub(cells::width(stars)))
        );
        let line = format!(
            "{}  {stars}  {}  {}",
            cells::pad(&cells::cut_end(name, name_w), name_w),
            cells::pad(&cells::cut_end(tags, tags_w), tags_w),
            cells::cut_end(description, desc_w)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn visibility_name(visibility: PublishVisibility) -> &'static str {
    match visibility {
        PublishVisibility::Public => "public",
        PublishVisibility::Private => "private",
        PublishVisibility::Group => "group",
    }
}

pub(crate) fn publish(args: &PublishArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let source = args.source.as_deref().unwrap_or(".");
    let lower = source.to_ascii_lowercase();
    // A URL (or what a URL pasted without its scheme is) is registered; anything else is a
    // folder to publish.
    if lower.starts_with("https://")
        || lower.starts_with("http://")
        || (!std::path::Path::new(source).exists() && skills_add::pasted_url(source).is_some())
    {
        return register(args, source, printer);
    }
    publish_dir(args, std::path::Path::new(source), printer)
}

/// `skills publish URL`: the registry fetches the `SKILL.md` and keeps it.
fn register(args: &PublishArgs, url: &str, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let mut body = serde_json::Map::new();
    body.insert("skill_md_url".into(), json!(url));
    body.insert(
        "visibility".into(),
        json!(visibility_name(
            args.visibility.unwrap_or(PublishVisibility::Public)
        )),
    );
    if !args.groups.is_empty() {
        body.insert("allowed_groups".into(), json!(args.groups));
    }
    if !args.tags.is_empty() {
        body.insert("tags".into(), json!(args.tags));
    }
    let body = Value::Object(body);
    let asked = match skill_of_url(url) {
        Some(name) => format!("cannot publish `{name}` ({url})"),
        None => format!("cannot publish {url}"),
    };
    let card = client.json_about(
        "POST",
        "/api/skills",
        Some(&body),
        Some(&render::terminal_safe(&asked)),
    )?;
    let name = card.get("name").and_then(Value::as_str).unwrap_or_default();
    printer.out(&format!(
        "published {} -> {}/api/skills/{}\n",
        render::terminal_safe(name),
        client.base(),
        encode(name)
    ))?;
    Ok(ExitStatus::Success)
}

/// The audit before a publication (docs/audit.md): the findings at or above high refuse
/// it, as the registry's `audit_refuse_at` would, with the project's `[audit]` allow
/// entries and the skill's own reasoned markers honoured (the one publishing is its author).
/// `true` when it may go on.
fn audit(dir: &std::path::Path, printer: &Printer) -> Result<bool, Error> {
    let config = crate::risk::config(Some(dir))?;
    let report = skills_audit::Auditor::new(config)
        .audit_dir(dir)
        .map_err(|e| crate::errors::plain(e.to_string(), "check that the folder is readable"))?;
    let risky: Vec<&skills_audit::Finding> =
        report.at_least(skills_audit::Severity::High).collect();
    if risky.is_empty() {
        printer.detail(&format!(
            "{}: audited, {} finding(s), none at or above high\n",
            render::relative(dir),
            report.findings.len()
        ));
        return Ok(true);
    }
    let mut text = String::new();
    for f in &risky {
        text.push_str(&format!(
            "  {}:{}:{} {} {}: {}\n",
            render::terminal_safe(&f.path),
            f.line,
            f.column,
            f.severity,
            f.rule,
            render::terminal_safe(&f.message)
        ));
    }
    printer.err(&format!(
        "error: {} not published: the audit found {} finding(s) at or above high\n{text}  = help: fix them, or suppress each with a reason (docs/audit.md, \"Suppressions\"); `skills audit {}` explains them\n",
        render::relative(dir),
        risky.len(),
        render::relative(dir)
    ));
    Ok(false)
}

/// `skills publish DIR`: lint the skill as `skills lint` would (its errors refuse it, exit
/// 1), audit it (see [`audit`]), package it as `skills package` does, and upload the
/// archive; the registry says which version that is.
fn publish_dir(
    args: &PublishArgs,
    dir: &std::path::Path,
    printer: &Printer,
) -> Result<ExitStatus, Error> {
    if !dir.join(skills_core::layout::SKILL_MD).is_file() {
        return Err(crate::errors::plain(
            format!("{}: not a skill folder (no SKILL.md)", render::relative(dir)),
            "run it in the skill's folder, or name the folder (`skills publish path/to/skill`); to register a SKILL.md that lives elsewhere, give its URL",
        )
        .into());
    }
    let client = Client::required(args.registry.registry.as_deref())?;
    let config = skills_lint::Config::discover(dir).map_err(crate::errors::config)?;
    let report = skills_lint::Linter::new(config)
        .lint_paths(&[dir.to_path_buf()])
        .map_err(|e| crate::errors::plain(e.to_string(), "pass the skill's folder"))?;
    if report.errors() > 0 {
        printer.err(&render::human::report(printer.ui(), &report, false));
        printer.err(&format!(
            "error: {} not published: the skill has lint errors\n",
            render::relative(dir)
        ));
        return Ok(ExitStatus::Failure);
    }
    if !audit(dir, printer)? {
        return Ok(ExitStatus::Failure);
    }
    let temp = tempfile::tempdir().map_err(|e| {
        crate::errors::plain(
            format!("cannot create a temporary directory: {e}"),
            "check TMPDIR",
        )
    })?;
    let options = skills_package::Options {
        mtime: skills_package::source_date_epoch(),
        ..skills_package::Options::default()
    };
    let packaged = skills_package::package(dir, temp.path(), &options)
        .map_err(|e| crate::errors::package(&e))?;
    for warning in render::skills::skipped_files(&packaged.id, &packaged.skipped) {
        printer.warn(&warning);
    }
    let archive = std::fs::read(&packaged.archive).map_err(|e| {
        crate::errors::plain(
            format!("{}: {e}", packaged.archive.display()),
            "check TMPDIR",
        )
    })?;
    let mut path = format!("/api/skills/{}/versions", encode(&packaged.id));
    let mut query = Vec::new();
    if let Some(visibility) = args.visibility {
        query.push(format!("visibility={}", visibility_name(visibility)));
    }
    if !args.groups.is_empty() {
        query.push(format!("groups={}", encode(&args.groups.join(","))));
    }
    if !args.tags.is_empty() {
        query.push(format!("tags={}", encode(&args.tags.join(","))));
    }
    if !query.is_empty() {
        path = format!("{path}?{}", query.join("&"));
    }
    let asked = format!(
        "cannot publish `{}` ({})",
        packaged.id,
        render::relative(dir)
    );
    let (status, published) = client.upload(&path, &archive, &render::terminal_safe(&asked))?;
    let text = |key: &str| {
        render::terminal_safe(
            published
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )
    };
    let files = published
        .get("files")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let (name, version) = (text("name"), text("version"));
    if status == 201 {
        printer.out(&format!(
            "published {name}@{version} ({}, {}) -> {}/api/skills/{}/versions/{}\n",
            render::human::plural(files, "file"),
            text("digest"),
            client.base(),
            encode(&name),
            encode(&version)
        ))?;
    } else {
        printer.out(&format!(
            "{name}@{version} is up to date: its files are the ones published ({})\n",
            text("digest")
        ))?;
    }
    Ok(ExitStatus::Success)
}

/// `NAME@VERSION` split, or an error that says the form.
fn name_at_version<'a>(spec: &'a str, command: &str) -> Result<(&'a str, &'a str), Error> {
    match crate::registry_client::split_version(spec) {
        (name, Some(version)) if !name.is_empty() && crate::registry_client::is_version(version) => {
            Ok((name, version))
        }
        _ => Err(crate::errors::plain(
            format!("`{}` is not NAME@VERSION", render::terminal_safe(spec)),
            format!("name the skill and the version: `skills {command} pdf@1.2.0`; `skills search` and the registry's /api/skills/NAME/versions list them"),
        )
        .into()),
    }
}

pub(crate) fn yank(args: &YankArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let (name, version) = name_at_version(&args.spec, "yank")?;
    let client = Client::required(args.registry.registry.as_deref())?;
    let path = format!(
        "/api/skills/{}/versions/{}/yank",
        encode(name),
        encode(version)
    );
    let (method, done) = if args.undo {
        ("DELETE", "restored")
    } else {
        ("PUT", "yanked")
    };
    let asked = format!("cannot yank {name}@{version}");
    if method == "DELETE" {
        client.delete(&path, &render::terminal_safe(&asked))?;
    } else {
        client.json_about("PUT", &path, None, Some(&render::terminal_safe(&asked)))?;
    }
    let after = if args.undo {
        "it is a candidate for the latest again"
    } else {
        "the latest skips it; NAME@VERSION and skills.lock still install it"
    };
    printer.out(&format!(
        "{done} {}@{}: {after}\n",
        render::terminal_safe(name),
        render::terminal_safe(version)
    ))?;
    Ok(ExitStatus::Success)
}

pub(crate) fn unpublish(args: &UnpublishArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let (name, version) = crate::registry_client::split_version(&args.spec);
    match (version, args.all) {
        (Some(_), _) => {
            let (name, version) = name_at_version(&args.spec, "unpublish")?;
            let path = format!("/api/skills/{}/versions/{}", encode(name), encode(version));
            client.delete(
                &path,
                &render::terminal_safe(&format!("cannot unpublish {name}@{version}")),
            )?;
            printer.out(&format!(
                "unpublished {}@{}\n",
                render::terminal_safe(name),
                render::terminal_safe(version)
            ))?;
        }
        (None, true) => {
            let path = format!("/api/skills/{}", encode(name));
            client.delete(
                &path,
                &render::terminal_safe(&format!("cannot unpublish {name}")),
            )?;
            printer.out(&format!(
                "unpublished {} and every version of it\n",
                render::terminal_safe(name)
            ))?;
        }
        (None, false) => {
            return Err(crate::errors::plain(
                format!("`{}` names no version", render::terminal_safe(name)),
                format!("`skills unpublish {name}@VERSION` removes one version; `skills unpublish {name} --all` removes the skill; `skills yank {name}@VERSION` only hides a version from the latest"),
            )
            .into());
        }
    }
    Ok(ExitStatus::Success)
}

pub(crate) fn rate(args: &RateArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let path = format!("/api/skills/{}/rate", encode(&args.name));
    let rating = client.json("POST", &path, Some(&json!({"rating": args.stars})))?;
    let average = rating
        .get("num_stars")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let count = rating
        .get("rating_details")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    printer.out(&format!(
        "rated {} {} star(s); now {average:.2} from {}\n",
        render::terminal_safe(&args.name),
        args.stars,
        render::human::plural(count, "rating")
    ))?;
    Ok(ExitStatus::Success)
}

/// The skill a `SKILL.md` URL is of: the name of the directory the file is in
/// (`…/blob/main/pdf/SKILL.md` is `pdf`), as the registry names it. `None` for a URL that
/// does not end in `SKILL.md`.
fn skill_of_url(url: &str) -> Option<&str> {
    let url = url.split(['?', '#']).next()?;
    // The path, after the scheme and the host.
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.split_once('/')?.1,
        None => url,
    };
    let mut segments = path.trim_end_matches('/').rsplit('/');
    let file = segments.next()?;
    if !file.eq_ignore_ascii_case("SKILL.md") {
        return None;
    }
    segments.next().filter(|dir| !dir.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{skill_of_url, table};
    use serde_json::json;

    #[test]
    fn the_skill_of_a_skill_md_url() {
        assert_eq!(
            skill_of_url("https://github.com/acme/skills/blob/main/pdf/SKILL.md"),
            Some("pdf")
        );
        assert_eq!(
            skill_of_url("https://raw.githubusercontent.com/a/b/main/x/forms/SKILL.md?token=1"),
            Some("forms")
        );
        assert_eq!(skill_of_url("https://example.com/README.md"), None);
        assert_eq!(skill_of_url("https://example.com/SKILL.md"), None);
    }

    /// A header, `–` for a skill nobody rated (it said `0.0`), and descriptions cut to the
    /// width in display cells (they ran on past it).
    #[test]
    fn a_header_no_zero_stars_and_the_width_kept() {
        let skills = [
            json!({"name": "pdf", "num_stars": 4.5, "tags": ["docs"], "description": "Fill PDF forms and extract their text. Use when the user has a PDF form to fill or a PDF to read."}),
            json!({"name": "report-writer", "num_stars": 0.0, "tags": [], "description": "報告書を書く。ユーザーが報告書を求めるときに使う。表、グラフ、要約を含む長い説明がここに続きます。"}),
        ];
        for width in [60, 80, 100] {
            let text = table(&skills, width);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 3, "{text}");
            assert!(lines[0].starts_with("NAME "), "{text}");
            assert!(lines[0].contains("STARS") && lines[0].ends_with("DESCRIPTION"));
            assert!(
                lines[1].starts_with("pdf              4.5  docs  Fill"),
                "{text}"
            );
            assert!(
                lines[2].starts_with("report-writer      –        報告書"),
                "{text}"
            );
            for line in &lines {
                let cells = unicode_width::UnicodeWidthStr::width(*line);
                assert!(cells <= width, "{width}: {cells} cells: {line}");
            }
            assert!(lines[1].ends_with('…') && lines[2].ends_with('…'), "{text}");
        }
    }

    /// A long name and many tags give room to the description before a line passes the
    /// terminal's edge (the name and tags were never cut: 40 columns made 90-column lines).
    #[test]
    fn narrow_terminals_cut_tags_then_names() {
        let skills = [
            json!({"name": "internal-quarterly-financial-report-writer", "num_stars": 3.0,
            "tags": ["finance", "reports", "quarterly", "internal"],
            "description": "Write the quarterly report. Use when the quarter closes."}),
        ];
        for width in [40, 50, 60] {
            let text = table(&skills, width);
            for line in text.lines() {
                let cells = unicode_width::UnicodeWidthStr::width(line);
                assert!(cells <= width, "{width}: {cells} cells: {line}");
            }
            assert!(text.lines().nth(1).unwrap().contains("3.0"), "{text}");
            assert!(text.contains("Wr"), "{width}: {text}");
        }
    }
}

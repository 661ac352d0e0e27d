//! `skills search`, `skills publish`, `skills rate`: the registry's API from the command
//! line (`crate::registry_client` finds the registry and turns its problems into our
//! errors).

use serde_json::{Value, json};

use crate::args::{PublishArgs, PublishVisibility, RateArgs, SearchArgs, ShowFormat};
use crate::exit::{Error, ExitStatus};
use crate::printer::Printer;
use crate::registry_client::{Client, encode};
use crate::render;

pub(crate) fn search(args: &SearchArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let mut path = format!("/api/skills?view=card&limit={}", args.limit);
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
    if skills.is_empty() {
        printer.status(&format!("no skills found in {}\n", client.base()));
        return Ok(ExitStatus::Success);
    }
    printer.out(&table(&skills))?;
    if page.get("next_cursor").is_some_and(|c| !c.is_null()) {
        printer.note(&format!(
            "more than {} skills match; narrow the search or raise --limit",
            args.limit
        ));
    }
    Ok(ExitStatus::Success)
}

/// One line per skill: name, stars, tags, description; each cell made safe for a terminal
/// (a registry's text is someone else's).
fn table(skills: &[Value]) -> String {
    let text = |s: &Value, key: &str| {
        render::terminal_safe(s.get(key).and_then(Value::as_str).unwrap_or_default())
            .replace(['\n', '\r', '\t'], " ")
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
            [
                text(s, "name"),
                format!("{stars:.1}"),
                render::terminal_safe(&tags.join(",")).into_owned(),
                text(s, "description"),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let (name_w, stars_w, tags_w) = (width(0), width(1), width(2));
    let mut out = String::new();
    for [name, stars, tags, description] in &rows {
        out.push_str(&format!(
            "{name:<name_w$}  {stars:>stars_w$}  {tags:<tags_w$}  {description}\n"
        ));
    }
    out
}

pub(crate) fn publish(args: &PublishArgs, printer: &Printer) -> Result<ExitStatus, Error> {
    let client = Client::required(args.registry.registry.as_deref())?;
    let visibility = match args.visibility {
        PublishVisibility::Public => "public",
        PublishVisibility::Private => "private",
        PublishVisibility::Group => "group",
    };
    let mut body = serde_json::Map::new();
    body.insert("skill_md_url".into(), json!(args.url));
    body.insert("visibility".into(), json!(visibility));
    if !args.groups.is_empty() {
        body.insert("allowed_groups".into(), json!(args.groups));
    }
    if !args.tags.is_empty() {
        body.insert("tags".into(), json!(args.tags));
    }
    let body = Value::Object(body);
    let card = client.json("POST", "/api/skills", Some(&body))?;
    let name = card.get("name").and_then(Value::as_str).unwrap_or_default();
    printer.out(&format!(
        "published {} -> {}/api/skills/{}\n",
        render::terminal_safe(name),
        client.base(),
        encode(name)
    ))?;
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

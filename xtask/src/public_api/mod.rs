//! `cargo xtask public-api [--bless]`: the public API of each library crate, one item per
//! line, compared with `docs/public-api/<crate>.txt` (or written there with `--bless`).
//!
//! The API comes from rustdoc's JSON output. That output is unstable, so it is asked of the
//! pinned stable toolchain with `RUSTC_BOOTSTRAP=1`: no nightly, no network, and the JSON
//! format cannot change under us until `rust-toolchain.toml` does (a toolchain bump may then
//! change how some lines are written; re-bless and read the diff). The listing is our own
//! rendering of that JSON: every public module, type, field, variant, function, method,
//! constant, static, trait and re-export with its signature, plus one `impl Trait for Type`
//! line per trait implemented by the crate (auto traits and blanket impls left out), sorted.

// `value["key"]` on a serde_json `Value` never panics (a missing key reads as `null`), and
// rustdoc's JSON is read that way throughout.
#![allow(clippy::indexing_slicing)]

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{cargo, run_checked, workspace_root};

/// The library crates, in the order they are published (dependencies first). `skills-tool`
/// (the command, whose library is `run`) comes last; its API is checked too.
pub(crate) const LIBRARIES: &[&str] = &[
    "skills-core",
    "skills-frontmatter",
    "skills-url",
    "skills-export",
    "skills-package",
    "skills-lint",
    "skills-discovery",
    "skills-prompt",
    "skills-mcp-server",
];

pub(crate) fn run(args: &[String]) -> Result<()> {
    let bless = match args {
        [] => false,
        [flag] if flag == "--bless" => true,
        [other, ..] => bail!("unknown argument `{other}` (expected --bless)"),
    };
    let dir = workspace_root().join("docs/public-api");
    let mut stale = Vec::new();
    let crates = crate::package_check::published();
    for krate in &crates {
        let listing = listing(krate)?;
        let file = dir.join(format!("{krate}.txt"));
        if bless {
            std::fs::create_dir_all(&dir)?;
            std::fs::write(&file, &listing)
                .with_context(|| format!("cannot write {}", file.display()))?;
            continue;
        }
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        if committed != listing {
            print_diff(krate, &committed, &listing);
            stale.push(*krate);
        }
    }
    if !stale.is_empty() {
        bail!(
            "the public API of {} changed; if that is intended, run `cargo xtask public-api \
             --bless` and commit docs/public-api/ (and mind semver)",
            stale.join(", ")
        );
    }
    eprintln!(
        "public API: {} crates {}",
        crates.len(),
        if bless { "written" } else { "unchanged" }
    );
    Ok(())
}

/// Lines only in one of the two listings, `-` committed, `+` current.
fn print_diff(krate: &str, committed: &str, current: &str) {
    let old: BTreeSet<&str> = committed.lines().collect();
    let new: BTreeSet<&str> = current.lines().collect();
    eprintln!("public API of {krate} differs from docs/public-api/{krate}.txt:");
    for line in old.difference(&new) {
        eprintln!("  - {line}");
    }
    for line in new.difference(&old) {
        eprintln!("  + {line}");
    }
}

/// Runs rustdoc's JSON output for `krate` and renders it.
fn listing(krate: &str) -> Result<String> {
    let target = workspace_root().join("target/public-api");
    run_checked(
        cargo(["rustdoc", "-q", "--lib", "-p", krate, "--target-dir"])
            .arg(&target)
            .args(["--", "-Z", "unstable-options", "--output-format", "json"])
            .env("RUSTC_BOOTSTRAP", "1")
            .env_remove("RUSTDOCFLAGS"),
    )?;
    let file: PathBuf = target
        .join("doc")
        .join(format!("{}.json", krate.replace('-', "_")));
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let doc: Value = serde_json::from_str(&text).context("rustdoc JSON")?;
    render(&doc, krate)
}

/// Renders the crate of a rustdoc JSON document as sorted lines.
pub(crate) fn render(doc: &Value, krate: &str) -> Result<String> {
    let mut api = Api {
        index: doc.get("index").context("no index")?,
        paths: doc.get("paths").context("no paths")?,
        public: HashMap::new(),
    };
    let root = id_of(doc.get("root").context("no root")?);
    let name = krate.replace('-', "_");
    // First the path at which each item of this crate is public (a type defined in a private
    // module and re-exported at the root is named by the root's path), then the listing.
    let mut public = HashMap::new();
    api.public_paths(&root, &name, &mut public, 0);
    api.public = public;
    let mut lines = BTreeSet::new();
    api.module(&root, &name, &mut lines, 0);
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// An item id as an index key.
fn id_of(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

struct Api<'a> {
    index: &'a Value,
    paths: &'a Value,
    /// Item id -> the path it is public at, where the walk from the root reaches it.
    public: HashMap<String, String>,
}

impl Api<'_> {
    fn item(&self, id: &str) -> Option<&Value> {
        self.index.get(id)
    }

    /// Fills `out` with the first public path of every item reachable from module `id`.
    fn public_paths(&self, id: &str, path: &str, out: &mut HashMap<String, String>, depth: usize) {
        let items = self
            .item(id)
            .and_then(|m| m.pointer("/inner/module/items"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for child in items {
            let mut cid = id_of(&child);
            let Some(item) = self.item(&cid) else {
                continue;
            };
            let mut name = str_at(item, "/name").to_string();
            if let Some(u) = item.pointer("/inner/use") {
                if u.get("is_glob").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                cid = u.get("id").map(id_of).unwrap_or_default();
                name = str_at(u, "/name").to_string();
            }
            let full = format!("{path}::{name}");
            if self
                .item(&cid)
                .and_then(|i| i.pointer("/inner/module"))
                .is_some()
            {
                if depth < 8 {
                    self.public_paths(&cid, &full, out, depth + 1);
                }
            } else {
                out.entry(cid).or_insert(full);
            }
        }
    }

    /// Every public item of the module `id`, at `path`.
    fn module(&self, id: &str, path: &str, out: &mut BTreeSet<String>, depth: usize) {
        let Some(module) = self.item(id) else { return };
        if depth > 0 {
            out.insert(format!("pub mod {path}"));
        }
        let items = module
            .pointer("/inner/module/items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for child in items {
            self.entry(&id_of(&child), path, None, out, depth);
        }
    }

    /// One item of a module at `path`; `rename` is the name a re-export gives it.
    fn entry(
        &self,
        id: &str,
        path: &str,
        rename: Option<&str>,
        out: &mut BTreeSet<String>,
        depth: usize,
    ) {
        let Some(item) = self.item(id) else { return };
        if item.get("visibility").and_then(Value::as_str) != Some("public") {
            return;
        }
        let name = rename.unwrap_or_else(|| str_at(item, "/name"));
        let full = format!("{path}::{name}");
        let attrs = attrs(item);
        let Some((kind, inner)) = item
            .get("inner")
            .and_then(Value::as_object)
            .and_then(|o| o.iter().next())
        else {
            return;
        };
        match kind.as_str() {
            "module" if depth < 8 => self.module(id, &full, out, depth + 1),
            "use" => self.reexport(inner, path, out, depth),
            "struct" => {
                out.insert(format!(
                    "{attrs}pub struct {full}{}",
                    self.generics(&inner["generics"])
                ));
                if let Some(fields) = inner
                    .pointer("/kind/plain/fields")
                    .and_then(Value::as_array)
                {
                    for f in fields {
                        self.field(&id_of(f), &full, false, out);
                    }
                }
                if let Some(fields) = inner.pointer("/kind/tuple").and_then(Value::as_array) {
                    for (i, f) in fields.iter().enumerate() {
                        if let Some(f) = self.item(&id_of(f)) {
                            out.insert(format!(
                                "pub {full}::{i}: {}",
                                self.ty(&f["inner"]["struct_field"])
                            ));
                        }
                    }
                }
                self.impls(&inner["impls"], &full, out);
            }
            "enum" => {
                out.insert(format!(
                    "{attrs}pub enum {full}{}",
                    self.generics(&inner["generics"])
                ));
                for v in inner["variants"].as_array().into_iter().flatten() {
                    self.variant(&id_of(v), &full, out);
                }
                self.impls(&inner["impls"], &full, out);
            }
            "union" => {
                out.insert(format!("{attrs}pub union {full}"));
            }
            "function" => {
                out.insert(format!("{attrs}{}", self.function(inner, &full)));
            }
            "trait" => {
                out.insert(format!(
                    "{attrs}pub trait {full}{}",
                    self.generics(&inner["generics"])
                ));
                for i in inner["items"].as_array().into_iter().flatten() {
                    if let Some(it) = self.item(&id_of(i)) {
                        let n = format!("{full}::{}", str_at(it, "/name"));
                        if let Some(f) = it.pointer("/inner/function") {
                            out.insert(self.function(f, &n));
                        } else {
                            out.insert(n);
                        }
                    }
                }
            }
            "constant" => {
                out.insert(format!(
                    "{attrs}pub const {full}: {}",
                    self.ty(&inner["type"])
                ));
            }
            "static" => {
                out.insert(format!(
                    "{attrs}pub static {full}: {}",
                    self.ty(&inner["type"])
                ));
            }
            "type_alias" => {
                out.insert(format!(
                    "{attrs}pub type {full}{} = {}",
                    self.generics(&inner["generics"]),
                    self.ty(&inner["type"])
                ));
            }
            "macro" => {
                out.insert(format!("pub macro {full}!"));
            }
            _ => {}
        }
    }

    /// A `pub use`: the item itself when it is documented in this crate, else the path.
    fn reexport(&self, inner: &Value, path: &str, out: &mut BTreeSet<String>, depth: usize) {
        let source = str_at(inner, "/source");
        let name = str_at(inner, "/name");
        let target = inner.get("id").map(id_of).unwrap_or_default();
        let glob = inner.get("is_glob").and_then(Value::as_bool) == Some(true);
        match self.item(&target) {
            Some(t) if glob && t.pointer("/inner/module").is_some() => {
                for child in t
                    .pointer("/inner/module/items")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.entry(&id_of(child), path, None, out, depth);
                }
            }
            Some(_) if !glob => self.entry(&target, path, Some(name), out, depth),
            _ => {
                let star = if glob { "::*" } else { "" };
                out.insert(format!("pub use {path}::{name} = {source}{star}"));
            }
        }
    }

    /// A field of a struct (when public) or of a struct-like variant (always).
    fn field(&self, id: &str, owner: &str, in_variant: bool, out: &mut BTreeSet<String>) {
        if let Some(f) = self.item(id) {
            let public = f.get("visibility").and_then(Value::as_str) == Some("public");
            if public || in_variant {
                out.insert(format!(
                    "pub {owner}::{}: {}",
                    str_at(f, "/name"),
                    self.ty(&f["inner"]["struct_field"])
                ));
            }
        }
    }

    fn variant(&self, id: &str, owner: &str, out: &mut BTreeSet<String>) {
        let Some(v) = self.item(id) else { return };
        let name = format!("{owner}::{}", str_at(v, "/name"));
        let kind = &v["inner"]["variant"]["kind"];
        if let Some(fields) = kind.get("tuple").and_then(Value::as_array) {
            let types: Vec<String> = fields
                .iter()
                .map(|f| {
                    self.item(&id_of(f))
                        .map_or_else(|| "_".to_string(), |f| self.ty(&f["inner"]["struct_field"]))
                })
                .collect();
            out.insert(format!("pub {name}({})", types.join(", ")));
        } else if let Some(fields) = kind.pointer("/struct/fields").and_then(Value::as_array) {
            out.insert(format!("pub {name}"));
            for f in fields {
                self.field(&id_of(f), &name, true, out);
            }
        } else {
            out.insert(format!("pub {name}"));
        }
    }

    /// Inherent methods and constants, and one line per trait implemented by the crate.
    fn impls(&self, impls: &Value, owner: &str, out: &mut BTreeSet<String>) {
        for id in impls.as_array().into_iter().flatten() {
            let Some(imp) = self.item(&id_of(id)).and_then(|i| i.pointer("/inner/impl")) else {
                continue;
            };
            if imp.get("is_synthetic").and_then(Value::as_bool) == Some(true)
                || !imp["blanket_impl"].is_null()
            {
                continue;
            }
            match imp.get("trait").filter(|t| !t.is_null()) {
                // Compiler-internal, comes with every derived PartialEq.
                Some(t) if str_at(t, "/path").ends_with("StructuralPartialEq") => {}
                Some(t) => {
                    let negative = if imp.get("is_negative").and_then(Value::as_bool) == Some(true)
                    {
                        "!"
                    } else {
                        ""
                    };
                    out.insert(format!(
                        "impl{} {negative}{} for {}",
                        self.generics(&imp["generics"]),
                        self.path(t),
                        self.ty(&imp["for"])
                    ));
                }
                None => {
                    for i in imp["items"].as_array().into_iter().flatten() {
                        let Some(it) = self.item(&id_of(i)) else {
                            continue;
                        };
                        if it.get("visibility").and_then(Value::as_str) != Some("public") {
                            continue;
                        }
                        let n = format!("{owner}::{}", str_at(it, "/name"));
                        if let Some(f) = it.pointer("/inner/function") {
                            out.insert(format!("{}{}", attrs(it), self.function(f, &n)));
                        } else if let Some(c) = it.pointer("/inner/assoc_const") {
                            out.insert(format!("pub const {n}: {}", self.ty(&c["type"])));
                        } else if let Some(c) = it.pointer("/inner/constant") {
                            out.insert(format!("pub const {n}: {}", self.ty(&c["type"])));
                        }
                    }
                }
            }
        }
    }

    fn function(&self, f: &Value, name: &str) -> String {
        let header = &f["header"];
        let mut s = String::from("pub ");
        for (key, word) in [
            ("is_const", "const "),
            ("is_async", "async "),
            ("is_unsafe", "unsafe "),
        ] {
            if header.get(key).and_then(Value::as_bool) == Some(true) {
                s.push_str(word);
            }
        }
        let inputs: Vec<String> = f
            .pointer("/sig/inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|arg| {
                let n = arg.get(0).and_then(Value::as_str).unwrap_or("_");
                let t = arg.get(1).cloned().unwrap_or(Value::Null);
                if n == "self" {
                    self_arg(&self.ty(&t))
                } else {
                    format!("{n}: {}", self.ty(&t))
                }
            })
            .collect();
        let _ = write!(
            s,
            "fn {name}{}({})",
            self.generics(&f["generics"]),
            inputs.join(", ")
        );
        if let Some(o) = f.pointer("/sig/output").filter(|o| !o.is_null()) {
            let _ = write!(s, " -> {}", self.ty(o));
        }
        s.push_str(&self.where_clause(&f["generics"]));
        s
    }

    /// `<'a, T: Bound>`, without the parameters of `impl Trait` arguments.
    fn generics(&self, g: &Value) -> String {
        let params: Vec<String> = g["params"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let name = str_at(p, "/name");
                let kind = &p["kind"];
                if let Some(t) = kind.get("type") {
                    if t.get("is_synthetic").and_then(Value::as_bool) == Some(true) {
                        return None;
                    }
                    let bounds = self.bounds(&t["bounds"]);
                    Some(if bounds.is_empty() {
                        name.to_string()
                    } else {
                        format!("{name}: {bounds}")
                    })
                } else if let Some(c) = kind.get("const") {
                    Some(format!("const {name}: {}", self.ty(&c["type"])))
                } else {
                    Some(name.to_string())
                }
            })
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    fn where_clause(&self, g: &Value) -> String {
        let preds: Vec<String> = g["where_predicates"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let b = p.get("bound_predicate")?;
                Some(format!(
                    "{}: {}",
                    self.ty(&b["type"]),
                    self.bounds(&b["bounds"])
                ))
            })
            .collect();
        if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        }
    }

    fn bounds(&self, bounds: &Value) -> String {
        bounds
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                if let Some(t) = b.get("trait_bound") {
                    let maybe = if t["modifier"] == "maybe" { "?" } else { "" };
                    format!("{maybe}{}", self.path(&t["trait"]))
                } else if let Some(l) = b.get("outlives").and_then(Value::as_str) {
                    l.to_string()
                } else {
                    "_".to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// A path with its generic arguments, named by its full path when rustdoc knows it.
    fn path(&self, p: &Value) -> String {
        let id = p.get("id").map(id_of).unwrap_or_default();
        let known = self
            .paths
            .get(&id)
            .and_then(|s| s.get("path"))
            .and_then(Value::as_array)
            .map(|segs| {
                segs.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("::")
            });
        let name = self
            .public
            .get(&id)
            .cloned()
            .or(known)
            .unwrap_or_else(|| str_at(p, "/path").to_string());
        format!("{name}{}", self.args(&p["args"]))
    }

    fn args(&self, args: &Value) -> String {
        if let Some(a) = args.get("angle_bracketed") {
            let mut parts: Vec<String> = a["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|arg| {
                    if let Some(t) = arg.get("type") {
                        self.ty(t)
                    } else if let Some(l) = arg.get("lifetime").and_then(Value::as_str) {
                        l.to_string()
                    } else if let Some(c) = arg.get("const") {
                        str_at(c, "/expr").to_string()
                    } else {
                        "_".to_string()
                    }
                })
                .collect();
            for c in a["constraints"].as_array().into_iter().flatten() {
                let binding = &c["binding"];
                if let Some(t) = binding.get("equality").and_then(|e| e.get("type")) {
                    parts.push(format!("{} = {}", str_at(c, "/name"), self.ty(t)));
                } else if let Some(b) = binding.get("constraint") {
                    parts.push(format!("{}: {}", str_at(c, "/name"), self.bounds(b)));
                }
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!("<{}>", parts.join(", "))
            }
        } else if let Some(p) = args.get("parenthesized") {
            let inputs: Vec<String> = p["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| self.ty(t))
                .collect();
            let output = p
                .get("output")
                .filter(|o| !o.is_null())
                .map(|o| format!(" -> {}", self.ty(o)))
                .unwrap_or_default();
            format!("({}){output}", inputs.join(", "))
        } else {
            String::new()
        }
    }

    fn ty(&self, t: &Value) -> String {
        let Some((kind, v)) = t.as_object().and_then(|o| o.iter().next()) else {
            return "_".to_string();
        };
        match kind.as_str() {
            "resolved_path" => self.path(v),
            "generic" | "primitive" => v.as_str().unwrap_or("_").to_string(),
            "borrowed_ref" => {
                let lifetime = v["lifetime"]
                    .as_str()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if v["is_mutable"] == true { "mut " } else { "" };
                format!("&{lifetime}{m}{}", self.ty(&v["type"]))
            }
            "raw_pointer" => {
                let m = if v["is_mutable"] == true {
                    "mut"
                } else {
                    "const"
                };
                format!("*{m} {}", self.ty(&v["type"]))
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!("[{}; {}]", self.ty(&v["type"]), str_at(v, "/len")),
            "tuple" => {
                let items: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|t| self.ty(t))
                    .collect();
                format!("({})", items.join(", "))
            }
            "impl_trait" => format!("impl {}", self.bounds(v)),
            "dyn_trait" => {
                let mut traits: Vec<String> = v["traits"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| self.path(&p["trait"]))
                    .collect();
                if let Some(l) = v["lifetime"].as_str() {
                    traits.push(l.to_string());
                }
                format!("dyn {}", traits.join(" + "))
            }
            "qualified_path" => {
                let self_ty = self.ty(&v["self_type"]);
                let name = str_at(v, "/name");
                match v.get("trait").filter(|t| !t.is_null()) {
                    Some(tr) => format!("<{self_ty} as {}>::{name}", self.path(tr)),
                    None => format!("{self_ty}::{name}"),
                }
            }
            "function_pointer" => {
                let inputs: Vec<String> = v
                    .pointer("/sig/inputs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|a| self.ty(a.get(1).unwrap_or(&Value::Null)))
                    .collect();
                let output = v
                    .pointer("/sig/output")
                    .filter(|o| !o.is_null())
                    .map(|o| format!(" -> {}", self.ty(o)))
                    .unwrap_or_default();
                format!("fn({}){output}", inputs.join(", "))
            }
            "infer" => "_".to_string(),
            other => other.to_string(),
        }
    }
}

/// `self`, `&self`, `&mut self` from the rendered type of the `self` argument.
fn self_arg(ty: &str) -> String {
    match ty {
        "Self" => "self".to_string(),
        "&Self" => "&self".to_string(),
        "&mut Self" => "&mut self".to_string(),
        other => format!("self: {other}"),
    }
}

/// `#[non_exhaustive] ` and `#[deprecated] ` prefixes, the attributes that change what users
/// may do with an item.
fn attrs(item: &Value) -> String {
    let mut s = String::new();
    for a in item["attrs"].as_array().into_iter().flatten() {
        let text = a
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| a.to_string());
        if text.contains("non_exhaustive") {
            s.push_str("#[non_exhaustive] ");
        }
    }
    if !item["deprecation"].is_null() {
        s.push_str("#[deprecated] ");
    }
    s
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

//! Which lines a crate's listing has: the walk from the root module over every public item.

use std::collections::{BTreeSet, HashMap};

use rustdoc_types::{
    Attribute, Crate, Id, Impl, Item, ItemEnum, StructKind, Use, Variant, VariantKind, Visibility,
};

/// Modules nested deeper than this are not followed: a module that re-exports an ancestor
/// would otherwise be walked forever. Our crates nest two deep.
const MAX_DEPTH: usize = 8;

/// Renders the crate of a rustdoc JSON document as sorted lines.
pub(super) fn render(doc: &Crate, krate: &str) -> String {
    let name = krate.replace('-', "_");
    // First the path at which each item of this crate is public (a type defined in a private
    // module and re-exported at the root is named by the root's path), then the listing.
    let mut public = HashMap::new();
    public_paths(doc, doc.root, &name, &mut public, 0);
    let api = Api { doc, public };
    let mut lines = BTreeSet::new();
    api.module(doc.root, &name, &mut lines, 0);
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Fills `out` with the first public path of every item reachable from module `id`.
fn public_paths(doc: &Crate, id: Id, path: &str, out: &mut HashMap<Id, String>, depth: usize) {
    let Some(ItemEnum::Module(module)) = doc.index.get(&id).map(|m| &m.inner) else {
        return;
    };
    for child in &module.items {
        let Some(item) = doc.index.get(child) else {
            continue;
        };
        let (id, name) = match &item.inner {
            ItemEnum::Use(Use { is_glob: true, .. }) => continue,
            ItemEnum::Use(u) => {
                let Some(id) = u.id else { continue };
                (id, u.name.as_str())
            }
            _ => (*child, name_of(item)),
        };
        let full = format!("{path}::{name}");
        if let Some(ItemEnum::Module(_)) = doc.index.get(&id).map(|i| &i.inner) {
            if depth < MAX_DEPTH {
                public_paths(doc, id, &full, out, depth + 1);
            }
        } else {
            out.entry(id).or_insert(full);
        }
    }
}

pub(super) struct Api<'a> {
    pub(super) doc: &'a Crate,
    /// Item id -> the path it is public at, where the walk from the root reaches it.
    pub(super) public: HashMap<Id, String>,
}

impl<'a> Api<'a> {
    fn item(&self, id: Id) -> Option<&'a Item> {
        self.doc.index.get(&id)
    }

    /// Every public item of the module `id`, at `path`.
    fn module(&self, id: Id, path: &str, out: &mut BTreeSet<String>, depth: usize) {
        let Some(module) = self.item(id) else { return };
        if depth > 0 {
            out.insert(format!("pub mod {path}"));
        }
        if let ItemEnum::Module(m) = &module.inner {
            for child in &m.items {
                self.entry(*child, path, None, out, depth);
            }
        }
    }

    /// One item of a module at `path`; `rename` is the name a re-export gives it.
    fn entry(
        &self,
        id: Id,
        path: &str,
        rename: Option<&str>,
        out: &mut BTreeSet<String>,
        depth: usize,
    ) {
        let Some(item) = self.item(id) else { return };
        if item.visibility != Visibility::Public {
            return;
        }
        let name = rename.unwrap_or_else(|| name_of(item));
        let full = format!("{path}::{name}");
        let attrs = attrs(item);
        match &item.inner {
            ItemEnum::Module(_) if depth < MAX_DEPTH => self.module(id, &full, out, depth + 1),
            ItemEnum::Use(u) => self.reexport(u, path, out, depth),
            ItemEnum::Struct(s) => {
                out.insert(format!(
                    "{attrs}pub struct {full}{}",
                    self.generics(&s.generics)
                ));
                match &s.kind {
                    StructKind::Plain { fields, .. } => {
                        for f in fields {
                            self.field(*f, &full, false, out);
                        }
                    }
                    // Private fields are `None`: rustdoc stripped them.
                    StructKind::Tuple(fields) => {
                        for (i, f) in fields.iter().enumerate() {
                            if let Some(f) = f.and_then(|f| self.item(f)) {
                                out.insert(format!("pub {full}::{i}: {}", self.field_type(f)));
                            }
                        }
                    }
                    StructKind::Unit => {}
                }
                self.impls(&s.impls, &full, out);
            }
            ItemEnum::Enum(e) => {
                out.insert(format!(
                    "{attrs}pub enum {full}{}",
                    self.generics(&e.generics)
                ));
                for v in &e.variants {
                    self.variant(*v, &full, out);
                }
                self.impls(&e.impls, &full, out);
            }
            ItemEnum::Union(_) => {
                out.insert(format!("{attrs}pub union {full}"));
            }
            ItemEnum::Function(f) => {
                out.insert(format!("{attrs}{}", self.function(f, &full)));
            }
            ItemEnum::Trait(t) => {
                out.insert(format!(
                    "{attrs}pub trait {full}{}",
                    self.generics(&t.generics)
                ));
                for it in t.items.iter().filter_map(|i| self.item(*i)) {
                    let n = format!("{full}::{}", name_of(it));
                    if let ItemEnum::Function(f) = &it.inner {
                        out.insert(self.function(f, &n));
                    } else {
                        out.insert(n);
                    }
                }
            }
            ItemEnum::Constant { type_, .. } => {
                out.insert(format!("{attrs}pub const {full}: {}", self.ty(type_)));
            }
            ItemEnum::Static(s) => {
                out.insert(format!("{attrs}pub static {full}: {}", self.ty(&s.type_)));
            }
            ItemEnum::TypeAlias(a) => {
                out.insert(format!(
                    "{attrs}pub type {full}{} = {}",
                    self.generics(&a.generics),
                    self.ty(&a.type_)
                ));
            }
            ItemEnum::Macro(_) => {
                out.insert(format!("pub macro {full}!"));
            }
            _ => {}
        }
    }

    /// A `pub use`: the item itself when it is documented in this crate, else the path.
    fn reexport(&self, u: &Use, path: &str, out: &mut BTreeSet<String>, depth: usize) {
        let target = u.id.and_then(|id| Some((id, self.item(id)?)));
        match target {
            Some((
                _,
                Item {
                    inner: ItemEnum::Module(m),
                    ..
                },
            )) if u.is_glob => {
                for child in &m.items {
                    self.entry(*child, path, None, out, depth);
                }
            }
            Some((id, _)) if !u.is_glob => self.entry(id, path, Some(&u.name), out, depth),
            _ => {
                let star = if u.is_glob { "::*" } else { "" };
                out.insert(format!("pub use {path}::{} = {}{star}", u.name, u.source));
            }
        }
    }

    /// A field of a struct (when public) or of a struct-like variant (always).
    fn field(&self, id: Id, owner: &str, in_variant: bool, out: &mut BTreeSet<String>) {
        if let Some(f) = self.item(id)
            && (f.visibility == Visibility::Public || in_variant)
        {
            out.insert(format!(
                "pub {owner}::{}: {}",
                name_of(f),
                self.field_type(f)
            ));
        }
    }

    fn field_type(&self, field: &Item) -> String {
        match &field.inner {
            ItemEnum::StructField(ty) => self.ty(ty),
            _ => "_".to_string(),
        }
    }

    fn variant(&self, id: Id, owner: &str, out: &mut BTreeSet<String>) {
        let Some(v) = self.item(id) else { return };
        let name = format!("{owner}::{}", name_of(v));
        let kind = match &v.inner {
            ItemEnum::Variant(Variant { kind, .. }) => kind,
            _ => &VariantKind::Plain,
        };
        match kind {
            VariantKind::Tuple(fields) => {
                let types: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        f.and_then(|f| self.item(f))
                            .map_or_else(|| "_".to_string(), |f| self.field_type(f))
                    })
                    .collect();
                out.insert(format!("pub {name}({})", types.join(", ")));
            }
            VariantKind::Struct { fields, .. } => {
                out.insert(format!("pub {name}"));
                for f in fields {
                    self.field(*f, &name, true, out);
                }
            }
            VariantKind::Plain => {
                out.insert(format!("pub {name}"));
            }
        }
    }

    /// Inherent methods and constants, and one line per trait implemented by the crate.
    fn impls(&self, impls: &[Id], owner: &str, out: &mut BTreeSet<String>) {
        for id in impls {
            let Some(ItemEnum::Impl(imp)) = self.item(*id).map(|i| &i.inner) else {
                continue;
            };
            if imp.is_synthetic || imp.blanket_impl.is_some() {
                continue;
            }
            match &imp.trait_ {
                // Compiler-internal, comes with every derived PartialEq.
                Some(t) if t.path.ends_with("StructuralPartialEq") => {}
                Some(t) => {
                    let negative = if imp.is_negative { "!" } else { "" };
                    out.insert(format!(
                        "impl{} {negative}{} for {}",
                        self.generics(&imp.generics),
                        self.path(t),
                        self.ty(&imp.for_)
                    ));
                }
                None => self.inherent(imp, owner, out),
            }
        }
    }

    fn inherent(&self, imp: &Impl, owner: &str, out: &mut BTreeSet<String>) {
        for it in imp.items.iter().filter_map(|i| self.item(*i)) {
            if it.visibility != Visibility::Public {
                continue;
            }
            let n = format!("{owner}::{}", name_of(it));
            match &it.inner {
                ItemEnum::Function(f) => {
                    out.insert(format!("{}{}", attrs(it), self.function(f, &n)));
                }
                ItemEnum::AssocConst { type_, .. } | ItemEnum::Constant { type_, .. } => {
                    out.insert(format!("pub const {n}: {}", self.ty(type_)));
                }
                _ => {}
            }
        }
    }
}

/// Impl blocks have no name, and are never listed under one.
fn name_of(item: &Item) -> &str {
    item.name.as_deref().unwrap_or_default()
}

/// `#[non_exhaustive] ` and `#[deprecated] ` prefixes, the attributes that change what users
/// may do with an item.
fn attrs(item: &Item) -> String {
    let mut s = String::new();
    for a in &item.attrs {
        if *a == Attribute::NonExhaustive {
            s.push_str("#[non_exhaustive] ");
        }
    }
    if item.deprecation.is_some() {
        s.push_str("#[deprecated] ");
    }
    s
}

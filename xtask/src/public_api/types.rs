//! Signatures as the listing writes them: functions, generics, bounds, paths and types, close
//! to Rust source but on one line, and other crates' types named by their full path.

use std::fmt::Write as _;

use rustdoc_types::{
    AssocItemConstraintKind, Function, GenericArg, GenericArgs, GenericBound, GenericParamDefKind,
    Generics, Path, Term, TraitBoundModifier, Type, WherePredicate,
};

use super::items::Api;

impl Api<'_> {
    pub(super) fn function(&self, f: &Function, name: &str) -> String {
        let mut s = String::from("pub ");
        for (on, word) in [
            (f.header.is_const, "const "),
            (f.header.is_async, "async "),
            (f.header.is_unsafe, "unsafe "),
        ] {
            if on {
                s.push_str(word);
            }
        }
        let inputs: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|(n, t)| {
                if n == "self" {
                    self_arg(&self.ty(t))
                } else {
                    format!("{n}: {}", self.ty(t))
                }
            })
            .collect();
        let _ = write!(
            s,
            "fn {name}{}({})",
            self.generics(&f.generics),
            inputs.join(", ")
        );
        if let Some(o) = &f.sig.output {
            let _ = write!(s, " -> {}", self.ty(o));
        }
        s.push_str(&self.where_clause(&f.generics));
        s
    }

    /// `<'a, T: Bound>`, without the parameters of `impl Trait` arguments.
    pub(super) fn generics(&self, g: &Generics) -> String {
        let params: Vec<String> = g
            .params
            .iter()
            .filter_map(|p| {
                let name = &p.name;
                match &p.kind {
                    GenericParamDefKind::Type {
                        is_synthetic: true, ..
                    } => None,
                    GenericParamDefKind::Type { bounds, .. } => {
                        let bounds = self.bounds(bounds);
                        Some(if bounds.is_empty() {
                            name.clone()
                        } else {
                            format!("{name}: {bounds}")
                        })
                    }
                    GenericParamDefKind::Const { type_, .. } => {
                        Some(format!("const {name}: {}", self.ty(type_)))
                    }
                    GenericParamDefKind::Lifetime { .. } => Some(name.clone()),
                }
            })
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    fn where_clause(&self, g: &Generics) -> String {
        let preds: Vec<String> =
            g.where_predicates
                .iter()
                .filter_map(|p| match p {
                    WherePredicate::BoundPredicate { type_, bounds, .. } => {
                        Some(format!("{}: {}", self.ty(type_), self.bounds(bounds)))
                    }
                    WherePredicate::LifetimePredicate { .. }
                    | WherePredicate::EqPredicate { .. } => None,
                })
                .collect();
        if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        }
    }

    fn bounds(&self, bounds: &[GenericBound]) -> String {
        bounds
            .iter()
            .map(|b| match b {
                GenericBound::TraitBound {
                    trait_, modifier, ..
                } => {
                    let maybe = if *modifier == TraitBoundModifier::Maybe {
                        "?"
                    } else {
                        ""
                    };
                    format!("{maybe}{}", self.path(trait_))
                }
                GenericBound::Outlives(l) => l.clone(),
                GenericBound::Use(_) => "_".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// A path with its generic arguments, named where the walk found it public, else by the
    /// full path rustdoc knows, else as written.
    pub(super) fn path(&self, p: &Path) -> String {
        let name = self
            .public
            .get(&p.id)
            .cloned()
            .or_else(|| self.doc.paths.get(&p.id).map(|s| s.path.join("::")))
            .unwrap_or_else(|| p.path.clone());
        format!("{name}{}", self.args(p.args.as_deref()))
    }

    fn args(&self, args: Option<&GenericArgs>) -> String {
        match args {
            Some(GenericArgs::AngleBracketed { args, constraints }) => {
                let mut parts: Vec<String> = args
                    .iter()
                    .map(|arg| match arg {
                        GenericArg::Type(t) => self.ty(t),
                        GenericArg::Lifetime(l) => l.clone(),
                        GenericArg::Const(c) => c.expr.clone(),
                        GenericArg::Infer => "_".to_string(),
                    })
                    .collect();
                for c in constraints {
                    match &c.binding {
                        AssocItemConstraintKind::Equality(Term::Type(t)) => {
                            parts.push(format!("{} = {}", c.name, self.ty(t)));
                        }
                        AssocItemConstraintKind::Constraint(b) => {
                            parts.push(format!("{}: {}", c.name, self.bounds(b)));
                        }
                        // `Trait<N = 3>` needs the unstable associated_const_equality.
                        AssocItemConstraintKind::Equality(Term::Constant(_)) => {}
                    }
                }
                if parts.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", parts.join(", "))
                }
            }
            Some(GenericArgs::Parenthesized { inputs, output }) => {
                let inputs: Vec<String> = inputs.iter().map(|t| self.ty(t)).collect();
                format!("({}){}", inputs.join(", "), self.output(output.as_ref()))
            }
            // `T::method(..)` bounds are unstable (return_type_notation).
            Some(GenericArgs::ReturnTypeNotation) | None => String::new(),
        }
    }

    fn output(&self, output: Option<&Type>) -> String {
        output
            .map(|o| format!(" -> {}", self.ty(o)))
            .unwrap_or_default()
    }

    pub(super) fn ty(&self, t: &Type) -> String {
        match t {
            Type::ResolvedPath(p) => self.path(p),
            Type::Generic(name) | Type::Primitive(name) => name.clone(),
            Type::BorrowedRef {
                lifetime,
                is_mutable,
                type_,
            } => {
                let lifetime = lifetime
                    .as_ref()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if *is_mutable { "mut " } else { "" };
                format!("&{lifetime}{m}{}", self.ty(type_))
            }
            Type::RawPointer { is_mutable, type_ } => {
                let m = if *is_mutable { "mut" } else { "const" };
                format!("*{m} {}", self.ty(type_))
            }
            Type::Slice(t) => format!("[{}]", self.ty(t)),
            Type::Array { type_, len } => format!("[{}; {len}]", self.ty(type_)),
            Type::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|t| self.ty(t)).collect();
                format!("({})", items.join(", "))
            }
            Type::ImplTrait(bounds) => format!("impl {}", self.bounds(bounds)),
            Type::DynTrait(d) => {
                let mut traits: Vec<String> =
                    d.traits.iter().map(|p| self.path(&p.trait_)).collect();
                traits.extend(d.lifetime.clone());
                format!("dyn {}", traits.join(" + "))
            }
            Type::QualifiedPath {
                name,
                self_type,
                trait_,
                ..
            } => {
                let self_ty = self.ty(self_type);
                match trait_ {
                    Some(tr) => format!("<{self_ty} as {}>::{name}", self.path(tr)),
                    None => format!("{self_ty}::{name}"),
                }
            }
            Type::FunctionPointer(f) => {
                let inputs: Vec<String> = f.sig.inputs.iter().map(|(_, t)| self.ty(t)).collect();
                format!(
                    "fn({}){}",
                    inputs.join(", "),
                    self.output(f.sig.output.as_ref())
                )
            }
            Type::Infer => "_".to_string(),
            // Pattern types (`u32 is 1..`) are unstable and their pattern is not in the JSON;
            // the kind's name stands out in a diff where the bare type would not.
            Type::Pat { .. } => "pat".to_string(),
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

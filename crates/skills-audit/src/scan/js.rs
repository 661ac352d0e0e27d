//! JavaScript (and TypeScript, read by the same grammar), parsed with
//! tree-sitter-javascript.

use std::cell::RefCell;
use std::ops::Range;

use tree_sitter::Parser;

use super::FileCtx;
use super::code::{self, Spec};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn last(f: &str) -> &str {
    f.rsplit('.').next().unwrap_or(f)
}

static SPEC: Spec = Spec {
    call: &["call_expression", "new_expression"],
    function_field: "function",
    args_field: "arguments",
    string: &["string", "template_string"],
    string_content: &["string_fragment"],
    assignment: &[
        ("variable_declarator", "name", "value"),
        ("assignment_expression", "left", "right"),
    ],
    binary: "binary_expression",
    exec: |f| {
        matches!(
            f,
            "eval"
                | "Function"
                | "window.eval"
                | "globalThis.eval"
                | "vm.runInThisContext"
                | "vm.runInNewContext"
                | "vm.runInContext"
                | "vm.Script"
                | "new Function"
                | "setTimeout"
                | "setInterval"
        )
    },
    net: |f| {
        matches!(
            f,
            "fetch"
                | "axios"
                | "got"
                | "needle"
                | "XMLHttpRequest"
                | "WebSocket"
                | "navigator.sendBeacon"
                | "net.connect"
                | "net.createConnection"
                | "tls.connect"
        ) || ["axios.", "http.", "https.", "got.", "superagent.", "dns."]
            .iter()
            .any(|p| {
                f.starts_with(p)
                    && matches!(
                        last(f),
                        "get"
                            | "post"
                            | "put"
                            | "request"
                            | "patch"
                            | "resolve"
                            | "resolve4"
                            | "resolveTxt"
                            | "lookup"
                    )
            })
    },
    decode: |f, call| {
        matches!(
            f,
            "atob" | "Buffer.from" | "unescape" | "decodeURIComponent" | "String.fromCharCode"
        ) && (f != "Buffer.from" || call.contains("base64") || call.contains("hex"))
            && (f != "decodeURIComponent" || call.matches('%').count() > 20)
    },
    shell: |f| {
        matches!(
            last(f),
            "exec"
                | "execSync"
                | "spawn"
                | "spawnSync"
                | "execa"
                | "execaCommand"
                | "execaSync"
                | "execCommand"
        ) && !f.starts_with('/')
            && !f.contains("regex")
            && !f.contains("re.")
            && !f.ends_with("RegExp.exec")
    },
    lookup: |f| {
        matches!(f, "require" | "import") || f.ends_with("globalThis") || f == "Reflect.get"
    },
    environment: "process.env",
    rmtree: |f| {
        matches!(
            last(f),
            "rmSync" | "rm" | "rimraf" | "remove" | "removeSync" | "rmdirSync"
        )
    },
};

pub(crate) fn scan(ctx: &mut FileCtx<'_>, range: Range<usize>) {
    let Some(src) = ctx.text.get(range.clone()) else {
        return;
    };
    if ctx.prefilter && !super::prefilter::code(src, super::prefilter::Literals::JavaScript) {
        return;
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_javascript::LANGUAGE.into())
                .ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(src, None)
    });
    code::scan(ctx, range, &SPEC, tree);
}

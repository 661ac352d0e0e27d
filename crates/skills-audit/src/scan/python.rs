//! Python, parsed with tree-sitter-python.

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
    call: &["call"],
    function_field: "function",
    args_field: "arguments",
    string: &["string", "concatenated_string"],
    string_content: &["string_content"],
    assignment: &[("assignment", "left", "right")],
    binary: "binary_operator",
    exec: |f| {
        matches!(
            f,
            "exec" | "eval" | "compile" | "builtins.exec" | "builtins.eval" | "runpy.run_path"
        )
    },
    net: |f| {
        matches!(last(f), "urlopen" | "urlretrieve")
            || [
                "requests.",
                "httpx.",
                "urllib3.",
                "aiohttp.",
                "http.client.",
                "smtplib.",
                "ftplib.",
                "session.",
                "client.",
            ]
            .iter()
            .any(|p| {
                f.starts_with(p)
                    && matches!(
                        last(f),
                        "get"
                            | "post"
                            | "put"
                            | "patch"
                            | "request"
                            | "urlopen"
                            | "HTTPSConnection"
                            | "HTTPConnection"
                            | "SMTP"
                            | "SMTP_SSL"
                            | "FTP"
                            | "sendmail"
                            | "send"
                    )
            })
            || matches!(
                f,
                "socket.create_connection"
                    | "s.connect"
                    | "sock.connect"
                    | "s.sendall"
                    | "sock.sendall"
                    | "dns.resolver.resolve"
            )
    },
    decode: |f, call| {
        matches!(
            last(f),
            "b64decode"
                | "b32decode"
                | "b85decode"
                | "a85decode"
                | "decodebytes"
                | "decodestring"
                | "unhexlify"
                | "fromhex"
                | "decompress"
        ) || f == "marshal.loads"
            || (last(f) == "decode"
                && (call.contains("base64") || call.contains("rot13") || call.contains("hex")))
    },
    shell: |f| {
        matches!(
            f,
            "os.system"
                | "os.popen"
                | "subprocess.run"
                | "subprocess.call"
                | "subprocess.check_call"
                | "subprocess.check_output"
                | "subprocess.Popen"
                | "subprocess.getoutput"
                | "subprocess.getstatusoutput"
                | "pty.spawn"
                | "run"
                | "check_output"
                | "check_call"
                | "Popen"
                | "call"
                | "system"
                | "popen"
        )
    },
    lookup: |f| {
        matches!(
            f,
            "getattr"
                | "__import__"
                | "importlib.import_module"
                | "import_module"
                | "globals"
                | "locals"
                | "vars"
        )
    },
    environment: "os.environ",
    rmtree: |f| matches!(last(f), "rmtree"),
};

pub(crate) fn scan(ctx: &mut FileCtx<'_>, range: Range<usize>) {
    let Some(src) = ctx.text.get(range.clone()) else {
        return;
    };
    if ctx.prefilter && !super::prefilter::code(src, super::prefilter::Literals::Python) {
        return;
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(src, None)
    });
    code::scan(ctx, range, &SPEC, tree);
}

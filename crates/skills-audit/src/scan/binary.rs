//! Binaries, and files whose content does not match their extension.

use crate::report::Finding;
use crate::{RuleId, Severity};

/// What the first bytes say a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Executable(&'static str),
    Archive(&'static str),
    Image(&'static str),
    Document(&'static str),
    Font,
}

fn sniff(bytes: &[u8]) -> Option<Kind> {
    let starts = |m: &[u8]| bytes.starts_with(m);
    Some(if starts(b"\x7fELF") {
        Kind::Executable("an ELF executable")
    } else if starts(&[0xFE, 0xED, 0xFA, 0xCE])
        || starts(&[0xFE, 0xED, 0xFA, 0xCF])
        || starts(&[0xCE, 0xFA, 0xED, 0xFE])
        || starts(&[0xCF, 0xFA, 0xED, 0xFE])
    {
        Kind::Executable("a Mach-O executable")
    } else if starts(&[0xCA, 0xFE, 0xBA, 0xBE]) {
        Kind::Executable("a Mach-O universal binary or Java class")
    } else if starts(b"MZ") && bytes.len() > 64 {
        Kind::Executable("a Windows (PE) executable")
    } else if starts(b"\0asm") {
        Kind::Executable("a WebAssembly module")
    } else if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        Kind::Archive("a zip archive")
    } else if starts(&[0x1F, 0x8B]) {
        Kind::Archive("a gzip archive")
    } else if starts(b"7z\xBC\xAF\x27\x1C") {
        Kind::Archive("a 7-Zip archive")
    } else if starts(b"Rar!") {
        Kind::Archive("a RAR archive")
    } else if starts(b"BZh") && bytes.get(3).is_some_and(u8::is_ascii_digit) {
        Kind::Archive("a bzip2 archive")
    } else if starts(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        Kind::Archive("an xz archive")
    } else if starts(b"\x89PNG") {
        Kind::Image("png")
    } else if starts(&[0xFF, 0xD8, 0xFF]) {
        Kind::Image("jpeg")
    } else if starts(b"GIF8") {
        Kind::Image("gif")
    } else if starts(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Kind::Image("webp")
    } else if starts(&[0, 0, 1, 0]) {
        Kind::Image("ico")
    } else if starts(b"%PDF") {
        Kind::Document("pdf")
    } else if starts(b"SQLite format 3\0") {
        Kind::Document("sqlite")
    } else if starts(&[0, 1, 0, 0])
        || starts(b"OTTO")
        || starts(b"wOFF")
        || starts(b"wOF2")
        || starts(b"true")
    {
        Kind::Font
    } else {
        return None;
    })
}

const TEXT_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "py", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "tsx", "jsx",
    "json", "yaml", "yml", "toml", "csv", "tsv", "xml", "xsd", "html", "htm", "css", "rs", "go",
    "rb", "pl", "ps1", "bat", "cmd", "ini", "cfg", "conf", "env", "sql", "j2", "template", "patch",
    "diff", "svg", "r", "java", "kt", "swift", "c", "h", "cpp", "lua", "php", "mdx", "rst", "tex",
    "log",
];

const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "ico", "bmp"];
const ARCHIVE_EXTENSIONS: &[&str] = &[
    "zip", "skill", "gz", "tgz", "7z", "rar", "bz2", "xz", "jar", "whl", "docx", "xlsx", "pptx",
    "odt", "ods", "odp", "epub", "nupkg", "vsix", "apk", "crx", "xpi",
];
const EXECUTABLE_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "bin", "wasm", "node", "class", "o", "a",
];

/// Findings for a file that is not text, or lies about what it is; `None` for text.
pub(crate) fn check(path: &str, bytes: &[u8], executable: bool) -> Option<Vec<Finding>> {
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let kind = sniff(bytes);
    let head = bytes.get(..8192).unwrap_or(bytes);
    let binary = head.contains(&0) || kind.is_some();
    if !binary {
        return None;
    }
    let mut out = Vec::new();
    let is = |list: &[&str]| list.contains(&ext.as_str());
    match kind {
        Some(Kind::Executable(what)) => {
            if is(TEXT_EXTENSIONS) || is(IMAGE_EXTENSIONS) {
                out.push(Finding::new(
                    RuleId::ContentMismatch,
                    path,
                    format!("{path} is named .{ext} but is {what}"),
                ));
            } else {
                out.push(
                    Finding::new(RuleId::BinaryFile, path, format!("{path} is {what}: it cannot be reviewed, and a script or the agent may run it"))
                        .with_severity(Severity::High),
                );
            }
        }
        Some(Kind::Archive(what)) => {
            if is(TEXT_EXTENSIONS) || is(IMAGE_EXTENSIONS) {
                out.push(Finding::new(
                    RuleId::ContentMismatch,
                    path,
                    format!("{path} is named .{ext} but is {what}"),
                ));
            } else if !matches!(
                ext.as_str(),
                "docx" | "xlsx" | "pptx" | "odt" | "ods" | "odp" | "epub"
            ) {
                out.push(Finding::new(
                    RuleId::BinaryFile,
                    path,
                    format!("{path} is {what}; its content is not audited"),
                ));
            }
        }
        Some(Kind::Image(_) | Kind::Document(_) | Kind::Font) => {
            if is(TEXT_EXTENSIONS) && !matches!(ext.as_str(), "svg") {
                out.push(
                    Finding::new(
                        RuleId::ContentMismatch,
                        path,
                        format!("{path} is named .{ext} but is not text"),
                    )
                    .with_severity(Severity::Medium),
                );
            }
        }
        None => {
            if is(TEXT_EXTENSIONS) {
                // UTF-16 text has NULs; so do some data files. Not code an agent runs.
                if !(bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF])) {
                    out.push(
                        Finding::new(
                            RuleId::ContentMismatch,
                            path,
                            format!("{path} is named .{ext} but holds binary data"),
                        )
                        .with_severity(Severity::Medium),
                    );
                }
            } else if is(EXECUTABLE_EXTENSIONS) || executable {
                out.push(
                    Finding::new(
                        RuleId::BinaryFile,
                        path,
                        format!("{path} is an executable binary"),
                    )
                    .with_severity(Severity::High),
                );
            } else if !(is(IMAGE_EXTENSIONS)
                || is(ARCHIVE_EXTENSIONS)
                || matches!(
                    ext.as_str(),
                    "ttf"
                        | "otf"
                        | "woff"
                        | "woff2"
                        | "pdf"
                        | "ico"
                        | "db"
                        | "sqlite"
                        | "pickle"
                        | "pkl"
                        | "npy"
                        | "parquet"
                        | "mp3"
                        | "mp4"
                        | "wav"
                        | "ogg"
                        | "mov"
                        | "webm"
                        | "xls"
                        | "doc"
                        | "ppt"
                ))
            {
                out.push(
                    Finding::new(
                        RuleId::BinaryFile,
                        path,
                        format!("{path} is binary; its content is not audited"),
                    )
                    .with_severity(Severity::Low),
                );
            }
        }
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert!(check("a.md", b"# hi", false).is_none());
        let f = check("notes.md", b"\x7fELF\x02\x01\x01\0\0\0", false).unwrap();
        assert_eq!(f[0].rule, RuleId::ContentMismatch);
        let f = check("bin/tool", b"\x7fELF\x02\x01\x01\0\0\0", true).unwrap();
        assert_eq!(
            (f[0].rule, f[0].severity),
            (RuleId::BinaryFile, Severity::High)
        );
        assert!(
            check("logo.png", b"\x89PNG\r\n\x1a\n\0\0", false)
                .unwrap()
                .is_empty()
        );
        assert!(
            check("font.ttf", &[0, 1, 0, 0, 0, 9], false)
                .unwrap()
                .is_empty()
        );
        let f = check("logo.png", b"PK\x03\x04\0\0", false).unwrap();
        assert_eq!(f[0].rule, RuleId::ContentMismatch);
    }
}

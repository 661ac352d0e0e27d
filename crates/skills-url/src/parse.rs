//! Splitting an `http(s)` URL into the parts translation needs, by hand.
//!
//! Only absolute `http`/`https` URLs are accepted. The path, query and fragment are kept as
//! written, except that characters a URL may not contain literally (space, `"`, `<`, `>`,
//! `` ` ``, `{`, `}`, `|`, `^` and non-ASCII) are percent-encoded the way browsers do; existing
//! `%XX` escapes are never decoded or re-encoded.

use crate::UrlError;

/// A parsed `http(s)` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// `https` or `http`.
    pub(crate) scheme: &'static str,
    /// Lowercased, without a trailing dot.
    pub(crate) host: String,
    /// The port when one is written and is not the scheme's default.
    pub(crate) port: Option<u16>,
    /// The non-empty path segments, percent-encoded as in the URL.
    pub(crate) segments: Vec<String>,
    /// Whether the path ends with `/` (and is not just `/`).
    pub(crate) trailing_slash: bool,
    /// The query without `?`, when there is one.
    pub(crate) query: Option<String>,
    /// The whole input, trimmed, with the characters above percent-encoded.
    pub(crate) cleaned: String,
}

impl Parsed {
    /// `scheme://host[:port]`.
    pub(crate) fn origin(&self) -> String {
        match self.port {
            Some(port) => format!("{}://{}:{port}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// The `key=value` pairs of the query whose key is `key`, as written.
    pub(crate) fn query_pairs<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(move |pair| pair.split('=').next() == Some(key))
    }
}

/// Parses `input` (surrounding whitespace ignored).
pub(crate) fn parse(input: &str) -> Result<Parsed, UrlError> {
    let text = input.trim();
    if text.is_empty() {
        return Err(UrlError::Empty);
    }
    // Offsets in errors are offsets in `input`, leading whitespace included.
    let lead = input.len() - input.trim_start().len();
    let owned = || input.to_string();

    // `localhost:8080/x` is a host and a port, not the scheme `localhost`.
    let scheme_and_rest = text
        .split_once(':')
        .filter(|(s, rest)| is_scheme(s) && !rest.starts_with(|c: char| c.is_ascii_digit()));
    let Some((scheme, rest)) = scheme_and_rest else {
        // scp-like git syntax: `git@github.com:o/r.git`.
        let scp = text
            .split_once(':')
            .is_some_and(|(before, _)| before.contains('@') && !before.contains('/'));
        if scp {
            return Err(UrlError::UnsupportedScheme {
                input: owned(),
                scheme: "ssh".to_string(),
            });
        }
        return Err(UrlError::MissingScheme { input: owned() });
    };
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "https" => "https",
        "http" => "http",
        other => {
            return Err(UrlError::UnsupportedScheme {
                input: owned(),
                scheme: other.to_string(),
            });
        }
    };
    let Some(rest) = rest.strip_prefix("//") else {
        return Err(UrlError::MissingHost { input: owned() });
    };
    let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at_checked(authority_end).unwrap_or((rest, ""));

    if let Some((_, host_port)) = authority.rsplit_once('@') {
        let shown = format!("{}://***@{host_port}{tail}", scheme);
        return Err(UrlError::Credentials { input: shown });
    }
    let (host, port) = split_port(authority);
    let host = check_host(input, host)?;
    let port = match port {
        None | Some("") => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if p.bytes().all(|b| b.is_ascii_digit()) => Some(n),
            _ => {
                return Err(UrlError::InvalidPort {
                    input: owned(),
                    port: p.to_string(),
                });
            }
        },
    };
    let port = port.filter(|&p| !(scheme == "https" && p == 443 || scheme == "http" && p == 80));

    // Offset of `tail` in `input`.
    let tail_at = lead + scheme.len() + 3 + authority.len();
    let tail = encode(input, tail, tail_at)?;

    let (before_fragment, _fragment) = tail.split_once('#').unwrap_or((&tail, ""));
    let (path, query) = match before_fragment.split_once('?') {
        Some((p, q)) => (p, Some(q.to_string())),
        None => (before_fragment, None),
    };
    if path.split('/').any(is_dot_segment) {
        return Err(UrlError::DotSegment { input: owned() });
    }
    let segments = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let trailing_slash = path.len() > 1 && path.ends_with('/');

    let written_scheme = text.split_once(':').map_or("", |(s, _)| s);
    let cleaned = format!("{written_scheme}://{authority}{tail}");
    Ok(Parsed {
        scheme,
        host,
        port,
        segments,
        trailing_slash,
        query,
        cleaned,
    })
}

/// RFC 3986: a letter, then letters, digits, `+`, `-`, `.`. A dot is refused too, so
/// `github.com:443/...` reads as a missing scheme rather than the scheme `github.com`.
fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-')
}

/// `host[:port]`, with IPv6 literals in brackets.
fn split_port(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.split_once(']') {
            Some((h, rest)) => (
                authority.get(..h.len() + 1).unwrap_or(h),
                rest.strip_prefix(':'),
            ),
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    }
}

/// Validates a host and returns it lowercased, without a trailing dot.
fn check_host(input: &str, host: &str) -> Result<String, UrlError> {
    if host.is_empty() {
        return Err(UrlError::MissingHost {
            input: input.to_string(),
        });
    }
    let invalid = || UrlError::InvalidHost {
        input: input.to_string(),
        host: host.to_string(),
    };
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        let ok = !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
        return if ok {
            Ok(host.to_ascii_lowercase())
        } else {
            Err(invalid())
        };
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    let ok = name.split('.').all(|label| {
        !label.is_empty()
            && label.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || c == '-'
                    || c == '_'
                    || (!c.is_ascii() && !c.is_whitespace() && !c.is_control())
            })
    });
    if ok {
        Ok(name.to_lowercase())
    } else {
        Err(invalid())
    }
}

/// Checks the path, query and fragment and percent-encodes what may not appear literally.
fn encode(input: &str, tail: &str, at: usize) -> Result<String, UrlError> {
    let mut out = String::with_capacity(tail.len());
    let bytes = tail.as_bytes();
    for (i, c) in tail.char_indices() {
        match c {
            '\\' => {
                return Err(UrlError::InvalidCharacter {
                    input: input.to_string(),
                    character: c,
                    offset: at + i,
                });
            }
            c if c.is_control() => {
                return Err(UrlError::InvalidCharacter {
                    input: input.to_string(),
                    character: c,
                    offset: at + i,
                });
            }
            '%' => {
                let hex = |k: usize| bytes.get(i + k).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(1) && hex(2)) {
                    return Err(UrlError::InvalidPercent {
                        input: input.to_string(),
                        offset: at + i,
                    });
                }
                out.push('%');
            }
            ' ' | '"' | '<' | '>' | '`' | '{' | '}' | '|' | '^' => push_encoded(&mut out, c),
            c if !c.is_ascii() => push_encoded(&mut out, c),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn push_encoded(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("%{b:02X}"));
    }
}

/// `.`, `..` and their percent-encoded spellings.
fn is_dot_segment(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase().replace("%2e", ".");
    s == "." || s == ".."
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_parts() {
        let p = parse("  HTTPS://GitHub.COM.:443/o/r//blob/?plain=1#L1 ").unwrap();
        assert_eq!(p.scheme, "https");
        assert_eq!(p.host, "github.com");
        assert_eq!(p.port, None);
        assert_eq!(p.segments, ["o", "r", "blob"]);
        assert!(p.trailing_slash);
        assert_eq!(p.query.as_deref(), Some("plain=1"));
        assert_eq!(p.cleaned, "HTTPS://GitHub.COM.:443/o/r//blob/?plain=1#L1");
    }

    #[test]
    fn keeps_ports_and_ipv6() {
        let p = parse("http://[::1]:8080/x").unwrap();
        assert_eq!((p.host.as_str(), p.port), ("[::1]", Some(8080)));
        assert_eq!(p.origin(), "http://[::1]:8080");
        let p = parse("https://git.example.com:/x").unwrap();
        assert_eq!(p.port, None);
    }

    #[test]
    fn encodes_what_must_be_encoded_and_keeps_escapes() {
        let p = parse("https://h/a b/é/%2F?q=<x>").unwrap();
        assert_eq!(p.segments, ["a%20b", "%C3%A9", "%2F"]);
        assert_eq!(p.query.as_deref(), Some("q=%3Cx%3E"));
    }

    #[test]
    fn offsets_point_into_the_input() {
        let e = parse(" https://h/ab%zz").unwrap_err();
        assert_eq!(e.offset(), Some(13));
        let e = parse("https://h/a\tb").unwrap_err();
        assert_eq!(e.offset(), Some(11));
    }
}

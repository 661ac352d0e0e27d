//! Invisible characters, Unicode tag smuggling, bidi overrides and homoglyphs.

use std::ops::Range;

use super::FileCtx;
use crate::{RuleId, Severity};

/// Characters that draw nothing or reorder what is drawn.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{180E}'
            | '\u{061C}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

fn is_tag(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}'
    )
}

fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

fn is_supplement_selector(c: char) -> bool {
    ('\u{E0100}'..='\u{E01EF}').contains(&c)
}

/// Reports invisible characters in the whole text of a file. Text decoded from tag
/// characters is also checked for instructions (`hidden-instructions`).
pub(crate) fn scan_invisible(ctx: &mut FileCtx<'_>) {
    let text = ctx.text;
    if !may_hold_invisible(text.as_bytes()) {
        return;
    }
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((at, c)) = chars.next() {
        if !is_invisible(c) || (c == '\u{FEFF}' && at == 0) {
            prev = Some(c);
            continue;
        }
        // A run of the same kind.
        let k = kind(c);
        let mut end = at + c.len_utf8();
        let mut run = vec![c];
        while let Some(&(j, d)) = chars.peek() {
            if is_invisible(d) && kind(d) == k {
                run.push(d);
                end = j + d.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let next = chars.peek().map(|&(_, d)| d);
        report_run(ctx, k, &run, at..end, prev, next);
        prev = run.last().copied();
    }
}

/// Whether `bytes` has the first bytes of an [`is_invisible`] character: found with
/// `memchr`, so most text (ASCII, and the typographic quotes and dashes that share a lead
/// byte) is passed over without decoding each character.
fn may_hold_invisible(bytes: &[u8]) -> bool {
    let at = |i: usize, n: usize| bytes.get(i + 1..i + 1 + n).unwrap_or_default();
    memchr::memchr3_iter(0xE2, 0xEF, 0xF3, bytes).any(|i| match bytes.get(i) {
        // U+200B..U+200F, U+202A..U+202E, U+2060..U+2069.
        Some(0xE2) => matches!(at(i, 2), [0x80, 0x8B..=0x8F | 0xAA..=0xAE] | [0x81, 0xA0..=0xA9]),
        // U+FEFF.
        Some(0xEF) => at(i, 2) == [0xBB, 0xBF],
        // Tags and the supplement's variation selectors, U+E0000..U+E01EF.
        _ => at(i, 1) == [0xA0],
    }) || memchr::memmem::find(bytes, "\u{180E}".as_bytes()).is_some()
        || memchr::memmem::find(bytes, "\u{061C}".as_bytes()).is_some()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tag,
    Bidi,
    Mark,
    ZeroWidth,
    Joiner,
    Selector,
}

fn kind(c: char) -> Kind {
    if is_tag(c) {
        Kind::Tag
    } else if is_bidi_control(c) {
        Kind::Bidi
    } else if is_zero_width(c) {
        Kind::ZeroWidth
    } else if is_joiner(c) {
        Kind::Joiner
    } else if is_supplement_selector(c) {
        Kind::Selector
    } else {
        Kind::Mark
    }
}

fn report_run(
    ctx: &mut FileCtx<'_>,
    kind: Kind,
    run: &[char],
    span: Range<usize>,
    prev: Option<char>,
    next: Option<char>,
) {
    let codes = |run: &[char]| {
        let mut v: Vec<String> = run
            .iter()
            .take(4)
            .map(|c| format!("U+{:04X}", u32::from(*c)))
            .collect();
        if run.len() > 4 {
            v.push(format!("… ({} in all)", run.len()));
        }
        v.join(" ")
    };
    match kind {
        Kind::Tag => {
            // Subdivision flags (England, Scotland, Wales) are a black flag and tags.
            if prev == Some('\u{1F3F4}') {
                return;
            }
            let decoded: String = run
                .iter()
                .filter_map(|c| char::from_u32(u32::from(*c) - 0xE0000))
                .filter(|c| c.is_ascii_graphic() || *c == ' ')
                .collect();
            if decoded.chars().filter(char::is_ascii_alphabetic).count() >= 3 {
                ctx.push(
                    RuleId::HiddenInstructions,
                    Severity::Critical,
                    span,
                    format!(
                        "{} Unicode tag characters, invisible in every editor, spell out: \"{}\"",
                        run.len(),
                        crate::position::evidence(&decoded)
                    ),
                );
            } else {
                ctx.push(RuleId::InvisibleUnicode, Severity::High, span, format!("Unicode tag characters ({})", codes(run)));
            }
        }
        Kind::Bidi => ctx.push(
            RuleId::InvisibleUnicode,
            Severity::High,
            span,
            format!("bidirectional override or isolate ({}): the text reads differently from how it is stored", codes(run)),
        ),
        Kind::ZeroWidth | Kind::Joiner | Kind::Selector => {
            let ascii_letter = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            if kind == Kind::Joiner && !(ascii_letter(prev) && ascii_letter(next)) && run.len() < 8 {
                // Emoji sequences, Indic and Persian text need joiners.
                return;
            }
            if kind == Kind::Selector && run.len() < 4 {
                return;
            }
            let severity = if run.len() >= 8 { Severity::High } else { Severity::Medium };
            ctx.push(
                RuleId::InvisibleUnicode,
                severity,
                span,
                if run.len() >= 8 {
                    format!("{} invisible characters in a row ({}): enough to encode a hidden message", run.len(), codes(run))
                } else {
                    format!("zero-width characters ({}) inside the text", codes(run))
                },
            );
        }
        Kind::Mark => {}
    }
}

/// Cyrillic and Greek letters drawn like Latin ones.
fn is_confusable(c: char) -> bool {
    matches!(
        c,
        'а' | 'е'
            | 'о'
            | 'р'
            | 'с'
            | 'у'
            | 'х'
            | 'і'
            | 'ј'
            | 'ѕ'
            | 'ԁ'
            | 'ӏ'
            | 'ԛ'
            | 'ԝ'
            | 'һ'
            | 'ո'
            | 'А'
            | 'В'
            | 'Е'
            | 'К'
            | 'М'
            | 'Н'
            | 'О'
            | 'Р'
            | 'С'
            | 'Т'
            | 'Х'
            | 'І'
            | 'Ј'
            | 'Ѕ'
            | 'ο'
            | 'α'
            | 'ν'
            | 'ρ'
            | 'τ'
            | 'ι'
            | 'κ'
            | 'Α'
            | 'Β'
            | 'Ε'
            | 'Ζ'
            | 'Η'
            | 'Ι'
            | 'Κ'
            | 'Μ'
            | 'Ν'
            | 'Ο'
            | 'Ρ'
            | 'Τ'
            | 'Υ'
            | 'Χ'
    )
}

/// Words (runs of letters, digits, `.`, `-`, `_`) that mix ASCII letters with look-alike
/// Cyrillic or Greek letters.
pub(crate) fn scan_homoglyphs(ctx: &mut FileCtx<'_>) {
    let text = ctx.text;
    // Every look-alike is Greek, Cyrillic or Armenian: a lead byte 0xCE to 0xD5.
    // Folded a chunk at a time, which the compiler vectorizes; `any` stops at each byte.
    let lead = |b: &u8| b.wrapping_sub(0xCE) < 8;
    if !text
        .as_bytes()
        .chunks(64)
        .any(|c| c.iter().fold(false, |seen, b| seen | lead(b)))
    {
        return;
    }
    let mut start: Option<usize> = None;
    let mut found = Vec::new();
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let word_char = c.is_alphanumeric() || matches!(c, '.' | '-' | '_');
        match (word_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if let Some(word) = text.get(s..i)
                    && !word.is_ascii()
                    && word.chars().any(|c| c.is_ascii_alphabetic())
                    && word.chars().any(is_confusable)
                    && word.chars().all(|c| c.is_ascii() || is_confusable(c))
                {
                    found.push(s..i);
                }
                start = None;
            }
            _ => {}
        }
    }
    for span in found {
        let word = text.get(span.clone()).unwrap_or_default().to_string();
        let before = text.get(..span.start).unwrap_or_default();
        let in_url = before
            .rsplit(char::is_whitespace)
            .next()
            .is_some_and(|t| t.contains("://"));
        let severity = if in_url || ctx.code_at(span.start) {
            Severity::High
        } else {
            Severity::Medium
        };
        let letters: Vec<String> = word
            .chars()
            .filter(|c| is_confusable(*c))
            .map(|c| format!("{c} U+{:04X}", u32::from(c)))
            .collect();
        ctx.push(
            RuleId::Homoglyph,
            severity,
            span,
            format!(
                "`{word}` mixes Latin letters with look-alikes ({})",
                letters.join(", ")
            ),
        );
    }
}

//! The server's log on stderr: clipped, rate-limited, and never in the way of an answer.
//!
//! Much of what the server logs quotes the client (a URI it could not read, a tool it
//! does not have), and the client chooses how long that is and how often it asks: a
//! 100 KB URI made a 100 KB log line per request. And stderr is a pipe the client owns: a
//! client that never drains it filled it, and the next log line blocked the whole server.
//! So each line is cut to [`MAX_LINE`] bytes, at most [`PER_SECOND`] lines are written a
//! second (then one line says how many were dropped), and the writing happens on a
//! background thread ([`tracing_appender::non_blocking`], lossy) that drops lines rather
//! than wait when stderr is full.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// The longest log line written, in bytes, before " … (N bytes cut)".
pub(crate) const MAX_LINE: usize = 2048;

/// How many log lines one second may hold.
pub(crate) const PER_SECOND: u32 = 50;

/// How many lines wait for a slow stderr before new ones are dropped.
const QUEUED_LINES: usize = 1024;

/// Lines written and dropped in the current second.
#[derive(Debug)]
struct Window {
    started: Instant,
    written: u32,
    dropped: u64,
}

/// Makes [`ClippedWriter`]s over one shared `W` and one shared rate limit.
#[derive(Debug, Clone)]
pub(crate) struct Clipped<W> {
    inner: W,
    window: Arc<Mutex<Window>>,
}

impl<W> Clipped<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            window: Arc::new(Mutex::new(Window {
                started: Instant::now(),
                written: 0,
                dropped: 0,
            })),
        }
    }
}

/// stderr, clipped and rate-limited, written from a background thread. Keep the guard for
/// as long as the server runs: dropping it flushes what is queued.
pub(crate) fn stderr() -> (
    Clipped<tracing_appender::non_blocking::NonBlocking>,
    tracing_appender::non_blocking::WorkerGuard,
) {
    // The server's log is its only output besides the protocol on stdout.
    #[allow(clippy::disallowed_methods)]
    let stderr = io::stderr();
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("skills-mcp-log")
        .finish(stderr);
    (Clipped::new(writer), guard)
}

impl<'a, W> MakeWriter<'a> for Clipped<W>
where
    W: MakeWriter<'a>,
{
    type Writer = ClippedWriter<W::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        ClippedWriter {
            inner: self.inner.make_writer(),
            window: Arc::clone(&self.window),
        }
    }
}

/// Writes one formatted event (tracing-subscriber writes each event with one `write_all`).
pub(crate) struct ClippedWriter<W> {
    inner: W,
    window: Arc<Mutex<Window>>,
}

impl<W: Write> Write for ClippedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let dropped = {
            let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let mut dropped = 0;
            if now.duration_since(window.started) >= Duration::from_secs(1) {
                dropped = window.dropped;
                *window = Window {
                    started: now,
                    written: 0,
                    dropped: 0,
                };
            }
            if window.written >= PER_SECOND {
                window.dropped = window.dropped.saturating_add(1);
                return Ok(buf.len());
            }
            window.written = window.written.saturating_add(1);
            dropped
        };
        if dropped > 0 {
            let note = format!(
                "skills-mcp-server: {dropped} log lines dropped (more than {PER_SECOND} a second)\n"
            );
            self.inner.write_all(note.as_bytes())?;
        }
        match buf.get(..MAX_LINE).filter(|_| buf.len() > MAX_LINE) {
            None => self.inner.write_all(buf)?,
            Some(head) => {
                // Cut on a character boundary, so the line stays valid UTF-8.
                let keep = match std::str::from_utf8(head) {
                    Ok(_) => head.len(),
                    Err(e) => e.valid_up_to(),
                };
                let cut = buf.len().saturating_sub(keep);
                let mut line = head.get(..keep).unwrap_or_default().to_vec();
                line.extend_from_slice(format!(" … ({cut} bytes cut)\n").as_bytes());
                self.inner.write_all(&line)?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A shared in-memory sink.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl MakeWriter<'_> for Sink {
        type Writer = Sink;
        fn make_writer(&self) -> Sink {
            self.clone()
        }
    }

    fn text(sink: &Sink) -> String {
        String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_long_line_is_cut_on_a_character_boundary() {
        let sink = Sink::default();
        let clipped = Clipped::new(sink.clone());
        let line = format!("a{}\n", "é".repeat(100_000));
        clipped.make_writer().write_all(line.as_bytes()).unwrap();
        let written = text(&sink);
        assert!(written.len() < MAX_LINE + 40, "{} bytes", written.len());
        assert!(written.ends_with("bytes cut)\n"), "{written}");
    }

    #[test]
    fn lines_past_the_rate_are_dropped_and_counted() {
        let sink = Sink::default();
        let clipped = Clipped::new(sink.clone());
        for _ in 0..PER_SECOND + 30 {
            clipped.make_writer().write_all(b"line\n").unwrap();
        }
        assert_eq!(text(&sink).lines().count(), PER_SECOND as usize);
        // A new second starts: the count of dropped lines comes first.
        clipped.window.lock().unwrap().started -= Duration::from_secs(1);
        clipped.make_writer().write_all(b"later\n").unwrap();
        let written = text(&sink);
        let tail: Vec<_> = written.lines().rev().take(2).collect();
        assert_eq!(
            tail,
            [
                "later",
                "skills-mcp-server: 30 log lines dropped (more than 50 a second)"
            ]
        );
    }
}

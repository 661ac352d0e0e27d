//! The gateway's stdio transport to a downstream server: newline-delimited JSON-RPC, as
//! rmcp's, except for a message over [`MAX_MESSAGE`].
//!
//! rmcp drops such a line and reads on, so the request it answered waits forever (the
//! agent's call was never answered). Here the dropped line is scanned, as it streams by,
//! for its top-level `id`; when it has one, the request gets an error in its place
//! ([`oversized`] recognises it), which the gateway turns into a tool error. Memory stays
//! bounded: the line is never held whole, and the scan keeps a few bytes.

use rmcp::RoleClient;
use rmcp::model::{ErrorCode, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, BufReader};

/// The longest message read from a server (rmcp's limit too, and its HTTP client's).
pub(crate) const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The key of the error data that marks an answer dropped for its size.
const OVERSIZED: &str = "skillsGatewayOversizedBytes";

/// The size of the answer that `error` stands for, when it stands for one dropped here.
pub(crate) fn oversized(error: &ErrorData) -> Option<u64> {
    error.data.as_ref()?.get(OVERSIZED)?.as_u64()
}

/// A client transport over a server's stdout and stdin.
pub(crate) struct ChildLines<R, W>
where
    W: AsyncWrite,
{
    /// The server's name, for the log.
    name: String,
    read: BufReader<R>,
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped; kept here because `receive`
    /// can be cancelled half-way (rmcp polls it in a `select!`).
    skipping: Option<Skipped>,
    write: AsyncRwTransport<RoleClient, tokio::io::Empty, W>,
}

/// An over-long line being skipped.
struct Skipped {
    scan: IdScan,
    bytes: usize,
}

impl<R, W> ChildLines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(name: &str, read: R, write: W) -> Self {
        Self {
            name: name.to_string(),
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            write: AsyncRwTransport::new_client(tokio::io::empty(), write),
        }
    }

    /// The next whole line (`Ok(true)`), or an over-long one skipped (`Ok(false)` with
    /// `skipped` set); `None` at the end of the stream. Cancel-safe: bytes move from the
    /// buffer with no await in between.
    async fn next_line(&mut self) -> Option<Result<(), Skipped>> {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(e) => {
                    tracing::debug!("[gateway] server={}: cannot read: {e}", self.name);
                    return None;
                }
            };
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = available.get(..take).unwrap_or_default();
            let mut outcome = None;
            if let Some(skipped) = self.skipping.as_mut() {
                skipped.scan.feed(chunk);
                skipped.bytes = skipped.bytes.saturating_add(take);
                if newline.is_some() {
                    outcome = self.skipping.take().map(Err);
                }
            } else if self.line.len().saturating_add(take) > MAX_MESSAGE {
                let mut scan = IdScan::default();
                scan.feed(&self.line);
                scan.feed(chunk);
                let skipped = Skipped {
                    scan,
                    bytes: self.line.len().saturating_add(take),
                };
                self.line.clear();
                if newline.is_some() {
                    outcome = Some(Err(skipped));
                } else {
                    self.skipping = Some(skipped);
                }
            } else {
                self.line.extend_from_slice(chunk);
                if newline.is_some() {
                    outcome = Some(Ok(()));
                }
            }
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return Some(outcome);
            }
        }
    }
}

impl<R, W> Transport<RoleClient> for ChildLines<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.next_line().await? {
                Ok(()) => {
                    let line = std::mem::take(&mut self.line);
                    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
                    let parsed = if text.iter().all(u8::is_ascii_whitespace) {
                        None
                    } else {
                        match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(text) {
                            Ok(message) => Some(message),
                            Err(e) => {
                                tracing::debug!(
                                    "[gateway] server={}: ignoring a message that cannot be read: {e}",
                                    self.name
                                );
                                None
                            }
                        }
                    };
                    self.line = line;
                    self.line.clear();
                    if let Some(message) = parsed {
                        return Some(message);
                    }
                }
                Err(skipped) => {
                    tracing::warn!(
                        "[gateway] server={}: a message of {} bytes was dropped unread (the most is {} MiB)",
                        self.name,
                        skipped.bytes,
                        MAX_MESSAGE >> 20
                    );
                    if let Some(id) = skipped.scan.id() {
                        let error = ErrorData::new(
                            ErrorCode::INTERNAL_ERROR,
                            format!(
                                "the answer was over {} MiB and was dropped unread",
                                MAX_MESSAGE >> 20
                            ),
                            Some(serde_json::json!({ OVERSIZED: skipped.bytes })),
                        );
                        return Some(JsonRpcMessage::error(error, Some(id)));
                    }
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.write.close()
    }
}

/// What the bytes being scanned are.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Capture {
    #[default]
    Nothing,
    /// A key of the top-level object.
    Key,
    /// The value of its `id`, a string.
    IdString,
    /// The value of its `id`, a number.
    IdNumber,
}

/// Finds the `id` of a top-level JSON object fed in pieces, keeping only the last key
/// and the id's text.
#[derive(Debug, Default)]
struct IdScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    /// At depth 1, the next value is the id.
    id_next: bool,
    capture: Capture,
    buf: Vec<u8>,
    key: Vec<u8>,
    found: Option<Vec<u8>>,
}

/// The longest key or id kept: longer ones are not ids anyone uses.
const CAPTURE: usize = 256;

impl IdScan {
    fn push(&mut self, b: u8) {
        if self.capture != Capture::Nothing && self.buf.len() < CAPTURE {
            self.buf.push(b);
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    self.push(b);
                } else if b == b'\\' {
                    self.escaped = true;
                    self.push(b);
                } else if b == b'"' {
                    self.in_string = false;
                    match std::mem::take(&mut self.capture) {
                        Capture::Key => self.key = std::mem::take(&mut self.buf),
                        Capture::IdString => {
                            self.buf.push(b);
                            self.found = Some(std::mem::take(&mut self.buf));
                        }
                        Capture::IdNumber | Capture::Nothing => {}
                    }
                } else {
                    self.push(b);
                }
                continue;
            }
            if self.capture == Capture::IdNumber {
                if matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace() {
                    self.found = Some(std::mem::take(&mut self.buf));
                    return;
                }
                self.push(b);
                continue;
            }
            let top = self.depth == 1;
            match b {
                b'"' => {
                    self.in_string = true;
                    if top && self.expect_key {
                        self.expect_key = false;
                        self.capture = Capture::Key;
                        self.buf.clear();
                    } else if top && self.id_next {
                        self.id_next = false;
                        self.capture = Capture::IdString;
                        self.buf.clear();
                        self.buf.push(b);
                    }
                }
                b'{' | b'[' => {
                    self.id_next = false;
                    self.depth = self.depth.saturating_add(1);
                    if self.depth == 1 && b == b'{' {
                        self.expect_key = true;
                    }
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b':' if top => self.id_next = self.key == b"id",
                b',' if top => {
                    self.expect_key = true;
                    self.id_next = false;
                }
                _ if b.is_ascii_whitespace() => {}
                _ if top && self.id_next => {
                    self.id_next = false;
                    if b == b'-' || b.is_ascii_digit() {
                        self.capture = Capture::IdNumber;
                        self.buf.clear();
                        self.buf.push(b);
                    }
                }
                _ => {}
            }
        }
    }

    /// The id found, as a request id.
    fn id(&self) -> Option<RequestId> {
        serde_json::from_slice(self.found.as_deref()?).ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn scanned(text: &str, piece: usize) -> Option<RequestId> {
        let mut scan = IdScan::default();
        for chunk in text.as_bytes().chunks(piece) {
            scan.feed(chunk);
        }
        // A number at the very end of the line ends with it.
        scan.feed(b"\n");
        scan.id()
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        for piece in [1, 3, 1000] {
            assert_eq!(
                scanned(r#"{"jsonrpc":"2.0","id":5,"result":{"x":1}}"#, piece),
                Some(RequestId::Number(5))
            );
            assert_eq!(
                scanned(
                    r#"{"result":{"id":9,"t":"\"id\":3, {"},"jsonrpc":"2.0", "id" : "a-\"1"}"#,
                    piece
                ),
                Some(RequestId::String("a-\"1".into()))
            );
            assert_eq!(
                scanned(r#"{"result":[{"id":1}],"x":"id","id":-7}"#, piece),
                Some(RequestId::Number(-7))
            );
            assert_eq!(scanned(r#"{"result":{"id":1}}"#, piece), None);
            assert_eq!(scanned(r#"{"id":{"a":1},"result":1}"#, piece), None);
            assert_eq!(scanned(r#"["id",1]"#, piece), None);
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_oversized_answer_becomes_an_error_for_its_request() {
        let big = "x".repeat(MAX_MESSAGE);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"t\":\"{big}\"}}}}\n{{\"jsonrpc\":\"2.0\",\"result\":{{\"t\":\"{big}\"}}}}\n{{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{{}}}}\n"
        );
        let mut t = ChildLines::new(
            "t",
            std::io::Cursor::new(input.into_bytes()),
            tokio::io::sink(),
        );
        let Some(JsonRpcMessage::Error(error)) = t.receive().await else {
            panic!("no error for the oversized answer");
        };
        assert_eq!(error.id, Some(RequestId::Number(3)));
        assert!(oversized(&error.error).unwrap() > MAX_MESSAGE as u64);
        // The one without an id is dropped; the next is read.
        let Some(JsonRpcMessage::Response(response)) = t.receive().await else {
            panic!("the next answer is not read");
        };
        assert_eq!(response.id, RequestId::Number(4));
        assert!(t.receive().await.is_none());
    }
}

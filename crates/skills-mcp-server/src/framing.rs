//! Newline-delimited JSON-RPC framing that answers every request whose id it can read.
//!
//! rmcp's own line transport drops what it cannot parse: a request whose params have the
//! wrong type (`"arguments": "x"`) fell through to a custom request and got "method not
//! found"; a request holding a lone `\ud800`, nesting deeper than serde_json's 128 levels,
//! or sharing its line with another message got no answer at all; the last line of the
//! stream was lost when it had no newline; and an invalid request was answered without its
//! id. A client then waits forever for an answer that will never come.
//!
//! Here each line is split into its JSON values first (without building them, so depth
//! costs nothing), the envelope (`jsonrpc`, `id`, `method`) is read on its own, and only
//! then is the whole message parsed. What fails is answered here, with the request's id:
//! -32602 when the method is known and its params cannot be read, -32600 when the envelope
//! itself is wrong. Notifications and client responses are never answered (answering them
//! can start an error storm with a peer that echoes), nor is text that is not JSON.
//! Writing is rmcp's: replies go through the same writer, so lines never interleave.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, BufReader};

use crate::text;

/// The longest line read; a longer one is dropped unread (rmcp's limit too).
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// The client requests rmcp parses into typed requests. Anything else becomes a custom
/// request, so one of these arriving as a custom request means its params did not fit.
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

type Sending = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// What one line turned into, in the order it arrived.
enum Out {
    Deliver(RxJsonRpcMessage<RoleServer>),
    Reply(TxJsonRpcMessage<RoleServer>),
}

/// A server transport over a byte stream, newline-delimited.
pub(crate) struct Lines<R, W>
where
    W: AsyncWrite,
{
    read: BufReader<R>,
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped; kept here because `receive`
    /// can be cancelled half-way (rmcp polls it in a `select!`).
    discarding: bool,
    eof: bool,
    queue: VecDeque<Out>,
    /// A reply being written; kept across cancellation so it is never lost half-way.
    sending: Option<Sending>,
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            eof: false,
            queue: VecDeque::new(),
            sending: None,
            write: AsyncRwTransport::new_server(tokio::io::empty(), write),
        }
    }

    /// Reads up to and including the next newline into `self.line`; `false` at the end
    /// of the stream. Cancel-safe: bytes are moved from the buffer to `self.line` with no
    /// await in between, so a cancelled read resumes where it stopped.
    async fn read_line(&mut self) -> io::Result<bool> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(false);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = available.get(..take).unwrap_or_default();
            if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
            } else if self.line.len().saturating_add(take) > MAX_LINE {
                self.line.clear();
                self.discarding = newline.is_none();
                tracing::warn!("a message longer than {MAX_LINE} bytes was dropped unread");
            } else {
                self.line.extend_from_slice(chunk);
                if newline.is_some() {
                    self.read.consume(take);
                    return Ok(true);
                }
            }
            self.read.consume(take);
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(sending) = self.sending.as_mut() {
                let sent = sending.await;
                self.sending = None;
                if let Err(e) = sent {
                    tracing::debug!("cannot write an error reply: {e}");
                    return None;
                }
            }
            match self.queue.pop_front() {
                Some(Out::Deliver(message)) => return Some(message),
                Some(Out::Reply(reply)) => {
                    self.sending = Some(Box::pin(self.write.send(reply)));
                    continue;
                }
                None => {}
            }
            if self.eof {
                return None;
            }
            match self.read_line().await {
                Ok(true) => {}
                // The last line counts even without its newline.
                Ok(false) => self.eof = true,
                Err(e) => {
                    tracing::debug!("cannot read from the client: {e}");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            frame(&line, &mut self.queue);
            self.line = line;
            self.line.clear();
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.write.close()
    }
}

/// The most messages (or answers) one line queues. A line is one message; a few on one
/// line are read, but 16 MiB of `{"id":1}` on one line queued 1.8 million of them (1 to
/// 2.8 GB) before the read-ahead limit could count any.
const MAX_PER_LINE: usize = 64;

/// Splits one line into its messages and queues each, or the answer to each, up to
/// [`MAX_PER_LINE`]; the rest of the line is dropped, and logged.
fn frame(line: &[u8], queue: &mut VecDeque<Out>) {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    // Invalid UTF-8 inside a string made the whole line "not JSON", and a request whose id
    // could be read went unanswered: read as U+FFFD, the request is answered (a skill of
    // that name is not found, say).
    let repaired;
    let line = if std::str::from_utf8(line).is_err() {
        repaired = String::from_utf8_lossy(line).into_owned();
        repaired.as_bytes()
    } else {
        line
    };
    let full = queue.len().saturating_add(MAX_PER_LINE);
    for value in serde_json::Deserializer::from_slice(line).into_iter::<Box<RawValue>>() {
        if queue.len() >= full {
            tracing::warn!(
                "more than {MAX_PER_LINE} messages on one line; the rest of it is dropped"
            );
            return;
        }
        match value {
            Ok(value) => message(value.get(), queue, full),
            Err(e) => {
                // No id can be read from text that is not JSON, and answering it could
                // start a storm with a peer that echoes; the rest of the line is lost.
                tracing::debug!("ignoring input that is not JSON: {e}");
                return;
            }
        }
    }
}

/// The parts of a message read before the message itself. Every field is taken raw, so a
/// deep or odd value elsewhere cannot stop the id from being read.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

fn message(text: &str, queue: &mut VecDeque<Out>, full: usize) {
    if text.starts_with('[') {
        return batch(text, queue, full);
    }
    let Ok(envelope) = serde_json::from_str::<Envelope<'_>>(text) else {
        // Not an object: not a request, a notification or a response.
        return reply(
            queue,
            invalid_request("a message must be a JSON object"),
            None,
        );
    };
    let id = envelope
        .id
        .and_then(|id| serde_json::from_str::<RequestId>(id.get()).ok());
    let method = envelope
        .method
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok());
    let parsed = serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(text);
    let error = match parsed {
        Ok(JsonRpcMessage::Request(request)) => {
            if let ClientRequest::CustomRequest(custom) = &request.request
                && TYPED_METHODS.contains(&custom.method.as_str())
            {
                let error = invalid_params(&custom.method, "the params do not have its shape");
                return reply(queue, error, Some(request.id));
            }
            return queue.push_back(Out::Deliver(JsonRpcMessage::Request(request)));
        }
        Ok(message) => return queue.push_back(Out::Deliver(message)),
        Err(e) => e,
    };
    if envelope.id.is_none() {
        if envelope.method.is_none() && envelope.result.is_none() && envelope.error.is_none() {
            return reply(queue, invalid_request("a message needs a method"), None);
        }
        // A notification (or an id-less error) that does not parse; it asks for no answer.
        tracing::debug!(
            "ignoring a notification that cannot be read: {}",
            clip(&error)
        );
        return;
    }
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        tracing::debug!("ignoring a response that cannot be read: {}", clip(&error));
        return;
    }
    let version_ok = envelope
        .jsonrpc
        .is_some_and(|v| serde_json::from_str::<&str>(v.get()).is_ok_and(|v| v == "2.0"));
    let answer = match (&id, &method) {
        (None, _) => invalid_request("the id must be a string or an integer"),
        _ if !version_ok => invalid_request("\"jsonrpc\" must be \"2.0\""),
        (Some(_), None) => invalid_request("the method must be a string"),
        (Some(_), Some(method)) => invalid_params(method, &clip(&error)),
    };
    reply(queue, answer, id);
}

/// JSON-RPC batches were removed from MCP (2025-06-18): each request in one is refused
/// with its own id, so none of them waits for an answer.
fn batch(text: &str, queue: &mut VecDeque<Out>, full: usize) {
    let elements = serde_json::from_str::<Vec<&RawValue>>(text).unwrap_or_default();
    let mut answered = false;
    for element in elements {
        if queue.len() >= full {
            tracing::warn!("a batch of more than {MAX_PER_LINE} messages; the rest is dropped");
            return;
        }
        let id = serde_json::from_str::<Envelope<'_>>(element.get())
            .ok()
            .and_then(|envelope| envelope.id)
            .and_then(|id| serde_json::from_str::<RequestId>(id.get()).ok());
        if let Some(id) = id {
            answered = true;
            reply(queue, batch_refused(), Some(id));
        }
    }
    if !answered {
        reply(queue, batch_refused(), None);
    }
}

fn batch_refused() -> ErrorData {
    invalid_request("batches are not part of MCP; send one message per line")
}

fn reply(queue: &mut VecDeque<Out>, error: ErrorData, id: Option<RequestId>) {
    queue.push_back(Out::Reply(JsonRpcMessage::error(error, id)));
}

fn invalid_request(why: &'static str) -> ErrorData {
    ErrorData::invalid_request(format!("invalid request: {why}"), None)
}

fn invalid_params(method: &str, why: &str) -> ErrorData {
    let method = text::clip(method);
    ErrorData::invalid_params(format!("invalid params for {method}: {why}"), None)
}

/// serde quotes the offending value, which the client chose and may have made huge.
fn clip(e: &serde_json::Error) -> String {
    text::clip(&e.to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use serde_json::{Value, json};

    /// What `frame` makes of `line`: delivered messages as their method, replies as JSON.
    fn framed(line: &str) -> Vec<Value> {
        let mut queue = VecDeque::new();
        frame(line.as_bytes(), &mut queue);
        queue
            .into_iter()
            .map(|out| match out {
                Out::Deliver(message) => {
                    json!({ "delivered": serde_json::to_value(message).unwrap()["method"] })
                }
                Out::Reply(reply) => serde_json::to_value(reply).unwrap(),
            })
            .collect()
    }

    fn code_and_id(reply: &Value) -> (i64, Value) {
        (
            reply["error"]["code"].as_i64().expect("an error reply"),
            reply["id"].clone(),
        )
    }

    #[test]
    fn every_typed_method_is_typed_in_rmcp() {
        // If rmcp stops parsing one of these, a wrongly typed call would be refused as
        // -32602 while a correct one is a custom request: the list must follow rmcp.
        // One params object with every field the typed requests require.
        let params = json!({
            "uri": "skill://x", "name": "x", "taskId": "t", "level": "info",
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
            "ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"},
            "inputResponses": {}, "notifications": {},
        });
        let mut untyped = Vec::new();
        for method in TYPED_METHODS {
            let parsed = serde_json::from_value::<ClientRequest>(json!({
                "method": method,
                "params": params,
            }));
            if let Ok(ClientRequest::CustomRequest(_)) = parsed {
                untyped.push(method);
            }
        }
        assert!(untyped.is_empty(), "no typed request for {untyped:?}");
    }

    #[test]
    fn wrongly_typed_params_are_invalid_params_with_the_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":5}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":null}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\ud800"}}"#,
        ] {
            let out = framed(line);
            assert_eq!(out.len(), 1, "{line}: {out:?}");
            assert_eq!(code_and_id(&out[0]), (-32602, json!(7)), "{line}");
        }
    }

    #[test]
    fn deep_nesting_is_answered() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let out = framed(&deep);
        assert_eq!(code_and_id(&out[0]), (-32602, json!("d")));
    }

    #[test]
    fn two_messages_on_one_line_are_both_read() {
        let out = framed(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        );
        assert_eq!(
            out,
            [
                json!({"delivered": "ping"}),
                json!({"delivered": "tools/list"})
            ]
        );
    }

    #[test]
    fn invalid_requests_keep_their_id() {
        let out = framed(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#);
        assert_eq!(code_and_id(&out[0]), (-32600, json!(3)));
        let out = framed(r#"{"jsonrpc":"2.0","id":4,"method":5}"#);
        assert_eq!(code_and_id(&out[0]), (-32600, json!(4)));
        let out = framed(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#);
        assert_eq!(code_and_id(&out[0]), (-32600, Value::Null));
        let out = framed("5");
        assert_eq!(code_and_id(&out[0]), (-32600, Value::Null));
    }

    /// A request with invalid UTF-8 in a string is answered with its id.
    #[test]
    fn invalid_utf8_in_a_string_is_read_and_answered() {
        let mut queue = VecDeque::new();
        frame(
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get_skill\",\"arguments\":{\"id\":\"\xc3\x28\"}}}",
            &mut queue,
        );
        assert!(
            matches!(queue.front(), Some(Out::Deliver(JsonRpcMessage::Request(r))) if r.id == RequestId::Number(2)),
            "{}",
            queue.len()
        );
    }

    /// Thousands of messages on one line (one batch, or objects one after another) queue
    /// at most MAX_PER_LINE answers: memory is bounded by the line, not 70 to 170 times it.
    #[test]
    fn one_line_queues_at_most_its_share() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let batch = format!("[{}]", vec![ping; 10_000].join(","));
        assert_eq!(framed(&batch).len(), MAX_PER_LINE);
        let run = vec![ping; 10_000].join("");
        assert_eq!(framed(&run).len(), MAX_PER_LINE);
        // Two on one line are both read, as before.
        assert_eq!(framed(&format!("{ping}{ping}")).len(), 2);
    }

    #[test]
    fn batches_are_refused_per_request() {
        let out = framed(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]"#,
        );
        let answers: Vec<_> = out.iter().map(code_and_id).collect();
        assert_eq!(answers, [(-32600, json!(1)), (-32600, json!("b"))]);
        assert_eq!(code_and_id(&framed("[]")[0]), (-32600, Value::Null));
    }

    #[test]
    fn notifications_responses_and_garbage_get_no_answer() {
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
            r#"{"jsonrpc":"2.0","method":"$/lsp","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":5,"error":7}"#,
            "not json",
            "{\"jsonrpc\"",
            "   ",
        ] {
            let out = framed(line);
            assert!(
                out.iter().all(|o| o.get("error").is_none()),
                "{line}: {out:?}"
            );
        }
    }

    #[test]
    fn long_client_text_is_clipped_in_the_answer() {
        let long = "x".repeat(100_000);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":{long:?},"arguments":"{long}"}}}}"#
        );
        let out = framed(&line);
        let message = out[0]["error"]["message"].as_str().unwrap();
        assert!(message.len() < 1_000, "{} bytes", message.len());
    }
}

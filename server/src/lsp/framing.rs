//! Base-protocol framing that survives a misbehaving client: bytes in, JSON-RPC messages out.
//!
//! The protocol library's own reader ends the input stream at the first frame it cannot decode — a
//! body that is no JSON-RPC message (`{}`, `42`, a batch), a bad header, bytes that are not UTF-8 —
//! so one bad frame from a client would stop the server or leave it deaf. This state machine sits in
//! front of it and hands on only bodies that library decodes, each re-framed exactly.
//!
//! The model: a frame is a header block, then a body whose extent the `Content-Length` header
//! gives. A client that counts characters instead of bytes, or sends no usable length, still sends
//! one JSON value per body, so when the declared length does not hold a JSON value, the value's own
//! extent decides (logged): a length too short is extended to the end of the value, one too long is
//! cut where the value ends and the next header begins. What cannot be read is skipped up to the
//! next `Content-Length`, which is how the stream re-synchronises. Nothing is allocated from a
//! header's number: the buffer grows only with bytes that arrived, up to [`MAX_MESSAGE`].
//!
//! It does not answer a skipped request (the library owns the output stream); every skip is a
//! warning in the log.

use serde::de::IgnoredAny;
use tower_lsp_server::jsonrpc::{Request, Response};

/// The largest message read: a 256 MiB body holds any document an editor sends.
pub const MAX_MESSAGE: usize = 256 << 20;

/// A header block longer than this without its blank line is not a header block.
const MAX_HEADERS: usize = 8 << 10;

/// What the framer found: a message to pass on, or a note of what it skipped.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A body the protocol library decodes.
    Message(Vec<u8>),
    /// Something was skipped or repaired; the text says what (for the log).
    Warning(String),
}

#[derive(Debug, Default)]
pub struct Framer {
    buffer: Vec<u8>,
    /// Bytes before this are consumed.
    start: usize,
    /// Set once a header block is read: the body's declared length (`None`: no usable length).
    body: Option<Option<usize>>,
    /// The buffered length at the last attempt to find a value's extent, so a slow large body is
    /// not re-scanned on every arrival.
    last_scan: usize,
    /// Events found and not yet given out, in order.
    out: std::collections::VecDeque<Event>,
    /// Bytes skipped since the last frame, and why: one warning per run of garbage, not one per
    /// read.
    skipped: usize,
    skip_reason: Option<String>,
}

/// Where the first JSON value of some bytes ends.
enum Extent {
    /// The value ends here (leading whitespace included).
    Complete(usize),
    /// The bytes are a prefix of a value, or only whitespace.
    Incomplete,
    /// No JSON value starts here.
    Invalid,
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Adds bytes read from the client.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// Whether bytes of an unfinished frame are buffered (the reader then calls [`Framer::next`]
    /// with `idle` after a pause, so a body shorter than its header says is not waited for forever).
    pub fn is_partial(&self) -> bool {
        !self.pending_bytes().iter().all(u8::is_ascii_whitespace)
    }

    fn pending_bytes(&self) -> &[u8] {
        &self.buffer[self.start..]
    }

    /// The next event, or `None` until more bytes arrive. `idle` says no byte has arrived for a
    /// while (or the input ended): an unfinished frame is then read as far as it goes.
    pub fn next(&mut self, idle: bool) -> Option<Event> {
        loop {
            if let Some(event) = self.out.pop_front() {
                return Some(event);
            }
            let progressed = match self.body {
                None => self.read_headers(),
                Some(length) => self.read_body(length, idle),
            };
            if !progressed {
                if idle {
                    self.end_skip();
                    if let Some(event) = self.out.pop_front() {
                        return Some(event);
                    }
                }
                return None;
            }
        }
    }

    fn warn(&mut self, text: String) {
        self.out.push_back(Event::Warning(text));
    }

    /// Reads one header block; `false` until one is complete. Bytes that are no header block are
    /// skipped up to the next `Content-Length`.
    fn read_headers(&mut self) -> bool {
        let bytes = self.pending_bytes();
        let leading = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if leading == bytes.len() {
            self.start += leading;
            return false;
        }
        self.start += leading;
        let bytes = self.pending_bytes();
        let Some((block, after)) = header_block(bytes) else {
            if bytes.len() > MAX_HEADERS || !starts_like_header(bytes) {
                self.skip_to_next_header("input that is no LSP header");
                return true;
            }
            return false;
        };
        match parse_headers(block) {
            Ok((length, warnings)) => {
                self.end_skip();
                self.start += after;
                for warning in warnings {
                    self.warn(warning);
                }
                self.body = Some(length);
                self.last_scan = 0;
            }
            Err(reason) => self.skip_to_next_header(reason),
        }
        true
    }

    /// Drops unreadable bytes up to the next `Content-Length`, or all of them but a tail that may be
    /// the start of one, and ends the frame.
    fn skip_to_next_header(&mut self, reason: &str) {
        let bytes = self.pending_bytes();
        let next = find_content_length(&bytes[1.min(bytes.len())..]).map(|at| at + 1);
        let skipped = next.unwrap_or_else(|| (bytes.len() - partial_content_length(bytes)).max(1).min(bytes.len()));
        self.start += skipped;
        self.body = None;
        self.skipped += skipped;
        self.skip_reason.get_or_insert_with(|| reason.to_string());
        if next.is_some() {
            self.end_skip();
        }
    }

    /// Logs the run of skipped bytes, once it ends.
    fn end_skip(&mut self) {
        if let Some(reason) = self.skip_reason.take() {
            self.warn(format!("skipped {} bytes: {reason}", self.skipped));
            self.skipped = 0;
        }
    }

    /// Reads the body of the frame whose headers were read; `false` until there is enough of it.
    fn read_body(&mut self, length: Option<usize>, idle: bool) -> bool {
        let available = self.pending_bytes().len();
        if let Some(length) = length
            && available >= length
        {
            let body = &self.pending_bytes()[..length];
            if decodes(body) {
                let message = body.to_vec();
                self.end_frame(length, Event::Message(message));
                return true;
            }
            // The common failure is a message that is no JSON-RPC message: its extent is the
            // declared one. Only when the declared body holds no whole JSON value is the length
            // itself suspect.
            match extent(body) {
                Extent::Complete(end) if body[end..].iter().all(u8::is_ascii_whitespace) => {
                    let reason = rejection(body);
                    self.end_frame(length, Event::Warning(format!("skipped a message that is {reason}")));
                    return true;
                }
                Extent::Complete(end) => {
                    // Longer than its body: the next frame starts inside it.
                    self.found_value(end, format!("Content-Length said {length}, its JSON ended at {end}"));
                    return true;
                }
                Extent::Invalid => {
                    self.skip_to_next_header("a body that is not JSON");
                    return true;
                }
                Extent::Incomplete => {} // Shorter than its body: read on to the value's end.
            }
        }
        if available > MAX_MESSAGE {
            self.skip_to_next_header(&format!("a message over {MAX_MESSAGE} bytes"));
            return true;
        }
        let declared_is_short = length.is_some_and(|length| available >= length);
        // A body still arriving is not scanned (the common case: it will hold its length); one
        // whose extent must be found is scanned when it has doubled since the last scan, or on a
        // pause.
        if !idle && (length.is_some() && !declared_is_short || available < self.last_scan.saturating_mul(2).max(1)) {
            return false;
        }
        self.last_scan = available;
        match extent(self.pending_bytes()) {
            Extent::Complete(end) => {
                let said = match length {
                    Some(length) => format!("Content-Length said {length}"),
                    None => "no usable Content-Length".to_string(),
                };
                self.found_value(end, format!("{said}, its JSON ended at {end}"));
                true
            }
            // Still arriving (a truncated body followed by another frame reads as no JSON).
            Extent::Incomplete => false,
            Extent::Invalid => {
                self.skip_to_next_header("a body that is not JSON");
                true
            }
        }
    }

    /// A body whose extent its JSON value gave: passed on if it decodes, with the repair logged.
    fn found_value(&mut self, end: usize, repair: String) {
        let body = &self.pending_bytes()[..end];
        let event = if decodes(body) {
            let message = body.to_vec();
            self.warn(format!("read a message whose length was wrong ({repair})"));
            Event::Message(message)
        } else {
            Event::Warning(format!("skipped a message that is {} ({repair})", rejection(body)))
        };
        self.end_frame(end, event);
    }

    fn end_frame(&mut self, consumed: usize, event: Event) {
        self.start += consumed;
        self.body = None;
        self.out.push_back(event);
    }
}

const CONTENT_LENGTH: &[u8] = b"content-length";

fn find_content_length(bytes: &[u8]) -> Option<usize> {
    bytes.windows(CONTENT_LENGTH.len()).position(|window| window.eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// The length of the longest tail of `bytes` that `Content-Length` starts with.
fn partial_content_length(bytes: &[u8]) -> usize {
    (1..CONTENT_LENGTH.len().min(bytes.len() + 1))
        .rev()
        .find(|&n| bytes[bytes.len() - n..].eq_ignore_ascii_case(&CONTENT_LENGTH[..n]))
        .unwrap_or(0)
}

/// Whether these bytes could be the start of a header line (`Name:`).
fn starts_like_header(bytes: &[u8]) -> bool {
    let name = bytes.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-').count();
    name > 0 && (name == bytes.len() || bytes[name] == b':')
}

/// The header block at the start of `bytes` (without its blank line) and the offset after it.
fn header_block(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let mut line_start = 0;
    while let Some(newline) = bytes[line_start..].iter().position(|b| *b == b'\n') {
        let line = &bytes[line_start..line_start + newline];
        if line == b"" || line == b"\r" {
            return Some((&bytes[..line_start], line_start + newline + 1));
        }
        line_start += newline + 1;
    }
    None
}

/// The declared body length of a header block (`None` when no usable one), with warnings; `Err`
/// when the block is no header block.
fn parse_headers(block: &[u8]) -> Result<(Option<usize>, Vec<String>), &'static str> {
    let mut lengths = Vec::new();
    let mut warnings = Vec::new();
    for line in block.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let Some(colon) = line.iter().position(|b| *b == b':') else { return Err("a header line without a colon") };
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-') {
            return Err("a header line that names no header");
        }
        if name.eq_ignore_ascii_case(CONTENT_LENGTH) {
            let value = String::from_utf8_lossy(&line[colon + 1..]).trim().to_string();
            lengths.push(value);
        }
    }
    let length = match lengths.as_slice() {
        // Garbage run into the next frame's header: skipped up to it.
        [] if find_content_length(block).is_some() => return Err("input that is no LSP header"),
        [] => {
            warnings.push("a message has no Content-Length header".to_string());
            None
        }
        [value, rest @ ..] if rest.iter().any(|other| other != value) => {
            warnings.push(format!("a message has {} different Content-Length headers", lengths.len()));
            None
        }
        [value, ..] => match value.parse::<u64>() {
            Ok(length) if length <= MAX_MESSAGE as u64 => Some(length as usize),
            Ok(length) => {
                warnings.push(format!("a message's Content-Length {length} is over the {MAX_MESSAGE} bytes read"));
                None
            }
            Err(_) => {
                warnings.push(format!("a message's Content-Length {value:?} is no length"));
                None
            }
        },
    };
    Ok((length, warnings))
}

/// Where the JSON value at the start of `bytes` ends. serde_json skips a value without recursing,
/// so a deeply nested body is measured, not a stack overflow.
fn extent(bytes: &[u8]) -> Extent {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => Extent::Complete(values.byte_offset()),
        Some(Err(error)) if error.is_eof() => Extent::Incomplete,
        Some(Err(_)) => Extent::Invalid,
        None => Extent::Incomplete,
    }
}

/// The protocol library's own message type, mirrored: a body it reads into this is one it accepts.
#[derive(serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // Only whether a body decodes matters.
enum Message {
    Response(Response),
    Request(Request),
}

/// Whether the protocol library decodes this body (it reads bodies as UTF-8 text first).
fn decodes(body: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(body) else { return false };
    !text.trim().is_empty() && serde_json::from_str::<Message>(text).is_ok()
}

/// Why a body that holds one JSON value is not a message, for the log.
fn rejection(body: &[u8]) -> String {
    if std::str::from_utf8(body).is_err() {
        return "not UTF-8".to_string();
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Array(_)) => "a batch (the protocol has none)".to_string(),
        Ok(serde_json::Value::Object(_)) => "no JSON-RPC 2.0 message".to_string(),
        Ok(_) => "no JSON-RPC message (not an object)".to_string(),
        Err(error) => format!("unreadable JSON ({error})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// What comes out of `chunks` fed one after another, then a pause: `message <method>` per
    /// message passed on, `warning` per skip or repair.
    fn read(chunks: &[&[u8]]) -> Vec<String> {
        let mut framer = Framer::new();
        let mut seen = Vec::new();
        let mut take = |framer: &mut Framer, idle: bool| {
            while let Some(event) = framer.next(idle) {
                seen.push(match event {
                    Event::Message(body) => {
                        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
                        format!("message {}", value["method"].as_str().unwrap_or("(response)"))
                    }
                    Event::Warning(_) => "warning".to_string(),
                });
            }
        };
        for chunk in chunks {
            framer.push(chunk);
            take(&mut framer, false);
        }
        take(&mut framer, true);
        seen
    }

    fn then_initialized(bad: Vec<u8>) -> Vec<String> {
        read(&[&bad, &frame(INITIALIZED)])
    }

    #[test]
    fn well_formed_frames_pass_whole_or_byte_by_byte() {
        let both = [frame(INITIALIZE), frame(INITIALIZED)].concat();
        assert_eq!(read(&[&both]), ["message initialize", "message initialized"]);
        let bytes: Vec<&[u8]> = both.chunks(1).collect();
        assert_eq!(read(&bytes), ["message initialize", "message initialized"]);
        let with_type = format!(
            "Content-Length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{INITIALIZED}",
            INITIALIZED.len()
        );
        assert_eq!(read(&[with_type.as_bytes()]), ["message initialized"]);
    }

    #[test]
    fn a_json_body_that_is_no_message_is_skipped_and_the_next_one_read() {
        let deep = format!(r#"{{"jsonrpc":"2.0","method":"x","params":{}{}}}"#, "[".repeat(200), "]".repeat(200));
        for body in [
            "{}",
            "42",
            "null",
            "[]",
            r#"[{"jsonrpc":"2.0","method":"initialized","params":{}}]"#,
            r#"{"jsonrpc":"1.0","method":"initialized"}"#,
            r#"{"method":"initialized"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            &deep,
        ] {
            assert_eq!(then_initialized(frame(body)), ["warning", "message initialized"], "{body}");
        }
    }

    #[test]
    fn a_body_that_is_not_json_or_not_utf8_is_skipped() {
        assert_eq!(then_initialized(frame("not json at all")), ["warning", "message initialized"]);
        let mut latin1 = b"Content-Length: 46\r\n\r\n".to_vec();
        latin1.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xe9\xe9\"}");
        assert_eq!(then_initialized(latin1), ["warning", "message initialized"]);
    }

    #[test]
    fn a_length_that_counts_characters_is_repaired_by_the_bodys_extent() {
        let body = r#"{"jsonrpc":"2.0","method":"initialized","params":{"text":"é😀"}}"#;
        let characters = format!("Content-Length: {}\r\n\r\n{body}", body.chars().count()).into_bytes();
        assert_eq!(then_initialized(characters), ["warning", "message initialized", "message initialized"]);
    }

    #[test]
    fn a_length_longer_than_its_body_is_cut_where_the_next_frame_starts_or_after_a_pause() {
        let long = format!("Content-Length: {}\r\n\r\n{INITIALIZE}", INITIALIZE.len() + 30).into_bytes();
        assert_eq!(then_initialized(long.clone()), ["warning", "message initialize", "message initialized"]);
        assert_eq!(read(&[&long]), ["warning", "message initialize"]);
    }

    #[test]
    fn a_missing_or_unusable_length_is_read_by_the_bodys_extent() {
        for header in [
            "Content-Type: application/json\r\n".to_string(),
            "Content-Length: abc\r\n".to_string(),
            "Content-Length: -5\r\n".to_string(),
            format!("Content-Length: {}\r\nContent-Length: 3\r\n", INITIALIZE.len()),
            "Content-Length: 1099511627776\r\n".to_string(),
            "Content-Length: 18446744073709551615\r\n".to_string(),
            "Content-Length: 99999999999999999999999\r\n".to_string(),
        ] {
            let bad = format!("{header}\r\n{INITIALIZE}").into_bytes();
            assert_eq!(then_initialized(bad), ["warning", "warning", "message initialize", "message initialized"], "{header:?}");
        }
    }

    #[test]
    fn a_doubled_equal_length_and_a_header_that_is_not_utf8_are_fine() {
        let doubled = format!("Content-Length: {0}\r\nContent-Length: {0}\r\n\r\n{INITIALIZE}", INITIALIZE.len());
        assert_eq!(read(&[doubled.as_bytes()]), ["message initialize"]);
        let mut latin1 = b"X: \xff\xfe\r\n".to_vec();
        latin1.extend_from_slice(&frame(INITIALIZE));
        assert_eq!(read(&[&latin1]), ["message initialize"]);
    }

    #[test]
    fn garbage_between_frames_is_skipped_up_to_the_next_header() {
        let mut bytes = b"\x00\x01garbage\xff\r\n\r\n".to_vec();
        bytes.extend_from_slice(&frame(INITIALIZE));
        bytes.extend_from_slice(b"}}\"more garbage");
        assert_eq!(then_initialized(bytes.clone()), ["warning", "message initialize", "warning", "message initialized"]);
        bytes.extend_from_slice(&frame(INITIALIZED));
        let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(read(&one_by_one), ["warning", "message initialize", "warning", "message initialized"]);
    }

    #[test]
    fn a_huge_declared_length_allocates_nothing_ahead() {
        let mut framer = Framer::new();
        framer.push(b"Content-Length: 268435456\r\n\r\n{\"jsonrpc\":");
        assert_eq!(framer.next(false), None);
        assert!(framer.buffer.capacity() < 1 << 20);
    }
}

//! A guard in front of the protocol library's reader. tower-lsp-server's framed reader ends the whole
//! input stream at the first body that is not JSON, so one bad message from a client would stop the
//! server. This task reads the frames itself and forwards only well-formed ones; anything else is
//! logged and skipped.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Big enough for any one message to pass without waiting on the reader.
const PIPE_CAPACITY: usize = 1 << 20;

/// Frames read from `input` that carry a JSON body, re-framed on the returned stream.
pub fn well_formed_frames(input: impl AsyncRead + Unpin + Send + 'static) -> DuplexStream {
    let (reader, mut writer) = tokio::io::duplex(PIPE_CAPACITY);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let Some(length) = read_headers(&mut input).await else { break };
            let mut body = vec![0u8; length];
            if input.read_exact(&mut body).await.is_err() {
                break;
            }
            if serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_err() {
                tracing::warn!("skipped a message whose body is not JSON ({length} bytes)");
                continue;
            }
            let header = format!("Content-Length: {length}\r\n\r\n");
            if writer.write_all(header.as_bytes()).await.is_err() || writer.write_all(&body).await.is_err() {
                break;
            }
        }
        let _ = writer.shutdown().await;
    });
    reader
}

/// Reads header lines up to the blank line; `None` at the end of input. A header block without a
/// usable `Content-Length` is skipped (logged) and the next one is read.
async fn read_headers(input: &mut (impl AsyncBufReadExt + Unpin)) -> Option<usize> {
    loop {
        let mut length = None;
        let mut saw_header = false;
        loop {
            let mut line = String::new();
            if input.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if saw_header {
                    break;
                }
                continue;
            }
            saw_header = true;
            if let Some((name, value)) = line.split_once(':')
                && name.trim().eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        match length {
            Some(length) => return Some(length),
            None => tracing::warn!("skipped a message without a valid Content-Length header"),
        }
    }
}

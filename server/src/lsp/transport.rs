//! The reader in front of the protocol library: bytes from the client go through
//! [`framing::Framer`], and only messages the library decodes reach it, each re-framed exactly.
//! (Its own reader ends the input at the first frame it cannot decode.) What the framer skips or
//! repairs is logged as a warning.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, DuplexStream};

use super::framing::{Event, Framer};

/// Big enough for any one ordinary message to pass without waiting on the reader.
const PIPE_CAPACITY: usize = 1 << 20;

/// How long an unfinished frame waits for more bytes before it is read as far as it goes (a
/// `Content-Length` longer than its body). Ordinary clients write a frame at once.
const PAUSE: Duration = Duration::from_millis(200);

/// Messages read from `input`, re-framed on the returned stream; `exit` is notified when the client's
/// `exit` notification has been passed on.
pub fn well_formed_frames(input: impl AsyncRead + Unpin + Send + 'static, exit: std::sync::Arc<tokio::sync::Notify>) -> DuplexStream {
    let (reader, mut writer) = tokio::io::duplex(PIPE_CAPACITY);
    tokio::spawn(async move {
        let mut input = input;
        let mut framer = Framer::new();
        let mut chunk = vec![0u8; 64 << 10];
        let mut paused = false;
        let mut messages = 0usize;
        let mut received = 0usize;
        loop {
            while let Some(event) = framer.next(paused) {
                messages += usize::from(matches!(event, Event::Message(_)));
                let exiting = matches!(&event, Event::Message(body) if is_exit(body));
                if !forward(&mut writer, event).await {
                    return;
                }
                if exiting {
                    exit.notify_one();
                }
            }
            let read = if framer.is_partial() && !paused {
                tokio::time::timeout(PAUSE, input.read(&mut chunk)).await
            } else {
                Ok(input.read(&mut chunk).await)
            };
            match read {
                Err(_elapsed) => paused = true,
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(read)) => {
                    framer.push(&chunk[..read]);
                    received += read;
                    paused = false;
                }
            }
        }
        // The input ended: what is buffered is read as far as it goes.
        while let Some(event) = framer.next(true) {
            messages += usize::from(matches!(event, Event::Message(_)));
            if !forward(&mut writer, event).await {
                return;
            }
        }
        if messages == 0 && received > 0 {
            // Someone typed or piped text at a language server: say what it is and what they want.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "switchyard: the input ended without a Language Server Protocol message ({received} bytes read). \
                 switchyard is a language server that an editor starts; to check an app from a shell, run \
                 `switchyard --check [PATH]`."
            );
        }
        let _ = writer.shutdown().await;
    });
    reader
}

/// Whether a message is the `exit` notification.
fn is_exit(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    body.windows(6).any(|w| w == b"\"exit\"") && serde_json::from_slice::<Method>(body).is_ok_and(|m| m.method.as_deref() == Some("exit"))
}

/// Passes a message on (framed) or logs a warning; `false` once the library stopped reading.
async fn forward(writer: &mut DuplexStream, event: Event) -> bool {
    match event {
        Event::Message(body) => {
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            writer.write_all(header.as_bytes()).await.is_ok() && writer.write_all(&body).await.is_ok()
        }
        Event::Warning(text) => {
            tracing::warn!("client input: {text}");
            true
        }
    }
}

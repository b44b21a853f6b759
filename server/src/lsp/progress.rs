//! `$/progress` that never holds up the work it reports. Creating a progress token is a request to
//! the client; a client that answers late, or never, must not stall an index or a compiler run, and a
//! handler must never wait on it (the protocol library runs a few messages at once: handlers waiting
//! on the client fill its slots, its reader stops, and the client's answer is never read). So the
//! token is created, and the reports sent, by a task of their own; the work hands it what to say and
//! goes on. A client that never answers gets no progress, and loses nothing else.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::NumberOrString;

/// How long `end` waits for a client that has not yet answered the token's creation.
const END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

enum Event {
    Report {
        message: String,
        percentage: u32,
    },
    /// The last message, and who waits for the end to be sent.
    End(Option<String>, tokio::sync::oneshot::Sender<()>),
}

/// What the work says about its progress; dropping it without `end` ends the progress too.
pub struct Reporter {
    events: Option<tokio::sync::mpsc::UnboundedSender<Event>>,
}

impl Reporter {
    /// Begins a progress titled `title` with `message`, reported as a percentage when `bounded`, when
    /// the client said it shows progress (`enabled`); else a reporter that says nothing.
    pub fn begin(client: &Client, enabled: bool, token: String, title: &'static str, message: String, bounded: bool) -> Reporter {
        if !enabled {
            return Reporter { events: None };
        }
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let client = client.clone();
        tokio::spawn(async move {
            let token = NumberOrString::String(token);
            if client.create_work_done_progress(token.clone()).await.is_err() {
                return;
            }
            let progress = client.progress(token, title).with_message(message);
            if bounded {
                let ongoing = progress.with_percentage(0).begin().await;
                while let Some(event) = receiver.recv().await {
                    match event {
                        Event::Report { message, percentage } => ongoing.report_with_message(message, percentage).await,
                        Event::End(message, sent) => return end(ongoing, message, sent).await,
                    }
                }
                ongoing.finish().await;
            } else {
                let ongoing = progress.begin().await;
                while let Some(event) = receiver.recv().await {
                    if let Event::End(message, sent) = event {
                        return end(ongoing, message, sent).await;
                    }
                }
                ongoing.finish().await;
            }
        });
        Reporter { events: Some(sender) }
    }

    pub fn report(&self, message: String, percentage: u32) {
        if let Some(events) = &self.events {
            let _ = events.send(Event::Report { message, percentage });
        }
    }

    /// Ends the progress, with a last message when given, and returns once the end is sent, so what
    /// the caller sends next comes after it: at once when there is no progress, and after
    /// `END_WAIT` at most while the client has not answered the token's creation (its progress then
    /// ends whenever it does).
    pub async fn end(mut self, message: Option<String>) {
        let Some(events) = self.events.take() else { return };
        let (sent, ended) = tokio::sync::oneshot::channel();
        if events.send(Event::End(message, sent)).is_ok() {
            let _ = tokio::time::timeout(END_WAIT, ended).await;
        }
    }
}

async fn end<B: Sync, C: Sync>(
    ongoing: tower_lsp_server::OngoingProgress<B, C>,
    message: Option<String>,
    sent: tokio::sync::oneshot::Sender<()>,
) {
    match message {
        Some(message) => ongoing.finish_with_message(message).await,
        None => ongoing.finish().await,
    }
    let _ = sent.send(());
}

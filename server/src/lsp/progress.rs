//! `$/progress` that never holds up the work it reports. Creating a progress token is a request to
//! the client; a client that answers late, or never, must not stall an index or a compiler run, and a
//! handler must never wait on it (the protocol library runs a few messages at once: handlers waiting
//! on the client fill its slots, its reader stops, and the client's answer is never read). So the
//! token is created, and the reports sent, by a task of their own; the work hands it what to say and
//! goes on. A client that never answers gets no progress, and loses nothing else.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::NumberOrString;

enum Event {
    Report { message: String, percentage: u32 },
    End(Option<String>),
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
                        Event::End(message) => return end(ongoing, message).await,
                    }
                }
                ongoing.finish().await;
            } else {
                let ongoing = progress.begin().await;
                while let Some(event) = receiver.recv().await {
                    if let Event::End(message) = event {
                        return end(ongoing, message).await;
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

    /// Ends the progress, with a last message when given.
    pub fn end(mut self, message: Option<String>) {
        if let Some(events) = self.events.take() {
            let _ = events.send(Event::End(message));
        }
    }
}

async fn end<B: Sync, C: Sync>(ongoing: tower_lsp_server::OngoingProgress<B, C>, message: Option<String>) {
    match message {
        Some(message) => ongoing.finish_with_message(message).await,
        None => ongoing.finish().await,
    }
}

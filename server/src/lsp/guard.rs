//! Panic guards. A bug in a feature must cost one reply, not the user's session: request work runs on
//! a blocking thread whose panic comes back as an internal error; notification work is caught in place.

use std::panic::{AssertUnwindSafe, catch_unwind};

use tower_lsp_server::jsonrpc;

/// Runs request work off the async runtime; a panic becomes an internal-error reply.
pub async fn request<T: Send + 'static>(method: &'static str, work: impl FnOnce() -> T + Send + 'static) -> jsonrpc::Result<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => Ok(value),
        Err(error) => {
            tracing::error!("{method} failed: {error}");
            let mut reply = jsonrpc::Error::internal_error();
            reply.message = format!("switchyard: {method} failed internally (see the server log)").into();
            Err(reply)
        }
    }
}

/// Runs notification work in place (ordered mutation needs it synchronous); a panic is logged.
pub fn notification<T>(method: &'static str, work: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Some(value),
        Err(panic) => {
            let message =
                panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            tracing::error!("{method} panicked: {message}");
            None
        }
    }
}

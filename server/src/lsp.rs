//! The language server: the only code that knows LSP types. `backend` is the router (one line per
//! method), `handlers/` hold one file per method family, `convert` does every UTF-16 ⇄ byte and
//! Uri ⇄ path conversion, `session` is the mutable state behind them.
//!
//! Architecture invariant: document notifications mutate state synchronously, before any `.await`,
//! so edits apply in the order they were sent; requests read `Arc` snapshots off the async runtime,
//! and a panic in request work becomes an internal-error reply, never a dead server.

mod backend;
mod background;
mod capabilities;
pub mod convert;
pub mod framing;
mod guard;
mod handlers;
mod progress;
mod session;
mod transport;

use tower_lsp_server::{LspService, Server};

/// How many messages are handled at once. A request that waits (for an index, at most
/// `WHOLE_APP_WAIT`, and only a few of those at a time) holds its slot while it waits; past this many,
/// the library stops reading. Plenty for every client; a slot costs a parked future.
const CONCURRENCY: usize = 64;

/// How long the process lets requests in flight finish after `exit`.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Serves LSP over stdin/stdout until `exit`. Returns whether `shutdown` came before `exit` (the
/// protocol's exit code 0 versus 1).
pub fn run_stdio() -> Result<bool, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(crate::syntax::parse::STACK_SIZE)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let clean = runtime.block_on(async {
        let (service, socket) = LspService::build(backend::Backend::new)
            .custom_method("switchyard/routes", backend::Backend::routes)
            .custom_method("switchyard/emittedTree", backend::Backend::emitted_tree)
            .custom_method("switchyard/preview", backend::Backend::preview)
            .finish();
        let session = service.inner().session();
        let exit = std::sync::Arc::new(tokio::sync::Notify::new());
        let input = transport::well_formed_frames(tokio::io::stdin(), std::sync::Arc::clone(&exit));
        let serve = Server::new(input, tokio::io::stdout(), socket).concurrency_level(CONCURRENCY).serve(service);
        // After `exit` the library still waits for the requests in flight; the process does not wait
        // for long (`EXIT_GRACE`), whatever they wait on.
        tokio::select! {
            () = serve => {}
            () = async { exit.notified().await; tokio::time::sleep(EXIT_GRACE).await } => {
                tracing::warn!("requests still in flight at exit were dropped");
            }
        }
        session.shutdown_requested()
    });
    // A cold index may still be running on a blocking thread: do not wait for it.
    runtime.shutdown_background();
    Ok(clean)
}

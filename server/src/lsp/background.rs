//! The threads whole-app work runs on behind the editor: re-checks, and the freeing of what they
//! replace.

use std::sync::Arc;

use crate::app::AppContext;

/// One fewer thread than the machine has (at least one), each at a lower scheduling priority, so the
/// edit that started a re-check keeps a core for its own publish and the next keystroke's. The cold
/// index runs at full speed on rayon's global pool.
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.saturating_sub(1).max(1))
            .thread_name(|i| format!("switchyard-recheck-{i}"))
            .stack_size(crate::syntax::parse::STACK_SIZE)
            .start_handler(|_| lower_priority())
            .build()
            .unwrap_or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool"))
    })
}

/// Gives the calling thread a nice value of 10 (Linux: the value is per thread). Elsewhere the pool's
/// size alone leaves the foreground its core.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads its three integer arguments only; `gettid` names the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// Lets go of an app context. The last hold frees it on the background pool: a whole app's context
/// is thousands of allocations (milliseconds at 20,000 files), which neither an edit nor the holder
/// of a lock should wait for.
pub fn retire(context: Arc<AppContext>) {
    if let Some(last) = Arc::into_inner(context) {
        pool().spawn(move || drop(last));
    }
}

//! The `cache` fuzz target (see the crate's doc): under afl.rs with `--features afl`, else a replay
//! of the files named on the command line.

fn main() {
    #[cfg(feature = "afl")]
    afl::fuzz!(|data: &[u8]| switchyard_fuzz::cache(data));
    #[cfg(not(feature = "afl"))]
    switchyard_fuzz::replay_arguments(switchyard_fuzz::cache);
}

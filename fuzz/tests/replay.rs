//! Every fuzz target over its corpus (`corpus/<target>/`: the seeds, and every input that once
//! failed), as an ordinary test: CI holds what the fuzzer found without running it.

#[test]
fn every_corpus_replays_without_a_failure() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (name, target) in switchyard_fuzz::TARGETS {
        let folder = corpus.join(name);
        let mut inputs: Vec<_> =
            std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).map(|entry| entry.unwrap().path()).collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{name} has no corpus");
        for input in inputs {
            let bytes = std::fs::read(&input).unwrap();
            let outcome = std::panic::catch_unwind(|| target(&bytes));
            assert!(outcome.is_ok(), "{name} failed on {}", input.display());
        }
    }
}

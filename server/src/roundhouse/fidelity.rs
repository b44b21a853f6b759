//! The fidelity fixtures (`tests/fixtures/fidelity/*.fixture`): one construct per small app, with what
//! the real Roundhouse did with it (`# roundhouse <commit>: …`, re-checked against the compiler by
//! `scripts/fidelity.py fixtures`) and what Switchyard must report (`# switchyard: …`), held here
//! without the compiler. The format is in that folder's README.

use crate::test_fixture::Fixture;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/fidelity");

/// `(header lines, files)` of a fixture: files start at `#- /path` lines.
fn parse(text: &str) -> (Vec<&str>, Vec<(String, String)>) {
    let mut header = Vec::new();
    let mut files: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("#- ") {
            files.push((path.trim().trim_start_matches('/').to_owned(), String::new()));
        } else if let Some((_, body)) = files.last_mut() {
            body.push_str(line);
        } else {
            header.push(line.trim_end());
        }
    }
    (header, files)
}

/// The base app with the fixture's files over it.
fn app_files(files: Vec<(String, String)>) -> Vec<(String, String)> {
    let base = std::fs::read_to_string(format!("{DIR}/_base.fixture")).expect("the base fixture");
    let (_, mut all) = parse(&base);
    for (path, text) in files {
        all.retain(|(p, _)| *p != path);
        if text.trim() != "(absent)" {
            all.push((path, text));
        }
    }
    all
}

/// What Switchyard reports for an app, one `FILE:LINE SEVERITY RULE` per finding of a Roundhouse
/// rule, every target, sorted.
fn reported(files: &[(String, String)]) -> Vec<String> {
    in_app(files, |context, derived| {
        let mut out = Vec::new();
        for facts in context.files.iter() {
            let found = derived.get(&facts.path).map_or(&[][..], Vec::as_slice);
            for d in crate::checks::file_diagnostics(facts, found, Some(&context.reading)) {
                // A rule id is made only from the catalogue (`rule!`); every one has its page too.
                assert!(super::rule_docs::documented(&d.rule) && super::rule_docs::summary(&d.rule).is_some(), "{} has no page", d.rule);
                // Not the compiler's verdicts: Rails' wiring, Switchyard's own, the runtimes' lanes.
                if matches!(
                    d.rule.family(),
                    crate::catalogue::Family::Rails | crate::catalogue::Family::Switchyard | crate::catalogue::Family::Lanes
                ) {
                    continue;
                }
                out.push(format!("{}:{} {} {}", facts.relative_path, d.span.start.line + 1, d.severity.as_str(), d.rule));
            }
        }
        out.sort();
        out.dedup();
        out
    })
}

/// `visit` given the app of `files`: its context and its whole-app findings.
fn in_app<T>(
    files: &[(String, String)],
    visit: impl FnOnce(&crate::app::AppContext, &std::collections::HashMap<std::path::PathBuf, Vec<crate::diagnostic::Diagnostic>>) -> T,
) -> T {
    let fixture = Fixture::from_files(files);
    let snapshot = fixture.index.snapshot();
    let context = crate::app::AppContext::new(&fixture.index, &fixture.root, &snapshot);
    let derived = crate::checks::app_diagnostics(&context);
    visit(&context, &derived)
}

/// The CRuby tree paths of one file of an app.
fn tree_paths(files: &[(String, String)], source: &str) -> Vec<String> {
    let fixture = Fixture::from_files(files);
    let snapshot = fixture.index.snapshot();
    let app = super::tree::AppFacts::new(&snapshot);
    snapshot
        .iter()
        .find(|f| f.relative_path == source)
        .map(|f| super::tree::map_file(f, &app).target(super::tree::Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default())
        .unwrap_or_default()
}

/// The fixtures, in order (not the base app).
fn fixture_paths() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(DIR)
        .expect("tests/fixtures/fidelity")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fixture") && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('_')))
        .collect();
    paths.sort();
    paths
}

/// Each fidelity fixture as an app (the base app with its files over it), for the consistency tests
/// of the lowerings: its header (the compiler's verdicts among it), its context, its whole-app
/// findings, and each file's text by its path in the app.
pub(crate) fn each_fixture_app(
    mut visit: impl FnMut(
        &[&str],
        &crate::app::AppContext,
        &std::collections::HashMap<std::path::PathBuf, Vec<crate::diagnostic::Diagnostic>>,
        &std::collections::HashMap<String, String>,
    ),
) {
    for path in fixture_paths() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (header, files) = parse(&text);
        let files = app_files(files);
        let texts = files.iter().cloned().collect();
        in_app(&files, |context, derived| visit(&header, context, derived, &texts));
    }
}

#[test]
fn every_fixture_reports_what_its_verdict_says() {
    let paths = fixture_paths();
    assert!(paths.len() >= 20, "the fidelity fixtures are missing: {}", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let (header, files) = parse(&text);
        let verdicts = header.iter().filter(|l| l.starts_with("# roundhouse")).count();
        let mut expected: Vec<String> =
            header.iter().filter_map(|l| l.strip_prefix("# switchyard:")).map(|l| l.trim().to_owned()).filter(|l| l != "none").collect();
        expected.sort();
        let saw_none = header.iter().any(|l| l.trim() == "# switchyard: none");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if verdicts == 0 || (expected.is_empty() && !saw_none) {
            failures.push(format!("{name}: needs `# roundhouse` verdicts and `# switchyard:` lines (or `none`)"));
            continue;
        }
        let files = app_files(files);
        let got = reported(&files);
        if got != expected {
            failures.push(format!("{name}:\n  expected {expected:#?}\n  reported {got:#?}"));
        }
        // `# tree: SOURCE → PATH, PATH`: where the file lands in the CRuby tree (`→ nothing` for none).
        for line in header.iter().filter_map(|l| l.strip_prefix("# tree:")) {
            let Some((source, paths)) = line.split_once('→') else {
                failures.push(format!("{name}: `# tree:` needs `SOURCE → PATHS`"));
                continue;
            };
            let want: Vec<&str> = paths.split(',').map(str::trim).filter(|p| !p.is_empty() && *p != "nothing").collect();
            let got = tree_paths(&files, source.trim());
            if got != want {
                failures.push(format!("{name}: {} lands in {got:?}, not {want:?}", source.trim()));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} fidelity fixtures disagree:\n{}", failures.len(), paths.len(), failures.join("\n"));
}

//! The fuzz targets: each takes arbitrary bytes and must neither panic nor hang, and where there is
//! a property to hold, holds it (the framer passes on only bodies that decode; an incrementally
//! edited document parses as its text parses fresh). `src/bin/` wraps each for afl.rs; without the
//! `afl` feature the same binaries replay the files they are given, and `tests/replay.rs` replays
//! every corpus in `corpus/<target>/` as an ordinary test.

use std::path::{Path, PathBuf};

use switchyard::document::Document;
use switchyard::lsp::framing::{Event, Framer};
use switchyard::rails::project;
use switchyard::syntax::{Language, ParsedFile};

/// A fuzz target: bytes in, a panic when a property fails.
pub type Target = fn(&[u8]);

/// Every target, by the name of its corpus folder.
pub const TARGETS: &[(&str, Target)] = &[
    ("framing", framing),
    ("extraction", extraction),
    ("incremental", incremental),
    ("routes", routes),
    ("config", config),
    ("cache", cache),
];

/// The persisted index's decoders, on bytes from a damaged or planted file: the first byte chooses an
/// app's cache body, a kept-findings body, or a whole file with its header. None may panic, and what
/// decodes is read no further than a real file is.
pub fn cache(data: &[u8]) {
    use switchyard::index::{cache, published};
    let Some((&which, bytes)) = data.split_first() else { return };
    match which % 3 {
        0 => {
            if let Ok(entries) = cache::decode_body(bytes) {
                assert!(entries.iter().all(|(relative, _)| relative.len() <= bytes.len()));
            }
        }
        1 => {
            let _ = published::decode_body(bytes);
        }
        _ => {
            if let Ok(body) = cache::unstamped(b"SWYDIDX2", "/app", bytes) {
                let _ = cache::decode_body(body);
            }
        }
    }
}

/// The base protocol's framer, fed in chunks of a size the first byte chooses, then paused.
pub fn framing(data: &[u8]) {
    let Some((&size, bytes)) = data.split_first() else { return };
    let mut framer = Framer::new();
    let drain = |framer: &mut Framer, idle: bool| {
        while let Some(event) = framer.next(idle) {
            if let Event::Message(body) = event {
                assert!(serde_json::from_slice::<serde_json::Value>(&body).is_ok(), "passed on a body that does not decode");
            }
        }
    };
    for chunk in bytes.chunks(usize::from(size % 64) + 1) {
        framer.push(chunk);
        drain(&mut framer, false);
    }
    drain(&mut framer, true);
}

/// Where a file of the app sits decides what is read from it: the first byte chooses one.
const PLACES: &[&str] = &[
    "app/models/post.rb",
    "app/controllers/posts_controller.rb",
    "app/views/posts/index.html.erb",
    "app/views/posts/show.html.haml",
    "config/routes.rb",
    "db/schema.rb",
    "config/initializers/setup.rb",
    "lib/tasks/setup.rake",
    "db/migrate/20240101000000_create_posts.rb",
    "test/fixtures/posts.yml",
    "app/views/posts/show.json.jbuilder",
    "app/helpers/posts_helper.rb",
    "Gemfile.lock",
    "Procfile",
    "Dockerfile",
    "Gemfile",
    "config/puma.rb",
];

fn place(selector: u8) -> (&'static str, Language) {
    let relative = PLACES[usize::from(selector) % PLACES.len()];
    (relative, project::language_of(Path::new(relative)).unwrap_or(Language::Ruby))
}

/// One file's facts and per-file findings, as the index reads it (Ruby, ERB, HAML, YAML, and the
/// deployment files: a lockfile, a Procfile, a Dockerfile).
pub fn extraction(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let (relative, language) = place(selector);
    let text = String::from_utf8_lossy(bytes);
    let parsed = ParsedFile::parse(language, &text);
    let facts = switchyard::index::analyze(
        PathBuf::from("/app").join(relative),
        relative.to_owned(),
        Some(project::classify(relative)),
        &text,
        &parsed,
    );
    if let Some(routes) = &facts.routes {
        expand(relative, &routes.drawn);
    }
}

fn expand(relative: &str, calls: &[switchyard::rails::routes::RouteCall]) {
    let sources = switchyard::rails::route_table::RouteSources::of(relative, calls);
    let table = switchyard::rails::route_table::expand(&sources);
    for route in &table.routes {
        assert!(route.path.starts_with('/') || route.path.starts_with('('), "a route path that is no path: {:?}", route.path);
    }
}

/// A document edited incrementally: the first bytes are its text, the rest edits (offset, bytes
/// removed, text inserted); after each it must parse as the same text parsed fresh.
pub fn incremental(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let language = if selector % 2 == 0 { Language::Ruby } else { Language::Erb };
    let split = usize::from(rest.first().copied().unwrap_or(0)) * 4;
    let (initial, mut edits) = rest.split_at(split.min(rest.len()));
    let mut document = Document::new(PathBuf::from("/app/x.rb"), 1, language, String::from_utf8_lossy(initial).into_owned());
    let mut version = 1;
    while let [offset, removed, inserted, tail @ ..] = edits {
        let inserted_len = usize::from(*inserted % 16).min(tail.len());
        let insert = String::from_utf8_lossy(&tail[..inserted_len]).into_owned();
        edits = &tail[inserted_len..];
        let text = document.text.clone();
        let start = floor_boundary(&text, usize::from(*offset) * text.len() / 256);
        let end = floor_boundary(&text, (start + usize::from(*removed % 32)).min(text.len()));
        let _ = document.replace(start, end, &insert);
        version += 1;
        document.commit(version);
        let fresh = ParsedFile::parse(language, &document.text);
        let sexp = |p: &ParsedFile| (p.ruby.as_ref().map(|t| t.root_node().to_sexp()), p.erb.as_ref().map(|t| t.root_node().to_sexp()));
        assert_eq!(sexp(&document.parsed), sexp(&fresh), "incremental parse differs from a fresh parse of {:?}", document.text);
    }
}

fn floor_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// `config/routes.rb` and the route table it expands to.
pub fn routes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = format!("Rails.application.routes.draw do\n{text}\nend\n");
    let parsed = ParsedFile::parse(Language::Ruby, &text);
    let facts = switchyard::index::analyze(
        PathBuf::from("/app/config/routes.rb"),
        "config/routes.rb".to_owned(),
        Some(project::classify("config/routes.rb")),
        &text,
        &parsed,
    );
    if let Some(routes) = &facts.routes {
        expand("config/routes.rb", &routes.drawn);
    }
}

/// `switchyard.toml`.
pub fn config(data: &[u8]) {
    let _ = switchyard::config::Config::parse(&String::from_utf8_lossy(data));
}

/// For a target's binary built without afl: runs the target on every file named on the command line.
pub fn replay_arguments(target: Target) {
    for path in std::env::args_os().skip(1) {
        match std::fs::read(&path) {
            Ok(bytes) => target(&bytes),
            Err(error) => panic!("{}: {error}", Path::new(&path).display()),
        }
    }
}

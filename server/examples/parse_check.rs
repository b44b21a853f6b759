//! Which Ruby files Prism (the parser Roundhouse reads with, at the version it builds with) rejects:
//! `path:line: message` for the first error of each, nothing for a file that parses. Used by
//! `scripts/emitted-parse.py` to find the files of an emitted tree that do not parse.
//!
//!     cargo run --example parse_check -- FILE...

// A command-line tool for the fidelity scripts: its output is what it is for.
#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read(&path) else {
            eprintln!("{path}: unreadable");
            continue;
        };
        let result = ruby_prism::parse(&text);
        if let Some(error) = result.errors().next() {
            let offset = error.location().start_offset().min(text.len());
            let line = text[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
            println!("{path}:{line}: {}", error.message());
        }
    }
}

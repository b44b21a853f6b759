//! Route expansion of a synthetic routes file of ~1,000 routes.
//!
//!     cargo bench --bench route_table
//!
//! Prints the median of 50 runs of (a) expanding the already-read call tree into the route table and
//! (b) what an edit to routes.rb costs end to end: parse, read the calls, expand.

#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use switchyard::rails::extract;
use switchyard::rails::project::FileKind;
use switchyard::rails::route_table::{RouteSources, expand};
use switchyard::syntax::{Language, ParsedFile};

const RUNS: usize = 50;

fn routes_file() -> String {
    let mut text = String::from("Rails.application.routes.draw do\n  root \"home#index\"\n");
    for n in 0..7 {
        text.push_str(&format!("  namespace :area{n} do\n"));
        for r in 0..20 {
            text.push_str(&format!(
                "    resources :things{r}, only: %i[index show create update destroy] do\n      member {{ post :archive }}\n      get :search, on: :collection\n    end\n"
            ));
        }
        text.push_str("  end\n");
    }
    text.push_str("end\n");
    text
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let text = routes_file();
    let read = || {
        let parsed = ParsedFile::parse(Language::Ruby, &text);
        extract(PathBuf::from("/app/config/routes.rb"), "config/routes.rb".to_owned(), Some(FileKind::Routes), &text, &parsed)
    };
    let facts = read();
    let calls = &facts.routes.as_ref().expect("routes facts").drawn;
    let sources = RouteSources::of("config/routes.rb", calls);
    let routes = expand(&sources).routes.len();
    let expand_only = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(expand(&sources));
                start.elapsed()
            })
            .collect(),
    );
    let end_to_end = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let facts = read();
                let sources = RouteSources::of("config/routes.rb", &facts.routes.as_ref().expect("routes facts").drawn);
                std::hint::black_box(expand(&sources));
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "{routes} routes from a {}-line routes file: expand {:.3} ms | parse + read + expand {:.3} ms (median of {RUNS})",
        text.lines().count(),
        expand_only.as_secs_f64() * 1000.0,
        end_to_end.as_secs_f64() * 1000.0
    );
}

//! `switchyard routes`: the route table as `bin/rails routes` prints it, or JSON lines.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{Loaded, Outcome, load, report_file_errors};
use crate::ide::routes::format_table;
use crate::rails::project;
use crate::rails::route_table::Route;

#[derive(Serialize)]
struct JsonRoute<'a> {
    verb: &'a str,
    path: &'a str,
    controller_action: String,
    name: &'a str,
    /// The patterns its segments must match, as Ruby inspects them: `{"id": "/\\d+/"}`.
    #[serde(skip_serializing_if = "<[_]>::is_empty", serialize_with = "crate::rails::pairs_map")]
    requirements: &'a [(String, String)],
    /// Its defaults, inspected: `{"format": "\"html\""}`.
    #[serde(skip_serializing_if = "<[_]>::is_empty", serialize_with = "crate::rails::pairs_map")]
    defaults: &'a [(String, String)],
    file: &'a str,
    line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    app: Option<&'a str>,
}

pub fn routes(path: &Path, json: bool, grep: Option<&str>) -> Result<Outcome, String> {
    let Loaded { index, report, base, scope } = load(path)?;
    let snapshot = index.snapshot();
    let apps = super::apps_in_scope(&index, &scope);
    let mut out = super::stdout();
    let io = super::write_failed;
    for app in &apps {
        let table = index.route_table(&app.root, &snapshot);
        let routes: Vec<&Route> = table.routes.iter().filter(|r| grep.is_none_or(|g| matches_grep(r, g))).collect();
        let app_root = project::relative_path(&app.root, &base);
        let app_root = if app_root.is_empty() { ".".to_owned() } else { app_root };
        if json {
            for route in &routes {
                let line = JsonRoute {
                    verb: &route.verb,
                    path: &route.path,
                    controller_action: route.controller_action(),
                    name: route.name.as_deref().unwrap_or(""),
                    requirements: &route.constraints,
                    defaults: &route.defaults,
                    file: &route.file,
                    line: route.span.start.line + 1,
                    app: (apps.len() > 1).then_some(app_root.as_str()),
                };
                serde_json::to_writer(&mut out, &line).map_err(super::json_failed)?;
                writeln!(out).map_err(io)?;
            }
        } else {
            if apps.len() > 1 {
                writeln!(out, "# {} ({app_root})", app.name).map_err(io)?;
            }
            if routes.is_empty() && grep.is_some() {
                // As `bin/rails routes --grep` says it.
                writeln!(out, "No routes were found for this grep pattern.").map_err(io)?;
                writeln!(out, "For more information about routes, see the Rails guide: https://guides.rubyonrails.org/routing.html.")
                    .map_err(io)?;
            } else {
                write!(out, "{}", format_table(&routes)).map_err(io)?;
            }
            if apps.len() > 1 {
                writeln!(out).map_err(io)?;
            }
        }
    }
    super::finish(out)?;
    report_file_errors(&report, &base)
}

fn matches_grep(route: &Route, grep: &str) -> bool {
    let grep = grep.to_lowercase();
    [route.name.as_deref().unwrap_or(""), &route.verb, &route.path, &route.controller_action()]
        .iter()
        .any(|field| field.to_lowercase().contains(&grep))
}

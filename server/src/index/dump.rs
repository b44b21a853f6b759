//! `switchyard index --format json`: the index as one JSON document a person or a test can diff —
//! per app, every file's facts (paths relative to the app root) and the models as resolved across
//! files.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use super::Index;
use crate::rails::FileFacts;
use crate::rails::project::{self, FileKind};

#[derive(Serialize)]
pub struct IndexDump {
    pub apps: Vec<AppDump>,
}

#[derive(Serialize)]
pub struct AppDump {
    /// Relative to the folder that was indexed (`.` for the folder itself).
    pub root: String,
    pub name: String,
    pub counts: Counts,
    pub models: Vec<ResolvedModel>,
    pub files: Vec<Arc<FileFacts>>,
}

#[derive(Serialize, Default)]
pub struct Counts {
    pub files: usize,
    pub models: usize,
    pub controllers: usize,
    pub actions: usize,
    pub templates: usize,
    pub tables: usize,
    pub route_calls: usize,
}

#[derive(Serialize)]
pub struct ResolvedModel {
    pub class_name: String,
    pub file: String,
    pub active_record: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
}

pub fn dump(index: &Index, base: &Path) -> IndexDump {
    let snapshot = index.snapshot();
    let apps = index
        .apps()
        .into_iter()
        .map(|app| {
            let files: Vec<Arc<FileFacts>> = snapshot
                .iter()
                .filter(|f| {
                    project::owning_app(&f.path, std::slice::from_ref(&app)).is_some()
                        && index.app_for(&f.path).is_some_and(|a| a.root == app.root)
                })
                .cloned()
                .collect();
            let mut counts = Counts { files: files.len(), ..Counts::default() };
            let mut models = Vec::new();
            for file in &files {
                counts.controllers += file.controllers.len();
                counts.actions += file.controllers.iter().map(|c| c.actions.len()).sum::<usize>();
                counts.templates += usize::from(file.kind == Some(FileKind::View));
                counts.tables += file.schema.as_ref().map_or(0, |s| s.tables.len());
                counts.route_calls += file.routes.as_ref().map_or(0, |r| count_calls(&r.calls));
                for model in &file.models {
                    let active_record = index.is_active_record(&model.class_name, &snapshot);
                    models.push(ResolvedModel {
                        class_name: model.class_name.clone(),
                        file: file.relative_path.clone(),
                        active_record,
                        table_name: (active_record && !model.abstract_class).then(|| index.table_name(&model.class_name, &snapshot)),
                    });
                }
            }
            counts.models = models.iter().filter(|m| m.table_name.is_some()).count();
            let root = project::relative_path(&app.root, base);
            AppDump { root: if root.is_empty() { ".".to_owned() } else { root }, name: app.name, counts, models, files }
        })
        .collect();
    IndexDump { apps }
}

fn count_calls(calls: &[crate::rails::routes::RouteCall]) -> usize {
    calls.iter().map(|c| 1 + count_calls(&c.children)).sum()
}

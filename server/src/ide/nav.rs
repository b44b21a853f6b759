//! Rails navigation without booting the app: what is under the cursor (`subject_at`, read off the
//! file's facts), then definition, references, hover and document links as views of what `app::nav`
//! resolves it to. Route helpers are `ide::routes`'; `ide::analysis` puts the two together.

use std::sync::Arc;

use crate::app::AppContext;
use crate::app::nav::{
    Nav, TableRef, Target, action_methods, all_associations, association_models, controller_path, enclosing_class, find_model_near,
};
use crate::rails::controller::Controller;
use crate::rails::model::{Association, Model};
use crate::rails::references::{ColumnUse, IvarUse, MemberCall, Reference, RenderCall, Translation};
use crate::rails::{FileFacts, MethodSummary, inflect};
use crate::syntax::Span;

use super::routes::Hover;

/// What the cursor is on, as far as navigation goes.
pub enum Subject<'f> {
    /// The name in a `render` (`"form"`, `partial: "shared/nav"`), or the record it renders.
    Render(&'f RenderCall, Span),
    /// `render layout: "boxed"`.
    RenderLayout(&'f RenderCall, String, Span),
    /// `layout "admin"` in a controller.
    ControllerLayout(&'f Controller, Span),
    Translation(&'f Translation),
    /// A column in a query (`where(title:)`, `order(:created_at)`, `permit(:title)`).
    Column(&'f ColumnUse),
    /// `validates :title`: the model and the attribute.
    Validated(&'f Model, String, Span),
    /// The name of an association (`has_many :comments`).
    Association(&'f Model, &'f Association),
    /// `before_action :set_post` / `before_save :normalize`: the method it names.
    CallbackTarget(String, Span),
    Constant(&'f Reference),
    /// A receiver-less call: a helper, or a method of the class.
    Call(&'f Reference),
    /// `post.comments`: maybe an association's use.
    Member(&'f MemberCall),
    Ivar(&'f IvarUse),
    /// A method's name where it is defined (`def format_price`), in its class or module.
    MethodDef(String, &'f MethodSummary),
    /// A controller action's name (`def show`): the templates it renders.
    Action(&'f Controller, &'f MethodSummary),
}

fn within(span: Span, offset: usize) -> bool {
    span.contains(offset)
}

/// The subject at `offset` in `facts`: the smallest thing there that navigation knows.
pub fn subject_at(facts: &FileFacts, offset: usize) -> Option<Subject<'_>> {
    for render in &facts.render_calls {
        if let Some(span) = render.target_span.filter(|s| within(*s, offset)) {
            return Some(Subject::Render(render, span));
        }
        if let Some((name, span)) = render.layout.as_ref().filter(|(_, s)| within(*s, offset)) {
            return Some(Subject::RenderLayout(render, name.clone(), *span));
        }
    }
    for render in facts.render_calls.iter().filter(|r| r.object.is_some() && r.named.is_none() && within(r.span, offset)) {
        // `render @posts`: the whole argument names the partial.
        let after_render = Span { start_byte: render.span.start_byte + "render".len() as u32, ..render.span };
        if within(after_render, offset) {
            return Some(Subject::Render(render, render.span));
        }
    }
    if let Some(translation) = facts.uses.translations.iter().find(|t| within(t.span, offset)) {
        return Some(Subject::Translation(translation));
    }
    if let Some(column) = facts.uses.columns.iter().find(|c| within(c.span, offset)) {
        return Some(Subject::Column(column));
    }
    for model in &facts.models {
        if let Some(association) = model.associations.iter().find(|a| within(a.name_span, offset)) {
            return Some(Subject::Association(model, association));
        }
        for validation in model.validations.iter().filter(|v| v.kind != "validate") {
            for (name, span) in validation.attributes.iter().zip(&validation.attribute_spans) {
                if within(*span, offset) {
                    return Some(Subject::Validated(model, name.clone(), *span));
                }
            }
        }
        for callback in &model.callbacks {
            for (name, span) in callback.targets.iter().zip(&callback.target_spans) {
                if within(*span, offset) {
                    return Some(Subject::CallbackTarget(name.clone(), *span));
                }
            }
        }
        if let Some(method) = model.methods.iter().find(|m| within(m.name_span, offset)) {
            return Some(Subject::MethodDef(model.class_name.clone(), method));
        }
    }
    for controller in &facts.controllers {
        for filter in &controller.filters {
            for (name, span) in filter.targets.iter().zip(&filter.target_spans) {
                if within(*span, offset) {
                    return Some(Subject::CallbackTarget(name.clone(), *span));
                }
            }
        }
        if let Some(span) = controller.layout_span.filter(|s| within(*s, offset)) {
            return Some(Subject::ControllerLayout(controller, span));
        }
        if let Some(action) = controller.actions.iter().find(|a| within(a.name_span, offset)) {
            return Some(Subject::Action(controller, action));
        }
        if let Some(method) = controller.private_methods.iter().find(|m| within(m.name_span, offset)) {
            return Some(Subject::MethodDef(controller.class_name.clone(), method));
        }
    }
    for definition in &facts.definitions {
        if let Some(method) = definition.methods.iter().find(|m| within(m.name_span, offset)) {
            return Some(Subject::MethodDef(definition.name.clone(), method));
        }
    }
    if let Some(ivar) = facts.uses.ivars.iter().find(|i| within(i.span, offset)) {
        return Some(Subject::Ivar(ivar));
    }
    if let Some(constant) = facts.uses.constants.iter().find(|c| within(c.span, offset)) {
        return Some(Subject::Constant(constant));
    }
    if let Some(member) = facts.uses.member_calls.iter().find(|m| within(m.span, offset)) {
        return Some(Subject::Member(member));
    }
    if let Some(call) = facts.uses.calls.iter().find(|c| within(c.span, offset)) {
        return Some(Subject::Call(call));
    }
    None
}

fn target(file: &Arc<FileFacts>, span: Span) -> Target {
    Target { file: Arc::clone(file), span }
}

/// The first line of each file: where a template or a model is "defined".
fn whole_file(file: &Arc<FileFacts>) -> Target {
    target(file, Span::default())
}

fn model_target(context: &AppContext, model: &Model) -> Option<Target> {
    let (file, _) = context.models.get(&model.class_name)?;
    Some(target(file, model.name_span))
}

fn column_target(table: &TableRef, column: &str) -> Option<Target> {
    Some(target(&table.file, table.column(column)?.span))
}

/// The association of a model by name, through its base classes.
fn association_named<'c>(context: &'c AppContext, model: &'c Model, name: &str) -> Option<&'c Association> {
    all_associations(context, model).into_iter().find(|a| a.name == name)
}

/// Where a model's attribute is: its column in the schema, else the association, else what declares it.
fn attribute_targets(context: &AppContext, model: &Model, name: &str) -> Vec<Target> {
    let nav = context.nav();
    if let Some(table) = nav.model_table(context, &model.class_name)
        && let Some(found) = column_target(table, name)
    {
        return vec![found];
    }
    if let Some(association) = association_named(context, model, name)
        && let Some((file, _)) = context.models.get(&model.class_name)
    {
        return vec![target(file, association.name_span)];
    }
    nav.methods_named(name)
        .iter()
        .filter(|m| context.ancestry(&model.class_name).iter().any(|a| **a == *m.owner))
        .map(|m| target(&m.file, m.name_span))
        .collect()
}

/// The templates a translation's key is in, its entry in each locale.
fn translation_targets(context: &AppContext, nav: &Nav, facts: &FileFacts, translation: &Translation) -> Vec<Target> {
    let Some(key) = nav.translation_key(context, facts, translation) else { return Vec::new() };
    nav.translations_of(&key)
        .into_iter()
        .filter_map(|(_, file, i)| Some(target(&file, file.locale.as_ref()?.entry(i)?.span(&file.line_index))))
        .collect()
}

/// The methods a filter or callback names, where the class (its ancestors, its modules) defines them.
fn method_targets(context: &AppContext, facts: &FileFacts, offset: usize, name: &str) -> Vec<Target> {
    context.nav().methods_called(context, facts, offset, name).iter().map(|m| target(&m.file, m.name_span)).collect()
}

/// The controller actions that render `facts`' template (or, for a partial, the places that render it).
fn template_sources(context: &AppContext, facts: &FileFacts) -> Vec<Target> {
    let Some(template) = &facts.template else { return Vec::new() };
    let nav = context.nav();
    if template.partial {
        return nav.callers(context, &template.logical_path).iter().map(|(file, i)| target(file, file.render_calls[*i].span)).collect();
    }
    nav.template_actions(context, &template.logical_path)
        .iter()
        .filter_map(|(class_name, action)| {
            let (file, i) = context.controllers.get(class_name)?;
            let method = file.controllers[*i].actions.iter().find(|a| a.name == *action)?;
            Some(target(file, method.name_span))
        })
        .collect()
}

/// Go to definition.
pub fn definition(context: &AppContext, facts: &FileFacts, offset: usize) -> Vec<Target> {
    let nav = context.nav();
    let templates = |paths: Vec<String>| -> Vec<Target> {
        paths.iter().flat_map(|p| nav.template_files(p).iter().map(whole_file).collect::<Vec<_>>()).collect()
    };
    let Some(subject) = subject_at(facts, offset) else {
        // Anywhere else in a template: the actions (or renders) it is rendered by.
        return template_sources(context, facts);
    };
    match subject {
        Subject::Render(render, _) => nav.render_targets(context, facts, render).iter().map(whole_file).collect(),
        Subject::RenderLayout(_, name, _) => templates(nav.render_layout(context, facts, &name).into_iter().collect()),
        Subject::ControllerLayout(controller, _) => match controller.layout.as_ref() {
            // `layout :choose_layout`: the method that picks it.
            Some(crate::syntax::value::Value::Symbol(method)) => method_targets(context, facts, controller.span.start() + 1, method),
            Some(value) => templates(value.as_name().and_then(|name| nav.layout_path(name)).into_iter().collect()),
            None => Vec::new(),
        },
        Subject::Translation(translation) => translation_targets(context, nav, facts, translation),
        Subject::Column(column) => match nav.column_model(context, facts, column) {
            Some(model) => attribute_targets(context, model, &column.name),
            None => Vec::new(),
        },
        Subject::Validated(model, name, _) => attribute_targets(context, model, &name),
        Subject::Association(model, association) => {
            association_models(context, model, association).into_iter().filter_map(|m| model_target(context, m)).collect()
        }
        Subject::CallbackTarget(name, span) => method_targets(context, facts, span.start(), &name),
        Subject::Constant(reference) => nav.constant(&reference.name, facts, reference.span.start()),
        Subject::Call(call) => {
            if let Some(strict) = facts.template.as_ref().and_then(|t| t.strict_locals.as_ref()).filter(|s| s.declares(&call.name)) {
                // A partial's local: where its magic comment declares it.
                return vec![target(&file_of(context, facts), strict.span)];
            }
            method_targets(context, facts, call.span.start(), &call.name)
        }
        Subject::Member(member) => member_association(context, facts, member)
            .map(|(model, association)| {
                association_models(context, model, association).into_iter().filter_map(|m| model_target(context, m)).collect()
            })
            .unwrap_or_default(),
        Subject::Ivar(ivar) => ivar_setters(context, facts, &ivar.name),
        Subject::MethodDef(..) => Vec::new(),
        Subject::Action(controller, action) => templates(nav.action_templates(context, &controller.class_name, &action.name)),
    }
}

/// `post.comments` / `@post.comments`: the association of the model the receiver is named after.
fn member_association<'c>(context: &'c AppContext, facts: &FileFacts, member: &MemberCall) -> Option<(&'c Model, &'c Association)> {
    let receiver = member.receiver.rsplit('_').next().unwrap_or(&member.receiver);
    let candidates = [inflect::camelize(&member.receiver), inflect::camelize(receiver)];
    let model = candidates.iter().find_map(|c| {
        enclosing_class(facts, member.span.start()).and_then(|from| find_model_near(context, &from, c)).or_else(|| context.model(c))
    })?;
    Some((model, association_named(context, model, &member.name)?))
}

/// Where the actions and filters that feed `facts`' template set `ivar` (a controller's own
/// assignments when the cursor is in a controller).
pub fn ivar_setters(context: &AppContext, facts: &FileFacts, ivar: &str) -> Vec<Target> {
    let writes_in = |file: &Arc<FileFacts>, span: Span| -> Vec<Target> {
        file.uses
            .ivars
            .iter()
            .filter(|u| u.write && &*u.name == ivar && within(span, u.span.start()))
            .map(|u| target(file, u.span))
            .collect()
    };
    if facts.template.is_none() {
        // In a class: every assignment of it in the class and its ancestors.
        let Some(class) = enclosing_class(facts, facts.uses.ivars.iter().find(|u| &*u.name == ivar).map_or(0, |u| u.span.start())) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for owner in context.ancestry(&class) {
            for file in context.files.iter().filter(|f| {
                f.controllers.iter().any(|c| c.class_name == owner)
                    || f.models.iter().any(|m| m.class_name == owner)
                    || f.definitions.iter().any(|d| d.name == owner)
            }) {
                out.extend(file.uses.ivars.iter().filter(|u| u.write && &*u.name == ivar).map(|u| target(file, u.span)));
            }
        }
        return out;
    }
    let mut out = Vec::new();
    for (class_name, action) in feeding_actions(context, facts) {
        for (file, method) in action_methods(context, &class_name, &action) {
            out.extend(writes_in(&file, method.span));
        }
    }
    out.sort_by_key(|t| (t.file.relative_path.clone(), t.span.start_byte));
    out.dedup_by(|a, b| Arc::ptr_eq(&a.file, &b.file) && a.span == b.span);
    out
}

/// The (controller, action) pairs whose render reaches `facts`' template: the actions that render it,
/// or for a partial, the actions that render a template that renders it (three levels at most).
pub fn feeding_actions(context: &AppContext, facts: &FileFacts) -> Vec<(String, String)> {
    let Some(template) = &facts.template else { return Vec::new() };
    let nav = context.nav();
    let mut out = Vec::new();
    let mut paths = vec![template.logical_path.clone()];
    let mut seen = std::collections::HashSet::new();
    for _ in 0..4 {
        let mut next = Vec::new();
        for path in paths.drain(..) {
            if !seen.insert(path.clone()) {
                continue;
            }
            out.extend(nav.template_actions(context, &path));
            for (file, i) in nav.callers(context, &path) {
                if let Some(caller) = &file.template {
                    next.push(caller.logical_path.clone());
                } else if let Some(controller) = file.controllers.iter().find(|c| within(c.span, file.render_calls[i].span.start()))
                    && let Some(action) = controller.actions.iter().find(|a| within(a.span, file.render_calls[i].span.start()))
                {
                    out.push((controller.class_name.clone(), action.name.clone()));
                }
            }
        }
        paths = next;
    }
    out.sort();
    out.dedup();
    out
}

/// Find references.
pub fn references(context: &AppContext, facts: &FileFacts, offset: usize, include_declaration: bool) -> Vec<Target> {
    let nav = context.nav();
    let partial_callers = |path: &str| -> Vec<Target> {
        nav.callers(context, path)
            .iter()
            .map(|(file, i)| target(file, file.render_calls[*i].target_span.unwrap_or(file.render_calls[*i].span)))
            .collect()
    };
    let Some(subject) = subject_at(facts, offset) else {
        // In a template: what renders it.
        return match &facts.template {
            Some(template) if template.partial => partial_callers(&template.logical_path),
            Some(_) => template_sources(context, facts),
            None => Vec::new(),
        };
    };
    match subject {
        Subject::Render(render, _) => match nav.render_path(context, facts, render) {
            Some(path) => partial_callers(&path),
            None => Vec::new(),
        },
        Subject::Call(call) => method_uses(context, &call.name, include_declaration, facts, call.span.start()),
        Subject::MethodDef(owner, method) => {
            let mut out = method_uses(context, &method.name, false, facts, method.name_span.start());
            out.retain(|t| !(t.file.relative_path == facts.relative_path && t.span == method.name_span));
            if include_declaration {
                out.insert(0, target(&file_of(context, facts), method.name_span));
            }
            let _ = owner;
            out
        }
        Subject::Association(model, association) => association_uses(context, model, association, include_declaration),
        Subject::Member(member) => match member_association(context, facts, member) {
            Some((model, association)) => association_uses(context, model, association, include_declaration),
            None => Vec::new(),
        },
        Subject::Action(controller, action) => {
            let paths = nav.action_templates(context, &controller.class_name, &action.name);
            paths.iter().flat_map(|p| nav.template_files(p).iter().map(whole_file).collect::<Vec<_>>()).collect()
        }
        Subject::Translation(translation) => {
            let Some(key) = nav.translation_key(context, facts, translation) else { return Vec::new() };
            let mut out: Vec<Target> = Vec::new();
            if include_declaration {
                out.extend(translation_targets(context, nav, facts, translation));
            }
            for file in &context.files {
                for other in &file.uses.translations {
                    if nav.translation_key(context, file, other).as_deref() == Some(key.as_str()) {
                        out.push(target(file, other.span));
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The index's copy of `facts` (the same facts, shared).
fn file_of(context: &AppContext, facts: &FileFacts) -> Arc<FileFacts> {
    context.files.iter().find(|f| f.path == facts.path).cloned().unwrap_or_else(|| Arc::new(facts.clone()))
}

/// Every receiver-less call of `name` that reaches the same definitions as the one at `offset`.
fn method_uses(context: &AppContext, name: &str, include_declaration: bool, facts: &FileFacts, offset: usize) -> Vec<Target> {
    let nav = context.nav();
    let defined = nav.methods_called(context, facts, offset, name);
    let mut out: Vec<Target> = Vec::new();
    if include_declaration {
        out.extend(defined.iter().map(|m| target(&m.file, m.name_span)));
    }
    for file in &context.files {
        for call in file.uses.calls.iter().filter(|c| &*c.name == name) {
            let reaches = nav.methods_called(context, file, call.span.start(), name);
            if reaches.iter().any(|r| defined.iter().any(|d| Arc::ptr_eq(&d.file, &r.file) && d.name_span == r.name_span)) {
                out.push(target(file, call.span));
            }
        }
        // `before_action :set_post` names it too.
        for controller in &file.controllers {
            for filter in &controller.filters {
                for (n, span) in filter.targets.iter().zip(&filter.target_spans) {
                    if n == name && defined.iter().any(|d| context.ancestry(&controller.class_name).iter().any(|a| **a == *d.owner)) {
                        out.push(target(file, *span));
                    }
                }
            }
        }
        for model in &file.models {
            for callback in &model.callbacks {
                for (n, span) in callback.targets.iter().zip(&callback.target_spans) {
                    if n == name && defined.iter().any(|d| context.ancestry(&model.class_name).iter().any(|a| **a == *d.owner)) {
                        out.push(target(file, *span));
                    }
                }
            }
        }
    }
    out
}

/// An association's uses: `includes(:comments)` on its model, `through: :comments`, and calls of it
/// on a variable named after the model (`post.comments`, `@post.comments`).
fn association_uses(context: &AppContext, model: &Model, association: &Association, include_declaration: bool) -> Vec<Target> {
    let mut out = Vec::new();
    if include_declaration && let Some((file, _)) = context.models.get(&model.class_name) {
        out.push(target(file, association.name_span));
    }
    for file in &context.files {
        for load in &file.association_loads {
            if load.model == model.class_name || load.model.ends_with(&format!("::{}", model.class_name)) {
                out.extend(load.names.iter().filter(|(n, _)| *n == association.name).map(|(_, span)| target(file, *span)));
            }
        }
        for member in file.uses.member_calls.iter().filter(|m| *m.name == *association.name) {
            if member_association(context, file, member)
                .is_some_and(|(m, a)| m.class_name == model.class_name && a.name == association.name)
            {
                out.push(target(file, member.span));
            }
        }
    }
    out
}

// ---- hover --------------------------------------------------------------------------------------

/// A table as Markdown: its columns (type, null, default) and indexes.
pub fn table_markdown(table: &TableRef) -> String {
    let t = table.table();
    let mut out = format!("Table `{}`", t.name);
    if table.database != "primary" {
        out.push_str(&format!(" (database `{}`)", table.database));
    }
    out.push_str(&format!(" · {}\n\n| Column | Type | Null | Default |\n|---|---|---|---|\n", table.file.relative_path));
    for column in &t.columns {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            column.name,
            column.column_type,
            if column.null { "yes" } else { "no" },
            column.default.as_ref().map(|d| format!("`{d}`")).unwrap_or_default()
        ));
    }
    if !t.indexes.is_empty() {
        out.push_str("\nIndexes: ");
        let indexes: Vec<String> =
            t.indexes.iter().map(|i| format!("`({})`{}", i.columns.join(", "), if i.unique { " unique" } else { "" })).collect();
        out.push_str(&indexes.join(", "));
        out.push('\n');
    }
    out
}

/// A model as Markdown: its table (columns, indexes) and associations.
pub fn model_hover(context: &AppContext, model: &Model) -> String {
    model_markdown(context, model)
}

fn model_markdown(context: &AppContext, model: &Model) -> String {
    let nav = context.nav();
    let mut out = format!("**{}**", model.class_name);
    if let Some(superclass) = &model.superclass {
        out.push_str(&format!(" < {superclass}"));
    }
    out.push_str("\n\n");
    match nav.model_table(context, &model.class_name) {
        Some(table) => out.push_str(&table_markdown(table)),
        None => {
            out.push_str(&format!("No table `{}` in the app's schema.\n", crate::app::nav::model_table_name(context, &model.class_name)))
        }
    }
    let associations = all_associations(context, model);
    if !associations.is_empty() {
        out.push_str("\nAssociations: ");
        let list: Vec<String> = associations.iter().map(|a| format!("{} `:{}`", a.kind, a.name)).collect();
        out.push_str(&list.join(", "));
        out.push('\n');
    }
    out
}

fn column_markdown(context: &AppContext, model: &Model, name: &str) -> Option<String> {
    let nav = context.nav();
    let table = nav.model_table(context, &model.class_name)?;
    if let Some(column) = table.column(name) {
        let mut out = format!(
            "**{}#{}** · column of `{}`\n\n`{}`{}{}",
            model.class_name,
            name,
            table.table().name,
            column.column_type,
            if column.null { "" } else { ", not null" },
            column.default.as_ref().map(|d| format!(", default `{d}`")).unwrap_or_default()
        );
        if let Some(limit) = column.limit {
            out.push_str(&format!(", limit {limit}"));
        }
        let indexes = table.indexes_on(name);
        if !indexes.is_empty() {
            let list: Vec<String> =
                indexes.iter().map(|i| format!("`({})`{}", i.columns.join(", "), if i.unique { " unique" } else { "" })).collect();
            out.push_str(&format!("\n\nIndexed: {}", list.join(", ")));
        }
        return Some(out);
    }
    let association = association_named(context, model, name)?;
    Some(format!("**{}#{}** · {} association", model.class_name, name, association.kind))
}

/// The locals a partial reads and the ones it declares.
fn partial_markdown(context: &AppContext, file: &FileFacts) -> String {
    let template = file.template.as_ref();
    let mut out = format!("**{}**", file.relative_path);
    if let Some(strict) = template.and_then(|t| t.strict_locals.as_ref()) {
        let mut parts: Vec<String> = strict.required.iter().map(|r| format!("`{r}:`")).collect();
        parts.extend(strict.optional.iter().map(|(name, default)| format!("`{name}: {default}`")));
        if strict.any {
            parts.push("`**rest`".to_owned());
        }
        out.push_str(&format!("\n\nStrict locals: {}", if parts.is_empty() { "none".to_owned() } else { parts.join(", ") }));
    }
    // The bare names it reads that no method of the app or of Rails' views defines: its locals.
    let reads = partial_reads(context, file);
    if !reads.is_empty() {
        let list: Vec<String> = reads.iter().map(|r| format!("`{r}`")).collect();
        out.push_str(&format!("\n\nReads: {}", list.join(", ")));
    }
    let ivars = template.map(|t| t.ivars_read.clone()).unwrap_or_default();
    if !ivars.is_empty() {
        out.push_str(&format!("\n\nInstance variables: {}", ivars.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")));
    }
    out
}

/// The locals a partial reads: the bare names in it (`post`, not `post(1)`) that are no method of the
/// app and none that Rails gives every view.
pub fn partial_reads<'f>(context: &AppContext, file: &'f FileFacts) -> Vec<&'f str> {
    let nav = context.nav();
    file.uses
        .bare_names
        .iter()
        .map(String::as_str)
        .filter(|n| nav.methods_named(n).is_empty() && !crate::rails::references::VIEW_CONTEXT_METHODS.contains(n))
        .collect()
}

/// Hover.
pub fn hover(context: &AppContext, facts: &FileFacts, offset: usize) -> Option<Hover> {
    let nav = context.nav();
    let subject = subject_at(facts, offset)?;
    let (markdown, span) = match subject {
        Subject::Render(render, span) => {
            let targets = nav.render_targets(context, facts, render);
            let first = targets.first()?;
            (partial_markdown(context, first), span)
        }
        Subject::Constant(reference) => {
            let model = nav
                .constant(&reference.name, facts, reference.span.start())
                .into_iter()
                .find_map(|t| t.file.models.iter().find(|m| m.name_span == t.span).map(|m| m.class_name.clone()))
                .and_then(|class| context.model(&class))?;
            (model_markdown(context, model), reference.span)
        }
        Subject::Association(model, association) => {
            let targets = association_models(context, model, association);
            let mut out = format!("**{} `:{}`** → ", association.kind, association.name);
            if targets.is_empty() {
                out.push_str("no model of the app");
            } else {
                out.push_str(&targets.iter().map(|m| format!("`{}`", m.class_name)).collect::<Vec<_>>().join(", "));
            }
            if let [only] = targets.as_slice() {
                out.push_str("\n\n");
                out.push_str(&model_markdown(context, only));
            }
            (out, association.name_span)
        }
        Subject::Member(member) => {
            let (model, association) = member_association(context, facts, member)?;
            let targets = association_models(context, model, association);
            let names: Vec<String> = targets.iter().map(|m| format!("`{}`", m.class_name)).collect();
            let mut out = format!("**{}#{}** · {} → {}", model.class_name, association.name, association.kind, names.join(", "));
            if let [only] = targets.as_slice() {
                out.push_str("\n\n");
                out.push_str(&model_markdown(context, only));
            }
            (out, member.span)
        }
        Subject::Column(column) => {
            let model = nav.column_model(context, facts, column)?;
            (column_markdown(context, model, &column.name)?, column.span)
        }
        Subject::Validated(model, name, span) => (column_markdown(context, model, &name)?, span),
        Subject::Translation(translation) => {
            let key = nav.translation_key(context, facts, translation)?;
            let mut out = format!("**`{key}`**\n\n");
            let found = nav.translations_of(&key);
            if found.is_empty() {
                out.push_str("No locale of the app defines it.");
            } else {
                for (locale, file, i) in &found {
                    let entry = file.locale.as_ref().and_then(|l| l.entry(*i));
                    let value = entry.and_then(|e| e.value).unwrap_or("{ … }");
                    out.push_str(&format!("- `{locale}`: {value}\n"));
                }
                let missing: Vec<&String> = nav.locales.iter().filter(|l| !found.iter().any(|(f, ..)| f == *l)).collect();
                if !missing.is_empty() {
                    out.push_str(&format!("\nMissing in: {}", missing.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")));
                }
            }
            (out, translation.span)
        }
        Subject::Ivar(ivar) if facts.template.is_some() => {
            let actions = feeding_actions(context, facts);
            let setters = ivar_setters(context, facts, &ivar.name);
            let mut out = format!("**`{}`**", ivar.name);
            if actions.is_empty() {
                out.push_str("\n\nNo controller action renders this template.");
            } else {
                out.push_str("\n\nRendered by: ");
                out.push_str(&actions.iter().map(|(c, a)| format!("`{c}#{a}`")).collect::<Vec<_>>().join(", "));
                out.push_str("\n\n");
                if setters.is_empty() {
                    out.push_str("Set by none of their actions or filters.");
                } else {
                    out.push_str("Set in: ");
                    let places: Vec<String> = setters
                        .iter()
                        .map(|t| {
                            let method = enclosing_method_name(&t.file, t.span.start()).unwrap_or_default();
                            format!("`{method}` ({}:{})", t.file.relative_path, t.span.start.line + 1)
                        })
                        .collect();
                    out.push_str(&places.join(", "));
                }
            }
            (out, ivar.span)
        }
        _ => return None,
    };
    Some(Hover { markdown, span })
}

/// The name of the method around `offset` in `file`.
fn enclosing_method_name(file: &FileFacts, offset: usize) -> Option<String> {
    let methods = file
        .controllers
        .iter()
        .flat_map(|c| c.actions.iter().chain(&c.private_methods))
        .chain(file.models.iter().flat_map(|m| &m.methods))
        .chain(file.definitions.iter().flat_map(|d| &d.methods));
    methods.filter(|m| within(m.span, offset)).min_by_key(|m| m.span.end_byte - m.span.start_byte).map(|m| m.name.clone())
}

// ---- document links -------------------------------------------------------------------------------

pub struct Link {
    pub span: Span,
    pub target: Arc<FileFacts>,
}

/// The `render` targets and layout names of a file that name a template of the app.
pub fn document_links(context: &AppContext, facts: &FileFacts) -> Vec<Link> {
    let nav = context.nav();
    let mut out = Vec::new();
    for render in &facts.render_calls {
        if let Some(span) = render.target_span
            && let Some(first) = nav.render_targets(context, facts, render).into_iter().next()
        {
            out.push(Link { span, target: first });
        }
        if let Some((name, span)) = &render.layout
            && let Some(path) = nav.render_layout(context, facts, name)
            && let Some(first) = nav.template_files(&path).first()
        {
            out.push(Link { span: *span, target: Arc::clone(first) });
        }
    }
    for controller in &facts.controllers {
        if let (Some(span), Some(name)) = (
            controller.layout_span,
            controller.layout.as_ref().filter(|v| matches!(v, crate::syntax::value::Value::String(_))).and_then(|v| v.as_name()),
        ) && let Some(path) = nav.layout_path(name)
            && let Some(first) = nav.template_files(&path).first()
        {
            out.push(Link { span, target: Arc::clone(first) });
        }
    }
    out
}

/// A template's line-1 lens: the actions that render it (or, for a partial, how many places do).
pub fn template_lens(context: &AppContext, facts: &FileFacts) -> Option<(String, Vec<Target>)> {
    let template = facts.template.as_ref()?;
    if template.layout {
        return None;
    }
    let targets = template_sources(context, facts);
    if template.partial {
        let n = targets.len();
        return (n > 0).then(|| (format!("rendered from {n} place{}", if n == 1 { "" } else { "s" }), targets));
    }
    let actions = context.nav().template_actions(context, &template.logical_path);
    if actions.is_empty() {
        return None;
    }
    let names: Vec<String> = actions.iter().map(|(c, a)| format!("{c}#{a}")).collect();
    Some((format!("rendered by {}", names.join(", ")), targets))
}

/// The controller path of a controller file's class (`admin/posts`).
pub fn controller_folder(controller: &Controller) -> Option<String> {
    controller_path(&controller.class_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    /// A small app every test adds its cursor file to.
    const APP: &str = r#"
        #- /db/schema.rb
        ActiveRecord::Schema[8.0].define(version: 2024_05_01_000000) do
          create_table "posts", force: :cascade do |t|
            t.string "title", null: false, default: "Untitled"
            t.text "body"
            t.references "author", null: false
            t.datetime "created_at", null: false
            t.index ["title"], name: "index_posts_on_title", unique: true
          end
          create_table "comments" do |t|
            t.bigint "post_id"
            t.text "body"
          end
          create_table "people" do |t|
            t.string "name"
          end
          create_table "pictures" do |t|
            t.string "imageable_type"
            t.bigint "imageable_id"
          end
        end
        #- /app/models/application_record.rb
        class ApplicationRecord < ActiveRecord::Base
          primary_abstract_class
        end
        #- /app/models/post.rb
        class Post < ApplicationRecord
          belongs_to :author, class_name: "Person"
          has_many :comments
          has_many :commenters, through: :comments, source: :person
          has_many :pictures, as: :imageable
          validates :title, presence: true
          before_save :normalize_title
          scope :published, -> { where.not(created_at: nil) }

          def normalize_title
            self.title = title.strip
          end
        end
        #- /app/models/comment.rb
        class Comment < ApplicationRecord
          belongs_to :post
          belongs_to :person
        end
        #- /app/models/person.rb
        class Person < ApplicationRecord
          has_many :pictures, as: :imageable
        end
        #- /app/models/picture.rb
        class Picture < ApplicationRecord
          belongs_to :imageable, polymorphic: true
        end
        #- /app/controllers/application_controller.rb
        class ApplicationController < ActionController::Base
          include Authentication
        end
        #- /app/controllers/concerns/authentication.rb
        module Authentication
          def require_login
            @current_person = Person.first
          end
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          before_action :require_login
          before_action :set_post, only: [:show, :edit]
          layout "admin"

          def index
            @posts = Post.published.order(:created_at)
          end

          def show
          end

          def edit
          end

          def create
            @post = Post.new(post_params)
            render :edit
          end

          private

          def set_post
            @post = Post.find_by(id: params[:id])
          end

          def post_params
            params.require(:post).permit(:title, :body)
          end
        end
        #- /app/helpers/posts_helper.rb
        module PostsHelper
          def byline(post)
            post.author.name
          end
        end
        #- /app/views/layouts/admin.html.erb
        <%= yield %>
        #- /app/views/posts/index.html.erb
        <h1><%= t(".title") %></h1>
        <%= render @posts %>
        #- /app/views/posts/_post.html.erb
        <%# locals: (post:, compact: false) -%>
        <%= post.title %> <%= byline(post) %>
        #- /app/views/posts/show.html.erb
        <%= render "form", post: @post %> <%= @current_person %>
        #- /app/views/posts/edit.html.erb
        <%= render partial: "form", locals: { post: @post } %>
        #- /app/views/posts/_form.html.erb
        <%= @post.title %> <%= post.comments.size %>
        #- /config/locales/en.yml
        en:
          posts:
            index:
              title: "All posts"
        #- /config/locales/de.yml
        de:
          posts:
            index:
              title: "Alle Beiträge"
    "#;

    fn app_with(cursor_file: &str) -> (Fixture, Arc<AppContext>, Arc<FileFacts>, usize) {
        // The cursor file replaces the app's file of the same path.
        let header = cursor_file.trim_start().lines().next().unwrap().trim().to_owned();
        let mut chunks: Vec<String> = APP.split("#- ").filter(|c| !c.trim().is_empty()).map(str::to_owned).collect();
        chunks.retain(|c| c.lines().next().unwrap().trim() != header.trim_start_matches("#- ").trim());
        let text = format!("{}\n{}", chunks.iter().map(|c| format!("#- {c}")).collect::<String>(), cursor_file);
        let fixture = Fixture::new(&text);
        let context = Arc::new(AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot()));
        let (path, offset) = fixture.cursor.clone().expect("a $0 in the cursor file");
        let facts = fixture.index.get(&path).unwrap();
        (fixture, context, facts, offset)
    }

    fn places(targets: &[Target]) -> Vec<String> {
        targets.iter().map(|t| format!("{}:{}:{}", t.file.relative_path, t.span.start.line + 1, t.span.start.col + 1)).collect()
    }

    fn check_definition(cursor_file: &str, expect: expect_test::Expect) {
        let (_fixture, context, facts, offset) = app_with(cursor_file);
        expect.assert_debug_eq(&places(&crate::ide::analysis::definition(&context, &facts, offset)));
    }

    fn check_references(cursor_file: &str, expect: expect_test::Expect) {
        let (_fixture, context, facts, offset) = app_with(cursor_file);
        expect.assert_debug_eq(&places(&crate::ide::analysis::references(&context, &facts, offset, false)));
    }

    fn check_hover(cursor_file: &str, expect: expect_test::Expect) {
        let (fixture, context, facts, offset) = app_with(cursor_file);
        let hover = crate::ide::analysis::hover(&context, &fixture.index, &facts, None, offset).map(|h| h.markdown);
        expect.assert_eq(&hover.unwrap_or_else(|| "(none)".to_owned()));
    }

    #[test]
    fn an_action_goes_to_its_templates_and_a_template_to_its_actions() {
        check_definition(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def cre$0ate\n    render :edit\n  end\n  def show; end\nend\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/edit.html.erb:1:1",
                ]
            "#]],
        );
        check_definition(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def sh$0ow; end\nend\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/show.html.erb:1:1",
                ]
            "#]],
        );
        // Anywhere in a template that names nothing: the actions that render it.
        check_definition(
            "#- /app/views/posts/edit.html.erb\n<p>Ed$0it</p>\n",
            expect_test::expect![[r#"
                [
                    "app/controllers/posts_controller.rb:16:7",
                    "app/controllers/posts_controller.rb:13:7",
                ]
            "#]],
        );
    }

    #[test]
    fn renders_and_layouts_go_to_their_files() {
        check_definition(
            "#- /app/views/posts/show.html.erb\n<%= render \"fo$0rm\", post: @post %>\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/_form.html.erb:1:1",
                ]
            "#]],
        );
        check_definition(
            "#- /app/views/posts/index.html.erb\n<%= render @po$0sts %>\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/_post.html.erb:1:1",
                ]
            "#]],
        );
        check_definition(
            "#- /app/controllers/admin_controller.rb\nclass AdminController < ApplicationController\n  layout \"ad$0min\"\nend\n",
            expect_test::expect![[r#"
                [
                    "app/views/layouts/admin.html.erb:1:1",
                ]
            "#]],
        );
    }

    #[test]
    fn associations_go_to_their_models() {
        let model = |line: &str| {
            format!(
                "#- /app/models/post.rb\nclass Post < ApplicationRecord\n  has_many :comments\n  has_many :pictures, as: :imageable\n  {line}\nend\n"
            )
        };
        check_definition(
            &model("belongs_to :auth$0or, class_name: \"Person\""),
            expect_test::expect![[r#"
            [
                "app/models/person.rb:1:7",
            ]
        "#]],
        );
        check_definition(
            &model("has_many :comm$0enters, through: :comments, source: :person"),
            expect_test::expect![[r#"
            [
                "app/models/person.rb:1:7",
            ]
        "#]],
        );
        check_definition(
            "#- /app/models/picture.rb\nclass Picture < ApplicationRecord\n  belongs_to :imagea$0ble, polymorphic: true\nend\n",
            expect_test::expect![[r#"
                [
                    "app/models/person.rb:1:7",
                    "app/models/post.rb:1:7",
                ]
            "#]],
        );
    }

    #[test]
    fn names_go_to_their_definitions() {
        // A filter's method in a concern its ancestor includes.
        check_definition(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  before_action :require_lo$0gin\nend\n",
            expect_test::expect![[r#"
                [
                    "app/controllers/concerns/authentication.rb:2:7",
                ]
            "#]],
        );
        // A helper called in a view.
        check_definition(
            "#- /app/views/posts/_post.html.erb\n<%= by$0line(post) %>\n",
            expect_test::expect![[r#"
                [
                    "app/helpers/posts_helper.rb:2:7",
                ]
            "#]],
        );
        // A constant.
        check_definition(
            "#- /app/controllers/people_controller.rb\nclass PeopleController < ApplicationController\n  def index\n    @people = Per$0son.all\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "app/models/person.rb:1:7",
                ]
            "#]],
        );
        // A partial's strict local: its declaration.
        check_definition(
            "#- /app/views/posts/_post.html.erb\n<%# locals: (post:) -%>\n<%= po$0st.title %>\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/_post.html.erb:1:13",
                ]
            "#]],
        );
    }

    #[test]
    fn columns_go_to_the_schema() {
        for (line, expect) in [
            ("validates :tit$0le, presence: true", "db/schema.rb:3:5"),
            ("scope :recent, -> { order(:created_$0at) }", "db/schema.rb:6:5"),
            ("scope :titled, -> { where(tit$0le: \"x\") }", "db/schema.rb:3:5"),
        ] {
            let file = format!("#- /app/models/post.rb\nclass Post < ApplicationRecord\n  {line}\nend\n");
            let (_fixture, context, facts, offset) = app_with(&file);
            assert_eq!(places(&crate::ide::analysis::definition(&context, &facts, offset)), [expect], "{line}");
        }
        check_definition(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def post_params\n    params.require(:post).permit(:bo$0dy)\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "db/schema.rb:4:5",
                ]
            "#]],
        );
        // `where(author: …)` names the association.
        check_definition(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def index\n    @posts = Post.published.where(autho$0r: nil)\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "app/models/post.rb:2:14",
                ]
            "#]],
        );
    }

    #[test]
    fn translations_go_to_their_keys() {
        check_definition(
            "#- /app/views/posts/index.html.erb\n<%= t(\".ti$0tle\") %>\n",
            expect_test::expect![[r#"
                [
                    "config/locales/de.yml:4:7",
                    "config/locales/en.yml:4:7",
                ]
            "#]],
        );
        check_definition(
            "#- /app/views/posts/show.html.erb\n<%= t(\"posts.index.ti$0tle\") %>\n",
            expect_test::expect![[r#"
                [
                    "config/locales/de.yml:4:7",
                    "config/locales/en.yml:4:7",
                ]
            "#]],
        );
    }

    #[test]
    fn references_of_partials_templates_helpers_and_associations() {
        check_references(
            "#- /app/views/posts/_form.html.erb\n<p>$0</p>\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/edit.html.erb:1:21",
                    "app/views/posts/show.html.erb:1:12",
                ]
            "#]],
        );
        check_references(
            "#- /app/views/posts/show.html.erb\n<p>$0</p>\n",
            expect_test::expect![[r#"
                [
                    "app/controllers/posts_controller.rb:10:7",
                ]
            "#]],
        );
        check_references(
            "#- /app/helpers/posts_helper.rb\nmodule PostsHelper\n  def by$0line(post)\n    post.author.name\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/_post.html.erb:2:23",
                ]
            "#]],
        );
        check_references(
            "#- /app/models/post.rb\nclass Post < ApplicationRecord\n  has_many :comm$0ents\nend\n",
            expect_test::expect![[r#"
                [
                    "app/views/posts/_form.html.erb:1:29",
                ]
            "#]],
        );
    }

    #[test]
    fn hover_on_a_model_an_association_a_column() {
        check_hover(
            "#- /app/controllers/people_controller.rb\nclass PeopleController < ApplicationController\n  def index\n    @posts = Po$0st.all\n  end\nend\n",
            expect_test::expect![[r#"
                **Post** < ApplicationRecord

                Table `posts` · db/schema.rb

                | Column | Type | Null | Default |
                |---|---|---|---|
                | `id` | bigint | no |  |
                | `title` | string | no | `"Untitled"` |
                | `body` | text | yes |  |
                | `author_id` | bigint | no |  |
                | `created_at` | datetime | no |  |

                Indexes: `(author_id)`, `(title)` unique

                Associations: belongs_to `:author`, has_many `:comments`, has_many `:commenters`, has_many `:pictures`
            "#]],
        );
        check_hover(
            "#- /app/models/comment.rb\nclass Comment < ApplicationRecord\n  belongs_to :po$0st\nend\n",
            expect_test::expect![[r#"
                **belongs_to `:post`** → `Post`

                **Post** < ApplicationRecord

                Table `posts` · db/schema.rb

                | Column | Type | Null | Default |
                |---|---|---|---|
                | `id` | bigint | no |  |
                | `title` | string | no | `"Untitled"` |
                | `body` | text | yes |  |
                | `author_id` | bigint | no |  |
                | `created_at` | datetime | no |  |

                Indexes: `(author_id)`, `(title)` unique

                Associations: belongs_to `:author`, has_many `:comments`, has_many `:commenters`, has_many `:pictures`


                ---

                Roundhouse's specialization (Switchyard's approximation):

                ```ruby
                # belongs_to :post
                # SELECT * FROM posts WHERE id = ? LIMIT 1
                def post = Post.find_by(id: @post_id)
                ```"#]],
        );
        check_hover(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def index\n    @posts = Post.where(tit$0le: params[:q])\n  end\nend\n",
            expect_test::expect![[r#"
                **Post#title** · column of `posts`

                `string`, not null, default `"Untitled"`

                Indexed: `(title)` unique"#]],
        );
    }

    #[test]
    fn hover_on_a_partial_an_ivar_a_translation() {
        check_hover(
            "#- /app/views/posts/index.html.erb\n<%= render @po$0sts %>\n",
            expect_test::expect![[r#"
                **app/views/posts/_post.html.erb**

                Strict locals: `post:`, `compact: false`

                Reads: `post`"#]],
        );
        check_hover(
            "#- /app/views/posts/show.html.erb\n<%= @po$0st.title %>\n",
            expect_test::expect![[r#"
                **`@post`**

                Rendered by: `PostsController#show`

                Set in: `set_post` (app/controllers/posts_controller.rb:24)"#]],
        );
        check_hover(
            "#- /app/views/posts/index.html.erb\n<%= t(\".ti$0tle\") %>\n",
            expect_test::expect![[r#"
                **`posts.index.title`**

                - `de`: Alle Beiträge
                - `en`: All posts
            "#]],
        );
    }

    #[test]
    fn tables_of_other_databases_and_of_a_structure_dump() {
        let fixture = Fixture::new(
            r#"
            #- /db/structure.sql
            CREATE TABLE public.posts (
                id bigint NOT NULL,
                title character varying NOT NULL
            );
            #- /db/queue_schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
              create_table "solid_queue_jobs" do |t|
                t.string "queue_name", null: false
              end
            end
            #- /app/models/post.rb
            class Post < ApplicationRecord
              validates :ti$0tle, presence: true
            end
            #- /app/models/job.rb
            class Job < ApplicationRecord
              self.table_name = "solid_queue_jobs"
              validates :queue_name, presence: true
            end
            "#,
        );
        let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        let (path, offset) = fixture.cursor.clone().unwrap();
        let post = fixture.index.get(&path).unwrap();
        assert_eq!(places(&definition(&context, &post, offset)), ["db/structure.sql:3:5"]);
        let job = fixture.facts("app/models/job.rb");
        let at = fixture.at("app/models/job.rb", "validates :q$0ueue_name");
        let hover = hover(&context, &job, at).unwrap().markdown;
        assert!(hover.starts_with("**Job#queue_name** · column of `solid_queue_jobs`"), "{hover}");
        let model = model_hover(&context, context.model("Job").unwrap());
        assert!(model.contains("Table `solid_queue_jobs` (database `queue`) · db/queue_schema.rb"), "{model}");
    }

    #[test]
    fn document_links_name_render_targets_and_layouts() {
        let (_fixture, context, facts, _) = app_with(
            "#- /app/views/posts/show.html.erb\n$0<%= render \"form\", post: @post %> <%= render \"missing\" %> <%= render layout: \"form\" do %>x<% end %>\n",
        );
        let links: Vec<String> = document_links(&context, &facts)
            .iter()
            .map(|l| format!("{}:{} -> {}", l.span.start.col + 1, l.span.end.col + 1, l.target.relative_path))
            .collect();
        expect_test::expect![[r#"
            [
                "12:18 -> app/views/posts/_form.html.erb",
                "78:84 -> app/views/posts/_form.html.erb",
            ]
        "#]]
        .assert_debug_eq(&links);
    }
}

//! Completion: what may be typed at the cursor, from the text before it on its line and the app's
//! navigation facts — rule ids in a `switchyard:disable` comment, partial names in `render "…"`,
//! i18n keys in `t("…")` (lazy ones relative to the template or action), instance variables in a
//! template (those its actions set), columns and associations in model macros and in
//! `where`/`find_by`/`order`/`pluck`/`permit`, model and other constants, then route helpers and (in
//! a template) the app's helpers.
//!
//! The text decides the context, not the tree: while a word is being typed the line seldom parses.

use std::collections::BTreeMap;

use crate::app::AppContext;
use crate::app::nav::{TableRef, enclosing_class};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::rails::references::Translation;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A route helper or an app helper.
    Function,
    Field,
    Reference,
    File,
    Text,
    Variable,
    Class,
    Rule,
}

#[derive(Debug, Clone)]
pub struct Item {
    pub label: String,
    pub kind: Kind,
    pub detail: String,
    /// Markdown.
    pub documentation: String,
    /// What to insert when it differs from the label (`title: ` in a `where`).
    pub insert: Option<String>,
    /// The byte range the item replaces (the word being typed), when it is not the word before the
    /// cursor as the client sees it (an i18n key with dots, a partial path with slashes).
    pub replace: Option<std::ops::Range<usize>>,
}

impl Item {
    fn new(label: impl Into<String>, kind: Kind, detail: impl Into<String>) -> Item {
        Item { label: label.into(), kind, detail: detail.into(), documentation: String::new(), insert: None, replace: None }
    }
}

/// Everything that may complete at `offset` of `text` (the open document `facts` were read from).
/// `in_code`: whether `offset` is in Ruby code (always in a Ruby file; inside a tag in a template).
pub fn complete(context: &AppContext, facts: &FileFacts, text: &str, offset: usize, in_code: bool) -> Vec<Item> {
    let Some(before) = text.get(..offset) else { return Vec::new() };
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    if let Some(partial) = rule_id_before(line) {
        return rule_ids(&partial);
    }
    if !in_code {
        return Vec::new();
    }
    if let Some((start, typed)) = string_argument(line, &["render", "partial:", ":partial =>", "layout:"]) {
        let from = offset - typed.len();
        let _ = start;
        return partials(context, facts, typed, from..offset);
    }
    if let Some((_, typed)) = string_argument(line, &["t", "translate", "I18n.t", "I18n.translate"]) {
        return translations(context, facts, typed, offset - typed.len()..offset);
    }
    let word_start = after_last(line, |c| !(c.is_ascii_alphanumeric() || c == '_'));
    let word = &line[word_start..];
    let preceding = line[..word_start].chars().next_back();
    if preceding == Some('@') {
        return instance_variables(context, facts, word);
    }
    if let Some(items) = columns(context, facts, line, word_start, offset) {
        return items;
    }
    if word.starts_with(|c: char| c.is_ascii_uppercase()) {
        return constants(context, word);
    }
    let is_name = word.is_empty() || word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    if !is_name || matches!(preceding, Some('.' | ':' | '$' | '"' | '\'')) {
        return Vec::new();
    }
    let mut items: Vec<Item> = super::routes::completions(context, word)
        .into_iter()
        .map(|c| Item { documentation: c.documentation, ..Item::new(c.label, Kind::Function, c.detail) })
        .collect();
    if facts.kind == Some(FileKind::View) {
        items.extend(helpers(context, word));
    }
    items
}

/// The byte offset just after the last character of `text` that is `boundary` (0 when none is): where
/// the word that ends `text` starts. The character may be of any width (`café`, `😀`).
fn after_last(text: &str, boundary: impl Fn(char) -> bool) -> usize {
    text.char_indices().rev().find(|&(_, c)| boundary(c)).map_or(0, |(i, c)| i + c.len_utf8())
}

/// In a `switchyard:disable` comment, the rule id being typed (possibly empty).
fn rule_id_before(line: &str) -> Option<String> {
    let directive = line.find("switchyard:disable")?;
    let after = &line[directive + "switchyard:disable".len()..];
    let after = after.strip_prefix("-next-line").unwrap_or(after);
    // The directive itself must be complete (a space after it) before ids follow.
    if !after.starts_with(' ') {
        return None;
    }
    let start = after_last(line, |c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')));
    Some(line[start..].to_owned())
}

/// Every rule id starting with `partial`, with its summary.
fn rule_ids(partial: &str) -> Vec<Item> {
    let catalogue = crate::catalogue::RULES.iter().map(|r| r.id);
    let own = crate::roundhouse::rule_docs::OWN.iter().map(|(id, _)| id.as_str());
    catalogue
        .chain(own)
        .filter(|id| id.starts_with(partial))
        .map(|id| Item { documentation: crate::roundhouse::rule_docs::summary(id).unwrap_or_default(), ..Item::new(id, Kind::Rule, "") })
        .collect()
}

/// The string being typed as a call's first argument or an option's value (`render "sha`,
/// `t('.ti`, `partial: "posts/`): the byte offset where the call starts in the line, and what is
/// typed inside the quotes.
fn string_argument<'l>(line: &'l str, callers: &[&str]) -> Option<(usize, &'l str)> {
    let quote = line.rfind(['"', '\''])?;
    let typed = &line[quote + 1..];
    if !typed.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')) {
        return None;
    }
    // An opening quote: an even number of that quote before it.
    let quote_char = line.as_bytes()[quote] as char;
    if !line[..quote].matches(quote_char).count().is_multiple_of(2) {
        return None;
    }
    let head = line[..quote].trim_end().trim_end_matches('(').trim_end();
    callers.iter().find_map(|caller| {
        let start = head.strip_suffix(caller)?;
        // The caller is a word of its own (`t`, not `format`).
        let boundary =
            start.chars().next_back().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' && !caller.contains('.')));
        boundary.then_some((start.len(), typed))
    })
}

/// Partial names: those of the file's folder by their name, every other by its folder and name.
fn partials(context: &AppContext, facts: &FileFacts, typed: &str, replace: std::ops::Range<usize>) -> Vec<Item> {
    let nav = context.nav();
    let folder = facts
        .template
        .as_ref()
        .and_then(|t| t.logical_path.rsplit_once('/'))
        .map(|(dir, _)| dir.to_owned())
        .or_else(|| facts.controllers.first().and_then(super::nav::controller_folder));
    let mut out: BTreeMap<String, Item> = BTreeMap::new();
    for path in nav.template_paths() {
        let Some((dir, base)) = path.rsplit_once('/') else { continue };
        let Some(name) = base.strip_prefix('_') else { continue };
        let label = if Some(dir) == folder.as_deref() { name.to_owned() } else { format!("{dir}/{name}") };
        if !label.starts_with(typed) {
            continue;
        }
        let files: Vec<&str> = nav.template_files(path).iter().map(|f| f.relative_path.as_str()).collect();
        let mut item = Item::new(label.clone(), Kind::File, files.join(", "));
        if let Some(strict) = nav.template_files(path).iter().find_map(|f| f.template.as_ref()?.strict_locals.as_ref()) {
            let names: Vec<&str> = strict.names().collect();
            item.documentation = format!("locals: ({})", names.join(", "));
        }
        item.replace = Some(replace.clone());
        out.insert(label, item);
    }
    out.into_values().collect()
}

/// i18n keys of the default locale: under the lazy scope for a `.key`, else absolute.
fn translations(context: &AppContext, facts: &FileFacts, typed: &str, replace: std::ops::Range<usize>) -> Vec<Item> {
    let nav = context.nav();
    let locale = nav.default_locale.clone();
    let (scope, rest) = if typed.starts_with('.') {
        let probe = Translation {
            key: ".x".to_owned(),
            span: crate::syntax::Span { start_byte: replace.start as u32, end_byte: replace.start as u32, ..Default::default() },
            has_default: false,
        };
        let Some(key) = nav.translation_keys(context, facts, &probe).into_iter().next() else { return Vec::new() };
        (key.strip_suffix(".x").unwrap_or("").to_owned(), typed)
    } else {
        (String::new(), typed)
    };
    let mut out: Vec<Item> = Vec::new();
    for key in nav.keys_under(&locale, &scope) {
        let relative = if scope.is_empty() {
            key.to_owned()
        } else {
            match key.strip_prefix(&format!("{scope}.")) {
                Some(r) => format!(".{r}"),
                None => continue,
            }
        };
        if !relative.starts_with(rest) {
            continue;
        }
        let value =
            nav.translation_in(&locale, key).into_iter().next().and_then(|(f, i)| f.locale.as_ref()?.entry(i)?.value.map(str::to_owned));
        let Some(value) = value else { continue };
        let mut item = Item::new(relative, Kind::Text, value);
        item.replace = Some(replace.clone());
        out.push(item);
        if out.len() >= 500 {
            break;
        }
    }
    out.sort_by(|a, b| a.label.cmp(&b.label));
    out
}

/// In a template: the instance variables the actions that render it (and their filters) set. In a
/// class: those the file uses.
fn instance_variables(context: &AppContext, facts: &FileFacts, typed: &str) -> Vec<Item> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    if facts.template.is_some() {
        for (class, action) in super::nav::feeding_actions(context, facts) {
            for (file, method) in crate::app::nav::action_methods(context, &class, &action) {
                for write in file
                    .uses
                    .ivars
                    .iter()
                    .filter(|u| u.write && method.span.start_byte <= u.span.start_byte && u.span.end_byte <= method.span.end_byte)
                {
                    names.entry(write.name.to_string()).or_insert_with(|| format!("set in {class}#{}", method.name));
                }
            }
        }
    } else {
        for ivar in &facts.uses.ivars {
            names.entry(ivar.name.to_string()).or_default();
        }
    }
    names
        .into_iter()
        .filter(|(name, _)| name.trim_start_matches('@').starts_with(typed))
        .map(|(name, detail)| {
            let mut item = Item::new(name.clone(), Kind::Variable, detail);
            item.insert = Some(name.trim_start_matches('@').to_owned());
            item
        })
        .collect()
}

/// Query methods that take columns as hash keys (`where(title: …)`, `where.not(…)`) or symbols
/// (`order(:title)`): the query methods the index reads column names in, and `not`.
fn takes_hash(method: &str) -> bool {
    method == "not" || crate::rails::references::COLUMN_METHODS.contains(&method) && !SYMBOL_METHODS.contains(&method)
}
/// Methods and macros that take columns as symbols (`order(:title)`, `validates :title`).
const SYMBOL_METHODS: &[&str] = &["order", "reorder", "pluck", "pick", "permit", "expect", "group", "select", "distinct_on"];

/// Columns and associations, when the cursor is in the arguments of a query method or a model macro.
fn columns(context: &AppContext, facts: &FileFacts, line: &str, word_start: usize, offset: usize) -> Option<Vec<Item>> {
    let nav = context.nav();
    let typed = &line[word_start..];
    // The call the cursor is in: an unclosed `(`, or a command call at the start of the line.
    let (method, receiver) = enclosing_call(&line[..word_start])?;
    let symbol = line[..word_start].ends_with(':');
    let model = if method.starts_with("validates") || method == "validate" {
        enclosing_class(facts, offset).and_then(|c| context.model(&c))
    } else if method == "permit" || method == "expect" {
        let key = receiver.split("require(:").nth(1).map(|r| r.trim_end_matches(')').to_owned()).or_else(|| {
            // `params.expect(post: [` → `post`.
            line.rsplit_once("expect(").and_then(|(_, rest)| rest.split(':').next()).map(|k| k.trim().to_owned())
        })?;
        context.model(&crate::rails::inflect::camelize(&key))
    } else if takes_hash(&method) || SYMBOL_METHODS.contains(&method.as_str()) {
        let start = receiver.split('.').next().unwrap_or("").trim();
        if receiver.is_empty() || start == "self" {
            enclosing_class(facts, offset).and_then(|c| context.model(&c))
        } else if start.starts_with(|c: char| c.is_ascii_uppercase()) {
            let found = nav.constant(start, facts, offset);
            found
                .into_iter()
                .find_map(|t| t.file.models.iter().find(|m| m.name_span == t.span).map(|m| m.class_name.clone()))
                .and_then(|c| context.model(&c))
        } else {
            None
        }
    } else {
        return None;
    };
    // In a column's place with no model known (a concern's scope): no columns, and nothing else.
    let Some(model) = model else { return Some(Vec::new()) };
    let table: Option<&TableRef> = nav.model_table(context, &model.class_name);
    let hash_keys = takes_hash(&method) && !symbol;
    let mut out = Vec::new();
    let insert = |name: &str| -> Option<String> {
        if hash_keys {
            Some(format!("{name}: "))
        } else if !symbol && !line[..word_start].ends_with(':') {
            Some(format!(":{name}"))
        } else {
            None
        }
    };
    if let Some(table) = table {
        for column in &table.table().columns {
            if !column.name.starts_with(typed) {
                continue;
            }
            let detail = format!("{}{}", column.column_type, if column.null { "" } else { ", not null" });
            let mut item = Item::new(column.name.clone(), Kind::Field, detail);
            item.documentation = format!("column of `{}`", table.table().name);
            item.insert = insert(&column.name);
            out.push(item);
        }
    }
    for association in crate::app::nav::all_associations(context, model) {
        if association.name.starts_with(typed) && !out.iter().any(|i: &Item| i.label == association.name) {
            let mut item = Item::new(association.name.clone(), Kind::Reference, association.kind.clone());
            item.insert = insert(&association.name);
            out.push(item);
        }
    }
    Some(out)
}

/// The method whose arguments end `before` (`Post.where(` → `where`, `Post`; `  validates :a, ` →
/// `validates`, ``), when there is one on the line.
fn enclosing_call(before: &str) -> Option<(String, String)> {
    let mut depth = 0i32;
    for (i, c) in before.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '(' => {
                let head = &before[..i];
                let name_start = after_last(head, |c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '!' | '?')));
                let method = head[name_start..].to_owned();
                let receiver = head[..name_start].strip_suffix('.').map(receiver_before);
                return (!method.is_empty()).then(|| (method, receiver.unwrap_or_default()));
            }
            _ => {}
        }
    }
    // `  validates :title, :bo` — a command call at the start of the line.
    let trimmed = before.trim_start();
    let method: String = trimmed.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (trimmed[method.len()..].starts_with(' ')
        && (method.starts_with("validates") || SYMBOL_METHODS.contains(&method.as_str()) || takes_hash(&method)))
    .then(|| (method, String::new()))
}

/// The receiver expression that ends `text` (`params.require(:post)` in `x = params.require(:post)`):
/// names, dots, `::` and balanced parentheses, back to where the expression starts.
fn receiver_before(text: &str) -> String {
    let mut depth = 0i32;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        match c {
            ')' | ']' => depth += 1,
            '(' | '[' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '@' | '?' | '!') => {}
            _ => break,
        }
        start = i;
    }
    text[start..].to_owned()
}

/// Models first (with their table), then the app's other classes and modules.
fn constants(context: &AppContext, typed: &str) -> Vec<Item> {
    let nav = context.nav();
    let mut out: Vec<Item> = Vec::new();
    for name in nav.constant_names().filter(|n| n.starts_with(typed)) {
        let (kind, detail) = match context.model(name) {
            Some(_) => {
                let table = crate::app::nav::model_table_name(context, name);
                (Kind::Class, format!("model · table {table}"))
            }
            None => (Kind::Class, String::new()),
        };
        out.push(Item::new(name, kind, detail));
    }
    out.sort_by(|a, b| (a.detail.is_empty(), &a.label).cmp(&(b.detail.is_empty(), &b.label)));
    out
}

/// The app's helper methods (in `app/helpers`), for a template.
fn helpers(context: &AppContext, typed: &str) -> Vec<Item> {
    let mut out: BTreeMap<String, Item> = BTreeMap::new();
    for file in context.files.iter().filter(|f| f.kind == Some(FileKind::Helper)) {
        for definition in &file.definitions {
            for method in definition
                .methods
                .iter()
                .filter(|m| m.name.starts_with(typed) && m.visibility == crate::syntax::outline::Visibility::Public)
            {
                out.entry(method.name.clone()).or_insert_with(|| {
                    Item::new(method.name.clone(), Kind::Function, format!("{} · {}", definition.name, file.relative_path))
                });
            }
        }
    }
    out.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    const APP: &str = r#"
        #- /db/schema.rb
        ActiveRecord::Schema[8.0].define(version: 2024_05_01_000000) do
          create_table "posts" do |t|
            t.string "title", null: false
            t.text "body"
            t.datetime "created_at", null: false
          end
        end
        #- /app/models/post.rb
        class Post < ApplicationRecord
          has_many :comments
          belongs_to :author
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          before_action :set_post
          def show
            @comments = @post.comments
          end
          private
          def set_post
            @post = Post.find(params[:id])
          end
        end
        #- /app/helpers/posts_helper.rb
        module PostsHelper
          def byline(post) = post.author.name
        end
        #- /app/views/posts/show.html.erb
        <h1><%= @post.title %></h1>
        #- /app/views/posts/_form.html.erb
        <%# locals: (post:) -%>
        #- /app/views/shared/_nav.html.erb
        <nav></nav>
        #- /config/locales/en.yml
        en:
          posts:
            show:
              title: "A post"
              comments: "Comments"
          site:
            name: "Blog"
    "#;

    /// The labels offered at `$0` in `file` (added to the app), with what each inserts.
    fn check(file: &str, expect: expect_test::Expect) {
        expect.assert_debug_eq(&offered(file));
    }

    /// `check`'s list.
    fn offered(file: &str) -> Vec<String> {
        let path = file.trim_start().lines().next().unwrap().trim().trim_start_matches("#- ").to_owned();
        let rest: String = APP
            .split("#- ")
            .filter(|c| !c.trim().is_empty() && c.lines().next().unwrap().trim() != path)
            .map(|c| format!("#- {c}"))
            .collect();
        let fixture = Fixture::new(&format!("{rest}\n{file}"));
        let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        let (cursor_path, offset) = fixture.cursor.clone().unwrap();
        let facts = fixture.index.get(&cursor_path).unwrap();
        let text = fixture.texts[&cursor_path].clone();
        let parsed = crate::syntax::ParsedFile::parse(facts.language, &text);
        let items = complete(&context, &facts, &text, offset, parsed.in_ruby_code(offset));
        let shown: Vec<String> = items
            .iter()
            .map(|i| format!("{} [{}]{}", i.label, i.detail, i.insert.as_ref().map(|t| format!(" inserts {t:?}")).unwrap_or_default()))
            .collect();
        shown
    }

    /// A character wider than a byte before the cursor (a word, a comment, an argument) completes
    /// what it would after a plain one, and never panics.
    #[test]
    fn wide_characters_before_the_cursor() {
        // The word typed after the wide character: nothing starts with `_`; every rule id starts with ``.
        assert_eq!(offered("#- /app/models/cafe.rb\nclass Cafe < ApplicationRecord\n  café_$0\nend\n"), Vec::<String>::new());
        assert_eq!(offered("#- /app/models/cafe.rb\nclass Cafe < ApplicationRecord\n  a = 1 😀_$0\nend\n"), Vec::<String>::new());
        let all = offered("#- /app/models/cafe.rb\n# switchyard:disable é$0\nclass Cafe < ApplicationRecord\nend\n");
        assert_eq!(all.len(), crate::catalogue::RULES.len() + crate::roundhouse::rule_docs::OWN.len());
        // In a query's arguments after `é`: Post's columns.
        let columns = offered(
            "#- /app/controllers/cafes_controller.rb\nclass CafesController < ApplicationController\n  def index = Post.where(é$0)\nend\n",
        );
        assert!(columns.iter().any(|c| c.starts_with("title ")), "{columns:?}");
        check(
            "#- /app/models/cafe.rb\n# switchyard:disable é model.unsupported-m$0\nclass Cafe < ApplicationRecord\nend\n",
            expect_test::expect![[r#"
                [
                    "model.unsupported-macro []",
                ]
            "#]],
        );
    }

    #[test]
    fn partial_names_in_render() {
        check(
            "#- /app/views/posts/edit.html.erb\n<%= render \"$0\" %>\n",
            expect_test::expect![[r#"
                [
                    "form [app/views/posts/_form.html.erb]",
                    "shared/nav [app/views/shared/_nav.html.erb]",
                ]
            "#]],
        );
    }

    #[test]
    fn i18n_keys_lazy_and_absolute() {
        check(
            "#- /app/views/posts/show.html.erb\n<%= t(\".$0\") %>\n",
            expect_test::expect![[r#"
                [
                    ".comments [Comments]",
                    ".title [A post]",
                ]
            "#]],
        );
        check(
            "#- /app/views/posts/show.html.erb\n<%= t(\"site.$0\") %>\n",
            expect_test::expect![[r#"
                [
                    "site.name [Blog]",
                ]
            "#]],
        );
    }

    #[test]
    fn instance_variables_the_actions_set() {
        check(
            "#- /app/views/posts/show.html.erb\n<%= @$0 %>\n",
            expect_test::expect![[r#"
                [
                    "@comments [set in PostsController#show] inserts \"comments\"",
                    "@post [set in PostsController#set_post] inserts \"post\"",
                ]
            "#]],
        );
    }

    #[test]
    fn columns_and_associations_in_queries_and_macros() {
        check(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def index\n    @posts = Post.where(ti$0)\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "title [string, not null] inserts \"title: \"",
                ]
            "#]],
        );
        check(
            "#- /app/models/post.rb\nclass Post < ApplicationRecord\n  has_many :comments\n  validates :$0\nend\n",
            expect_test::expect![[r#"
                [
                    "id [bigint, not null]",
                    "title [string, not null]",
                    "body [text]",
                    "created_at [datetime, not null]",
                    "comments [has_many]",
                ]
            "#]],
        );
        check(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def post_params\n    params.require(:post).permit(:title, $0)\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "id [bigint, not null] inserts \":id\"",
                    "title [string, not null] inserts \":title\"",
                    "body [text] inserts \":body\"",
                    "created_at [datetime, not null] inserts \":created_at\"",
                    "comments [has_many] inserts \":comments\"",
                    "author [belongs_to] inserts \":author\"",
                ]
            "#]],
        );
    }

    #[test]
    fn constants_helpers_and_route_helpers() {
        check(
            "#- /app/controllers/posts_controller.rb\nclass PostsController < ApplicationController\n  def index\n    Po$0\n  end\nend\n",
            expect_test::expect![[r#"
                [
                    "Post [model · table posts]",
                    "PostsController []",
                    "PostsHelper []",
                ]
            "#]],
        );
        check(
            "#- /app/views/posts/show.html.erb\n<%= by$0 %>\n",
            expect_test::expect![[r#"
                [
                    "byline [PostsHelper · app/helpers/posts_helper.rb]",
                ]
            "#]],
        );
        // Outside a tag, nothing.
        check(
            "#- /app/views/posts/show.html.erb\n<p>by$0</p>\n",
            expect_test::expect![[r#"
            []
        "#]],
        );
    }
}

//! End to end, Rails navigation: definition, references, hover, completion and document links over
//! stdio against the real binary, in Ruby, ERB and HAML files of `tests/fixtures/apps/library`. A
//! cursor is placed by the text it is on (`at(file, "render \"sh|ared")`), never by offsets the
//! server reported.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{Client, repo_root, uri};

fn app() -> PathBuf {
    repo_root().join("tests/fixtures/apps/library")
}

/// The position of `|` in `marked` (the text around the cursor, `|` standing for it) in `file`.
fn at(file: &Path, marked: &str) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    let (before, after) = marked.split_once('|').expect("a | in the marker");
    let found = text.find(&format!("{before}{after}")).unwrap_or_else(|| panic!("{marked:?} in {}", file.display()));
    let offset = found + before.len();
    let line = text[..offset].matches('\n').count();
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
    json!({"textDocument": {"uri": uri(file)}, "position": {"line": line, "character": character}})
}

/// `relative/path:line` (1-based) of each location.
fn places(result: &Value) -> Vec<String> {
    let root = format!("{}/", uri(&app()));
    let mut out: Vec<String> = result
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|l| {
            let uri = l["uri"].as_str().or(l["targetUri"].as_str()).unwrap();
            let range = if l["range"].is_null() { &l["targetRange"] } else { &l["range"] };
            format!("{}:{}", uri.trim_start_matches(&root), range["start"]["line"].as_u64().unwrap() + 1)
        })
        .collect();
    out.sort();
    out
}

fn start() -> Client {
    let mut client = Client::spawn();
    client.initialize(&app());
    client.wait_indexed();
    client
}

fn hover_text(client: &mut Client, position: Value) -> String {
    let reply = client.request("textDocument/hover", position);
    reply["result"]["contents"]["value"].as_str().unwrap_or_else(|| panic!("a hover: {reply}")).to_owned()
}

fn labels(reply: &Value) -> Vec<String> {
    let items = reply["result"].as_array().or(reply["result"]["items"].as_array()).cloned().unwrap_or_default();
    items.iter().map(|i| i["label"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn definition_in_ruby_erb_and_haml() {
    let mut client = start();
    let app = app();
    let show = app.join("app/views/books/show.html.erb");
    client.open(&show, "erb", 1);
    // A partial from ERB.
    let found = client.request("textDocument/definition", at(&show, "render \"shared/by|line\""));
    assert_eq!(places(&found["result"]), ["app/views/shared/_byline.html.erb:1"], "{found}");
    // A helper from ERB.
    let found = client.request("textDocument/definition", at(&show, "<%= sta|rs(review.stars) %>"));
    assert_eq!(places(&found["result"]), ["app/helpers/books_helper.rb:2"], "{found}");
    // The filter that sets an instance variable.
    let found = client.request("textDocument/definition", at(&show, "<h1><%= @bo|ok.title %>"));
    assert_eq!(places(&found["result"]), ["app/controllers/books_controller.rb:27"], "{found}");

    // A partial from HAML.
    let edit = app.join("app/views/books/edit.html.haml");
    client.open(&edit, "haml", 1);
    let found = client.request("textDocument/definition", at(&edit, "render \"fo|rm\""));
    assert_eq!(places(&found["result"]), ["app/views/books/_form.html.erb:1"], "{found}");

    // From Ruby: a filter's method in an included concern, an association, a column, an action's template.
    let controller = app.join("app/controllers/books_controller.rb");
    client.open(&controller, "ruby", 1);
    let found = client.request("textDocument/definition", at(&controller, "before_action :set_b|ook"));
    assert_eq!(places(&found["result"]), ["app/controllers/books_controller.rb:26"], "{found}");
    let found = client.request("textDocument/definition", at(&controller, "Book.published.order(:tit|le)"));
    assert_eq!(places(&found["result"]), ["db/schema.rb:9"], "{found}");
    let found = client.request("textDocument/definition", at(&controller, "def sh|ow"));
    assert_eq!(places(&found["result"]), ["app/views/books/show.html.erb:1"], "{found}");
    let model = app.join("app/models/book.rb");
    client.open(&model, "ruby", 1);
    let found = client.request("textDocument/definition", at(&model, "belongs_to :aut|hor"));
    assert_eq!(places(&found["result"]), ["app/models/author.rb:1"], "{found}");
    // An i18n key in every locale.
    let index = app.join("app/views/books/index.html.erb");
    client.open(&index, "erb", 1);
    let found = client.request("textDocument/definition", at(&index, "t(\".ti|tle\")"));
    assert_eq!(places(&found["result"]), ["config/locales/de.yml:4", "config/locales/en.yml:4"], "{found}");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn references_of_a_partial_a_template_and_a_helper() {
    let mut client = start();
    let app = app();
    let references = |client: &mut Client, position: Value| {
        let mut params = position;
        params["context"] = json!({"includeDeclaration": false});
        places(&client.request("textDocument/references", params)["result"])
    };
    let byline = app.join("app/views/shared/_byline.html.erb");
    client.open(&byline, "erb", 1);
    assert_eq!(
        references(&mut client, at(&byline, "<p class=\"by|line\">")),
        ["app/views/authors/show.html.erb:2", "app/views/books/show.html.erb:2"]
    );
    let show = app.join("app/views/books/show.html.erb");
    client.open(&show, "erb", 1);
    assert_eq!(references(&mut client, at(&show, "<h|1>")), ["app/controllers/books_controller.rb:9"]);
    let helper = app.join("app/helpers/books_helper.rb");
    client.open(&helper, "ruby", 1);
    assert_eq!(references(&mut client, at(&helper, "def st|ars")), ["app/views/books/show.html.erb:4"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn hover_on_columns_models_keys_and_instance_variables() {
    let mut client = start();
    let app = app();
    let controller = app.join("app/controllers/books_controller.rb");
    client.open(&controller, "ruby", 1);
    let text = hover_text(&mut client, at(&controller, "Book.published.order(:tit|le)"));
    assert!(text.starts_with("**Book#title** · column of `books`\n\n`string`, not null"), "{text}");
    let text = hover_text(&mut client, at(&controller, "@books = Bo|ok.published"));
    assert!(text.contains("Table `books` · db/schema.rb"), "{text}");
    assert!(text.contains("| `isbn` | string | yes |  |"), "{text}");
    assert!(text.contains("Indexes: `(author_id)`, `(isbn)` unique"), "{text}");

    let index = app.join("app/views/books/index.html.erb");
    client.open(&index, "erb", 1);
    let text = hover_text(&mut client, at(&index, "t(\".ti|tle\")"));
    assert!(text.contains("- `de`: Bücher\n- `en`: Books"), "{text}");
    let text = hover_text(&mut client, at(&index, "render @bo|oks"));
    assert!(text.contains("Strict locals: `book:`, `compact: false`"), "{text}");

    let show = app.join("app/views/books/show.html.erb");
    client.open(&show, "erb", 1);
    let text = hover_text(&mut client, at(&show, "<h1><%= @bo|ok.title %>"));
    assert!(text.contains("Rendered by: `BooksController#show`"), "{text}");
    assert!(text.contains("`set_book` (app/controllers/books_controller.rb:27)"), "{text}");

    let edit = app.join("app/views/books/edit.html.haml");
    client.open(&edit, "haml", 1);
    let text = hover_text(&mut client, at(&edit, "t(\".ba|ck\")"));
    assert!(text.contains("- `de`: Zurück") && text.contains("Missing in: `en`"), "{text}");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn completion_of_ivars_partials_keys_and_columns() {
    let mut client = start();
    let app = app();
    let complete =
        |client: &mut Client, uri: &str, line: u32, character: u32| {
            labels(&client.request(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
            ))
        };
    // An ERB template being edited: `<%= @` on a new last line.
    let show = app.join("app/views/books/show.html.erb");
    let show_uri = client.open(&show, "erb", 1);
    let lines = std::fs::read_to_string(&show).unwrap().lines().count() as u32;
    let insert = |client: &mut Client, uri: &str, version: i64, line: u32, text: &str| {
        client.change(
            uri,
            version,
            json!([{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": text}]),
        );
    };
    insert(&mut client, &show_uri, 2, lines, "<%= @ %>\n");
    let found = complete(&mut client, &show_uri, lines, 5);
    for expected in ["@book", "@reviews", "@reader"] {
        assert!(found.contains(&expected.to_owned()), "{expected} in {found:?}");
    }
    insert(&mut client, &show_uri, 3, lines + 1, "<%= render \"sh %>\n");
    assert_eq!(complete(&mut client, &show_uri, lines + 1, 14), ["shared/byline"]);

    // HAML: a lazy key of the template.
    let edit = app.join("app/views/books/edit.html.haml");
    let edit_uri = client.open(&edit, "haml", 1);
    insert(&mut client, &edit_uri, 2, 3, "= t(\".\n");
    assert_eq!(complete(&mut client, &edit_uri, 3, 6), [".title"]);

    // Ruby: columns of the relation's model.
    let controller = app.join("app/controllers/books_controller.rb");
    let controller_uri = client.open(&controller, "ruby", 1);
    insert(&mut client, &controller_uri, 2, 7, "    Book.where(pa\n");
    assert_eq!(complete(&mut client, &controller_uri, 7, 21), ["pages"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn document_links_and_the_new_checks() {
    let mut client = start();
    let app = app();
    let authors = app.join("app/views/authors/show.html.erb");
    let authors_uri = client.open(&authors, "erb", 1);
    let links = client.request("textDocument/documentLink", json!({"textDocument": {"uri": authors_uri}}));
    let targets: Vec<&str> =
        links["result"].as_array().unwrap().iter().map(|l| l["target"].as_str().unwrap().rsplit("/app/views/").next().unwrap()).collect();
    assert_eq!(targets, ["shared/_byline.html.erb", "books/_book.html.erb"]);
    // The partial's strict locals, checked on the render.
    let diagnostics = client.published(&authors_uri);
    let codes: Vec<&str> = diagnostics.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["rails.partial-locals", "rails.partial-locals"], "{diagnostics:?}");
    // A pending migration, on its class.
    let migration = app.join("db/migrate/20250415090000_add_subtitle_to_books.rb");
    let migration_uri = client.open(&migration, "ruby", 1);
    let diagnostics = client.published(&migration_uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "rails.pending-migration");
    // The column that migration adds is not in the schema yet, but the pending migration is the one
    // finding: the model's use of it is not reported a second time.
    let book = uri(&app.join("app/models/book.rb"));
    let published = client.published(&book);
    assert!(published.iter().all(|d| d["code"] != "rails.unknown-column"), "{published:?}");
    assert_eq!(client.shutdown().code(), Some(0));
}

/// The checks follow edits in other files: setting the variable in the action, adding the key to the
/// locale file, each clears the finding of the template that needed it.
#[test]
fn findings_follow_edits_elsewhere() {
    let app = support::copy_dir(&repo_root().join("tests/fixtures/apps/library"), "nav-live");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let codes = |diagnostics: &[Value]| -> Vec<String> { diagnostics.iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect() };
    let show = uri(&app.join("app/views/books/show.html.erb"));
    assert_eq!(codes(&client.published(&show)), ["rails.unset-instance-variable"]);
    // `def show` is line 9 (0-based 8): set `@rating` in it.
    let controller_path = app.join("app/controllers/books_controller.rb");
    let controller = client.open(&controller_path, "ruby", 1);
    let line = std::fs::read_to_string(&controller_path).unwrap().lines().position(|l| l.contains("def show")).unwrap() as u32;
    client.change(&controller, 2, json!([{"range": {"start": {"line": line + 1, "character": 0}, "end": {"line": line + 1, "character": 0}}, "text": "    @rating = 5\n"}]));
    let cleared = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == show);
    assert_eq!(cleared["params"]["diagnostics"], json!([]), "{cleared}");

    // The template's `t(…)` calls are also said for the compiled app (`views.helper-undefined`), which
    // the locale file does not change.
    let rails_codes =
        |diagnostics: &[Value]| -> Vec<String> { codes(diagnostics).into_iter().filter(|c| c.starts_with("rails.")).collect() };
    let edit = uri(&app.join("app/views/books/edit.html.haml"));
    let before = client.published(&edit);
    assert_eq!(rails_codes(&before), ["rails.missing-translation"]);
    let compiled: Vec<String> = codes(&before).into_iter().filter(|c| !c.starts_with("rails.")).collect();
    let en = client.open(&app.join("config/locales/en.yml"), "yaml", 1);
    // After `    edit:` (line 9, 0-based 8) and its `title:`, add `back:`.
    client.change(
        &en,
        2,
        json!([{"range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}}, "text": "      back: \"Back\"\n"}]),
    );
    let cleared = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == edit);
    let after = cleared["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
    assert!(rails_codes(&after).is_empty(), "{cleared}");
    assert_eq!(codes(&after), compiled, "{cleared}");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

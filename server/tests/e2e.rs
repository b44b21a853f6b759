//! End to end: the real `switchyard` binary over stdio, driven as an editor drives it.

mod support;

use std::str::FromStr;

use serde_json::{Value, json};
use support::{Client, copy_dir, repo_root, symbol_names, uri, write_app};

#[test]
fn edit_a_model_break_it_repair_it_and_shut_down() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    let init = client.initialize(&app);
    assert_eq!(init["result"]["capabilities"]["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(init["result"]["serverInfo"]["name"], "switchyard");

    let report = client.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report");
    let message = report["params"]["value"]["message"].as_str().unwrap();
    assert!(message.starts_with("Indexing ") && message.ends_with(" files"), "{message}");
    client.wait_indexed();
    assert!(client.seen.iter().any(|m| m["method"] == "client/registerCapability"), "file watchers registered");

    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    // The model compiles, with some Rails behaviour dropped (warnings): no syntax error.
    let syntax = |ds: Vec<Value>| -> Vec<Value> {
        ds.into_iter().filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with("syntax."))).collect()
    };
    let opened = client.diagnostics(&post_uri, Some(1));
    assert!(opened.iter().all(|d| d["severity"] == 2 || d["severity"] == 3), "only warnings and information: {opened:?}");
    // The include of the app's own concern loses nothing: information, not a warning.
    assert!(
        opened.iter().any(|d| d["severity"] == 3 && d["message"].as_str().is_some_and(|m| m.contains("includes Publishable"))),
        "{opened:?}"
    );
    assert_eq!(syntax(opened), Vec::<Value>::new());

    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": post_uri}}));
    let names = symbol_names(&symbols["result"]);
    for expected in [
        "Post",
        "belongs_to :author, class_name: \"User\"",
        "has_many :tags, through: :taggings",
        "validates :title, presence: true, length: { minimum: 3 }",
        "before_validation :strip_title",
        "scope :recent",
        "enum :status, { draft: 0, review: 1, live: 2 }, default: :draft",
        "to_param",
    ] {
        assert!(names.iter().any(|n| n == expected), "missing symbol {expected:?} in {names:#?}");
    }

    // Line 22 is `  def to_param`: replace its end with an open parenthesis.
    client.change(
        &post_uri,
        2,
        json!([{"range": {"start": {"line": 21, "character": 14}, "end": {"line": 21, "character": 14}}, "text": "(x, "}]),
    );
    let broken = syntax(client.diagnostics(&post_uri, Some(2)));
    assert!(!broken.is_empty(), "a syntax error is reported");
    for d in &broken {
        assert_eq!(d["code"], "syntax.parse-error");
        assert_eq!(d["source"], "switchyard");
        let (start, end) = (d["range"]["start"]["line"].as_u64().unwrap(), d["range"]["end"]["line"].as_u64().unwrap());
        assert!(end - start <= 1 && (20..=24).contains(&start), "precise range near the edit: {d}");
    }

    client.change(
        &post_uri,
        3,
        json!([{"range": {"start": {"line": 21, "character": 14}, "end": {"line": 21, "character": 18}}, "text": ""}]),
    );
    assert_eq!(syntax(client.diagnostics(&post_uri, Some(3))), Vec::<Value>::new(), "repaired: the syntax error clears");

    let found = client.request("workspace/symbol", json!({"query": "PostsCon"}));
    let names: Vec<&str> = found["result"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"PostsController"), "{names:?}");
    assert!(names.contains(&"PostsController#index"), "{names:?}");
    let tables = client.request("workspace/symbol", json!({"query": "taggings"}));
    assert!(
        tables["result"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "taggings" && s["location"]["uri"].as_str().unwrap().ends_with("db/schema.rb"))
    );
    let templates = client.request("workspace/symbol", json!({"query": "posts/_form"}));
    assert_eq!(templates["result"][0]["name"], "posts/_form.html.erb");

    let status = client.shutdown();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn erb_templates_report_broken_ruby_at_the_tag() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let form = app.join("app/views/posts/_form.html.erb");
    let form_uri = client.open(&form, "erb", 1);
    assert_eq!(client.diagnostics(&form_uri, Some(1)), Vec::<Value>::new());
    // Line 15 is `    <%= form.text_field :title %>`: make its Ruby unparseable.
    client.change(
        &form_uri,
        2,
        json!([{"range": {"start": {"line": 14, "character": 30}, "end": {"line": 14, "character": 30}}, "text": " ((("}]),
    );
    let broken = client.diagnostics(&form_uri, Some(2));
    assert!(!broken.is_empty());
    assert!(broken.iter().all(|d| d["code"] == "views.template-parse-error"), "{broken:?}");
    // Each links its rule's page, written by the server where the client can open it.
    let href = broken[0]["codeDescription"]["href"].as_str().expect("a codeDescription");
    let page = tower_lsp_server::ls_types::Uri::from_str(href).ok().and_then(|u| u.to_file_path().map(|p| p.into_owned())).unwrap();
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.starts_with("# views.template-parse-error\n"), "{text}");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn files_changed_on_disk_are_reindexed() {
    let app = copy_dir(&repo_root().join("examples/blog"), "watched");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let query = |client: &mut Client, q: &str| -> Vec<String> {
        let r = client.request("workspace/symbol", json!({"query": q}));
        r["result"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect()
    };
    assert!(!query(&mut client, "Subscriber").contains(&"Subscriber".to_owned()));

    let model = app.join("app/models/subscriber.rb");
    std::fs::write(&model, "class Subscriber < ApplicationRecord\n  belongs_to :user\nend\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&model), "type": 1}]}));
    assert_eq!(client.diagnostics(&uri(&model), None), Vec::<Value>::new(), "the new file is indexed");
    assert!(query(&mut client, "Subscriber").contains(&"Subscriber".to_owned()));

    std::fs::write(&model, "class Subscriber < ApplicationRecord\n  belongs_to :user, ,\nend\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&model), "type": 2}]}));
    let diagnostics = client.diagnostics(&uri(&model), None);
    assert!(!diagnostics.is_empty(), "the broken file is reported without being opened");

    std::fs::remove_file(&model).unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&model), "type": 3}]}));
    let cleared = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&model) && m["params"]["diagnostics"] == json!([])
    });
    assert!(cleared["params"]["version"].is_null(), "deleted: diagnostics cleared");
    assert!(!query(&mut client, "Subscriber").contains(&"Subscriber".to_owned()));
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn a_misbehaving_client_does_not_kill_the_server() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    // Not JSON at all.
    client.send_raw(b"{ this is not json");
    // A change for a document that was never opened, and a range far outside an open one.
    client.change(
        "file:///nowhere/x.rb",
        5,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]),
    );
    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    client.change(
        &post_uri,
        2,
        json!([{"range": {"start": {"line": 900, "character": 0}, "end": {"line": 901, "character": 0}}, "text": "x"}]),
    );
    // A stale version.
    client.change(
        &post_uri,
        1,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]),
    );
    // A request with wrong params, and an unknown method.
    let bad = client.request("textDocument/documentSymbol", json!({"nope": 1}));
    assert!(bad.get("error").is_some());
    let unknown = client.request("switchyard/noSuchThing", json!({}));
    assert!(unknown.get("error").is_some());
    // Still answering; the save brings the editor's text, whatever the changes before it did.
    let text = std::fs::read_to_string(&post).unwrap();
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": post_uri}, "text": text}));
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": post_uri}}));
    assert!(symbol_names(&symbols["result"]).contains(&"Post".to_owned()));
    assert!(client.is_running());
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let mut client = Client::spawn();
    client.initialize(&repo_root().join("examples/blog"));
    client.notify("exit", Value::Null);
    assert_eq!(client.shutdown_status().code(), Some(1));
}

#[test]
fn switchyard_toml_and_editor_rules_shape_what_is_shown() {
    let app = copy_dir(&repo_root().join("examples/blog"), "toml");
    std::fs::write(
        app.join("switchyard.toml"),
        "[rules]\n\"model.validation-ignored\" = \"off\"\n\"model.association-option-ignored\" = \"error\"\n",
    )
    .unwrap();
    let mut client = Client::spawn();
    client.initialize_with(
        &app,
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
        // The editor's own setting wins over the file for the rules it names.
        json!({
            "rules": {"model.association-option-ignored": "info"},
            "ruleDocs": "https://docs.example.test/rules#{id}"
        }),
    );
    let rules_of = |diagnostics: &[Value]| -> Vec<(String, i64)> {
        diagnostics.iter().map(|d| (d["code"].as_str().unwrap().to_owned(), d["severity"].as_i64().unwrap())).collect()
    };
    let tag = uri(&app.join("app/models/tag.rb"));
    let comment = uri(&app.join("app/models/comment.rb"));
    // Published after the cold index: tag.rb's only finding is off; comment.rb's are at the editor's level.
    let comment_diagnostics = client.diagnostics(&comment, None);
    let comment_rules = rules_of(&comment_diagnostics);
    assert!(comment_rules.contains(&("model.association-option-ignored".to_owned(), 3)), "{comment_rules:?}");
    assert!(comment_rules.iter().all(|(rule, severity)| rule != "model.association-option-ignored" || *severity == 3));
    assert_eq!(client.diagnostics(&tag, None), Vec::<Value>::new(), "nothing to show for tag.rb: its one rule is off");
    // The team's own docs, from initializationOptions.ruleDocs.
    assert_eq!(comment_diagnostics[0]["codeDescription"]["href"], json!(format!("https://docs.example.test/rules#{}", comment_rules[0].0)));

    // The file changes on disk: the app is shown again under the new settings.
    std::fs::write(app.join("switchyard.toml"), "targets = [\"ruby\"]\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&app.join("switchyard.toml")), "type": 2}]}));
    let tag_diagnostics = client.diagnostics(&tag, None);
    assert_eq!(rules_of(&tag_diagnostics), [("model.validation-ignored".to_owned(), 2)]);

    // A mistake in the file is said in a message, and the app falls back to every rule's own level.
    std::fs::write(app.join("switchyard.toml"), "targets = [\"ruby\", \"truffleruby\"]\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&app.join("switchyard.toml")), "type": 2}]}));
    let toml = uri(&app.join("switchyard.toml"));
    let on_file = client.diagnostics(&toml, None);
    assert_eq!(on_file.len(), 1, "one diagnostic on the file: {on_file:?}");
    assert_eq!(on_file[0]["code"], "switchyard.config");
    assert_eq!(on_file[0]["codeDescription"]["href"], "https://docs.example.test/rules#switchyard.config");
    assert_eq!(on_file[0]["range"]["start"]["line"], 0);
    let message = client.wait_for(|m| m["method"] == "window/showMessage");
    let text = message["params"]["message"].as_str().unwrap();
    assert!(text.contains("switchyard.toml: line 1: no target `truffleruby`"), "{text}");

    // Fixed, with an exclude: the file's diagnostic clears and the excluded files show nothing.
    std::fs::write(app.join("switchyard.toml"), "exclude = [\"app/models/comment.rb\"]\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": toml, "type": 2}]}));
    assert_eq!(client.diagnostics(&toml, None), Vec::<Value>::new());
    assert_eq!(client.diagnostics(&comment, None), Vec::<Value>::new(), "excluded");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn editing_a_concern_rechecks_the_controllers_that_call_its_macros() {
    let app = copy_dir(&repo_root().join("tests/fixtures/apps/rules"), "concern-macros");
    let mut client = Client::spawn();
    client.initialize(&app);
    let controller = uri(&app.join("app/controllers/reports_controller.rb"));
    let codes = |diagnostics: &[Value]| -> Vec<String> { diagnostics.iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect() };
    // After the cold index: `guard_feature :reports` is not expanded (its body sets an attribute).
    let before = client.diagnostics(&controller, None);
    assert_eq!(
        codes(&before),
        ["controller.concern-macro-not-expanded", "rails.unused-instance-variable", "rails.unknown-association"],
        "{before:?}"
    );
    assert_eq!(before[0]["range"]["start"]["line"], 4);
    // Line 13 of the concern is `      self.guarded_feature = name`: without it the macro is filter DSL.
    let concern = client.open(&app.join("app/controllers/concerns/feature_gate.rb"), "ruby", 1);
    client.change(
        &concern,
        2,
        json!([{"range": {"start": {"line": 12, "character": 0}, "end": {"line": 13, "character": 0}}, "text": ""}]),
    );
    let after = client.diagnostics(&controller, None);
    assert_eq!(codes(&after), ["rails.unused-instance-variable", "rails.unknown-association"], "{after:?}");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn haml_templates_are_read_as_they_are_edited() {
    let app = repo_root().join("tests/fixtures/apps/shop");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let index = client.open(&app.join("app/views/products/index.html.haml"), "haml", 1);
    assert_eq!(client.diagnostics(&index, Some(1)), Vec::<Value>::new());
    // Line 4 is `    = link_to product.name, product_path(product)`: misspell the helper.
    client.change(&index, 2, json!([{"range": {"start": {"line": 3, "character": 30}, "end": {"line": 3, "character": 33}}, "text": ""}]));
    let found = client.diagnostics(&index, Some(2));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "rails.unknown-route-helper");
    assert_eq!(found[0]["range"], json!({"start": {"line": 3, "character": 28}, "end": {"line": 3, "character": 37}}));
    // Hover on the helper of the layout names its route.
    let layout = client.open(&app.join("app/views/layouts/application.html.haml"), "haml", 1);
    let hover = client.request("textDocument/hover", json!({"textDocument": {"uri": layout}, "position": {"line": 6, "character": 30}}));
    let text = hover["result"]["contents"]["value"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("/products"), "{hover}");
    // Route helpers complete in HAML code (line 7: `    = link_to "Products", products_path`), not in its text.
    let completion =
        client.request("textDocument/completion", json!({"textDocument": {"uri": layout}, "position": {"line": 6, "character": 31}}));
    let labels: Vec<&str> = completion["result"]["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"products_path"), "{labels:?}");
    let in_text =
        client.request("textDocument/completion", json!({"textDocument": {"uri": layout}, "position": {"line": 1, "character": 5}}));
    assert!(in_text["result"].is_null(), "{in_text}");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn quick_fixes_rewrite_or_silence_a_finding() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let tag = client.open(&app.join("app/models/tag.rb"), "ruby", 1);
    client.diagnostics(&tag, Some(1));
    // Append `alias label name` as the model's last line but one.
    let lines = std::fs::read_to_string(app.join("app/models/tag.rb")).unwrap().lines().count() as u32;
    client.change(&tag, 2, json!([{"range": {"start": {"line": lines - 1, "character": 0}, "end": {"line": lines - 1, "character": 0}}, "text": "  alias label name\n"}]));
    let found = client.diagnostics(&tag, Some(2));
    let alias = found.iter().find(|d| d["code"] == "syntax.alias-keyword").expect("the alias is reported");
    let response = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": tag}, "range": alias["range"], "context": {"diagnostics": [alias]}}),
    );
    let actions = response["result"].as_array().unwrap();
    let titles: Vec<&str> =
        actions.iter().filter(|a| a["diagnostics"][0]["code"] == "syntax.alias-keyword").map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        [
            "Write `alias_method :label, :name`",
            "Disable `syntax.alias-keyword` for this line",
            "Disable `syntax.alias-keyword` for this file"
        ]
    );
    let rewrite = &actions[0];
    assert_eq!(rewrite["kind"], "quickfix");
    assert_eq!(rewrite["isPreferred"], true);
    let edit = &rewrite["edit"]["changes"][tag.as_str()][0];
    assert_eq!(edit["newText"], "alias_method :label, :name");
    assert_eq!(edit["range"], alias["range"]);
    // On save an editor may ask for every safe fix of the file at once.
    let fix_all = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": tag}, "range": alias["range"], "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    let fix_all = fix_all["result"].as_array().unwrap();
    assert_eq!(fix_all.len(), 1, "{fix_all:?}");
    assert_eq!(fix_all[0]["kind"], "source.fixAll.switchyard");
    assert_eq!(fix_all[0]["edit"]["changes"][tag.as_str()][0]["newText"], "alias_method :label, :name");
    // A client that asks only for refactorings gets none.
    let refactors = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": tag}, "range": alias["range"], "context": {"diagnostics": [], "only": ["refactor"]}}),
    );
    assert_eq!(refactors["result"], Value::Null);
    // Rule ids complete in a disable comment.
    client.change(&tag, 3, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# switchyard:disable model.valid\n"}]));
    client.diagnostics(&tag, Some(3));
    let completion =
        client.request("textDocument/completion", json!({"textDocument": {"uri": tag}, "position": {"line": 0, "character": 32}}));
    let labels: Vec<&str> = completion["result"]["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["model.validation-ignored", "model.validation-option-ignored"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn an_n_plus_one_is_fixed_in_the_query_that_feeds_the_template() {
    let app = copy_dir(&repo_root().join("tests/fixtures/apps/preload"), "preload-fix");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let index = client.open(&app.join("app/views/posts/index.html.erb"), "erb", 1);
    let found = client.diagnostics(&index, Some(1));
    let n_plus_one = found.iter().find(|d| d["code"] == "model.missing-preload").expect("the N+1 is reported");
    // Line 5 is `    <p>by <%= post.author.name %></p>`.
    assert_eq!(n_plus_one["range"]["start"], json!({"line": 4, "character": 14}));
    let response = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": index}, "range": n_plus_one["range"], "context": {"diagnostics": [n_plus_one]}}),
    );
    let actions = response["result"].as_array().unwrap();
    let fix = actions.iter().find(|a| a["title"] == "Preload it in the query: `includes(:author)`").expect("the fix is offered");
    assert_eq!(fix["isPreferred"], true);
    // The query is the controller's: `    @posts = Post.published.limit(20)`, line 3; the fix goes after `Post`.
    let controller = uri(&app.join("app/controllers/posts_controller.rb"));
    let edits = fix["edit"]["changes"][controller.as_str()].as_array().expect("an edit of the controller");
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], ".includes(:author)");
    assert_eq!(edits[0]["range"], json!({"start": {"line": 2, "character": 17}, "end": {"line": 2, "character": 17}}));
    // Applied, the query preloads what the template reads, and the finding is gone.
    let opened = client.open(&app.join("app/controllers/posts_controller.rb"), "ruby", 1);
    client.change(&opened, 2, json!([{"range": edits[0]["range"], "text": ".includes(:author)"}]));
    let after = client.diagnostics(&index, None);
    assert!(after.iter().all(|d| d["code"] != "model.missing-preload"), "{after:?}");
    // A query in the template itself is fixed in the template: `<% @post.comments.each do |comment| %>`.
    let show = client.open(&app.join("app/views/posts/show.html.erb"), "erb", 1);
    let found = client.diagnostics(&show, Some(1));
    let n_plus_one = found.iter().find(|d| d["code"] == "model.missing-preload").expect("the N+1 is reported");
    let response = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": show}, "range": n_plus_one["range"], "context": {"diagnostics": [n_plus_one]}}),
    );
    let actions = response["result"].as_array().unwrap();
    let fix = actions.iter().find(|a| a["title"] == "Preload it in the query: `includes(:user)`").expect("the fix is offered");
    let edit = &fix["edit"]["changes"][show.as_str()][0];
    assert_eq!(edit["range"], json!({"start": {"line": 1, "character": 17}, "end": {"line": 1, "character": 17}}));
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn a_burst_of_whole_app_edits_settles_on_the_last_one() {
    // Each edit renames the resource, so each changes the route table and asks for a whole-app
    // re-check; they come faster than a re-check ends, and what is left must be the last edit's view.
    let app = write_app(
        "burst",
        &[
            ("config/routes.rb", "Rails.application.routes.draw do\n  resources :posts\nend\n"),
            ("app/views/home/index.html.erb", "<%= link_to \"All\", articles_path %>\n"),
        ],
    );
    let mut client = Client::spawn();
    client.initialize(&app);
    let view = uri(&app.join("app/views/home/index.html.erb"));
    let codes = |diagnostics: &[Value]| -> Vec<String> { diagnostics.iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect() };
    assert_eq!(codes(&client.diagnostics(&view, None)), ["rails.unknown-route-helper"]);
    client.wait_indexed();
    let routes = client.open(&app.join("config/routes.rb"), "ruby", 1);
    // Line 2 is `  resources :posts` (`:posts` at columns 12..18); 41 renames end on `:articles`.
    let mut name = "posts";
    for version in 2..=42 {
        let next = if name == "posts" { "articles" } else { "posts" };
        let range = json!({"start": {"line": 1, "character": 12}, "end": {"line": 1, "character": 13 + name.len()}});
        client.change(&routes, version, json!([{"range": range, "text": format!(":{next}")}]));
        name = next;
    }
    assert_eq!(name, "articles");
    client.diagnostics(&routes, Some(42));
    let settled = client.settle(std::time::Duration::from_millis(1500));
    let last_for_view =
        client.seen.iter().rev().find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == view).cloned().unwrap();
    assert_eq!(codes(last_for_view["params"]["diagnostics"].as_array().unwrap()), Vec::<String>::new(), "{settled:#?}");
    // The routes file is never published again for an older version once the newest was sent.
    let versions: Vec<i64> = client
        .seen
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == routes)
        .filter_map(|m| m["params"]["version"].as_i64())
        .collect();
    assert!(versions.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
    assert_eq!(versions.last(), Some(&42));
    // And a re-check after the burst still works: back to `:posts`, the view's finding returns.
    let range = json!({"start": {"line": 1, "character": 12}, "end": {"line": 1, "character": 21}});
    client.change(&routes, 43, json!([{"range": range, "text": ":posts"}]));
    assert_eq!(codes(&client.diagnostics(&view, None)), ["rails.unknown-route-helper"]);
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn a_recheck_sends_only_the_files_whose_diagnostics_changed() {
    // Renaming the resource takes one view's finding away; the other view's finding and the clean
    // template stay as they were, so the re-check sends the first view alone.
    let app = write_app(
        "recheck-changed",
        &[
            ("config/routes.rb", "Rails.application.routes.draw do\n  resources :posts\nend\n"),
            ("app/views/home/index.html.erb", "<%= link_to \"All\", articles_path %>\n"),
            ("app/views/home/about.html.erb", "<%= link_to \"Gone\", gone_path %>\n"),
            ("app/views/home/clean.html.erb", "<p>Nothing to say</p>\n"),
        ],
    );
    let mut client = Client::spawn();
    client.initialize(&app);
    let view = uri(&app.join("app/views/home/index.html.erb"));
    let about = uri(&app.join("app/views/home/about.html.erb"));
    let clean = uri(&app.join("app/views/home/clean.html.erb"));
    client.wait_indexed();
    client.settle(std::time::Duration::from_millis(500));
    let routes = client.open(&app.join("config/routes.rb"), "ruby", 1);
    client.diagnostics(&routes, Some(1));
    client.settle(std::time::Duration::from_millis(500));
    let before = client.seen.len();
    let range = json!({"start": {"line": 1, "character": 12}, "end": {"line": 1, "character": 18}});
    client.change(&routes, 2, json!([{"range": range, "text": ":articles"}]));
    client.diagnostics(&routes, Some(2));
    let cleared = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == view);
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    client.settle(std::time::Duration::from_millis(1000));
    let sent: Vec<&str> = client.seen[before..]
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .filter_map(|m| m["params"]["uri"].as_str())
        .collect();
    assert_eq!(sent.iter().filter(|u| **u == view).count(), 1, "{sent:?}");
    assert!(!sent.iter().any(|u| *u == about || *u == clean), "{sent:?}");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn a_document_opened_at_start_gets_its_whole_app_diagnostics_before_the_other_files() {
    // Two subclasses of a model, each with a validation Roundhouse drops from a subclass: a whole-app
    // finding, known only once the app's context is built. One is opened as the server starts.
    // Three hundred more models make the index outlast the `didOpen` that follows `initialized` (the
    // index does not wait for the client), so the document is open when the index ends.
    let others: Vec<(String, String)> = (0..300)
        .map(|i| (format!("app/models/part{i}.rb"), format!("class Part{i} < ApplicationRecord\n  belongs_to :car\nend\n")))
        .collect();
    let mut files: Vec<(&str, &str)> = vec![
        ("config/routes.rb", "Rails.application.routes.draw do\nend\n"),
        ("app/models/vehicle.rb", "class Vehicle < ApplicationRecord\nend\n"),
        ("app/models/car.rb", "class Car < Vehicle\n  validates :wheels, presence: true\nend\n"),
        ("app/models/truck.rb", "class Truck < Vehicle\n  validates :wheels, presence: true\nend\n"),
    ];
    files.extend(others.iter().map(|(path, text)| (path.as_str(), text.as_str())));
    let app = write_app("first", &files);
    let mut client = Client::spawn();
    client.initialize(&app);
    // The one opened sorts last: without the open documents first, it would be published last.
    let truck = client.open(&app.join("app/models/truck.rb"), "ruby", 1);
    let car = uri(&app.join("app/models/car.rb"));
    client.wait_indexed();
    let publishes: Vec<(String, Vec<String>)> = client
        .seen
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            let codes = m["params"]["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect();
            (m["params"]["uri"].as_str().unwrap().to_owned(), codes)
        })
        .collect();
    let complete = |uri: &str| publishes.iter().position(|(u, codes)| u == uri && codes.iter().any(|c| c == "model.unsupported-macro"));
    let (Some(open), Some(other)) = (complete(&truck), complete(&car)) else { panic!("{publishes:#?}") };
    assert!(open < other, "the open document first: {publishes:#?}");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

/// A client that takes `workspace/codeLens/refresh` is asked to refresh its lenses once the first
/// index has ended (lenses asked for during it came from an app half read); one that does not is not.
#[test]
fn code_lenses_are_refreshed_when_the_first_index_ends() {
    let app = repo_root().join("examples/blog");
    for refresh_support in [true, false] {
        let mut client = Client::spawn();
        let capabilities = json!({
            "window": {"workDoneProgress": true},
            "workspace": {"codeLens": {"refreshSupport": refresh_support}}
        });
        client.initialize_with(&app, capabilities, Value::Null);
        client.wait_indexed();
        // Asked without waiting for the answer: it may come after the progress's end.
        if refresh_support && !client.seen.iter().any(|m| m["method"] == "workspace/codeLens/refresh") {
            client.wait_for(|m| m["method"] == "workspace/codeLens/refresh");
        }
        client.settle(std::time::Duration::from_millis(300));
        let refreshes = client.seen.iter().filter(|m| m["method"] == "workspace/codeLens/refresh").count();
        assert_eq!(refreshes, usize::from(refresh_support), "refreshSupport {refresh_support}");
        assert!(client.shutdown().success());
    }
}

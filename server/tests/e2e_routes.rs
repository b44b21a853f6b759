//! End to end, routes: hover, definition, references, code lens, completion and route diagnostics over
//! stdio against the real binary, on the bundled example app.

mod support;

use serde_json::{Value, json};
use support::{Client, repo_root, uri};

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

fn start() -> (Client, std::path::PathBuf) {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    (client, app)
}

#[test]
fn hover_definition_references_and_lenses() {
    let (mut client, app) = start();
    let routes = uri(&app.join("config/routes.rb"));
    // Line 6 is `  resources :posts do`.
    let hover = client.request("textDocument/hover", at(&routes, 5, 4));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("**`resources :posts`** → 12 routes"), "{text}");
    assert!(text.contains("| GET | `/posts/:id(.:format)` | `posts#show` | `post_path` |"), "{text}");

    // `posts_path` on line 5 of app/views/posts/new.html.erb goes to the route and to PostsController#index.
    let new_view = app.join("app/views/posts/new.html.erb");
    let definition = client.request("textDocument/definition", at(&uri(&new_view), 2, 25));
    let targets: Vec<(String, u64)> = definition["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_owned(), l["range"]["start"]["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(targets, [("routes.rb".to_owned(), 5), ("posts_controller.rb".to_owned(), 4)]);

    let references = client.request("textDocument/references", json!({"textDocument": {"uri": uri(&new_view)}, "position": {"line": 2, "character": 25}, "context": {"includeDeclaration": false}}));
    let files: Vec<&str> =
        references["result"].as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap().rsplit("/app/").next().unwrap()).collect();
    for expected in [
        "views/posts/new.html.erb",
        "views/posts/edit.html.erb",
        "views/posts/show.html.erb",
        "controllers/posts_controller.rb",
        "views/pages/about.html.erb",
    ] {
        assert!(files.contains(&expected), "{expected} in {files:?}");
    }

    let controller = uri(&app.join("app/controllers/posts_controller.rb"));
    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": controller}}));
    let titles: Vec<&str> = lenses["result"].as_array().unwrap().iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    assert!(titles.len() > 1, "{titles:?}");
    assert!(titles.contains(&"GET / · GET /posts(.:format)"), "root and index reach PostsController#index: {titles:?}");
    assert!(titles.contains(&"PATCH|PUT /posts/:id(.:format)"), "{titles:?}");
    // Line 1 carries where the file lands; the action lenses follow.
    assert_eq!(
        lenses["result"][0]["command"]["title"], "CRuby → app/controllers/posts_controller.rb (+1) · JVM → same · Spinel: AOT",
        "the +1 is PostParams"
    );
    let lens = lenses["result"].as_array().unwrap().iter().find(|l| l["command"]["command"] == "switchyard.openRoute").unwrap();
    let executed =
        client.request("workspace/executeCommand", json!({"command": "switchyard.openRoute", "arguments": lens["command"]["arguments"]}));
    assert!(executed.get("error").is_none(), "{executed}");
    // The server asks the client to show the route (answering the command without waiting for it).
    let shown = match client.seen.iter().find(|m| m["method"] == "window/showDocument") {
        Some(shown) => shown.clone(),
        None => client.wait_for(|m| m["method"] == "window/showDocument"),
    };
    assert!(shown["params"]["uri"].as_str().unwrap().ends_with("config/routes.rb"));
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn completion_in_erb_and_diagnostics_that_follow_routes_edits() {
    let (mut client, app) = start();
    let form = uri(&app.join("app/views/posts/_form.html.erb"));
    client.open(&app.join("app/views/posts/_form.html.erb"), "erb", 1);
    client.diagnostics(&form, Some(1));
    // Type `<%= edit_po` at the start of the file: inside a tag, route helpers complete.
    client.change(
        &form,
        2,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "<%= edit_po %>\n"}]),
    );
    client.diagnostics(&form, Some(2));
    let completion = client.request("textDocument/completion", at(&form, 0, 11));
    let items: Vec<(&str, &str)> = completion["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["label"].as_str().unwrap(), i["detail"].as_str().unwrap()))
        .collect();
    assert!(items.contains(&("edit_post_path", "GET /posts/:id/edit(.:format)")), "{items:?}");
    // Inside `<%= link_to "x", | %>`, with nothing typed yet: every route helper.
    client.change(
        &form,
        3,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "<%= link_to \"x\",  %>\n"}]),
    );
    client.diagnostics(&form, Some(3));
    let completion = client.request("textDocument/completion", at(&form, 0, 18));
    let labels: Vec<&str> = completion["result"]["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"root_path") && labels.contains(&"post_comments_url") && labels.contains(&"about_path"), "{labels:?}");
    // In plain HTML text there is nothing to complete.
    client.change(
        &form,
        31,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "edit_po\n"}]),
    );
    client.diagnostics(&form, Some(31));
    let none = client.request("textDocument/completion", at(&form, 0, 7));
    assert!(none["result"].is_null(), "{none}");

    // A typo in a helper is an error on the helper, with the fix in the message.
    client.change(&form, 32, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "<%= link_to \"All\", postz_path %>\n"}]));
    let diagnostics = client.diagnostics(&form, Some(32));
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "rails.unknown-route-helper");
    assert_eq!(diagnostics[0]["range"]["start"], json!({"line": 0, "character": 19}));
    assert!(diagnostics[0]["message"].as_str().unwrap().contains("Did you mean `posts_path`?"));

    // Renaming the route in routes.rb (an open, unsaved buffer) breaks `about_path` in the layout,
    // a file that is not open: its diagnostics arrive too.
    let routes = uri(&app.join("config/routes.rb"));
    client.open(&app.join("config/routes.rb"), "ruby", 1);
    client.diagnostics(&routes, Some(1));
    // Line 21 is `  get "about", to: "pages#about", as: :about`.
    client.change(
        &routes,
        2,
        json!([{"range": {"start": {"line": 20, "character": 39}, "end": {"line": 20, "character": 44}}, "text": "about_us"}]),
    );
    let layout = uri(&app.join("app/views/layouts/application.html.erb"));
    let layout_diagnostics = client.diagnostics(&layout, None);
    assert_eq!(layout_diagnostics.len(), 1, "{layout_diagnostics:?}");
    assert!(layout_diagnostics[0]["message"].as_str().unwrap().starts_with("No route is named `about`"));
    // And back: the layout's diagnostics clear.
    client.change(
        &routes,
        3,
        json!([{"range": {"start": {"line": 20, "character": 39}, "end": {"line": 20, "character": 47}}, "text": "about"}]),
    );
    assert_eq!(client.diagnostics(&layout, None), Vec::<Value>::new());
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn switchyard_routes_request_returns_the_table() {
    let (mut client, app) = start();
    let reply = client.request("switchyard/routes", json!({"uri": uri(&app.join("app/models/post.rb"))}));
    let apps = reply["result"]["apps"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    let expected = std::fs::read_to_string(repo_root().join("tests/fixtures/routes/apps/blog.expected.txt")).unwrap();
    assert_eq!(apps[0]["table"], expected);
    assert!(apps[0]["routes"].as_array().unwrap().iter().any(|r| r["name"] == "edit_post" && r["path"] == "/posts/:id/edit(.:format)"));
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn emitted_tree_request_says_where_a_file_lands() {
    let (mut client, app) = start();
    let user = client.request("switchyard/emittedTree", json!({"uri": uri(&app.join("app/models/user.rb"))}));
    let result = &user["result"];
    assert_eq!(result["source"], "app/models/user.rb");
    assert_eq!(result["targets"]["ruby"]["paths"], json!(["app/models/user.rb", "sig/app/models/user.rbs", "app/models/user_row.rb"]));
    // has_secure_password needs the bcrypt gem in every tree alike: no JVM swap.
    assert_eq!(result["targets"]["jruby"]["swaps"], json!([]));
    assert_eq!(result["targets"]["spinel"]["lane"], "aot");
    assert_eq!(result["summary"], "CRuby → app/models/user.rb (+2) · JVM → same · Spinel: AOT");
    let hover = client.request("textDocument/hover", at(&uri(&app.join("app/models/user.rb")), 0, 7));
    // What the model is to Rails (its table), then where Roundhouse writes it.
    let value = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with(
            "**User** < ApplicationRecord

Table `users`"
        ),
        "{hover}"
    );
    assert!(
        value.contains(
            "---

**`User`** → `app/models/user.rb`"
        ),
        "{hover}"
    );
    let gemfile = client.request("switchyard/emittedTree", json!({"uri": uri(&app.join("Gemfile"))}));
    assert_eq!(gemfile["result"]["targets"]["ruby"]["paths"], json!([]));
    assert!(gemfile["result"]["note"].as_str().unwrap().contains("Gemfile"));
    assert_eq!(client.shutdown().code(), Some(0));
}

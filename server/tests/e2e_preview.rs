//! End to end, trees and previews: `switchyard/emittedTree` and `switchyard/preview` on a model, a
//! template and routes, each preview following a didChange.

mod support;

use serde_json::{Value, json};
use support::{Client, repo_root};

fn preview(client: &mut Client, file_uri: &str) -> String {
    let reply = client.request("switchyard/preview", json!({"uri": file_uri, "target": "ruby"}));
    reply["result"]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn previews_follow_edits_on_a_model_a_template_and_routes() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();

    // A model: add an association, the preview gains its reader.
    let model = app.join("app/models/comment.rb");
    let model_uri = client.open(&model, "ruby", 1);
    client.diagnostics(&model_uri, Some(1));
    let tree = client.request("switchyard/emittedTree", json!({"uri": model_uri}));
    assert_eq!(tree["result"]["targets"]["ruby"]["paths"][0], "app/models/comment.rb");
    let before = preview(&mut client, &model_uri);
    assert!(before.contains("def post = Post.find_by(id: @post_id)"), "{before}");
    assert!(!before.contains("def reactions"));
    client.change(
        &model_uri,
        2,
        json!([{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "  has_many :reactions\n"}]),
    );
    client.diagnostics(&model_uri, Some(2));
    let after = preview(&mut client, &model_uri);
    assert!(after.contains("def reactions = Reaction.where(comment_id: @id)"), "{after}");

    // A template: new text and a new output tag appear in the function.
    let template = app.join("app/views/posts/new.html.erb");
    let template_uri = client.open(&template, "erb", 1);
    client.diagnostics(&template_uri, Some(1));
    let tree = client.request("switchyard/emittedTree", json!({"uri": template_uri}));
    assert_eq!(tree["result"]["targets"]["ruby"]["paths"], json!(["app/views/posts/new.rb"]));
    let before = preview(&mut client, &template_uri);
    assert!(before.contains("def self._new(post, notice = nil, alert = nil)"), "{before}");
    client.change(&template_uri, 2, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "<p><%= @draft_count %> drafts</p>\n"}]));
    client.diagnostics(&template_uri, Some(2));
    let after = preview(&mut client, &template_uri);
    assert!(after.contains("io << ActionView::ViewHelpers.html_escape((draft_count).to_s)"), "{after}");
    assert!(after.contains("def self._new(draft_count, post, notice = nil, alert = nil)"), "{after}");

    // Routes: a new route shows in the flat table and as a helper.
    let routes = app.join("config/routes.rb");
    let routes_uri = client.open(&routes, "ruby", 1);
    client.diagnostics(&routes_uri, Some(1));
    let before = preview(&mut client, &routes_uri);
    assert!(before.contains("def self.about_path = \"/about\""), "{before}");
    client.change(&routes_uri, 2, json!([{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "  get \"contact\", to: \"pages#contact\"\n"}]));
    client.diagnostics(&routes_uri, Some(2));
    let after = preview(&mut client, &routes_uri);
    assert!(after.contains("ActionDispatch::Router::Route.new(\"GET\", \"/contact\", :pages, :contact),"), "{after}");
    assert!(after.contains("def self.contact_path = \"/contact\""), "{after}");
    let mapping = client.request("switchyard/preview", json!({"uri": routes_uri}));
    let maps_line_2: Vec<&Value> = mapping["result"]["mapping"].as_array().unwrap().iter().filter(|pair| pair[1] == 1).collect();
    assert!(!maps_line_2.is_empty(), "the new route's preview lines map back to line 2");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn a_model_preview_follows_an_unsaved_schema_edit() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let model_uri = client.open(&app.join("app/models/tag.rb"), "ruby", 1);
    client.diagnostics(&model_uri, Some(1));
    assert!(!preview(&mut client, &model_uri).contains("def color"));
    let schema_uri = client.open(&app.join("db/schema.rb"), "ruby", 1);
    client.diagnostics(&schema_uri, Some(1));
    // Line 33 is `    t.string "name", null: false` in the tags table.
    client.change(&schema_uri, 2, json!([{"range": {"start": {"line": 33, "character": 0}, "end": {"line": 33, "character": 0}}, "text": "    t.string \"color\"\n"}]));
    client.diagnostics(&schema_uri, Some(2));
    let after = preview(&mut client, &model_uri);
    assert!(after.contains("def color = @color"), "{after}");
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn inlay_hints_and_hover_follow_an_edit_to_a_filter() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let controller_uri = client.open(&app.join("app/controllers/comments_controller.rb"), "ruby", 1);
    client.diagnostics(&controller_uri, Some(1));
    let hints = |client: &mut Client| -> Vec<(u64, String)> {
        let reply = client.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": controller_uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}}}),
        );
        reply["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["position"]["line"].as_u64().unwrap(), h["label"].as_str().unwrap().to_owned()))
            .collect()
    };
    // Line 2 is `  before_action :set_post`: it runs before both actions.
    assert!(hints(&mut client).contains(&(1, " inlined into create, destroy".to_owned())), "{:?}", hints(&mut client));
    let hover =
        client.request("textDocument/hover", json!({"textDocument": {"uri": controller_uri}, "position": {"line": 12, "character": 7}}));
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap().to_owned();
    assert!(
        markdown.contains("# before_action :set_post (CommentsController), inlined\n  @post = Post.find(params[:post_id])"),
        "{markdown}"
    );

    client.change(
        &controller_uri,
        2,
        json!([{"range": {"start": {"line": 1, "character": 26}, "end": {"line": 1, "character": 26}}, "text": ", only: :create"}]),
    );
    client.diagnostics(&controller_uri, Some(2));
    assert!(hints(&mut client).contains(&(1, " inlined into create".to_owned())), "{:?}", hints(&mut client));
    let hover =
        client.request("textDocument/hover", json!({"textDocument": {"uri": controller_uri}, "position": {"line": 12, "character": 7}}));
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap().to_owned();
    assert!(
        markdown.starts_with("Roundhouse's specialization") && !markdown.contains("set_post"),
        "destroy no longer runs the filter: {markdown}"
    );

    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": controller_uri}}));
    let preview =
        lenses["result"].as_array().unwrap().iter().find(|l| l["command"]["command"] == "switchyard.preview").expect("a preview lens");
    assert_eq!(preview["command"]["title"], "Preview specialized output");
    assert_eq!(preview["range"]["start"]["line"], 0);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn hint_kinds_can_be_turned_off() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    let root = support::uri(&app);
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": root, "workspaceFolders": [{"uri": root, "name": "blog"}], "capabilities": {"window": {"workDoneProgress": true}}, "initializationOptions": {"inlayHints": {"filters": false}}}),
    );
    client.notify("initialized", json!({}));
    client.wait_indexed(); // Hints asked before the schema is indexed would rightly be fewer.
    let controller_uri = client.open(&app.join("app/controllers/comments_controller.rb"), "ruby", 1);
    client.diagnostics(&controller_uri, Some(1));
    let model_uri = client.open(&app.join("app/models/comment.rb"), "ruby", 1);
    client.diagnostics(&model_uri, Some(1));
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}});
    let controller = client.request("textDocument/inlayHint", json!({"textDocument": {"uri": controller_uri}, "range": range}));
    assert_eq!(controller["result"], json!([]), "filter hints are off: {controller}");
    let model = client.request("textDocument/inlayHint", json!({"textDocument": {"uri": model_uri}, "range": range}));
    assert!(!model["result"].as_array().unwrap().is_empty(), "association hints stay on: {model}");
    assert_eq!(client.shutdown().code(), Some(0));
}

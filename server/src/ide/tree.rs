//! Trees in editor terms: hover on a class or module name shows where Roundhouse writes it, and
//! `views.output-collision` when two templates land in one emitted file.

use super::routes::Hover;
use crate::app::AppContext;

use crate::rails::FileFacts;
use crate::roundhouse::tree::{Target, emitted_stem, map_file};

/// Hover on a class or module name: the file Roundhouse writes for it, and the file's trees.
pub fn class_hover(context: &AppContext, facts: &FileFacts, offset: usize) -> Option<Hover> {
    let (name, span) = facts
        .models
        .iter()
        .map(|m| (m.class_name.as_str(), m.name_span))
        .chain(facts.controllers.iter().map(|c| (c.class_name.as_str(), c.name_span)))
        .chain(facts.definitions.iter().map(|d| (d.name.as_str(), d.name_span)))
        .find(|(_, span)| span.contains(offset))?;
    let entry = map_file(facts, context.tree_facts());
    let stem = emitted_stem(name);
    let paths = entry.target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default();
    let own = paths.iter().find(|p| p.ends_with(&format!("/{stem}.rb")));
    let markdown = match own {
        Some(path) => format!("**`{name}`** → `{path}` (CRuby and JVM trees)\n\n{}", entry.summary()),
        None => format!("**`{name}`** gets no file of its own.\n\n{}", entry.summary()),
    };
    Some(Hover { markdown, span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::output_collisions;
    use crate::test_fixture::Fixture;

    const APP: &str = r#"
        #- /db/schema.rb
        ActiveRecord::Schema[8.0].define(version: 1) do
          create_table "posts" do |t|
          end
        end
        #- /app/models/post.rb
        class Post < ApplicationRecord
        end
        #- /lib/html_parser.rb
        class HTMLParser; end
        #- /app/views/posts/create.html.erb
        <p>done</p>
        #- /app/views/posts/create.turbo_stream.erb
        <%= turbo_stream.remove "x" %>
        #- /app/views/posts/show.html.erb
        <p>one</p>
    "#;

    #[test]
    fn hover_names_the_emitted_file() {
        let fixture = Fixture::new(APP);
        let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        let lib = fixture.facts("lib/html_parser.rb");
        let hover = class_hover(&context, &lib, fixture.at("lib/html_parser.rb", "H$0TMLParser")).unwrap();
        assert!(hover.markdown.starts_with("**`HTMLParser`** → `app/models/htmlparser.rb`"), "{}", hover.markdown);
        let model = fixture.facts("app/models/post.rb");
        let hover = class_hover(&context, &model, fixture.at("app/models/post.rb", "class $0Post")).unwrap();
        assert!(hover.markdown.contains("CRuby → app/models/post.rb (+2)"), "{}", hover.markdown);
    }

    #[test]
    fn two_templates_writing_one_file_collide() {
        let fixture = Fixture::new(APP);
        let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        let collisions = output_collisions(&context);
        let messages: Vec<String> = collisions
            .iter()
            .flat_map(|(path, ds)| {
                ds.iter().map(move |d| format!("{}: {} {}", path.strip_prefix("/fixture").unwrap().display(), d.rule, d.message))
            })
            .collect();
        expect_test::expect![[r#"
            [
                "app/views/posts/create.html.erb: views.output-collision Roundhouse writes this template and app/views/posts/create.turbo_stream.erb to one file, app/views/posts/create.rb: app/views/posts/create.turbo_stream.erb wins and this template's output is lost.",
                "app/views/posts/create.turbo_stream.erb: views.output-collision Roundhouse writes this template and app/views/posts/create.html.erb to one file, app/views/posts/create.rb: this one wins.",
            ]
        "#]].assert_debug_eq(&messages);
    }
}

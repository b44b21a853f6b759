use super::*;
use crate::test_fixture::Fixture;

/// Every finding of the rules this pass decides, per file, as `path:line rule` (the file's reading
/// applied: a file read on its own turns a stop into a warning).
fn judged(fixture: &str) -> String {
    let fixture = Fixture::new(fixture);
    let mut lines = Vec::new();
    for facts in fixture.index.snapshot() {
        let reading = super::super::ingest::reading(&facts, None);
        for d in &facts.diagnostics {
            let decided_here = d.rule.family() == crate::catalogue::Family::Syntax
                || matches!(
                    d.rule.as_ref(),
                    "model.class-variable-initializer" | "model.singleton-class-statement" | "spinel.dynamic-dispatch"
                );
            if let Some(d) = decided_here.then(|| super::super::ingest::apply(&reading, &facts.relative_path, d.clone())).flatten() {
                let severity = format!("{:?}", d.severity).to_lowercase();
                lines.push(format!("{}:{} {severity} {}", facts.relative_path, d.span.start.line + 1, d.rule));
            }
        }
    }
    lines.sort();
    lines.join("\n") + "\n"
}

/// The caret fixture of the converter's rules, read as a program (every statement converted).
#[test]
fn converter_caret_fixture() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/queries/ruby/rules/syntax.rb");
    let text = std::fs::read_to_string(&path).expect("the fixture");
    let index = LineIndex::new(&text);
    // Every statement converted, and a top-level `def` read as a method (as a class body's would be).
    let result = ruby_prism::parse(text.as_bytes());
    let mut converter = Converter::new(Cost::Rejected, true);
    for statement in result.node().as_program_node().expect("a program").statements().body().iter() {
        match statement.as_def_node() {
            Some(def) => converter.method(&def, true),
            None => converter.expression(&statement),
        }
    }
    let found = findings(converter, Notes::default(), &text, &index);
    let captured: Vec<(&str, tree_sitter::Range)> = found
        .iter()
        .map(|d| {
            let point = |p: crate::syntax::LineCol| tree_sitter::Point { row: p.line as usize, column: p.col as usize };
            let range = tree_sitter::Range {
                start_byte: d.span.start_byte as usize,
                end_byte: d.span.end_byte as usize,
                start_point: point(d.span.start),
                end_point: point(d.span.end),
            };
            (d.rule.as_ref(), range)
        })
        .collect();
    let names: Vec<&str> =
        crate::catalogue::RULES.iter().filter(|r| r.family == crate::catalogue::Family::Syntax && r.implemented).map(|r| r.id).collect();
    crate::syntax::carets::check("rules/syntax.rb", &text, &captured, &names);
}

#[test]
fn each_file_is_walked_as_the_ingest_reads_it() {
    expect_test::expect![[r#"
        app/controllers/posts_controller.rb:13 error syntax.nested-definition
        app/controllers/posts_controller.rb:13 error syntax.parse-error
        app/controllers/posts_controller.rb:16 error syntax.alias-keyword
        app/controllers/posts_controller.rb:2 warning syntax.defined-path
        app/controllers/posts_controller.rb:4 error syntax.for-loop
        app/controllers/posts_controller.rb:9 warning syntax.def-in-expression
        app/models/event.rb:2 error model.class-variable-initializer
        app/models/ledger.rb:3 error model.singleton-class-statement
        app/models/ledger.rb:5 error syntax.nested-definition
        app/models/plain.rb:2 error model.class-variable-initializer
        app/models/plain.rb:6 error syntax.class-variable-in-method
        app/models/post.rb:2 warning syntax.backtick-command
        app/models/post.rb:5 error syntax.global-variable-write
        lib/registry.rb:2 warning model.class-variable-initializer
        lib/registry.rb:6 warning syntax.alias-keyword
        lib/registry.rb:7 warning syntax.argument-forwarding
        lib/registry.rb:8 warning syntax.def-in-expression
        test/models/post_test.rb:3 error syntax.backtick-command
    "#]]
    .assert_eq(&judged(
        r#"
        #- /app/models/post.rb
        class Post < ApplicationRecord
          has_many :comments, -> { where(raw: `date`) }
          validates :title, format: { with: /#{PATTERN}/u }
          enum :status, { draft: 0 }
          before_save -> { $saved = true }
          scope :recent, ->(limit = 5) { order(:id).limit(limit) }
        end
        #- /app/models/event.rb
        class Event < ApplicationRecord
          @@registry = nil
          class << self
            def recent = order(:id)
            private
          end
          def log(*args) = args
        end
        class Other
          class Nested; end
        end
        #- /app/models/ledger.rb
        class Ledger < ApplicationRecord
          class << self
            attr_accessor :book
          end
          class Entry < ApplicationRecord
          end
        end
        #- /app/models/plain.rb
        class Plain
          @@cache = {}
          @@empty = nil
          def remember
            @@cache[:x] ||= 1
            @@count = 1
          end
          if Rails.env.test?
            def self.reset = `rm -rf tmp`
          end
          %w[a b].each { |name| define_method(name) { for x in y; end } }
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          before_action :load, if: -> { defined?(params.x) }
          def index
            for post in posts; end
          end

          private

          private def hidden = 1

          def load
            @post = Post.find(params[:id])
            class Inline; end
          end

          alias show index
        end
        #- /lib/registry.rb
        class Registry
          @@items = {}
          @@cache = nil
          included_list.each { |x| `ls` }
          def ok = 1
          alias other ok
          def double(...) = ok(...)
          private def hidden = 1
        end
        #- /test/models/post_test.rb
        class PostTest < ActiveSupport::TestCase
          test "it works" do
            `ls`
          end
          teardown do
            `ls`
          end
        end
        #- /spec/models/post_spec.rb
        describe Post do
          it { `ls` }
        end
        "#,
    ));
}

/// Every prefix of a file being typed, in each of the three readers: no panic, whatever is half-written.
#[test]
fn every_prefix_of_a_file_being_typed_is_judged_without_a_panic() {
    let erb = "<p>é<%= link_to \"ü\", x # ö %>\n<% for a in b do |x| %><%= é =%>\n<% } %><%- end -%>\n#@é #{}<%% \n<%= f(\"%>\") %><%";
    let haml = "%p.é{a: \"ü{\", b: [1, (2)]}(x=1)[@r]<= f(\"#{é}\",\n  g)\n- for a in b do |x|\n  ~ \"#{\"\n!= `é`\n==#{z} é\n:ruby\n  é = 1\n%a{x: 1,\n  y: 2} t\n#{\n%\n.\n-\n=\n";
    let ruby = "class Ü < ApplicationRecord\n  private def é(...) = g(...)\n  enum :s, a: 1\n  scope :x, :y\n  @@z = { é: `ls` }\n  def m = \"#@é #{}\" if /é/\nend\n";
    for (text, judge) in [
        (erb, &(|t: &str, i: &LineIndex| judge_erb(t, i, true).unwrap_or_default()) as &dyn Fn(&str, &LineIndex) -> Vec<Diagnostic>),
        (haml, &|t: &str, i: &LineIndex| judge_haml(t, i, true)),
        (ruby, &|t: &str, i: &LineIndex| judge(t, i, Walk::ModelFile, true, true)),
    ] {
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let prefix = &text[..end];
            let index = LineIndex::new(prefix);
            for d in judge(prefix, &index) {
                assert!(d.span.start_byte <= d.span.end_byte && d.span.end_byte as usize <= prefix.len(), "{d:?} in {prefix:?}");
            }
        }
    }
}

/// A template's findings as the program Roundhouse compiles it into decides them: text interpolation
/// that compiles is evaluated (a warning), one that does not stops the compile (an error); an `end`
/// the program pairs right is no pairing error, whatever the template rules' reading says.
#[test]
fn templates_are_held_to_the_program_they_compile_into() {
    let fixture = Fixture::new(
        r##"
        #- /app/views/posts/show.html.erb
        <p data-x="#{post.id}">x</p>
        <p>#{</span>}</p>
        #- /app/views/posts/_card.html.erb
        <%- cache(post) do -%>
          <%= render_card(post) do |c| -%>
            <p><%= c.title %></p>
          <%- end -%>
        <%- end -%>
        "##,
    );
    let mut lines = Vec::new();
    for facts in fixture.index.snapshot() {
        for d in facts.diagnostics.iter().filter(|d| d.rule.family() == crate::catalogue::Family::Views) {
            lines.push(format!("{}:{} {:?} {}", facts.relative_path, d.span.start.line + 1, d.severity, d.rule));
        }
    }
    lines.sort();
    expect_test::expect![[r#"
        [
            "app/views/posts/show.html.erb:1 Warning views.text-interpolation",
            "app/views/posts/show.html.erb:2 Error views.text-interpolation",
        ]
    "#]]
    .assert_debug_eq(&lines);
}

/// A file with more parenthesized yields than are parsed again (a generated file, hostile input):
/// the first `MAX_REPARSED` are decided and said, the rest are not, so the check's cost is bounded.
#[test]
fn yields_parsed_again_are_bounded_per_file() {
    let mut text = String::from("module H\n  def f(x)\n");
    for i in 0..(super::MAX_REPARSED + 50) {
        text.push_str(&format!("    g(1, yield(x, {i}))\n"));
    }
    text.push_str("  end\nend\n");
    let index = LineIndex::new(&text);
    let said = judge(&text, &index, Walk::LibraryFile, true, false).iter().filter(|d| d.rule == rule!("syntax.yield-not-ruby")).count();
    assert_eq!(said, super::MAX_REPARSED);
}

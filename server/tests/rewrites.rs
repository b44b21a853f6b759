//! Every rewrite a finding suggests means what the original meant, held to Rails itself: for each
//! form of `delegate`, the method `--check` says to write instead is defined next to the original
//! under ActiveSupport (Debian's ruby-activesupport, which `.ci/run` installs), and both are called
//! with a receiver and with none. The same name must be defined, with the same answers and errors (on
//! no receiver, Rails' `DelegationError` is the `NoMethodError` a plain call raises).

mod support;

use support::write_app;

const FORMS: &[&str] = &[
    "delegate :display_name, to: :author",
    "delegate :display_name, to: :author, prefix: true",
    "delegate :display_name, to: :author, prefix: :writer",
    "delegate :display_name, to: :author, allow_nil: true",
    "delegate :display_name, to: :author, prefix: true, allow_nil: true",
    "delegate :name=, to: :author",
    "delegate :name=, to: :author, prefix: true, allow_nil: true",
    "delegate :table_name, to: :class",
];

/// The rewrite `--check` suggests for each line of `FORMS`, in order.
fn suggested() -> Vec<String> {
    let model: String = FORMS.iter().map(|form| format!("  {form}\n")).collect();
    let app = write_app(
        "delegate-rewrites",
        &[
            ("config/routes.rb", "Rails.application.routes.draw do\nend\n"),
            ("app/models/post.rb", &format!("class Post < ApplicationRecord\n  belongs_to :author\n{model}end\n")),
        ],
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--no-cache", "--format", "json"])
        .arg(&app)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&app);
    let mut found: Vec<(u64, String)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|finding| {
            let message = finding["message"].as_str()?;
            let rewrite = message.split("write it out: `").nth(1)?.split('`').next()?;
            Some((finding["line"].as_u64()?, rewrite.to_owned()))
        })
        .collect();
    found.sort();
    assert_eq!(found.len(), FORMS.len(), "{found:?}\n{}", String::from_utf8_lossy(&output.stdout));
    found.into_iter().map(|(_, rewrite)| rewrite).collect()
}

#[test]
fn each_delegate_rewrite_means_what_the_delegate_meant() {
    let mut script = String::from(
        "require \"active_support\"\nrequire \"active_support/core_ext/module/delegation\"\n\
         Author = Struct.new(:display_name, :name)\n\
         def outcome\n  [:ok, yield]\nrescue NoMethodError\n  [:error, NoMethodError]\nrescue StandardError => e\n  [:error, e.class]\nend\n",
    );
    for (n, (form, rewrite)) in FORMS.iter().zip(suggested()).enumerate() {
        let name = rewrite.strip_prefix("def ").and_then(|r| r.split([' ', '(']).next()).unwrap().to_owned();
        let call = if name.ends_with('=') { format!("o.public_send(:{name}, \"set\"); o.author&.name") } else { format!("o.{name}") };
        script.push_str(&format!(
            "class Original{n}\n  attr_accessor :author\n  def self.table_name = \"posts\"\n  {form}\nend\n\
             class Written{n}\n  attr_accessor :author\n  def self.table_name = \"posts\"\n  {rewrite}\nend\n\
             [Author.new(\"Ann\", \"ann\"), nil].each do |author|\n\
               original, written = [Original{n}, Written{n}].map {{ |c| o = c.new; o.author = author; outcome {{ {call} }} }}\n\
               raise \"{n}: #{{original.inspect}} != #{{written.inspect}} for #{{author.inspect}}\" unless original == written\n\
             end\n\
             raise \"{n}: {name} is not what the delegate defines\" unless Original{n}.public_method_defined?(:{name})\n"
        ));
    }
    script.push_str("puts \"all rewrites agree\"\n");
    let ruby = std::process::Command::new("ruby").arg("-e").arg(&script).output().expect("ruby (Debian's ruby-activesupport)");
    assert!(ruby.status.success(), "{}\n{}", String::from_utf8_lossy(&ruby.stderr), script);
    assert_eq!(String::from_utf8_lossy(&ruby.stdout).trim(), "all rewrites agree");
}

/// Every safe quick fix, applied as `--check --fix` applies it, means what the original meant: the
/// model's methods answer the same before and after (`"#@x"` → `"#{@x}"`, `alias a b` →
/// `alias_method :a, :b`), and the template's text reads the same in a browser (`#{` → `&#35;{`).
#[test]
fn each_safe_fix_applied_means_what_the_original_meant() {
    let model = "class Post < ApplicationRecord\n  def greeting\n    \"Hi #@name of #$site and #@@count\"\n  end\n  alias title_text greeting\n  alias :shout :greeting\nend\n";
    let view = "<p>Price: #{total} for <%= @name %></p>\n<p>Each #{item}, #{other}</p>\n";
    let app = write_app(
        "safe-fixes",
        &[
            ("config/routes.rb", "Rails.application.routes.draw do\n  resources :posts, only: :index\nend\n"),
            ("app/models/post.rb", model),
            (
                "app/controllers/posts_controller.rb",
                "class PostsController < ApplicationController\n  def index\n    @name = \"Ann\"\n  end\nend\n",
            ),
            ("app/views/posts/index.html.erb", view),
        ],
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--fix", "--no-cache", "--format", "json"])
        .arg(&app)
        .output()
        .unwrap();
    let fixed_model = std::fs::read_to_string(app.join("app/models/post.rb")).unwrap();
    let fixed_view = std::fs::read_to_string(app.join("app/views/posts/index.html.erb")).unwrap();
    let _ = std::fs::remove_dir_all(&app);
    // Each fix was made (what is left is reported, none of these rules).
    let left = String::from_utf8_lossy(&output.stdout);
    for rule in ["syntax.embedded-variable", "syntax.alias-keyword", "views.text-interpolation"] {
        assert!(!left.contains(rule), "{rule} left after --fix:\n{left}");
    }
    assert_ne!(fixed_model, model);
    assert_ne!(fixed_view, view);
    // Ruby runs both: the model's methods, and the template rendered by ERB then read as a browser
    // reads HTML (entities decoded).
    let script = String::from(
        "require \"erb\"\nrequire \"cgi\"\nclass ApplicationRecord; end\n$site = \"Depot\"\n\
         def answers(source)\n  Object.send(:remove_const, :Post) if defined?(Post)\n  eval(source)\n  Post.class_variable_set(:@@count, 3)\n  \
         post = Post.new\n  post.instance_variable_set(:@name, \"Ann\")\n  \
         [post.greeting, post.title_text, post.shout, Post.public_method_defined?(:title_text), Post.public_method_defined?(:shout)]\nend\n\
         def page(template)\n  @name = \"Ann\"\n  CGI.unescapeHTML(ERB.new(template).result(binding))\nend\n\
         model, fixed_model, view, fixed_view = ARGV\n\
         original, fixed = answers(model), answers(fixed_model)\n\
         raise \"model: #{original.inspect} != #{fixed.inspect}\" unless original == fixed\n\
         original, fixed = page(view), page(fixed_view)\n\
         raise \"view: #{original.inspect} != #{fixed.inspect}\" unless original == fixed\n\
         puts \"every fix agrees\"\n",
    );
    let ruby =
        std::process::Command::new("ruby").arg("-e").arg(&script).args([model, &fixed_model, view, &fixed_view]).output().expect("ruby");
    assert!(ruby.status.success(), "{}\n{script}", String::from_utf8_lossy(&ruby.stderr));
    assert_eq!(String::from_utf8_lossy(&ruby.stdout).trim(), "every fix agrees");
}

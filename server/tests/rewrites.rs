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

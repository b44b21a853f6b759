//! What an app's deployment files say about how it runs, read as facts: the lockfile's gems and
//! platforms, the Gemfile's declarations, Puma's `workers`, the commands of the Procfile and the
//! Dockerfile; and the calls in its Ruby that assume one runtime (`fork`, `ObjectSpace.each_object`,
//! the process's working folder, state written on a class, test processes). Which runtime each fact
//! stops or slows is `lanes`' to judge; this module only reads.

use serde::Serialize;
use tree_sitter::Node;

use crate::syntax::{LineIndex, NodeExt, Span, text_of};

/// A deployment file's facts, by what the file is.
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(tag = "deploy_file", rename_all = "snake_case")]
pub enum DeployFile {
    /// `Gemfile.lock` (`gems.locked`).
    Lockfile(Lockfile),
    /// `Gemfile` (`gems.rb`).
    Gemfile(Gemfile),
    /// `config/puma.rb` (and `config/puma/<env>.rb`).
    Puma(PumaConfig),
    /// A `Procfile*` or `Dockerfile*`: the commands it starts.
    Commands(Commands),
}

/// The kind of deployment file at `relative` (an app-relative path), if it is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeployKind {
    Lockfile,
    Gemfile,
    Puma,
    Procfile,
    Dockerfile,
}

pub fn deploy_kind(relative: &str) -> Option<DeployKind> {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let at_root = !relative.contains('/');
    match relative {
        "Gemfile.lock" | "gems.locked" => return Some(DeployKind::Lockfile),
        "Gemfile" | "gems.rb" => return Some(DeployKind::Gemfile),
        "config/puma.rb" => return Some(DeployKind::Puma),
        _ => {}
    }
    if relative.strip_prefix("config/puma/").is_some_and(|rest| rest.ends_with(".rb") && !rest.contains('/')) {
        return Some(DeployKind::Puma);
    }
    if at_root && (name == "Procfile" || name.starts_with("Procfile.")) {
        return Some(DeployKind::Procfile);
    }
    if at_root && (name == "Dockerfile" || name.starts_with("Dockerfile.") || name.starts_with("Dockerfile-")) {
        return Some(DeployKind::Dockerfile);
    }
    None
}

// ---------------------------------------------------------------------------------------------------
// Gemfile.lock

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Lockfile {
    /// Every resolved spec of every source section (`GEM`, `GIT`, `PATH`), one per platform variant.
    pub gems: Vec<LockedGem>,
    /// `PLATFORMS`, in order.
    pub platforms: Vec<Named>,
    /// The `PLATFORMS` header line.
    #[serde(skip)]
    pub platforms_header: Option<Span>,
    /// `DEPENDENCIES`: the gems the Gemfile names.
    pub dependencies: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct LockedGem {
    pub name: String,
    pub version: String,
    /// `x86_64-linux-gnu`, `java`…; `None` for the source (`ruby`) variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// Its `name (version)` on the spec line.
    #[serde(skip)]
    pub span: Span,
    /// The gems whose specs list it as a dependency.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needed_by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Named {
    pub name: String,
    #[serde(skip)]
    pub span: Span,
}

impl Lockfile {
    /// Whether the lockfile can install on a Ruby of `platform` without being re-resolved: it lists
    /// the platform (or `ruby`, whose source gems build anywhere).
    pub fn lists_platform(&self, platform: &str) -> bool {
        self.platforms.iter().any(|p| p.name == platform)
    }

    /// The variants of the gem `name`.
    pub fn variants<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a LockedGem> + 'a {
        self.gems.iter().filter(move |g| g.name == name)
    }
}

/// Reads a lockfile as Bundler writes it: sections headed at column 0, specs at four spaces
/// (`nokogiri (1.18.9-x86_64-linux-gnu)`), their dependencies at six, `PLATFORMS` and
/// `DEPENDENCIES` entries at two. A line it does not understand is skipped.
pub fn read_lockfile(text: &str, line_index: &LineIndex) -> Lockfile {
    let mut lockfile = Lockfile { gems: Vec::new(), platforms: Vec::new(), platforms_header: None, dependencies: Vec::new() };
    let mut section = "";
    let mut in_specs = false;
    let mut offset = 0;
    let mut current_spec: Option<String> = None;
    let mut needs: Vec<(String, String)> = Vec::new();
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += raw.len();
        if line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = &line[indent..];
        if indent == 0 {
            section = content.trim();
            in_specs = false;
            current_spec = None;
            if section == "PLATFORMS" {
                lockfile.platforms_header = Some(line_index.span(start..start + line.len()));
            }
            continue;
        }
        match (section, indent) {
            ("GEM" | "GIT" | "PATH", 2) => in_specs = content == "specs:",
            ("GEM" | "GIT" | "PATH", 4) if in_specs => {
                let Some((name, inside)) = name_and_parenthesised(content) else { continue };
                let (version, platform) = match inside.split_once('-') {
                    Some((version, platform)) => (version, Some(platform.to_owned())),
                    None => (inside, None),
                };
                let end = start + indent + content.trim_end().len();
                lockfile.gems.push(LockedGem {
                    name: name.to_owned(),
                    version: version.to_owned(),
                    platform,
                    span: line_index.span(start + indent..end),
                    needed_by: Vec::new(),
                });
                current_spec = Some(name.to_owned());
            }
            ("GEM" | "GIT" | "PATH", 6) if in_specs => {
                let dependency = content.split([' ', '(']).next().unwrap_or("");
                if let Some(spec) = &current_spec
                    && !dependency.is_empty()
                {
                    needs.push((dependency.to_owned(), spec.clone()));
                }
            }
            ("PLATFORMS", 2) => {
                let name = content.trim();
                lockfile
                    .platforms
                    .push(Named { name: name.to_owned(), span: line_index.span(start + indent..start + indent + name.len()) });
            }
            ("DEPENDENCIES", 2) => {
                let name = content.split([' ', '(', '!']).next().unwrap_or("");
                if !name.is_empty() {
                    lockfile.dependencies.push(name.to_owned());
                }
            }
            _ => {}
        }
    }
    for gem in &mut lockfile.gems {
        let mut by: Vec<String> = needs.iter().filter(|(dependency, _)| *dependency == gem.name).map(|(_, spec)| spec.clone()).collect();
        by.sort();
        by.dedup();
        gem.needed_by = by;
    }
    lockfile
}

/// `name (inside)` → (`name`, `inside`).
fn name_and_parenthesised(content: &str) -> Option<(&str, &str)> {
    let (name, rest) = content.split_once(" (")?;
    let inside = rest.trim_end().strip_suffix(')')?;
    (!name.is_empty() && !name.contains(' ')).then_some((name, inside))
}

// ---------------------------------------------------------------------------------------------------
// Gemfile

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Gemfile {
    pub gems: Vec<DeclaredGem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct DeclaredGem {
    pub name: String,
    /// The `gem "name"` call.
    #[serde(skip)]
    pub span: Span,
    /// The Bundler platforms it is installed on (`platforms: [:mri]`, `platforms :jruby do`), when
    /// restricted; empty means every platform.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub platforms: Vec<String>,
    /// Its groups (`group :development, :test do`, `group: :test`); empty means the default group.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// In a group declared `optional: true`: installed only when a deploy asks for it (`--with`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// Its options come from a method call (`gem "pg", if_true(ENV[…])`): where it is installed is not
    /// the file's to say.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub computed_options: bool,
}

impl DeclaredGem {
    /// Whether only development and test need it (a production install can leave it out).
    pub fn development_only(&self) -> bool {
        !self.groups.is_empty() && self.groups.iter().all(|g| matches!(g.as_str(), "development" | "test"))
    }

    /// Whether Bundler installs it on `engine` (`jruby`, `truffleruby`, `ruby` for CRuby), as its
    /// platform names mean (`ruby`: CRuby or TruffleRuby off Windows; `mri`: CRuby).
    pub fn installed_on(&self, engine: &str) -> bool {
        !self.computed_options && self.platforms.is_empty()
            || self.platforms.iter().any(|p| {
                let p = p.as_str();
                match engine {
                    "jruby" => p == "jruby" || p.starts_with("jruby_"),
                    "truffleruby" => p == "ruby" || p == "truffleruby" || p.starts_with("ruby_"),
                    _ => p == "ruby" || p == "mri" || p.starts_with("ruby_") || p.starts_with("mri_"),
                }
            })
    }
}

/// The blocks a Gemfile nests `gem` calls in.
const GEMFILE_BLOCKS: &[&str] = &["group", "platforms", "platform", "source", "path", "git", "github", "install_if", "gemspec"];

pub fn read_gemfile(root: Node<'_>, text: &str) -> Gemfile {
    let mut gems = Vec::new();
    gemfile_statements(root, text, &GemScope::default(), &mut gems, 0);
    Gemfile { gems }
}

/// Where a block of a Gemfile declares its gems: their platforms and groups, whether the group is
/// optional, and whether they are declared only under a condition the file does not decide (an `if`,
/// a block of the Gemfile's own method).
#[derive(Clone, Default)]
struct GemScope {
    platforms: Vec<String>,
    groups: Vec<String>,
    optional: bool,
    conditional: bool,
}

fn gemfile_statements(node: Node<'_>, text: &str, scope: &GemScope, gems: &mut Vec<DeclaredGem>, depth: usize) {
    if depth > 16 {
        return;
    }
    let conditional = GemScope { conditional: true, ..scope.clone() };
    let mut cursor = node.walk();
    for statement in node.named_children(&mut cursor) {
        let (call, scope) = match statement.kind_name() {
            "call" => (statement, scope),
            // `gem "x" if ENV[…]`: installed only where the condition holds.
            "if_modifier" | "unless_modifier" => match statement.field("body") {
                Some(body) if body.kind_name() == "call" => (body, &conditional),
                _ => continue,
            },
            "if" | "unless" | "else" | "elsif" | "then" | "begin" | "body_statement" => {
                let inner =
                    if statement.kind_name() == "begin" || statement.kind_name() == "body_statement" { scope } else { &conditional };
                gemfile_statements(statement, text, inner, gems, depth + 1);
                continue;
            }
            _ => continue,
        };
        if call.field("receiver").is_some() {
            continue;
        }
        let Some(method) = call.field("method").map(|m| text_of(m, text)) else { continue };
        let arguments = call.field("arguments");
        if method == "gem" {
            let Some(name) = arguments.and_then(|a| a.named_child(0)).and_then(|first| string_value(first, text)) else { continue };
            let mut platforms = scope.platforms.clone();
            if let Some(list) = arguments.and_then(|a| pair_value(a, text, &["platforms", "platform"])) {
                platforms = symbols(list, text);
            }
            let mut groups = scope.groups.clone();
            if let Some(list) = arguments.and_then(|a| pair_value(a, text, &["group", "groups"])) {
                groups = symbols(list, text);
            }
            // Past the name and the version strings: a hash of options, or a call that makes one.
            let computed_options = scope.conditional
                || arguments.is_some_and(|a| {
                    a.named_children(&mut a.walk()).skip(1).any(|arg| matches!(arg.kind_name(), "call" | "identifier" | "splat_argument"))
                });
            gems.push(DeclaredGem { name, span: Span::of(call), platforms, groups, optional: scope.optional, computed_options });
            continue;
        }
        let Some(block) = call.field("block") else { continue };
        let mut inner = if GEMFILE_BLOCKS.contains(&method) { scope.clone() } else { conditional.clone() };
        if matches!(method, "platforms" | "platform") {
            inner.platforms = arguments.map(|a| symbols(a, text)).unwrap_or_default();
        }
        if method == "group" {
            // `group :mysql, optional: true do`: the symbols before the options are the groups.
            let declared_optional = arguments.and_then(|a| pair_value(a, text, &["optional"])).is_some_and(|v| text_of(v, text) == "true");
            inner.groups = arguments
                .map(|a| {
                    a.named_children(&mut a.walk())
                        .filter(|c| c.kind_name() == "simple_symbol")
                        .map(|c| text_of(c, text).trim_start_matches(':').to_owned())
                        .collect()
                })
                .unwrap_or_default();
            // An enclosing optional group stays optional inside.
            inner.optional = scope.optional || declared_optional;
        }
        if let Some(body) =
            block.field("body").or_else(|| block.named_children(&mut block.walk()).find(|c| c.kind_name().ends_with("statement")))
        {
            gemfile_statements(body, text, &inner, gems, depth + 1);
        }
    }
}

/// A string literal's text, without interpolation.
fn string_value(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind_name() != "string" {
        return None;
    }
    let mut cursor = node.walk();
    let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    match parts.as_slice() {
        [content] if content.kind_name() == "string_content" => Some(text_of(*content, text).to_owned()),
        _ => None,
    }
}

/// The value of the first `key:` pair among `arguments`, for any of `keys`.
fn pair_value<'t>(arguments: Node<'t>, text: &str, keys: &[&str]) -> Option<Node<'t>> {
    let mut cursor = arguments.walk();
    let children: Vec<Node<'t>> = arguments.named_children(&mut cursor).collect();
    for child in children {
        let pairs: Vec<Node<'t>> = if child.kind_name() == "pair" {
            vec![child]
        } else if child.kind_name() == "hash" {
            child.named_children(&mut child.walk()).filter(|c| c.kind_name() == "pair").collect()
        } else {
            continue;
        };
        for pair in pairs {
            let key = pair.field("key").map(|k| text_of(k, text).trim_end_matches(':').trim_start_matches(':')).unwrap_or("");
            if keys.contains(&key) {
                return pair.field("value");
            }
        }
    }
    None
}

/// The symbols of a node (`:jruby`, `[:mri, :windows]`, an argument list of them), without `:`.
fn symbols(node: Node<'_>, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    crate::syntax::for_each_node(node, |n| {
        // `:jruby`, and each of `%i[mri windows]`.
        if matches!(n.kind_name(), "simple_symbol" | "bare_symbol") {
            out.push(text_of(n, text).trim_start_matches(':').to_owned());
        }
    });
    out
}

// ---------------------------------------------------------------------------------------------------
// config/puma.rb

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct PumaConfig {
    /// Each `workers` call.
    pub workers: Vec<Workers>,
    /// `plugin :solid_queue`, which forks Solid Queue's supervisor out of Puma unless the file sets
    /// `solid_queue_mode :async`.
    pub solid_queue_plugin: Option<Plugin>,
    pub solid_queue_async: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Plugin {
    #[serde(skip)]
    pub span: Span,
    /// The condition it is loaded under, as written with its keyword (`if ENV["SOLID_QUEUE_IN_PUMA"]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Workers {
    #[serde(skip)]
    pub span: Span,
    /// The call as written.
    pub text: String,
    pub count: WorkerCount,
    /// The call runs only where a condition on the Ruby engine or on `fork` holds (`unless
    /// RUBY_ENGINE == "jruby"`, `if Process.respond_to?(:fork)`): the file already keeps it off the
    /// runtimes that cannot fork.
    pub guarded: bool,
    /// The call runs only when the count is above this (`workers n if n > 1`, `if n.positive?`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_above: Option<i64>,
    /// The condition it runs under, innermost first, with its keyword (`unless Rails.env.local?`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl Workers {
    /// Whether Puma forks workers when nothing in the environment says otherwise.
    pub fn forks_by_default(&self) -> bool {
        let default = match &self.count {
            WorkerCount::Literal { count } => Some(*count),
            WorkerCount::Environment { default, .. } => *default,
            WorkerCount::Computed => None,
        };
        match (default, self.only_above) {
            (Some(count), Some(above)) if count <= above => false,
            _ => self.count.forks_by_default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WorkerCount {
    /// `workers 4`.
    Literal { count: i64 },
    /// `workers ENV.fetch("WEB_CONCURRENCY") { 2 }`: from the environment, with this default when it
    /// is a literal (`None`: computed, like `Concurrent.processor_count`).
    Environment { variable: String, default: Option<i64> },
    /// Anything else.
    Computed,
}

impl WorkerCount {
    /// Whether Puma forks workers when nothing in the environment says otherwise.
    pub fn forks_by_default(&self) -> bool {
        match self {
            WorkerCount::Literal { count } => *count > 0,
            WorkerCount::Environment { default, .. } => default.is_none_or(|d| d > 0),
            WorkerCount::Computed => true,
        }
    }
}

/// What guards a `workers` call against runtimes that cannot fork.
const ENGINE_GUARDS: &[&str] =
    &["RUBY_ENGINE", "RUBY_PLATFORM", "jruby?", "forkable?", "respond_to?(:fork)", "Gem.win_platform?", "truffleruby"];

pub fn read_puma(root: Node<'_>, text: &str) -> PumaConfig {
    let mut workers = Vec::new();
    let mut solid_queue_plugin = None;
    let mut solid_queue_async = false;
    crate::syntax::for_each_node(root, |node| {
        if node.kind_name() != "call" || node.field("receiver").is_some() {
            return;
        }
        let method = node.field("method").map(|m| text_of(m, text));
        let first = node.field("arguments").and_then(|a| a.named_child(0)).map(|a| text_of(a, text));
        match (method, first) {
            (Some("plugin"), Some(":solid_queue" | "\"solid_queue\"" | "'solid_queue'")) => {
                let condition = conditions_around(node, text).into_iter().next().map(|(keyword, c)| format!("{keyword} {c}"));
                solid_queue_plugin = Some(Plugin { span: Span::of(node), condition });
                return;
            }
            (Some("solid_queue_mode"), Some(mode)) => {
                solid_queue_async = mode.contains("async");
                return;
            }
            (Some("workers"), _) => {}
            _ => return,
        }
        let Some(argument) = node.field("arguments").and_then(|a| a.named_child(0)) else { return };
        let count = worker_count(argument, root, text, 0);
        let conditions = conditions_around(node, text);
        let guarded = conditions.iter().any(|(_, c)| ENGINE_GUARDS.iter().any(|g| c.contains(g)));
        let variable = text_of(argument, text).trim();
        let only_above = conditions.iter().filter(|(keyword, _)| *keyword == "if").find_map(|(_, c)| threshold(c, variable));
        let condition = conditions.first().map(|(keyword, c)| format!("{keyword} {c}"));
        workers.push(Workers { span: Span::of(node), text: text_of(node, text).to_owned(), count, guarded, only_above, condition });
    });
    PumaConfig { workers, solid_queue_plugin, solid_queue_async }
}

/// The conditions of the `if`/`unless` (statement or modifier) around `node`, innermost first, each
/// with its keyword (`if` or `unless`; an `else` branch's condition is not collected).
fn conditions_around(node: Node<'_>, text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut child = node;
    let mut at = node.parent();
    while let Some(parent) = at {
        let keyword = match parent.kind_name() {
            "if" | "if_modifier" | "elsif" => Some("if"),
            "unless" | "unless_modifier" => Some("unless"),
            _ => None,
        };
        // In the `else` of an `if`, the condition does not hold: not collected.
        let in_alternative = parent.field("alternative").is_some_and(|a| a == child);
        if let (Some(keyword), Some(condition), false) = (keyword, parent.field("condition"), in_alternative) {
            out.push((keyword, text_of(condition, text).to_owned()));
        }
        child = parent;
        at = parent.parent();
    }
    out
}

/// The count a condition requires `variable` to be above: `n > 1` → 1, `n >= 2` → 1, `n.positive?`
/// → 0.
fn threshold(condition: &str, variable: &str) -> Option<i64> {
    let condition = condition.trim();
    if condition == format!("{variable}.positive?") {
        return Some(0);
    }
    let rest = condition.strip_prefix(variable)?.trim_start();
    if let Some(n) = rest.strip_prefix(">=") {
        return n.trim().parse::<i64>().ok().map(|n| n - 1);
    }
    rest.strip_prefix('>').and_then(|n| n.trim().parse::<i64>().ok())
}

/// What a `workers` argument counts: a literal, the environment with a default, or a local
/// variable assigned one of those earlier in the file.
fn worker_count(argument: Node<'_>, root: Node<'_>, text: &str, depth: usize) -> WorkerCount {
    if depth > 4 {
        return WorkerCount::Computed;
    }
    let source = text_of(argument, text).trim();
    if let Ok(count) = source.replace('_', "").parse::<i64>() {
        return WorkerCount::Literal { count };
    }
    match argument.kind_name() {
        "identifier" => {
            // The last assignment to the variable before the call.
            let mut value = None;
            crate::syntax::for_each_node(root, |n| {
                if n.kind_name() == "assignment"
                    && n.start_byte() < argument.start_byte()
                    && n.field("left").is_some_and(|l| l.kind_name() == "identifier" && text_of(l, text) == source)
                {
                    value = n.field("right");
                }
            });
            value.map_or(WorkerCount::Computed, |v| worker_count(v, root, text, depth + 1))
        }
        _ => environment_count(argument, text).unwrap_or(WorkerCount::Computed),
    }
}

/// `ENV.fetch("X") { 2 }`, `ENV.fetch("X", 2)`, `Integer(ENV.fetch("X", 2))`, `ENV.fetch("X", 2).to_i`,
/// `ENV["X"] || 2`, `(ENV["X"] || 2).to_i`, `ENV.fetch("X") { Concurrent.processor_count }`.
fn environment_count(node: Node<'_>, text: &str) -> Option<WorkerCount> {
    let mut found: Option<WorkerCount> = None;
    crate::syntax::for_each_node(node, |n| {
        if found.is_some() {
            return;
        }
        let variable = match n.kind_name() {
            "call"
                if n.field("receiver").is_some_and(|r| text_of(r, text) == "ENV")
                    && n.field("method").is_some_and(|m| text_of(m, text) == "fetch") =>
            {
                n.field("arguments").and_then(|a| a.named_child(0)).and_then(|s| string_value(s, text))
            }
            "element_reference" if n.named_child(0).is_some_and(|r| text_of(r, text) == "ENV") => {
                n.named_child(1).and_then(|s| string_value(s, text))
            }
            _ => None,
        };
        let Some(variable) = variable else { return };
        // The default: `fetch`'s second argument or block, or the right of `||`.
        let literal = |node: Option<Node<'_>>| -> Option<i64> {
            let node = node?;
            let text = text_of(node, text).trim().trim_start_matches('{').trim_end_matches('}').trim().trim_matches('"').trim_matches('\'');
            text.parse::<i64>().ok()
        };
        let default = if n.kind_name() == "call" {
            literal(n.field("arguments").and_then(|a| a.named_child(1))).or_else(|| literal(n.field("block").and_then(|b| b.field("body"))))
        } else {
            n.parent().filter(|p| p.kind_name() == "binary").and_then(|p| literal(p.field("right")))
        };
        found = Some(WorkerCount::Environment { variable, default });
    });
    found
}

// ---------------------------------------------------------------------------------------------------
// Procfile, Dockerfile

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Commands {
    pub commands: Vec<StartCommand>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct StartCommand {
    /// The Procfile's process name (`web`, `worker`) or the Dockerfile's instruction (`CMD`).
    pub process: String,
    pub command: String,
    /// The command on its line.
    #[serde(skip)]
    pub span: Span,
}

/// `name: command` lines; comments and blank lines skipped.
pub fn read_procfile(text: &str, line_index: &LineIndex) -> Commands {
    let mut commands = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim_start().starts_with('#') {
            continue;
        }
        let Some((written, command)) = line.split_once(':') else { continue };
        let name = written.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        // Past the name as written (spaces included) and its `:`.
        let command_start = start + written.len() + 1 + (command.len() - command.trim_start().len());
        let command = command.trim();
        if command.is_empty() {
            continue;
        }
        commands.push(StartCommand {
            process: name.to_owned(),
            command: command.to_owned(),
            span: line_index.span(command_start..command_start + command.len()),
        });
    }
    Commands { commands }
}

/// `CMD` and `ENTRYPOINT` instructions (of every stage), in shell or JSON form (`["a", "b"]` is read
/// as `a b`); a continued line (`\`) joins the next.
pub fn read_dockerfile(text: &str, line_index: &LineIndex) -> Commands {
    let mut commands = Vec::new();
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(raw) = lines.next() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let Some((instruction, rest)) = trimmed.split_once(char::is_whitespace) else { continue };
        let instruction = instruction.to_ascii_uppercase();
        if instruction != "CMD" && instruction != "ENTRYPOINT" {
            continue;
        }
        let mut argument = rest.trim().to_owned();
        let mut end = start + line.len();
        while argument.ends_with('\\') {
            argument.pop();
            let Some(next) = lines.next() else { break };
            offset += next.len();
            end = offset - (next.len() - next.trim_end_matches(['\n', '\r']).len());
            argument.push(' ');
            argument.push_str(next.trim());
        }
        let command = match serde_json::from_str::<Vec<String>>(&argument) {
            Ok(words) => words.join(" "),
            Err(_) => argument,
        };
        let indent = line.len() - trimmed.len();
        commands.push(StartCommand { process: instruction, command, span: line_index.span(start + indent..end) });
    }
    Commands { commands }
}

// ---------------------------------------------------------------------------------------------------
// Ruby that assumes a runtime

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RuntimeUse {
    pub what: RuntimeCall,
    #[serde(skip)]
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RuntimeCall {
    /// `fork`, `Process.fork`, `Kernel.fork`, `Process.daemon`: as written.
    Fork { call: String },
    /// `ObjectSpace.each_object(X)`: `X` as written (`None`: no argument).
    EachObject { argument: Option<String> },
    /// `Dir.chdir`: the process's working folder, shared by its threads.
    Chdir,
    /// An instance variable of a class written in one of its class methods: `@cache ||= …` in
    /// `def self.cache`.
    ClassStateWrite { ivar: String, method: String, memoised: bool, owner: Option<String> },
    /// `parallelize(workers: …)` in a test helper: `with` as written (`None`: Rails' default).
    Parallelize { with: Option<String>, workers: Option<String> },
    /// A live broadcast Roundhouse lowers to its Action Cable registry: `broadcasts_to`,
    /// `broadcast_append_to` (`prepend`, `replace`, `remove`).
    Broadcast { call: String },
}

/// The broadcasts the CRuby tree delivers over its own Action Cable endpoint.
const LIVE_BROADCASTS: &[&str] =
    &["broadcasts_to", "broadcast_append_to", "broadcast_prepend_to", "broadcast_replace_to", "broadcast_remove_to"];

/// The runtime-bound calls of a Ruby file. Most files have none: the tree is walked only when the
/// text names one (a walk of every node costs a sixth of the parse).
pub fn runtime_uses(root: Node<'_>, text: &str, test: bool) -> Vec<RuntimeUse> {
    let mut out = Vec::new();
    let named = |words: &[&str]| words.iter().any(|w| text.contains(w));
    let may_have = if test {
        named(&["parallelize"])
    } else {
        named(&["fork", "daemon", "ObjectSpace", "chdir", "broadcast"]) || (text.contains('@') && named(&["def self.", "class << self"]))
    };
    if !may_have {
        return out;
    }
    crate::syntax::for_each_node(root, |node| {
        let what = match node.kind_name() {
            "call" if test => parallelize(node, text),
            "call" => runtime_call(node, text),
            "assignment" | "operator_assignment" if !test => class_state_write(node, text),
            _ => None,
        };
        if let Some(what) = what {
            out.push(RuntimeUse { what, span: Span::of(node) });
        }
    });
    out
}

fn runtime_call(node: Node<'_>, text: &str) -> Option<RuntimeCall> {
    let method = text_of(node.field("method")?, text);
    let receiver = node.field("receiver").map(|r| text_of(r, text).trim_start_matches("::"));
    match (receiver, method) {
        // A bare `fork` with a block or parentheses (a bare word could be a local variable).
        (None, "fork") if node.field("block").is_some() || node.field("arguments").is_some() => {
            Some(RuntimeCall::Fork { call: "fork".to_owned() })
        }
        (Some(r @ ("Process" | "Kernel")), "fork") | (Some(r @ "Process"), "daemon") => {
            Some(RuntimeCall::Fork { call: format!("{r}.{method}") })
        }
        (Some("ObjectSpace"), "each_object") => Some(RuntimeCall::EachObject {
            argument: node.field("arguments").and_then(|a| a.named_child(0)).map(|a| text_of(a, text).to_owned()),
        }),
        (Some("Dir"), "chdir") => Some(RuntimeCall::Chdir),
        (_, method) if LIVE_BROADCASTS.contains(&method) => Some(RuntimeCall::Broadcast { call: method.to_owned() }),
        _ => None,
    }
}

fn parallelize(node: Node<'_>, text: &str) -> Option<RuntimeCall> {
    if node.field("receiver").is_some() || node.field("method").map(|m| text_of(m, text)) != Some("parallelize") {
        return None;
    }
    let arguments = node.field("arguments");
    let with = arguments.and_then(|a| pair_value(a, text, &["with"])).map(|v| text_of(v, text).to_owned());
    let workers = arguments.and_then(|a| pair_value(a, text, &["workers"])).map(|v| text_of(v, text).to_owned());
    Some(RuntimeCall::Parallelize { with, workers })
}

/// `@x = …` or `@x ||= …` inside `def self.x` or a `def` of `class << self`.
fn class_state_write(node: Node<'_>, text: &str) -> Option<RuntimeCall> {
    let left = node.field("left")?;
    if left.kind_name() != "instance_variable" {
        return None;
    }
    let memoised = node.kind_name() == "operator_assignment" && node.field("operator").is_some_and(|o| text_of(o, text) == "||=");
    let mut at = node.parent();
    while let Some(parent) = at {
        // `def self.x`, or a `def` of `class << self`.
        let class_method = match parent.kind_name() {
            "singleton_method" => true,
            "method" => parent
                .parent()
                .and_then(|p| if p.kind_name() == "body_statement" { p.parent() } else { Some(p) })
                .is_some_and(|c| c.kind_name() == "singleton_class"),
            _ => false,
        };
        match parent.kind_name() {
            "singleton_method" | "method" if class_method => {
                let method = parent.field("name").map(|n| text_of(n, text)).unwrap_or("");
                return Some(RuntimeCall::ClassStateWrite {
                    ivar: text_of(left, text).to_owned(),
                    method: format!("self.{method}"),
                    memoised,
                    owner: owner_of(parent, text),
                });
            }
            "method" => return None,
            // A block may run on another receiver (`define_method`, `instance_eval`, `Class.new`) or
            // under a lock (`synchronize`): only a write in the method's own body is the class's.
            "block" | "do_block" | "lambda" | "class" | "module" | "singleton_class" | "program" => return None,
            _ => {}
        }
        at = parent.parent();
    }
    None
}

/// The class or module a method is defined in, with the names of those around it (`Foo::Bar`);
/// `None` for a method defined in a block (`klass.class_eval do`, `included do`: its class is the
/// block's receiver, not the module around it).
fn owner_of(method: Node<'_>, text: &str) -> Option<String> {
    let mut names = Vec::new();
    let mut at = method.parent();
    while let Some(node) = at {
        if names.is_empty() && matches!(node.kind_name(), "block" | "do_block") {
            return None;
        }
        if matches!(node.kind_name(), "class" | "module")
            && let Some(name) = node.field("name")
        {
            names.push(text_of(name, text).trim_start_matches("::").to_owned());
        }
        at = node.parent();
    }
    names.reverse();
    (!names.is_empty()).then(|| names.join("::"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn ruby(text: &str) -> ParsedFile {
        ParsedFile::parse(Language::Ruby, text)
    }

    #[test]
    fn reads_a_lockfile_with_platform_variants() {
        let text = "GIT\n  remote: https://github.com/rails/rails.git\n  specs:\n    rails (8.1.0.alpha)\n      actioncable (= 8.1.0.alpha)\n\nGEM\n  remote: https://rubygems.org/\n  specs:\n    nokogiri (1.18.9-x86_64-linux-gnu)\n      racc (~> 1.4)\n    racc (1.8.1)\n    sqlite3 (2.9.3)\n    sqlite3 (2.9.3-x86_64-linux-gnu)\n\nPLATFORMS\n  x86_64-linux\n  arm64-darwin\n\nDEPENDENCIES\n  rails!\n  sqlite3 (>= 2)\n\nBUNDLED WITH\n   2.6.2\n";
        let lines = LineIndex::new(text);
        let lock = read_lockfile(text, &lines);
        let names: Vec<(&str, &str, Option<&str>)> =
            lock.gems.iter().map(|g| (g.name.as_str(), g.version.as_str(), g.platform.as_deref())).collect();
        assert_eq!(
            names,
            [
                ("rails", "8.1.0.alpha", None),
                ("nokogiri", "1.18.9", Some("x86_64-linux-gnu")),
                ("racc", "1.8.1", None),
                ("sqlite3", "2.9.3", None),
                ("sqlite3", "2.9.3", Some("x86_64-linux-gnu")),
            ]
        );
        assert_eq!(lock.platforms.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["x86_64-linux", "arm64-darwin"]);
        assert_eq!(lock.dependencies, ["rails", "sqlite3"]);
        assert_eq!(lock.gems[2].needed_by, ["nokogiri"]);
        let nokogiri = &lock.gems[1];
        assert_eq!(&text[nokogiri.span.range()], "nokogiri (1.18.9-x86_64-linux-gnu)");
        assert_eq!(nokogiri.span.start.line, 9);
        assert_eq!(&text[lock.platforms_header.unwrap().range()], "PLATFORMS");
    }

    #[test]
    fn a_broken_lockfile_yields_what_can_be_read() {
        let text = "GEM\n  specs:\n    ok (1.0)\n    broken (1.0\n    (2.0)\n\tweird\nPLATFORMS\n  ruby\n";
        let lock = read_lockfile(text, &LineIndex::new(text));
        assert_eq!(lock.gems.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["ok"]);
        assert!(lock.lists_platform("ruby"));
    }

    #[test]
    fn reads_gemfile_platform_restrictions() {
        let text = "source \"https://rubygems.org\"\ngem \"rails\"\ngem \"sqlite3\", platforms: %i[ mri windows ]\nplatforms :jruby do\n  gem \"activerecord-jdbcsqlite3-adapter\"\nend\ngroup :development, :test do\n  gem \"debug\", platforms: :mri\n  gem \"pry\"\nend\ngem \"bootsnap\" if ENV[\"X\"]\ngroup :mysql, optional: true do\n  gem \"mysql2\"\nend\ngem \"pg\", \"~> 1.1\", if_true(ENV[\"DATABASE_ADAPTER\"] == \"postgresql\")\nif_true(ENV[\"X\"]) do\n  gem \"trilogy\"\nend\nif ENV[\"Y\"]\n  gem \"oj\"\nelse\n  gem \"json\"\nend\n";
        let parsed = ruby(text);
        let gemfile = read_gemfile(parsed.ruby.as_ref().unwrap().root_node(), text);
        let read: Vec<(&str, Vec<&str>)> =
            gemfile.gems.iter().map(|g| (g.name.as_str(), g.platforms.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            read,
            [
                ("rails", vec![]),
                ("sqlite3", vec!["mri", "windows"]),
                ("activerecord-jdbcsqlite3-adapter", vec!["jruby"]),
                ("debug", vec!["mri"]),
                ("pry", vec![]),
                ("bootsnap", vec![]),
                ("mysql2", vec![]),
                ("pg", vec![]),
                ("trilogy", vec![]),
                ("oj", vec![]),
                ("json", vec![]),
            ]
        );
        assert!(gemfile.gems[8..].iter().all(|g| g.computed_options), "conditional: {:?}", gemfile.gems);
        assert!(gemfile.gems[5].computed_options, "`gem \"bootsnap\" if ENV[…]` is conditional");
        assert!(gemfile.gems[7].computed_options && !gemfile.gems[7].installed_on("jruby") && !gemfile.gems[0].computed_options);
        assert!(gemfile.gems[6].optional && gemfile.gems[6].groups == ["mysql"] && !gemfile.gems[5].optional);
        assert!(!gemfile.gems[1].installed_on("jruby") && !gemfile.gems[1].installed_on("truffleruby"));
        assert!(gemfile.gems[2].installed_on("jruby") && !gemfile.gems[2].installed_on("ruby"));
        assert!(gemfile.gems[4].installed_on("jruby"));
        assert_eq!(gemfile.gems[3].groups, ["development", "test"]);
        assert!(gemfile.gems[4].development_only() && !gemfile.gems[0].development_only());
    }

    #[test]
    fn reads_puma_workers_as_rails_generates_them() {
        let cases: &[(&str, WorkerCount, bool)] = &[
            ("workers 4\n", WorkerCount::Literal { count: 4 }, false),
            ("workers 0\n", WorkerCount::Literal { count: 0 }, false),
            (
                "workers ENV.fetch(\"WEB_CONCURRENCY\") { 2 }\n",
                WorkerCount::Environment { variable: "WEB_CONCURRENCY".into(), default: Some(2) },
                false,
            ),
            (
                "workers Integer(ENV.fetch(\"WEB_CONCURRENCY\", 0))\n",
                WorkerCount::Environment { variable: "WEB_CONCURRENCY".into(), default: Some(0) },
                false,
            ),
            (
                "worker_count = (Concurrent.processor_count * 0.666).ceil\nworkers ENV.fetch(\"WEB_CONCURRENCY\") { worker_count }\n",
                WorkerCount::Environment { variable: "WEB_CONCURRENCY".into(), default: None },
                false,
            ),
            (
                "if ENV[\"RAILS_ENV\"] == \"production\"\n  worker_count = Integer(ENV.fetch(\"WEB_CONCURRENCY\") { Concurrent.physical_processor_count })\n  workers worker_count if worker_count > 1\nend\n",
                WorkerCount::Environment { variable: "WEB_CONCURRENCY".into(), default: None },
                false,
            ),
            (
                "workers (ENV[\"WEB_CONCURRENCY\"] || 3).to_i\n",
                WorkerCount::Environment { variable: "WEB_CONCURRENCY".into(), default: Some(3) },
                false,
            ),
            ("workers 2 unless RUBY_ENGINE == \"jruby\"\n", WorkerCount::Literal { count: 2 }, true),
            ("if Process.respond_to?(:fork)\n  workers 2\nend\n", WorkerCount::Literal { count: 2 }, true),
            ("workers count_them\n", WorkerCount::Computed, false),
        ];
        for (text, count, guarded) in cases {
            let parsed = ruby(text);
            let puma = read_puma(parsed.ruby.as_ref().unwrap().root_node(), text);
            assert_eq!(puma.workers.len(), 1, "{text}");
            assert_eq!(&puma.workers[0].count, count, "{text}");
            assert_eq!(puma.workers[0].guarded, *guarded, "{text}");
            assert!(text[puma.workers[0].span.range()].starts_with("workers "), "{text}");
        }
        // Whether Puma forks when the environment says nothing: a threshold on the count decides.
        let forks = |text: &str| {
            let parsed = ruby(text);
            read_puma(parsed.ruby.as_ref().unwrap().root_node(), text).workers.iter().map(Workers::forks_by_default).collect::<Vec<_>>()
        };
        assert_eq!(forks("n = ENV.fetch(\"WEB_CONCURRENCY\", 1).to_i\nworkers n if n > 1\n"), [false]);
        assert_eq!(forks("n = Integer(ENV.fetch(\"WEB_CONCURRENCY\") { 1 })\nworkers n if n > 1\n"), [false]);
        assert_eq!(forks("n = ENV.fetch(\"WEB_CONCURRENCY\", 2).to_i\nworkers n if n > 1\n"), [true]);
        assert_eq!(
            forks("n = ENV.fetch(\"WEB_CONCURRENCY\", 3).to_i\nif n.positive?\n  workers n\nelse\n  workers 0\nend\n"),
            [true, false]
        );
        assert_eq!(forks("n = ENV.fetch(\"WEB_CONCURRENCY\", 0).to_i\nif n.positive?\n  workers n\nend\n"), [false]);
        assert_eq!(forks("workers ENV.fetch(\"WEB_CONCURRENCY\", 0)\n"), [false]);
        let text = "unless Fizzy.saas? || ENV[\"SOLID_QUEUE_IN_PUMA\"] == \"false\"\n  plugin :solid_queue\nend\n";
        let parsed = ruby(text);
        let plugin = read_puma(parsed.ruby.as_ref().unwrap().root_node(), text).solid_queue_plugin.unwrap();
        assert_eq!(plugin.condition.as_deref(), Some("unless Fizzy.saas? || ENV[\"SOLID_QUEUE_IN_PUMA\"] == \"false\""));
    }

    #[test]
    fn reads_procfile_and_dockerfile_commands() {
        let text = "web: bundle exec thrust bin/start-app\n# a comment\nworkers: FORK_PER_JOB=false bundle exec resque-pool\n";
        let procfile = read_procfile(text, &LineIndex::new(text));
        assert_eq!(procfile.commands.len(), 2);
        assert_eq!(procfile.commands[1].process, "workers");
        assert_eq!(&text[procfile.commands[1].span.range()], "FORK_PER_JOB=false bundle exec resque-pool");
        // Spaces around the name, and text that is not ASCII: the command's span is still its own.
        let text = "  web :  bundle exec puma # café ☕\n\u{feff}é: x\n";
        let procfile = read_procfile(text, &LineIndex::new(text));
        assert_eq!(procfile.commands.len(), 1);
        assert_eq!(&text[procfile.commands[0].span.range()], "bundle exec puma # café ☕");
        let text = "FROM ruby AS base\nRUN bundle install\nENTRYPOINT [\"/rails/bin/docker-entrypoint\"]\nCMD [\"./bin/thrust\", \"./bin/rails\", \"server\"]\ncmd bundle exec puma \\\n  -w 3\n";
        let docker = read_dockerfile(text, &LineIndex::new(text));
        let read: Vec<(&str, &str)> = docker.commands.iter().map(|c| (c.process.as_str(), c.command.as_str())).collect();
        assert_eq!(
            read,
            [("ENTRYPOINT", "/rails/bin/docker-entrypoint"), ("CMD", "./bin/thrust ./bin/rails server"), ("CMD", "bundle exec puma  -w 3")]
        );
        assert_eq!(&text[docker.commands[2].span.range()], "cmd bundle exec puma \\\n  -w 3");
    }

    #[test]
    fn finds_calls_that_assume_a_runtime() {
        let text = "class Cache\n  def self.store\n    @store ||= {}\n  end\n  def self.attr(name)\n    define_method(name) { @value ||= 1 }\n    LOCK.synchronize { @guarded = 1 }\n  end\n  class << self\n    def reset!\n      @store = nil\n    end\n  end\n  def run\n    @local = 1\n    pid = fork { work }\n    Process.daemon\n    ObjectSpace.each_object(Foo) { }\n    Dir.chdir(\"/tmp\") { }\n    repo.fork\n  end\nend\n";
        let parsed = ruby(text);
        let uses = runtime_uses(parsed.ruby.as_ref().unwrap().root_node(), text, false);
        let read: Vec<&RuntimeCall> = uses.iter().map(|u| &u.what).collect();
        assert_eq!(
            read,
            [
                &RuntimeCall::ClassStateWrite {
                    ivar: "@store".into(),
                    method: "self.store".into(),
                    memoised: true,
                    owner: Some("Cache".into())
                },
                &RuntimeCall::ClassStateWrite {
                    ivar: "@store".into(),
                    method: "self.reset!".into(),
                    memoised: false,
                    owner: Some("Cache".into())
                },
                &RuntimeCall::Fork { call: "fork".into() },
                &RuntimeCall::Fork { call: "Process.daemon".into() },
                &RuntimeCall::EachObject { argument: Some("Foo".into()) },
                &RuntimeCall::Chdir,
            ]
        );
        let text = "class ActiveSupport::TestCase\n  parallelize(workers: :number_of_processors)\nend\n";
        let parsed = ruby(text);
        let uses = runtime_uses(parsed.ruby.as_ref().unwrap().root_node(), text, true);
        assert_eq!(uses[0].what, RuntimeCall::Parallelize { with: None, workers: Some(":number_of_processors".into()) });
    }
}

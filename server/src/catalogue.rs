//! The rule catalogue: every rule of `shared/spec/rules.md`, and those the compiler showed the spec
//! lacks (`routes.statement-skipped`, held by a fidelity fixture), with its id, default severity, the
//! targets it applies to and what triggers it. The ids are a public contract (users suppress them, CI
//! filters on them, SARIF carries them): add, never rename. `switchyard rules` lists this table and
//! `switchyard explain <id>` prints an entry.

//!
//! A leaf: it names the targets, lanes and severities rules are about, and depends on no other part
//! of Switchyard (every layer reads it; `diagnostic` and `roundhouse::tree` re-export its types).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A rule id: one of the catalogue's (`roundhouse::catalogue`) or one of Switchyard's own. The only ways
/// to make one are `rule!("id")`, checked against the catalogue when the crate compiles, and
/// `catalogue::lookup`, for ids that arrive as text (query capture names, settings): a misspelt id is a
/// build error, never a finding nobody can look up.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId {
    id: &'static str,
    family: Family,
}

/// In the persisted index, by its text; read back through the catalogue (an id this build does not
/// know makes the entry unreadable, and the file is indexed afresh).
impl bincode::Encode for RuleId {
    fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
        self.id.encode(encoder)
    }
}

impl<Context> bincode::Decode<Context> for RuleId {
    fn decode<D: bincode::de::Decoder<Context = Context>>(decoder: &mut D) -> Result<Self, bincode::error::DecodeError> {
        let id = String::decode(decoder)?;
        crate::catalogue::lookup(&id).ok_or_else(|| bincode::error::DecodeError::OtherString(format!("unknown rule id {id}")))
    }
}

bincode::impl_borrow_decode!(RuleId);

impl RuleId {
    /// Only the catalogue calls this, with an id it holds.
    const fn from_catalogue(id: &'static str, family: Family) -> RuleId {
        RuleId { id, family }
    }

    pub const fn as_str(self) -> &'static str {
        self.id
    }

    /// The family the catalogue files it under (`Family::Switchyard` for Switchyard's own).
    pub const fn family(self) -> Family {
        self.family
    }
}

impl std::ops::Deref for RuleId {
    type Target = str;
    fn deref(&self) -> &str {
        self.id
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

impl std::fmt::Debug for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.id)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.id == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.id == *other
    }
}

impl Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id)
    }
}

/// A runtime an emitted tree runs on (`switchyard lanes`): the CRuby tree under Puma's forked
/// workers, the JVM tree (one process, real threads), the CRuby tree on TruffleRuby (one process,
/// real threads), the Spinel binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    Ruby,
    Jruby,
    Truffleruby,
    Spinel,
}

impl Lane {
    pub const ALL: [Lane; 4] = [Lane::Ruby, Lane::Jruby, Lane::Truffleruby, Lane::Spinel];

    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Ruby => "ruby",
            Lane::Jruby => "jruby",
            Lane::Truffleruby => "truffleruby",
            Lane::Spinel => "spinel",
        }
    }

    pub fn parse(text: &str) -> Option<Lane> {
        Lane::ALL.into_iter().find(|l| l.as_str() == text)
    }

    /// What runs in the lane, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Lane::Ruby => "the CRuby tree under Puma (forked workers × threads)",
            Lane::Jruby => "the JVM tree on JRuby (one process, real threads)",
            Lane::Truffleruby => "the CRuby tree on TruffleRuby (one process, real threads)",
            Lane::Spinel => "the Spinel binary (one process)",
        }
    }

    /// The tree the lane runs.
    pub fn target(self) -> Target {
        match self {
            Lane::Ruby | Lane::Truffleruby => Target::Ruby,
            Lane::Jruby => Target::Jruby,
            Lane::Spinel => Target::Spinel,
        }
    }

    /// The lanes an app's targets imply, when no lane is named: each target's own runtime
    /// (TruffleRuby only when asked for).
    pub fn implied_by(targets: &[Target]) -> Vec<Lane> {
        Lane::ALL.into_iter().filter(|l| *l != Lane::Truffleruby && targets.contains(&l.target())).collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Ruby,
    Jruby,
    Spinel,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Ruby, Target::Jruby, Target::Spinel];

    pub fn as_str(self) -> &'static str {
        match self {
            Target::Ruby => "ruby",
            Target::Jruby => "jruby",
            Target::Spinel => "spinel",
        }
    }

    pub fn parse(text: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// A family of rules, as the catalogue groups them (the part of an id before its dot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Controller,
    Fixtures,
    Initializer,
    Job,
    Jruby,
    Lanes,
    Library,
    Mailer,
    Model,
    Rails,
    Roundhouse,
    Routes,
    Schema,
    Spinel,
    Syntax,
    Views,
    /// Switchyard's own: about its settings and comments.
    Switchyard,
}

impl Family {
    pub const fn as_str(self) -> &'static str {
        match self {
            Family::Controller => "controller",
            Family::Fixtures => "fixtures",
            Family::Initializer => "initializer",
            Family::Job => "job",
            Family::Jruby => "jruby",
            Family::Lanes => "lanes",
            Family::Library => "library",
            Family::Mailer => "mailer",
            Family::Model => "model",
            Family::Rails => "rails",
            Family::Roundhouse => "roundhouse",
            Family::Routes => "routes",
            Family::Schema => "schema",
            Family::Spinel => "spinel",
            Family::Syntax => "syntax",
            Family::Views => "views",
            Family::Switchyard => "switchyard",
        }
    }

    /// Whether its findings are about what the compiler does to the app: not about Rails itself
    /// (`rails`), the runtime lanes, the compiler's own lines or Switchyard's settings.
    pub const fn about_the_compiler(self) -> bool {
        !matches!(self, Family::Rails | Family::Lanes | Family::Roundhouse | Family::Switchyard)
    }
}

/// What a rule's findings are about, which decides where they hold: in a file the compiler reads, in
/// one it drops, in one it does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// A construct the compiler reads and drops, changes or compiles differently from Rails.
    Construct,
    /// A construct its ingest rejects: an error where the file is compiled with the app (the compile
    /// stops), the file dropped where it is compiled on its own.
    Rejected,
    /// How the file is read or wired (or what Rails makes of it), rather than what the compiler does
    /// with a construct: true of files the compiler does not read as well.
    Reading,
}

/// The rewrite a rule's quick fix makes (`ide::fixes` applies it to the text at the finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// `"#@x"` → `"#{@x}"`.
    EmbeddedVariable,
    /// `alias a b` → `alias_method :a, :b`.
    AliasMethod,
    /// A template's text `#{` → `&#35;{`.
    EscapeHash,
    /// The name the message suggests (`Did you mean …`); a guess, offered and never applied unasked.
    SuggestedName,
    /// `.includes(:x)` in the query that feeds the loop, possibly in another file.
    Preload,
    /// The unused `switchyard:disable` comment removed.
    RemoveComment,
    /// `render "/shared/tags"` → `render "shared/tags"` (Rails finds the same view).
    RenderPathSlash,
    /// `build(key: value)` → `build({ key: value })` (the same hash to Ruby).
    BraceHash,
    /// `options_for_select(choices, selected: x)` → `options_for_select(choices, x)` (the same to Rails).
    SelectedPositional,
}

impl Fix {
    /// What the fix does, for `explain`.
    pub fn describe(self) -> &'static str {
        match self {
            Fix::EmbeddedVariable => "writes the interpolation out with braces",
            Fix::AliasMethod => "rewrites it as `alias_method`",
            Fix::EscapeHash => "escapes the `#` as `&#35;`",
            Fix::SuggestedName => "changes the name to the one suggested",
            Fix::Preload => "adds `.includes(…)` to the query that feeds the loop",
            Fix::RemoveComment => "removes the comment",
            Fix::RenderPathSlash => "removes the leading slash",
            Fix::BraceHash => "puts braces around the attributes",
            Fix::SelectedPositional => "passes the selected value alone",
        }
    }

    /// Whether it keeps the code's meaning, so `switchyard --check --fix` applies it unasked: a
    /// guessed name does not, and the preload's edit may be in another file than the finding's.
    pub fn is_safe(self) -> bool {
        !matches!(self, Fix::SuggestedName | Fix::Preload)
    }
}

/// The sentence a finding's message ends with when a name it reads is near one it knows: the one
/// place its wording is decided, for the rules that write it and for `Fix::SuggestedName`, which
/// reads the name back.
pub fn suggestion(name: &str) -> String {
    format!(" Did you mean `{name}`?")
}

/// The name `message` suggests (`suggestion`), if it suggests one.
pub fn suggested(message: &str) -> Option<&str> {
    message.rsplit_once(" Did you mean `")?.1.strip_suffix("`?")
}

pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub targets: &'static [Target],
    /// The family, as the catalogue groups rules: `syntax`, `model`, `routes`…
    pub family: Family,
    /// What triggers it (Markdown, as the catalogue writes it).
    pub trigger: &'static str,
    /// Whether Switchyard reports it yet.
    pub implemented: bool,
    /// The runtime lanes a `lanes.*` rule is about (empty for the compiler's rules): lanes are chosen
    /// as targets are, and a finding is reported where one of its lanes is.
    pub lanes: &'static [Lane],
    /// What a finding of it is about, which decides where it holds (`roundhouse::ingest::apply`).
    pub subject: Subject,
    /// What its message says of the construct and what to write instead, where the message is
    /// made from them alone (the `syntax.*` rules: `roundhouse::syntax_rules::message`).
    pub says: Option<Says>,
    /// The rewrite its quick fix makes, where the rule has one mechanical answer (`ide::fixes`).
    pub fix: Option<Fix>,
}

/// What a finding's message says of the construct (`what`: "the `alias` keyword") and what to write
/// instead ("write `alias_method :new, :old`").
pub struct Says {
    pub what: &'static str,
    pub instead: &'static str,
}

const ALL: &[Target] = &[Target::Ruby, Target::Jruby, Target::Spinel];
const JRUBY: &[Target] = &[Target::Jruby];
const SPINEL: &[Target] = &[Target::Spinel];
const NO_LANES: &[Lane] = &[];
/// The lanes that cannot fork: one process with threads.
const THREADED: &[Lane] = &[Lane::Jruby, Lane::Truffleruby];
/// The targets whose trees the JVM and TruffleRuby lanes run.
const RUBY_FAMILY: &[Target] = &[Target::Ruby, Target::Jruby];
const RUBY: &[Target] = &[Target::Ruby];

/// A rule about a construct, reported, with no lanes, no message parts and no quick fix: what most
/// rules are, written once (`..CONSTRUCT` in the table).
const CONSTRUCT: Rule = Rule {
    id: "",
    severity: Severity::Warning,
    targets: ALL,
    family: Family::Syntax,
    trigger: "",
    implemented: true,
    lanes: NO_LANES,
    subject: Subject::Construct,
    says: None,
    fix: None,
};

pub const RULES: &[Rule] = &[
    Rule {
        id: "syntax.ternary-argument",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a call without parentheses whose first argument is a ternary (`f.submit x ? \"Update\" : \"Create\"`, `return x ? a : b`), on a receiver in a model's, controller's or library class's method, or in a template where the view lowering keeps it (not `tag.x`, not a `form_with` builder's `submit`, `label`, `text_field`…): Roundhouse writes the ternary as a multi-line `if … else … end` and the call still without parentheses, which reads as a modifier `if`; the `else` is not Ruby, the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        says: Some(Says {
            what: "a ternary as the first argument of a call without parentheses",
            instead: "put the call's arguments in parentheses (`f.submit(x ? \"Update\" : \"Create\")`)",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.yield-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`yield(…)` with arguments, in code Roundhouse compiles, where it cannot stand without its parentheses: an argument after another (`content_tag(:li, yield(x))`), an array element, a hash or keyword value, an operand (`a && yield(x)`, `1 + yield(x)`). Roundhouse writes every `yield(…)` as `yield a, b`: the emitted file does not parse, and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        says: Some(Says {
            what: "a `yield(…)` that is not Ruby without its parentheses",
            instead: "assign what the block returns to a local first (`value = yield(x)`) and use the local",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.symbol-quotes-dropped",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a quoted symbol (`:\"180x180\"`, `:'foo-bar'`, `%s(two words)`) whose text is no bare symbol, in code Roundhouse compiles: it writes `:` and the text without quotes, which does not parse (`:180x180`) or reads as something else (`:foo-bar` is `:foo - bar`). A hash label (`\"data-id\": 1`) keeps its quotes",
        says: Some(Says {
            what: "a quoted symbol whose text is no bare symbol",
            instead: "rename it to a symbol that needs no quotes wherever it is used, or use a string where the API takes one",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.safe-navigation-arguments",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a safe-navigation call with arguments and without parentheses (`logger&.info \"saved\"`) in a model's, controller's or library class's method: Roundhouse writes `x&.m arg` as `x && x.m arg`, and a call with its arguments after a space is no operand of `&&`, so the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        says: Some(Says {
            what: "a safe-navigation call with arguments and without parentheses",
            instead: "put the arguments in parentheses (`logger&.info(\"saved\")`)",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.grouping-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "an argument (or a keyword argument's value), or an operand of `&&`/`||`, in parentheses that is not Ruby without them: a call without parentheses among other arguments (`t(:x, (h name))`, `key: (method :cmd)`) or beside an operator (`a && (xs.include? x)`), `or`/`and` among arguments (`(params[:page] or 1)`). Roundhouse writes the grouped expression without its parentheses (it keeps those an operator's precedence needs), so the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        says: Some(Says {
            what: "an argument or operand in parentheses that is not Ruby without them",
            instead: "write the inner call with parentheses (`h(x)`, `include?(x)`), or `||`/`&&` for `or`/`and`",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.yield-regrouped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`yield(…)` with arguments followed by code that joins them once Roundhouse drops its parentheses: `yield(x).to_s` compiles to `yield x.to_s`, `yield(x) || y` to `yield x || y`, `yield(x)[0]` to `yield x[0]`, `f(yield(x), 1)` to `f(yield x, 1)`: the block gets other arguments, and the result is used as it comes. The compiler says nothing; its emitted file shows it",
        says: Some(Says {
            what: "a `yield(…)` whose arguments change without its parentheses",
            instead: "assign what the block returns to a local first (`value = yield(x)`) and use the local",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.to-fs-not-expanded",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`x.to_fs(…)` or `x.to_formatted_s(…)`, in code Roundhouse compiles, that it does not expand into `strftime`: with no format, more than one argument, a format that is not a literal, or a format other than Rails' `db`, `number`, `time`, `short`, `long`, `iso8601`, `rfc2822` and those an initializer registers at its top level on `Time::DATE_FORMATS` (or with `ActiveSupport::TimeFormats.register`) as a string or a one-parameter lambda (`Date::DATE_FORMATS` is not read). The call is left as written and raises NoMethodError: the compiled app's Ruby has no `to_fs`. The compiler says so for templates only (`` `to_fs` left in source shape ``); the emitted model, controller or helper keeps the call the same way",
        says: Some(Says {
            what: "a `to_fs` call whose format it does not expand",
            instead: "register the format at an initializer's top level on `Time::DATE_FORMATS`, or write the `strftime` it stands for",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.parse-error",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a `.rb` file that does not parse",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.backtick-command",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`` `cmd` ``, `%x(cmd)`",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "shell commands (`cmd`, %x())",
            instead: "use Open3 or Process.spawn in code Roundhouse does not compile",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.for-loop",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`for x in xs`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`for … in` loops", instead: "write `collection.each do |x| … end`" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.pattern-matching",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`case v in …`, `x in Pat`, `x => Pat`",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "pattern matching (`case … in`, `x in Pat`, `x => Pat`)",
            instead: "use `case … when` or explicit checks",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.regex-named-capture",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`/(?<y>\\d+)/ =~ s` (match-write)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "a regexp whose named captures assign locals (`/(?<y>…)/ =~ s`)",
            instead: "use `m = s.match(/(?<y>…)/)` and `m[:y]`",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.global-variable-write",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`$x = 1`",
        subject: Subject::Rejected,
        says: Some(Says { what: "writes to global variables", instead: "use a constant, a class-level reader or configuration" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.class-variable-in-method",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`@@c = 1` or `@@c \\|\\|= v` inside a `def` (observed often in real `lib/` code: `@@bin \\|\\|= BIN`)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "class variables written inside a method",
            instead: "use a class-level instance variable (`@x` in `class << self`) or a constant",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.alias-keyword",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`alias new old` in the body of an Active Record model or a controller (the compile stops); elsewhere (library classes, helpers, concerns, a model's subclass) Roundhouse drops the `alias` without a word — a warning there",
        subject: Subject::Rejected,
        says: Some(Says { what: "the `alias` keyword", instead: "write `alias_method :new, :old`" }),
        fix: Some(Fix::AliasMethod),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.undef",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`undef x`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`undef`", instead: "remove the method from the class instead" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.magic-constant",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`__FILE__`, `__LINE__`, `__ENCODING__`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`__FILE__`, `__LINE__` and `__ENCODING__`", instead: "use `__dir__` or a constant" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.rational-imaginary",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`1r`, `2i`",
        subject: Subject::Rejected,
        says: Some(Says { what: "rational and imaginary literals (`1r`, `2i`)", instead: "use `Rational(1)` or floats" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.begin-end-block",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`BEGIN { }`, `END { }`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`BEGIN { }` and `END { }` blocks", instead: "call the code from an initializer or `at_exit`" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.argument-forwarding",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`def f(...) = g(...)`",
        subject: Subject::Rejected,
        says: Some(Says { what: "argument forwarding (`...`)", instead: "name the parameters and pass them on" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.anonymous-keyword-forwarding",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "forwarding an anonymous `**` (`def f(**) = g(**)`); an anonymous `**` parameter that is never passed on compiles",
        subject: Subject::Rejected,
        says: Some(Says { what: "anonymous keyword forwarding (`**`)", instead: "name it: `**options`" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.flip-flop",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`if (a==1)..(b==2)`",
        subject: Subject::Rejected,
        says: Some(Says { what: "flip-flops", instead: "track the state in a variable" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.nested-definition",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a `class`/`module` defined inside a method, or in the body of an Active Record model, an Active Model class or a controller, or in a test's `setup` block (`class << self` is fine; a class nested in a plain class or a test class's body is too)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "a class or module defined inside a method (or a class nested in a model's body)",
            instead: "define it at the top level of a file",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.multi-assign-target",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`a.b, c = 1, 2`; `a, *b, c = arr`",
        subject: Subject::Rejected,
        says: Some(Says { what: "multiple assignment to attributes or around a splat", instead: "assign one target per statement" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.regex-once-flag",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "an interpolated regexp with an encoding flag (`/#{x}/u`, `/#{x}/n`, `e`, `s`); `/#{x}/o` is accepted (the compiler drops the flag, which changes nothing but speed)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "an interpolated regexp with an encoding flag (`u`, `n`, `e`, `s`)",
            instead: "drop the flag: source files are UTF-8 already",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.defined-path",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`defined?(A::B)`, `defined?(a.b)`, `defined?(Constant)`, `defined?(@@x)`, `defined?(super)` (only a bare local or method name or an instance variable is supported)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "`defined?` around anything but a bare name (a constant, a path, a call with a receiver, `super`…)",
            instead: "use `Object.const_defined?(\"Name\")` or `respond_to?(:name)`",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.do-while",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`begin … end while c` / `until c`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`begin … end while` loops", instead: "write `loop do … break unless c end`" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.multi-index-assign",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`m[i, j] += 1`, `m[i, j] \\|\\|= 0`",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "compound assignment to a multi-index element (`m[i, j] += 1`)",
            instead: "read, compute and write back in separate statements",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.empty-interpolation",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`\"a#{}b\"`",
        subject: Subject::Rejected,
        says: Some(Says { what: "an empty interpolation (`#{}`)", instead: "remove it" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.embedded-variable",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`\"#@x\"`, `\"#$x\"`",
        subject: Subject::Rejected,
        says: Some(Says { what: "`#@x` / `#$x` interpolation", instead: "write `#{@x}`" }),
        fix: Some(Fix::EmbeddedVariable),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.block-argument-form",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`&method(:f)`, `&proc { }`, `&self.blk` (only `&:sym` and `&local` work)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "a block argument other than `&:sym` or `&local`",
            instead: "pass a block, or assign the proc to a local first",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.dynamic-class-name",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`class (expr)::Foo` — not reported: the compiler accepts it (it reads the last name, `Foo`)",
        implemented: false,
        subject: Subject::Rejected,
        says: Some(Says { what: "a class whose name is computed (`class (expr)::Foo`)", instead: "name the class with constants" }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.block-parameter-form",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Syntax,
        trigger: "`\\|(a, b)\\|`, `\\|a, b = 1\\|`, `\\|*rest\\|`, `\\|k:\\|`, `\\|&blk\\|`, `_1` in a scope's lambda (dropped; only plain names survive; a block's `_1` and `it` are kept)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "destructuring, default, splat, keyword and block parameters of a block (they are dropped)",
            instead: "take plain names and unpack inside the block",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.def-in-expression",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a `def` used as a value: `private def x`, `protected def x`, `memoize def x`, a `def` inside a block (`Class.new do def x … end end`) — compiled as `nil`, the method is missing",
        subject: Subject::Rejected,
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.regex-condition",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a bare regexp as a condition (`if /x/`, matched against `$_`)",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "a bare regexp as a condition (it matches `$_`)",
            instead: "match against the string: `if line.match?(/x/)`",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "syntax.shareable-constant",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Syntax,
        trigger: "a constant written under the `# shareable_constant_value:` magic comment",
        subject: Subject::Rejected,
        says: Some(Says {
            what: "constants written under the `# shareable_constant_value:` magic comment",
            instead: "remove the magic comment and freeze the values (`.freeze`)",
        }),
        ..CONSTRUCT
    },
    Rule {
        id: "model.document-not-compiled",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a class under `app/models` persisted by another library (`include Mongoid::Document`, `MongoMapper`, `Dynamoid`, `< Sequel::Model`…): compiled as a plain class, its fields, associations, validations, scopes, callbacks and indexes dropped",
        ..CONSTRUCT
    },
    Rule {
        id: "model.enum-mapping",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "`enum :s, CONST` (mapping not an array/hash literal or `%w[…].index_by(&:itself)`)",
        subject: Subject::Rejected,
        ..CONSTRUCT
    },
    Rule {
        id: "model.singleton-class-statement",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "a statement other than `def` or a bare `private`/`protected`/`public` inside an Active Record model's `class << self` (`attr_accessor`, `private :x`…)",
        subject: Subject::Rejected,
        ..CONSTRUCT
    },
    Rule {
        id: "model.scope-body",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "`scope :x, :sym` (body not a lambda/proc)",
        subject: Subject::Rejected,
        ..CONSTRUCT
    },
    Rule {
        id: "model.class-variable-initializer",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "a class-variable write in a class body: in an Active Record model **any** `@@x = …`, even `@@x = nil` (Roundhouse: unsupported expression node ClassVariableWriteNode); in library classes (`lib/`, helpers, jobs …) a non-nil initializer such as `@@x = {}` — there the whole file is dropped (`@@x = nil` is accepted)",
        subject: Subject::Rejected,
        ..CONSTRUCT
    },
    Rule {
        id: "model.unsupported-macro",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a model class-body call Roundhouse does not lower (it prints `<dsl> not supported (all targets)`): dropped — `delegate`, `serialize`, `store_accessor`, `normalizes`, `default_scope`, `accepts_nested_attributes_for`, `has_many_attached`, `extend`, `has_rich_text` with options, `attribute` with options, gems' macros; changed — `private`/`protected` (the methods are public), `has_one_attached` (a reader only); kept with the warning — `include` of a gem's module (info for `ActiveModel::*` and the app's own modules), `attr_accessor`/`attr_reader`/`attr_writer` (info). Also: a model's subclass, or a model that is not its file's first class, whose model statements are dropped (\"not modelled and is dropped\"), and a concern's `included` block statements that are not model DSL (dropped without a word)",
        ..CONSTRUCT
    },
    Rule {
        id: "model.callback-form",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a callback Roundhouse drops (it prints `<hook> not supported`): `if:`/`unless:`/`prepend:`, an `on:` list, `on:` on a hook other than validation and commit ones, a lambda or a callbacks object, `around_*`, `after_find`, `after_touch`, `after_initialize :method`; a method name or a block on a known hook runs",
        ..CONSTRUCT
    },
    Rule {
        id: "model.presence-check-never-passes",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "`validates :x, presence: true` (or `validates_presence_of :x`) where `x` is one of the model's associations (`belongs_to`, `has_one`, `has_many`): Roundhouse writes the check as a test of the instance variable `@x`, which nothing in the compiled model assigns (the association's reader queries through its key), so every record fails it and none saves. The compiler says nothing; its emitted `validate` shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "model.row-struct-collision",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "a model named like the row struct Roundhouse writes for another model with a table (`ImportRow` beside `Import`): the struct is written under the same name to the same file, so the compiled class is the struct and the model (its table, associations, validations, callbacks and methods) is gone from every tree. The compiler says nothing; its emitted file shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "model.validation-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a validation Roundhouse does not enforce, without a word: `uniqueness:`, `format:`, `numericality:`, `inclusion:`, `exclusion:`, `comparison:`, `confirmation:`, `acceptance:`, a custom validator (`email: true`), `length:` with `is:`/`in:`/`within:` or a bound that is not a number, `presence:` with options; and, printing `not supported`, `validate` with options or a block, `validates_each`, `validates_with`, `validates_associated`, the other `validates_*_of` or ones with options",
        ..CONSTRUCT
    },
    Rule {
        id: "model.validation-option-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "an option of `validates` that Roundhouse ignores while enforcing the check: `if:`, `unless:`, `on:` (the check always runs), `allow_nil:` on presence, `allow_blank:` on length, `message:` and messages inside `length:` (Rails' default messages), `strict:`",
        ..CONSTRUCT
    },
    Rule {
        id: "model.association-option-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "an association option Roundhouse ignores without a word — everything but `class_name`, `foreign_key`, `dependent`, `through`, `source`, `source_type`, `as`, `polymorphic`, `optional`, `default` and `join_table` (`counter_cache:`, `touch:`, `inverse_of:`, `autosave:`, `primary_key:`, `required: false`, `validate: true`…) — and a scope on `belongs_to`/`has_one` or a scope with parameters",
        ..CONSTRUCT
    },
    Rule {
        id: "model.json-hash-assignment",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a whole Hash written to a `has_json` column (`record.update!(settings: { … })`, `record.settings = { … }`): Roundhouse prints `has_json not supported` and does not cast the keys through the column's schema as Rails does",
        ..CONSTRUCT
    },
    Rule {
        id: "model.method-parameters-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "a named `*args`, `**opts` or `&blk` parameter of an Active Record model's method that its body uses: Roundhouse drops the parameter (anonymous ones, and a block only yielded to, change nothing)",
        ..CONSTRUCT
    },
    Rule {
        id: "schema.unknown-column-type",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Schema,
        trigger: "`t.jsonb`, `t.uuid`, `t.inet`, `t.citext`, `t.virtual`, … (column dropped from the model)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "schema.migration-verb",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Schema,
        trigger: "without `db/schema.rb`: `change_table`, `create_join_table`, `drop_join_table`, `execute`, `reversible`, `revert`, `up_only` called in a migration's `change` (or `up`, when it has no `change`)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.unsupported-dsl",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Routes,
        trigger: "`concern`/`concerns`, `shallow do`, `devise_for`, `use_doorkeeper`, `authenticate … do`, `controller :x do`, `defaults do`, `nested do`, top-level `redirect`, gem route macros (`mount_avo`, …), any other unknown routes method",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.mount",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "`mount Engine => \"/p\"` / `mount Engine, at:` (the engine's routes are dropped)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.draw-missing",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Routes,
        trigger: "`draw(:x)` with no `config/routes/x.rb`",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.file-not-drawn",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "a `config/routes/x.rb` that `config/routes.rb` does not draw (`draw(:x)`), directly or through a file it draws",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.statement-skipped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "a routes call inside an `if`/`unless` or a loop (`%w(a b).each do`) in a routes file (skipped, routes and all)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.redirect",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "`get \"/a\", to: redirect(\"/b\")` (route dropped)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.missing-target",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "a verb route without `to:` outside `resources` (dropped)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.resource-option-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Routes,
        trigger: "`resources/resource … controller:/path:/param:/shallow:/module:/concerns:/constraints:/defaults:` (only `only`, `except`, `as` are honoured — the emitted route may reach a different controller or path than Rails)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "routes.malformed",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Routes,
        trigger: "`namespace do` without a name, bare `get`, `resources \"posts\"` (string name)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "controller.macro-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "`rescue_from`, `protect_from_forgery`, `skip_forgery_protection`, `allow_browser`, `caches_page`, `prepend_before_action`, `skip_after_action`, `before_filter`, other unknown class-body macros",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.after-around-filter",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "`after_action`, `around_action` (never applied in the emitted dispatch)",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.concern-macro-not-expanded",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "a controller calls a class method of an included concern as a class-body macro (`require_sudo_mode`, `guard_feature :x`) whose body holds statements other than filter DSL (`before_action …`): Roundhouse does not expand it and its effect is lost; report at the call in the controller",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.json-format-dropped",
        severity: Severity::Warning,
        targets: SPINEL,
        family: Family::Controller,
        trigger: "a `format.json` arm of a `respond_to` in an action that renders `json:` inline — the Spinel tree drops it and answers with the html branch; `head`, `render :template` and bare `format.json` arms are kept — target **spinel** only",
        ..CONSTRUCT
    },
    Rule {
        id: "views.template-engine",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`*.slim`, `*.ruby`, `*.builder`, `*.rabl` (not ingested: no emitted template)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "views.template-format",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`*.text.erb`, `*.json.erb`, `*.xml.erb` and other non-html formats (allowed: `.html`, none, `turbo_stream`, `svg`)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "views.function-name-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "an emitted ERB or HAML template whose compiled function or module the compiler names with what is not Ruby: a file name with `-`, `+` or a locale (`welcome-v2.html.erb`, `show.en.html.erb`: `def self.welcome-v2`), or a folder with one (`ta-in/`: `module Ta-in`). The emitted views file does not parse, so the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        ..CONSTRUCT
    },
    Rule {
        id: "views.render-path-leading-slash",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "a `render` in an emitted template naming a view from the root with a leading slash (`render \"/shared/tags\"`, `partial: \"/layouts/nav\"`, `template:`, with a collection too): Roundhouse compiles it into `Views::::Shared.tags(…)`, which is not Ruby, so the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        fix: Some(Fix::RenderPathSlash),
        ..CONSTRUCT
    },
    Rule {
        id: "views.variable-name-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "in an emitted template, an instance variable named like a Ruby keyword written (`@class = \"wide\"`), a local named so passed to a partial (`render \"row\", class: \"narrow\"`), or a `render template: \"layouts/…\"` of a layout that takes such an instance variable (it reads it, or a layout it renders does): Roundhouse compiles them into a local, a parameter or an argument of that name (`class = \"wide\"`, `def self.row(…, class = nil)`, `Views::Layouts.narrow(class)`), which is not Ruby, so the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        ..CONSTRUCT
    },
    Rule {
        id: "views.haml-filter",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "HAML filters other than `:ruby` (`:javascript`, `:css`, …)",
        ..CONSTRUCT
    },
    Rule {
        id: "views.haml-class-merge",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`%p.a{class: x}` (shortcut class + hash class)",
        ..CONSTRUCT
    },
    Rule {
        id: "views.output-collision",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "two templates that map to one emitted file, e.g. `x/create.html.erb` + `x/create.turbo_stream.erb` (last one wins)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "views.jbuilder-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "a `.json.jbuilder` statement Roundhouse's jbuilder lowering does not keep: `json.cache!`/`json.merge!`/`json.key_format!` (written as a key named after the call), `json.key value do … end` (the block lost), `json.set!`, `json.child!`, `json.key do … end`, `json.key record, :a`, `json.array!` with a block or attribute names, and any statement that is not a `json.` call (`if`, loops, assignments)",
        ..CONSTRUCT
    },
    Rule {
        id: "views.yield-slot-kept",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`yield :name` (or `yield(:name)`) in an ERB template anywhere but as an output tag's whole code (`<% title = yield(:title) %>`, `<% if yield(:sidebar) %>`, `<%= raw yield(:head) %>`, a ternary's branch): Roundhouse reads the slot (`get_slot`) only from `<%= yield :name %>` (with or without a modifier `if`); elsewhere it keeps the `yield`, and the compiled template function is called without a block, so rendering raises LocalJumpError. Where the yield also does not parse or regroups, `syntax.yield-not-ruby`/`syntax.yield-regrouped` say it instead",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.nested-layout-body-lost",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "`render template: \"layouts/…\"` in a template (Rails' nested layouts): Roundhouse calls the layout's function with the instance variables it reads and not the page's content, its first parameter — ArgumentError when it reads none, the content lost otherwise",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.present-check-raises",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "`x.present?`/`x.blank?` in a template's condition (`if`/`unless`/`elsif`, a ternary or a modifier, at the template's level or in an `each` loop, through `&&`/`||`/`!`) or a template local's value, where `x` is known to hold a record (an instance variable the rendering actions bind to one, a partial's local, a loop's record) or a number, time or boolean column read on one: Roundhouse writes it as an `empty?` test whatever `x` is (only a `belongs_to`/`has_one` reader or a reader ending in `_id` called on a value becomes a `nil?` test), so the compiled page raises NoMethodError whenever `x` is not nil. The compiler says nothing; its emitted view shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.helper-undefined",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "a call in a template of a Rails or gem view helper that Roundhouse neither expands nor answers from its runtime (`t`, `l`, `number_to_currency`, `simple_format`, `sanitize`, `current_page?`, `text_field_tag`, `options_for_select`, `time_tag`, `link_to_if`, `can?`, `policy`, `paginate`…), where the app defines no method of that name; and, in an app whose helper modules define no method at all, the helpers the runtime answers (`time_ago_in_words`, `image_tag`, `content_tag`, `raw`, `url_for`…), which the compiler then does not point at it: the compiled template calls it as written, in a module that has no such method, and the page raises NoMethodError. The compiler says nothing; its emitted view shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.form-tag-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`form_tag do … end` given no URL (Rails posts it to the page's own): Roundhouse writes it as an empty string, so the form and everything inside it are missing from the compiled page. The compiler says nothing; its emitted view shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.render-raises",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "an output tag that is one `render` of records the compiled template cannot make: a target other than an instance variable or one association read on an instance variable or a local (`render @posts.first.comments`, `render @posts.where(…)`, `render post.comments` on a partial's local), which Roundhouse writes as it stands (the module has no `render`); or one whose partial, named after the instance variable or the method (`render @recent_posts` → `recent_posts/_recent_post`, `render @post.author` → `author/_author`), the app does not have. The page raises NoMethodError or NameError. The compiler says nothing; its emitted view shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.content-tag-block-lost",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`content_tag … do … end` (or `{ … }`) in a template of an app whose helper modules define a method: Roundhouse calls its runtime's `content_tag`, which takes the content as an argument and ignores the block, so the tag is written empty and options given beside the block become its text. (Where the app's helper modules define no method, the call raises: `views.helper-undefined`.) The compiler says nothing; the compiled page shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.output-statements-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "an ERB output tag whose code is two statements or more (`<%= parts = text.split; parts.join(\" \") %>`, or one per line), or an `if` without `else` whose body is: Roundhouse writes the code (the body) as the argument of `html_escape(…)`, where statements are not Ruby. A comment among them is not a statement; an `if` with `else` is written as an expression, which reads",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.parameter-named-twice",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "a template whose compiled function would take one name twice: `defined?(@x)` (the instance variable is a parameter, and the marker makes `x` an optional local too), `defined?(x)` or `local_assigns[:x]` beside a read of `@x`, a read of `@notice`/`@alert` (every compiled template takes `notice = nil, alert = nil`), a partial whose folder names its record `notice` or `alert`. Not said for an action template's own folder name (`defined?(@posts)` in `posts/index`), a partial's record, or a partial with a strict-locals comment",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "views.select-options-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "`form.select :field, options_for_select(choices, selected: x)` (or `disabled:`, any keywords) in a `form_with` block: Roundhouse writes the builder's `select` as markup and compares each choice with `options_for_select`'s second argument as written, so the keywords land in an `if` and the emitted template does not parse (the compiled app does not boot). The compiler says nothing; its emitted file shows it",
        fix: Some(Fix::SelectedPositional),
        ..CONSTRUCT
    },
    Rule {
        id: "views.turbo-stream-option-form",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`turbo_stream.<action>` with an option other than `partial:`/`locals:` (`collection:`, `content:`, `html:`, `template:`…), an `_all` action with options, or a `{ … }` block (dropped); in a template also a `do … end` block on an `_all` action or with more than the target, a target alone on an action other than `remove`, content that is not a variable (a string, a call), `morph` and `remove_all`. Read: `partial:` (with `locals:`), a `do … end` block with the target alone, `remove target`, `action target, record_variable`",
        ..CONSTRUCT
    },
    Rule {
        id: "views.template-parse-error",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "an ERB/HAML/jbuilder template whose Ruby, as Roundhouse compiles the template, does not parse (HAML `==`, a quote inside text interpolation, a tag Roundhouse reads differently)",
        ..CONSTRUCT
    },
    Rule {
        id: "views.text-interpolation",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "`#{`, `#@x`, `#$x` in plain template text (outside any tag): Roundhouse writes text as a double-quoted Ruby string, so Rails' literal text becomes Ruby interpolation — an error where it does not compile, a warning (evaluated) where it does",
        fix: Some(Fix::EscapeHash),
        ..CONSTRUCT
    },
    Rule {
        id: "views.output-block-pairing",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "inside a `<%= … do %>` output block: a code tag that opens a block Roundhouse does not count (two openers in one tag; statements after the `do |x|` line of a multi-line tag; an opener keyword not first, `<% x = if c %>`; a keyword followed by a newline; a trailing `# comment` after the opener), or a closing tag that is not exactly `end` / `end if …` (`<% end\\n} %>`, `<% end, error: true } %>`) — Roundhouse pairs `end`s by text and closes the wrong block",
        ..CONSTRUCT
    },
    Rule {
        id: "views.output-tag-comment-or-heredoc",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "a heredoc, or a `# comment` with no code after it, inside a `<%= … %>` tag (Roundhouse's `).to_s` lands in it); a comment on an earlier line of a multi-line tag is fine",
        ..CONSTRUCT
    },
    Rule {
        id: "views.literal-tag",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "`<%%` (literal `<%` in Rails) and `=%>` closers: Roundhouse compiles them as code, with no gap recorded — text is lost or swallowed",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.permit-field-no-writer",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "a field of a permit list of a model's resource (`params.require(:post)` for `Post`; each list sizes a synthesized `update`/`from_params`) that the compiled model has no writer for: not a column, a `belongs_to`, `attr_accessor`/`attr_writer`/`attribute`, `has_secure_password`, a bare `has_rich_text` (in its body, or a concern's `included` block) or a `def <field>=` in its own body (a `has_many`'s `tag_ids`, a `store_accessor`, an `alias_attribute`, a reader alone). Reported at the model's class, where the compiler says it (`` permitted field `x` has no writer on `Y` ``)",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.build-attributes-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Controller,
        trigger: "in a controller's method, `@record = @parent.things.build(key: value, …)` with the attributes as keywords (no braces): Roundhouse rewrites it into `attrs = key: value, …` (then the parent's id and `Thing.new(attrs)`), which is not Ruby, so the emitted controller does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        fix: Some(Fix::BraceHash),
        ..CONSTRUCT
    },
    Rule {
        id: "controller.params-class-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Controller,
        trigger: "a permit list Roundhouse reads (`params.require(:x).permit(…)`, `params.expect(x: […])`) whose keys are all array-valued (`permit(tag_ids: [])`): the `<X>Params` record it writes keeps string fields only, so it has none, and its `[]` is a `case` with no `when`, which is not Ruby; or with a key that is no Ruby name (`:\"published_at(3i)\"`), which the record's instance variable and reader are named after (`@published_at(3i)_provided`). The emitted file does not parse and the compiled app does not boot. The compiler says only that the keys are dropped, or have no writer",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.permit-key-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "an array-valued key of a permit list Roundhouse reads (`params.require(:card).permit(:name, assignee_ids: [])`, `params.expect(card: [:name, tag_ids: []])`): the `<X>Params` record it synthesizes holds string fields only, so it drops the key, and the compiled app never assigns it (the compiler: `permitted key … is array-valued`)",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.format-arm-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "a `format.<x>` arm of a `respond_to` block the compiler flattens, for a format other than html, json and rss (`format.csv`, `format.xml`, `format.js`, `format.turbo_stream`, `format.any`, a custom MIME type): every tree drops it, and the action answers that format with its html branch (the compiler warns `` `respond_to` arm `format.x` dropped (format not modeled) ``)",
        ..CONSTRUCT
    },
    Rule {
        id: "controller.format-arm-jump",
        severity: Severity::Error,
        targets: RUBY_FAMILY,
        family: Family::Controller,
        trigger: "a `next` or `break` in a `respond_to` arm the compiler keeps (`format.html`, `format.json`, `format.rss`), outside any block or loop of the arm's own: Roundhouse writes the arm's body into the action under an `if` on the format, where the `next` leaves no block, which is not Ruby, so the emitted controller does not parse and the compiled app does not boot. Said for the CRuby and JVM trees (the Spinel tree drops a json arm of more than a `render`/`head`; its html arms are not measured). The compiler says nothing; its emitted file shows it",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "controller.format-arms-unread",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Controller,
        trigger: "an `if`/`unless` holding `format.<x>` arms beside other statements in a `respond_to` block (`respond_to do |format| @post.x = 1; if @post.save … end end`): Roundhouse reads arms only at the block's top level or in an `if` that is the block's (or a branch's) only statement, so these are copied as written and `format` is undefined in the compiled action",
        ..CONSTRUCT
    },
    Rule {
        id: "model.preload-crash",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "`has_many :x` without `foreign_key:` on a model in a namespace (`module Shop; class Order`), where the target is one of the app's models, in an app with scopes that calls `includes`/`preload`/`eager_load` on a relation: Roundhouse writes preload methods keyed by `shop::order_id`, which does not parse, and panics before it writes any tree",
        ..CONSTRUCT
    },
    Rule {
        id: "job.runs-inline",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Job,
        trigger: "an Active Job class's `perform` with positional parameters: Roundhouse gives the class a `perform_later` and `perform_now` that run it at once, in the caller (every tree's job adapter is inline), and drops `set(wait:/queue:/priority:)` options (the compiler: `job_class_side: `perform` — set(wait:/queue:/priority:) options are dropped under inline job semantics`)",
        ..CONSTRUCT
    },
    Rule {
        id: "job.perform-not-wrapped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Job,
        trigger: "an Active Job class's `perform` with a required keyword parameter (`account_id:`; an optional one is forwarded by position) or a block parameter: Roundhouse writes no class-side `perform_later`/`perform_now` for it (it forwards arguments by position), so calling either raises NoMethodError (the compiler: `job_class_side: `perform` — keyword parameters do not forward positionally`)",
        ..CONSTRUCT
    },
    Rule {
        id: "job.rest-arguments-nested",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Job,
        trigger: "an Active Job class's `perform` with a rest parameter (`*ids`) its body reads, which Roundhouse wraps: its class-side `perform_later`/`perform_now` take `*ids` and pass it on as one array (`new.perform(ids)`), so `perform` receives its arguments nested in another array. The compiler says nothing; its emitted job class shows it",
        ..CONSTRUCT
    },
    Rule {
        id: "model.errors-add-dynamic",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "`errors.add` (on `errors` of any receiver, in a model's, controller's or library class's method or class body, or the seeds) whose field is not a symbol literal (`errors.add(attribute, …)`, `errors.add(\"name\", …)`), with no field, or with options beside the message (`errors.add(:name, :too_short, count: 3)`): Roundhouse grounds the others into an append of the full message, and leaves these as written, on errors that are a list of messages with no `add` (the compiler: `` `errors.add` left as dynamic dispatch ``)",
        ..CONSTRUCT
    },
    Rule {
        id: "model.errors-index-dynamic",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "`errors[…]` (on `errors` of any receiver, in a model's, controller's or library class's method or class body, the seeds, or a model or controller test) with `:base` or a field that is not a symbol literal: Roundhouse finds a field's messages by their prefix in the list of full messages it keeps, and leaves these as an index into that list, which raises TypeError (the compiler: `` `errors[:field]` left as dynamic dispatch ``)",
        ..CONSTRUCT
    },
    Rule {
        id: "model.belongs-to-declared-twice",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "a `belongs_to` (not polymorphic) a model declares twice — in its body and in the `included` block of a module it includes, or twice in its body — in an app whose `includes`/`preload`/`eager_load` and scopes turn on Roundhouse's preload methods: the reader gets its cache guard twice, and its memo is then not Ruby",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "model.operator-writer-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "an Active Record model with a table that defines the instance method `[]=` or `==`: Roundhouse's `update(attrs)` assigns through every method of the model whose name ends in `=`, by the name without it, and writes `[]=(attrs[:[]])` or `self == attrs[:=]`, which are not Ruby",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "model.query-inlined",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Model,
        trigger: "a query Roundhouse compiles to SQL (`Model.all`, `Model.count`, `Model.where`/`find_by`/`exists?` with keywords naming columns and literal or instance-variable values, with `order(col: :asc)`, `limit(n)`, `includes` on top) in a model's or a controller's method, where its expansion is written inline: in a body of one statement (a method, an `if` branch, a block) anywhere but at the statement's start, or in an `if` condition or a multiple assignment. Not said for a controller's public method no route reaches",
        says: None,
        ..CONSTRUCT
    },
    Rule {
        id: "model.missing-preload",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "an N+1 query, as the compiler's analysis proves it from source: a block over a query's records (`each`, `map`, `find_each`…) that reads on each record an association the query does not `includes`/`preload`/`eager_load`. The query is a chain from a model's constant through `where`, `order`, `limit`… and the model's scopes, in the same method or template, or bound to an instance variable by the actions that render the template (the preloads they all have). Queries the compiler follows by types (an association of a record, a class method) are left to `--check --exact` (the compiler: `missing_preload`)",
        fix: Some(Fix::Preload),
        ..CONSTRUCT
    },
    Rule {
        id: "mailer.method-not-wrapped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Mailer,
        trigger: "an instance method of an Action Mailer class (its superclass reaches `ActionMailer::Base` through the app's classes) with a required keyword parameter (`user_id:`; an optional one is forwarded by position) or a block parameter: Roundhouse gives each mailer method a class-side twin that forwards its arguments by position, and writes none for these, so `Mailer.method(…)` raises NoMethodError (the compiler: `mailer method `x` gets no class-side wrapper`)",
        ..CONSTRUCT
    },
    Rule {
        id: "mailer.rest-arguments-nested",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Mailer,
        trigger: "an Action Mailer method with a rest parameter (`*ids`) its body reads, which Roundhouse gives a class-side twin: the twin takes `*ids` and passes it on as one array (`new.method(ids)`), so the method receives its arguments nested in another array. The compiler says nothing; its emitted mailer class shows it",
        ..CONSTRUCT
    },
    Rule {
        id: "library.parameters-not-ruby",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Library,
        trigger: "a method of a library class or module (`lib/`, a job, a mailer, a helper, a plain class under `app/models`) with `**options` beside a rest parameter (`*args`) or a required keyword (`name:`), which Roundhouse writes as a positional `options = {}` after them, or (with neither) an optional keyword named like a Ruby keyword (`class: nil`), which it writes as a positional `class = nil`: neither is Ruby, so the emitted file does not parse and the compiled app does not boot. The compiler says nothing; its emitted file shows it",
        ..CONSTRUCT
    },
    Rule {
        id: "library.class-body-call-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Library,
        trigger: "a receiver-less call in the body of a class or module the compiler reads as a library class (a job, a mailer, a service, a policy, a form object, a concern's own body), other than `include`, `attr_*`/`cattr_*`/`mattr_*`, `extend self`, `module_function`, `private` and the like, `included`/`class_methods` and `extend ActiveSupport::Concern`: `queue_as`, `retry_on`, `sidekiq_options`, `alias_method`, `attribute`, `validates`, `helper`, `layout`, gems' macros. The compiler keeps them only in a class whose base is a gem's (`< Parslet::Parser`); elsewhere it drops them (`` `x` in the body of `Y` is not modelled and is dropped ``). A model's subclass is `model.unsupported-macro`'s",
        ..CONSTRUCT
    },
    Rule {
        id: "library.delegates-lost",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Library,
        trigger: "a `delegate` Roundhouse cannot write as a method, in a plain class it reads as a library class (a class in `app/models` that is not a model, `lib/`, a job, a model's subclass): a setter (`delegate :x=, to: :y`) or a keyword target (`to: :class`). It writes every plain `delegate` of the class in one piece of Ruby, which that one makes unparsable, so the class gets none of them (the survey records a `<delegate>` gap)",
        ..CONSTRUCT
    },
    Rule {
        id: "model.reopened-without-superclass",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Model,
        trigger: "`class Post` without a superclass in another file the compiler reads (`app/models/post/labels.rb` with `class Post; module Labels`, a reopening in `lib/`): Roundhouse writes the compiled model from the reopening, a plain class, and the model keeps only its scopes",
        ..CONSTRUCT
    },
    Rule {
        id: "views.statement-dropped",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Views,
        trigger: "a code tag's statement Roundhouse's view lowering drops with everything inside it: a helper's block (`<% dialog.with_body do %>`, `- custom_field.with(:x) do`, `each_with_index do`), a call without a receiver other than `render`/`content_for` (`<% page_title \"x\" %>`, `- title t(\".t\")`), `next`/`break`/`return`, `a, b = …`, `a && b`, `x&.y`, `begin … rescue` — the compiler warns `template statement dropped`",
        ..CONSTRUCT
    },
    Rule {
        id: "views.unterminated-tag",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Views,
        trigger: "a `<%` with no closing `%>`: Erubi keeps it as text, Roundhouse's ingest crashes on the whole app",
        ..CONSTRUCT
    },
    Rule {
        id: "views.crlf-template",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Views,
        trigger: "a template with CRLF line endings: Roundhouse keeps `\\r` in the output, Rails drops it",
        ..CONSTRUCT
    },
    Rule {
        id: "initializer.not-read",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Initializer,
        trigger: "initializer statements Roundhouse does not read: anything but `config.<key> =` / `Rails.application.config.<key> =` assignments (also inside `Rails.application.configure do … end`), `config.x.…`, `Time::DATE_FORMATS[…] =` and `ActiveSupport::TimeFormats.register` at the file's top level with a string or a one-parameter lambda (not `Date::DATE_FORMATS`), the `session_store` key, and statements that `require` files (an initializer can make Roundhouse read a `lib/` folder that way)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "initializer.inflection-ignored",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Initializer,
        trigger: "`ActiveSupport::Inflector.inflections { \\|i\\| i.acronym/irregular/plural/singular/uncountable … }` — Roundhouse names classes and files with Rails' default inflections, so emitted names may differ",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "initializer.monkey-patch",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Initializer,
        trigger: "an initializer that reopens a core or framework class (`class String`, `module ActiveRecord`, `X.prepend`, `X.include` at top level) — not carried into any emitted tree",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "jruby.c-extension",
        severity: Severity::Warning,
        targets: JRUBY,
        family: Family::Jruby,
        trigger: "app code that names the sqlite3 gem's API (`SQLite3::Database`, `SQLite3::BusyException`…): the JVM tree reaches SQLite through JDBC and does not load that gem, so the name is undefined there",
        ..CONSTRUCT
    },
    Rule {
        id: "spinel.dynamic-dispatch",
        severity: Severity::Warning,
        targets: SPINEL,
        family: Family::Spinel,
        trigger: "`send`/`__send__`/`public_send`, `instance_variable_get/set`, `define_method`, `class_eval`/`instance_eval`/`module_eval`, `eval`, `method_missing`, `Thread.new`, `Mutex.new` in app code Roundhouse compiles (not in a library class's class-body loop, which it does not read) — target **spinel** only",
        ..CONSTRUCT
    },
    Rule {
        id: "spinel.test-lane",
        severity: Severity::Info,
        targets: SPINEL,
        family: Family::Spinel,
        trigger: "a compiled test (test/models, test/controllers) whose class inherits from `ActiveSupport::TestCase`, `Minitest::Test` or `ActionDispatch::IntegrationTest`: Roundhouse turns it into a `TestBase` test, which the Spinel tree compiles ahead of time at `test/<name>_test.rb` — target **spinel** only",
        ..CONSTRUCT
    },
    Rule {
        id: "fixtures.unsupported-value",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Fixtures,
        trigger: "a `test/fixtures/*.yml` (or `.yaml`) field whose value is a list or a hash (`[]`, `{}`, `- a`, nested keys, a `<<:` merge), an ERB tag inside a larger value, an ERB-made label, a label whose value is ERB or anything else but its fields (`~`, a string, a list), or a file that is a list",
        ..CONSTRUCT
    },
    Rule {
        id: "rails.unknown-route-helper",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Rails,
        trigger: "`foo_path`/`foo_url` with no route named `foo`",
        subject: Subject::Reading,
        fix: Some(Fix::SuggestedName),
        ..CONSTRUCT
    },
    Rule {
        id: "rails.missing-action",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "a route whose `controller#action` has no controller or no action (and no template for an implicit action)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.missing-template",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "`render \"x\"`/`render partial: \"x\"`/implicit render with no matching template",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.unknown-association",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "`includes(:x)`, `has_many … through: :x` naming no association",
        subject: Subject::Reading,
        fix: Some(Fix::SuggestedName),
        ..CONSTRUCT
    },
    Rule {
        id: "rails.unknown-column",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "`where(x:)`, `find_by(x:)`, `order(:x)`, `pluck(:x)`, `validates :x` naming no column, association or attribute of the model (whose table the schema has)",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.pending-migration",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "a migration in db/migrate newer than the version `db/schema.rb` (or `db/structure.sql`) was dumped at",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.unset-instance-variable",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "a template reads `@x` that no action rendering it, no filter, helper or view ever assigns",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.unused-instance-variable",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Rails,
        trigger: "an action assigns `@x` and renders its template, and nothing that template renders (partials, layouts), no helper and no code of the controller reads `@x`",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.partial-locals",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "a `render` of a partial with a `locals:` comment that leaves out a required local or passes one it does not declare",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "rails.missing-translation",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Rails,
        trigger: "`t(\"a.b\")` or `t(\".b\")` (no `default:`) with no such key in the default locale's YAML",
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.forked-workers",
        severity: Severity::Warning,
        targets: RUBY_FAMILY,
        family: Family::Lanes,
        trigger: "`workers` in `config/puma.rb` (or `puma -w N` in a Procfile or Dockerfile) that forks by default, unless the file keeps it off runtimes that cannot fork",
        lanes: THREADED,
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.forking-process",
        severity: Severity::Warning,
        targets: RUBY_FAMILY,
        family: Family::Lanes,
        trigger: "a Procfile or Dockerfile command that starts a forking tool: `resque-pool`, Unicorn",
        lanes: THREADED,
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.fork-call",
        severity: Severity::Warning,
        targets: RUBY_FAMILY,
        family: Family::Lanes,
        trigger: "`fork`, `Process.fork`, `Kernel.fork` or `Process.daemon` in the app's code",
        lanes: THREADED,
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.forked-state",
        severity: Severity::Warning,
        targets: RUBY,
        family: Family::Lanes,
        trigger: "Puma forks workers by default, and the app broadcasts live updates (which the CRuby tree delivers from an Action Cable registry inside each worker) or Rails caches in `:memory_store` in production (one cache per worker)",
        lanes: &[Lane::Ruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.no-jvm-build",
        severity: Severity::Warning,
        targets: &[Target::Jruby],
        family: Family::Lanes,
        trigger: "a gem the lockfile installs on JRuby that builds a C extension and has no JVM build",
        lanes: &[Lane::Jruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.lockfile-without-java",
        severity: Severity::Warning,
        targets: &[Target::Jruby],
        family: Family::Lanes,
        trigger: "a lockfile whose `PLATFORMS` lacks `java` while it resolves gems that ship separate JVM builds",
        lanes: &[Lane::Jruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.cext-lock",
        severity: Severity::Warning,
        targets: RUBY,
        family: Family::Lanes,
        trigger: "a C extension on the request path (database driver, server, WebSocket) that does not declare itself thread-safe: TruffleRuby runs it under its global C-extension lock",
        lanes: &[Lane::Truffleruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.platform-only-lockfile",
        severity: Severity::Warning,
        targets: RUBY,
        family: Family::Lanes,
        trigger: "a lockfile whose `PLATFORMS` lacks `ruby` and that resolves gems only to precompiled platform variants",
        lanes: &[Lane::Truffleruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.parallel-test-processes",
        severity: Severity::Warning,
        targets: RUBY_FAMILY,
        family: Family::Lanes,
        trigger: "`parallelize(workers: …)` in a test helper without `with: :threads` (Rails forks test processes)",
        lanes: THREADED,
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.object-space",
        severity: Severity::Warning,
        targets: &[Target::Jruby],
        family: Family::Lanes,
        trigger: "`ObjectSpace.each_object(X)` for `X` other than `Class` or `Module` (JRuby disables it by default)",
        lanes: &[Lane::Jruby],
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "lanes.shared-state",
        severity: Severity::Info,
        targets: RUBY_FAMILY,
        family: Family::Lanes,
        trigger: "state of the whole process written at run time: a class's instance variable written in a class method, `Dir.chdir`",
        lanes: THREADED,
        subject: Subject::Reading,
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.unsupported",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[unsupported]`: a construct its lowering does not support, named at its line (reported by `--check --exact` where no finding of Switchyard's own says it within a line)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.lower_residue",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[lower_residue]`: what its lowering left behind — a statement dropped, an option ignored, a chain left to run dynamically (reported by `--check --exact` where no finding of Switchyard's own says it within a line)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.blank_unlowered",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[blank_unlowered]`: a `blank?`/`present?` its lowering did not rewrite (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.missing_preload",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[missing_preload]`: a loop reads an association its query did not preload, an N+1 (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.ivar_unresolved",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[ivar_unresolved]`: an instance variable its type analysis cannot type (`roundhouse-check` counts it an error; reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.send_dispatch_failed",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[send_dispatch_failed]`: a call its type analysis finds no method for on the receiver's type (`roundhouse-check` counts it an error; reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.incompatible_binop",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[incompatible_binop]`: an operator its type analysis finds applied to types that do not take it (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.parse",
        severity: Severity::Error,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[parse]`: a file its parser does not read (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.unresolved_type",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[unresolved_type]`: an expression its type analysis leaves untyped; thousands in a real app, so off unless `--rule` names it or `switchyard.toml` gives it a level (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.gradual_untyped",
        severity: Severity::Info,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "the compiler's `warning[gradual_untyped]`: an expression typed `untyped` through a signature (a gradual escape); off unless `--rule` names it or `switchyard.toml` gives it a level (reported by `--check --exact`)",
        ..CONSTRUCT
    },
    Rule {
        id: "roundhouse.other",
        severity: Severity::Warning,
        targets: ALL,
        family: Family::Roundhouse,
        trigger: "any other line of the compiler's with a file and a line (a kind this version does not know, or none); its message starts with the compiler's own kind (reported by `--check --exact`)",
        ..CONSTRUCT
    },
];

pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The rule a line of the compiler's of `kind` (`lower_residue`; `None` for a line without one) is
/// reported under: `roundhouse.<kind>`, or `roundhouse.other` for a kind this version does not know.
pub fn compiler_rule(kind: Option<&str>) -> RuleId {
    let known =
        kind.and_then(|kind| RULES.iter().find(|r| r.family == Family::Roundhouse && r.id.strip_prefix("roundhouse.") == Some(kind)));
    known.map_or(rule!("roundhouse.other"), |r| RuleId::from_catalogue(r.id, r.family))
}

/// Rules reported only when asked for by name (`--rule`) or given a level in `switchyard.toml`: the
/// compiler's type notes, tens of thousands in a real app.
pub const QUIET: &[&str] = &["roundhouse.unresolved_type", "roundhouse.gradual_untyped"];

/// Which of Switchyard's findings already say what a compiler line says, when within a line of it:
/// the line is then not repeated. Every `warning[unsupported]` is what one of the compiler's own
/// rules reports (measured: FIDELITY.md, "Warnings covered"); a `warning[lower_residue]` is, for
/// the lowering whose message it carries.
struct Echo {
    kind: &'static str,
    /// A part of the compiler's message; empty for any.
    message: &'static str,
    /// The rules that say it; empty for every rule about the compiler (not `rails.*`, `lanes.*`,
    /// `roundhouse.*` or Switchyard's own).
    rules: &'static [&'static str],
}

const ECHOES: &[Echo] = &[
    Echo { kind: "lower_residue", message: "options are dropped under inline job semantics", rules: &["job.runs-inline"] },
    Echo { kind: "lower_residue", message: "do not forward positionally", rules: &["job.perform-not-wrapped"] },
    Echo { kind: "lower_residue", message: "the wrapper cannot forward a block", rules: &["job.perform-not-wrapped"] },
    Echo { kind: "unsupported", message: "", rules: &[] },
    Echo { kind: "lower_residue", message: "template statement dropped", rules: &["views.statement-dropped"] },
    Echo {
        kind: "lower_residue",
        message: "is not modelled and is dropped",
        rules: &["model.unsupported-macro", "library.class-body-call-dropped"],
    },
    Echo { kind: "lower_residue", message: "arm `format.json` dropped", rules: &["controller.json-format-dropped"] },
    Echo { kind: "lower_residue", message: "(format not modeled)", rules: &["controller.format-arm-dropped"] },
    Echo { kind: "lower_residue", message: "is array-valued", rules: &["controller.permit-key-dropped"] },
    Echo { kind: "lower_residue", message: "has no writer on", rules: &["controller.permit-field-no-writer"] },
    Echo { kind: "lower_residue", message: "`to_fs` left in source shape", rules: &["syntax.to-fs-not-expanded"] },
    Echo { kind: "lower_residue", message: "`errors.add` left as dynamic dispatch", rules: &["model.errors-add-dynamic"] },
    Echo { kind: "lower_residue", message: "`errors[:field]` left as dynamic dispatch", rules: &["model.errors-index-dynamic"] },
    Echo { kind: "missing_preload", message: "", rules: &["model.missing-preload"] },
    Echo { kind: "lower_residue", message: "gets no class-side wrapper", rules: &["mailer.method-not-wrapped"] },
    Echo { kind: "parse", message: "", rules: &["syntax.parse-error", "views.template-parse-error"] },
];

/// Whether a finding of `rule` says what the compiler's line of `kind` with `message` says.
pub fn echoes(rule: RuleId, kind: Option<&str>, message: &str) -> bool {
    let Some(kind) = kind else { return false };
    let about_the_compiler = |id: &str| self::rule(id).is_some_and(|r| r.family.about_the_compiler());
    ECHOES.iter().any(|echo| {
        echo.kind == kind
            && message.contains(echo.message)
            && if echo.rules.is_empty() { about_the_compiler(&rule) } else { echo.rules.contains(&rule.as_str()) }
    })
}

/// Switchyard's own diagnostics: about its settings and comments, not about Roundhouse (their pages are
/// `rule_docs::OWN`).
pub const OWN: &[&str] = &["switchyard.unused-suppression", "switchyard.config", "switchyard.skipped-file", "switchyard.unexpanded-routes"];

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `id` as a rule id; in a `const` (as `rule!` puts it) a missing id fails the build.
pub const fn known(id: &'static str) -> RuleId {
    let mut i = 0;
    while i < RULES.len() {
        if same(RULES[i].id, id) {
            return RuleId::from_catalogue(RULES[i].id, RULES[i].family);
        }
        i += 1;
    }
    let mut j = 0;
    while j < OWN.len() {
        if same(OWN[j], id) {
            return RuleId::from_catalogue(OWN[j], Family::Switchyard);
        }
        j += 1;
    }
    panic!("not a rule id: add it to roundhouse::catalogue first")
}

/// An id that arrives as text (a query's capture name, a setting), if it is one.
pub fn lookup(id: &str) -> Option<RuleId> {
    match RULES.iter().find(|r| r.id == id) {
        Some(r) => Some(RuleId::from_catalogue(r.id, r.family)),
        None => OWN.iter().find(|r| **r == id).map(|r| RuleId::from_catalogue(r, Family::Switchyard)),
    }
}

/// What the severities mean, for `explain`.
pub fn severity_meaning(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => {
            "Roundhouse refuses the app (strict ingest aborts, or an error blocks `roundhouse --target` unless `--allow-unsupported`)."
        }
        Severity::Warning => {
            "It compiles, but the emitted app behaves differently from Rails (a drop, an ignored option, a template that will not render)."
        }
        Severity::Info => "A fact to know: not read, lands elsewhere, lane membership.",
    }
}

/// The rewrite `rule`'s quick fix makes, if it has one.
pub fn fix(rule: RuleId) -> Option<Fix> {
    if rule == rule!("switchyard.unused-suppression") {
        return Some(Fix::RemoveComment);
    }
    self::rule(&rule)?.fix
}

/// What findings of `rule` are about (Switchyard's own are about how files are read and set up).
pub fn subject(rule: RuleId) -> Subject {
    self::rule(&rule).map_or(Subject::Reading, |r| r.subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule id outside this file is a `rule!` (checked when the crate builds) or a `RuleId`
    /// read back through `lookup`: no code compares a rule with a string of its own or tests its
    /// family by the id's prefix. Test modules and comments may quote ids.
    #[test]
    fn no_rule_id_is_matched_as_a_string_outside_the_catalogue() {
        let ids: Vec<&str> = RULES.iter().map(|r| r.id).chain(OWN.iter().copied()).collect();
        let prefixes: Vec<String> = RULES.iter().map(|r| format!("starts_with(\"{}.\")", r.family.as_str())).collect();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        for entry in ignore::WalkBuilder::new(&src).build().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("catalogue.rs") || path.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (n, line) in code.lines().enumerate() {
                let line = line.split("//").next().unwrap_or("");
                let quoted = ids.iter().any(|id| {
                    let literal = format!("\"{id}\"");
                    line.match_indices(&literal).any(|(at, _)| !line[..at].ends_with("rule!("))
                });
                if quoted || prefixes.iter().any(|p| line.contains(p.as_str())) {
                    found.push(format!("{}:{}: {}", path.strip_prefix(&src).unwrap().display(), n + 1, line.trim()));
                }
            }
        }
        assert!(
            found.is_empty(),
            "rule ids matched as strings (use `rule!`, `RuleId::family` or the catalogue's data):\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn a_rule_is_filed_under_the_family_its_id_names() {
        for rule in RULES {
            assert_eq!(rule.id.split('.').next(), Some(rule.family.as_str()), "{} is filed under {:?}", rule.id, rule.family);
        }
    }
}

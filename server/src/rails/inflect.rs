//! ActiveSupport's default English inflections (`active_support/inflections.rb`), rule for rule, and
//! the naming helpers built on them: `Post` ⇄ `posts` ⇄ `PostsController` ⇄ `app/models/post.rb`.
//!
//! Rules are tried newest first, as ActiveSupport does; irregulars and uncountables behave as there.
//! App-defined inflections (`config/initializers/inflections.rb`) are not applied here: Roundhouse
//! names things with the defaults too (that difference is rule `initializer.inflection-ignored`).

use std::sync::LazyLock;

// `regex-lite`: ActiveSupport's rules are about ASCII letters and match short words, which its
// backtracker does at once. The full `regex` crate builds several engines per pattern: its eighty
// patterns took 1.6 MiB, a tenth of a small app's peak memory, and compiling them with Unicode
// `(?i)` was once the largest part of a warm `--check` on a small app.
use regex_lite::Regex;

fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

/// ActiveSupport's `irregular`: the rules it adds keep the first letter's case, each matching
/// either form (the singular's pattern, then the plural's) and writing the plural or the singular.
struct Irregular {
    patterns: [Regex; 2],
    to_plural: String,
    to_singular: String,
}

fn irregular(singular: &str, plural: &str) -> Option<Irregular> {
    let (s0, p0) = (singular.chars().next()?, plural.chars().next()?);
    let (srest, prest) = (&singular[s0.len_utf8()..], &plural[p0.len_utf8()..]);
    let pattern =
        |first: char, rest: &str| regex(&format!("(?i)({}){}$", regex_lite::escape(&first.to_string()), regex_lite::escape(rest)));
    Some(Irregular {
        patterns: [pattern(s0, srest)?, pattern(p0, prest)?],
        to_plural: format!("${{1}}{prest}"),
        to_singular: format!("${{1}}{srest}"),
    })
}

/// ActiveSupport's uncountable test: the word at the end of a word that starts there (`/\bsheep\Z/i`).
fn uncountable(word: &str) -> Option<Regex> {
    regex(&format!(r"(?i)\b{}$", regex_lite::escape(word)))
}

struct Rules {
    plurals: Vec<(Regex, &'static str)>,
    singulars: Vec<(Regex, &'static str)>,
    uncountables: Vec<Regex>,
}

const PLURALS: &[(&str, &str)] = &[
    ("$", "s"),
    ("(?i)s$", "s"),
    ("(?i)^(ax|test)is$", "${1}es"),
    ("(?i)(octop|vir)us$", "${1}i"),
    ("(?i)(octop|vir)i$", "${1}i"),
    ("(?i)(alias|status)$", "${1}es"),
    ("(?i)(bu)s$", "${1}ses"),
    ("(?i)(buffal|tomat)o$", "${1}oes"),
    ("(?i)([ti])um$", "${1}a"),
    ("(?i)([ti])a$", "${1}a"),
    ("(?i)sis$", "ses"),
    ("(?i)(?:([^f])fe|([lr])f)$", "${1}${2}ves"),
    ("(?i)(hive)$", "${1}s"),
    ("(?i)([^aeiouy]|qu)y$", "${1}ies"),
    ("(?i)(x|ch|ss|sh)$", "${1}es"),
    ("(?i)(matr|vert|ind)(?:ix|ex)$", "${1}ices"),
    ("(?i)^(m|l)ouse$", "${1}ice"),
    ("(?i)^(m|l)ice$", "${1}ice"),
    ("(?i)^(ox)$", "${1}en"),
    ("(?i)^(oxen)$", "${1}"),
    ("(?i)(quiz)$", "${1}zes"),
];

const SINGULARS: &[(&str, &str)] = &[
    ("(?i)s$", ""),
    ("(?i)(ss)$", "${1}"),
    ("(?i)(n)ews$", "${1}ews"),
    ("(?i)([ti])a$", "${1}um"),
    ("(?i)((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$", "${1}sis"),
    ("(?i)(^analy)(sis|ses)$", "${1}sis"),
    ("(?i)([^f])ves$", "${1}fe"),
    ("(?i)(hive)s$", "${1}"),
    ("(?i)(tive)s$", "${1}"),
    ("(?i)([lr])ves$", "${1}f"),
    ("(?i)([^aeiouy]|qu)ies$", "${1}y"),
    ("(?i)(s)eries$", "${1}eries"),
    ("(?i)(m)ovies$", "${1}ovie"),
    ("(?i)(x|ch|ss|sh)es$", "${1}"),
    ("(?i)^(m|l)ice$", "${1}ouse"),
    ("(?i)(bus)(es)?$", "${1}"),
    ("(?i)(o)es$", "${1}"),
    ("(?i)(shoe)s$", "${1}"),
    ("(?i)(cris|test)(is|es)$", "${1}is"),
    ("(?i)^(a)x[ie]s$", "${1}xis"),
    ("(?i)(octop|vir)(us|i)$", "${1}us"),
    ("(?i)(alias|status)(es)?$", "${1}"),
    ("(?i)^(ox)en", "${1}"),
    ("(?i)(vert|ind)ices$", "${1}ex"),
    ("(?i)(matr)ices$", "${1}ix"),
    ("(?i)(quiz)zes$", "${1}"),
    ("(?i)(database)s$", "${1}"),
];

const IRREGULARS: &[(&str, &str)] =
    &[("person", "people"), ("man", "men"), ("child", "children"), ("sex", "sexes"), ("move", "moves"), ("zombie", "zombies")];

const UNCOUNTABLES: &[&str] = &["equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "jeans", "police"];

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    // Patterns are constants checked by the tests below; a bad one is skipped rather than panicking.
    let compile = |list: &[(&str, &'static str)]| -> Vec<(Regex, &'static str)> {
        list.iter().filter_map(|(p, r)| regex(p).map(|re| (re, *r))).collect()
    };
    let mut plurals = compile(PLURALS);
    let mut singulars = compile(SINGULARS);
    for (singular, plural) in IRREGULARS {
        let Some(Irregular { patterns, to_plural, to_singular }) = irregular(singular, plural) else { continue };
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let (to_plural, to_singular) = (leak(to_plural), leak(to_singular));
        for re in patterns {
            plurals.push((re.clone(), to_plural));
            singulars.push((re, to_singular));
        }
    }
    plurals.reverse();
    singulars.reverse();
    let uncountables = UNCOUNTABLES.iter().filter_map(|w| uncountable(w)).collect();
    Rules { plurals, singulars, uncountables }
});

fn apply(word: &str, rules: &[(Regex, &'static str)]) -> String {
    if word.is_empty() || RULES.uncountables.iter().any(|re| re.is_match(word)) {
        return word.to_owned();
    }
    for (re, replacement) in rules {
        if re.is_match(word) {
            return re.replacen(word, 1, *replacement).into_owned();
        }
    }
    word.to_owned()
}

/// `apply`, remembered per thread: an app inflects the same model and association names over and
/// over, and trying eighty patterns newest first is the costly part. Cleared when it grows past a
/// bound (a long editing session inflects every prefix typed).
fn remembered(word: &str, plural: bool) -> String {
    use std::cell::RefCell;
    use std::collections::HashMap;
    const BOUND: usize = 4096;
    thread_local! {
        /// Singulars, plurals.
        static SEEN: RefCell<[HashMap<Box<str>, Box<str>>; 2]> = RefCell::new(Default::default());
    }
    SEEN.with_borrow_mut(|seen| {
        let seen = &mut seen[usize::from(plural)];
        if let Some(known) = seen.get(word) {
            return known.to_string();
        }
        let inflected = apply(word, if plural { &RULES.plurals } else { &RULES.singulars });
        if seen.len() >= BOUND {
            seen.clear();
        }
        seen.insert(Box::from(word), Box::from(inflected.as_str()));
        inflected
    })
}

pub fn pluralize(word: &str) -> String {
    remembered(word, true)
}

pub fn singularize(word: &str) -> String {
    remembered(word, false)
}

/// `Admin::UserProfile` → `admin/user_profile`.
pub fn underscore(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    let chars: Vec<char> = camel.replace("::", "/").chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower) {
                out.push('_');
            }
        }
        out.push(if c == '-' { '_' } else { c.to_ascii_lowercase() });
    }
    out
}

/// `admin/user_profile` → `Admin::UserProfile`.
pub fn camelize(snake: &str) -> String {
    camelize_with(snake, &[])
}

/// ActiveSupport's `camelize` with the app's acronyms: each word that is an acronym when
/// lower-cased is written as the acronym (`api/v1/sso` with `API`, `SSO` → `API::V1::SSO`).
pub fn camelize_with(snake: &str, acronyms: &[String]) -> String {
    snake
        .split('/')
        .map(|segment| {
            segment
                .split('_')
                .map(|part| match acronyms.iter().find(|a| a.to_lowercase() == part) {
                    Some(acronym) => acronym.clone(),
                    None => {
                        let mut chars = part.chars();
                        chars.next().map_or_else(String::new, |first| first.to_ascii_uppercase().to_string() + chars.as_str())
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("::")
}

/// `Admin::Post` → `Post`.
pub fn demodulize(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

/// Rails' default foreign key for a model class (ActiveSupport's `foreign_key`): `Admin::LineItem` →
/// `line_item_id`.
pub fn foreign_key(class_name: &str) -> String {
    format!("{}_id", underscore(demodulize(class_name)))
}

/// Rails' default table name for a model class: `Admin::LineItem` → `line_items`.
pub fn tableize(class_name: &str) -> String {
    pluralize(&underscore(demodulize(class_name)))
}

/// `line_items` → `LineItem`.
pub fn classify(table_name: &str) -> String {
    let table = table_name.rsplit('.').next().unwrap_or(table_name);
    camelize(&singularize(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The app's rules as Rails applies them (answers from ActiveSupport 6.1 with the same
    /// `inflect.*` calls): uncountable first, then its rules newest first, then Active Support's.
    #[test]
    fn an_apps_inflections_come_before_active_supports() {
        use crate::syntax::value::Value;
        let s = |t: &str| Value::String(t.to_owned());
        let code = |t: &str| Value::Code(t.to_owned());
        let rules = [
            ("uncountable", vec![Value::Array(vec![s("totp")])]),
            ("plural", vec![code(r"%r{\A(call)(.*evidence)\z}i"), s(r"\1s\2")]),
            ("singular", vec![code(r"%r{\A(call)s(.*evidence)\z}i"), s(r"\1\2")]),
            ("irregular", vec![s("octopus"), s("octopodes")]),
            ("plural", vec![code("/^(ox)$/i"), s(r"\1en")]),
        ];
        let app = AppInflections::of(rules.iter().map(|(kind, arguments)| (*kind, arguments.as_slice())));
        assert_eq!(app.pluralize("totp"), "totp");
        assert_eq!(app.singularize("totp"), "totp");
        assert_eq!(app.pluralize("two_factor_totp"), "two_factor_totps", "`\\b` does not start at an underscore");
        assert_eq!(app.singularize("calls_for_evidence"), "call_for_evidence");
        assert_eq!(app.pluralize("call_for_evidence"), "calls_for_evidence");
        assert_eq!(app.pluralize("octopus"), "octopodes");
        assert_eq!(app.singularize("octopodes"), "octopus");
        assert_eq!(app.pluralize("ox"), "oxen");
        assert_eq!(app.pluralize("post"), "posts");
        assert_eq!(AppInflections::default().singularize("calls_for_evidence"), "calls_for_evidence");
    }

    /// Pairs from ActiveSupport's own inflector test cases (`SingularToPlural`).
    const SINGULAR_TO_PLURAL: &[(&str, &str)] = &[
        ("search", "searches"),
        ("switch", "switches"),
        ("fix", "fixes"),
        ("box", "boxes"),
        ("process", "processes"),
        ("address", "addresses"),
        ("case", "cases"),
        ("stack", "stacks"),
        ("wish", "wishes"),
        ("fish", "fish"),
        ("jeans", "jeans"),
        ("funky jeans", "funky jeans"),
        ("my money", "my money"),
        ("category", "categories"),
        ("query", "queries"),
        ("ability", "abilities"),
        ("agency", "agencies"),
        ("movie", "movies"),
        ("archive", "archives"),
        ("index", "indices"),
        ("wife", "wives"),
        ("safe", "saves"),
        ("half", "halves"),
        ("move", "moves"),
        ("salesperson", "salespeople"),
        ("person", "people"),
        ("spokesman", "spokesmen"),
        ("man", "men"),
        ("woman", "women"),
        ("basis", "bases"),
        ("diagnosis", "diagnoses"),
        ("diagnosis_a", "diagnosis_as"),
        ("datum", "data"),
        ("medium", "media"),
        ("stadium", "stadia"),
        ("analysis", "analyses"),
        ("my_analysis", "my_analyses"),
        ("node_child", "node_children"),
        ("child", "children"),
        ("experience", "experiences"),
        ("day", "days"),
        ("comment", "comments"),
        ("foobar", "foobars"),
        ("newsletter", "newsletters"),
        ("old_news", "old_news"),
        ("news", "news"),
        ("series", "series"),
        ("species", "species"),
        ("quiz", "quizzes"),
        ("perspective", "perspectives"),
        ("ox", "oxen"),
        ("photo", "photos"),
        ("buffalo", "buffaloes"),
        ("tomato", "tomatoes"),
        ("dwarf", "dwarves"),
        ("elf", "elves"),
        ("information", "information"),
        ("equipment", "equipment"),
        ("mouse", "mice"),
        ("louse", "lice"),
        ("house", "houses"),
        ("virus", "viri"),
        ("alias", "aliases"),
        ("octopus", "octopi"),
        ("status", "statuses"),
        ("vertex", "vertices"),
        ("matrix", "matrices"),
        ("axis", "axes"),
        ("testis", "testes"),
        ("crisis", "crises"),
        ("rice", "rice"),
        ("shoe", "shoes"),
        ("horse", "horses"),
        ("prize", "prizes"),
        ("edge", "edges"),
        ("database", "databases"),
        ("|ice", "|ices"),
        ("|ouse", "|ouses"),
        ("slice", "slices"),
        ("police", "police"),
    ];

    #[test]
    fn pluralizes_and_singularizes_like_active_support() {
        for (singular, plural) in SINGULAR_TO_PLURAL {
            assert_eq!(pluralize(singular), *plural, "pluralize({singular})");
            assert_eq!(singularize(plural), *singular, "singularize({plural})");
        }
        assert_eq!(pluralize("Person"), "People");
    }

    #[test]
    fn names_tables_and_classes() {
        assert_eq!(underscore("Admin::UserProfile"), "admin/user_profile");
        assert_eq!(underscore("HTMLParser"), "html_parser");
        assert_eq!(underscore("Html5Thing"), "html5_thing");
        assert_eq!(camelize("admin/user_profile"), "Admin::UserProfile");
        assert_eq!(tableize("Admin::LineItem"), "line_items");
        assert_eq!(tableize("Person"), "people");
        assert_eq!(classify("categories"), "Category");
        assert_eq!(classify("schema.line_items"), "LineItem");
    }
}

/// The inflections an app adds (`inflect.acronym`, `plural`, `singular`, `irregular`, `uncountable` in
/// `config/initializers/inflections.rb`, or in an engine class's initializer), applied before Active
/// Support's own as Rails applies them: an uncountable word is left as it is, then the app's rules
/// newest first, the first that matches.
#[derive(Debug, Clone, Default)]
pub struct AppInflections {
    /// `inflect.acronym "API"`: `api` camelizes to `API`.
    acronyms: Vec<String>,
    uncountables: Vec<Regex>,
    /// (pattern, replacement in `regex_lite`'s syntax), newest first.
    plurals: Vec<(Regex, String)>,
    singulars: Vec<(Regex, String)>,
}

impl AppInflections {
    /// The app's: its initializers' `inflect.*` calls, and the acronyms an engine class of the app
    /// sets in an initializer block (`initializer "api.inflections" do … inflect.acronym("API")`),
    /// which apply app-wide.
    pub fn of_app(files: &[std::sync::Arc<super::FileFacts>]) -> AppInflections {
        let mut out = AppInflections::of(
            files
                .iter()
                .filter_map(|f| f.config.as_ref())
                .flat_map(|c| c.inflections.iter())
                .map(|r| (r.kind.as_str(), r.arguments.as_slice())),
        );
        for file in files.iter().filter(|f| super::project::is_engine_class(&f.relative_path)) {
            crate::syntax::outline::visit_calls(&file.outline.items, &mut |call| {
                if call.method == "acronym" && call.receiver.as_deref() == Some("inflect") {
                    out.acronyms.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(str::to_owned));
                }
            });
        }
        out
    }

    /// Read from the `inflect.*` calls, in the order the app makes them (`kind`, arguments). A rule
    /// whose pattern `regex_lite` cannot take is left out.
    pub fn of<'a>(rules: impl IntoIterator<Item = (&'a str, &'a [crate::syntax::value::Value])>) -> AppInflections {
        use crate::syntax::value::Value;
        let mut out = AppInflections::default();
        let text = |v: &Value| match v {
            Value::String(s) | Value::Symbol(s) => Some((s.clone(), false)),
            Value::Code(code) => Some((code.clone(), true)),
            _ => None,
        };
        for (kind, arguments) in rules {
            match (kind, arguments) {
                ("acronym", words) => out.acronyms.extend(words.iter().filter_map(Value::as_name).map(str::to_owned)),
                ("uncountable", words) => out.uncountables.extend(words.iter().flat_map(Value::names).filter_map(|w| uncountable(&w))),
                ("plural" | "singular", [rule, replacement]) => {
                    let (Some((rule, regex)), Some((replacement, _))) = (text(rule), text(replacement)) else { continue };
                    let pattern = if regex { ruby_regex(&rule) } else { Some(regex_lite::escape(&rule)) };
                    let Some(re) = pattern.and_then(|p| Regex::new(&p).ok()) else { continue };
                    let entry = (re, ruby_replacement(&replacement));
                    if kind == "plural" {
                        out.plurals.insert(0, entry);
                    } else {
                        out.singulars.insert(0, entry);
                    }
                }
                ("irregular", [singular, plural]) => {
                    let (Some((singular, _)), Some((plural, _))) = (text(singular), text(plural)) else { continue };
                    let Some(Irregular { patterns, to_plural, to_singular }) = irregular(&singular, &plural) else { continue };
                    for re in patterns {
                        out.plurals.insert(0, (re.clone(), to_plural.clone()));
                        out.singulars.insert(0, (re, to_singular.clone()));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// `camelize` with the app's acronyms.
    pub fn camelize(&self, snake: &str) -> String {
        camelize_with(snake, &self.acronyms)
    }

    pub fn pluralize(&self, word: &str) -> String {
        self.apply(word, &self.plurals).unwrap_or_else(|| pluralize(word))
    }

    pub fn singularize(&self, word: &str) -> String {
        self.apply(word, &self.singulars).unwrap_or_else(|| singularize(word))
    }

    /// The app's answer, if it has one: the word itself when uncountable (`/\btotp\z/i`), or its
    /// first rule that matches.
    fn apply(&self, word: &str, rules: &[(Regex, String)]) -> Option<String> {
        if self.uncountables.iter().any(|re| re.is_match(word)) {
            return Some(word.to_owned());
        }
        rules.iter().find(|(re, _)| re.is_match(word)).map(|(re, replacement)| re.replacen(word, 1, replacement.as_str()).into_owned())
    }
}

/// A Ruby regexp literal (`/^(ox)en/i`, `%r{\A(call)s(.*)\z}i`) in `regex_lite`'s syntax, or `None`
/// when it is not one.
fn ruby_regex(literal: &str) -> Option<String> {
    let (body, flags) = if let Some(rest) = literal.strip_prefix('/') {
        let end = rest.rfind('/')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let rest = literal.strip_prefix("%r")?;
        let open = rest.chars().next()?;
        let close = match open {
            '{' => '}',
            '(' => ')',
            '[' => ']',
            '<' => '>',
            other => other,
        };
        let end = rest.rfind(close)?;
        (&rest[open.len_utf8()..end], &rest[end + close.len_utf8()..])
    };
    let mut pattern = String::new();
    if flags.contains('i') {
        pattern.push_str("(?i)");
    }
    if flags.contains('m') {
        pattern.push_str("(?s)");
    }
    // Ruby's `\Z` (before a final newline) and `\h` (a hex digit) have no `regex_lite` spelling.
    pattern.push_str(&body.replace("\\Z", "\\z").replace("\\h", "[0-9a-fA-F]"));
    Some(pattern)
}

/// A Ruby replacement (`'\1s\2'`, `'\0s'`) in `regex_lite`'s syntax (`${1}s${2}`).
fn ruby_replacement(replacement: &str) -> String {
    let mut out = String::new();
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(d)) if d.is_ascii_digit() => {
                out.push_str(&format!("${{{d}}}"));
                chars.next();
            }
            ('$', _) => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    out
}

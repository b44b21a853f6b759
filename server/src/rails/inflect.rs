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
    // `irregular` adds four rules that keep the first letter's case (ActiveSupport's `irregular`).
    let irregular: Vec<(String, String, String, String)> = IRREGULARS
        .iter()
        .map(|(s, p)| {
            let (s0, srest) = s.split_at(1);
            let (p0, prest) = p.split_at(1);
            (format!("(?i)({s0}){srest}$"), format!("(?i)({p0}){prest}$"), format!("${{1}}{prest}"), format!("${{1}}{srest}"))
        })
        .collect();
    for (singular_re, plural_re, to_plural, to_singular) in irregular {
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let (to_plural, to_singular) = (leak(to_plural), leak(to_singular));
        plurals.extend(regex(&singular_re).map(|re| (re, to_plural)));
        plurals.extend(regex(&plural_re).map(|re| (re, to_plural)));
        singulars.extend(regex(&singular_re).map(|re| (re, to_singular)));
        singulars.extend(regex(&plural_re).map(|re| (re, to_singular)));
    }
    plurals.reverse();
    singulars.reverse();
    let uncountables = UNCOUNTABLES.iter().filter_map(|w| regex(&format!(r"(?i)\b{w}$"))).collect();
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
    snake
        .split('/')
        .map(|segment| {
            segment
                .split('_')
                .map(|part| {
                    let mut chars = part.chars();
                    chars.next().map_or_else(String::new, |first| first.to_ascii_uppercase().to_string() + chars.as_str())
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("::")
}

/// ActiveSupport's `camelize` with the app's acronyms: each word that is an acronym when
/// lower-cased is written as the acronym (`api/v1/sso` with `API`, `SSO` → `API::V1::SSO`).
pub fn camelize_with(snake: &str, acronyms: &[String]) -> String {
    if acronyms.is_empty() {
        return camelize(snake);
    }
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

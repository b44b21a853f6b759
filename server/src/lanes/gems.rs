//! What Switchyard knows of gems, as data: `server/data/gems.toml`, one reviewed entry per gem with
//! where each fact comes from (the gem's own source at a version). Whether a gem builds a C
//! extension, whether it has a JVM build, whether its extension declares itself thread-safe
//! (`rb_ext_ractor_safe` / `rb_ext_thread_safe`, which TruffleRuby 25.0+ reads to run it outside its
//! global lock). What an app's lockfile proves itself (a `-java` variant, platform-only variants)
//! wins over this table; a gem the table does not know is judged on nothing.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Jvm {
    /// The project publishes a `-java` platform gem.
    Java,
    /// It loads on JRuby as plain Ruby.
    Pure,
    /// No JVM build: JRuby cannot load it.
    None,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GemFact {
    pub name: String,
    pub native: bool,
    pub jvm: Jvm,
    #[serde(default)]
    pub jvm_alternative: Option<String>,
    #[serde(default)]
    pub declares_thread_safe: Option<bool>,
    #[serde(default)]
    pub declares_thread_safe_since: Option<String>,
    #[serde(default)]
    pub checked_version: Option<String>,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
}

impl GemFact {
    /// Whether the extension of `version` declares itself thread-safe (`false` when unknown).
    pub fn declares_thread_safe_at(&self, version: &str) -> bool {
        match (self.declares_thread_safe, self.declares_thread_safe_since.as_deref()) {
            (Some(true), Some(since)) => version.is_empty() || !older(version, since),
            (Some(true), None) => true,
            _ => false,
        }
    }
}

/// Whether version `a` is older than `b`, segment by segment (`1.10` is newer than `1.9`; a
/// prerelease's letters compare as text).
pub fn older(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<Result<u64, String>> {
        v.trim_start_matches('v').split('.').map(|p| p.parse::<u64>().map_err(|_| p.to_owned())).collect()
    };
    let (a, b) = (parts(a), parts(b));
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).cloned().unwrap_or(Ok(0));
        let y = b.get(i).cloned().unwrap_or(Ok(0));
        let order = match (&x, &y) {
            (Ok(x), Ok(y)) => x.cmp(y),
            // `1.0.alpha` is older than `1.0.0`.
            (Err(_), Ok(_)) => std::cmp::Ordering::Less,
            (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
            (Err(x), Err(y)) => x.cmp(y),
        };
        if order != std::cmp::Ordering::Equal {
            return order == std::cmp::Ordering::Less;
        }
    }
    false
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    gem: Vec<GemFact>,
}

static TABLE: std::sync::LazyLock<Vec<GemFact>> = std::sync::LazyLock::new(|| {
    // The file is part of the build; a test holds it to the schema, so this cannot fail at run time.
    toml::from_str::<Table>(include_str!("../../data/gems.toml")).map(|t| t.gem).unwrap_or_default()
});

/// What the table says of `name`.
pub fn fact(name: &str) -> Option<&'static GemFact> {
    TABLE.iter().find(|g| g.name == name)
}

/// The precompiled gems TruffleRuby's Bundler keeps from a lockfile (its own allow-list: their
/// platform variants carry a binary, not an extension to build).
pub const TRUFFLERUBY_KEEPS_PRECOMPILED: &[&str] = &["libv8", "libv8-node", "sass-embedded", "sorbet-static", "tailwindcss-ruby"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_entry_names_its_sources() {
        let table: Table = toml::from_str(include_str!("../../data/gems.toml")).expect("server/data/gems.toml");
        assert!(table.gem.len() >= 20, "{} gems", table.gem.len());
        let mut names = std::collections::HashSet::new();
        for gem in &table.gem {
            assert!(names.insert(gem.name.as_str()), "{} twice", gem.name);
            assert!(!gem.sources.is_empty() && gem.sources.iter().all(|s| s.starts_with("https://")), "{} has no source", gem.name);
            assert!(gem.native || gem.declares_thread_safe.is_none(), "{}: a thread-safety declaration needs an extension", gem.name);
        }
        assert!(fact("sqlite3").is_some_and(|f| f.native && f.jvm == Jvm::None));
    }

    #[test]
    fn compares_versions_segment_by_segment() {
        assert!(older("1.9.0", "1.10.0"));
        assert!(!older("1.10.0", "1.9.0"));
        assert!(!older("2.0", "2.0.0"));
        assert!(older("2.0.0.rc1", "2.0.0"));
        assert!(older("v1.2", "1.3"));
    }
}

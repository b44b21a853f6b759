//! `switchyard.toml`: an app's own settings, read from its root (next to `config/routes.rb`).
//!
//! ```toml
//! targets = ["ruby", "jruby"]        # the Roundhouse targets whose rules apply
//! lanes = ["ruby", "truffleruby"]    # the runtime lanes whose `lanes.*` rules apply (default: the
//!                                    # targets' own: ruby, jruby, spinel)
//!
//! exclude = ["lib/legacy/**"]        # app-relative globs whose findings are never reported
//!
//! [rules]
//! "views.literal-tag" = "off"        # never report this rule
//! "model.scope-body" = "warning"  # report it at another severity: error, warning or info
//!
//! [roundhouse]                       # the compiler `--check --exact` runs (relative to the app)
//! binary = "../roundhouse/target/release/roundhouse"
//! checkout = "../roundhouse"         # where it runs (it reads runtime/); the binary's folder else
//! ```
//!
//! The file is checked as strictly as the command line: an unknown key, target, rule or level is an
//! error naming the line, so a typo never silently turns a rule back on.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::catalogue;
use crate::diagnostic::{Diagnostic, Severity};
use crate::roundhouse::tree::{Lane, Target};

pub const FILE_NAME: &str = "switchyard.toml";

/// The largest settings file read.
const MAX_SIZE: u64 = 1 << 20;

/// What a rule is set to in `[rules]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    Off,
    Severity(Severity),
}

impl RuleLevel {
    /// `off`, `info`, `warning` or `error`.
    pub fn parse(text: &str) -> Option<RuleLevel> {
        if text == "off" { Some(RuleLevel::Off) } else { Severity::parse(text).map(RuleLevel::Severity) }
    }

    /// The severity a finding at `default` is reported at (`None`: not reported).
    pub fn apply(level: Option<&RuleLevel>, default: Severity) -> Option<Severity> {
        match level {
            Some(RuleLevel::Off) => None,
            Some(RuleLevel::Severity(severity)) => Some(*severity),
            None => Some(default),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `targets`, when the file names them.
    pub targets: Option<Vec<Target>>,
    /// `lanes`, when the file names them.
    pub lanes: Option<Vec<Lane>>,
    pub rules: BTreeMap<String, RuleLevel>,
    /// `exclude`: globs of app-relative paths whose findings are never reported.
    pub exclude: Vec<String>,
    excluded: Option<globset::GlobSet>,
    /// `[roundhouse]` `binary` and `checkout`, as written (relative to the app's root unless
    /// absolute): the compiler `--check --exact` runs.
    pub roundhouse: Option<RoundhouseSetting>,
}

/// The compiler `--check --exact` runs, as `switchyard.toml` names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundhouseSetting {
    pub binary: String,
    /// The checkout it runs in (it reads `runtime/` there); the binary's folder when not given.
    pub checkout: Option<String>,
}

impl PartialEq for Config {
    fn eq(&self, other: &Config) -> bool {
        (&self.targets, &self.lanes, &self.rules, &self.exclude, &self.roundhouse)
            == (&other.targets, &other.lanes, &other.rules, &other.exclude, &other.roundhouse)
    }
}

impl Eq for Config {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    targets: Option<Vec<toml::Spanned<String>>>,
    lanes: Option<Vec<toml::Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<toml::Spanned<String>>,
    #[serde(default)]
    rules: BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
    roundhouse: Option<RoundhouseSetting>,
}

impl Config {
    /// Parses the file's text; the error names the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text)
            .map_err(|e| ConfigError { line: e.span().map(|span| line_of(text, span.start)), message: e.message().to_owned() })?;
        let targets = names(text, raw.targets.as_deref(), Target::parse, "target", "ruby, jruby or spinel")?;
        let lanes = names(text, raw.lanes.as_deref(), Lane::parse, "lane", "ruby, jruby, truffleruby or spinel")?;
        let mut rules = BTreeMap::new();
        for (id, level) in raw.rules {
            if catalogue::rule(id.get_ref()).is_none() && crate::diagnostic::rule::UNUSED_SUPPRESSION != id.get_ref().as_str() {
                return Err(ConfigError::at(text, id.span().start, format!("no rule `{}` (`switchyard rules` lists them)", id.get_ref())));
            }
            let parsed = RuleLevel::parse(level.get_ref()).ok_or_else(|| {
                let message = format!("`{}` is not a level for `{}` (off, info, warning or error)", level.get_ref(), id.get_ref());
                ConfigError::at(text, id.span().start, message)
            })?;
            rules.insert(id.into_inner(), parsed);
        }
        let mut globs = globset::GlobSetBuilder::new();
        for pattern in &raw.exclude {
            let glob = globset::GlobBuilder::new(pattern.get_ref().trim_start_matches("./"))
                .literal_separator(true)
                .build()
                .map_err(|e| ConfigError::at(text, pattern.span().start, format!("`{}` is not a glob: {}", pattern.get_ref(), e.kind())))?;
            // Matched on its own first, so a glob too complex to match (`**/**/**/…`, past the
            // matcher's size limit) is named on its line.
            let too_complex = |e: globset::Error| {
                let shown: String = pattern.get_ref().chars().take(60).collect();
                let more = if shown.len() < pattern.get_ref().len() { "…" } else { "" };
                ConfigError::at(text, pattern.span().start, format!("`{shown}{more}` is too complex a glob to match: {e}"))
            };
            globset::GlobSetBuilder::new().add(glob.clone()).build().map_err(too_complex)?;
            globs.add(glob);
        }
        let excluded = match raw.exclude.first() {
            None => None,
            Some(first) => Some(globs.build().map_err(|e| {
                ConfigError::at(text, first.span().start, format!("the `exclude` globs together are too complex to match: {e}"))
            })?),
        };
        let exclude = raw.exclude.into_iter().map(toml::Spanned::into_inner).collect();
        Ok(Config { targets, lanes, rules, exclude, excluded, roundhouse: raw.roundhouse })
    }

    /// Whether findings in the file at `relative_path` (from the app root, `/`-separated) are left out.
    pub fn excludes(&self, relative_path: &str) -> bool {
        self.excluded.as_ref().is_some_and(|set| set.is_match(relative_path))
    }

    /// The app's `switchyard.toml`, when it has one. The error starts with the file's path.
    pub fn load(app_root: &Path) -> Result<Option<Config>, String> {
        Config::load_located(app_root).map_err(|(path, e)| format!("{}: {e}", path.display()))
    }

    /// As `load`, with the file and the error apart (the editor puts the error on the file's line).
    pub fn load_located(app_root: &Path) -> Result<Option<Config>, (std::path::PathBuf, ConfigError)> {
        let path = app_root.join(FILE_NAME);
        // Through a symlink only inside the app, a regular file only, and small (a repository can
        // commit a symlink to /dev/zero or /dev/stdin).
        match crate::files::read_regular_text(&path, Some(app_root), MAX_SIZE) {
            Ok(Some(text)) => Config::parse(&text).map(Some).map_err(|e| (path, e)),
            Ok(None) => Err((path, ConfigError { line: None, message: "not valid UTF-8".to_string() })),
            Err(crate::files::Refusal::Io(std::io::ErrorKind::NotFound, _)) => Ok(None),
            Err(refusal) => Err((path, ConfigError { line: None, message: format!("not read: {refusal}") })),
        }
    }

    /// The severity a finding of `rule` is reported at, or `None` when the file turns it off.
    pub fn severity(&self, rule: &str, default: Severity) -> Option<Severity> {
        RuleLevel::apply(self.rules.get(rule), default)
    }

    /// A finding as the app reports it, or `None` when its rule applies to none of the targets (a
    /// `lanes.*` rule: none of the lanes) or is off. `chosen` and `levels` are the caller's own (the
    /// command line, the editor's settings): when given, they win over the file's, and the file's
    /// targets over ruby and jruby; the lanes are the chosen ones, else the file's, else the targets'.
    pub fn report(&self, diagnostic: &Diagnostic, chosen: &Chosen, levels: &BTreeMap<String, RuleLevel>) -> Option<Diagnostic> {
        let targets: &[Target] =
            if !chosen.targets.is_empty() { &chosen.targets } else { self.targets.as_deref().unwrap_or(&[Target::Ruby, Target::Jruby]) };
        let applies = match catalogue::rule(&diagnostic.rule) {
            Some(rule) if !rule.lanes.is_empty() => {
                let lanes = if !chosen.lanes.is_empty() {
                    chosen.lanes.clone()
                } else {
                    self.lanes.clone().unwrap_or_else(|| Lane::implied_by(targets))
                };
                rule.lanes.iter().any(|l| lanes.contains(l))
            }
            rule => rule.is_none_or(|r| r.targets.iter().any(|t| targets.contains(t))),
        };
        if !applies {
            return None;
        }
        // A quiet rule only when someone gave it a level.
        if catalogue::QUIET.contains(&diagnostic.rule.as_str())
            && !levels.contains_key(diagnostic.rule.as_str())
            && !self.rules.contains_key(diagnostic.rule.as_str())
        {
            return None;
        }
        let severity = match levels.get(diagnostic.rule.as_str()) {
            Some(level) => RuleLevel::apply(Some(level), diagnostic.severity),
            None => self.severity(&diagnostic.rule, diagnostic.severity),
        }?;
        Some(Diagnostic { severity, ..diagnostic.clone() })
    }
}

/// A list of names (`targets`, `lanes`) as `parse` reads each; the first it does not know is named on
/// its line with the names it does (`known`).
fn names<T>(
    text: &str,
    list: Option<&[toml::Spanned<String>]>,
    parse: fn(&str) -> Option<T>,
    what: &str,
    known: &str,
) -> Result<Option<Vec<T>>, ConfigError> {
    let Some(list) = list else { return Ok(None) };
    list.iter()
        .map(|name| {
            parse(name.get_ref())
                .ok_or_else(|| ConfigError::at(text, name.span().start, format!("no {what} `{}` ({known})", name.get_ref())))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The targets and lanes a caller chose (the command line's `--target` and `--lane`, the editor's
/// settings); empty means the app's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chosen {
    pub targets: Vec<Target>,
    pub lanes: Vec<Lane>,
}

/// A mistake in the file: the 1-based line it is on (when known) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: Option<usize>,
    pub message: String,
}

impl ConfigError {
    fn at(text: &str, offset: usize, message: String) -> ConfigError {
        ConfigError { line: Some(line_of(text, offset)), message }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_targets_and_rule_levels() {
        let config = Config::parse(
            "targets = [\"jruby\", \"spinel\"]\n\n[rules]\n\"views.literal-tag\" = \"off\"\n\"model.scope-body\" = \"warning\"\n",
        )
        .unwrap();
        assert_eq!(config.targets, Some(vec![Target::Jruby, Target::Spinel]));
        assert_eq!(config.severity("views.literal-tag", Severity::Info), None);
        assert_eq!(config.severity("model.scope-body", Severity::Error), Some(Severity::Warning));
        assert_eq!(config.severity("routes.draw-missing", Severity::Error), Some(Severity::Error));
    }

    #[test]
    fn excludes_match_app_relative_globs() {
        let config = Config::parse("exclude = [\"lib/legacy/**\", \"app/views/*/old_*.erb\"]\n").unwrap();
        assert!(config.excludes("lib/legacy/shell.rb"));
        assert!(config.excludes("lib/legacy/deep/er.rb"));
        assert!(config.excludes("app/views/posts/old_index.html.erb"));
        assert!(!config.excludes("app/views/admin/posts/old_index.html.erb"), "`*` stops at `/`");
        assert!(!config.excludes("lib/tasks/x.rb"));
        let bad = Config::parse("\nexclude = [\"lib/[\"]\n").unwrap_err().to_string();
        assert!(bad.starts_with("line 2: `lib/[` is not a glob"), "{bad}");
        // A glob that builds but is too complex to match is named on its line too.
        let complex = format!("targets = [\"ruby\"]\nexclude = [\"app/**\", \"{}x\"]\n", "**/*a/".repeat(30_000));
        let bad = Config::parse(&complex).unwrap_err().to_string();
        assert!(bad.starts_with("line 2: `**/*a/") && bad.contains("…` is too complex a glob") && bad.len() < 200, "{bad}");
    }

    #[test]
    fn names_the_compiler_and_keeps_quiet_rules_quiet() {
        let config = Config::parse("[roundhouse]\nbinary = \"rh/target/release/roundhouse\"\ncheckout = \"rh\"\n").unwrap();
        let setting = config.roundhouse.clone().unwrap();
        assert_eq!((setting.binary.as_str(), setting.checkout.as_deref()), ("rh/target/release/roundhouse", Some("rh")));
        let typo = Config::parse("[roundhouse]\nbinary = \"x\"\ncheckou = \"y\"\n").unwrap_err().to_string();
        assert!(typo.starts_with("line 3: unknown field `checkou`"), "{typo}");
        let note = Diagnostic {
            span: crate::syntax::Span::default(),
            severity: Severity::Info,
            rule: rule!("roundhouse.unresolved_type"),
            message: String::new(),
        };
        let chosen = Chosen::default();
        assert_eq!(config.report(&note, &chosen, &BTreeMap::new()), None, "quiet unless given a level");
        let levels = BTreeMap::from([("roundhouse.unresolved_type".to_owned(), RuleLevel::Severity(Severity::Info))]);
        assert!(config.report(&note, &chosen, &levels).is_some(), "the caller's level");
        let asked = Config::parse("[rules]\n\"roundhouse.unresolved_type\" = \"warning\"\n").unwrap();
        assert_eq!(asked.report(&note, &chosen, &BTreeMap::new()).map(|d| d.severity), Some(Severity::Warning), "the file's level");
    }

    #[test]
    fn an_empty_file_changes_nothing() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
    }

    #[test]
    fn mistakes_name_their_line() {
        let unknown_rule = Config::parse("[rules]\n\"model.scope-bod\" = \"off\"\n").unwrap_err().to_string();
        assert_eq!(unknown_rule, "line 2: no rule `model.scope-bod` (`switchyard rules` lists them)");
        let bad_level = Config::parse("[rules]\n\"model.scope-body\" = \"loud\"\n").unwrap_err().to_string();
        assert!(bad_level.starts_with("line 2: `loud` is not a level"), "{bad_level}");
        let bad_target = Config::parse("targets = [\"truffleruby\"]\n").unwrap_err().to_string();
        assert!(bad_target.starts_with("line 1: no target `truffleruby`"), "{bad_target}");
        let bad_lane = Config::parse("targets = [\"ruby\"]\nlanes = [\"ruby\", \"graal\"]\n").unwrap_err().to_string();
        assert!(bad_lane.starts_with("line 2: no lane `graal`"), "{bad_lane}");
        let unknown_key = Config::parse("\n\ntarget = [\"ruby\"]\n").unwrap_err().to_string();
        assert!(unknown_key.starts_with("line 3: ") && unknown_key.contains("unknown field"), "{unknown_key}");
        let broken = Config::parse("targets = [\"ruby\"\n").unwrap_err().to_string();
        assert!(broken.starts_with("line "), "{broken}");
    }
}

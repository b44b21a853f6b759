//! `switchyard.toml`: an app's own settings, read from its root (next to `config/routes.rb`).
//!
//! ```toml
//! targets = ["ruby", "jruby"]        # the Roundhouse targets whose rules apply
//!
//! [rules]
//! "views.literal-tag" = "off"        # never report this rule
//! "model.scope-body" = "warning"  # report it at another severity: error, warning or info
//! ```
//!
//! The file is checked as strictly as the command line: an unknown key, target, rule or level is an
//! error naming the line, so a typo never silently turns a rule back on.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::diagnostic::Severity;
use crate::roundhouse::catalogue;
use crate::roundhouse::tree::Target;

pub const FILE_NAME: &str = "switchyard.toml";

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

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// `targets`, when the file names them.
    pub targets: Option<Vec<Target>>,
    pub rules: BTreeMap<String, RuleLevel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    targets: Option<Vec<toml::Spanned<String>>>,
    #[serde(default)]
    rules: BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
}

impl Config {
    /// Parses the file's text; the error names the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|span| format!("line {}: ", line_of(text, span.start))).unwrap_or_default();
            format!("{at}{}", e.message())
        })?;
        let targets = match raw.targets {
            None => None,
            Some(names) => Some(
                names
                    .iter()
                    .map(|name| {
                        Target::parse(name.get_ref()).ok_or_else(|| {
                            format!("line {}: no target `{}` (ruby, jruby or spinel)", line_of(text, name.span().start), name.get_ref())
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let mut rules = BTreeMap::new();
        for (id, level) in raw.rules {
            let line = line_of(text, id.span().start);
            if catalogue::rule(id.get_ref()).is_none() {
                return Err(format!("line {line}: no rule `{}` (`switchyard rules` lists them)", id.get_ref()));
            }
            let parsed = RuleLevel::parse(level.get_ref()).ok_or_else(|| {
                format!("line {line}: `{}` is not a level for `{}` (off, info, warning or error)", level.get_ref(), id.get_ref())
            })?;
            rules.insert(id.into_inner(), parsed);
        }
        Ok(Config { targets, rules })
    }

    /// The app's `switchyard.toml`, when it has one. The error starts with the file's path.
    pub fn load(app_root: &Path) -> Result<Option<Config>, String> {
        let path = app_root.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text).map(Some).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// The severity a finding of `rule` is reported at, or `None` when the file turns it off.
    pub fn severity(&self, rule: &str, default: Severity) -> Option<Severity> {
        RuleLevel::apply(self.rules.get(rule), default)
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
    fn an_empty_file_changes_nothing() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
    }

    #[test]
    fn mistakes_name_their_line() {
        let unknown_rule = Config::parse("[rules]\n\"model.scope-bod\" = \"off\"\n").unwrap_err();
        assert_eq!(unknown_rule, "line 2: no rule `model.scope-bod` (`switchyard rules` lists them)");
        let bad_level = Config::parse("[rules]\n\"model.scope-body\" = \"loud\"\n").unwrap_err();
        assert!(bad_level.starts_with("line 2: `loud` is not a level"), "{bad_level}");
        let bad_target = Config::parse("targets = [\"truffleruby\"]\n").unwrap_err();
        assert!(bad_target.starts_with("line 1: no target `truffleruby`"), "{bad_target}");
        let unknown_key = Config::parse("\n\ntarget = [\"ruby\"]\n").unwrap_err();
        assert!(unknown_key.starts_with("line 3: ") && unknown_key.contains("unknown field"), "{unknown_key}");
        let broken = Config::parse("targets = [\"ruby\"\n").unwrap_err();
        assert!(broken.starts_with("line "), "{broken}");
    }
}

//! The features as the editor asks for them (nil's `Analysis`): each request tries the features that
//! may answer it in one order, decided here, so the protocol handlers only convert.

use std::sync::Arc;

use super::nav;
use super::routes::{self, Hover, Target};
use crate::app::AppContext;
use crate::rails::FileFacts;

/// The places of `targets` in the index's newest copy of each file: an answer worked out against the
/// context the last re-check left, where a file edited since (with nothing another file depends on
/// changed, or a re-check would be pending) has the same things in the same order, only moved. Each
/// place is found again by what is there (a method's name, the second `@post`, a render's target…);
/// `None` when one cannot be, and the caller works the answer out afresh.
pub fn refresh(index: &crate::index::Index, targets: Vec<Target>) -> Option<Vec<Target>> {
    targets
        .into_iter()
        .map(|target| {
            let newest = index.get(&target.file.path)?;
            if Arc::ptr_eq(&newest, &target.file) || (newest.text_hash == target.file.text_hash && newest.text_hash != 0) {
                return Some(target);
            }
            if target.span == crate::syntax::Span::default() {
                return Some(Target { file: newest, span: target.span });
            }
            let span = moved(&target.file, &newest, target.span)?;
            Some(Target { file: newest, span })
        })
        .collect()
}

/// Where `span` of `older` is in `newer`: the same anchor (its kind, name and how many of the same
/// came before it).
fn moved(older: &FileFacts, newer: &FileFacts, span: crate::syntax::Span) -> Option<crate::syntax::Span> {
    let (old, new) = (anchors(older), anchors(newer));
    let at = old.iter().position(|(_, s)| *s == span)?;
    let key = &old[at].0;
    let nth = old[..at].iter().filter(|(k, _)| k == key).count();
    // As many of them in both copies, or the one meant cannot be told.
    if old.iter().filter(|(k, _)| k == key).count() != new.iter().filter(|(k, _)| k == key).count() {
        return None;
    }
    new.iter().filter(|(k, _)| k == key).nth(nth).map(|(_, s)| *s)
}

/// Every place of a file an answer may point at, with what identifies it.
fn anchors(facts: &FileFacts) -> Vec<(String, crate::syntax::Span)> {
    let mut out: Vec<(String, crate::syntax::Span)> = Vec::new();
    let methods = |owner: &str, list: &[crate::rails::MethodSummary], out: &mut Vec<(String, crate::syntax::Span)>| {
        for m in list {
            out.push((format!("def {owner}#{}", m.name), m.name_span));
        }
    };
    for d in &facts.definitions {
        out.push((format!("ns {}", d.name), d.name_span));
        methods(&d.name, &d.methods, &mut out);
    }
    for m in &facts.models {
        out.push((format!("ns {}", m.class_name), m.name_span));
        methods(&m.class_name, &m.methods, &mut out);
        out.extend(m.associations.iter().map(|a| (format!("assoc {}", a.name), a.name_span)));
        for v in &m.validations {
            out.extend(v.attributes.iter().zip(&v.attribute_spans).map(|(a, s)| (format!("validated {a}"), *s)));
        }
        for c in &m.callbacks {
            out.extend(c.targets.iter().zip(&c.target_spans).map(|(t, s)| (format!("callback {t}"), *s)));
        }
    }
    for c in &facts.controllers {
        out.push((format!("ns {}", c.class_name), c.name_span));
        methods(&c.class_name, &c.actions, &mut out);
        methods(&c.class_name, &c.private_methods, &mut out);
        for f in &c.filters {
            out.extend(f.targets.iter().zip(&f.target_spans).map(|(t, s)| (format!("filter {t}"), *s)));
        }
        out.extend(c.layout_span.map(|s| ("layout".to_owned(), s)));
    }
    for r in &facts.render_calls {
        out.push(("render".to_owned(), r.span));
        out.extend(r.target_span.map(|s| ("render target".to_owned(), s)));
    }
    out.extend(facts.template.as_ref().and_then(|t| t.strict_locals.as_ref()).map(|l| ("locals".to_owned(), l.span)));
    out.extend(facts.uses.ivars.iter().map(|u| (format!("ivar {} {}", u.name, u.write), u.span)));
    out.extend(facts.uses.calls.iter().map(|c| (format!("call {}", c.name), c.span)));
    out.extend(facts.uses.member_calls.iter().map(|c| (format!("member {}", c.name), c.span)));
    out.extend(facts.uses.translations.iter().map(|t| (format!("t {}", t.key), t.span)));
    out.extend(facts.uses.columns.iter().map(|c| (format!("column {}", c.name), c.span)));
    out.extend(facts.route_helper_calls.iter().map(|r| (format!("helper {}", r.name), r.span)));
    for load in &facts.association_loads {
        out.extend(load.names.iter().map(|(n, s)| (format!("load {n}"), *s)));
    }
    out
}

/// Go to definition: a route helper's route and action, else what navigation resolves the cursor to.
pub fn definition(context: &AppContext, facts: &FileFacts, offset: usize) -> Vec<Target> {
    let found = routes::definition(context, facts, offset);
    if !found.is_empty() {
        return found;
    }
    nav::definition(context, facts, offset)
}

/// Find references: a route's helper uses, else navigation's.
pub fn references(context: &AppContext, facts: &FileFacts, offset: usize, include_declaration: bool) -> Vec<Target> {
    let found = routes::references(context, facts, offset, include_declaration);
    if !found.is_empty() {
        return found;
    }
    nav::references(context, facts, offset, include_declaration)
}

/// Hover: a `switchyard:disable` comment, a route, then what the name under the cursor means to Rails
/// followed by what Roundhouse makes of its line (the preview slice), then a class's emitted file.
pub fn hover(
    context: &Arc<AppContext>,
    index: &crate::index::Index,
    facts: &FileFacts,
    text: Option<String>,
    offset: usize,
) -> Option<Hover> {
    if let Some(found) = super::diagnostics::suppression_hover(facts, offset)
        .or_else(|| routes::hover(context, facts, offset))
        .or_else(|| gem_hover(context, facts, offset))
    {
        return Some(found);
    }
    let rails = nav::hover(context, facts, offset);
    let slice = super::inlay::hover_slice(context, index, facts, text, offset);
    let class = super::tree::class_hover(context, facts, offset);
    match (rails, slice, class) {
        (Some(rails), Some(slice), _) => {
            Some(Hover { markdown: format!("{}\n\n---\n\n{}", rails.markdown, slice.markdown), span: rails.span })
        }
        (Some(rails), None, _) => Some(rails),
        (None, Some(slice), _) => Some(slice),
        (None, None, Some(class)) => {
            // A model's own name: its table too.
            let model = facts.models.iter().find(|m| m.name_span == class.span);
            match model.and_then(|m| context.model(&m.class_name)) {
                Some(model) => {
                    Some(Hover { markdown: format!("{}\n\n---\n\n{}", nav::model_hover(context, model), class.markdown), span: class.span })
                }
                None => Some(class),
            }
        }
        (None, None, None) => None,
    }
}

/// What a gem is to each runtime lane, on its Gemfile or lockfile line.
fn gem_hover(context: &AppContext, facts: &FileFacts, offset: usize) -> Option<Hover> {
    use crate::rails::deploy::DeployFile;
    let lockfile = || {
        context.files.iter().find_map(|f| match f.deploy.as_deref() {
            Some(DeployFile::Lockfile(lockfile)) => Some(lockfile),
            _ => None,
        })
    };
    let (name, span) = match facts.deploy.as_deref()? {
        DeployFile::Gemfile(gemfile) => gemfile.gems.iter().find(|g| g.span.contains(offset)).map(|g| (g.name.as_str(), g.span))?,
        DeployFile::Lockfile(lockfile) => lockfile.gems.iter().find(|g| g.span.contains(offset)).map(|g| (g.name.as_str(), g.span))?,
        _ => return None,
    };
    let markdown = crate::lanes::gem_hover(name, lockfile())?;
    Some(Hover { markdown, span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    #[test]
    fn a_gem_line_says_what_the_gem_is_to_each_lane() {
        let fixture = Fixture::new(
            "#- /config/routes.rb\nRails.application.routes.draw do\nend\n#- /Gemfile\ngem \"sql$0ite3\"\n#- /Gemfile.lock\nGEM\n  specs:\n    sqlite3 (2.9.6-x86_64-linux-gnu)\n\nPLATFORMS\n  x86_64-linux\n\nDEPENDENCIES\n  sqlite3\n",
        );
        let context = Arc::new(AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot()));
        let (path, offset) = fixture.cursor.clone().unwrap();
        let facts = fixture.index.get(&path).unwrap();
        let found = hover(&context, &fixture.index, &facts, None, offset).expect("a hover on the gem");
        assert!(found.markdown.starts_with("**sqlite3** 2.9.6"), "{}", found.markdown);
        assert!(found.markdown.contains("Locked for: x86_64-linux-gnu"), "{}", found.markdown);
        assert!(found.markdown.contains("| jruby | no JVM build: JRuby uses activerecord-jdbcsqlite3-adapter |"), "{}", found.markdown);
        assert!(found.markdown.contains("| truffleruby | declares no thread safety"), "{}", found.markdown);
        // The lockfile's line says the same.
        let lock = fixture.path("Gemfile.lock");
        let lock_facts = fixture.index.get(&lock).unwrap();
        let at = fixture.texts[&lock].find("sqlite3 (").unwrap() + 2;
        let from_lock = hover(&context, &fixture.index, &lock_facts, None, at).expect("a hover on the spec");
        assert_eq!(from_lock.markdown, found.markdown);
    }

    /// An answer from a context built before an edit lands where the edit moved it.
    #[test]
    fn answers_from_an_older_context_are_found_again_in_the_edited_file() {
        let app = |controller: &str| {
            format!(
                "#- /app/controllers/application_controller.rb\nclass ApplicationController < ActionController::Base\nend\n#- /app/controllers/posts_controller.rb\n{controller}"
            )
        };
        let before = "class PostsController < ApplicationController\n  before_action :set_post\n  def show; end\n  private\n  def set_post\n    @post = 1\n  end\nend\n";
        let fixture = Fixture::new(&app(before));
        let old_context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        // Two lines added at the top: everything moves down.
        let after = format!("# frozen_string_literal: true\n\n{before}");
        let path = fixture.path("app/controllers/posts_controller.rb");
        let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, &after);
        fixture.index.replace(fixture.index.extract_text(&path, &after, &parsed));
        let newest = fixture.index.get(&path).unwrap();
        let offset = after.find(":set_post").unwrap() + 2;
        let answer = definition(&old_context, &newest, offset);
        assert_eq!(answer.len(), 1);
        assert_eq!(answer[0].span.start.line, 4, "the older copy's place");
        let found = refresh(&fixture.index, answer).unwrap();
        assert_eq!(found[0].span.start.line, 6, "`def set_post` two lines down");
        assert!(Arc::ptr_eq(&found[0].file, &newest));
        // A new `def set_post` besides: which one was meant cannot be told.
        let twice = format!("{}  def set_post; end\nend\n", after.trim_end().trim_end_matches("end"));
        let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, &twice);
        fixture.index.replace(fixture.index.extract_text(&path, &twice, &parsed));
        let stale = definition(&old_context, &fixture.index.get(&path).unwrap(), offset);
        assert!(refresh(&fixture.index, stale).is_none());
    }
}

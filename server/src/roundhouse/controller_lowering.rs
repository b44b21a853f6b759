//! What Roundhouse makes of a controller's filters and actions, decided once: the `process_action`
//! dispatcher it writes (the before-filter chain, each step with its condition and whether it halts,
//! then one arm per action), the filters it inlines into each action instead, the actions it
//! dispatches, and what becomes of each filter call of the controller's own body. The controller
//! preview and the filter hints are views of it, as `lowering` is for model bodies.
//!
//! As the compiler does it (held to its emitted controllers; FIDELITY.md):
//! - Each controller's body is its included modules' `before_action`s first (from their `included`
//!   blocks), then its own; the modules' instance methods join its private methods (not over one
//!   it defines).
//! - A filter of its own body whose target is one of its own private methods is inlined at the top
//!   of every action it applies to (by `only:`/`except:` alone: an `if:` or a skip does not reach
//!   it), followed by `return if performed?` when its body can answer — unless such a filter is
//!   declared after one that is not, and then none is inlined.
//! - Every other `before_action` — its ancestors' (root first, each body in order), its own that
//!   are not inlined, and its own block-form ones — is a step of the dispatcher: a call under its
//!   `only:`/`except:`, `if:` and `unless:` conditions, narrowed by every `skip_before_action` of
//!   the chain naming it (an unscoped skip removes it). A target no controller of the chain or
//!   module defines is dropped. A step whose body can answer (`render`, `redirect_to`, `head`,
//!   `render_404`, directly or through a method of the chain it calls) is followed by
//!   `return if performed?`.
//! - The actions are the public methods a route reaches; the others are emitted as written. An arm
//!   is added for each action the controller only inherits. A controller with no action gets no
//!   dispatcher. Without a routes file there is no dispatcher, nothing is inlined and no render
//!   appended, though `new` is still `new_action` and the filters' own private targets are dropped.
//! - `after_action` and `around_action` are never applied; `prepend_before_action` and other
//!   spellings are dropped with the class-body macros (`controller.macro-dropped`).

use std::collections::BTreeSet;

use crate::app::AppContext;
use crate::rails::controller::{Controller, Filter};
use crate::rails::inflect;
use crate::syntax::Span;
use crate::syntax::value::Value;

/// The calls the compiler counts as a response when it decides whether an action needs the
/// implicit render, and whether that render must be guarded (`respond_to` with a block).
const TERMINALS: &[&str] = &["render", "redirect_to", "head", "respond_to"];

/// The calls through which the compiler decides a filter can answer, and so halt the chain.
const HALTERS: &[&str] = &["render", "redirect_to", "head", "render_404"];

/// The block target `rails::controller::filter_of` records for `before_action { … }`.
const BLOCK: &str = "{ block }";

#[derive(Debug, Clone, PartialEq)]
pub struct ControllerLowering {
    /// `None` for a controller with no action of its own or inherited (`ApplicationController`).
    pub dispatcher: Option<Dispatcher>,
    /// The actions it dispatches to and defines, in source order.
    pub actions: Vec<LoweredAction>,
    /// What became of each filter call of its own body, in source order.
    pub filters: Vec<FilterFate>,
    /// The instance methods its modules bring it (a method it defines itself wins), in include order.
    pub spliced: Vec<crate::app::ModuleMethod>,
    /// Its private methods the compiler does not emit: targets of filters it inlined into every
    /// action that runs them, in a controller no other controller inherits from.
    pub dead: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dispatcher {
    pub preamble: Vec<Step>,
    /// `(action, method)`: its own actions in source order, then those it inherits, by name.
    pub arms: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub what: StepKind,
    /// The Ruby condition it runs under (`[:show].include?(action_name) && admin?`), if any.
    pub condition: Option<String>,
    /// Followed by `return if performed?`.
    pub halts: bool,
    /// The class or module that declares it.
    pub owner: String,
    /// The filter call, when it is in this controller's file.
    pub span: Option<Span>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// A call of the filter's method.
    Call(String),
    /// A block-form filter's body, inlined: the span of the whole `before_action { … }` call.
    Block(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoweredAction {
    pub name: String,
    /// `new_action` for `new`.
    pub method: String,
    pub span: Span,
    /// The filters inlined at its top, in order.
    pub inlined: Vec<Inlined>,
    /// The render the compiler appends when the body does not surely end in a response.
    pub implicit: Option<ImplicitRender>,
}

/// The implicit render the compiler appends to an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImplicitRender {
    /// The action's HTML template exists: `render :action`, else `head :no_content` (what Rails
    /// answers when an action falls off its end without a template).
    pub template: bool,
    /// Under `if performed?` (the body, inlined filters included, answers somewhere).
    pub guarded: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Inlined {
    pub target: String,
    /// The filter call, when it is in this controller's file (a module's is in the module's).
    pub filter: Option<Span>,
    /// The method whose body is inlined: in this controller's file (`None`), or a module's file.
    pub method: (Option<std::path::PathBuf>, Span),
    pub halts: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FilterFate {
    /// The filter call.
    pub span: Span,
    pub target: String,
    pub fate: Fate,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Inlined into these actions.
    Inlined(Vec<String>),
    /// A step of this controller's dispatcher, and of its subclasses'.
    Dispatched,
    /// A step of no dispatcher: its target is defined nowhere in the chain.
    Unresolved,
    /// `skip_before_action`: narrows or removes the filter it names.
    Skip,
    /// `after_action`, `around_action`: never applied.
    NeverApplied,
    /// A `before_action` of an app without a routes file: the compiler writes no dispatcher, so it
    /// never runs (and a target that is one of the controller's own private methods is dropped).
    NoRoutes,
    /// Another spelling (`prepend_before_action`, `before_filter`): dropped with the macros.
    Dropped,
}

/// One filter of a body, one target each (`before_action :a, :b` is two).
#[derive(Debug, Clone)]
struct OneFilter<'a> {
    filter: &'a Filter,
    target: String,
    owner: String,
    /// Declared in a module's `included` block.
    from_module: bool,
}

/// A method a filter may name, as the chain resolves it: its receiver-less calls, and where it is
/// when it is in the controller being lowered.
struct Method {
    calls: Vec<String>,
}

pub fn lower<'a>(controller: &'a Controller, context: &'a AppContext) -> ControllerLowering {
    // The superclasses the app defines, by the name as written (the compiler does not look a name
    // up in the class's modules: `class PrisonsController < ApiController` inside `module Api`
    // reaches no `Api::ApiController`), at most eight.
    let lineage: Vec<&'a Controller> = {
        let mut lineage = vec![controller];
        let mut current = controller.superclass.as_deref().and_then(|s| context.controller(s.trim_start_matches("::")));
        while let Some(parent) = current.filter(|_| lineage.len() <= 8) {
            lineage.push(parent);
            current = parent.superclass.as_deref().and_then(|s| context.controller(s.trim_start_matches("::")));
        }
        lineage
    };
    let ancestors: Vec<&'a Controller> = lineage[1..].iter().rev().copied().collect(); // root first
    let own_filters = body_filters(controller, context);

    // Methods as the chain resolves them: the controller's own, then its modules', then each
    // ancestor's (nearest first) with its modules'.
    let modules_of = |c: &Controller| -> Vec<String> { included_modules(c) };
    let find = |name: &str| -> Option<Method> {
        for c in &lineage {
            if let Some(calls) = own_calls(c, name) {
                return Some(Method { calls });
            }
            for module in modules_of(c) {
                if let Some(calls) = module_method_calls(context, &module, name) {
                    return Some(Method { calls });
                }
            }
        }
        None
    };
    // The controller's private methods, its modules' joining them.
    let own_private = |name: &str| -> bool {
        controller.private_methods.iter().any(|m| m.name == name && !controller.actions.iter().any(|a| a.name == name))
            || (!controller.actions.iter().any(|a| a.name == name)
                && modules_of(controller).iter().any(|m| module_method_calls(context, m, name).is_some()))
    };
    let own_calls_only = |name: &str| -> Option<Method> {
        own_calls(controller, name)
            .or_else(|| modules_of(controller).iter().find_map(|m| module_method_calls(context, m, name)))
            .map(|calls| Method { calls })
    };

    let before: Vec<&OneFilter<'_>> = own_filters.iter().filter(|f| is_before(f) && f.target != BLOCK).collect();
    // Inlining is all or nothing: an inlinable filter after one that is not would run late.
    let ordered = {
        let mut seen_inlinable = false;
        let mut ordered = true;
        for f in &before {
            if own_private(&f.target) {
                seen_inlinable = true;
            } else if seen_inlinable {
                ordered = false;
            }
        }
        ordered
    };
    let inlining = context.has_routes_file && ordered;

    // The actions: public methods a route reaches.
    let path = inflect::underscore(controller.class_name.strip_suffix("Controller").unwrap_or(&controller.class_name));
    let routed: Option<BTreeSet<&str>> = context.has_routes_file.then(|| {
        context.table.routes.iter().filter(|r| r.controller.as_deref() == Some(path.as_str())).filter_map(|r| r.action.as_deref()).collect()
    });
    // Without a routes file every public method is an action by name (`new` is `new_action`), but
    // the compiler writes no dispatcher, inlines nothing and appends no render.
    let reached = |name: &str| routed.as_ref().is_none_or(|set| set.contains(name));
    let mut actions = Vec::new();
    for action in controller.actions.iter().filter(|a| !a.singleton && reached(&a.name)) {
        let mut inlined = Vec::new();
        for f in before.iter().filter(|f| inlining && own_private(&f.target) && applies(f.filter, &action.name)) {
            let halts = own_calls_only(&f.target).is_some_and(|m| can_answer(&m.calls, &own_calls_only, &mut BTreeSet::new()));
            // Its own private method, or one a module brings it (inlined from the module's file).
            let method = match controller.private_methods.iter().find(|m| m.name == f.target) {
                Some(method) => (None, method.span),
                None => match modules_of(controller)
                    .iter()
                    .find_map(|m| context.memo_module_methods(m).iter().find(|method| method.name == f.target))
                {
                    Some(method) => (Some(method.path.clone()), method.span),
                    None => continue,
                },
            };
            let filter = (!f.from_module).then_some(f.filter.span);
            inlined.push(Inlined { target: f.target.clone(), filter, method, halts });
        }
        let calls = controller.action_calls.iter().find(|(name, _)| name == &action.name).map(|(_, c)| c.as_slice()).unwrap_or(&[]);
        let answers_somewhere = calls.iter().any(|c| TERMINALS.contains(&c.as_str()))
            || inlined.iter().any(|i| own_calls_only(&i.target).is_some_and(|m| m.calls.iter().any(|c| TERMINALS.contains(&c.as_str()))));
        let implicit = (context.has_routes_file && !controller.responding_actions.contains(&action.name))
            .then(|| ImplicitRender { template: context.has_view(&path, &action.name), guarded: answers_somewhere });
        actions.push(LoweredAction { name: action.name.clone(), method: method_for(&action.name), span: action.span, inlined, implicit });
    }

    let mut inherited: Vec<String> = Vec::new();
    if let Some(routed) = &routed {
        for ancestor in lineage[1..].iter() {
            for action in ancestor.actions.iter().filter(|a| !a.singleton) {
                if routed.contains(action.name.as_str())
                    && !controller.actions.iter().chain(&controller.private_methods).any(|m| m.name == action.name)
                    && !inherited.contains(&action.name)
                {
                    inherited.push(action.name.clone());
                }
            }
        }
    }
    inherited.sort();

    // The skips of the whole chain, each with its own scope.
    let skips: Vec<OneFilter<'_>> = ancestors
        .iter()
        .flat_map(|c| body_filters(c, context))
        .chain(own_filters.iter().cloned())
        .filter(|f| f.filter.kind == "skip_before_action")
        .collect();
    let step = |f: &OneFilter<'_>, span: Option<Span>| -> Option<Step> {
        let (mut only, mut except) = (f.filter.only.clone(), f.filter.except.clone());
        for skip in skips.iter().filter(|s| s.target == f.target) {
            if skip.filter.only.is_empty() && skip.filter.except.is_empty() {
                return None;
            }
            for action in &skip.filter.only {
                if !except.contains(action) {
                    except.push(action.clone());
                }
            }
            if !skip.filter.except.is_empty() {
                only = if only.is_empty() {
                    skip.filter.except.clone()
                } else {
                    only.into_iter().filter(|a| skip.filter.except.contains(a)).collect()
                };
                if only.is_empty() {
                    return None;
                }
            }
        }
        let method = find(&f.target)?;
        let halts = can_answer(&method.calls, &find, &mut BTreeSet::new());
        Some(Step {
            what: StepKind::Call(f.target.clone()),
            condition: condition(&only, &except, f.filter),
            halts,
            owner: f.owner.clone(),
            span,
        })
    };

    let mut preamble = Vec::new();
    for ancestor in &ancestors {
        for f in body_filters(ancestor, context).iter().filter(|f| is_before(f) && f.target != BLOCK) {
            preamble.extend(step(f, None));
        }
    }
    let mut fates = Vec::new();
    for f in &own_filters {
        let here = (!f.from_module).then_some(f.filter.span);
        let fate = if f.filter.kind == "skip_before_action" {
            Fate::Skip
        } else if matches!(f.filter.kind.as_str(), "after_action" | "around_action") {
            Fate::NeverApplied
        } else if !is_before(f) {
            Fate::Dropped
        } else if !context.has_routes_file {
            Fate::NoRoutes
        } else if f.target == BLOCK {
            let calls = &f.filter.block_calls;
            preamble.push(Step {
                what: StepKind::Block(f.filter.span),
                condition: condition(&f.filter.only, &f.filter.except, &Filter { if_condition: None, unless: None, ..f.filter.clone() }),
                halts: calls.iter().any(|c| HALTERS.contains(&c.as_str())),
                owner: f.owner.clone(),
                span: here,
            });
            Fate::Dispatched
        } else if inlining && own_private(&f.target) {
            Fate::Inlined(actions.iter().filter(|a| applies(f.filter, &a.name)).map(|a| a.name.clone()).collect())
        } else {
            match step(f, here) {
                Some(s) => {
                    preamble.push(s);
                    Fate::Dispatched
                }
                None if find(&f.target).is_none() => Fate::Unresolved,
                None => Fate::Dispatched,
            }
        };
        if !f.from_module {
            fates.push(FilterFate { span: f.filter.span, target: f.target.clone(), fate });
        }
    }

    let mut spliced: Vec<crate::app::ModuleMethod> = Vec::new();
    for module in modules_of(controller) {
        for method in context.memo_module_methods(&module) {
            let defined = controller.actions.iter().chain(&controller.private_methods).any(|m| m.name == method.name);
            if !defined && !spliced.iter().any(|s| s.name == method.name) {
                spliced.push(method.clone());
            }
        }
    }
    let inherited_from = context.files.iter().flat_map(|f| &f.controllers).any(|c| {
        c.class_name != controller.class_name
            && c.superclass.as_deref().map(|s| s.trim_start_matches("::")) == Some(controller.class_name.as_str())
    });
    let dead = if inherited_from || !ordered {
        Vec::new()
    } else {
        before.iter().map(|f| f.target.clone()).filter(|t| own_private(t)).collect::<BTreeSet<_>>().into_iter().collect()
    };
    let dispatcher = (context.has_routes_file && (!actions.is_empty() || !inherited.is_empty())).then(|| Dispatcher {
        preamble,
        arms: actions
            .iter()
            .map(|a| (a.name.clone(), a.method.clone()))
            .chain(inherited.iter().map(|n| (n.clone(), method_for(n))))
            .collect(),
    });
    ControllerLowering { dispatcher, actions, filters: fates, spliced, dead }
}

fn method_for(action: &str) -> String {
    if action == "new" { "new_action".to_owned() } else { action.to_owned() }
}

fn is_before(f: &OneFilter<'_>) -> bool {
    f.filter.kind == "before_action"
}

/// Whether a filter runs for `action` by its `only:` and `except:`.
pub fn applies(filter: &Filter, action: &str) -> bool {
    if !filter.only.is_empty() {
        filter.only.iter().any(|a| a == action)
    } else if !filter.except.is_empty() {
        !filter.except.iter().any(|a| a == action)
    } else {
        true
    }
}

/// The condition a step runs under: the action check, then `if:` and `unless:`, joined by `&&`.
fn condition(only: &[String], except: &[String], filter: &Filter) -> Option<String> {
    let mut parts = Vec::new();
    let list = |names: &[String]| format!("[{}]", names.iter().map(|n| format!(":{n}")).collect::<Vec<_>>().join(", "));
    if !only.is_empty() {
        parts.push(format!("{}.include?(action_name)", list(only)));
    } else if !except.is_empty() {
        parts.push(format!("!({}.include?(action_name))", list(except)));
    }
    if let Some(guard) = filter.if_condition.as_ref().and_then(guard_text) {
        parts.push(guard);
    }
    if let Some(guard) = filter.unless.as_ref().and_then(guard_text) {
        parts.push(format!("!({guard})"));
    }
    (!parts.is_empty()).then(|| parts.join(" && "))
}

/// `if: :admin?` → `admin?`; `if: -> { Rails.env.development? }` → its body.
fn guard_text(value: &Value) -> Option<String> {
    match value {
        Value::Symbol(name) => Some(name.clone()),
        Value::Lambda(source) => {
            let source = source.trim();
            let body = source
                .find('{')
                .and_then(|open| source.rfind('}').filter(|close| *close > open).map(|close| &source[open + 1..close]))
                .or_else(|| source.find(" do").and_then(|open| source.rfind("end").map(|close| &source[open + 3..close])))?;
            let body = body.trim();
            // `->(c) { … }`, `{ |c| … }`: the parameter is the controller, `self` inside the step.
            let body = body.strip_prefix('|').and_then(|rest| rest.split_once('|')).map_or(body, |(_, rest)| rest.trim());
            Some(body.to_owned())
        }
        _ => None,
    }
}

/// A controller's filters, one target each: its included modules' (from their `included` blocks)
/// first, then its own.
fn body_filters<'a>(controller: &'a Controller, context: &'a AppContext) -> Vec<OneFilter<'a>> {
    let mut out = Vec::new();
    for module in included_modules(controller) {
        for filter in module_filters(context, &module) {
            // A module's filters join as calls of a method: a block in its `included` block does not.
            for target in filter.targets.iter().filter(|t| is_method_name(t)) {
                out.push(OneFilter { filter, target: target.clone(), owner: module.clone(), from_module: true });
            }
        }
    }
    for filter in &controller.filters {
        for target in filter.targets.iter().filter(|t| *t == BLOCK || is_method_name(t)) {
            out.push(OneFilter { filter, target: target.clone(), owner: controller.class_name.clone(), from_module: false });
        }
    }
    out
}

/// A filter's target the compiler reads: a method's name (`:set_post`, `"set_post"`), not a lambda
/// or an object (`-> { … }`, `Guard.new`), which make no filter of it.
fn is_method_name(target: &str) -> bool {
    !target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '?' | '!'))
}

/// The modules a controller includes, by name.
fn included_modules(controller: &Controller) -> Vec<String> {
    controller
        .concerns
        .iter()
        .filter(|m| m.name == "include")
        .flat_map(|m| m.arguments.iter().filter_map(|a| a.as_name().map(str::to_owned)))
        .collect()
}

/// The filters a module of the app declares in its `included` block, kept for the context's life
/// (each lowering asks for every module of the chain).
fn module_filters<'a>(context: &'a AppContext, module: &str) -> &'a [Filter] {
    context.memo_module_filters(module)
}

/// The receiver-less calls of `name` when `controller` defines it.
fn own_calls(controller: &Controller, name: &str) -> Option<Vec<String>> {
    controller.action_calls.iter().chain(&controller.method_calls).find(|(method, _)| method == name).map(|(_, calls)| calls.clone())
}

/// The receiver-less calls of a module's instance method `name`, when the app's module defines it.
fn module_method_calls(context: &AppContext, module: &str, name: &str) -> Option<Vec<String>> {
    context.memo_module_methods(module).iter().find(|m| m.name == name).map(|m| m.calls.clone())
}

/// Whether a body with these calls can answer the request, directly or through a method of the
/// chain it calls (each followed once).
fn can_answer(calls: &[String], resolve: &dyn Fn(&str) -> Option<Method>, seen: &mut BTreeSet<String>) -> bool {
    if calls.iter().any(|c| HALTERS.contains(&c.as_str())) {
        return true;
    }
    for call in calls {
        if seen.insert(call.clone())
            && let Some(method) = resolve(call)
            && can_answer(&method.calls, resolve, seen)
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// The dispatcher a controller's preview writes, its annotations aside: what the comparison
    /// with the emitted tree reads (`scripts/compare-previews.py`).
    fn dispatcher_lines(preview: &str) -> Vec<String> {
        let lines: Vec<&str> = preview.lines().collect();
        let Some(start) = lines.iter().position(|l| l.trim() == "def process_action(action_name)") else { return Vec::new() };
        let end = lines[start..].iter().position(|l| *l == "  end").map_or(lines.len(), |i| start + i);
        lines[start + 1..end]
            .iter()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| l.split(" # ").next().unwrap_or(l).trim_end().to_owned())
            .collect()
    }

    /// `tests/fixtures/apps/controllers`: each controller's dispatcher is the one Roundhouse
    /// (fda6906d) emitted for the fixture, line for line.
    #[test]
    fn dispatchers_are_the_compilers() {
        let mut seen = 0;
        crate::test_fixture::each_app(&["tests/fixtures/apps/controllers"], |context, derived, app_facts| {
            for facts in context.files.iter().filter(|f| !f.controllers.is_empty()) {
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let text = std::fs::read_to_string(&facts.path).unwrap();
                let preview =
                    super::super::preview::preview(facts, &text, context, &map_file(facts, app_facts), &diagnostics, Target::Ruby);
                let expected: &[&str] = match facts.relative_path.as_str() {
                    "app/controllers/application_controller.rb" => &[],
                    "app/controllers/articles_controller.rb" => &[
                        "    require_login if !([:index, :show].include?(action_name))",
                        "    return if self.performed?",
                        "    set_locale",
                        "    track if Rails.env.production?",
                        "    @section = \"articles\"",
                        "    case action_name",
                        "    when :index",
                        "      self.index",
                        "    when :show",
                        "      self.show",
                        "    when :new",
                        "      self.new_action",
                        "    when :edit",
                        "      self.edit",
                        "    when :create",
                        "      self.create",
                        "    when :update",
                        "      self.update",
                        "    when :destroy",
                        "      self.destroy",
                        "    when :publish",
                        "      self.publish",
                        "    when :feed",
                        "      self.feed",
                        "    end",
                    ],
                    "app/controllers/drafts_controller.rb" => &[
                        "    require_login if !([:index, :show].include?(action_name))",
                        "    return if self.performed?",
                        "    set_locale",
                        "    track if Rails.env.production?",
                        "    set_article if [:show, :edit, :update, :destroy, :publish].include?(action_name)",
                        "    authorize_editor if !([:index, :show, :feed].include?(action_name))",
                        "    return if self.performed?",
                        "    case action_name",
                        "    when :index",
                        "      self.index",
                        "    when :destroy",
                        "      destroy",
                        "    when :show",
                        "      show",
                        "    end",
                    ],
                    "app/controllers/reports_controller.rb" => &[
                        "    require_login",
                        "    return if self.performed?",
                        "    set_locale",
                        "    track if Rails.env.production?",
                        "    self.load_reports",
                        "    set_locale if [:index].include?(action_name)",
                        "    case action_name",
                        "    when :index",
                        "      self.index",
                        "    end",
                    ],
                    other => panic!("no expectation for {other}"),
                };
                assert_eq!(dispatcher_lines(&preview.text), expected, "{}:\n{}", facts.relative_path, preview.text);
                seen += 1;
            }
        });
        assert_eq!(seen, 4);
    }

    /// The preview, the filter hints and the rules tell one story for every filter and action of
    /// every fixture app's controllers: a filter inlined into an action is shown at the top of that
    /// action, and hinted with the same actions; a dispatched one is a line of `process_action`
    /// mapped to its call, and hinted so; one never applied is reported by its rule, hinted and
    /// named in the preview; an action gets the implicit render exactly when the lowering says so.
    #[test]
    fn preview_hint_and_rule_tell_the_same_story() {
        let (mut filters, mut actions) = (0, 0);
        let dirs = [
            "examples/blog",
            "tests/fixtures/apps/shop",
            "tests/fixtures/apps/rules",
            "tests/fixtures/apps/controllers",
            "tests/fixtures/apps/resolution",
        ];
        crate::test_fixture::each_app(&dirs, |context, derived, app_facts| {
            for facts in context.files.iter().filter(|f| !f.controllers.is_empty()) {
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let text = std::fs::read_to_string(&facts.path).unwrap();
                let preview =
                    super::super::preview::preview(facts, &text, context, &map_file(facts, app_facts), &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                let class_line = lines.iter().position(|l| l.starts_with("class ")).unwrap_or(0) as u32;
                let mapped_to = |line: u32| -> Vec<(u32, &str)> {
                    preview.mapping.iter().filter(|(p, s)| *p > class_line && *s == line).map(|(p, _)| (*p, lines[*p as usize])).collect()
                };
                let hints = crate::ide::inlay::inlay_hints(facts, context, &diagnostics);
                let hinted = |line: u32| -> Vec<String> {
                    hints
                        .iter()
                        .filter(|h| h.position.line == line && h.kind == crate::ide::inlay::HintKind::Filter)
                        .map(|h| h.label.clone())
                        .collect()
                };
                // The preview line that opens each action's method, and the one that closes it.
                let method_of = |name: &str| -> Option<(usize, usize)> {
                    let start = lines.iter().position(|l| *l == format!("  def {name}") || l.starts_with(&format!("  def {name}(")))?;
                    let end = lines[start..].iter().position(|l| *l == "  end").map(|i| start + i)?;
                    Some((start, end))
                };
                for controller in &facts.controllers {
                    let lowered = lower(controller, context);
                    for fate in &lowered.filters {
                        filters += 1;
                        let line = fate.span.start.line;
                        let place = format!("{}:{} ({})", facts.relative_path, line + 1, fate.target);
                        let hint = hinted(line);
                        match &fate.fate {
                            Fate::Inlined(inlined) => {
                                assert!(
                                    hint.iter().any(|h| h.ends_with(&inlined.join(", "))),
                                    "{place}: hinted {hint:?}, inlined into {inlined:?}"
                                );
                                for action in inlined {
                                    let method = lowered.actions.iter().find(|a| &a.name == action).unwrap().method.clone();
                                    let (start, end) =
                                        method_of(&method).unwrap_or_else(|| panic!("{place}: no `def {method}` in the preview"));
                                    assert!(
                                        mapped_to(line).iter().any(
                                            |(p, l)| (start..end).contains(&(*p as usize)) && l.contains(&format!(":{} ", fate.target))
                                        ),
                                        "{place}: not shown inlined into {action}"
                                    );
                                }
                            }
                            Fate::Dispatched => {
                                assert!(hint.iter().any(|h| h.contains("process_action")), "{place}: hinted {hint:?}");
                                let (start, end) =
                                    method_of("process_action").unwrap_or_else(|| panic!("{place}: no dispatcher in the preview"));
                                assert!(
                                    mapped_to(line).iter().any(|(p, _)| (start..end).contains(&(*p as usize))),
                                    "{place}: no step of the dispatcher is its"
                                );
                            }
                            Fate::NeverApplied => {
                                assert!(hint.iter().any(|h| h == "never applied"), "{place}: hinted {hint:?}");
                                assert!(
                                    diagnostics
                                        .iter()
                                        .any(|d| d.rule == rule!("controller.after-around-filter") && d.span.start.line == line),
                                    "{place}: not reported"
                                );
                                assert!(
                                    mapped_to(line).iter().any(|(_, l)| l.contains("never applied")),
                                    "{place}: the preview does not say so"
                                );
                            }
                            Fate::Unresolved => {
                                assert!(hint.iter().any(|h| h.contains("dropped")), "{place}: hinted {hint:?}");
                                assert!(mapped_to(line).iter().any(|(_, l)| l.contains("dropped")), "{place}: the preview does not say so");
                            }
                            Fate::NoRoutes => {
                                assert!(hint.iter().any(|h| h.contains("no routes")), "{place}: hinted {hint:?}");
                                assert!(method_of("process_action").is_none(), "{place}: a dispatcher without routes");
                            }
                            Fate::Skip | Fate::Dropped => assert!(hint.is_empty(), "{place}: hinted {hint:?}"),
                        }
                    }
                    for action in &lowered.actions {
                        actions += 1;
                        let (start, end) =
                            method_of(&action.method).unwrap_or_else(|| panic!("{}: no `def {}`", facts.relative_path, action.method));
                        let implicit = lines[start..end].iter().any(|l| l.contains("implicit render"));
                        assert_eq!(implicit, action.implicit.is_some(), "{}#{}", facts.relative_path, action.name);
                    }
                }
            }
        });
        assert!(filters >= 15 && actions >= 20, "{filters} filters, {actions} actions");
    }
}

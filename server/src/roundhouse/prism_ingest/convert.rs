//! The expression converter of Roundhouse's ingest, mirrored on Prism's tree: which node kinds it
//! takes, which it rejects (and with which of our rules), and where it stops looking. The compiler
//! turns every expression it reads into its own IR with one match over Prism's node kinds; a kind
//! with no arm, or an arm's own refusal, is an "unsupported construct": the compile stops, or the
//! file or statement is dropped, as the place it sits decides (`super`). This module decides only
//! what the converter does with an expression; the class-body walkers decide which expressions it
//! is handed.
//!
//! What mirrors what (measured on real apps and one-construct apps, `tests/fixtures/fidelity/`):
//! - rejected wherever converted: `alias`/`undef`, a class, module or `class << x` in expression
//!   position, any write of a class or global variable, `...` at a call, pattern matching, a
//!   regexp literal matched with named captures (`/(?<y>.)/ =~ s`), a bare regexp as a condition,
//!   flip-flops, `for`, backticks, `BEGIN`/`END`, `__FILE__`/`__LINE__`/`__ENCODING__`, rational
//!   and imaginary literals, constants under `# shareable_constant_value:`;
//! - refused inside a kind it takes: `defined?` of anything but `@ivar`, a local or a bare name;
//!   a block argument other than `&:sym`, `&local` or `&`; anonymous `**` at a call; a multiple
//!   assignment with targets after a splat, or to anything but locals, ivars and one-index
//!   elements; a compound assignment to a multi-index element; `begin … end while`; an empty
//!   `#{}`; `#@x` interpolation; an interpolated regexp with an encoding flag;
//! - a `def` used as a value (`private def x`, a `def` inside a block) becomes `nil`: its body is
//!   never read, so nothing in it is rejected, and the method is gone;
//! - dropped without a word: a block's or lambda's parameters other than plain names (and `_1`).
//!
//! The compiler records a rejected node and goes on with its siblings, never looking inside it; this
//! pass looks inside (a `for` loop's body, a pattern match's arms, an assignment's value) where the
//! code would be read once the construct is rewritten, so that every construct to rewrite is found at
//! once. A class, module or `def` it rejects or drops is not looked into.

use ruby_prism::{Node, Visit};

use crate::diagnostic::RuleId;
use crate::roundhouse::time_formats::{FormatArgument, Receiver};

/// What a rejection costs where the expression sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// The statement or file is compiled: the rejection is the compiler's (a stop, or a dropped file).
    Rejected,
    /// The statement is read on its own and its failure swallowed: the statement alone is dropped.
    StatementDropped,
}

/// One thing the converter does with a node, at a byte range of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub rule: RuleId,
    pub start: usize,
    pub end: usize,
    pub cost: Cost,
    /// For a `def` used as a value: the method's name, and the call it is the argument of.
    pub name: Option<String>,
    pub argument_of: Option<String>,
    /// The construct is what Prism made of a syntax error (`a, b` with nothing assigned: a
    /// multiple assignment's targets).
    pub slip: bool,
    /// For a `to_fs` call: its format and receiver (whether it is expanded is the app's to say).
    pub format: Option<(FormatArgument, Receiver)>,
}

/// Collects what the converter finds in the expressions it is handed.
/// What the converter reports without rejecting anything: the Spinel lane's dynamic dispatch, and a
/// block's parameters it drops.
pub const NOT_REJECTING: [RuleId; 15] = [
    rule!("syntax.symbol-quotes-dropped"),
    rule!("syntax.safe-navigation-arguments"),
    rule!("views.yield-slot-kept"),
    rule!("syntax.grouping-not-ruby"),
    rule!("views.select-options-not-ruby"),
    rule!("syntax.yield-not-ruby"),
    rule!("syntax.yield-regrouped"),
    rule!("syntax.to-fs-not-expanded"),
    rule!("controller.build-attributes-not-ruby"),
    rule!("syntax.ternary-argument"),
    rule!("views.variable-name-not-ruby"),
    rule!("spinel.dynamic-dispatch"),
    rule!("syntax.block-parameter-form"),
    rule!("model.errors-add-dynamic"),
    rule!("model.errors-index-dynamic"),
];

pub struct Converter {
    pub found: Vec<Found>,
    /// Depth of `def`s the walkers opened around the expression (a class variable written there is
    /// `syntax.class-variable-in-method`, in a class body `model.class-variable-initializer`).
    pub in_def: u32,
    pub cost: Cost,
    /// Whether to report calls the Spinel lane cannot compile (`spinel.dynamic-dispatch`): app code.
    pub dispatch: bool,
    /// Which of the compiler's post-analysis lowerings rewrite the expressions: where an
    /// `errors.add` or `errors[…]` it cannot ground is left as written.
    pub lowered: Lowered,
    /// How many of Prism's stand-ins for what a syntax error left out the converter reached: each is
    /// a stop to the compiler (a template's program is parsed without reporting its syntax errors,
    /// so they are its only sign).
    pub missing: usize,
    /// What is walked, for the rules about what the compiler writes into the emitted file
    /// (`syntax.ternary-argument`, `views.variable-name-not-ruby`, `controller.build-attributes-not-ruby`).
    pub emitting: Emitting,
    /// The block parameters of the form builders the view lowering rewrites (`form_with`), while
    /// their blocks are walked: their calls are rewritten into markup, not kept.
    pub builders: Vec<String>,
    /// How many ternaries are open around the expression: the compiler writes each as an `if`, so a
    /// `yield(…)` inside one stands alone (`syntax.yield-not-ruby` is not looked for there).
    pub ternaries: u32,
    /// How many calls whose arguments a lowering consumes are open around the expression
    /// (`params.permit(…)`: its symbols become a record's fields, not symbols in the emitted file).
    pub consumed: u32,
}

/// What the converter walks, for the rules about what the compiler writes into the emitted file:
/// where it keeps a call as written, so that a ternary it writes as a multi-line `if` in the call's
/// first argument, without parentheses, reads as a modifier `if` (measured, fixture
/// `syntax-ternary-argument`); a template's instance variables; a controller's `build`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emitting {
    /// Not looked for (jbuilder, seeds, tests: not measured).
    Off,
    /// A model's or library class's methods: calls with a receiver, and `return`.
    Body,
    /// A controller's: calls with a receiver, and `return` (the lowering puts its own receiverless
    /// calls in parentheses).
    Controller,
    /// A template's Ruby: calls with a receiver, but for `tag.x` and the `form_with` builder's
    /// methods the view lowering rewrites into markup. (A helper without a receiver is written with
    /// parentheses or not by the compiler's types: `raw`, `image_tag` are when their arguments are
    /// typed. Not said.)
    Template,
}

/// The form builder methods the view lowering rewrites into markup in a `form_with` block (a
/// custom builder's own methods are kept as calls).
const BUILDER_LOWERED: &[&str] = &[
    "label",
    "text_field",
    "text_area",
    "textarea",
    "submit",
    "password_field",
    "hidden_field",
    "check_box",
    "checkbox",
    "radio_button",
    "select",
    "button",
    "url_field",
    "email_field",
    "file_field",
    "rich_text_area",
    "rich_textarea",
];

const LOWERED_FORMS: &[&str] = &["form_with"];

/// Calls the Spinel lane cannot compile ahead of time.
const DYNAMIC_DISPATCH: &[&str] = &[
    "send",
    "__send__",
    "public_send",
    "instance_variable_get",
    "instance_variable_set",
    "define_method",
    "class_eval",
    "instance_eval",
    "module_eval",
    "eval",
];

/// Which lowerings after the compiler's analysis rewrite an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lowered {
    /// None: a template's Ruby, jbuilder, what a concern's `included` block brings its includers.
    No,
    /// A model's, controller's or library class's methods and class-body statements, the seeds:
    /// every lowering of a body (`errors.add`, `errors[…]`).
    Body,
    /// A test's body, setup and helpers: `errors[…]` only.
    Test,
}

/// Why the compiler leaves this `errors[…]` as written, when it does: it grounds `<x>.errors[:field]`
/// (one argument, on an argument-less `errors`) into the messages of that field, found by their
/// prefix; a field that is not a symbol literal, or `:base` (whose messages have no prefix), it
/// leaves as an index into the list of messages.
pub fn errors_index_left_dynamic(node: &ruby_prism::CallNode<'_>) -> Option<&'static str> {
    if node.name().as_slice() != b"[]" || node.block().is_some() {
        return None;
    }
    let errors = node.receiver()?.as_call_node()?;
    if errors.name().as_slice() != b"errors" || errors.block().is_some() || errors.arguments().is_some_and(|a| !a.arguments().is_empty()) {
        return None;
    }
    let arguments: Vec<Node<'_>> = node.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
    let [field] = arguments.as_slice() else { return None };
    match field.as_symbol_node() {
        None => Some("a field that is not a symbol literal"),
        Some(symbol) if symbol.unescaped() == b"base" => Some(":base"),
        Some(_) => None,
    }
}

/// Why the compiler leaves this `errors.add` as written, when it does: it grounds `<x>.errors.add`
/// (a block-less `add` on an argument-less `errors`) into an append of the full message only when
/// the field is a symbol literal and there is at most a message beside it (a value, or a hash whose
/// one key is `message:`). `None` for a call that is not such an `add`, or one it grounds.
pub fn errors_add_left_dynamic(node: &ruby_prism::CallNode<'_>) -> Option<&'static str> {
    if node.name().as_slice() != b"add" || node.block().is_some() {
        return None;
    }
    let errors = node.receiver()?.as_call_node()?;
    if errors.name().as_slice() != b"errors" || errors.arguments().is_some_and(|a| !a.arguments().is_empty()) {
        return None;
    }
    let arguments: Vec<Node<'_>> = node.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
    match arguments.first() {
        Some(first) if first.as_symbol_node().is_none() => return Some("a field that is not a symbol literal"),
        None => return Some("no field"),
        Some(_) if arguments.len() > 2 => return Some("options beside the message"),
        Some(_) => {}
    }
    let second = arguments.get(1)?;
    let elements: Option<Vec<Node<'_>>> = second
        .as_keyword_hash_node()
        .map(|h| h.elements().iter().collect())
        .or_else(|| second.as_hash_node().map(|h| h.elements().iter().collect()));
    let elements = elements?;
    let sole_message = elements.len() == 1
        && elements[0].as_assoc_node().and_then(|a| a.key().as_symbol_node()).is_some_and(|k| k.unescaped() == b"message");
    if sole_message { None } else { Some("options beside the message") }
}

fn range(node: &Node<'_>) -> (usize, usize) {
    let location = node.location();
    (location.start_offset(), location.end_offset())
}

pub fn name_of(id: ruby_prism::ConstantId<'_>) -> String {
    String::from_utf8_lossy(id.as_slice()).into_owned()
}

impl Converter {
    /// `views.variable-name-not-ruby`: a template's `@class = …`, which its compiled function writes
    /// as the local `class = …` (a read of it is renamed `class_`; the write is not).
    fn keyword_variable(&mut self, name: ruby_prism::ConstantId<'_>, location: ruby_prism::Location<'_>) {
        if self.emitting == Emitting::Template && crate::syntax::is_ruby_keyword(name_of(name).trim_start_matches('@')) {
            self.report(rule!("views.variable-name-not-ruby"), location.start_offset(), location.end_offset());
        }
    }
}

/// Whether `:text` reads back as the symbol `text` (`:plain`, `:ok?`, `:+`), as Prism parses it.
fn reads_bare(text: &[u8]) -> bool {
    let mut source = Vec::with_capacity(text.len() + 1);
    source.push(b':');
    source.extend_from_slice(text);
    let result = ruby_prism::parse(&source);
    if result.errors().next().is_some() {
        return false;
    }
    let root = result.node();
    let Some(program) = root.as_program_node() else { return false };
    let statements: Vec<Node<'_>> = program.statements().body().iter().collect();
    matches!(statements.as_slice(), [one] if one.as_symbol_node().is_some_and(|s| s.unescaped() == text))
}

/// `@parent.things.build(key: value, …)`: the shape a controller's lowering rewrites into
/// `attrs = <the argument>` (then the parent's id, then `Thing.new(attrs)`), which is no Ruby when
/// the argument is keywords without braces (measured, fixture `controller-build-attributes`).
fn build_with_keywords(value: &Node<'_>) -> bool {
    let Some(build) = value.as_call_node() else { return false };
    let arguments: Vec<Node<'_>> = build.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
    build.name().as_slice() == b"build"
        && build.block().is_none()
        && matches!(arguments.as_slice(), [only] if only.as_keyword_hash_node().is_some())
        && build.receiver().and_then(|r| r.as_call_node()).is_some_and(|association| {
            association.arguments().is_none()
                && association.block().is_none()
                && association.receiver().is_some_and(|parent| parent.as_instance_variable_read_node().is_some())
        })
}

/// `a ? b : c` (an `if` without its keyword), or `(a ? b : c)`, whose parentheses the compiler
/// drops as an argument. Not one with a `nil` branch: the compiler writes `b if a` for that.
fn is_ternary(node: &Node<'_>) -> bool {
    if let Some(body) = node.as_parentheses_node().and_then(|p| p.body()).and_then(|b| b.as_statements_node()) {
        let statements: Vec<Node<'_>> = body.body().iter().collect();
        return statements.len() == 1 && is_ternary(&statements[0]);
    }
    node.as_if_node().is_some_and(|i| {
        let then_nil = i.statements().is_some_and(|s| s.body().iter().next().is_some_and(|n| n.as_nil_node().is_some()));
        let else_nil = i
            .subsequent()
            .and_then(|e| e.as_else_node())
            .and_then(|e| e.statements())
            .is_some_and(|s| s.body().iter().next().is_some_and(|n| n.as_nil_node().is_some()));
        i.if_keyword_loc().is_none() && !then_nil && !else_nil
    })
}

impl Converter {
    /// Whether `node` is a call without parentheses whose first argument is a ternary, of a kind the
    /// compiler keeps as written where this walk is.
    fn ternary_argument_kept(&self, node: &ruby_prism::CallNode<'_>) -> bool {
        // A method named by a word (not `x.y = v`, `a + b`, `h[k]`): only such a call is written
        // with its arguments after a space.
        if self.emitting == Emitting::Off
            || !named_by_word(node)
            || node.opening_loc().is_some()
            || !node.arguments().and_then(|a| a.arguments().iter().next()).is_some_and(|first| is_ternary(&first))
        {
            return false;
        }
        match (self.emitting, node.receiver()) {
            (Emitting::Template, Some(receiver)) => {
                let builder = receiver.as_local_variable_read_node().is_some_and(|local| self.builders.contains(&name_of(local.name())))
                    && BUILDER_LOWERED.iter().any(|m| m.as_bytes() == node.name().as_slice());
                let tag = receiver.as_call_node().is_some_and(|c| c.receiver().is_none() && c.name().as_slice() == b"tag");
                !builder && !tag
            }
            (Emitting::Template, None) => false,
            // Without a receiver, the compiler writes a call it resolves to a helper with
            // parentheses (`link_to`), its own methods without: not told apart here, not said.
            (_, receiver) => receiver.is_some(),
        }
    }

    pub fn new(cost: Cost, dispatch: bool) -> Converter {
        Converter {
            found: Vec::new(),
            in_def: 0,
            cost,
            dispatch,
            lowered: Lowered::No,
            missing: 0,
            emitting: Emitting::Off,
            builders: Vec::new(),
            ternaries: 0,
            consumed: 0,
        }
    }

    pub fn report(&mut self, rule: RuleId, start: usize, end: usize) {
        self.found.push(Found { rule, start, end, cost: self.cost, name: None, argument_of: None, slip: false, format: None });
    }

    /// `report`, with what the message names (`Found::name`).
    fn report_named(&mut self, rule: RuleId, start: usize, end: usize, name: String) {
        self.found.push(Found { rule, start, end, cost: self.cost, name: Some(name), argument_of: None, slip: false, format: None });
    }

    fn reject(&mut self, rule: RuleId, node: &Node<'_>) {
        let (start, end) = range(node);
        self.report(rule, start, end);
    }

    /// Converts `node` as the compiler does an expression it is handed.
    pub fn expression(&mut self, node: &Node<'_>) {
        self.visit(node);
    }

    /// A method's parameters' defaults (the compiler converts them) and its body, one `def` deeper.
    pub fn method(&mut self, def: &ruby_prism::DefNode<'_>, keyword_defaults: bool) {
        self.in_def += 1;
        if let Some(parameters) = def.parameters() {
            for optional in parameters.optionals().iter() {
                if let Some(optional) = optional.as_optional_parameter_node() {
                    self.visit(&optional.value());
                }
            }
            if keyword_defaults {
                for keyword in parameters.keywords().iter() {
                    if let Some(keyword) = keyword.as_optional_keyword_parameter_node() {
                        self.visit(&keyword.value());
                    }
                }
            }
        }
        if self.dispatch && name_of(def.name()) == "method_missing" {
            let location = def.name_loc();
            self.report(rule!("spinel.dynamic-dispatch"), location.start_offset(), location.end_offset());
        }
        if let Some(body) = def.body() {
            self.visit(&body);
        }
        self.in_def -= 1;
    }

    /// A scope's lambda: its defaults and keywords are kept (and its defaults converted), its body
    /// converted.
    pub fn scope_lambda(&mut self, parameters: Option<Node<'_>>, body: Option<Node<'_>>) {
        if let Some(list) = parameters.as_ref().and_then(|p| p.as_block_parameters_node()).and_then(|p| p.parameters()) {
            for optional in list.optionals().iter() {
                if let Some(optional) = optional.as_optional_parameter_node() {
                    self.visit(&optional.value());
                }
            }
            for keyword in list.keywords().iter() {
                if let Some(keyword) = keyword.as_optional_keyword_parameter_node() {
                    self.visit(&keyword.value());
                }
            }
        }
        self.block_parameters(parameters, true);
        if let Some(body) = body {
            self.visit(&body);
        }
    }

    /// Parameters a block or lambda takes that the compiler drops: all but plain names (`|a, b|`).
    /// Anonymous ones (`|*|`, `|&|`) lose nothing. A scope's lambda keeps defaults and keywords, but
    /// not numbered parameters: the scope becomes a method without them (`_1` is left unbound). A
    /// block's `_1` stays as written, and Ruby binds it in the emitted code as in the original.
    fn block_parameters(&mut self, parameters: Option<Node<'_>>, scope: bool) {
        let Some(parameters) = parameters else { return };
        if let Some(numbered) = parameters.as_numbered_parameters_node().filter(|_| scope) {
            let (start, end) = range(&numbered.as_node());
            // The node spans the whole block; report its opening only.
            let _ = end;
            self.report(rule!("syntax.block-parameter-form"), start, start + 1);
            return;
        }
        let Some(block_parameters) = parameters.as_block_parameters_node() else { return };
        let Some(list) = block_parameters.parameters() else { return };
        let mut dropped: Vec<Node<'_>> = Vec::new();
        dropped.extend(list.requireds().iter().filter(|r| r.as_multi_target_node().is_some()));
        if !scope {
            dropped.extend(list.optionals().iter());
            dropped.extend(list.keywords().iter());
        }
        dropped.extend(list.rest().filter(|r| r.as_rest_parameter_node().is_some_and(|r| r.name().is_some())));
        dropped.extend(list.posts().iter());
        dropped.extend(list.keyword_rest().filter(|r| r.as_keyword_rest_parameter_node().is_some_and(|r| r.name().is_some())));
        dropped.extend(list.block().filter(|b| b.name().is_some()).map(|b| b.as_node()));
        for parameter in dropped {
            self.reject(rule!("syntax.block-parameter-form"), &parameter);
        }
    }

    /// `defined?`: of an ivar, a local or a receiverless call without arguments or block.
    fn defined_target_supported(value: &Node<'_>) -> bool {
        if value.as_instance_variable_read_node().is_some() || value.as_local_variable_read_node().is_some() {
            return true;
        }
        value.as_call_node().is_some_and(|call| call.receiver().is_none() && call.arguments().is_none() && call.block().is_none())
    }

    /// A multiple assignment's targets: locals, ivars and one-index elements only, none after a splat.
    fn multi_write_supported(lefts: ruby_prism::NodeList<'_>, rest: Option<Node<'_>>, rights: ruby_prism::NodeList<'_>) -> bool {
        if rights.iter().next().is_some() {
            return false;
        }
        let target_supported = |target: &Node<'_>| {
            target.as_local_variable_target_node().is_some()
                || target.as_instance_variable_target_node().is_some()
                || target.as_index_target_node().is_some()
        };
        let rest_supported = rest.is_none_or(|rest| {
            rest.as_implicit_rest_node().is_some()
                || rest.as_splat_node().is_some_and(|splat| splat.expression().is_none_or(|e| target_supported(&e)))
        });
        lefts.iter().all(|t| target_supported(&t)) && rest_supported
    }

    fn interpolation_parts(&mut self, parts: ruby_prism::NodeList<'_>) {
        for part in parts.iter() {
            if let Some(embedded) = part.as_embedded_statements_node() {
                match embedded.statements() {
                    Some(statements) => self.visit_statements_node(&statements),
                    None => self.reject(rule!("syntax.empty-interpolation"), &part),
                }
            } else if part.as_embedded_variable_node().is_some() {
                self.reject(rule!("syntax.embedded-variable"), &part);
            } else {
                self.visit(&part);
            }
        }
    }

    /// A compound assignment to an element: one index only.
    fn index_write(&mut self, node: &Node<'_>, arguments: Option<ruby_prism::ArgumentsNode<'_>>) -> bool {
        let count = arguments.map_or(0, |a| a.arguments().iter().count());
        if count != 1 {
            self.reject(rule!("syntax.multi-index-assign"), node);
            return false;
        }
        true
    }
}

impl<'pr> Visit<'pr> for Converter {
    fn visit_alias_method_node(&mut self, node: &ruby_prism::AliasMethodNode<'pr>) {
        self.reject(rule!("syntax.alias-keyword"), &node.as_node());
    }
    fn visit_alias_global_variable_node(&mut self, node: &ruby_prism::AliasGlobalVariableNode<'pr>) {
        self.reject(rule!("syntax.alias-keyword"), &node.as_node());
    }
    fn visit_undef_node(&mut self, node: &ruby_prism::UndefNode<'pr>) {
        self.reject(rule!("syntax.undef"), &node.as_node());
    }
    fn visit_class_node(&mut self, node: &ruby_prism::ClassNode<'pr>) {
        self.reject(rule!("syntax.nested-definition"), &node.as_node());
    }
    fn visit_module_node(&mut self, node: &ruby_prism::ModuleNode<'pr>) {
        self.reject(rule!("syntax.nested-definition"), &node.as_node());
    }
    fn visit_singleton_class_node(&mut self, node: &ruby_prism::SingletonClassNode<'pr>) {
        self.reject(rule!("syntax.nested-definition"), &node.as_node());
    }
    fn visit_class_variable_write_node(&mut self, node: &ruby_prism::ClassVariableWriteNode<'pr>) {
        self.class_variable_write(&node.as_node());
        ruby_prism::visit_class_variable_write_node(self, node);
    }
    fn visit_class_variable_or_write_node(&mut self, node: &ruby_prism::ClassVariableOrWriteNode<'pr>) {
        self.class_variable_write(&node.as_node());
        ruby_prism::visit_class_variable_or_write_node(self, node);
    }
    fn visit_class_variable_and_write_node(&mut self, node: &ruby_prism::ClassVariableAndWriteNode<'pr>) {
        self.class_variable_write(&node.as_node());
        ruby_prism::visit_class_variable_and_write_node(self, node);
    }
    fn visit_class_variable_operator_write_node(&mut self, node: &ruby_prism::ClassVariableOperatorWriteNode<'pr>) {
        self.class_variable_write(&node.as_node());
        ruby_prism::visit_class_variable_operator_write_node(self, node);
    }
    fn visit_global_variable_write_node(&mut self, node: &ruby_prism::GlobalVariableWriteNode<'pr>) {
        self.reject(rule!("syntax.global-variable-write"), &node.as_node());
        ruby_prism::visit_global_variable_write_node(self, node);
    }
    fn visit_global_variable_or_write_node(&mut self, node: &ruby_prism::GlobalVariableOrWriteNode<'pr>) {
        self.reject(rule!("syntax.global-variable-write"), &node.as_node());
        ruby_prism::visit_global_variable_or_write_node(self, node);
    }
    fn visit_global_variable_and_write_node(&mut self, node: &ruby_prism::GlobalVariableAndWriteNode<'pr>) {
        self.reject(rule!("syntax.global-variable-write"), &node.as_node());
        ruby_prism::visit_global_variable_and_write_node(self, node);
    }
    fn visit_global_variable_operator_write_node(&mut self, node: &ruby_prism::GlobalVariableOperatorWriteNode<'pr>) {
        self.reject(rule!("syntax.global-variable-write"), &node.as_node());
        ruby_prism::visit_global_variable_operator_write_node(self, node);
    }
    fn visit_forwarding_arguments_node(&mut self, node: &ruby_prism::ForwardingArgumentsNode<'pr>) {
        self.reject(rule!("syntax.argument-forwarding"), &node.as_node());
    }
    fn visit_case_match_node(&mut self, node: &ruby_prism::CaseMatchNode<'pr>) {
        self.reject(rule!("syntax.pattern-matching"), &node.as_node());
        ruby_prism::visit_case_match_node(self, node);
    }
    fn visit_match_predicate_node(&mut self, node: &ruby_prism::MatchPredicateNode<'pr>) {
        self.reject(rule!("syntax.pattern-matching"), &node.as_node());
        ruby_prism::visit_match_predicate_node(self, node);
    }
    fn visit_match_required_node(&mut self, node: &ruby_prism::MatchRequiredNode<'pr>) {
        self.reject(rule!("syntax.pattern-matching"), &node.as_node());
        ruby_prism::visit_match_required_node(self, node);
    }
    fn visit_match_write_node(&mut self, node: &ruby_prism::MatchWriteNode<'pr>) {
        self.reject(rule!("syntax.regex-named-capture"), &node.as_node());
        ruby_prism::visit_match_write_node(self, node);
    }
    fn visit_match_last_line_node(&mut self, node: &ruby_prism::MatchLastLineNode<'pr>) {
        self.reject(rule!("syntax.regex-condition"), &node.as_node());
    }
    fn visit_interpolated_match_last_line_node(&mut self, node: &ruby_prism::InterpolatedMatchLastLineNode<'pr>) {
        self.reject(rule!("syntax.regex-condition"), &node.as_node());
    }
    fn visit_flip_flop_node(&mut self, node: &ruby_prism::FlipFlopNode<'pr>) {
        self.reject(rule!("syntax.flip-flop"), &node.as_node());
        ruby_prism::visit_flip_flop_node(self, node);
    }
    fn visit_for_node(&mut self, node: &ruby_prism::ForNode<'pr>) {
        self.reject(rule!("syntax.for-loop"), &node.as_node());
        ruby_prism::visit_for_node(self, node);
    }
    fn visit_x_string_node(&mut self, node: &ruby_prism::XStringNode<'pr>) {
        self.reject(rule!("syntax.backtick-command"), &node.as_node());
    }
    fn visit_interpolated_x_string_node(&mut self, node: &ruby_prism::InterpolatedXStringNode<'pr>) {
        self.reject(rule!("syntax.backtick-command"), &node.as_node());
        ruby_prism::visit_interpolated_x_string_node(self, node);
    }
    fn visit_pre_execution_node(&mut self, node: &ruby_prism::PreExecutionNode<'pr>) {
        self.reject(rule!("syntax.begin-end-block"), &node.as_node());
        ruby_prism::visit_pre_execution_node(self, node);
    }
    fn visit_post_execution_node(&mut self, node: &ruby_prism::PostExecutionNode<'pr>) {
        self.reject(rule!("syntax.begin-end-block"), &node.as_node());
        ruby_prism::visit_post_execution_node(self, node);
    }
    fn visit_source_file_node(&mut self, node: &ruby_prism::SourceFileNode<'pr>) {
        self.reject(rule!("syntax.magic-constant"), &node.as_node());
    }
    fn visit_source_line_node(&mut self, node: &ruby_prism::SourceLineNode<'pr>) {
        self.reject(rule!("syntax.magic-constant"), &node.as_node());
    }
    fn visit_source_encoding_node(&mut self, node: &ruby_prism::SourceEncodingNode<'pr>) {
        self.reject(rule!("syntax.magic-constant"), &node.as_node());
    }
    fn visit_rational_node(&mut self, node: &ruby_prism::RationalNode<'pr>) {
        self.reject(rule!("syntax.rational-imaginary"), &node.as_node());
    }
    fn visit_imaginary_node(&mut self, node: &ruby_prism::ImaginaryNode<'pr>) {
        self.reject(rule!("syntax.rational-imaginary"), &node.as_node());
    }
    fn visit_shareable_constant_node(&mut self, node: &ruby_prism::ShareableConstantNode<'pr>) {
        self.reject(rule!("syntax.shareable-constant"), &node.as_node());
    }
    // A syntax error's stand-in: the error itself is the finding (`syntax.parse-error`, or a
    // template's `views.template-parse-error`).
    // One inside a construct the converter rejected is never reached: the compiler does not look
    // into what it rejects (this pass does, for what else is there to rewrite).
    fn visit_missing_node(&mut self, node: &ruby_prism::MissingNode<'pr>) {
        let at = node.location().start_offset();
        if !self.found.iter().any(|f| f.start <= at && at <= f.end && !NOT_REJECTING.contains(&f.rule)) {
            self.missing += 1;
        }
    }

    /// A `def` as a value is `nil` to the compiler: the method is gone and its body never read.
    fn visit_def_node(&mut self, node: &ruby_prism::DefNode<'pr>) {
        let (start, end) = range(&node.as_node());
        self.report_named(rule!("syntax.def-in-expression"), start, end, name_of(node.name()));
    }

    fn visit_defined_node(&mut self, node: &ruby_prism::DefinedNode<'pr>) {
        if !Self::defined_target_supported(&node.value()) {
            self.reject(rule!("syntax.defined-path"), &node.as_node());
        }
    }

    fn visit_while_node(&mut self, node: &ruby_prism::WhileNode<'pr>) {
        if node.is_begin_modifier() {
            self.reject(rule!("syntax.do-while"), &node.as_node());
        }
        ruby_prism::visit_while_node(self, node);
    }
    fn visit_until_node(&mut self, node: &ruby_prism::UntilNode<'pr>) {
        if node.is_begin_modifier() {
            self.reject(rule!("syntax.do-while"), &node.as_node());
        }
        ruby_prism::visit_until_node(self, node);
    }

    fn visit_multi_write_node(&mut self, node: &ruby_prism::MultiWriteNode<'pr>) {
        if !Self::multi_write_supported(node.lefts(), node.rest(), node.rights()) {
            self.reject(rule!("syntax.multi-assign-target"), &node.as_node());
            if let Some(last) = self.found.last_mut() {
                last.slip = node.value().as_missing_node().is_some();
            }
            self.visit(&node.value());
            return;
        }
        for target in node.lefts().iter() {
            if let Some(index) = target.as_index_target_node()
                && !self.index_write(&target, index.arguments())
            {
                return;
            }
        }
        ruby_prism::visit_multi_write_node(self, node);
    }

    fn visit_index_operator_write_node(&mut self, node: &ruby_prism::IndexOperatorWriteNode<'pr>) {
        if self.index_write(&node.as_node(), node.arguments()) {
            ruby_prism::visit_index_operator_write_node(self, node);
        }
    }
    fn visit_index_or_write_node(&mut self, node: &ruby_prism::IndexOrWriteNode<'pr>) {
        if self.index_write(&node.as_node(), node.arguments()) {
            ruby_prism::visit_index_or_write_node(self, node);
        }
    }
    fn visit_index_and_write_node(&mut self, node: &ruby_prism::IndexAndWriteNode<'pr>) {
        if self.index_write(&node.as_node(), node.arguments()) {
            ruby_prism::visit_index_and_write_node(self, node);
        }
    }

    fn visit_interpolated_string_node(&mut self, node: &ruby_prism::InterpolatedStringNode<'pr>) {
        self.interpolation_parts(node.parts());
    }
    /// `syntax.symbol-quotes-dropped`: the compiler writes a symbol as `:` and its text, without the
    /// quotes `:"180x180"` or `:"foo-bar"` need (fixture `syntax-symbol-quotes`). Whether the text
    /// reads back as the same symbol is Prism's to say.
    fn visit_symbol_node(&mut self, node: &ruby_prism::SymbolNode<'pr>) {
        let quoted = node.opening_loc().is_some_and(|o| matches!(o.as_slice(), b":\"" | b":'") || o.as_slice().starts_with(b"%s"));
        // A model's, a library class's or a controller's methods (a template's helpers and form
        // builders are rewritten into markup: not measured).
        let emitted = matches!(self.emitting, Emitting::Body | Emitting::Controller) && self.consumed == 0;
        if quoted && emitted && !reads_bare(node.unescaped()) {
            let location = node.location();
            let text = String::from_utf8_lossy(node.unescaped()).into_owned();
            self.report_named(rule!("syntax.symbol-quotes-dropped"), location.start_offset(), location.end_offset(), text);
        }
    }
    fn visit_interpolated_symbol_node(&mut self, node: &ruby_prism::InterpolatedSymbolNode<'pr>) {
        self.interpolation_parts(node.parts());
    }
    fn visit_interpolated_regular_expression_node(&mut self, node: &ruby_prism::InterpolatedRegularExpressionNode<'pr>) {
        if node.is_euc_jp() || node.is_windows_31j() || node.is_utf_8() || node.is_ascii_8bit() {
            self.reject(rule!("syntax.regex-once-flag"), &node.as_node());
            return;
        }
        self.interpolation_parts(node.parts());
    }

    // A hash's symbol key is written as a label, quoted where it needs to be (`"search[lat]": 1`).
    fn visit_assoc_node(&mut self, node: &ruby_prism::AssocNode<'pr>) {
        if node.key().as_symbol_node().is_none() {
            self.visit(&node.key());
        }
        self.visit(&node.value());
    }

    fn visit_assoc_splat_node(&mut self, node: &ruby_prism::AssocSplatNode<'pr>) {
        match node.value() {
            Some(value) => self.visit(&value),
            None => self.reject(rule!("syntax.anonymous-keyword-forwarding"), &node.as_node()),
        }
    }

    /// `yield(…)` with arguments: the compiler writes it without its parentheses. Whether that is
    /// Ruby where it stands, and means the same, is decided on the whole text (`settle_yields`); here
    /// it is a candidate.
    fn visit_yield_node(&mut self, node: &ruby_prism::YieldNode<'pr>) {
        if node.arguments().is_some() && node.lparen_loc().is_some() && node.rparen_loc().is_some() && self.ternaries == 0 {
            let (start, end) = range(&node.as_node());
            self.report(rule!("syntax.yield-not-ruby"), start, end);
        }
        // A template's `yield :slot`: the view lowering reads it as the slot only as an output tag's
        // whole code (the template decides: `judge_compiled`).
        if self.emitting == Emitting::Template
            && node.arguments().is_some_and(|a| {
                let arguments: Vec<Node<'_>> = a.arguments().iter().collect();
                matches!(arguments.as_slice(), [one] if one.as_symbol_node().is_some())
            })
        {
            let (start, end) = range(&node.as_node());
            self.report(rule!("views.yield-slot-kept"), start, end);
        }
        ruby_prism::visit_yield_node(self, node);
    }

    fn visit_if_node(&mut self, node: &ruby_prism::IfNode<'pr>) {
        let ternary = node.if_keyword_loc().is_none();
        self.ternaries += u32::from(ternary);
        ruby_prism::visit_if_node(self, node);
        self.ternaries -= u32::from(ternary);
    }

    fn visit_and_node(&mut self, node: &ruby_prism::AndNode<'pr>) {
        if node.operator_loc().as_slice() == b"&&" {
            self.operands_grouped(&[node.left(), node.right()]);
        }
        ruby_prism::visit_and_node(self, node);
    }

    fn visit_or_node(&mut self, node: &ruby_prism::OrNode<'pr>) {
        if node.operator_loc().as_slice() == b"||" {
            self.operands_grouped(&[node.left(), node.right()]);
        }
        ruby_prism::visit_or_node(self, node);
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        let method = node.name().as_slice();
        if let Some(format) = format_call(node)
            && let Some(name) = node.message_loc()
        {
            let end = node.location().end_offset();
            self.found.push(Found {
                rule: rule!("syntax.to-fs-not-expanded"),
                start: name.start_offset(),
                end,
                cost: self.cost,
                name: None,
                argument_of: None,
                slip: false,
                format: Some(format),
            });
        }
        let left_dynamic = match self.lowered {
            Lowered::Body => errors_add_left_dynamic(node)
                .map(|r| (rule!("model.errors-add-dynamic"), r))
                .or_else(|| errors_index_left_dynamic(node).map(|r| (rule!("model.errors-index-dynamic"), r))),
            Lowered::Test => errors_index_left_dynamic(node).map(|r| (rule!("model.errors-index-dynamic"), r)),
            Lowered::No => None,
        };
        if let Some((rule, reason)) = left_dynamic {
            let (start, end) = range(&node.as_node());
            self.report_named(rule, start, end, reason.to_owned());
        }
        if self.dispatch {
            if let Some(location) = node.message_loc().filter(|_| DYNAMIC_DISPATCH.iter().any(|m| m.as_bytes() == method)) {
                self.report(rule!("spinel.dynamic-dispatch"), location.start_offset(), location.end_offset());
            } else if method == b"new"
                && node
                    .receiver()
                    .and_then(|r| r.as_constant_read_node())
                    .is_some_and(|c| matches!(c.name().as_slice(), b"Thread" | b"Mutex"))
            {
                let (start, end) = range(&node.as_node());
                self.report(rule!("spinel.dynamic-dispatch"), start, end);
            }
        }
        // A parenthesized expression as an argument (`f(a, (h x))`, `key: (method :x)`): the compiler
        // writes it without its parentheses; whether that is Ruby is decided on the whole text
        // (`settle_yields`).
        for argument in node.arguments().iter().flat_map(|a| a.arguments().iter()) {
            let values: Vec<Node<'_>> = match argument.as_keyword_hash_node() {
                Some(hash) => hash.elements().iter().filter_map(|e| e.as_assoc_node().map(|a| a.value())).collect(),
                None => vec![argument],
            };
            for value in values {
                // Measured inside: a call without parentheses with arguments, `or`, `and`.
                let inner = grouped(&value).map(|one| {
                    command_call(&one)
                        || one.as_or_node().is_some_and(|o| o.operator_loc().as_slice() == b"or")
                        || one.as_and_node().is_some_and(|a| a.operator_loc().as_slice() == b"and")
                });
                // Not in a template: the view lowering rewrites the helpers around it (`link_to`,
                // `check_box_tag`), and where the argument lands is theirs.
                if inner == Some(true) && self.emitting != Emitting::Template {
                    let (start, end) = range(&value);
                    self.report(rule!("syntax.grouping-not-ruby"), start, end);
                }
            }
        }
        // `private def x`: the `def` is the call's argument.
        for argument in node.arguments().iter().flat_map(|a| a.arguments().iter()) {
            if let Some(def) = argument.as_def_node() {
                let (start, end) = range(&argument);
                self.found.push(Found {
                    rule: rule!("syntax.def-in-expression"),
                    start,
                    end,
                    cost: self.cost,
                    name: Some(name_of(def.name())),
                    argument_of: Some(name_of(node.name())),
                    slip: false,
                    format: None,
                });
            }
        }
        // `x&.m arg` without parentheses: the compiler writes `x && x.m arg`, a call with arguments
        // after a space as the operand of `&&`, which is not Ruby. (Not a method it rewrites into
        // an operator: `x&.before? t` becomes `x && x < t`.)
        if matches!(self.emitting, Emitting::Body | Emitting::Controller)
            && node.call_operator_loc().is_some_and(|o| o.as_slice() == b"&.")
            && !matches!(method, b"before?" | b"after?" | b"in?" | b"exclude?" | b"including" | b"excluding")
            && named_by_word(node)
            && node.opening_loc().is_none()
            && node.arguments().is_some()
        {
            let (start, end) = range(&node.as_node());
            self.found.push(Found {
                rule: rule!("syntax.safe-navigation-arguments"),
                start,
                end,
                cost: self.cost,
                name: node.receiver().map(|r| String::from_utf8_lossy(r.location().as_slice()).into_owned()),
                argument_of: Some(name_of(node.name())),
                slip: false,
                format: None,
            });
        }
        if self.ternary_argument_kept(node)
            && let Some(first) = node.arguments().and_then(|a| a.arguments().iter().next())
        {
            let (start, end) = range(&first);
            let written = match node.receiver() {
                Some(receiver) => format!("{}.{}", String::from_utf8_lossy(receiver.location().as_slice()), name_of(node.name())),
                None => name_of(node.name()),
            };
            self.found.push(Found {
                rule: rule!("syntax.ternary-argument"),
                start,
                end,
                cost: self.cost,
                name: None,
                argument_of: Some(written),
                slip: false,
                format: None,
            });
        }
        // A `form_with` builder's `select` is written as markup, its `options_for_select`'s second
        // argument taken as the selected value: keywords there (`selected: x`) become `if selected: x
        // == …`, which is not Ruby.
        if self.emitting == Emitting::Template
            && method == b"select"
            && node
                .receiver()
                .and_then(|r| r.as_local_variable_read_node())
                .is_some_and(|local| self.builders.contains(&name_of(local.name())))
        {
            for argument in node.arguments().iter().flat_map(|a| a.arguments().iter()) {
                let Some(options) =
                    argument.as_call_node().filter(|c| c.receiver().is_none() && c.name().as_slice() == b"options_for_select")
                else {
                    continue;
                };
                let arguments: Vec<Node<'_>> = options.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
                if let [choices, keywords] = arguments.as_slice()
                    && let Some(hash) = keywords.as_keyword_hash_node()
                    && select_options_written(choices)
                {
                    let (start, end) = range(keywords);
                    let keys: Vec<String> = hash
                        .elements()
                        .iter()
                        .filter_map(|e| {
                            e.as_assoc_node()
                                .and_then(|a| a.key().as_symbol_node().map(|k| String::from_utf8_lossy(k.unescaped()).into_owned()))
                        })
                        .collect();
                    self.report_named(rule!("views.select-options-not-ruby"), start, end, keys.join(","));
                }
            }
        }
        if self.emitting == Emitting::Template
            && LOWERED_FORMS.iter().any(|f| f.as_bytes() == method)
            && let Some(block) = node.block().and_then(|b| b.as_block_node())
        {
            let names: Vec<String> = block
                .parameters()
                .and_then(|p| p.as_block_parameters_node())
                .and_then(|p| p.parameters())
                .map(|p| p.requireds().iter().filter_map(|r| r.as_required_parameter_node().map(|r| name_of(r.name()))).collect())
                .unwrap_or_default();
            let pushed = names.len();
            self.builders.extend(names);
            ruby_prism::visit_call_node(self, node);
            self.builders.truncate(self.builders.len() - pushed);
            return;
        }
        if let Some(block) = node.block()
            && let Some(argument) = block.as_block_argument_node()
        {
            let supported = argument.expression().is_none_or(|e| e.as_symbol_node().is_some() || e.as_local_variable_read_node().is_some());
            if !supported {
                self.reject(rule!("syntax.block-argument-form"), &block);
                // The whole call is the compiler's failed node; its arguments are read first.
                if let Some(arguments) = node.arguments() {
                    self.visit_arguments_node(&arguments);
                }
                return;
            }
        }
        // A permit list's symbols become a record's fields (`params.require(:post).permit(…)`).
        let consumed = matches!(method, b"permit" | b"expect" | b"require") && node.receiver().is_some();
        self.consumed += u32::from(consumed);
        ruby_prism::visit_call_node(self, node);
        self.consumed -= u32::from(consumed);
    }

    // A template's instance variable is a local of its compiled function, under the same name.
    fn visit_instance_variable_write_node(&mut self, node: &ruby_prism::InstanceVariableWriteNode<'pr>) {
        self.keyword_variable(node.name(), node.name_loc());
        if self.emitting == Emitting::Controller && self.in_def > 0 && build_with_keywords(&node.value()) {
            let (start, end) = range(&node.value());
            self.report(rule!("controller.build-attributes-not-ruby"), start, end);
        }
        ruby_prism::visit_instance_variable_write_node(self, node);
    }

    fn visit_instance_variable_or_write_node(&mut self, node: &ruby_prism::InstanceVariableOrWriteNode<'pr>) {
        self.keyword_variable(node.name(), node.name_loc());
        ruby_prism::visit_instance_variable_or_write_node(self, node);
    }

    fn visit_instance_variable_operator_write_node(&mut self, node: &ruby_prism::InstanceVariableOperatorWriteNode<'pr>) {
        self.keyword_variable(node.name(), node.name_loc());
        ruby_prism::visit_instance_variable_operator_write_node(self, node);
    }

    fn visit_return_node(&mut self, node: &ruby_prism::ReturnNode<'pr>) {
        if matches!(self.emitting, Emitting::Body | Emitting::Controller)
            && let Some(first) = node.arguments().and_then(|a| a.arguments().iter().next())
            // `return(x ? a : b)` too: the compiler drops a `return`'s parentheses.
            && is_ternary(&first)
        {
            let (start, end) = range(&first);
            self.report(rule!("syntax.ternary-argument"), start, end);
        }
        ruby_prism::visit_return_node(self, node);
    }

    // `super`'s block is dropped unread.
    fn visit_super_node(&mut self, node: &ruby_prism::SuperNode<'pr>) {
        if let Some(arguments) = node.arguments() {
            self.visit_arguments_node(&arguments);
        }
    }
    fn visit_forwarding_super_node(&mut self, _node: &ruby_prism::ForwardingSuperNode<'pr>) {}

    fn visit_block_node(&mut self, node: &ruby_prism::BlockNode<'pr>) {
        self.block_parameters(node.parameters(), false);
        if let Some(body) = node.body() {
            self.visit(&body);
        }
    }
    fn visit_lambda_node(&mut self, node: &ruby_prism::LambdaNode<'pr>) {
        self.block_parameters(node.parameters(), false);
        if let Some(body) = node.body() {
            self.visit(&body);
        }
    }
}

impl Converter {
    fn class_variable_write(&mut self, node: &Node<'_>) {
        let rule = if self.in_def > 0 { rule!("syntax.class-variable-in-method") } else { rule!("model.class-variable-initializer") };
        self.reject(rule, node);
    }

    /// An operand of `&&`/`||` in parentheses around a call without them (`a && (b.include? x)`):
    /// the compiler writes it without its parentheses (it keeps those an operator's precedence
    /// needs). Whether that is Ruby is decided on the whole text (`settle_yields`).
    fn operands_grouped(&mut self, operands: &[Node<'_>]) {
        for operand in operands {
            if self.emitting != Emitting::Template && grouped(operand).is_some_and(|one| command_call(&one)) {
                let (start, end) = range(operand);
                self.report(rule!("syntax.grouping-not-ruby"), start, end);
            }
        }
    }
}

/// The one statement of a parenthesized expression (`(f x)`).
fn grouped<'pr>(node: &Node<'pr>) -> Option<Node<'pr>> {
    let statements = node.as_parentheses_node()?.body()?.as_statements_node()?;
    let mut body = statements.body().iter();
    let one = body.next()?;
    body.next().is_none().then_some(one)
}

/// A call of a method named by a word (not `a & b`), with arguments after a space (`h name`).
fn command_call(node: &Node<'_>) -> bool {
    node.as_call_node().is_some_and(|c| named_by_word(&c) && c.opening_loc().is_none() && c.arguments().is_some())
}

/// Whether the call's method is named by a word (`link_to`, `present?`), not an operator, an index
/// or a writer (`a + b`, `h[k]`, `x.y = v`): only such a call is written with its arguments after a
/// space.
fn named_by_word(call: &ruby_prism::CallNode<'_>) -> bool {
    call.name().as_slice().iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'?' | b'!'))
}

/// `x.to_fs(…)` or `x.to_formatted_s(…)` without a block: its format and its receiver, as the
/// compiler's expansion of it reads them (`roundhouse::time_formats`).
fn format_call(node: &ruby_prism::CallNode<'_>) -> Option<(FormatArgument, Receiver)> {
    if !matches!(node.name().as_slice(), b"to_fs" | b"to_formatted_s") || node.block().is_some() {
        return None;
    }
    let receiver = node.receiver()?;
    let arguments: Vec<Node<'_>> = node.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
    let format = match arguments.as_slice() {
        [] => FormatArgument::None,
        [one] => {
            if let Some(symbol) = one.as_symbol_node() {
                FormatArgument::Literal(String::from_utf8_lossy(symbol.unescaped()).into_owned())
            } else if let Some(string) = one.as_string_node() {
                FormatArgument::Literal(String::from_utf8_lossy(string.unescaped()).into_owned())
            } else {
                FormatArgument::Computed
            }
        }
        _ => FormatArgument::Several,
    };
    Some((format, plain_read(&receiver)))
}

/// Whether `node` reads a value without effects, as the compiler decides before it puts a receiver in
/// place of a format lambda's parameter: a variable, a constant, `self`, a literal, or calls without
/// arguments or a block on one of those.
fn plain_read(node: &Node<'_>) -> Receiver {
    if node.as_local_variable_read_node().is_some()
        || node.as_instance_variable_read_node().is_some()
        || node.as_constant_read_node().is_some()
        || node.as_constant_path_node().is_some()
        || node.as_self_node().is_some()
        || node.as_integer_node().is_some()
        || node.as_float_node().is_some()
        || node.as_string_node().is_some()
        || node.as_symbol_node().is_some()
        || node.as_nil_node().is_some()
        || node.as_true_node().is_some()
        || node.as_false_node().is_some()
    {
        return Receiver::Plain;
    }
    let Some(call) = node.as_call_node() else { return Receiver::Effects };
    if call.is_safe_navigation() {
        return Receiver::Unsure;
    }
    if call.arguments().is_some() || call.block().is_some() {
        return Receiver::Effects;
    }
    call.receiver().map_or(Receiver::Plain, |r| plain_read(&r))
}

/// Whether the view lowering writes a builder `select`'s `options_for_select(choices, …)` as
/// `<option>` markup (comparing each with the second argument as written) rather than a runtime call:
/// an array; `coll.map { |x| [text, value] }` (or a triple with an attributes hash); any other
/// expression but `a + b` and another `map`, looped over as plain values. Measured (fixture
/// `views-select-options`).
fn select_options_written(choices: &Node<'_>) -> bool {
    // An array (of literal choices, or of others, looped over as plain values), a constant, a
    // variable: written.
    let Some(call) = choices.as_call_node() else { return true };
    match call.name().as_slice() {
        b"+" => false,
        b"map" => {
            // `map(&:x)`: the runtime call; `map` alone: looped over.
            let Some(block) = call.block().and_then(|b| b.as_block_node()) else { return call.block().is_none() };
            let named = block
                .parameters()
                .and_then(|p| p.as_block_parameters_node())
                .and_then(|p| p.parameters())
                .is_some_and(|p| p.requireds().iter().next().is_some());
            let last = block.body().and_then(|b| b.as_statements_node()).and_then(|s| s.body().iter().last());
            let shaped = last.as_ref().and_then(|l| l.as_array_node()).is_some_and(|a| {
                let elements: Vec<Node<'_>> = a.elements().iter().collect();
                match elements.as_slice() {
                    [_, value] => value.as_hash_node().is_none(),
                    [_, middle, last] => middle.as_hash_node().is_some() || last.as_hash_node().is_some(),
                    _ => false,
                }
            });
            call.receiver().is_some() && named && shaped
        }
        _ => true,
    }
}

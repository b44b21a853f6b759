//! Roundhouse's ingest, mirrored on Prism's tree: which statements of a file its ingest hands to
//! the expression converter (`convert`), which it reads for their DSL alone, and which it never
//! reads. Roundhouse parses Ruby with Prism and decides by Prism's node kinds, so this pass reads
//! each file with the same parser (at the version the compiler builds with) instead of guessing
//! from tree-sitter's tree, whose shapes differ (a heredoc inside another's `#{}`, `-1` as a call,
//! `def m(...)` beside a call's `...`). tree-sitter stays the incremental index every other feature
//! reads; this pass runs once per file where the facts are made (`check_file`).
//!
//! The walkers, one per way the ingest reads a file (measured against the compiler, fixtures in
//! `tests/fixtures/fidelity/`):
//! - **a model file** (`app/models/**`): the file's first class (looked for through modules, not
//!   classes) decides. An Active Record model (`< ApplicationRecord`, `< ActiveRecord::Base`, or no
//!   superclass and `include ActiveModel::Model`/`Validations`) is read statement by statement:
//!   validations, symbol callbacks, `enum`s and `self.primary_key =` for their DSL, an association's
//!   lambdas and blocks on their own (a rejection drops the association's scope, not the compile),
//!   a scope's lambda and every other statement converted (a nested class, `alias`, `@@x = …`
//!   stop the compile), `class << self` holding only `def`s. Its other classes are never read.
//!   Any other first class (an STI subclass, a Mongoid document, a plain class) makes the file a
//!   library file.
//! - **a controller file** (`app/controllers/**`): the first class named `…Controller` (else the
//!   first class) is read as a model is, without the model DSL; its neighbours are not read. With no
//!   class the file is a library file.
//! - **a library file** (`lib/`, helpers, jobs, mailers, the `app/models` files above): every class
//!   and every module that defines something; in a body, methods and constant values are converted,
//!   `@@x = v` refused unless `v` is `nil`, `class << self`, `class_methods do` and
//!   `module ClassMethods` read as the body, `include`/`attr_*`/visibility/`require` read for their
//!   names, other calls without a receiver converted on their own (a rejection drops the call), and
//!   the rest (calls on a receiver, `alias`, conditionals, loops) dropped unread.
//! - **a test file** (`test/models`, `test/controllers`): the test class's test and setup bodies,
//!   helper methods, constants and nested classes.
//! - **a program** (`db/seeds.rb`, jbuilder, a template's Ruby): every statement.
//!
//! Whether a rejection stops the compile or drops the file is the file's reading (`ingest::apply`).

pub mod convert;
pub mod erb;
pub mod haml;
pub mod template_walk;

use ruby_prism::Node;

use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::project::FileKind;
use crate::syntax::LineIndex;
use convert::{Converter, Cost, Found, name_of};

/// More than this many syntax errors in one file says "this file is broken"; the rest are noise.
const MAX_PARSE_ERRORS: usize = 20;

/// `views.template-parse-error` over the line that starts at `line_start`, from its first character
/// to its last.
fn template_stop_on_line(source: &str, line_index: &LineIndex, line_start: usize, message: String) -> Diagnostic {
    let line_end = source[line_start..].find('\n').map_or(source.len(), |n| line_start + n);
    let line = source[line_start..line_end].trim_end();
    let content = line_start + (line.len() - line.trim_start().len());
    Diagnostic {
        span: line_index.span(content..(line_start + line.len()).max(content)),
        severity: Severity::Error,
        rule: rule!("views.template-parse-error"),
        message,
    }
}

/// Why a HAML line that assigns a keyword block stops the compile.
const ASSIGNED_BLOCK: &str = "Roundhouse's HAML reader opens a block only for a line that starts with `if`, `unless`, `case` (or another keyword) or ends with `do`: this line's block is never closed, and the compiled template does not parse, so its compile stops. Instead, assign in each branch (`- if a` / `- x = 1` / `- else` / `- x = 2`) or in one line (`- x = a ? 1 : 2`).";

/// `- x = if a`, `- y ||= case b`: a HAML code line whose value is a keyword block.
fn assigns_keyword_block(line: &str) -> bool {
    let Some(code) = line.trim_start().strip_prefix('-') else { return false };
    if code.starts_with('#') {
        return false;
    }
    let Some((target, value)) = code.split_once('=') else { return false };
    let target = target.trim().trim_end_matches(['|', '&', '+', '-', '*']);
    let plain_target =
        !target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '@' | '.' | '[' | ']' | ':' | '"' | '\''));
    let value = value.trim_start();
    let keyword = ["if", "unless", "case", "while", "until", "begin"]
        .iter()
        .any(|k| value.strip_prefix(k).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '(', '\n', '\r'])));
    plain_target && !value.starts_with('=') && keyword
}

/// Why a text interpolation whose code holds a double quote stops the compile.
const QUOTED_INTERPOLATION: &str = "Roundhouse writes this text as a double-quoted string, so the `\"` inside its `#{…}` is escaped and the code no longer parses: its compile stops. Instead, use single quotes inside the interpolation (`#{t('.key')}`), or an output line (`= t(\".key\")`)";

/// How the ingest reads the file at `relative_path` of kind `kind`, for this pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    ModelFile,
    ControllerFile,
    LibraryFile,
    TestFile,
    /// Every statement converted: jbuilder, a template's Ruby.
    Program,
    /// Every statement converted, as a body the lowerings rewrite: `db/seeds.rb`.
    Seeds,
    /// Nothing of it is converted.
    None,
}

impl Walk {
    pub fn of(kind: Option<FileKind>, relative_path: &str) -> Walk {
        match kind {
            Some(FileKind::View) => Walk::Program,
            Some(FileKind::Model | FileKind::Concern) if relative_path.starts_with("app/models/") => Walk::ModelFile,
            Some(FileKind::Controller | FileKind::Concern) if relative_path.starts_with("app/controllers/") => Walk::ControllerFile,
            Some(FileKind::Model | FileKind::Controller | FileKind::Concern) => Walk::LibraryFile,
            Some(FileKind::Library | FileKind::Helper | FileKind::AppSupport) => Walk::LibraryFile,
            Some(FileKind::Test) if relative_path.starts_with("test/models/") || relative_path.starts_with("test/controllers/") => {
                Walk::TestFile
            }
            Some(FileKind::Test) if relative_path.starts_with("test/test_helper") => Walk::LibraryFile,
            Some(FileKind::OtherRuby) if relative_path == "db/seeds.rb" => Walk::Seeds,
            _ => Walk::None,
        }
    }
}

/// Prism's syntax errors in `text`, as `syntax.parse-error` findings.
pub fn parse_errors(text: &str, line_index: &LineIndex) -> Vec<Diagnostic> {
    let result = ruby_prism::parse(text.as_bytes());
    errors_of(&result, text, line_index)
}

/// `offset`, or the start of the character it falls inside: every offset this pass maps from one
/// text to another is placed on a character before the text is sliced there.
pub(crate) fn on_char(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn errors_of(result: &ruby_prism::ParseResult<'_>, text: &str, line_index: &LineIndex) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for error in result.errors().take(MAX_PARSE_ERRORS) {
        let location = error.location();
        let start = on_char(text, location.start_offset());
        let end = on_char(text, location.end_offset()).max(start);
        // At most the rest of the line: an error over a whole unclosed block says little more.
        let end = text[start..end].find('\n').map_or(end, |n| start + n);
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Error,
            rule: rule!("syntax.parse-error"),
            message: format!("syntax error: {}", error.message()),
        });
    }
    out
}

/// What the ingest makes of `text` (a file's Ruby; a template's masked Ruby), walked as `walk`
/// says: parse errors (for a `.rb` file, when `parse_errors`) and the findings of the constructs it
/// rejects or drops. `dispatch`: whether to report what the Spinel lane cannot compile (app code).
pub fn judge(text: &str, line_index: &LineIndex, walk: Walk, report_parse_errors: bool, dispatch: bool) -> Vec<Diagnostic> {
    judge_parsed(&ruby_prism::parse(text.as_bytes()), text, line_index, walk, report_parse_errors, dispatch).diagnostics
}

/// What the pass makes of a file: its findings, and the `to_fs` calls in the code the compiler reads
/// (whether each is expanded depends on the app's initializers: `roundhouse::time_formats`).
#[derive(Debug, Default)]
pub struct Judged {
    pub diagnostics: Vec<Diagnostic>,
    /// A template's output tags that are one `render` of a record or a collection: the partial the
    /// compiler calls for it (by names alone), or `None` where it keeps the `render` as written.
    pub record_renders: Vec<(Option<String>, crate::syntax::Span)>,
    /// A template's calls of Rails (and gem) view helpers that the compiler leaves as written:
    /// each helper's name and the call's place (`views.helper-undefined`, once the app is known).
    pub helper_calls: Vec<HelperCall>,
    pub format_calls: Vec<crate::roundhouse::time_formats::FormatCall>,
    /// A template's program that parses: what it names that becomes its function's parameters.
    pub template_names: Option<crate::roundhouse::template_signature::TemplateNames>,
}

/// `judge`, on Prism's parse of `text` made by the caller (which reads the same tree for more).
pub fn judge_parsed(
    result: &ruby_prism::ParseResult<'_>,
    text: &str,
    line_index: &LineIndex,
    walk: Walk,
    report_parse_errors: bool,
    dispatch: bool,
) -> Judged {
    let mut out = if report_parse_errors { errors_of(result, text, line_index) } else { Vec::new() };
    let root = result.node();
    let Some(program) = root.as_program_node() else { return Judged { diagnostics: out, ..Judged::default() } };
    let mut converter = Converter::new(Cost::Rejected, dispatch);
    converter.lowered = match walk {
        Walk::ModelFile | Walk::ControllerFile | Walk::LibraryFile | Walk::Seeds => convert::Lowered::Body,
        Walk::TestFile => convert::Lowered::Test,
        Walk::Program | Walk::None => convert::Lowered::No,
    };
    converter.emitting = match walk {
        Walk::ModelFile | Walk::LibraryFile => convert::Emitting::Body,
        Walk::ControllerFile => convert::Emitting::Controller,
        _ => convert::Emitting::Off,
    };
    let statements: Vec<Node<'_>> = program.statements().body().iter().collect();
    let mut notes = Notes { model_concern: walk == Walk::ModelFile, ..Notes::default() };
    match walk {
        Walk::ModelFile => model_file(&statements, &mut converter, &mut notes),
        Walk::ControllerFile => controller_file(&statements, &mut converter, &mut notes),
        Walk::LibraryFile => library_file(&statements, &mut converter, &mut notes),
        Walk::TestFile => test_file(&statements, &mut converter, &mut notes),
        Walk::Program | Walk::Seeds => {
            for statement in &statements {
                converter.expression(statement);
            }
        }
        Walk::None => {}
    }
    settle_yields(&mut converter.found, text);
    let format_calls = format_calls(&mut converter.found, text, line_index);
    out.extend(findings(converter, notes, text, line_index));
    out.sort_by_key(|d| (d.span.start_byte, d.rule));
    Judged { diagnostics: out, helper_calls: Vec::new(), record_renders: Vec::new(), format_calls, template_names: None }
}

/// What the ingest makes of an ERB template: its Ruby as Roundhouse compiles it (`erb`), converted
/// as one program, each finding placed back in the template; a syntax error in the program is the
/// reason the compile stops (`views.template-parse-error`), placed on the line where Prism noticed
/// it, with its message. (`roundhouse::check_file` weighs the template rules' findings against it.)
/// `None` when the template is no program to the compiler (a `<%` never closed: it crashes).
pub fn judge_erb(source: &str, line_index: &LineIndex, dispatch: bool) -> Option<Vec<Diagnostic>> {
    erb::compile(source)
        .map(|compiled| judge_compiled(&compiled, &ruby_prism::parse(compiled.ruby.as_bytes()), source, line_index, dispatch).diagnostics)
}

/// What the ingest makes of a HAML template, as `judge_erb` does for ERB; its text's interpolation
/// is Ruby to Roundhouse too, so a rejection there (`#@x`) is reported where it is.
pub fn judge_haml(source: &str, line_index: &LineIndex, dispatch: bool) -> Vec<Diagnostic> {
    let compiled = haml::compile(source);
    judge_compiled(&compiled, &ruby_prism::parse(compiled.ruby.as_bytes()), source, line_index, dispatch).diagnostics
}

/// `judge_erb` or `judge_haml`, on the template's program and Prism's parse of it, both made by the
/// caller (which reads the same tree for more).
pub fn judge_compiled(
    compiled: &erb::Compiled,
    result: &ruby_prism::ParseResult<'_>,
    source: &str,
    line_index: &LineIndex,
    dispatch: bool,
) -> Judged {
    let root = result.node();
    let Some(program) = root.as_program_node() else { return Judged::default() };
    let mut converter = converted_template(&program, dispatch);
    settle_yields(&mut converter.found, &compiled.ruby);
    for f in converter.found.iter_mut().filter(|f| [rule!("syntax.yield-not-ruby"), rule!("syntax.yield-regrouped")].contains(&f.rule)) {
        f.argument_of = Some("template".to_owned());
    }
    let broken = converter.missing > 0;
    let unparsed = !program_parses(broken, result);
    // A program that parses: the statements its lowering drops.
    let lowering = if unparsed { Default::default() } else { super::template_lowering::of_program(compiled, &program, source, line_index) };
    let template_names = (!unparsed).then(|| super::template_signature::names(compiled, result, source, line_index));
    let mut found: Vec<Found> = Vec::new();
    for mut f in converter.found {
        // A block's construct (a `for` loop) over several of the template's lines: its first line.
        (f.start, f.end) = on_first_template_line(compiled, source, f.start, f.end);
        // What the compiler writes into the emitted file is not there when the statement around it is
        // dropped (a rejection still stops the compile: its ingest reads the statement first).
        if EMITTED.contains(&f.rule) && lowering.dropping(f.start..f.end).is_some() {
            continue;
        }
        found.push(f);
    }
    // A `yield :slot` kept as written: not an output tag's whole code, and not said already by the
    // rules about its parentheses.
    let said: Vec<usize> = found
        .iter()
        .filter(|f| [rule!("syntax.yield-not-ruby"), rule!("syntax.yield-regrouped")].contains(&f.rule))
        .map(|f| f.start)
        .collect();
    let moot: Vec<usize> = found
        .iter()
        .filter(|f| f.rule == rule!("views.yield-slot-kept") && line_does_not_parse(&found, source, f.start))
        .map(|f| f.start)
        .collect();
    found.retain(|f| {
        f.rule != rule!("views.yield-slot-kept")
            || (!said.contains(&f.start) && !moot.contains(&f.start) && !whole_output_tag(source, f.start, f.end))
    });
    let format_calls = format_calls(&mut found, source, line_index);
    let mut out = findings(Converter { found, ..Converter::new(Cost::Rejected, dispatch) }, Notes::default(), source, line_index);
    // Each statement its lowering drops, on its first line.
    let helper_calls = if unparsed { Vec::new() } else { helper_calls(compiled, &program, source, line_index, &lowering) };
    if !unparsed {
        out.extend(forms_without_url(compiled, &program, source, line_index, &lowering));
    }
    let record_renders = if unparsed { Vec::new() } else { record_renders(compiled, &program, source, line_index, &lowering) };
    out.extend(lowering.dropped.into_iter().map(|d| d.finding));
    // Each line where Prism finds the program broken: the compile stops at the template.
    let mut lines_seen: Vec<usize> = Vec::new();
    // The program is broken only where the compiler meets a stand-in for what an error left out;
    // an error of context alone (a layout's top-level `yield`) is no stop to it.
    for error in result.errors().filter(|_| broken).filter(|e| !e.message().starts_with("Invalid ")).take(MAX_PARSE_ERRORS) {
        let offset = error.location().start_offset();
        let at = on_char(source, compiled.place(offset, source));
        let line_start = source[..at].rfind('\n').map_or(0, |n| n + 1);
        if lines_seen.contains(&line_start) {
            continue;
        }
        lines_seen.push(line_start);
        let line_end = source[line_start..].find('\n').map_or(source.len(), |n| line_start + n);
        let line = &source[line_start..line_end];
        let content = line_start + (line.len() - line.trim_start().len());
        // Text interpolation whose code holds a double quote: the literal escapes it, and the code
        // breaks (in the template's text, not in an output line's Ruby, where the quote is Ruby's).
        let in_text = compiled.text_segment(offset).is_some();
        let quoted = in_text && line.find("#{").is_some_and(|i| line[i..].split('}').next().is_some_and(|code| code.contains('"')));
        // HAML's `==` (interpolated text), which Roundhouse reads as `=` followed by code starting `=`.
        let double_equals = {
            let head = line.trim_start();
            let after_tag = if head.starts_with(['%', '.', '#']) {
                head.find(|c: char| c == '=' || c.is_whitespace()).map(|i| &head[i..]).unwrap_or("")
            } else {
                head
            };
            after_tag.starts_with("==")
        };
        // A HAML code line whose `do` a comment follows: the reader looks for the `do` at the line's
        // end to close the block, so it never writes the block's `end`.
        let commented_do = line.trim_start().starts_with('-') && {
            let code = line.split('#').next().unwrap_or("").trim_end();
            line.contains('#') && (code.ends_with(" do") || (code.ends_with('|') && code.contains(" do |")))
        };
        // HAML's multiline: a line of code ending in ` |` joined with the next ones.
        let piped = line.trim_end().ends_with(" |") && line.trim_start().starts_with(['=', '-', '%', '.', '#', '!', '&', '~']);
        let why = if double_equals {
            "Roundhouse reads HAML's `==` (interpolated text) as an output line whose code starts with `=`, which does not parse, so its compile stops. Instead, write the text as plain text (`#{@x}` in text is interpolated) or as an output line (`= \"…#{@x}\"`)".to_owned()
        } else if piped {
            "Roundhouse's HAML reader does not join lines that end in ` |` (HAML's multiline form): the `|` stays in the Ruby it compiles, which does not parse, so its compile stops. Instead, drop the `|`s and break the code after a comma (a line ending in `,` is joined with the next)".to_owned()
        } else if commented_do {
            "Roundhouse's HAML reader closes a block only when its line ends with `do` (or `do |…|`): the comment after it hides the block, which is never closed, and the compiled template does not parse, so its compile stops. Instead, move the comment to a line of its own (`-# …`)".to_owned()
        } else if quoted {
            QUOTED_INTERPOLATION.to_owned()
        } else {
            format!(
                "Roundhouse compiles this template into Ruby that does not parse here ({}): its compile stops. Rails renders it; the construct that Roundhouse reads differently is on this line",
                error.message()
            )
        };
        out.push(Diagnostic {
            span: line_index.span(content..line_end.max(content)),
            severity: Severity::Error,
            rule: rule!("views.template-parse-error"),
            message: format!("{why}."),
        });
    }
    // Prism's recovery swallows later slips of the same kind: every text interpolation whose code
    // holds a double quote breaks the program, each on its own line, whether Prism names it or not.
    // (HAML's text: an ERB template's `#{` in text is `views.text-interpolation`'s.)
    if unparsed {
        for segment in compiled.segments.iter().filter(|s| s.text) {
            let Some(text) = source.get(segment.template.clone()) else { continue };
            for (i, _) in text.match_indices("#{") {
                let escaped = text[..i].ends_with('\\');
                let code = text[i + 2..].split('}').next().unwrap_or("");
                if escaped || !code.contains('"') {
                    continue;
                }
                let at = segment.template.start + i;
                let line_start = source[..at].rfind('\n').map_or(0, |n| n + 1);
                if lines_seen.contains(&line_start) {
                    continue;
                }
                lines_seen.push(line_start);
                out.push(template_stop_on_line(source, line_index, line_start, format!("{QUOTED_INTERPOLATION}.")));
            }
        }
    }
    // A HAML code line that assigns a keyword block (`- x = if a`, `- y = case b`): the reader opens
    // a block only for a line that starts with the keyword, so it never writes this one's `end`, and
    // Prism notices only at the end of the program.
    if unparsed {
        let mut line_start = 0;
        for line in source.split_inclusive('\n') {
            if assigns_keyword_block(line) {
                // What Prism said of this line is the fallout; this is the cause.
                let line_end = line_start + line.len();
                out.retain(|d| {
                    d.rule != rule!("views.template-parse-error") || !(line_start..line_end).contains(&(d.span.start_byte as usize))
                });
                out.push(template_stop_on_line(source, line_index, line_start, ASSIGNED_BLOCK.to_owned()));
            }
            line_start += line.len();
        }
    }
    // One slip shows on several lines (Prism recovers, and notices the fallout): the lines whose
    // cause is known (a quoted interpolation, a commented `do`) each stop the compile; of the others,
    // the first Prism noticed.
    let known = |d: &Diagnostic| {
        d.message == ASSIGNED_BLOCK
            || d.message.contains("is escaped and the code no longer parses")
            || d.message.contains("the comment after it hides the block")
            || d.message.contains("Roundhouse reads HAML's `==`")
    };
    let keep_first_other = !out.iter().any(|d| d.rule == rule!("views.template-parse-error") && known(d));
    let mut first_other = keep_first_other;
    out.retain(|d| d.rule != rule!("views.template-parse-error") || known(d) || std::mem::replace(&mut first_other, false));
    out.sort_by_key(|d| (d.span.start_byte, d.rule));
    // A program that does not parse is not compiled: nothing in it is expanded or kept.
    Judged {
        diagnostics: out,
        helper_calls,
        record_renders,
        format_calls: if unparsed { Vec::new() } else { format_calls },
        template_names,
    }
}

/// Whether the ERB tag around `start..end` is an output tag whose code is that expression alone, or
/// with a modifier `if`/`unless` (`<%= yield :title %>`): what the view lowering reads as a content
/// slot. Anything else, a HAML line among it, is not (HAML's shapes are not measured: no finding).
fn whole_output_tag(source: &str, start: usize, end: usize) -> bool {
    let (Some(open), Some(close)) = (source[..start].rfind("<%"), source[end..].find("%>").map(|n| end + n)) else {
        return true;
    };
    let Some(code) = source[open + 2..close].strip_prefix('=') else { return false };
    let code = code.trim_start_matches('=').trim().trim_end_matches('-').trim();
    let expression = &source[start..end];
    code == expression
        || code.strip_prefix(expression).is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.starts_with("if ") || rest.starts_with("unless ")
        })
}

/// A range of a template's program, placed in the template and cut at the end of its first line
/// (on character boundaries).
fn on_first_template_line(compiled: &erb::Compiled, source: &str, start: usize, end: usize) -> (usize, usize) {
    let start = on_char(source, compiled.place(start, source));
    let line_end = source[start..].find('\n').map_or(source.len(), |n| start + n);
    (start, on_char(source, compiled.place(end, source).max(start).min(line_end)))
}

/// View helpers of Rails and of common gems that Roundhouse's view lowering neither expands nor
/// points at its runtime's `ActionView::ViewHelpers`: a call of one is written as it stands, in a
/// module that defines no such method (each held by `tests/fixtures/fidelity/views-helper-undefined`,
/// whose emitted template raises NoMethodError on it). The helpers the runtime answers
/// (`time_ago_in_words`, `number_with_delimiter`, `truncate`, `image_tag`…) and those the lowering
/// expands (`link_to`, `label_tag`, `submit_tag`, `check_box_tag`…) are not among them.
pub const HELPERS_LEFT_AS_WRITTEN: &[&str] = &[
    "t",
    "translate",
    "l",
    "localize",
    "number_to_currency",
    "number_to_percentage",
    "number_to_phone",
    "number_to_human_size",
    "simple_format",
    "sanitize",
    "strip_tags",
    "strip_links",
    "cycle",
    "excerpt",
    "highlight",
    "word_wrap",
    "current_page?",
    "debug",
    "distance_of_time_in_words_to_now",
    "dom_class",
    "provide",
    "text_field_tag",
    "select_tag",
    "password_field_tag",
    "email_field_tag",
    "number_field_tag",
    "text_area_tag",
    "radio_button_tag",
    "file_field_tag",
    "date_field_tag",
    "search_field_tag",
    "telephone_field_tag",
    "url_field_tag",
    "image_submit_tag",
    "options_for_select",
    "options_from_collection_for_select",
    "grouped_options_for_select",
    "time_select",
    "date_select",
    "collection_select",
    "time_tag",
    "favicon_link_tag",
    "auto_discovery_link_tag",
    "audio_tag",
    "video_tag",
    "asset_path",
    "link_to_if",
    "link_to_unless",
    "link_to_unless_current",
    "escape_javascript",
    "javascript_tag",
    "can?",
    "policy",
    "user_signed_in?",
    "will_paginate",
    "paginate",
    "pagy_nav",
];

/// A template's call of a view helper the compiler may leave as written (`views.helper-undefined`,
/// `views.content-tag-block-lost`, once the app is known).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct HelperCall {
    pub name: String,
    /// The call, on its first line.
    pub span: crate::syntax::Span,
    /// Whether it is given a block (`content_tag :div do … end`).
    pub block: bool,
}

/// View helpers Roundhouse's runtime answers (`ActionView::ViewHelpers.time_ago_in_words`), which it
/// points a template's call at only in an app whose own helper modules define a method: in an app
/// without one (a generated app's empty `ApplicationHelper`) they are written as they stand too
/// (each held by `tests/fixtures/fidelity/views-helper-undefined-no-app-helpers`).
pub const HELPERS_ANSWERED_BY_THE_RUNTIME: &[&str] = &[
    "time_ago_in_words",
    "number_with_delimiter",
    "number_with_precision",
    "number_to_human",
    "image_tag",
    "image_path",
    "image_url",
    "javascript_include_tag",
    "content_tag",
    "hidden_field_tag",
    "raw",
    "safe_join",
    "mail_to",
    "url_for",
];

/// The calls of `HELPERS_LEFT_AS_WRITTEN` and `HELPERS_ANSWERED_BY_THE_RUNTIME` in a template's program, without a receiver, with
/// arguments or a block (or a name ending in `?`: not a local's), outside the statements its
/// lowering drops: the helper's name and the call's place on its first line.
fn helper_calls(
    compiled: &erb::Compiled,
    program: &ruby_prism::ProgramNode<'_>,
    source: &str,
    line_index: &LineIndex,
    lowering: &super::template_lowering::TemplateLowering,
) -> Vec<HelperCall> {
    /// The calls found, and how many arguments of a call on a local the walk is in: a form
    /// builder's `f.select(:x, options_for_select(…))` is expanded into markup with what it is given,
    /// which this reading does not follow.
    struct Calls(Vec<((String, bool), usize, usize)>, u32);
    impl<'pr> ruby_prism::Visit<'pr> for Calls {
        fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
            let name = node.name();
            let name = String::from_utf8_lossy(name.as_slice());
            if self.1 == 0
                && node.receiver().is_none()
                && (HELPERS_LEFT_AS_WRITTEN.contains(&name.as_ref()) || HELPERS_ANSWERED_BY_THE_RUNTIME.contains(&name.as_ref()))
                && (node.arguments().is_some() || node.block().is_some() || name.ends_with('?'))
            {
                let location = node.location();
                let end = node.message_loc().map_or(location.end_offset(), |m| m.end_offset());
                self.0.push(((name.to_string(), node.block().is_some_and(|b| b.as_block_node().is_some())), location.start_offset(), end));
            }
            // A call on a local (a form builder `f`, a loop's record; not the template's buffer), or on
            // a bare name (a partial's local: the `f` a form's partial is given).
            let on_local = node.receiver().is_some_and(|r| {
                r.as_local_variable_read_node().is_some_and(|l| l.name().as_slice() != b"_buf")
                    || r.as_call_node().is_some_and(|c| c.receiver().is_none() && c.arguments().is_none() && c.block().is_none())
            });
            // `form_tag do … end` without arguments: the compiler writes nothing of it. A `render`'s
            // locals are passed or dropped by forms this reading does not follow (a braced hash of
            // them is dropped).
            if node.receiver().is_none() && ((name == "form_tag" && node.arguments().is_none()) || name == "render") {
                return;
            }
            match node.receiver() {
                Some(receiver) if on_local => {
                    self.visit(&receiver);
                    if let Some(arguments) = node.arguments() {
                        self.1 += 1;
                        self.visit_arguments_node(&arguments);
                        self.1 -= 1;
                    }
                    if let Some(block) = node.block() {
                        self.visit(&block);
                    }
                }
                _ => ruby_prism::visit_call_node(self, node),
            }
        }
    }
    let mut calls = Calls(Vec::new(), 0);
    ruby_prism::Visit::visit(&mut calls, &program.as_node());
    // The statements the lowering drops, judged on the program and on the template.
    kept_on_first_line(calls.0, lowering, compiled, source)
        .into_iter()
        .filter(|(_, start, end)| lowering.dropping(*start..*end).is_none() && end > start)
        .map(|((name, block), start, end)| HelperCall { name, span: line_index.span(start..end), block })
        .collect()
}

/// The code of an output tag (`<%= … %>`, HAML's `=`), as the template's program writes it: the
/// statements inside `_buf = _buf + (…).to_s`; `None` for any other assignment.
pub(crate) fn output_code<'pr>(write: &ruby_prism::LocalVariableWriteNode<'pr>) -> Option<ruby_prism::StatementsNode<'pr>> {
    if write.name().as_slice() != b"_buf" {
        return None;
    }
    let plus = write.value().as_call_node()?;
    let to_s = plus.arguments()?.arguments().iter().next()?.as_call_node().filter(|c| c.name().as_slice() == b"to_s")?;
    to_s.receiver()?.as_parentheses_node()?.body()?.as_statements_node()
}

/// The calls (start, end in the program) outside the statements its lowering drops, each placed on
/// its first line in the template.
fn kept_on_first_line<T>(
    found: Vec<(T, usize, usize)>,
    lowering: &super::template_lowering::TemplateLowering,
    compiled: &erb::Compiled,
    source: &str,
) -> Vec<(T, usize, usize)> {
    found
        .into_iter()
        .filter(|(_, start, end)| !lowering.drops_program(*start..*end))
        .map(|(value, start, end)| {
            let (start, end) = on_first_template_line(compiled, source, start, end);
            (value, start, end.max(start))
        })
        .collect()
}

/// The output tags (`<%= … %>`, HAML's `=`) of a template's program that are a `render` of one
/// argument that is no name of a partial nor options: `render @posts`, `render @post.comments`,
/// `render post.comments.order(:id)`. The compiler calls the partial it names after the instance
/// variable (`posts/_post`) or the method (`comments/_comment`), looping when the name is plural,
/// for an instance variable, or one method without arguments on an instance variable or a local;
/// it keeps any other `render` as written (`None`). Placed on the `render`.
fn record_renders(
    compiled: &erb::Compiled,
    program: &ruby_prism::ProgramNode<'_>,
    source: &str,
    line_index: &LineIndex,
    lowering: &super::template_lowering::TemplateLowering,
) -> Vec<(Option<String>, crate::syntax::Span)> {
    struct Renders(Vec<(Option<String>, usize, usize)>);
    impl<'pr> ruby_prism::Visit<'pr> for Renders {
        fn visit_local_variable_write_node(&mut self, node: &ruby_prism::LocalVariableWriteNode<'pr>) {
            if let Some(render) = output_code(node).and_then(|s| {
                let inner: Vec<Node<'_>> = s.body().iter().collect();
                match inner.as_slice() {
                    [only] => only.as_call_node(),
                    _ => None,
                }
            }) && render.receiver().is_none()
                && render.name().as_slice() == b"render"
                && render.block().is_none()
                && let Some(arguments) = render.arguments()
            {
                let arguments: Vec<Node<'_>> = arguments.arguments().iter().collect();
                if let [target] = arguments.as_slice()
                    && let Some(partial) = record_partial(target)
                {
                    let location = render.location();
                    let end = render.message_loc().map_or(location.end_offset(), |m| m.end_offset());
                    self.0.push((partial, location.start_offset(), end));
                }
            }
            ruby_prism::visit_local_variable_write_node(self, node);
        }
    }
    /// `Some(partial)` for a render the compiler turns into a partial call, `Some(None)` for one it
    /// keeps as written, `None` for a target this reading leaves alone (a string, options, a local).
    fn record_partial(target: &Node<'_>) -> Option<Option<String>> {
        let name_of = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        if let Some(ivar) = target.as_instance_variable_read_node() {
            let name = name_of(ivar.name().as_slice()).trim_start_matches('@').to_owned();
            return Some(Some(format!("{}/_{}", crate::rails::inflect::pluralize(&name), crate::rails::inflect::singularize(&name))));
        }
        let call = target.as_call_node()?;
        if call.is_safe_navigation() || call.block().is_some() {
            return None;
        }
        let receiver = call.receiver()?;
        let simple_root = receiver.as_instance_variable_read_node().is_some() || receiver.as_local_variable_read_node().is_some();
        if simple_root && call.arguments().is_none() {
            let method = name_of(call.name().as_slice());
            if !method.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
                return None;
            }
            return Some(Some(format!("{method}/_{}", crate::rails::inflect::singularize(&method))));
        }
        // A chain the compiler does not read as a partial's records: a call with arguments, two
        // calls deep, or on a bare name (a partial's local).
        let root_is_name = |node: &Node<'_>| {
            node.as_instance_variable_read_node().is_some()
                || node.as_local_variable_read_node().is_some()
                || node.as_call_node().is_some_and(|c| c.receiver().is_none() && c.arguments().is_none() && c.block().is_none())
        };
        let mut root = receiver;
        let mut depth = 0;
        while let Some(inner) = root.as_call_node().filter(|c| c.receiver().is_some()) {
            root = inner.receiver()?;
            depth += 1;
            if depth > 8 {
                return None;
            }
        }
        root_is_name(&root).then_some(None)
    }
    let mut renders = Renders(Vec::new());
    ruby_prism::Visit::visit(&mut renders, &program.as_node());
    kept_on_first_line(renders.0, lowering, compiled, source)
        .into_iter()
        .map(|(partial, start, end)| (partial, line_index.span(start..end)))
        .collect()
}

/// `views.form-tag-dropped`: each `form_tag … do` given no arguments (Rails posts it to the page's
/// own URL), which the compiler writes as nothing, the form's content with it; outside the
/// statements its lowering drops.
fn forms_without_url(
    compiled: &erb::Compiled,
    program: &ruby_prism::ProgramNode<'_>,
    source: &str,
    line_index: &LineIndex,
    lowering: &super::template_lowering::TemplateLowering,
) -> Vec<Diagnostic> {
    struct Forms(Vec<(usize, usize)>);
    impl<'pr> ruby_prism::Visit<'pr> for Forms {
        fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
            if node.receiver().is_none() && node.name().as_slice() == b"form_tag" && node.arguments().is_none() && node.block().is_some() {
                let location = node.location();
                self.0.push((location.start_offset(), node.message_loc().map_or(location.end_offset(), |m| m.end_offset())));
                return;
            }
            ruby_prism::visit_call_node(self, node);
        }
    }
    let mut forms = Forms(Vec::new());
    ruby_prism::Visit::visit(&mut forms, &program.as_node());
    kept_on_first_line(forms.0.into_iter().map(|(start, end)| ((), start, end)).collect(), lowering, compiled, source)
        .into_iter()
        .map(|((), start, end)| {
            Diagnostic {
                span: line_index.span(start..end),
                severity: Severity::Warning,
                rule: rule!("views.form-tag-dropped"),
                message: "Roundhouse writes a `form_tag` given no URL as nothing: the form and everything inside it are missing from the compiled page (Rails posts it to the page's own URL). Instead, give it the URL it posts to, with the route helper of this page (`form_tag publish_post_path(@post) do`).".to_owned(),
            }
        })
        .collect()
}

/// The converter's findings about what the compiler writes into the emitted file (not what its
/// ingest rejects).
const EMITTED: [crate::diagnostic::RuleId; 10] = [
    rule!("syntax.symbol-quotes-dropped"),
    rule!("syntax.safe-navigation-arguments"),
    rule!("views.yield-slot-kept"),
    rule!("syntax.grouping-not-ruby"),
    rule!("views.select-options-not-ruby"),
    rule!("syntax.ternary-argument"),
    rule!("views.variable-name-not-ruby"),
    rule!("syntax.to-fs-not-expanded"),
    rule!("syntax.yield-not-ruby"),
    rule!("syntax.yield-regrouped"),
];

/// A template's program through the converter, as the compiler's ingest hands it every statement.
pub(crate) fn converted_template(program: &ruby_prism::ProgramNode<'_>, dispatch: bool) -> Converter {
    let mut converter = Converter::new(Cost::Rejected, dispatch);
    converter.emitting = convert::Emitting::Template;
    for statement in program.statements().body().iter() {
        converter.expression(&statement);
    }
    converter
}

/// Whether a template's program parses, to the compiler: no stand-in the converter met (`broken`),
/// and no error other than one of context alone (a layout's top-level `yield` is `Invalid yield`).
pub fn program_parses(broken: bool, result: &ruby_prism::ParseResult<'_>) -> bool {
    !broken && !result.errors().any(|e| !e.message().starts_with("Invalid "))
}

/// `views.output-statements-not-ruby`: an ERB output tag whose code is two statements or more
/// (`<%= parts = x.split; parts.join %>`), or an `if` without `else` whose body is (the compiler
/// writes it as a branch that outputs the body; with an `else`, as an expression, which reads).
/// The compiler writes an output tag's code as the argument of `html_escape(…)` with `.to_s` after
/// its last word, and statements between a call's parentheses are not Ruby (fixture
/// `views-output-statements`); a comment among them is not a statement. On the template's program (`erb::compile`), where the tag is
/// `_buf = _buf + (code).to_s`; one finding per tag, on its code's first line.
pub fn output_statements(
    compiled: &erb::Compiled,
    result: &ruby_prism::ParseResult<'_>,
    source: &str,
    line_index: &LineIndex,
) -> Vec<Diagnostic> {
    struct Tags(Vec<(usize, usize, usize)>);
    impl<'pr> ruby_prism::Visit<'pr> for Tags {
        fn visit_local_variable_write_node(&mut self, node: &ruby_prism::LocalVariableWriteNode<'pr>) {
            if node.name().as_slice() == b"_buf"
                && let Some(plus) = node.value().as_call_node()
                && let Some(argument) = plus.arguments().and_then(|a| a.arguments().iter().next())
                && let Some(to_s) = argument.as_call_node()
                && to_s.name().as_slice() == b"to_s"
                && let Some(group) = to_s.receiver().and_then(|r| r.as_parentheses_node())
                && let Some(statements) = group.body().and_then(|b| b.as_statements_node())
            {
                let mut body: Vec<Node<'_>> = statements.body().iter().collect();
                // An `if` without `else` is written as a branch that outputs its body: the same.
                if let [only] = body.as_slice()
                    && let Some(branch) = only.as_if_node()
                    && branch.if_keyword_loc().is_some()
                    && branch.subsequent().is_none()
                    && let Some(inner) = branch.statements()
                {
                    body = inner.body().iter().collect();
                }
                if let (true, Some(first)) = (body.len() >= 2, body.first()) {
                    self.0.push((first.location().start_offset(), first.location().end_offset(), body.len()));
                }
            }
            ruby_prism::visit_local_variable_write_node(self, node);
        }
    }
    let mut tags = Tags(Vec::new());
    ruby_prism::Visit::visit(&mut tags, &result.node());
    tags.0
        .into_iter()
        .map(|(start, end, count)| {
            let (start, end) = on_first_template_line(compiled, source, start, end);
            Diagnostic::finding(
                rule!("views.output-statements-not-ruby"),
                line_index.span(start..end),
                format!(
                    "Roundhouse writes an output tag's code as the argument of `html_escape(…)`, and this tag's code is {count} statements: between the parentheses they are not Ruby (and the `.to_s` it adds would join the last one alone), so the emitted file does not parse, and the compiled app requires every view at boot: it does not start (every tree). Instead, do the work in a code tag (`<% … %>`) and output the last expression alone (`<%= … %>`), which Rails renders the same."
                ),
            )
        })
        .collect()
}

/// Whether the interpolation that starts `text` (`#{…}`, `#@x`, `#$x` in a template's text, which
/// Roundhouse compiles into a string literal) stops the compile: `#@x`/`#$x` and an empty `#{}`
/// are rejected; a `#{…}` stops when its code (up to the brace that closes it), escaped as the
/// literal escapes it, does not parse, or the text ends before it closes.
pub fn text_interpolation_stops(text: &str) -> bool {
    let Some(code) = text.strip_prefix("#{") else { return true };
    let mut depth = 1;
    let Some(close) = code.char_indices().find_map(|(i, c)| {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(i)
    }) else {
        return true;
    };
    // The code as it stands in the string literal Roundhouse writes the text into: quotes and
    // backslashes escaped, so `#{t(".x")}` is `#{t(\".x\")}`, which does not parse.
    let escaped: String = code[..close]
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            '\n' => vec!['\\', 'n'],
            '\r' => vec!['\\', 'r'],
            '\t' => vec!['\\', 't'],
            c => vec![c],
        })
        .collect();
    escaped.trim().is_empty() || ruby_prism::parse(escaped.as_bytes()).errors().next().is_some()
}

/// The diagnostics of what the converter found and the walkers noted.
/// The compiler never looks inside a node kind it rejects: a construct within one (a `case … in`
/// inside another, a call inside a `for` loop) is not seen.
const WHOLE: &[crate::diagnostic::RuleId] = &[
    rule!("syntax.pattern-matching"),
    rule!("syntax.nested-definition"),
    rule!("syntax.for-loop"),
    rule!("syntax.do-while"),
    rule!("syntax.flip-flop"),
    rule!("syntax.begin-end-block"),
    rule!("syntax.regex-named-capture"),
    rule!("syntax.multi-index-assign"),
    rule!("syntax.global-variable-write"),
    rule!("syntax.backtick-command"),
];

/// Decides each `yield(…)` candidate of the converter on the whole `text` (the file's, or a template's
/// program): the compiler writes the yield without its parentheses, so the text is parsed again with
/// them blanked (offsets unchanged). A new syntax error is `syntax.yield-not-ruby`; a yield whose
/// arguments then end elsewhere (`yield(x).to_s` read as `yield x.to_s`) is `syntax.yield-regrouped`,
/// with the compiled reading as its `name`; a yield that reads the same is no finding.
fn settle_yields(found: &mut Vec<Found>, text: &str) {
    if !found.iter().any(|f| f.rule == rule!("syntax.yield-not-ruby") || f.rule == rule!("syntax.grouping-not-ruby")) {
        return;
    }
    // Errors of context alone (a layout's top-level `yield`) are there before and after.
    let errors_of = |result: &ruby_prism::ParseResult<'_>| -> Vec<(usize, String)> {
        result.errors().map(|e| (e.location().start_offset(), e.message().to_owned())).collect()
    };
    let before = errors_of(&ruby_prism::parse(text.as_bytes()));
    // Each candidate costs a parse of the whole text: past `MAX_REPARSED` in one file (a generated
    // file, hostile input), the rest are not decided, and not said.
    let mut reparsed = 0usize;
    found.retain_mut(|f| {
        if [rule!("syntax.grouping-not-ruby"), rule!("syntax.yield-not-ruby")].contains(&f.rule) {
            reparsed += 1;
            if reparsed > MAX_REPARSED {
                return false;
            }
        }
        if f.rule == rule!("syntax.grouping-not-ruby") {
            // `(…)` itself: blanked, a new syntax error says it is not Ruby without them.
            let mut blanked = text.as_bytes().to_vec();
            if blanked.get(f.start) != Some(&b'(') || blanked.get(f.end.saturating_sub(1)) != Some(&b')') {
                return false;
            }
            blanked[f.start] = b' ';
            blanked[f.end - 1] = b' ';
            let result = ruby_prism::parse(&blanked);
            f.name = Some(text[f.start + 1..f.end - 1].trim().to_owned());
            return errors_of(&result).iter().any(|e| !before.contains(e));
        }
        if f.rule != rule!("syntax.yield-not-ruby") {
            return true;
        }
        let (lparen, rparen) = (f.start + "yield".len(), f.end.saturating_sub(1));
        let mut blanked = text.as_bytes().to_vec();
        if blanked.get(lparen) != Some(&b'(') || blanked.get(rparen) != Some(&b')') {
            return false;
        }
        blanked[lparen] = b' ';
        blanked[rparen] = b' ';
        let result = ruby_prism::parse(&blanked);
        if errors_of(&result).iter().any(|e| !before.contains(e)) {
            f.name = Some(format!("yield {}", &text[lparen + 1..rparen]));
            return true;
        }
        let mut ends = None;
        find_yield(&result.node(), f.start, &mut ends);
        match ends {
            Some(end) if end != rparen => {
                f.rule = rule!("syntax.yield-regrouped");
                let line_end = text[f.start..].find('\n').map_or(text.len(), |n| f.start + n);
                let region_end = end.max(rparen + 1).min(line_end.max(rparen + 1));
                let written = format!("yield {}{}", &text[lparen + 1..rparen], &text[rparen + 1..region_end]);
                f.name = Some(written.split_whitespace().collect::<Vec<_>>().join(" "));
                true
            }
            _ => false,
        }
    });
    let moot: Vec<usize> = found
        .iter()
        .filter(|f| f.rule == rule!("syntax.yield-regrouped") && line_does_not_parse(found, text, f.start))
        .map(|f| f.start)
        .collect();
    found.retain(|f| f.rule != rule!("syntax.yield-regrouped") || !moot.contains(&f.start));
}

/// Whether a `syntax.yield-not-ruby` finding is on the line of `at` in `text`: the line does not
/// parse anyway, so what else a yield on it does is moot.
fn line_does_not_parse(found: &[Found], text: &str, at: usize) -> bool {
    found.iter().filter(|f| f.rule == rule!("syntax.yield-not-ruby")).any(|f| {
        let (a, b) = (f.start.min(at), f.start.max(at));
        !text.get(a..b).is_some_and(|between| between.contains('\n'))
    })
}

/// How many parenthesized yields and arguments of one file are parsed again (`settle_yields`).
const MAX_REPARSED: usize = 200;

/// Where the arguments of the `yield` that starts at `start` end.
fn find_yield(node: &Node<'_>, start: usize, out: &mut Option<usize>) {
    struct Finder {
        start: usize,
        end: Option<usize>,
    }
    impl<'pr> ruby_prism::Visit<'pr> for Finder {
        fn visit_yield_node(&mut self, node: &ruby_prism::YieldNode<'pr>) {
            if node.location().start_offset() == self.start {
                self.end = node.arguments().map(|a| a.location().end_offset());
                return;
            }
            ruby_prism::visit_yield_node(self, node);
        }
    }
    let mut finder = Finder { start, end: None };
    ruby_prism::Visit::visit(&mut finder, node);
    *out = finder.end;
}

/// Takes the `to_fs` calls out of `found` (those the compiler sees: not inside a node it rejects
/// whole), each from its name to the end of its first line's part of it.
fn format_calls(found: &mut Vec<Found>, text: &str, line_index: &LineIndex) -> Vec<crate::roundhouse::time_formats::FormatCall> {
    let outer: Vec<(usize, usize)> = found.iter().filter(|f| WHOLE.contains(&f.rule)).map(|f| (f.start, f.end)).collect();
    let mut out = Vec::new();
    found.retain(|f| {
        let Some((format, receiver)) = &f.format else { return true };
        if !outer.iter().any(|&(start, end)| start <= f.start && f.end <= end) {
            let line_end = text[f.start..].find('\n').map_or(text.len(), |n| f.start + n);
            out.push(crate::roundhouse::time_formats::FormatCall {
                span: line_index.span(f.start..f.end.min(line_end).max(f.start)),
                method: text
                    .get(f.start..)
                    .unwrap_or("")
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("to_fs")
                    .to_owned(),
                format: format.clone(),
                receiver: *receiver,
            });
        }
        false
    });
    out
}

fn findings(converter: Converter, notes: Notes, text: &str, line_index: &LineIndex) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut found = converter.found;
    found.sort_by_key(|f| (f.start, f.end));
    // The same node reached twice (a call's `def` argument, then the `def` itself): the first says more.
    found.dedup_by(|later, first| later.start == first.start && later.rule == first.rule);
    let rejects = |f: &Found| WHOLE.contains(&f.rule);
    let outer: Vec<(usize, usize)> = found.iter().filter(|f| rejects(f)).map(|f| (f.start, f.end)).collect();
    found.retain(|f| !outer.iter().any(|&(start, end)| start <= f.start && f.end <= end && (start, end) != (f.start, f.end)));
    for f in found {
        if let Some(d) = diagnostic(&f, text, line_index, &notes) {
            out.push(d);
        }
    }
    for (start, end, name) in notes.aliases_dropped {
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Warning,
            rule: rule!("syntax.alias-keyword"),
            message: format!(
                "Roundhouse drops this `alias` without a word (it rejects `alias` only in models and controllers): the compiled class has no `{name}`. Instead, write `alias_method`."
            ),
        });
    }
    for (start, end) in notes.json_arms {
        let arm = text.get(start..end).unwrap_or("format.json");
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Warning,
            rule: rule!("controller.json-format-dropped"),
            message: format!(
                "The Spinel tree drops this `{arm}` arm: it keeps a json arm only when it renders a template or a status (`render :show`, `head :ok`), so a request for JSON gets the html branch's answer. The CRuby and JVM trees keep it."
            ),
        });
    }
    for (start, end, name) in notes.library_calls {
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Warning,
            rule: rule!("library.class-body-call-dropped"),
            message: format!(
                "Roundhouse drops this `{name}` call from the class body: it replays the calls of a class body only for a class whose base is a gem's, so the compiled class has no effect of it (every target). Instead, do what it does in plain Ruby (a method, a constant), or leave it out knowingly."
            ),
        });
    }
    for (start, end, format) in notes.other_arms {
        let arm = text.get(start..end).unwrap_or("format");
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Warning,
            rule: rule!("controller.format-arm-dropped"),
            message: format!(
                "Roundhouse drops this `{arm}` arm: its format dispatch has html, json and rss only, so every tree answers a request for {format} with this action's html branch (Rails would answer with {format}). Instead, serve {format} from an action or route of its own that renders it, or leave it to the html branch knowingly."
            ),
        });
    }
    for (start, end, keyword, format) in notes.arm_jumps {
        let statement = text.get(start..end).unwrap_or(&keyword).lines().next().unwrap_or(&keyword).trim_end();
        out.push(Diagnostic {
            span: line_index.span(start..start + statement.len()),
            severity: Severity::Error,
            rule: rule!("controller.format-arm-jump"),
            message: format!(
                "Roundhouse writes this `format.{format}` arm's body into the action itself (under an `if` on the request's format), so its `{keyword}` is in no block there, which is not Ruby (\"Invalid {keyword}\"): the emitted controller does not parse, and the compiled app requires it at boot, so it does not start. Instead, write the arm as `if … else … end`, each branch ending in its answer (`head :bad_request` / `render …`)."
            ),
        });
    }
    for (start, end, arms) in notes.unread_arms {
        let head = text.get(start..end).unwrap_or("if").lines().next().unwrap_or("if").trim_end();
        let plural = if arms == 1 { "arm" } else { "arms" };
        out.push(Diagnostic {
            span: line_index.span(start..start + head.len()),
            severity: Severity::Warning,
            rule: rule!("controller.format-arms-unread"),
            message: format!(
                "Roundhouse reads the `format` arms of a `respond_to` block only at its top level, or inside an `if` that is the block's only statement: this `if` stands beside other statements, so its {arms} {plural} are copied as written, and `format` is undefined in the compiled action (NameError when this runs, every target). Instead, move the other statements out of the `respond_to` block (before it), so the `if` is all it holds."
            ),
        });
    }
    for (start, end, name) in notes.constants_dropped {
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Warning,
            rule: rule!("syntax.shareable-constant"),
            message: format!(
                "Roundhouse drops `{name}` without a word: `# shareable_constant_value:` wraps the constant in a node its class-body reader skips, so the compiled class has no `{name}`. Instead, remove the magic comment and freeze the value (`.freeze`)."
            ),
        });
    }
    for (start, end, name, call) in notes.defs_dropped {
        out.push(def_dropped(start, end, &name, line_index, &call));
    }
    for note in notes.parameters_not_ruby {
        out.push(Diagnostic {
            span: line_index.span(note.start..note.end),
            severity: Severity::Error,
            rule: rule!("library.parameters-not-ruby"),
            message: note.message,
        });
    }
    for (start, end) in notes.singleton_statements {
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Error,
            rule: rule!("model.singleton-class-statement"),
            message: "Roundhouse accepts only `def`s (and a bare `private`) inside a model's `class << self`: its ingest stops here. Move this statement into the class body (`class_attribute`, a constant) or a method.".to_owned(),
        });
    }
    for (start, end, name) in notes.class_variables {
        out.push(Diagnostic {
            span: line_index.span(start..end),
            severity: Severity::Error,
            rule: rule!("model.class-variable-initializer"),
            message: format!(
                "Roundhouse rejects `{name} = …` here (in a library class body, any value but `nil`; the whole file is dropped): use a constant or a class-level instance variable."
            ),
        });
    }
    // A declaration walked twice (a `module ClassMethods` folded into its module and read on its own).
    out.sort_by_key(|d| (d.span.start_byte, d.rule));
    out.dedup_by(|a, b| a.span.start_byte == b.span.start_byte && a.rule == b.rule);
    out
}

/// A library method whose parameters the compiler's ingest writes so that they are no Ruby
/// (measured, fixture `library-parameters-not-ruby`): `**options` becomes a positional
/// `options = {}`, which cannot follow a rest parameter or keywords it keeps as keywords (beside a
/// rest parameter or a required keyword: `def f(*args, opts = {})`, `def f(name:, opts = {})`);
/// and an optional keyword it writes positionally (no rest parameter, no required keyword) cannot be
/// named like a Ruby keyword (`class: nil` → `class = nil`). A `**` without a name is dropped.
struct ParametersNotRuby {
    start: usize,
    end: usize,
    /// The finding's message.
    message: String,
}

fn parameters_not_ruby(def: &ruby_prism::DefNode<'_>) -> Option<ParametersNotRuby> {
    let parameters = def.parameters()?;
    let method = name_of(def.name());
    let rest = parameters.rest().and_then(|r| r.as_rest_parameter_node()).and_then(|r| r.name()).map(|n| name_of(n));
    let required = parameters.keywords().iter().find_map(|k| k.as_required_keyword_parameter_node().map(|k| name_of(k.name())));
    let boot = "The emitted file does not parse, and the compiled app requires it at boot, so the app does not start (every tree).";
    if let Some(keyword_rest) = parameters.keyword_rest()
        && let Some(options) = keyword_rest.as_keyword_rest_parameter_node().and_then(|k| k.name()).map(|n| name_of(n))
    {
        let after = match (&rest, &required) {
            (Some(rest), _) => Some(format!("`*{rest}`")),
            (None, Some(keyword)) => Some(format!("the keyword `{keyword}:`")),
            (None, None) => None,
        };
        if let Some(after) = after {
            let location = keyword_rest.location();
            return Some(ParametersNotRuby {
                start: location.start_offset(),
                end: location.end_offset(),
                message: format!(
                    "Roundhouse writes `**{options}` as an optional positional parameter, `{options} = {{}}`, and keeps {after} before it: `def {method}(…, {options} = {{}})` is not Ruby. {boot} Instead, take the options as a positional hash (`{options} = {{}}`) and make {after} a positional parameter too, or leave `**{options}` out."
                ),
            });
        }
    }
    if rest.is_some() || required.is_some() {
        return None;
    }
    let keyword = parameters
        .keywords()
        .iter()
        .find_map(|k| k.as_optional_keyword_parameter_node())
        .filter(|k| crate::syntax::is_ruby_keyword(&name_of(k.name())))?;
    let name = name_of(keyword.name());
    let location = keyword.as_node().location();
    Some(ParametersNotRuby {
        start: location.start_offset(),
        end: location.start_offset() + name.len() + 1,
        message: format!(
            "Roundhouse writes the keyword parameter `{name}:` as an optional positional parameter, `{name} = …`, and `{name}` is a Ruby keyword, which no positional parameter can be named: `def {method}(…, {name} = …)` is not Ruby. {boot} Instead, give the option another name (`klass:`, read by callers as `{name}:` through `**options` if they must)."
        ),
    })
}

/// What the walkers note beside the converter's findings.
#[derive(Default)]
struct Notes {
    /// A library body's `alias`: dropped without a word.
    aliases_dropped: Vec<(usize, usize, String)>,
    /// `private def x` in a library body: the call is dropped unread, and the method with it.
    defs_dropped: Vec<(usize, usize, String, String)>,
    /// A library method whose parameters the compiler writes as no Ruby (`parameters_not_ruby`).
    parameters_not_ruby: Vec<ParametersNotRuby>,
    /// A model's `class << self` statement that is not a `def` or a bare visibility call.
    singleton_statements: Vec<(usize, usize)>,
    /// A library body's constant under `# shareable_constant_value:`: dropped without a word.
    constants_dropped: Vec<(usize, usize, String)>,
    /// A library body's `@@x = v` with `v` not `nil`.
    class_variables: Vec<(usize, usize, String)>,
    /// A controller action's `format.json` arm the Spinel tree drops (`controller.json-format-dropped`).
    json_arms: Vec<(usize, usize)>,
    /// A `format.<x>` arm for a format the compiler does not model (not html, json or rss), which
    /// every tree drops (`controller.format-arm-dropped`): its span and the format.
    other_arms: Vec<(usize, usize, String)>,
    /// A `next`/`break` of a kept arm (html, json, rss) outside any block or loop of its own: the
    /// compiler writes the arm's body into the action, where it leaves nothing (its span, the
    /// keyword, the format).
    arm_jumps: Vec<(usize, usize, String, String)>,
    /// An `if` beside other statements in a `respond_to` block, whose `format.<x>` arms the compiler
    /// copies as written: the statement's start, the end of its first line, how many arms.
    unread_arms: Vec<(usize, usize, usize)>,
    /// A call in a library class's or module's body that the ingest keeps to replay and the emit
    /// drops unless the class's base is a gem's (`library.class-body-call-dropped`): its first line
    /// and the method.
    library_calls: Vec<(usize, usize, String)>,
    /// `def`s inside a concern's `included` block: another rule says what becomes of them.
    included_blocks: Vec<(usize, usize)>,
    /// Whether the file is under `app/models`, where a concern's `included` block is read for the
    /// models including it.
    model_concern: bool,
}

fn def_dropped(start: usize, end: usize, name: &str, line_index: &LineIndex, call: &str) -> Diagnostic {
    let instead = match call {
        "private" | "protected" | "public" => format!("define the method on its own, below a line holding only `{call}`"),
        _ => format!("define the method on its own and call `{call} :{name}` after it"),
    };
    Diagnostic {
        span: line_index.span(start..end),
        severity: Severity::Warning,
        rule: rule!("syntax.def-in-expression"),
        message: format!(
            "Roundhouse reads this `def` as the argument of `{call}` and compiles it as `nil`: the method `{name}` is missing from the compiled class. Instead, {instead}."
        ),
    }
}

/// A finding of `found`'s rule from its start to the end of its first line.
fn on_first_line(found: &Found, snippet: &str, line_index: &LineIndex, severity: Severity, message: String) -> Diagnostic {
    Diagnostic {
        span: line_index.span(found.start..snippet.find('\n').map_or(found.end, |n| found.start + n)),
        severity,
        rule: found.rule,
        message,
    }
}

fn diagnostic(found: &Found, text: &str, line_index: &LineIndex, notes: &Notes) -> Option<Diagnostic> {
    let span = line_index.span(found.start..found.end);
    let snippet = text.get(found.start..found.end).unwrap_or("");
    if found.rule == rule!("syntax.def-in-expression") {
        if notes.included_blocks.iter().any(|&(s, e)| s <= found.start && found.end <= e) {
            return None;
        }
        let name = found.name.as_deref().unwrap_or("");
        let mut d = if let Some(call) = &found.argument_of {
            def_dropped(found.start, found.end, name, line_index, call)
        } else {
            Diagnostic {
                span: line_index.span(found.start..found.end),
                severity: Severity::Warning,
                rule: rule!("syntax.def-in-expression"),
                message: format!(
                    "Roundhouse reads a `def` only as a method of a class body: this one (inside a block, or a statement of a program) compiles as `nil`, and the method `{name}` is never defined. Instead, define it in a class body, or use a lambda."
                ),
            }
        };
        // Only the `def` line: its body is not the finding.
        let first_line = snippet.find('\n').map_or(found.end, |n| found.start + n);
        d.span = line_index.span(found.start..first_line);
        return Some(d);
    }
    let severity = crate::catalogue::rule(&found.rule).map_or(Severity::Error, |r| r.severity);
    if found.rule == rule!("controller.build-attributes-not-ruby") {
        let call = snippet.lines().next().unwrap_or("").trim();
        let braced = match (call.find('('), call.rfind(')')) {
            (Some(open), Some(close)) if open < close => format!("{}({{ {} }})", &call[..open], call[open + 1..close].trim()),
            _ => "build({ … })".to_owned(),
        };
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse rewrites a controller's `@parent.things.build(…)` into `attrs = …` (then the parent's id, then `Thing.new(attrs)`), and writes the attributes as they are: `attrs = key: value` is not Ruby. The emitted controller does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, pass the attributes as a hash with braces: `{braced}`."
            ),
        ));
    }
    if found.rule == rule!("syntax.yield-not-ruby") || found.rule == rule!("syntax.yield-regrouped") {
        let written = found.name.as_deref().unwrap_or("yield …");
        let what = if found.rule == rule!("syntax.yield-not-ruby") {
            "which is not Ruby where it stands (after another argument, in an array or a hash, beside an operator): the emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree)".to_owned()
        } else {
            format!(
                "and there the code after it joins its arguments: the compiled line is `{written}`, which yields something else and uses the block's value as it is (every tree)"
            )
        };
        let yielded = snippet.lines().next().unwrap_or("yield(…)").trim();
        let slot = yielded
            .strip_prefix("yield(:")
            .and_then(|rest| rest.split(')').next())
            .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let instead = match (found.argument_of.as_deref(), slot) {
            // A layout's `yield(:title)` is its content slot, which the compiled template reads with
            // `content_for` wherever it stands (`yield` it reads only as a tag's whole code).
            (Some("template"), Some(name)) => {
                format!(
                    "read the slot with `content_for(:{name})` (the same content in Rails, but `nil` where `yield` gives `\"\"` when the slot is empty)"
                )
            }
            _ => format!("assign what the block returns to a local first (`value = {yielded}`) and use `value` here"),
        };
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!("Roundhouse writes `yield(…)` without its parentheses (`yield a, b`), {what}. Instead, {instead}."),
        ));
    }
    if found.rule == rule!("views.yield-slot-kept") {
        let slot = snippet.trim_start_matches("yield").trim_start_matches([' ', '(']).trim_end_matches(')').trim_start_matches(':');
        return Some(Diagnostic {
            span,
            severity,
            rule: found.rule,
            message: format!(
                "Roundhouse reads `yield :{slot}` as the content slot only when it is an output tag's whole code (`<%= yield :{slot} %>`); here it keeps the `yield`, and the compiled template is called without a block, so rendering it raises LocalJumpError (every tree). Instead, read the slot with `content_for(:{slot})` (in Rails the same content, but `nil` where `yield` gives `\"\"` when the slot is empty)."
            ),
        });
    }
    if found.rule == rule!("syntax.symbol-quotes-dropped") {
        let text = found.name.as_deref().unwrap_or("…");
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse writes a symbol as `:` and its text, without quotes: `:{text}` is not the symbol `{text}` (it does not parse, or reads as something else), so the emitted file breaks (every tree). Instead, rename it to a symbol that needs no quotes wherever it is used, or use a string where the API takes one."
            ),
        ));
    }
    if found.rule == rule!("syntax.grouping-not-ruby") {
        let inner = found.name.as_deref().unwrap_or("…");
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse writes an argument, or an operand of `&&`/`||`, in parentheses without them: `({inner})` becomes `{inner}`, which is not Ruby here (a call without parentheses among other arguments or beside an operator, or `or`/`and` among arguments). The emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, write the call with parentheses (`h(x)`, `include?(x)`) or the operator as `||`/`&&`."
            ),
        ));
    }
    if found.rule == rule!("views.select-options-not-ruby") {
        let keys = found.name.as_deref().unwrap_or("");
        let selected_only = keys == "selected";
        let first = snippet.lines().next().unwrap_or("").trim();
        let instead = if selected_only {
            format!(
                "pass the selected value alone, as the second argument (`{}`: the same in Rails)",
                first.trim_start_matches("selected:").trim()
            )
        } else {
            "pass the selected value alone, as the second argument, and leave out `disabled:` (the compiled select reads no other option)"
                .to_owned()
        };
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse writes a form builder's `select` as markup and reads `options_for_select`'s second argument as the selected value: `{first}` becomes `if {first} == …`, which is not Ruby. The emitted template does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, {instead}."
            ),
        ));
    }
    if found.rule == rule!("views.variable-name-not-ruby") {
        let name = snippet.trim_start_matches('@');
        return Some(Diagnostic {
            span,
            severity,
            rule: found.rule,
            message: format!(
                "Roundhouse compiles a template's instance variables into locals of its function, under the same name: `@{name} = …` becomes `{name} = …`, and `{name}` is a Ruby keyword, which is not Ruby. The emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, give it another name (`@css_{name}`)."
            ),
        });
    }
    if found.rule == rule!("syntax.safe-navigation-arguments") {
        let (receiver, method) = (found.name.as_deref().unwrap_or("x"), found.argument_of.as_deref().unwrap_or("m"));
        let call = snippet.lines().next().unwrap_or("").trim_end();
        let arguments = call.get(receiver.len() + "&.".len() + method.len()..).unwrap_or("");
        let more = if snippet.trim_end().contains('\n') { " …" } else { "" };
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse writes `{receiver}&.{method} …` as `{receiver} && {receiver}.{method} …`, keeping the arguments after a space: a call like that is no operand of `&&`, so the emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, put the arguments in parentheses: `{receiver}&.{method}({}{more})`.",
                arguments.trim()
            ),
        ));
    }
    if found.rule == rule!("syntax.ternary-argument") {
        let ternary = snippet.lines().next().unwrap_or("").trim();
        let more = if snippet.trim_end().contains('\n') { " …" } else { "" };
        let instead = match found.argument_of.as_deref() {
            Some(call) => format!("put `{call}`'s arguments in parentheses (`{call}({ternary}{more})`)"),
            None => "assign the value to a local first and `return` the local (the compiler drops a `return`'s parentheses)".to_owned(),
        };
        return Some(on_first_line(
            found,
            snippet,
            line_index,
            severity,
            format!(
                "Roundhouse writes this ternary as a multi-line `if … else … end` and keeps the {} without parentheses, so the compiled line reads as a modifier `if`, and its `else` is not Ruby: the emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, {instead}.",
                if found.argument_of.is_some() { "call around it" } else { "`return` before it" }
            ),
        ));
    }
    if found.rule == rule!("model.errors-index-dynamic") {
        let call = snippet.lines().next().unwrap_or("").trim_end();
        let (why, instead) = if found.name.as_deref() == Some(":base") {
            (
                "messages added to `:base` have no field prefix to find them by",
                "test the whole list (`errors.full_messages.include?(\"…\")`, `errors.any?`)",
            )
        } else {
            ("it finds a field's messages only for a symbol naming the field", "name the field with a symbol (`errors[:title]`)")
        };
        return Some(Diagnostic {
            span,
            severity,
            rule: found.rule,
            message: format!(
                "Roundhouse leaves `{call}` as written: the records it compiles keep their errors as a list of full messages, and {why}, so this indexes the list with a non-integer and raises TypeError when it runs (every target). Instead, {instead}."
            ),
        });
    }
    if found.rule == rule!("model.errors-add-dynamic") {
        let call = snippet.lines().next().unwrap_or("").trim_end();
        let call = if call.len() < snippet.trim_end().len() { format!("{call} …") } else { call.to_string() };
        let why = found.name.as_deref().unwrap_or("options beside the message");
        return Some(Diagnostic {
            span,
            severity,
            rule: found.rule,
            message: format!(
                "Roundhouse leaves `{call}` as written ({why}): it compiles `errors.add` only with a symbol naming the field and at most a message (`errors.add(:title, \"is taken\")`), and the errors of the records it compiles are a list of messages with no `add`, so this raises NoMethodError when it runs (every target; the Spinel lane cannot compile it). Instead, name the field with a symbol and pass the message alone."
            ),
        });
    }
    let mut message = if found.rule == rule!("model.class-variable-initializer") {
        let name = snippet.split(|c: char| c.is_whitespace() || c == '=' || c == '|' || c == '+').next().unwrap_or(snippet);
        format!("Roundhouse rejects `{name} = …` in a model body (even `= nil`): use a constant or a class-level instance variable.")
    } else if found.slip {
        let snippet = snippet.lines().next().unwrap_or("").trim();
        format!(
            "Ruby reads `{snippet}` as the targets of a multiple assignment with nothing assigned: a syntax slip, most often a call whose arguments have no parentheses inside another call's arguments. Roundhouse's ingest rejects it, and the compile stops. Instead, put that call's arguments in parentheses (`link_to(t(:label), path)`)."
        )
    } else {
        super::syntax_rules::message(found.rule, snippet)
    };
    let mut severity = severity;
    if found.cost == Cost::StatementDropped && severity == Severity::Error {
        severity = Severity::Warning;
        message = message.replacen(
            "Roundhouse's ingest rejects",
            "Roundhouse reads this statement on its own and drops it, because its ingest rejects",
            1,
        );
    }
    Some(Diagnostic { span, severity, rule: found.rule, message })
}

// ----------------------------------------------------------------------------------------------
// Names and shapes
// ----------------------------------------------------------------------------------------------

/// The methods of a class file's class — its first, or the first whose name ends with
/// `class_suffix` (`Controller`) — each with whether it is a class method (`def self.x`, or a `def`
/// in `class << self`): what the N+1 check and the inline-query check read of a model or a
/// controller.
pub fn class_defs<'pr>(root: &Node<'pr>, class_suffix: Option<&str>) -> Vec<(ruby_prism::DefNode<'pr>, bool)> {
    fn collect<'pr>(node: &Node<'pr>, out: &mut Vec<ruby_prism::ClassNode<'pr>>) {
        if let Some(class) = node.as_class_node() {
            out.push(class);
            return;
        }
        let statements = if let Some(program) = node.as_program_node() {
            Some(program.statements())
        } else if let Some(module) = node.as_module_node() {
            module.body().and_then(|b| b.as_statements_node())
        } else {
            None
        };
        for statement in statements.iter().flat_map(|s| s.body().iter()) {
            collect(&statement, out);
        }
    }
    let mut classes = Vec::new();
    collect(root, &mut classes);
    let class = match class_suffix {
        Some(suffix) => classes.iter().find(|c| convert::name_of(c.name()).ends_with(suffix)).or(classes.first()),
        None => classes.first(),
    };
    let Some(statements) = class.and_then(|c| c.body()).and_then(|b| b.as_statements_node()) else { return Vec::new() };
    let mut defs = Vec::new();
    for statement in statements.body().iter() {
        if let Some(def) = statement.as_def_node() {
            let singleton = def.receiver().is_some_and(|r| r.as_self_node().is_some());
            defs.push((def, singleton));
        } else if let Some(singleton) = statement.as_singleton_class_node()
            && let Some(inner) = singleton.body().and_then(|b| b.as_statements_node())
        {
            defs.extend(inner.body().iter().filter_map(|s| s.as_def_node()).map(|d| (d, true)));
        }
    }
    defs
}

/// A constant's path as the ingest reads it (a leading `::` and a non-constant parent dropped).
fn constant_path(node: &Node<'_>) -> Option<Vec<String>> {
    if let Some(read) = node.as_constant_read_node() {
        return Some(vec![name_of(read.name())]);
    }
    let path = node.as_constant_path_node()?;
    let mut segments = path.parent().and_then(|p| constant_path(&p)).unwrap_or_default();
    segments.push(name_of(path.name()?));
    Some(segments)
}

fn statements_of<'pr>(body: Option<Node<'pr>>) -> Vec<Node<'pr>> {
    match body {
        Some(body) => match body.as_statements_node() {
            Some(statements) => statements.body().iter().collect(),
            None => vec![body],
        },
        None => Vec::new(),
    }
}

fn call_name(call: &ruby_prism::CallNode<'_>) -> String {
    name_of(call.name())
}

fn arguments<'pr>(call: &ruby_prism::CallNode<'pr>) -> Vec<Node<'pr>> {
    call.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default()
}

fn is_symbol(node: &Node<'_>) -> bool {
    node.as_symbol_node().is_some()
}

/// The first class, looked for through modules only (not into classes): the class a model file is.
fn first_class<'pr>(statements: &[Node<'pr>]) -> Option<ruby_prism::ClassNode<'pr>> {
    for statement in statements {
        if let Some(class) = statement.as_class_node() {
            return Some(class);
        }
        if let Some(module) = statement.as_module_node()
            && let Some(found) = first_class(&statements_of(module.body()))
        {
            return Some(found);
        }
    }
    None
}

/// Whether the ingest reads `class` as a model.
fn is_model(class: &ruby_prism::ClassNode<'_>) -> bool {
    match class.superclass() {
        Some(superclass) => {
            let path = constant_path(&superclass).map(|p| p.join("::"));
            matches!(path.as_deref(), Some("ApplicationRecord" | "ActiveRecord::Base"))
        }
        None => statements_of(class.body()).iter().any(|s| {
            s.as_call_node().is_some_and(|call| {
                call.receiver().is_none()
                    && call_name(&call) == "include"
                    && arguments(&call).iter().any(|a| {
                        constant_path(a).is_some_and(|p| p.join("::") == "ActiveModel::Model" || p.join("::") == "ActiveModel::Validations")
                    })
            })
        }),
    }
}

// ----------------------------------------------------------------------------------------------
// Model files
// ----------------------------------------------------------------------------------------------

const ASSOCIATIONS: &[&str] = &["has_many", "has_one", "belongs_to", "has_and_belongs_to_many"];

/// Hooks whose symbol-only form the ingest reads as a callback (its other forms are converted).
fn is_callback_hook(name: &str) -> bool {
    matches!(name, "before_validation" | "after_validation" | "after_commit" | "after_rollback")
        || ["before_", "after_"].iter().any(|prefix| {
            name.strip_prefix(prefix).is_some_and(|rest| {
                matches!(
                    rest,
                    "save" | "create" | "update" | "destroy" | "create_commit" | "update_commit" | "destroy_commit" | "save_commit"
                )
            })
        })
}

fn model_file(statements: &[Node<'_>], converter: &mut Converter, notes: &mut Notes) {
    match first_class(statements) {
        Some(class) if is_model(&class) => model_body(&class, converter, notes),
        Some(_) => library_file(statements, converter, notes),
        None => library_file(statements, converter, notes),
    }
}

fn model_body(class: &ruby_prism::ClassNode<'_>, converter: &mut Converter, notes: &mut Notes) {
    for statement in statements_of(class.body()) {
        if let Some(singleton) = statement.as_singleton_class_node() {
            for inner in statements_of(singleton.body()) {
                if let Some(def) = inner.as_def_node() {
                    converter.method(&def, true);
                } else if !inner.as_call_node().is_some_and(|c| {
                    c.receiver().is_none()
                        && c.arguments().is_none()
                        && c.block().is_none()
                        && matches!(call_name(&c).as_str(), "private" | "protected" | "public")
                }) {
                    let location = inner.location();
                    notes.singleton_statements.push((location.start_offset(), location.end_offset()));
                }
            }
            continue;
        }
        model_statement(&statement, converter);
    }
}

/// One statement of a model's body (or of a model concern's `included` block, which the ingest reads
/// the same way for the models that include it): its DSL read, or converted.
fn model_statement(statement: &Node<'_>, converter: &mut Converter) {
    if let Some(def) = statement.as_def_node() {
        converter.method(&def, true);
        return;
    }
    let Some(call) = statement.as_call_node() else {
        converter.expression(statement);
        return;
    };
    if call.receiver().is_some() {
        // `self.primary_key = …` is read for its value; any other call on a receiver is converted.
        if call_name(&call) != "primary_key=" {
            converter.expression(statement);
        }
        return;
    }
    let name = call_name(&call);
    let args = arguments(&call);
    if name == "enum"
        && let Some(readable) = enum_mapping_readable(&args)
    {
        if !readable {
            let location = statement.location();
            converter.report(rule!("model.enum-mapping"), location.start_offset(), location.end_offset());
        }
        return;
    }
    match name.as_str() {
        // Read for their DSL (`lowering` says what becomes of them).
        "validates_presence_of" | "validates_absence_of" if !args.is_empty() && args.iter().all(is_symbol) => {}
        "validates" if args.first().is_some_and(is_symbol) => {}
        "validate" if !args.is_empty() && args.iter().all(is_symbol) => {}
        association if ASSOCIATIONS.contains(&association) && args.first().is_some_and(is_symbol) => {
            // Its lambdas and its extension block are read on their own: a rejection drops them.
            let saved = converter.cost;
            converter.cost = Cost::StatementDropped;
            for argument in args.iter().skip(1) {
                if argument.as_lambda_node().is_some() {
                    converter.expression(argument);
                } else if let Some(hash) = argument.as_keyword_hash_node() {
                    for element in hash.elements().iter() {
                        if let Some(pair) = element.as_assoc_node()
                            && pair.value().as_lambda_node().is_some()
                        {
                            converter.expression(&pair.value());
                        }
                    }
                }
            }
            if let Some(block) = call.block().and_then(|b| b.as_block_node()) {
                for inner in statements_of(block.body()) {
                    if let Some(def) = inner.as_def_node() {
                        converter.method(&def, true);
                    }
                }
            }
            converter.cost = saved;
        }
        "scope" if args.first().is_some_and(is_symbol) && args.len() >= 2 => {
            let body = &args[1];
            if let Some(lambda) = body.as_lambda_node() {
                converter.scope_lambda(lambda.parameters(), lambda.body());
            } else if let Some(spelled) = body
                .as_call_node()
                .filter(|c| c.receiver().is_none() && matches!(call_name(c).as_str(), "lambda" | "proc") && c.block().is_some())
                && let Some(block) = spelled.block().and_then(|b| b.as_block_node())
            {
                converter.scope_lambda(block.parameters(), block.body());
            } else {
                let location = statement.location();
                converter.report(rule!("model.scope-body"), location.start_offset(), location.end_offset());
            }
        }
        hook if is_callback_hook(hook) && !args.is_empty() && callback_symbols_only(&args) => {}
        _ => converter.expression(statement),
    }
}

/// A model concern's `included` block, as the ingest reads it for each model that includes it: each
/// statement as a model's (through `with_options do`), its failures recorded and the statement
/// skipped, never a stop.
fn included_block(block: &ruby_prism::BlockNode<'_>, converter: &mut Converter) {
    let saved = converter.cost;
    converter.cost = Cost::StatementDropped;
    // What the includers get of it (associations, validations, callbacks, scopes, enums) holds no
    // method body the lowerings rewrite: its `def`s are dropped.
    let lowered = std::mem::replace(&mut converter.lowered, convert::Lowered::No);
    for statement in statements_of(block.body()) {
        if let Some(inner) = statement.as_call_node().filter(|c| c.receiver().is_none() && call_name(c) == "with_options")
            && let Some(inner_block) = inner.block().and_then(|b| b.as_block_node())
        {
            included_block(&inner_block, converter);
            continue;
        }
        let before = converter.found.len();
        model_statement(&statement, converter);
        // A `def`'s body is never compiled: nothing in it is expanded or kept.
        if statement.as_def_node().is_some() {
            let mut index = 0;
            converter.found.retain(|f| {
                index += 1;
                index <= before || f.format.is_none()
            });
        }
    }
    converter.cost = saved;
    converter.lowered = lowered;
}

/// Whether the ingest reads an `enum`'s mapping (`Some(false)`: it stops the compile), or `None` when
/// the call is not of an enum's shape (`enum :name, mapping` or `enum name: mapping`) and is read as
/// any other call. The mapping must be an array of symbols or strings, a braced hash of symbol or
/// string keys and string or 32-bit integer values, or `index_by` on such an array; a bare keyword
/// hash (`enum :status, draft: 0`), a constant or a symbol value is not.
fn enum_mapping_readable(args: &[Node<'_>]) -> Option<bool> {
    let first = args.first()?;
    let mapping = if is_symbol(first) {
        args.get(1)?
    } else {
        let hash = first.as_keyword_hash_node()?;
        let elements: Vec<Node<'_>> = hash.elements().iter().collect();
        let pair = elements.first()?.as_assoc_node()?;
        if !is_symbol(&pair.key()) {
            return None;
        }
        return Some(mapping_readable(&pair.value()));
    };
    Some(mapping_readable(mapping))
}

fn mapping_readable(mapping: &Node<'_>) -> bool {
    let label = |n: &Node<'_>| n.as_symbol_node().is_some() || n.as_string_node().is_some();
    if let Some(array) = mapping.as_array_node() {
        return array.elements().iter().all(|e| label(&e));
    }
    if let Some(hash) = mapping.as_hash_node() {
        return hash.elements().iter().all(|e| {
            e.as_assoc_node().is_some_and(|pair| {
                let value = pair.value();
                label(&pair.key())
                    && (value.as_string_node().is_some()
                        || value.as_integer_node().is_some_and(|i| TryInto::<i32>::try_into(i.value()).is_ok()))
            })
        });
    }
    mapping.as_call_node().is_some_and(|call| {
        call_name(&call) == "index_by"
            && call.receiver().and_then(|r| r.as_array_node()).is_some_and(|a| a.elements().iter().all(|e| label(&e)))
    })
}

/// Every argument a symbol, but an `on: :create`/`:update`/`:destroy`.
fn callback_symbols_only(args: &[Node<'_>]) -> bool {
    args.iter().all(|a| {
        is_symbol(a)
            || a.as_keyword_hash_node().is_some_and(|hash| {
                hash.elements().iter().all(|e| {
                    e.as_assoc_node().is_some_and(|pair| {
                        pair.key().as_symbol_node().is_some_and(|k| k.unescaped() == b"on")
                            && pair.value().as_symbol_node().is_some_and(|v| matches!(v.unescaped(), b"create" | b"update" | b"destroy"))
                    })
                })
            })
    })
}

// ----------------------------------------------------------------------------------------------
// Controller files
// ----------------------------------------------------------------------------------------------

/// Every class, pre-order, through modules and classes (not blocks, conditionals or methods).
fn all_classes<'pr>(statements: &[Node<'pr>], out: &mut Vec<ruby_prism::ClassNode<'pr>>) {
    for statement in statements {
        if let Some(class) = statement.as_class_node() {
            let inner = statements_of(class.body());
            out.push(class);
            all_classes(&inner, out);
        } else if let Some(module) = statement.as_module_node() {
            all_classes(&statements_of(module.body()), out);
        }
    }
}

const FILTERS: &[&str] = &["before_action", "around_action", "after_action", "skip_before_action"];

fn controller_file(statements: &[Node<'_>], converter: &mut Converter, notes: &mut Notes) {
    let mut classes = Vec::new();
    all_classes(statements, &mut classes);
    let chosen = classes
        .iter()
        .position(|c| constant_path(&c.constant_path()).and_then(|p| p.last().cloned()).is_some_and(|last| last.ends_with("Controller")))
        .or(if classes.is_empty() { None } else { Some(0) });
    let Some(index) = chosen else {
        library_file(statements, converter, notes);
        return;
    };
    for statement in statements_of(classes[index].body()) {
        if let Some(call) = statement.as_call_node()
            && call.receiver().is_none()
            && FILTERS.contains(&call_name(&call).as_str())
            && arguments(&call).iter().any(is_symbol)
        {
            // A filter: its `if:`/`unless:` lambdas are read on their own.
            let saved = converter.cost;
            converter.cost = Cost::StatementDropped;
            for argument in arguments(&call) {
                if let Some(hash) = argument.as_keyword_hash_node() {
                    for element in hash.elements().iter() {
                        if let Some(pair) = element.as_assoc_node()
                            && pair.key().as_symbol_node().is_some_and(|k| matches!(k.unescaped(), b"if" | b"unless"))
                            && pair.value().as_lambda_node().is_some()
                        {
                            converter.expression(&pair.value());
                        }
                    }
                }
            }
            converter.cost = saved;
            continue;
        }
        if let Some(def) = statement.as_def_node() {
            // An action: its optional parameters' defaults and its body (keywords are dropped).
            converter.method(&def, false);
            if let Some(body) = def.body() {
                respond_to_arms(&body, notes);
            }
            continue;
        }
        if statement
            .as_call_node()
            .is_some_and(|c| c.receiver().is_none() && c.arguments().is_none() && c.block().is_none() && call_name(&c) == "private")
        {
            continue;
        }
        converter.expression(&statement);
    }
}

/// The `respond_to` blocks of an action the compiler flattens into a format dispatch, and in each the
/// `format.json` arms the Spinel tree drops (`controller.json-format-dropped`). The compiler looks for
/// `respond_to` through statements, `if`/`unless` branches, calls, `&&`/`||`, lambdas, assignments,
/// arrays and hashes, not into `begin`/`rescue` (an action with a `rescue` keeps its `respond_to` as
/// written), `case` or loops. The Spinel tree keeps a json arm that only renders a template or a
/// status (`render :show`, `head :ok`); any other arm is dropped, and a request for JSON gets the
/// html branch's answer.
fn respond_to_arms(node: &Node<'_>, notes: &mut Notes) {
    if let Some(call) = node.as_call_node() {
        if call.receiver().is_none()
            && call_name(&call) == "respond_to"
            && let Some(block) = call.block().and_then(|b| b.as_block_node())
        {
            let binding = block
                .parameters()
                .and_then(|p| p.as_block_parameters_node())
                .and_then(|p| p.parameters())
                .and_then(|p| p.requireds().iter().next())
                .and_then(|r| r.as_required_parameter_node().map(|r| name_of(r.name())));
            if let Some(body) = block.body() {
                format_arms(body, binding.as_deref(), notes);
            }
            return;
        }
        if let Some(receiver) = call.receiver() {
            respond_to_arms(&receiver, notes);
        }
        for argument in arguments(&call) {
            respond_to_arms(&argument, notes);
        }
        if let Some(body) = call.block().and_then(|b| b.as_block_node()).and_then(|b| b.body()) {
            respond_to_arms(&body, notes);
        }
        return;
    }
    let children: Vec<Node<'_>> = if let Some(statements) = node.as_statements_node() {
        statements.body().iter().collect()
    } else if let Some(parentheses) = node.as_parentheses_node() {
        parentheses.body().into_iter().collect()
    } else if let Some(branch) = node.as_if_node() {
        let mut children = vec![branch.predicate()];
        children.extend(branch.statements().map(|s| s.as_node()));
        children.extend(branch.subsequent());
        children
    } else if let Some(branch) = node.as_unless_node() {
        let mut children = vec![branch.predicate()];
        children.extend(branch.statements().map(|s| s.as_node()));
        children.extend(branch.else_clause().and_then(|e| e.statements()).map(|s| s.as_node()));
        children
    } else if let Some(otherwise) = node.as_else_node() {
        otherwise.statements().map(|s| s.as_node()).into_iter().collect()
    } else if let Some(and) = node.as_and_node() {
        vec![and.left(), and.right()]
    } else if let Some(or) = node.as_or_node() {
        vec![or.left(), or.right()]
    } else if let Some(lambda) = node.as_lambda_node() {
        lambda.body().into_iter().collect()
    } else if let Some(write) = node.as_local_variable_write_node() {
        vec![write.value()]
    } else if let Some(write) = node.as_instance_variable_write_node() {
        vec![write.value()]
    } else if let Some(array) = node.as_array_node() {
        array.elements().iter().collect()
    } else if let Some(hash) = node.as_hash_node() {
        hash.elements().iter().filter_map(|e| e.as_assoc_node()).flat_map(|p| [p.key(), p.value()]).collect()
    } else if let Some(hash) = node.as_keyword_hash_node() {
        hash.elements().iter().filter_map(|e| e.as_assoc_node()).flat_map(|p| [p.key(), p.value()]).collect()
    } else {
        Vec::new()
    };
    for child in children {
        respond_to_arms(&child, notes);
    }
}

/// A `respond_to` block's body: its `format.<x>` statements, through `if` branches. The compiler
/// reads the arms inside an `if` only when the `if` is the whole body (of the block, or of a branch
/// it reads); an `if` beside other statements is copied as written, its `format.<x>` calls with it,
/// and `format` is undefined in the compiled action (`controller.format-arms-unread`).
fn format_arms(body: Node<'_>, binding: Option<&str>, notes: &mut Notes) {
    let statements = statements_of(Some(body));
    let sole = statements.len() == 1;
    for statement in statements {
        if !sole && (statement.as_if_node().is_some() || statement.as_unless_node().is_some()) {
            let mut arms = Vec::new();
            unread_arms(&statement, binding, &mut arms);
            if let Some(first) = arms.first() {
                let (start, end) = (statement.location().start_offset(), statement.location().end_offset());
                // A modifier `if` starts at its arm: then its whole first line.
                let line_end = if first.0 > start { first.0.min(end) } else { end };
                notes.unread_arms.push((start, line_end, arms.len()));
                continue;
            }
        }
        if let Some(branch) = statement.as_if_node() {
            for part in branch.statements().map(|s| s.as_node()).into_iter().chain(branch.subsequent()) {
                format_arms(part, binding, notes);
            }
            continue;
        }
        if let Some(otherwise) = statement.as_else_node() {
            if let Some(statements) = otherwise.statements() {
                format_arms(statements.as_node(), binding, notes);
            }
            continue;
        }
        let Some(call) = statement.as_call_node() else {
            respond_to_arms(&statement, notes);
            continue;
        };
        // The compiler knows an arm by its receiver's name, `format`: the arms of `respond_to do |f|`
        // are copied as written.
        let on_binding = call
            .receiver()
            .and_then(|r| r.as_local_variable_read_node().map(|l| name_of(l.name())))
            .is_some_and(|name| name == "format" && binding.is_none_or(|b| b == name));
        if !on_binding {
            respond_to_arms(&statement, notes);
            continue;
        }
        let format = call_name(&call);
        if !matches!(format.as_str(), "html" | "json" | "rss") {
            let location = call.message_loc().unwrap_or_else(|| call.location());
            notes.other_arms.push((call.location().start_offset(), location.end_offset(), format));
            continue;
        }
        if let Some(body) = call.block().and_then(|b| b.as_block_node()).and_then(|b| b.body()) {
            let mut jumps = Vec::new();
            jumps_outside_blocks(&body, &mut jumps);
            for (start, end, keyword) in jumps {
                notes.arm_jumps.push((start, end, keyword, format.clone()));
            }
        }
        if format != "json" {
            continue;
        }
        let arm: Vec<Node<'_>> =
            call.block().and_then(|b| b.as_block_node()).and_then(|b| b.body()).map(|b| statements_of(Some(b))).unwrap_or_default();
        let kept = arm.len() == 1
            && arm[0].as_call_node().is_some_and(|c| {
                let first = arguments(&c).into_iter().next();
                c.receiver().is_none()
                    && match call_name(&c).as_str() {
                        "render" => first.is_some_and(|a| is_symbol(&a)),
                        "head" => first.is_some_and(|a| is_symbol(&a) || a.as_integer_node().is_some()),
                        _ => false,
                    }
            });
        if !kept {
            let location = call.message_loc().unwrap_or_else(|| call.location());
            let start = call.location().start_offset();
            notes.json_arms.push((start, location.end_offset()));
        }
    }
}

/// The `next`s and `break`s in `node` that leave it (none inside a block, a lambda, a loop or a
/// method of its own), as (start, end, keyword).
fn jumps_outside_blocks(node: &Node<'_>, out: &mut Vec<(usize, usize, String)>) {
    struct Jumps<'o>(&'o mut Vec<(usize, usize, String)>);
    impl<'pr> ruby_prism::Visit<'pr> for Jumps<'_> {
        fn visit_next_node(&mut self, node: &ruby_prism::NextNode<'pr>) {
            let location = node.location();
            self.0.push((location.start_offset(), location.end_offset(), "next".to_owned()));
        }
        fn visit_break_node(&mut self, node: &ruby_prism::BreakNode<'pr>) {
            let location = node.location();
            self.0.push((location.start_offset(), location.end_offset(), "break".to_owned()));
        }
        fn visit_block_node(&mut self, _: &ruby_prism::BlockNode<'pr>) {}
        fn visit_lambda_node(&mut self, _: &ruby_prism::LambdaNode<'pr>) {}
        fn visit_def_node(&mut self, _: &ruby_prism::DefNode<'pr>) {}
        fn visit_while_node(&mut self, _: &ruby_prism::WhileNode<'pr>) {}
        fn visit_until_node(&mut self, _: &ruby_prism::UntilNode<'pr>) {}
        fn visit_for_node(&mut self, _: &ruby_prism::ForNode<'pr>) {}
    }
    ruby_prism::Visit::visit(&mut Jumps(out), node);
}

/// The `format.<x>` calls on the block's binding inside a statement (through `if`/`unless`/`else`
/// branches), as (start, end) of each call.
fn unread_arms(node: &Node<'_>, binding: Option<&str>, out: &mut Vec<(usize, usize)>) {
    let parts: Vec<Node<'_>> = if let Some(branch) = node.as_if_node() {
        branch.statements().map(|s| s.as_node()).into_iter().chain(branch.subsequent()).collect()
    } else if let Some(branch) = node.as_unless_node() {
        branch.statements().map(|s| s.as_node()).into_iter().chain(branch.else_clause().map(|e| e.as_node())).collect()
    } else if let Some(otherwise) = node.as_else_node() {
        otherwise.statements().map(|s| s.as_node()).into_iter().collect()
    } else if let Some(statements) = node.as_statements_node() {
        statements.body().iter().collect()
    } else {
        if let Some(call) = node.as_call_node()
            && call
                .receiver()
                .and_then(|r| r.as_local_variable_read_node().map(|l| name_of(l.name())))
                .is_some_and(|name| binding.is_some_and(|b| b == name))
        {
            out.push((call.location().start_offset(), call.location().end_offset()));
        }
        return;
    };
    for part in parts {
        unread_arms(&part, binding, out);
    }
}

// ----------------------------------------------------------------------------------------------
// Library files
// ----------------------------------------------------------------------------------------------

/// Calls a library body drops unread, whatever their arguments (`private def x` and all).
const POSITION_SENSITIVE: &[&str] = &[
    "private",
    "public",
    "protected",
    "private_class_method",
    "public_class_method",
    "private_constant",
    "public_constant",
    "require",
    "require_relative",
];

const ATTRIBUTES: &[&str] = &[
    "attr_reader",
    "attr_writer",
    "attr_accessor",
    "cattr_reader",
    "cattr_writer",
    "cattr_accessor",
    "mattr_reader",
    "mattr_writer",
    "mattr_accessor",
];

/// Whether a module's body is read: it defines a method, an attribute or a constant directly, or
/// holds `included do`, or a `class_methods do` / `class << self` / `module ClassMethods` that
/// defines a method or an attribute.
fn module_read(module: &ruby_prism::ModuleNode<'_>) -> bool {
    fn defines(statements: &[Node<'_>]) -> bool {
        statements.iter().any(|s| {
            s.as_def_node().is_some()
                || s.as_call_node().is_some_and(|c| c.receiver().is_none() && ATTRIBUTES[..3].contains(&call_name(&c).as_str()))
        })
    }
    statements_of(module.body()).iter().any(|s| {
        if s.as_def_node().is_some() || s.as_constant_write_node().is_some() || s.as_constant_path_write_node().is_some() {
            return true;
        }
        if let Some(call) = s.as_call_node().filter(|c| c.receiver().is_none()) {
            let name = call_name(&call);
            if ATTRIBUTES[..3].contains(&name.as_str()) {
                return true;
            }
            let block = call.block().and_then(|b| b.as_block_node());
            if name == "included" && block.is_some() {
                return true;
            }
            if name == "class_methods" && block.is_some_and(|b| defines(&statements_of(b.body()))) {
                return true;
            }
        }
        if let Some(singleton) = s.as_singleton_class_node() {
            return defines(&statements_of(singleton.body()));
        }
        if let Some(inner) = s.as_module_node()
            && constant_path(&inner.constant_path()).is_some_and(|p| p == ["ClassMethods"])
        {
            return defines(&statements_of(inner.body()));
        }
        false
    })
}

/// Every class, and every module whose body is read, pre-order through modules and classes.
fn library_declarations<'pr>(statements: &[Node<'pr>], bodies: &mut Vec<Option<Node<'pr>>>) {
    for statement in statements {
        if let Some(class) = statement.as_class_node() {
            bodies.push(class.body());
            library_declarations(&statements_of(class.body()), bodies);
        } else if let Some(module) = statement.as_module_node() {
            if module_read(&module) {
                bodies.push(module.body());
            }
            library_declarations(&statements_of(module.body()), bodies);
        }
    }
}

fn library_file(statements: &[Node<'_>], converter: &mut Converter, notes: &mut Notes) {
    let mut bodies = Vec::new();
    library_declarations(statements, &mut bodies);
    if bodies.is_empty() {
        return;
    }
    // File-level constants join the first class; their values are converted.
    for statement in statements {
        if let Some(constant) = statement.as_constant_write_node() {
            converter.expression(&constant.value());
        }
    }
    for body in bodies {
        declaration_body(body, converter, notes);
    }
}

fn declaration_body(body: Option<Node<'_>>, converter: &mut Converter, notes: &mut Notes) {
    for statement in statements_of(body) {
        if let Some(constant) = statement.as_constant_write_node() {
            converter.expression(&constant.value());
            continue;
        }
        if let Some(write) = statement.as_class_variable_write_node() {
            let before = converter.found.len();
            converter.expression(&write.value());
            if converter.found.len() == before && write.value().as_nil_node().is_none() {
                let location = statement.location();
                notes.class_variables.push((location.start_offset(), location.end_offset(), name_of(write.name())));
            }
            continue;
        }
        if let Some(def) = statement.as_def_node() {
            converter.method(&def, true);
            if let Some(note) = parameters_not_ruby(&def) {
                notes.parameters_not_ruby.push(note);
            }
            continue;
        }
        if let Some(singleton) = statement.as_singleton_class_node() {
            declaration_body(singleton.body(), converter, notes);
            continue;
        }
        if let Some(module) = statement.as_module_node() {
            if constant_path(&module.constant_path()).is_some_and(|p| p == ["ClassMethods"]) {
                declaration_body(module.body(), converter, notes);
            }
            continue;
        }
        if let Some(shareable) = statement.as_shareable_constant_node() {
            let location = statement.location();
            let name = shareable.write().as_constant_write_node().map(|w| name_of(w.name())).unwrap_or_default();
            notes.constants_dropped.push((location.start_offset(), location.end_offset(), name));
            continue;
        }
        if let Some(alias) = statement.as_alias_method_node() {
            let name = alias.new_name();
            let location = name.location();
            let text = String::from_utf8_lossy(location.as_slice()).trim_start_matches(':').to_owned();
            let whole = statement.location();
            notes.aliases_dropped.push((whole.start_offset(), whole.end_offset(), text));
            continue;
        }
        let Some(call) = statement.as_call_node() else { continue };
        if call.receiver().is_some() {
            continue;
        }
        let name = call_name(&call);
        if name == "class_methods"
            && let Some(block) = call.block().and_then(|b| b.as_block_node())
        {
            declaration_body(block.body(), converter, notes);
            continue;
        }
        if name == "include" || ATTRIBUTES.contains(&name.as_str()) || name == "module_function" {
            continue;
        }
        // `extend self` reads as `module_function`; a concern's `extend ActiveSupport::Concern` is
        // dropped from the module's own body, and its includers lose nothing by it.
        if name == "extend"
            && arguments(&call)
                .iter()
                .all(|a| a.as_self_node().is_some() || constant_path(a).is_some_and(|p| p == ["ActiveSupport", "Concern"]))
        {
            continue;
        }
        if POSITION_SENSITIVE.contains(&name.as_str()) {
            // `private def x`: the call is dropped unread, and the method with it.
            for argument in arguments(&call) {
                if let Some(def) = argument.as_def_node() {
                    let location = argument.location();
                    let line_end =
                        location.start_offset() + location.as_slice().iter().position(|&b| b == b'\n').unwrap_or(location.as_slice().len());
                    notes.defs_dropped.push((location.start_offset(), line_end, name_of(def.name()), name.clone()));
                }
            }
            continue;
        }
        let mut read_for_includers = false;
        if name == "included" {
            let location = statement.location();
            notes.included_blocks.push((location.start_offset(), location.end_offset()));
            if notes.model_concern
                && let Some(block) = call.block().and_then(|b| b.as_block_node())
            {
                included_block(&block, converter);
                read_for_includers = true;
            }
        }
        // Converted on its own: a rejection drops the call.
        let saved = converter.cost;
        converter.cost = Cost::StatementDropped;
        let before = converter.found.len();
        converter.expression(&statement);
        converter.cost = saved;
        // Read, it is kept to be replayed in the class body; which only a class on a gem's base
        // does (the app decides that: `checks`). A concern's `included` and `class_methods` blocks
        // reach its includers.
        // `delegate`s are written as methods in their plain shape, and the others dropped: the
        // outline's reading says which (`facts_rules::delegate_fate`).
        if converter.found.len() == before && !matches!(name.as_str(), "included" | "class_methods" | "delegate") {
            let location = statement.location();
            let slice = location.as_slice();
            let first_line = slice.iter().position(|&b| b == b'\n').unwrap_or(slice.len());
            notes.library_calls.push((location.start_offset(), location.start_offset() + first_line, name.clone()));
        }
        // A model concern's `included` block lands in its includers as they read it (above), and in
        // no tree as the module's own call: of this reading, only its rejections are the compiler's
        // (a scope's keyword parameters, for one, are kept by the includer).
        if read_for_includers {
            let own = converter.found.split_off(before);
            converter.found.extend(own.into_iter().filter(|f| !convert::NOT_REJECTING.contains(&f.rule)));
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Test files
// ----------------------------------------------------------------------------------------------

fn is_test_class(class: &ruby_prism::ClassNode<'_>) -> bool {
    let last = |node: &Node<'_>| constant_path(node).and_then(|p| p.last().cloned()).unwrap_or_default();
    last(&class.constant_path()).ends_with("Test")
        || class.superclass().is_some_and(|s| matches!(last(&s).as_str(), "Test" | "TestCase" | "IntegrationTest"))
}

fn test_file(statements: &[Node<'_>], converter: &mut Converter, notes: &mut Notes) {
    let classes: Vec<ruby_prism::ClassNode<'_>> = statements.iter().filter_map(|s| s.as_class_node()).collect();
    let Some(index) = classes.iter().position(is_test_class).or(if classes.is_empty() { None } else { Some(0) }) else { return };
    for statement in statements_of(classes[index].body()) {
        if let Some(def) = statement.as_def_node() {
            converter.method(&def, true);
            continue;
        }
        if let Some(class) = statement.as_class_node() {
            declaration_body(class.body(), converter, notes);
            continue;
        }
        if let Some(constant) = statement.as_constant_write_node() {
            converter.expression(&constant.value());
            continue;
        }
        let Some(call) = statement.as_call_node() else { continue };
        if call.receiver().is_some() {
            continue;
        }
        let name = call_name(&call);
        let block = call.block().and_then(|b| b.as_block_node());
        let literal_name = arguments(&call).first().is_some_and(|a| a.as_string_node().is_some());
        if (name == "setup" || name == "test" && literal_name)
            && let Some(block) = block
            && let Some(body) = block.body()
        {
            converter.expression(&body);
        }
    }
    // The file's other top-level classes are its helpers, read as library classes.
    for (i, class) in classes.iter().enumerate() {
        if i != index && !is_test_class(class) {
            declaration_body(class.body(), converter, notes);
        }
    }
}

#[cfg(test)]
mod tests;

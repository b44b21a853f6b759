//! Every conversion between the protocol and the rest of Switchyard: UTF-16 positions ⇄ byte offsets
//! (through a document's rope, or a file's `LineIndex`), `Uri` ⇄ path, and our plain structs → LSP types.

use std::path::PathBuf;

use ropey::Rope;
use tower_lsp_server::ls_types::{self as lsp, Position, Uri};

use crate::diagnostic::{Diagnostic, Severity};
use crate::ide::SymbolKind;
use crate::ide::symbols::DocumentSymbol;
use crate::syntax::{LineIndex, Span};

/// The local file a URI names: `file:` URIs without a host (or `localhost`) only, percent-decoded
/// and with `.` and `..` resolved, so that a containment check on the path holds (`app/../secret`,
/// `%2e%2e`, `..%2f` name what they lead to). Any other URI names no file here.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    if let Some(authority) = uri.authority()
        && !authority.host().is_empty()
        && !authority.host().eq_ignore_ascii_case("localhost")
    {
        return None;
    }
    let path = uri.to_file_path()?;
    if !path.is_absolute() {
        return None;
    }
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    Some(normal)
}

pub fn uri_of(path: &std::path::Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

/// The byte offset of an LSP position in a rope. A character past the end of its line means the end of
/// the line (as the protocol says); a line past the end of the text is an error (out of sync).
pub fn offset(rope: &Rope, position: Position) -> Option<usize> {
    let line = position.line as usize;
    if line >= rope.len_lines() {
        return (line == rope.len_lines() && position.character == 0).then(|| rope.len_bytes());
    }
    let line_start = rope.line_to_char(line);
    let slice = rope.line(line);
    let content_chars = slice.len_chars() - trailing_line_break_chars(&slice);
    let content_utf16 = slice.char_to_utf16_cu(content_chars);
    let utf16 = (position.character as usize).min(content_utf16);
    let char_in_line = slice.utf16_cu_to_char(utf16);
    Some(rope.char_to_byte(line_start + char_in_line))
}

/// As `offset`, with a position past the end of the text taken as the end (for a client out of
/// sync: its change is applied as near as the text allows).
pub fn offset_clamped(rope: &Rope, position: Position) -> usize {
    offset(rope, position).unwrap_or_else(|| rope.len_bytes())
}

fn trailing_line_break_chars(slice: &ropey::RopeSlice<'_>) -> usize {
    let len = slice.len_chars();
    match (len.checked_sub(2).map(|i| slice.char(i)), len.checked_sub(1).map(|i| slice.char(i))) {
        (Some('\r'), Some('\n')) => 2,
        (_, Some('\n' | '\r')) => 1,
        _ => 0,
    }
}

/// The byte offset of an LSP position in a file known by its `LineIndex` (a closed file's facts).
pub fn offset_in(line_index: &LineIndex, position: Position) -> Option<usize> {
    let col = line_index.byte_col_from_utf16(position.line, position.character);
    line_index.offset(crate::syntax::LineCol { line: position.line, col })
}

pub fn position(line_index: &LineIndex, point: crate::syntax::LineCol) -> Position {
    Position { line: point.line, character: line_index.utf16_col(point) }
}

pub fn range(line_index: &LineIndex, span: Span) -> lsp::Range {
    lsp::Range { start: position(line_index, span.start), end: position(line_index, span.end) }
}

fn severity(severity: Severity) -> lsp::DiagnosticSeverity {
    match severity {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
    }
}

/// A diagnostic for the client; `doc` is the link to its rule's page (`codeDescription`).
pub fn diagnostic(line_index: &LineIndex, d: &Diagnostic, doc: Option<lsp::Uri>) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: range(line_index, d.span),
        severity: Some(severity(d.severity)),
        code: Some(lsp::NumberOrString::String(d.rule.to_string())),
        code_description: doc.map(|href| lsp::CodeDescription { href }),
        source: Some("switchyard".to_owned()),
        message: d.message.clone(),
        ..lsp::Diagnostic::default()
    }
}

/// A compiler diagnostic (exact previews) where it is in `text` now (`roundhouse::exact::locate`);
/// `None` once its line has changed.
pub fn exact_diagnostic(
    d: &crate::roundhouse::exact::ExactDiagnostic,
    text: Option<&str>,
    own: &[crate::diagnostic::Diagnostic],
) -> Option<lsp::Diagnostic> {
    let (line, start, end) = crate::roundhouse::exact::locate(d, text)?;
    if d.said_by(line, own, text) {
        return None;
    }
    // Byte columns to UTF-16 ones, on the line as the compiler read it.
    let utf16 = |bytes: usize| -> u32 {
        d.line_text.as_deref().map_or(bytes, |t| t.get(..bytes.min(t.len())).map_or(bytes, |p| p.encode_utf16().count())) as u32
    };
    Some(lsp::Diagnostic {
        range: lsp::Range { start: Position { line, character: utf16(start) }, end: Position { line, character: utf16(end) } },
        severity: Some(severity(d.reported_severity())),
        code: Some(lsp::NumberOrString::String(d.rule().to_string())),
        source: Some("roundhouse".to_owned()),
        message: d.reported_message(),
        ..lsp::Diagnostic::default()
    })
}

pub fn symbol_kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::Module => lsp::SymbolKind::MODULE,
        SymbolKind::Class => lsp::SymbolKind::CLASS,
        SymbolKind::Method => lsp::SymbolKind::METHOD,
        SymbolKind::Field => lsp::SymbolKind::FIELD,
        SymbolKind::Property => lsp::SymbolKind::PROPERTY,
        SymbolKind::Event => lsp::SymbolKind::EVENT,
        SymbolKind::Function => lsp::SymbolKind::FUNCTION,
        SymbolKind::Enum => lsp::SymbolKind::ENUM,
        SymbolKind::Constant => lsp::SymbolKind::CONSTANT,
        SymbolKind::Struct => lsp::SymbolKind::STRUCT,
        SymbolKind::File => lsp::SymbolKind::FILE,
        SymbolKind::Namespace => lsp::SymbolKind::NAMESPACE,
        SymbolKind::Interface => lsp::SymbolKind::INTERFACE,
        SymbolKind::Key => lsp::SymbolKind::KEY,
    }
}

#[allow(deprecated)] // `deprecated` is a required field of the protocol type.
pub fn document_symbol(line_index: &LineIndex, s: &DocumentSymbol) -> lsp::DocumentSymbol {
    let range = range(line_index, s.span);
    let mut selection_range = self::range(line_index, s.selection_span);
    if selection_range.start < range.start || selection_range.end > range.end {
        selection_range = range;
    }
    lsp::DocumentSymbol {
        name: if s.name.is_empty() { "(unnamed)".to_owned() } else { s.name.clone() },
        detail: s.detail.clone(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: (!s.children.is_empty()).then(|| s.children.iter().map(|c| document_symbol(line_index, c)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::syntax::Language;

    /// ((start line, start character), (end line, end character), new text), in UTF-16 positions.
    type Change<'a> = ((u32, u32), (u32, u32), &'a str);

    fn apply(text: &str, changes: &[Change<'_>]) -> String {
        let mut doc = Document::new(PathBuf::from("x.rb"), 1, Language::Ruby, text.to_owned());
        for &((sl, sc), (el, ec), new_text) in changes {
            let start = offset(&doc.rope, Position { line: sl, character: sc }).unwrap();
            let end = offset(&doc.rope, Position { line: el, character: ec }).unwrap();
            doc.replace(start, end, new_text).unwrap();
        }
        doc.commit(2);
        doc.text
    }

    #[test]
    fn utf16_positions_after_surrogate_pairs_and_multibyte_characters() {
        // 😀 is two UTF-16 units, é one: `x` sits at UTF-16 column 4 on line 1.
        assert_eq!(apply("a\n😀éx\n", &[((1, 3), (1, 4), "y")]), "a\n😀éy\n");
    }

    #[test]
    fn crlf_line_ends_and_positions_past_the_end_of_a_line() {
        assert_eq!(apply("ab\r\ncd\r\n", &[((0, 99), (1, 0), "|")]), "ab|cd\r\n");
    }

    #[test]
    fn several_changes_apply_in_order() {
        let changes = [((0, 0), (0, 0), "# é\n"), ((1, 6), (1, 6), "X"), ((2, 0), (2, 0), "end\n")];
        assert_eq!(apply("class A\nend\n", &changes), "# é\nclass XA\nend\nend\n");
    }

    /// Random notifications of one to three changes at UTF-16 positions, on text with surrogate pairs,
    /// multi-byte characters and CRLF: the document must equal the text edited independently, and its
    /// incremental tree a fresh parse.
    #[test]
    fn random_utf16_edit_sequences_equal_a_fresh_parse() {
        let mut seed = 7u64;
        let mut next = |bound: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % bound.max(1)
        };
        let inserts = ["😀", "é", "\r\n", "\n", "x", "  has_many :tags\n", "def a(b)\n", "end\n", "(", "\"", ""];
        let mut expected = "class Café < ApplicationRecord\r\n  # 😀 ok\n  belongs_to :author\nend\n".to_owned();
        let mut doc = Document::new(PathBuf::from("x.rb"), 1, Language::Ruby, expected.clone());
        for version in 2..200 {
            for _ in 0..=next(3) {
                // Pick a line and a character boundary on it; the LSP position counts UTF-16 units.
                let lines: Vec<&str> = expected.split('\n').collect();
                let line = next(lines.len());
                let content = lines[line].strip_suffix('\r').unwrap_or(lines[line]);
                let chars: Vec<char> = content.chars().collect();
                let char_index = next(chars.len() + 1);
                let utf16: usize = chars[..char_index].iter().map(|c| c.len_utf16()).sum();
                let line_start: usize = lines[..line].iter().map(|l| l.len() + 1).sum();
                let byte = line_start + chars[..char_index].iter().map(|c| c.len_utf8()).sum::<usize>();
                let insert = inserts[next(inserts.len())];
                let position = Position { line: line as u32, character: utf16 as u32 };
                let at = offset(&doc.rope, position).unwrap();
                assert_eq!(at, byte, "offset of {position:?} in {expected:?}");
                doc.replace(at, at, insert).unwrap();
                expected.insert_str(byte, insert);
            }
            doc.commit(version);
            assert_eq!(doc.text, expected);
            let fresh = crate::syntax::ParsedFile::parse(Language::Ruby, &doc.text);
            assert_eq!(doc.parsed.ruby.as_ref().map(|t| t.root_node().to_sexp()), fresh.ruby.as_ref().map(|t| t.root_node().to_sexp()));
        }
    }

    #[test]
    fn only_local_file_uris_name_files_and_dot_dot_is_resolved() {
        let path = |uri: &str| path_of(&uri.parse::<Uri>().unwrap()).map(|p| p.display().to_string());
        assert_eq!(path("file:///w/app/models/post.rb").as_deref(), Some("/w/app/models/post.rb"));
        assert_eq!(path("file://localhost/w/a.rb").as_deref(), Some("/w/a.rb"));
        assert_eq!(path("file:///w/app/%20x.rb").as_deref(), Some("/w/app/ x.rb"));
        for escape in [
            "file:///w/app/../secret/s.rb",
            "file:///w/app/%2e%2e/secret/s.rb",
            "file:///w/app/..%2fsecret/s.rb",
            "file:///w/app/./../secret/s.rb",
        ] {
            assert_eq!(path(escape).as_deref(), Some("/w/secret/s.rb"), "{escape}");
        }
        assert_eq!(path("file:///../../etc/passwd").as_deref(), Some("/etc/passwd"));
        for elsewhere in ["http://host/w/app/a.rb", "https:///w/a.rb", "file://otherhost/w/a.rb", "untitled:Untitled-1"] {
            assert_eq!(path(elsewhere), None, "{elsewhere}");
        }
    }

    #[test]
    fn a_line_past_the_end_is_out_of_sync() {
        let rope = Rope::from_str("a\n");
        assert_eq!(offset(&rope, Position { line: 1, character: 0 }), Some(2));
        assert_eq!(offset(&rope, Position { line: 5, character: 0 }), None);
    }
}

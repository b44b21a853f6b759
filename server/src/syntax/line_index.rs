//! Line starts and the non-ASCII characters of each line, so a byte offset converts to a line and a
//! UTF-8, UTF-16 or character column without the text. Built once per extraction; facts keep it so
//! closed files can be shown in an editor without rereading them.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, PartialOrd, Ord, bincode::Encode, bincode::Decode)]
pub struct LineCol {
    /// 0-based line.
    pub line: u32,
    /// 0-based byte column.
    pub col: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct LineIndex {
    line_starts: Vec<u32>,
    /// Per line that has any: (byte column, UTF-8 length) of each non-ASCII character, in order.
    wide_chars: Vec<(u32, Vec<(u32, u8)>)>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // Lines found by `memchr`, and only a line that is not all ASCII looked at char by char:
        // decoding every char was most of a warm `--check` (it indexes each file it quotes).
        let bytes = text.as_bytes();
        let mut line_starts = Vec::with_capacity(bytes.len() / 32 + 1);
        line_starts.push(0u32);
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|newline| newline as u32 + 1));
        let mut wide_chars: Vec<(u32, Vec<(u32, u8)>)> = Vec::new();
        let lines = if text.is_ascii() { &[][..] } else { &line_starts[..] };
        for (line, &start) in lines.iter().enumerate() {
            let end = line_starts.get(line + 1).map_or(bytes.len(), |&next| next as usize);
            let content = &text[start as usize..end];
            if content.is_ascii() {
                continue;
            }
            let chars: Vec<(u32, u8)> =
                content.char_indices().filter(|(_, ch)| !ch.is_ascii()).map(|(column, ch)| (column as u32, ch.len_utf8() as u8)).collect();
            wide_chars.push((line as u32, chars));
        }
        // Grown as lines were found: more room than needed, and kept as long as the file's facts.
        line_starts.shrink_to_fit();
        wide_chars.shrink_to_fit();
        LineIndex { line_starts, wide_chars, len: text.len() as u32 }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Line and byte column of `offset` (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = (offset as u32).min(self.len);
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        LineCol { line: line as u32, col: offset - self.line_starts[line] }
    }

    /// The span of the bytes `range` (its ends clamped to the text like `line_col`'s).
    pub fn span(&self, range: std::ops::Range<usize>) -> super::Span {
        super::Span {
            start_byte: range.start as u32,
            end_byte: range.end as u32,
            start: self.line_col(range.start),
            end: self.line_col(range.end),
        }
    }

    /// Byte offset of a line and byte column; `None` past the end of the text.
    pub fn offset(&self, pos: LineCol) -> Option<usize> {
        let start = *self.line_starts.get(pos.line as usize)?;
        let offset = start + pos.col;
        (offset <= self.len).then_some(offset as usize)
    }

    fn wide(&self, line: u32) -> &[(u32, u8)] {
        match self.wide_chars.binary_search_by_key(&line, |(l, _)| *l) {
            Ok(i) => &self.wide_chars[i].1,
            Err(_) => &[],
        }
    }

    /// The end of `line`'s content: the byte column of its `\n` (or of the end of the text).
    pub fn line_end(&self, line: u32) -> LineCol {
        let start = self.line_starts.get(line as usize).copied().unwrap_or(self.len);
        let end = self.line_starts.get(line as usize + 1).map_or(self.len, |next| next - 1);
        LineCol { line, col: end.saturating_sub(start) }
    }

    /// UTF-16 column of a byte column on `line`.
    pub fn utf16_col(&self, pos: LineCol) -> u32 {
        let mut col = pos.col;
        for &(byte_col, len) in self.wide(pos.line) {
            if byte_col >= pos.col {
                break;
            }
            let utf16_len = if len == 4 { 2 } else { 1 };
            col = col - len as u32 + utf16_len;
        }
        col
    }

    /// Character (Unicode scalar) column of a byte column on `line`, as terminals count them.
    pub fn char_col(&self, pos: LineCol) -> u32 {
        let mut col = pos.col;
        for &(byte_col, len) in self.wide(pos.line) {
            if byte_col >= pos.col {
                break;
            }
            col = col - len as u32 + 1;
        }
        col
    }

    /// Byte column of a UTF-16 column on `line` (a column inside a surrogate pair or past the end of
    /// a wide character rounds down to the character's start).
    pub fn byte_col_from_utf16(&self, line: u32, utf16: u32) -> u32 {
        let mut byte = 0u32;
        let mut units = 0u32;
        for &(byte_col, len) in self.wide(line) {
            let ascii_run = byte_col - byte;
            if units + ascii_run >= utf16 {
                return byte + (utf16 - units);
            }
            units += ascii_run;
            byte = byte_col;
            let utf16_len = if len == 4 { 2 } else { 1 };
            if units + utf16_len > utf16 {
                return byte;
            }
            units += utf16_len;
            byte += len as u32;
        }
        byte + (utf16 - units)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_columns_on_lines_with_wide_characters() {
        let text = "ab\ncafé 😀 x\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        let pos = index.line_col(x);
        assert_eq!(pos, LineCol { line: 1, col: 11 });
        assert_eq!(index.char_col(pos), 7);
        assert_eq!(index.utf16_col(pos), 8);
        assert_eq!(index.byte_col_from_utf16(1, 8), 11);
        assert_eq!(index.offset(pos), Some(x));
        assert_eq!(index.line_count(), 3);
    }

    /// Line starts, and each line's wide characters (byte column, length).
    type Lines = (Vec<u32>, Vec<(u32, Vec<(u32, u8)>)>);

    /// The index as decoding every char builds it.
    fn decoded(text: &str) -> Lines {
        let (mut lines, mut line, mut line_start): (Lines, u32, usize) = ((vec![0], Vec::new()), 0, 0);
        let (starts, wide) = (&mut lines.0, &mut lines.1);
        for (offset, ch) in text.char_indices() {
            if ch == '\n' {
                line += 1;
                line_start = offset + 1;
                starts.push(line_start as u32);
            } else if !ch.is_ascii() {
                let entry = ((offset - line_start) as u32, ch.len_utf8() as u8);
                match wide.last_mut() {
                    Some((l, chars)) if *l == line => chars.push(entry),
                    _ => wide.push((line, vec![entry])),
                }
            }
        }
        lines
    }

    #[test]
    fn finds_lines_and_wide_characters_as_decoding_every_char_does() {
        let texts = [
            "",
            "\n",
            "plain\nascii\n",
            "no newline at the end",
            "é",
            "\n\né\n",
            "crlf\r\nlines\r\n — dash\r\n",
            "ab\ncafé 😀 x\n日本語\n\n\t😀\nend 𝄞",
            "# frozen_string_literal: true\nclass Café\n  def naïve = \"ü\"\nend",
        ];
        for text in texts {
            let index = LineIndex::new(text);
            assert_eq!((index.line_starts.clone(), index.wide_chars.clone()), decoded(text), "{text:?}");
            assert_eq!(index.len(), text.len());
        }
    }
}

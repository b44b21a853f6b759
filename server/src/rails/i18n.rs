//! Translations: a locale file under `config/locales` read into its keys, each with its place and its
//! value, the way I18n's YAML backend loads it (the first key is the locale: `en.posts.index.title`).
//! What a key resolves to across the app (lazy lookup, the default locale) is `app::nav`'s.
//!
//! Read with saphyr-parser's event stream, which carries a span for every event: a key's place comes
//! from its scalar. A mapping that merges an alias (`<<: *defaults`) gets keys the stream does not
//! spell out, so its prefix is kept as open: a key under it is never called missing. A file the parser
//! gives up on keeps the keys read before the error, and says where it stopped.

use saphyr_parser::{Event, Parser};

use crate::syntax::{LineCol, LineIndex, Span};

/// A locale file's keys. Compact, as an app's translations run to hundreds of thousands of keys (49
/// locales of 5,000 keys is 250,000): every key and value is a range of one string, so the file costs
/// three allocations however many keys it has, in memory and when the persisted index is read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocaleFile {
    /// The keys and values, one after another.
    text: String,
    /// Sorted by key (a key the file gives twice keeps both, in file order), so a lookup is a binary
    /// search.
    entries: Vec<Entry>,
    /// Prefixes whose mappings merge an alias: their keys are not all spelled out.
    pub open_prefixes: Vec<String>,
    /// Where the YAML stopped parsing, and why: keys after it are unknown.
    pub error: Option<(String, Span)>,
}

/// One key: ranges of the file's `text` (a value's length `u32::MAX` for none) and where it is.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    key: (u32, u32),
    value: (u32, u32),
    at: (u32, u32),
}

/// One key as read: its full dotted path (`en.posts.index.title`), a scalar's text (its first
/// `VALUE_CHARS` characters; `None` for a mapping; a list or alias as `[…]`/`*alias`), its place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocaleEntry<'a> {
    pub key: &'a str,
    pub value: Option<&'a str>,
    at: (u32, u32),
}

/// How much of a value is kept: enough to show it in a hover or a completion list.
const VALUE_CHARS: usize = 80;

impl LocaleEntry<'_> {
    /// The key's span in its file.
    pub fn span(&self, line_index: &LineIndex) -> Span {
        let start = self.at.0 as usize;
        line_index.span(start..start + self.at.1 as usize)
    }
}

impl LocaleFile {
    /// Packs what was read: (key, value, span) in file order.
    fn pack(mut read: Vec<(String, Option<String>, Span)>, open_prefixes: Vec<String>, error: Option<(String, Span)>) -> LocaleFile {
        // Stable: a key given twice keeps its file order.
        read.sort_by(|a, b| a.0.cmp(&b.0));
        let mut text = String::new();
        let mut entries = Vec::with_capacity(read.len());
        let push = |text: &mut String, s: &str| {
            let at = (text.len() as u32, s.len() as u32);
            text.push_str(s);
            at
        };
        for (key, value, span) in &read {
            let key = push(&mut text, key);
            let value = match value {
                Some(v) => match v.char_indices().nth(VALUE_CHARS) {
                    Some((cut, _)) => push(&mut text, &format!("{}…", &v[..cut])),
                    None => push(&mut text, v),
                },
                None => (0, u32::MAX),
            };
            entries.push(Entry { key, value, at: (span.start_byte, span.end_byte - span.start_byte) });
        }
        text.shrink_to_fit();
        LocaleFile { text, entries, open_prefixes, error }
    }

    fn slice(&self, (start, len): (u32, u32)) -> &str {
        self.text.get(start as usize..start as usize + len as usize).unwrap_or("")
    }

    fn key(&self, i: usize) -> &str {
        self.slice(self.entries[i].key)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entry(&self, i: usize) -> Option<LocaleEntry<'_>> {
        let entry = self.entries.get(i)?;
        let value = (entry.value.1 != u32::MAX).then(|| self.slice(entry.value));
        Some(LocaleEntry { key: self.slice(entry.key), value, at: entry.at })
    }

    /// Every key, in key order.
    pub fn entries(&self) -> impl Iterator<Item = LocaleEntry<'_>> {
        (0..self.entries.len()).filter_map(|i| self.entry(i))
    }

    /// The locales this file defines (its top-level keys).
    pub fn locales(&self) -> impl Iterator<Item = &str> {
        (0..self.entries.len()).map(|i| self.key(i)).filter(|k| !k.contains('.'))
    }

    /// Where the entries of a full key (`en.posts.index.title`) are, by index.
    pub fn lookup(&self, key: &str) -> std::ops::Range<usize> {
        let start = self.entries.partition_point(|e| self.slice(e.key) < key);
        let end = start + self.entries[start..].partition_point(|e| self.slice(e.key) == key);
        start..end
    }

    /// The entries whose key starts with `prefix`, in key order.
    pub fn under(&self, prefix: &str) -> impl Iterator<Item = LocaleEntry<'_>> + use<'_> {
        let start = self.entries.partition_point(|e| self.slice(e.key) < prefix);
        let end = start + self.entries[start..].partition_point(|e| self.slice(e.key).starts_with(prefix));
        (start..end).filter_map(|i| self.entry(i))
    }
}

/// The persisted index's encoding: the entries as one block of fixed-width numbers (an app's locale
/// files run to hundreds of thousands of entries; six variable-length numbers each took a warm run
/// of OpenStreetMap's 113 locale files tens of milliseconds to decode), read in one copy.
impl bincode::Encode for LocaleFile {
    fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
        let mut packed = Vec::with_capacity(self.entries.len() * ENTRY_BYTES);
        for entry in &self.entries {
            for n in [entry.key.0, entry.key.1, entry.value.0, entry.value.1, entry.at.0, entry.at.1] {
                packed.extend_from_slice(&n.to_le_bytes());
            }
        }
        self.text.encode(encoder)?;
        packed.encode(encoder)?;
        self.open_prefixes.encode(encoder)?;
        self.error.encode(encoder)
    }
}

impl<Context> bincode::Decode<Context> for LocaleFile {
    fn decode<D: bincode::de::Decoder<Context = Context>>(decoder: &mut D) -> Result<Self, bincode::error::DecodeError> {
        let text = String::decode(decoder)?;
        let packed = Vec::<u8>::decode(decoder)?;
        if packed.len() % ENTRY_BYTES != 0 {
            return Err(bincode::error::DecodeError::Other("a locale file's entries are cut short"));
        }
        let entries = packed
            .chunks_exact(ENTRY_BYTES)
            .map(|chunk| {
                let n = |i: usize| u32::from_le_bytes([chunk[4 * i], chunk[4 * i + 1], chunk[4 * i + 2], chunk[4 * i + 3]]);
                Entry { key: (n(0), n(1)), value: (n(2), n(3)), at: (n(4), n(5)) }
            })
            .collect();
        Ok(LocaleFile { text, entries, open_prefixes: Vec::decode(decoder)?, error: Option::decode(decoder)? })
    }
}

bincode::impl_borrow_decode!(LocaleFile);

/// An entry's six numbers, four bytes each.
const ENTRY_BYTES: usize = 24;

/// The index dump lists each key and value.
impl serde::Serialize for LocaleFile {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        let entries: Vec<(&str, Option<&str>)> = self.entries().map(|e| (e.key, e.value)).collect();
        map.serialize_entry("entries", &entries)?;
        if !self.open_prefixes.is_empty() {
            map.serialize_entry("open_prefixes", &self.open_prefixes)?;
        }
        if let Some(error) = &self.error {
            map.serialize_entry("error", &error.0)?;
        }
        map.end()
    }
}

enum Frame {
    /// A mapping at `path`; `key` is the key whose value comes next.
    Mapping { path: String, key: Option<(String, Span)> },
    /// A list, or a mapping inside one: its contents are no keys.
    Skipped,
}

/// The full key a value at the top of the stack completes (taking the key it waited for).
fn value_key(stack: &mut [Frame]) -> Option<(String, Span)> {
    match stack.last_mut() {
        Some(Frame::Mapping { path, key }) => {
            let (name, span) = key.take()?;
            Some((if path.is_empty() { name } else { format!("{path}.{name}") }, span))
        }
        _ => None,
    }
}

/// Reads a locale file's keys.
pub fn extract(text: &str, line_index: &LineIndex) -> LocaleFile {
    let mut read: Vec<(String, Option<String>, Span)> = Vec::new();
    let mut open_prefixes: Vec<String> = Vec::new();
    let mut error_at: Option<(String, Span)> = None;
    let mut stack: Vec<Frame> = Vec::new();
    // Anchor id → the key path of the mapping it names (`defaults: &defaults`).
    let mut anchors: std::collections::HashMap<usize, String> = std::collections::HashMap::new();
    // saphyr counts characters; spans are bytes.
    let span_of = |start: saphyr_parser::Marker, end: saphyr_parser::Marker| {
        let at = |m: saphyr_parser::Marker| {
            let line = m.line().saturating_sub(1) as u32;
            let line_start = line_index.offset(LineCol { line, col: 0 }).unwrap_or(0);
            let rest = text.get(line_start..).unwrap_or("");
            let col_bytes = rest.char_indices().nth(m.col()).map_or(rest.len(), |(i, _)| i);
            line_start + col_bytes
        };
        line_index.span(at(start)..at(end).max(at(start)))
    };
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(pair) => pair,
            Err(error) => {
                let at = span_of(*error.marker(), *error.marker());
                error_at = Some((error.info().to_owned(), at));
                break;
            }
        };
        match event {
            Event::Scalar(value, ..) => match stack.last_mut() {
                Some(Frame::Mapping { key, .. }) if key.is_none() => {
                    *key = Some((value.into_owned(), span_of(span.start, span.end)));
                }
                Some(Frame::Mapping { .. }) => {
                    if let Some((key, span)) = value_key(&mut stack) {
                        read.push((key, Some(value.into_owned()), span));
                    }
                }
                _ => {}
            },
            Event::Alias(id) => {
                if let Some((key, span)) = value_key(&mut stack) {
                    let merge = key.strip_suffix(".<<").or((key == "<<").then_some(""));
                    let target = merge.unwrap_or(&key).to_owned();
                    if merge.is_none() {
                        read.push((key.clone(), Some("*alias".to_owned()), span));
                    }
                    match anchors.get(&id) {
                        // `<<: *defaults` or `form: *fields`: the anchored mapping's keys, here too.
                        Some(source) => {
                            let prefix = if source.is_empty() { String::new() } else { format!("{source}.") };
                            let copied: Vec<(String, Option<String>, Span)> = read
                                .iter()
                                .filter_map(|(k, value, _)| {
                                    let rest = k.strip_prefix(prefix.as_str())?;
                                    let key = if target.is_empty() { rest.to_owned() } else { format!("{target}.{rest}") };
                                    Some((key, value.clone(), span))
                                })
                                .collect();
                            read.extend(copied);
                        }
                        // An anchor this reading did not place (in a list): what it merges is not known.
                        None if merge.is_some() => open_prefixes.push(target),
                        None => {}
                    }
                }
            }
            Event::MappingStart(anchor, _) => {
                let frame = match stack.last() {
                    None => Frame::Mapping { path: String::new(), key: None },
                    Some(Frame::Skipped) => Frame::Skipped,
                    Some(Frame::Mapping { .. }) => match value_key(&mut stack) {
                        Some((path, span)) => {
                            read.push((path.clone(), None, span));
                            Frame::Mapping { path, key: None }
                        }
                        // A mapping as a key: nothing I18n reads.
                        None => Frame::Skipped,
                    },
                };
                if let (Frame::Mapping { path, .. }, true) = (&frame, anchor != 0) {
                    anchors.insert(anchor, path.clone());
                }
                stack.push(frame);
            }
            Event::SequenceStart(..) => {
                if let Some((key, span)) = value_key(&mut stack) {
                    read.push((key, Some("[…]".to_owned()), span));
                }
                stack.push(Frame::Skipped);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
            }
            _ => {}
        }
    }
    LocaleFile::pack(read, open_prefixes, error_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> LocaleFile {
        extract(text, &LineIndex::new(text))
    }

    #[test]
    fn keys_with_their_places_and_values() {
        let text = "en:\n  posts:\n    index:\n      title: \"All posts\"\n      count:\n        one: \"1 post\"\n        other: \"%{count} posts\"\n  days: [Mon, Tue]\n  \"quoted.key\": x\n";
        let file = read(text);
        let keys: Vec<String> = file
            .entries()
            .map(|e| {
                format!(
                    "{}@{}:{} {:?}",
                    e.key,
                    e.span(&LineIndex::new(text)).start.line + 1,
                    e.span(&LineIndex::new(text)).start.col + 1,
                    e.value
                )
            })
            .collect();
        expect_test::expect![[r#"
            [
                "en@1:1 None",
                "en.days@8:3 Some(\"[…]\")",
                "en.posts@2:3 None",
                "en.posts.index@3:5 None",
                "en.posts.index.count@5:7 None",
                "en.posts.index.count.one@6:9 Some(\"1 post\")",
                "en.posts.index.count.other@7:9 Some(\"%{count} posts\")",
                "en.posts.index.title@4:7 Some(\"All posts\")",
                "en.quoted.key@9:3 Some(\"x\")",
            ]
        "#]]
        .assert_debug_eq(&keys);
        assert_eq!(file.locales().collect::<Vec<_>>(), ["en"]);
        assert!(file.error.is_none());
    }

    #[test]
    fn aliases_bring_their_anchor_keys_and_errors_keep_what_came_before() {
        // `<<: *x` merges the anchored mapping's keys, `key: *x` is the mapping under another key
        // (nested keys included), as Psych loads them for I18n.
        let file =
            read("en:\n  defaults: &defaults\n    a: 1\n    deep:\n      c: 3\n  posts:\n    <<: *defaults\n    b: 2\n  form: *defaults\n");
        let keys: Vec<&str> = file.entries().map(|e| e.key).collect();
        for key in ["en.posts.a", "en.posts.deep.c", "en.posts.b", "en.form.a", "en.form.deep.c"] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert!(file.open_prefixes.is_empty());
        // An anchor inside a list is not placed: what it merges stays open.
        let listed = read("en:\n  list:\n    - &item\n      a: 1\n  posts:\n    <<: *item\n");
        assert_eq!(listed.open_prefixes, ["en.posts"]);
        let broken = read("de:\n  ok: ja\n  bad: [unclosed\n  later: x\n");
        assert!(broken.entries().any(|e| e.key == "de.ok"));
        assert!(!broken.entries().any(|e| e.key == "de.later"));
        assert!(broken.error.is_some());
    }

    #[test]
    fn the_persisted_encoding_gives_back_the_same_file() {
        let config = bincode::config::standard();
        for text in ["en:\n  posts:\n    title: \"All\"\n    none:\n  list: [a]\n", "de:\n  x: &d\n    a: 1\n  y:\n    <<: *d\n  bad: [\n"]
        {
            let file = read(text);
            let bytes = bincode::encode_to_vec(&file, config).unwrap();
            let (back, used): (LocaleFile, usize) = bincode::decode_from_slice(&bytes, config).unwrap();
            assert_eq!((back, used), (file, bytes.len()));
        }
        // Entries cut short are an error, not a file with fewer keys.
        let file = read("en:\n  a: b\n");
        let mut bytes = Vec::new();
        bincode::encode_into_std_write(&file.text, &mut bytes, config).unwrap();
        bincode::encode_into_std_write(vec![0u8; 23], &mut bytes, config).unwrap();
        bincode::encode_into_std_write((Vec::<String>::new(), None::<(String, Span)>), &mut bytes, config).unwrap();
        assert!(bincode::decode_from_slice::<LocaleFile, _>(&bytes, config).is_err());
    }

    #[test]
    fn multibyte_text_keeps_byte_spans() {
        let text = "ja:\n  ä: \"Ü\"\n  greeting: こんにちは\n";
        let file = read(text);
        let lines = LineIndex::new(text);
        let greeting = file.entries().find(|e| e.key == "ja.greeting").unwrap().span(&lines);
        assert_eq!(&text[greeting.range()], "greeting");
        let umlaut = file.entries().find(|e| e.key == "ja.ä").unwrap().span(&lines);
        assert_eq!(&text[umlaut.range()], "ä");
    }
}

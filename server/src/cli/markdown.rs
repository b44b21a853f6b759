//! A rule's Markdown page as a terminal shows it (`switchyard explain`): headings in bold, emphasis,
//! inline code and code blocks set apart, lists with bullets, tables in aligned columns, links with
//! their address. Parsed with pulldown-cmark; styled with anstyle when `styled`, plain text otherwise.

use anstyle::{AnsiColor, Style};
use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

const HEADING: Style = Style::new().bold().underline();
const SUBHEADING: Style = Style::new().bold();
const STRONG: Style = Style::new().bold();
const EMPHASIS: Style = Style::new().italic();
const CODE: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Cyan)));
const LINK: Style = Style::new().dimmed();

/// `markdown` rendered for a terminal.
pub fn render(markdown: &str, styled: bool) -> String {
    let mut writer = Writer { out: String::new(), styled, styles: Vec::new(), lists: Vec::new(), table: None, link: None };
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        writer.event(event);
    }
    let trimmed = writer.out.trim_end();
    format!("{trimmed}\n")
}

struct Table {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<String>>,
    header_rows: usize,
}

struct Writer {
    out: String,
    styled: bool,
    /// The styles open at this point, innermost last.
    styles: Vec<Style>,
    /// For each open list, the next item's number (`None` for bullets).
    lists: Vec<Option<u64>>,
    table: Option<Table>,
    /// The address of the link being written.
    link: Option<String>,
}

impl Writer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                self.push_style(CODE);
                self.text(&code);
                self.pop_style();
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.newline(),
            Event::Rule => {
                self.blank_line();
                self.text(&"─".repeat(40));
                self.newline();
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.blank_line();
                self.push_style(if level == HeadingLevel::H1 { HEADING } else { SUBHEADING });
            }
            Tag::Paragraph if self.lists.is_empty() => self.blank_line(),
            Tag::CodeBlock(_) => {
                self.blank_line();
                self.push_style(CODE);
            }
            Tag::List(first) => {
                if self.lists.is_empty() {
                    self.blank_line();
                }
                self.lists.push(first);
            }
            Tag::Item => {
                self.line_start();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "• ".to_owned(),
                };
                self.out.push_str(&format!("{}{marker}", "  ".repeat(depth + 1)));
            }
            Tag::Emphasis => self.push_style(EMPHASIS),
            Tag::Strong => self.push_style(STRONG),
            Tag::Strikethrough => self.push_style(Style::new().strikethrough()),
            Tag::Link { dest_url, .. } => self.link = Some(dest_url.to_string()),
            Tag::Table(alignments) => {
                self.blank_line();
                self.table = Some(Table { alignments, rows: Vec::new(), header_rows: 0 });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(String::new());
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.pop_style();
                self.newline();
            }
            TagEnd::Paragraph => self.newline(),
            TagEnd::CodeBlock => {
                self.pop_style();
                self.line_start();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.line_start();
            }
            TagEnd::Item => self.line_start(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                if let Some(url) = self.link.take() {
                    self.push_style(LINK);
                    self.text(&format!(" ({url})"));
                    self.pop_style();
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.header_rows = table.rows.len();
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.write_table(&table);
                }
            }
            _ => {}
        }
    }

    /// Text in the open styles: into the table cell being read, or the output (a code block's lines
    /// indented).
    fn text(&mut self, text: &str) {
        if let Some(cell) = self.table.as_mut().and_then(|t| t.rows.last_mut()).and_then(|r| r.last_mut()) {
            cell.push_str(text);
            return;
        }
        let in_code_block = self.styles.last() == Some(&CODE) && text.contains('\n');
        let style = self.styles.iter().fold(Style::new(), |acc, s| merge(acc, *s));
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            if line.is_empty() {
                continue;
            }
            if in_code_block && self.out.ends_with('\n') {
                self.out.push_str("    ");
            }
            if self.styled && style != Style::new() {
                self.out.push_str(&format!("{}{line}{}", style.render(), style.render_reset()));
            } else {
                self.out.push_str(line);
            }
        }
    }

    fn write_table(&mut self, table: &Table) {
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> =
            (0..columns).map(|c| table.rows.iter().filter_map(|r| r.get(c)).map(|cell| cell.chars().count()).max().unwrap_or(0)).collect();
        for (i, row) in table.rows.iter().enumerate() {
            let mut line = String::from("  ");
            for (c, width) in widths.iter().enumerate() {
                let cell = row.get(c).map_or("", String::as_str);
                let padded = match table.alignments.get(c) {
                    Some(Alignment::Right) => format!("{cell:>width$}"),
                    Some(Alignment::Center) => format!("{cell:^width$}"),
                    _ => format!("{cell:<width$}"),
                };
                let padded = if i < table.header_rows && self.styled {
                    format!("{}{padded}{}", STRONG.render(), STRONG.render_reset())
                } else {
                    padded
                };
                line.push_str(&padded);
                if c + 1 < widths.len() {
                    line.push_str("  ");
                }
            }
            self.out.push_str(line.trim_end());
            self.out.push('\n');
            if i + 1 == table.header_rows {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.out.push_str(&format!("  {}\n", rule.join("  ")));
            }
        }
    }

    fn push_style(&mut self, style: Style) {
        self.styles.push(style);
    }

    fn pop_style(&mut self) {
        self.styles.pop();
    }

    fn newline(&mut self) {
        self.out.push('\n');
    }

    /// Starts a new line unless at one.
    fn line_start(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    /// One empty line before a block (none at the top).
    fn blank_line(&mut self) {
        self.line_start();
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }
}

/// `outer` with `inner`'s effects and colour added.
fn merge(outer: Style, inner: Style) -> Style {
    let style = outer.effects(outer.get_effects() | inner.get_effects());
    match inner.get_fg_color() {
        Some(color) => style.fg_color(Some(color)),
        None => style,
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn a_page_reads_as_text_with_no_markdown_left() {
        let page = "# rails.x\n\n**warning** · targets: ruby\n\n## Why\n\nIt calls `foo` and [the guide](https://guides.rubyonrails.org).\n\n```ruby\ndef a\n  1\nend\n```\n\n| Rule | Level |\n|---|---:|\n| a.b | 1 |\n| c | 22 |\n\n- one\n- two `x`\n";
        let plain = render(page, false);
        assert_eq!(
            plain,
            "rails.x\n\nwarning · targets: ruby\n\nWhy\n\nIt calls foo and the guide (https://guides.rubyonrails.org).\n\n    def a\n      1\n    end\n\n  Rule  Level\n  ────  ─────\n  a.b       1\n  c        22\n\n  • one\n  • two x\n"
        );
        let styled = render(page, true);
        assert!(styled.contains("\u{1b}[1m\u{1b}[4mrails.x"), "{styled:?}");
        assert!(!styled.contains("**") && !styled.contains("```") && !styled.contains("|---"), "{styled:?}");
    }
}

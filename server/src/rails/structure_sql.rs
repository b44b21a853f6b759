//! `db/structure.sql`: a database's own dump (`pg_dump`, `mysqldump`, SQLite's `.schema`) read into the
//! same `Schema` that `db/schema.rb` gives: tables with their columns (type, null, default), indexes,
//! primary and foreign keys, and the last migration version.
//!
//! The dump is cut into statements by hand (quotes, dollar-quoted bodies and comments respected), and
//! only the statements that shape tables are handed to sqlparser (`CREATE TABLE`, `CREATE INDEX`,
//! `ALTER TABLE … ADD CONSTRAINT`), one at a time, in the dialect the dump is written in: a dump holds
//! functions, types, triggers and `SET`s that no parser needs to understand for this, and a statement
//! sqlparser rejects costs that statement only. Column types are named as `db/schema.rb` names them
//! (`character varying` → `string`), so every reader of a schema reads both alike.

use sqlparser::ast::{
    AlterTableOperation, ColumnOption, DataType, Expr, ObjectName, ObjectNamePart, Statement, TableConstraint, Value as SqlValue,
};
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};

use super::schema::{Column, ForeignKey, Schema, Table, TableIndex};
use crate::syntax::value::Value;
use crate::syntax::{LineIndex, Span};

/// Reads a dump's tables. What it cannot read is left out, never guessed.
pub fn extract(text: &str, line_index: &LineIndex) -> Schema {
    let mut schema = Schema::default();
    let dialect = dialect_of(text);
    let mut versions: Vec<&str> = Vec::new();
    for (start, statement) in statements(text) {
        let head = skip_comments(statement);
        let lead = statement.len() - head.len();
        let upper: String = head.chars().take(256).collect::<String>().to_ascii_uppercase();
        if upper.starts_with("INSERT INTO") && upper.contains("SCHEMA_MIGRATIONS") {
            versions.extend(migration_versions(head));
            continue;
        }
        let shapes_tables = upper.starts_with("CREATE TABLE")
            || upper.starts_with("CREATE UNLOGGED TABLE")
            || upper.starts_with("CREATE INDEX")
            || upper.starts_with("CREATE UNIQUE INDEX")
            || (upper.starts_with("ALTER TABLE") && upper.contains("ADD CONSTRAINT"));
        if !shapes_tables {
            continue;
        }
        let Some(parsed) = parse(dialect.as_ref(), head) else { continue };
        let place = Place { text, line_index, start: start + lead, source: head };
        read_statement(&mut schema, parsed, &place);
    }
    schema.version = versions.into_iter().max().map(str::to_owned);
    schema
}

/// The statement after the blank lines and comments that lead it.
fn skip_comments(mut statement: &str) -> &str {
    loop {
        statement = statement.trim_start();
        if statement.starts_with("--") {
            statement = statement.split_once('\n').map_or("", |(_, rest)| rest);
        } else if statement.starts_with("/*") {
            statement = statement.split_once("*/").map_or("", |(_, rest)| rest);
        } else {
            return statement;
        }
    }
}

/// The dialect the dump is written in, from what only that database writes.
fn dialect_of(text: &str) -> Box<dyn Dialect> {
    let head = &text[..text.len().min(64 * 1024)];
    if head.contains("pg_catalog") || head.contains("SET search_path") || head.contains("public.") {
        Box::new(PostgreSqlDialect {})
    } else if head.contains('`') || head.contains("ENGINE=") {
        Box::new(MySqlDialect {})
    } else if head.contains("sqlite_") || head.contains("CREATE TABLE IF NOT EXISTS") {
        Box::new(SQLiteDialect {})
    } else {
        Box::new(GenericDialect {})
    }
}

fn parse(dialect: &dyn Dialect, statement: &str) -> Option<Statement> {
    let parsed = sqlparser::parser::Parser::parse_sql(dialect, statement)
        .or_else(|_| sqlparser::parser::Parser::parse_sql(&GenericDialect {}, statement));
    match parsed {
        Ok(mut statements) if statements.len() == 1 => statements.pop(),
        Ok(_) => None,
        Err(error) => {
            tracing::debug!("structure.sql: a statement sqlparser does not read ({error}): {}", statement.lines().next().unwrap_or(""));
            None
        }
    }
}

/// Where a statement sits in the file, to place what sqlparser found in it.
struct Place<'a> {
    text: &'a str,
    line_index: &'a LineIndex,
    /// Byte offset of the statement in the file.
    start: usize,
    source: &'a str,
}

impl Place<'_> {
    /// An identifier's span in the file, from sqlparser's (1-based line and character column within
    /// the statement); the statement's own start when it has none.
    /// An identifier's span without its quotes.
    fn ident(&self, ident: &sqlparser::ast::Ident) -> Span {
        let mut span = self.span(ident.span);
        if ident.quote_style.is_some() && span.end_byte >= span.start_byte + 2 && span.start.line == span.end.line {
            span = self.line_index.span(span.start() + 1..span.end() - 1);
        }
        span
    }

    fn span(&self, span: sqlparser::tokenizer::Span) -> Span {
        let at = |location: sqlparser::tokenizer::Location| -> Option<usize> {
            if location.line == 0 {
                return None;
            }
            let line = self.source.split_inclusive('\n').nth(location.line as usize - 1)?;
            let line_start = line.as_ptr() as usize - self.source.as_ptr() as usize;
            let col = line.char_indices().nth(location.column.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i);
            Some(self.start + line_start + col)
        };
        match (at(span.start), at(span.end)) {
            (Some(start), Some(end)) if start <= end && end <= self.text.len() => self.line_index.span(start..end),
            _ => self.line_index.span(self.start..self.start),
        }
    }
}

fn last_name(name: &ObjectName) -> Option<&sqlparser::ast::Ident> {
    match name.0.last()? {
        ObjectNamePart::Identifier(ident) => Some(ident),
        _ => None,
    }
}

fn read_statement(schema: &mut Schema, statement: Statement, place: &Place<'_>) {
    match statement {
        Statement::CreateTable(create) => {
            let Some(name) = last_name(&create.name) else { return };
            let name_span = place.ident(name);
            let mut table = Table {
                name: name.value.clone(),
                primary_key: None,
                columns: Vec::new(),
                indexes: Vec::new(),
                span: place.line_index.span(place.start..place.start + place.source.len()),
                name_span,
            };
            for column in &create.columns {
                let mut null = true;
                let mut default = None;
                for option in &column.options {
                    match &option.option {
                        ColumnOption::NotNull => null = false,
                        ColumnOption::Null => null = true,
                        ColumnOption::Default(expr) => default = Some(default_value(expr)),
                        ColumnOption::PrimaryKey(_) => {
                            null = false;
                            table.primary_key = Some(column.name.value.clone());
                        }
                        _ => {}
                    }
                }
                let (column_type, limit) = rails_type(&column.data_type);
                // MySQL writes a boolean's default as `'0'`/`'1'`.
                if column_type == "boolean"
                    && let Some(Value::String(flag) | Value::Code(flag)) = &default
                    && (flag == "0" || flag == "1")
                {
                    default = Some(Value::Bool(flag == "1"));
                }
                table.columns.push(Column {
                    name: column.name.value.clone(),
                    column_type,
                    null,
                    default,
                    limit,
                    options: Vec::new(),
                    span: place.ident(&column.name),
                });
            }
            for constraint in &create.constraints {
                constraint_of(schema, &mut table, constraint, place);
            }
            schema.tables.push(table);
        }
        Statement::CreateIndex(index) => {
            let Some(table_name) = last_name(&index.table_name) else { return };
            let columns = index
                .columns
                .iter()
                .map(|c| match &c.column.expr {
                    Expr::Identifier(ident) => ident.value.clone(),
                    other => other.to_string(),
                })
                .collect();
            let name = index.name.as_ref().and_then(last_name).map(|n| n.value.clone());
            let span = index.name.as_ref().and_then(last_name).map_or_else(|| place.ident(table_name), |n| place.ident(n));
            if let Some(table) = schema.tables.iter_mut().find(|t| t.name == table_name.value) {
                table.indexes.push(TableIndex { columns, name, unique: index.unique, span });
            }
        }
        Statement::AlterTable(alter) => {
            let Some(table_name) = last_name(&alter.name).map(|n| n.value.clone()) else { return };
            for operation in &alter.operations {
                let AlterTableOperation::AddConstraint { constraint, .. } = operation else { continue };
                // The table was created earlier in the dump; a constraint on another is left out.
                let Some(at) = schema.tables.iter().position(|t| t.name == table_name) else { continue };
                let mut table = std::mem::replace(&mut schema.tables[at], empty_table());
                constraint_of(schema, &mut table, constraint, place);
                schema.tables[at] = table;
            }
        }
        _ => {}
    }
}

fn empty_table() -> Table {
    Table {
        name: String::new(),
        primary_key: None,
        columns: Vec::new(),
        indexes: Vec::new(),
        span: Span::default(),
        name_span: Span::default(),
    }
}

fn constraint_of(schema: &mut Schema, table: &mut Table, constraint: &TableConstraint, place: &Place<'_>) {
    let column_name = |c: &sqlparser::ast::IndexColumn| match &c.column.expr {
        Expr::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    };
    match constraint {
        TableConstraint::PrimaryKey(primary) => {
            let columns: Vec<String> = primary.columns.iter().map(column_name).collect();
            if let [only] = columns.as_slice() {
                table.primary_key = Some(only.clone());
                if let Some(column) = table.columns.iter_mut().find(|c| c.name == *only) {
                    column.null = false;
                }
            }
        }
        TableConstraint::Unique(unique) => {
            let columns = unique.columns.iter().map(column_name).collect();
            let named = unique.index_name.as_ref().or(unique.name.as_ref());
            let name = named.map(|n| n.value.clone());
            let span = named.map_or(table.name_span, |n| place.ident(n));
            table.indexes.push(TableIndex { columns, name, unique: true, span });
        }
        TableConstraint::ForeignKey(foreign) => {
            let (Some(column), Some(to)) = (foreign.columns.first(), last_name(&foreign.foreign_table)) else { return };
            schema.foreign_keys.push(ForeignKey {
                from_table: table.name.clone(),
                to_table: to.value.clone(),
                column: column.value.clone(),
                span: place.ident(column),
            });
        }
        _ => {}
    }
}

/// A column's default as `db/schema.rb` would write it: `'draft'::character varying` → `"draft"`,
/// `0` → `0`, `false` → `false`; anything computed (`nextval(…)`, `now()`) as its source.
fn default_value(expr: &Expr) -> Value {
    match expr {
        Expr::Cast { expr, .. } | Expr::Nested(expr) => default_value(expr),
        Expr::Value(value) => match &value.value {
            SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => Value::String(s.clone()),
            SqlValue::Number(n, _) => n.parse().map(Value::Integer).unwrap_or_else(|_| Value::Float(n.clone())),
            SqlValue::Boolean(b) => Value::Bool(*b),
            SqlValue::Null => Value::Nil,
            other => Value::Code(other.to_string()),
        },
        Expr::UnaryOp { op: sqlparser::ast::UnaryOperator::Minus, expr } => match default_value(expr) {
            Value::Integer(n) => Value::Integer(-n),
            other => Value::Code(format!("-{other}")),
        },
        other => Value::Code(other.to_string()),
    }
}

/// The type `db/schema.rb` would write for a SQL type, and its limit.
fn rails_type(data_type: &DataType) -> (String, Option<i64>) {
    let written = data_type.to_string().to_ascii_lowercase();
    let base = written.split('(').next().unwrap_or(&written).trim();
    let limit = written.split_once('(').and_then(|(_, rest)| rest.split([')', ',']).next()).and_then(|n| n.trim().parse().ok());
    let array = base.ends_with("[]");
    let base = base.trim_end_matches("[]");
    let name = match base {
        "character varying" | "varchar" | "character" | "char" | "citext" => "string",
        "text" | "mediumtext" | "longtext" | "tinytext" => "text",
        "integer" | "int" | "int4" | "smallint" | "int2" | "mediumint" | "tinyint" | "serial" => "integer",
        "bigint" | "int8" | "bigserial" => "bigint",
        "boolean" | "bool" => "boolean",
        "timestamp" | "timestamp without time zone" | "datetime" | "timestamp(6) without time zone" => "datetime",
        "timestamp with time zone" | "timestamptz" => "timestamptz",
        "date" => "date",
        "time" | "time without time zone" => "time",
        "numeric" | "decimal" => "decimal",
        "double precision" | "float" | "float8" | "real" | "float4" | "double" => "float",
        "bytea" | "blob" | "binary" | "varbinary" | "longblob" => "binary",
        other => other,
    };
    // `tinyint(1)` is MySQL's boolean.
    let name = if base == "tinyint" && limit == Some(1) { "boolean" } else { name };
    let limit = if matches!(name, "string" | "integer" | "binary" | "text") { limit } else { None };
    let name = if array { format!("{name}[]") } else { name.to_owned() };
    (name, limit)
}

/// `INSERT INTO "schema_migrations" (version) VALUES ('20240101000000'), …`: every version.
fn migration_versions(statement: &str) -> Vec<&str> {
    statement.split(|c: char| !c.is_ascii_digit()).filter(|part| part.len() >= 14 && part.len() <= 17).collect()
}

/// The dump cut into statements at each `;` that is not inside a quote, a dollar-quoted body or a
/// comment: (byte offset, text without the `;`).
fn statements(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'`' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == quote {
                        // A doubled quote is the quote itself.
                        if bytes.get(i + 1) == Some(&quote) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    if bytes[i] == b'\\' && quote != b'"' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'$' => {
                // `$$ … $$` or `$tag$ … $tag$`.
                let tag_end = bytes[i + 1..].iter().position(|b| !(b.is_ascii_alphanumeric() || *b == b'_')).map(|p| i + 1 + p);
                if let Some(tag_end) = tag_end.filter(|&e| bytes.get(e) == Some(&b'$')) {
                    let tag = &text[i..=tag_end];
                    match text[tag_end + 1..].find(tag) {
                        Some(close) => i = tag_end + 1 + close + tag.len() - 1,
                        None => i = bytes.len(),
                    }
                }
            }
            b';' => {
                out.push((start, &text[start..i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !text[start.min(text.len())..].trim().is_empty() {
        out.push((start, &text[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Schema {
        extract(text, &LineIndex::new(text))
    }

    fn describe(schema: &Schema, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for table in &schema.tables {
            out.push(format!("{} pk={:?} @{}", table.name, table.primary_key, &text[table.name_span.range()]));
            for c in &table.columns {
                out.push(format!(
                    "  {} {}{}{} @{}:{}",
                    c.name,
                    c.column_type,
                    if c.null { "" } else { " not null" },
                    c.default.as_ref().map(|d| format!(" default {d}")).unwrap_or_default(),
                    c.span.start.line + 1,
                    c.span.start.col + 1
                ));
            }
            for i in &table.indexes {
                out.push(format!("  index {:?} {:?}{}", i.name, i.columns, if i.unique { " unique" } else { "" }));
            }
        }
        for fk in &schema.foreign_keys {
            out.push(format!("fk {}.{} -> {}", fk.from_table, fk.column, fk.to_table));
        }
        out.push(format!("version {:?}", schema.version));
        out
    }

    #[test]
    fn a_postgresql_dump() {
        let text = r#"SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE FUNCTION public.touch() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now(); -- a ; inside
  RETURN NEW;
END;
$$;
CREATE TYPE public.state AS ENUM ('draft', 'published');
CREATE TABLE public.posts (
    id bigint NOT NULL,
    title character varying(200) DEFAULT 'Untitled'::character varying NOT NULL,
    body text,
    "order" integer DEFAULT 0,
    published boolean DEFAULT false NOT NULL,
    tags character varying[] DEFAULT '{}'::character varying[],
    created_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE public.posts_id_seq START WITH 1;
ALTER TABLE ONLY public.posts ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq'::regclass);
CREATE TABLE public.comments (id bigint NOT NULL, post_id bigint NOT NULL);
ALTER TABLE ONLY public.posts
    ADD CONSTRAINT posts_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX index_posts_on_title ON public.posts USING btree (title);
ALTER TABLE ONLY public.comments
    ADD CONSTRAINT fk_rails_1 FOREIGN KEY (post_id) REFERENCES public.posts(id);
INSERT INTO "schema_migrations" (version) VALUES
('20240101000000'),
('20240301120000');
"#;
        let schema = read(text);
        expect_test::expect![[r#"
            [
                "posts pk=Some(\"id\") @posts",
                "  id bigint not null @12:5",
                "  title string not null default \"Untitled\" @13:5",
                "  body text @14:5",
                "  order integer default 0 @15:6",
                "  published boolean not null default false @16:5",
                "  tags string[] default \"{}\" @17:5",
                "  created_at datetime not null @18:5",
                "  index Some(\"index_posts_on_title\") [\"title\"] unique",
                "comments pk=None @comments",
                "  id bigint not null @22:31",
                "  post_id bigint not null @22:51",
                "fk comments.post_id -> posts",
                "version Some(\"20240301120000\")",
            ]
        "#]]
        .assert_debug_eq(&describe(&schema, text));
    }

    #[test]
    fn mysql_and_sqlite_dumps() {
        let mysql = "CREATE TABLE `users` (\n  `id` bigint NOT NULL AUTO_INCREMENT,\n  `email` varchar(255) NOT NULL DEFAULT '',\n  `admin` tinyint(1) DEFAULT '0',\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `index_users_on_email` (`email`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n";
        expect_test::expect![[r#"
            [
                "users pk=Some(\"id\") @users",
                "  id bigint not null @2:4",
                "  email string not null default \"\" @3:4",
                "  admin boolean default false @4:4",
                "  index Some(\"index_users_on_email\") [\"email\"] unique",
                "version None",
            ]
        "#]]
        .assert_debug_eq(&describe(&read(mysql), mysql));
        let sqlite = "CREATE TABLE IF NOT EXISTS \"notes\" (\"id\" integer PRIMARY KEY AUTOINCREMENT NOT NULL, \"body\" text, \"user_id\" integer NOT NULL, CONSTRAINT \"fk_1\" FOREIGN KEY (\"user_id\") REFERENCES \"users\" (\"id\"));\nCREATE INDEX \"index_notes_on_user_id\" ON \"notes\" (\"user_id\");\n";
        expect_test::expect![[r#"
            [
                "notes pk=Some(\"id\") @notes",
                "  id integer not null @1:38",
                "  body text @1:87",
                "  user_id integer not null @1:100",
                "  index Some(\"index_notes_on_user_id\") [\"user_id\"]",
                "fk notes.user_id -> users",
                "version None",
            ]
        "#]]
        .assert_debug_eq(&describe(&read(sqlite), sqlite));
    }
}

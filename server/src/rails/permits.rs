//! The permitted-parameter lists of a controller file, as Roundhouse reads them to synthesize
//! `<X>Params` classes (`shared/reference/emitted-naming.md` §6): `params.expect(res: [...])`,
//! `params.require(:res).permit(...)`, and either with `.merge(k: v)`, found pre-order in each method
//! of each controller class, without entering `case`, loops, `begin`/`rescue`, `||=`, `raise`, `yield`
//! or `super`. Methods spliced in from included concerns are not followed.

use crate::syntax::NodeExt;
use serde::Serialize;
use tree_sitter::Node;

use crate::syntax::text_of;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
pub struct PermitList {
    /// The controller class whose method holds it.
    pub controller: String,
    pub resource: String,
    pub fields: Vec<String>,
    /// Its array-valued keys (`tag_ids: []`), which the synthesized `<X>Params` (string fields only)
    /// leaves out: each key, and the first line of the call that lists it, from `params` — where the
    /// compiler says so.
    #[serde(skip)]
    pub dropped: Vec<(String, crate::syntax::Span)>,
    /// The first line of the call, from `params`.
    #[serde(skip)]
    pub at: crate::syntax::Span,
}

/// Every permit list in the file, in source order, attributed to the controller classes given by
/// (class name, byte range).
pub fn extract(root: Node<'_>, text: &str, controllers: &[(String, std::ops::Range<usize>)]) -> Vec<PermitList> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut in_methods = Vec::new();
    // Methods directly in a controller class body, in order.
    while let Some(node) = stack.pop() {
        if node.kind_name() == "method" {
            in_methods.push(node);
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    for method in in_methods {
        let Some((controller, _)) = controllers.iter().find(|(_, range)| range.contains(&method.start_byte())) else { continue };
        walk(method, text, controller, &mut out);
    }
    out
}

const OPAQUE: &[&str] =
    &["case", "case_match", "while", "until", "for", "begin", "rescue_modifier", "operator_assignment", "yield", "super"];

fn walk(node: Node<'_>, text: &str, controller: &str, out: &mut Vec<PermitList>) {
    if OPAQUE.contains(&node.kind_name()) || (node.kind_name() == "method" && node.field("body").is_some_and(has_rescue)) {
        return;
    }
    if node.kind_name() == "call" && text_of(node.field("method").unwrap_or(node), text) == "raise" {
        return;
    }
    if let Some((resource, fields)) = match_permit(node, text) {
        let mut dropped = Vec::new();
        array_keys(node, text, &mut dropped);
        let at = first_line(node, text);
        out.push(PermitList { controller: controller.to_owned(), resource, fields, dropped, at });
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        walk(child, text, controller, out);
    }
}

/// The `key: [...]` pairs among a permit call's arguments (its own and an `expect` list's), in order.
fn array_keys(call: Node<'_>, text: &str, out: &mut Vec<(String, crate::syntax::Span)>) {
    let method = call.field("method").map(|m| text_of(m, text)).unwrap_or("");
    if method == "merge" {
        if let Some(receiver) = call.field("receiver") {
            array_keys(receiver, text, out);
        }
        return;
    }
    let mut elements: Vec<Node<'_>> = Vec::new();
    for argument in arguments(call) {
        match argument.kind_name() {
            "array" if method == "permit" => {
                let mut cursor = argument.walk();
                elements.extend(argument.named_children(&mut cursor).filter(|n| n.kind_name() != "comment"));
            }
            "pair" if method == "expect" => {
                if let Some(value) = argument.field("value").filter(|v| v.kind_name() == "array") {
                    let mut cursor = value.walk();
                    elements.extend(value.named_children(&mut cursor).filter(|n| n.kind_name() != "comment"));
                }
            }
            _ => elements.push(argument),
        }
    }
    for element in elements {
        let pairs: Vec<Node<'_>> = match element.kind_name() {
            "pair" => vec![element],
            "hash" => {
                let mut cursor = element.walk();
                element.named_children(&mut cursor).filter(|p| p.kind_name() == "pair").collect()
            }
            _ => continue,
        };
        // The statement's first line, where the compiler places its note: from `params`, which may
        // stand lines above `permit` (`params.\n  require(:x).\n  permit(…)`).
        let at = first_line(call, text);
        for pair in pairs {
            if let Some(key) = pair.field("key").and_then(|k| symbol(k, text)) {
                out.push((key, at));
            }
        }
    }
}

fn has_rescue(body: Node<'_>) -> bool {
    let mut cursor = body.walk();
    body.named_children(&mut cursor).any(|c| matches!(c.kind_name(), "rescue" | "ensure"))
}

fn is_params(node: Node<'_>, text: &str) -> bool {
    match (node.kind_name(), text_of(node, text)) {
        ("instance_variable", "@params") => true,
        // The controller's `params`, not a local of the method that shadows it (`params = compact(…)`).
        ("identifier", "params") => !is_local(node, text),
        _ => false,
    }
}

/// Whether the name at `node` is a local variable of its method where it is read: a parameter, or
/// assigned earlier in the method.
fn is_local(node: Node<'_>, text: &str) -> bool {
    let name = text_of(node, text);
    let mut method = node.parent();
    while let Some(m) = method.filter(|m| m.kind_name() != "method") {
        method = m.parent();
    }
    let Some(method) = method else { return false };
    let mut stack = vec![method];
    while let Some(current) = stack.pop() {
        if current.start_byte() >= node.start_byte() {
            continue;
        }
        let binds = match current.kind_name() {
            "assignment" | "operator_assignment" => {
                current.field("left").is_some_and(|l| l.kind_name() == "identifier" && text_of(l, text) == name)
            }
            "identifier" => {
                current.parent().is_some_and(|p| p.kind_name().ends_with("parameter") || p.kind_name() == "method_parameters")
                    && text_of(current, text) == name
            }
            _ => false,
        };
        if binds {
            return true;
        }
        let mut cursor = current.walk();
        stack.extend(current.named_children(&mut cursor));
    }
    false
}

fn symbol(node: Node<'_>, text: &str) -> Option<String> {
    // A quoted symbol without interpolation (`:"published_at(3i)"`), or a quoted key (`"0": …`).
    let quoted = |node: Node<'_>| -> Option<String> {
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        match parts.as_slice() {
            [] => Some(String::new()),
            [content] if content.kind_name() == "string_content" => Some(text_of(*content, text).to_owned()),
            _ => None,
        }
    };
    match node.kind_name() {
        "delimited_symbol" => quoted(node),
        "string" if text.get(node.end_byte()..).is_some_and(|rest| rest.starts_with(':')) => quoted(node),
        "simple_symbol" => Some(text_of(node, text).trim_start_matches(':').to_owned()),
        // `%i[name handle]`'s elements.
        "hash_key_symbol" | "bare_symbol" => Some(text_of(node, text).to_owned()),
        _ => None,
    }
}

fn arguments(call: Node<'_>) -> Vec<Node<'_>> {
    call.field("arguments")
        .map(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect()
        })
        .unwrap_or_default()
}

/// Symbols, optionally followed by `key: [...]` pairs (or one hash of them): nested lists, whose keys
/// are dropped.
/// The symbols of a permit list, then one hash of array-valued keys at its end (`tag_ids: []`, or
/// `{ tag_ids: [] }` as the last element): a braced hash before the end, or two of them, is a list
/// the compiler does not read (`expect(post: [:title, { a: [] }, { b: [] }])`).
fn symbol_list(elements: &[Node<'_>], text: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut nested = false;
    for (i, element) in elements.iter().enumerate() {
        if let Some(name) = symbol(*element, text).filter(|_| !nested) {
            fields.push(name);
        } else if element.kind_name() == "hash" && (nested || i + 1 != elements.len()) {
            return None;
        } else if matches!(element.kind_name(), "pair" | "hash") && all_array_values(*element) {
            nested = true;
        } else {
            return None;
        }
    }
    Some(fields)
}

/// The span of `node`'s first line.
fn first_line(node: Node<'_>, text: &str) -> crate::syntax::Span {
    crate::syntax::Span::of(node).first_line(text)
}

fn all_array_values(node: Node<'_>) -> bool {
    let pairs: Vec<Node<'_>> = if node.kind_name() == "pair" {
        vec![node]
    } else {
        let mut cursor = node.walk();
        node.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect()
    };
    pairs.iter().all(|p| p.kind_name() == "pair" && p.field("value").is_some_and(is_array))
}

/// `[:a, :b]` or `%i[a b]`.
fn is_array(node: Node<'_>) -> bool {
    matches!(node.kind_name(), "array" | "symbol_array")
}

fn match_permit(node: Node<'_>, text: &str) -> Option<(String, Vec<String>)> {
    if node.kind_name() != "call" {
        return None;
    }
    let method = text_of(node.field("method")?, text);
    let receiver = node.field("receiver");
    match method {
        "merge" => {
            let (resource, mut fields) = match_permit(receiver?, text)?;
            for pair in arguments(node) {
                if pair.kind_name() == "pair" {
                    fields.extend(pair.field("key").and_then(|k| symbol(k, text)));
                }
            }
            Some((resource, fields))
        }
        "expect" if receiver.is_some_and(|r| is_params(r, text)) => {
            let args = arguments(node);
            let [pair] = args.as_slice() else { return None };
            let key = symbol(pair.field("key")?, text)?;
            let value = pair.field("value").filter(|v| is_array(*v))?;
            let mut cursor = value.walk();
            let elements: Vec<Node<'_>> = value.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect();
            Some((key, symbol_list(&elements, text)?))
        }
        "permit" => {
            let require = receiver.filter(|r| r.kind_name() == "call")?;
            if text_of(require.field("method")?, text) != "require" || !require.field("receiver").is_some_and(|r| is_params(r, text)) {
                return None;
            }
            let resource = match arguments(require).as_slice() {
                [one] => symbol(*one, text)?,
                _ => return None,
            };
            let args = arguments(node);
            let fields = match args.as_slice() {
                [array] if is_array(*array) => {
                    let mut cursor = array.walk();
                    let elements: Vec<Node<'_>> = array.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect();
                    symbol_list(&elements, text)?
                }
                [hash] if matches!(hash.kind_name(), "hash" | "pair") && all_array_values(*hash) => Vec::new(),
                _ => symbol_list(&args, text)?,
            };
            Some((resource, fields))
        }
        _ => None,
    }
}

//! The spec's dependency graph, producer → consumer as RESTler builds it: for every path
//! value an operation needs that no example or contract default gives, the operations
//! whose answers can give it: those whose OpenAPI `links` give it (first), those that
//! declare a `Location` header on a 2xx (a member of their own collection), and those
//! whose 2xx JSON response schemas hold it by the rules of [`crate::identity`]; and the
//! layer at which the run's passes can reach each operation
//! (layer 0 needs nothing; layer n + 1 needs only values of producers at layer n or
//! less). Reads produce without permission; queries and creates only where writes are
//! allowed.
//!
//! The graph predicts from the schemas; the run's passes ([`crate::state`]) realise it
//! from the answers, so an operation the graph reaches is still skipped when the target
//! holds no record to name, and the graph says which producer to look at then.
//! `--dry-run` prints it, so a user sees why an operation was or was not reached.

use std::collections::BTreeSet;

use serde_json::Value;

use super::builder::naming_params;
use crate::contracts::Contracts;
use crate::effect::Effect;
use crate::identity::{collection, is_generic, member_of, names_thing, own_fields, owner, pointed};
use crate::spec::{Operation, Param, Spec};

/// Producers named per need in the printed graph: the first few say where to look.
const SHOWN_PRODUCERS: usize = 3;

/// How deep a response schema is followed through `$ref`s and combinators.
const MAX_DEPTH: usize = 12;

/// One operation that needs values from other operations' answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its `operationId`.
    pub op: String,
    /// Each path value it needs, with the operations whose answers can give it.
    pub needs: Vec<Need>,
    /// The pass that can first send it (1 = the first pass after the plain one), or
    /// `None` when no chain of producers reaches it.
    pub layer: Option<usize>,
}

/// One path value an operation needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// The parameter.
    pub param: String,
    /// The operations whose answers can give it, in spec order.
    pub producers: Vec<String>,
}

/// The graph of one spec: its consumers, in spec order.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Every operation with a path value to get from answers.
    pub nodes: Vec<Node>,
}

/// What one operation's answers hold, by its response schemas.
struct Produced<'s> {
    op: &'s Operation,
    /// The collection its path names.
    collection: String,
    /// The fields of the records it answers.
    fields: BTreeSet<String>,
    /// The collections its own path values name members of (its answers' scope).
    scope: BTreeSet<String>,
    /// The parameters its 2xx answers' links give, by the operation linked to.
    links: Vec<(String, BTreeSet<String>)>,
}

/// Builds the graph of `spec`: `writes` says whether queries and creates may produce.
pub fn build(spec: &Spec, contracts: &Contracts, writes: bool) -> Graph {
    let produced: Vec<Produced<'_>> = spec
        .operations
        .iter()
        .filter(|op| match op.effect {
            Effect::Read => true,
            Effect::Query | Effect::Create => writes,
            _ => false,
        })
        .map(|op| Produced {
            op,
            collection: collection(&op.path),
            fields: answered_fields(&spec.doc, op),
            scope: op
                .params
                .iter()
                .filter_map(|p| owner(&op.path, &p.name))
                .collect(),
            links: op
                .responses
                .iter()
                .filter(|r| r.status.starts_with('2'))
                .flat_map(|r| &r.links)
                .filter_map(|l| {
                    let target = spec.link_target(l)?;
                    let params = l.parameters.iter().map(|(n, _)| n.clone()).collect();
                    Some((target.id.clone(), params))
                })
                .collect(),
        })
        .filter(|p| !p.links.is_empty() || (!p.collection.is_empty() && !p.fields.is_empty()))
        .collect();
    let mut nodes: Vec<Node> = spec
        .operations
        .iter()
        .filter_map(|op| {
            let (wanted, held) = naming_params(op, contracts);
            if wanted.is_empty() {
                return None;
            }
            let others: Vec<&Param> = wanted
                .iter()
                .copied()
                .chain(held.iter().map(|(p, _)| *p))
                .collect();
            let inner = *wanted
                .iter()
                .max_by_key(|p| op.path.find(&format!("{{{}}}", p.name)))?;
            // One value: any producer of it. Several: the innermost one's producer must
            // also give (or agree with) every other, as the run requires.
            let linked = |r: &Produced<'_>| {
                r.links.iter().any(|(target, params)| {
                    *target == op.id && wanted.iter().all(|p| params.contains(&p.name))
                })
            };
            let inferred = |r: &Produced<'_>| {
                gives(r, op, inner)
                    && others
                        .iter()
                        .filter(|q| q.name != inner.name)
                        .all(|q| vouches(r, op, q))
            };
            let producers: Vec<String> = produced
                .iter()
                .filter(|r| r.op.id != op.id && (linked(r) || inferred(r)))
                .map(|r| r.op.id.clone())
                .collect();
            let needs = wanted
                .iter()
                .map(|p| Need {
                    param: p.name.clone(),
                    producers: producers.clone(),
                })
                .collect();
            Some(Node {
                op: op.id.clone(),
                needs,
                layer: None,
            })
        })
        .collect();
    layer(&mut nodes);
    Graph { nodes }
}

/// Gives each node the first pass whose producers are all reached before it.
fn layer(nodes: &mut [Node]) {
    loop {
        let mut changed = false;
        for i in 0..nodes.len() {
            if nodes[i].layer.is_some() {
                continue;
            }
            // A producer that needs nothing is reached in the plain pass (layer 0).
            let at = |id: &String| match nodes.iter().find(|n| n.op == *id) {
                None => Some(0),
                Some(n) => n.layer,
            };
            let mut deepest = 0;
            let mut all = true;
            for need in &nodes[i].needs {
                match need.producers.iter().filter_map(at).min() {
                    Some(l) => deepest = deepest.max(l),
                    None => all = false,
                }
            }
            if all {
                nodes[i].layer = Some(deepest + 1);
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Whether `r`'s answers can give path parameter `p` of `op` (the rules of
/// [`crate::identity`], on field names instead of values).
fn gives(r: &Produced<'_>, op: &Operation, p: &Param) -> bool {
    let owner = owner(&op.path, &p.name).unwrap_or_default();
    if r.collection == owner
        && (r.fields.contains(OPEN)
            || r.fields.contains(LOCATION)
            || own_fields(&p.name, &owner)
                .iter()
                .any(|f| r.fields.contains(f)))
    {
        return true;
    }
    if let Some((thing, field)) = pointed(&p.name)
        && names_thing(&r.collection, &thing)
        && (r.fields.contains(field) || r.fields.contains(&p.name))
    {
        return true;
    }
    !is_generic(&p.name) && r.fields.contains(&p.name)
}

/// Whether `r`'s records say which member path parameter `q` of `op` names: by their
/// request's own path value for the same collection, or by a field of `q`'s name.
fn vouches(r: &Produced<'_>, op: &Operation, q: &Param) -> bool {
    member_of(&op.path, &q.name).is_some_and(|o| r.scope.contains(&o)) || r.fields.contains(&q.name)
}

/// The field names of the records an operation's 2xx JSON answers hold: the answer's own
/// properties, those of a top-level array's items, those of an object or of the items of
/// an array under any property (an envelope), and `id` for an `ids` array.
fn answered_fields(doc: &Value, op: &Operation) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in op.responses.iter().filter(|r| r.status.starts_with('2')) {
        if r.location {
            out.insert(LOCATION.to_string());
        }
        for (media, schema) in &r.content {
            let json = media.contains("json");
            if let (true, Some(schema)) = (json, schema) {
                let top = resolved(doc, schema, 0);
                for record in records(doc, schema, 0) {
                    out.extend(properties(doc, record, 0).into_iter().map(|(n, _)| n));
                    // The answer itself is an envelope as often as a record: only a list's
                    // items and an object under a key count as open records.
                    let nested = top.is_none_or(|t| !std::ptr::eq(t, record));
                    if nested && open(doc, record) {
                        out.insert(OPEN.to_string());
                    }
                }
                for (name, v) in properties(doc, schema, 0) {
                    if name == "ids" && is_array(doc, v) {
                        out.insert("id".to_string());
                    }
                }
            }
        }
    }
    out
}

/// What [`answered_fields`] holds for a record schema open to properties it does not
/// name (a list's item, or an object under a key of the answer): such a record may carry
/// its own collection's identifying field (`id`), and is taken to, by the operations of
/// that collection only.
const OPEN: &str = "*";

/// What [`answered_fields`] holds for an answer that declares a `Location` header: it
/// names a member of the answering operation's own collection.
const LOCATION: &str = "Location:";

/// Whether a record schema admits properties it does not name (`additionalProperties`
/// absent, `true` or a schema).
fn open(doc: &Value, record: &Value) -> bool {
    resolved(doc, record, 0).is_some_and(|s| {
        s.get("additionalProperties") != Some(&Value::Bool(false))
            && s.get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "object")
    })
}

/// The schemas of the records an answer of `schema` holds (see [`answered_fields`]).
fn records<'d>(doc: &'d Value, schema: &'d Value, depth: usize) -> Vec<&'d Value> {
    let Some(s) = resolved(doc, schema, depth) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for branch in branches(s) {
        out.extend(records(doc, branch, depth + 1));
    }
    if let Some(items) = s.get("items") {
        out.push(items);
    }
    if s.get("properties").is_some() {
        out.push(s);
        for (_, v) in properties(doc, s, depth) {
            match resolved(doc, v, depth) {
                Some(inner) if inner.get("items").is_some() => out.extend(inner.get("items")),
                Some(inner) if inner.get("properties").is_some() => out.push(inner),
                _ => {}
            }
        }
    }
    out
}

/// The properties of an object schema, through `$ref`s and combinators.
fn properties<'d>(doc: &'d Value, schema: &'d Value, depth: usize) -> Vec<(String, &'d Value)> {
    let Some(s) = resolved(doc, schema, depth) else {
        return Vec::new();
    };
    let mut out: Vec<(String, &Value)> = s
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v))
        .collect();
    for branch in branches(s) {
        out.extend(properties(doc, branch, depth + 1));
    }
    out
}

fn branches(s: &Value) -> impl Iterator<Item = &Value> {
    ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .filter_map(|k| s.get(k).and_then(Value::as_array))
        .flatten()
}

fn is_array(doc: &Value, schema: &Value) -> bool {
    resolved(doc, schema, 0).is_some_and(|s| {
        s.get("type").and_then(Value::as_str) == Some("array") || s.get("items").is_some()
    })
}

/// `schema` with the `$ref`s at its top followed, within the depth bound.
fn resolved<'d>(doc: &'d Value, schema: &'d Value, depth: usize) -> Option<&'d Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    crate::spec::resolve(doc, schema).ok()
}

impl Graph {
    /// The graph as `--dry-run` prints it: one line per consumer, by layer, the
    /// unreachable last with why.
    pub fn render(&self) -> String {
        if self.nodes.is_empty() {
            return String::new();
        }
        let reached: Vec<&Node> = self.nodes.iter().filter(|n| n.layer.is_some()).collect();
        let deepest = reached.iter().filter_map(|n| n.layer).max().unwrap_or(0);
        let mut text = format!(
            "dependency graph: {} operation(s) need a path value no example gives; {} reachable from the answers of others (in {} later pass(es)), {} not\n",
            self.nodes.len(),
            reached.len(),
            deepest,
            self.nodes.len() - reached.len()
        );
        let mut ordered: Vec<&Node> = self.nodes.iter().collect();
        ordered.sort_by_key(|n| n.layer.unwrap_or(usize::MAX));
        let width = ordered.iter().map(|n| n.op.len()).max().unwrap_or(0);
        for n in ordered {
            let at = match n.layer {
                Some(l) => format!("pass {}", l + 1),
                None => "never".to_string(),
            };
            text.push_str(&format!(
                "  {at:<7} {:<width$}  {}\n",
                n.op,
                self.needs_text(n)
            ));
        }
        text
    }

    /// The operations no chain of producers reaches, each with why (as `--dry-run`
    /// prints it), for the coverage's measure of reach.
    pub fn unreachable(&self) -> Vec<(String, String)> {
        self.nodes
            .iter()
            .filter(|n| n.layer.is_none())
            .map(|n| (n.op.clone(), self.needs_text(n)))
            .collect()
    }

    /// What a node needs and who gives it, or why nobody does.
    fn needs_text(&self, n: &Node) -> String {
        let reachable = |id: &String| {
            self.nodes
                .iter()
                .find(|n| n.op == *id)
                .is_none_or(|n| n.layer.is_some())
        };
        if n.needs.len() > 1 && n.needs.iter().all(|need| need.producers.is_empty()) {
            // One producer must give every value of one request together.
            let names: Vec<&str> = n.needs.iter().map(|need| need.param.as_str()).collect();
            return format!(
                "{}: no answer in the spec carries them together",
                names.join(", ")
            );
        }
        let needs: Vec<String> = n
            .needs
            .iter()
            .map(|need| match need.producers.as_slice() {
                p if n.layer.is_none() && !p.is_empty() && !p.iter().any(reachable) => {
                    format!(
                        "{} ← {} (none of them reached)",
                        need.param,
                        p.iter()
                            .take(SHOWN_PRODUCERS)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                [] => format!("{}: no answer in the spec carries it", need.param),
                p if p.len() > SHOWN_PRODUCERS => format!(
                    "{} ← {} and {} more",
                    need.param,
                    p[..SHOWN_PRODUCERS].join(", "),
                    p.len() - SHOWN_PRODUCERS
                ),
                p => format!("{} ← {}", need.param, p.join(", ")),
            })
            .collect();
        needs.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYERS: &str = include_str!("../../tests/specs/layers.yaml");

    fn node<'g>(g: &'g Graph, op: &str) -> &'g Node {
        g.nodes.iter().find(|n| n.op == op).unwrap()
    }

    #[test]
    fn producers_come_from_response_schemas_and_layers_follow_the_paths() {
        let spec = Spec::parse(LAYERS).unwrap();
        let g = build(&spec, &Contracts::default(), false);
        let layer = |op: &str| node(&g, op).layer;
        // Envelopes keyed by the collection, `items`, `result`, a bare array, `ids`.
        assert_eq!(node(&g, "read_shelf").needs[0].producers, ["list_shelves"]);
        assert_eq!(layer("read_shelf"), Some(1));
        assert_eq!(layer("list_boxes"), Some(1));
        // The box's producer must also name the shelf: the list of that shelf's boxes.
        assert_eq!(node(&g, "read_box").needs[0].producers, ["list_boxes"]);
        assert_eq!(layer("read_box"), Some(2));
        assert_eq!(layer("list_labels"), Some(2));
        assert_eq!(layer("read_label"), Some(3));
        assert_eq!(node(&g, "read_chart").needs[0].producers, ["list_charts"]);
        assert_eq!(node(&g, "read_board").needs[0].producers, ["list_boards"]);
        let text = g.render();
        assert!(text.contains("in 3 later pass(es)"), "{text}");
        assert!(text.contains("box_id ← list_boxes"), "{text}");
    }

    #[test]
    fn qualifiers_location_headers_and_links_are_producers() {
        let spec = Spec::parse(include_str!("../../tests/specs/links.yaml")).unwrap();
        let reads = build(&spec, &Contracts::default(), false);
        assert_eq!(
            node(&reads, "read_locker_by_name").needs[0].producers,
            ["list_lockers"]
        );
        // By `operationId`, then by `operationRef` with both path values.
        assert_eq!(
            node(&reads, "get_order").needs[0].producers,
            ["latest_orders"]
        );
        assert_eq!(
            node(&reads, "get_order_line").needs[0].producers,
            ["get_order"]
        );
        assert_eq!(node(&reads, "get_order_line").layer, Some(2));
        // The create's `Location` produces only where writes are allowed.
        assert_eq!(node(&reads, "track_parcel").layer, None);
        let writes = build(&spec, &Contracts::default(), true);
        assert_eq!(
            node(&writes, "track_parcel").needs[0].producers,
            ["send_parcel"]
        );
        assert_eq!(node(&writes, "track_parcel").layer, Some(1));
    }

    #[test]
    fn a_value_no_answer_carries_leaves_its_operation_unreachable_with_the_reason() {
        let spec = Spec::parse(&LAYERS.replace(
            "shelves: {type: array, items: {$ref: \"#/components/schemas/Shelf\"}}",
            "total: {type: integer}",
        ))
        .unwrap();
        let g = build(&spec, &Contracts::default(), false);
        assert_eq!(node(&g, "read_shelf").layer, None);
        // Below it, nothing is reached either, and the line says why.
        assert_eq!(node(&g, "read_label").layer, None);
        let text = g.render();
        assert!(
            text.contains("never   read_shelf")
                && text.contains("shelf_id: no answer in the spec carries it"),
            "{text}"
        );
        assert!(
            text.contains("key ← list_labels (none of them reached)"),
            "{text}"
        );
    }
}

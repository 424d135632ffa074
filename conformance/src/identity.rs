//! What names a record: the rules that tie a path parameter to the field of a collection's
//! records that can give its value. Stated once, read twice: by the target's state
//! ([`crate::state`], which looks the field up in the records the run's answers held) and
//! by the plan's dependency graph ([`crate::plan::graph`], which looks it up in the
//! response schemas). They hold for any spec and name none:
//!
//! - **Collections.** A path names the collection of its literal segments, parameters left
//!   out, a trailing question verb (`filter`, `count`, `search`, …) dropped, and so is a
//!   qualifier: an identifying word (`name`, `slug`, `id`, …), or the parameter's own name,
//!   right before a parameter, which says what the value is matched on
//!   (`/limits/tag/{tag}` names `limits`): `GET /widgets/`, `POST /widgets/filter`,
//!   `GET /widgets/{id}` and `GET /widgets/name/{name}` all answer records of `widgets`,
//!   and `GET /widgets/{widget_id}/parts` records of `widgets/parts`. A path parameter belongs
//!   to the collection its literal segments before it name (its *owner*): `{part_id}` of
//!   `/widgets/{widget_id}/parts/{part_id}` to `widgets/parts`, `{widget_id}` to `widgets`.
//! - **Own fields.** A parameter takes, from a record of its owner, the field of its own
//!   name, then the identifying field its name points at: `{id}`, `{pk}` and `{id_or_slug}`
//!   the `id` (and `{id_or_slug}` the `slug`); `{uuid}`, `{key}`, `{slug}`, `{name}`,
//!   `{code}` that field; `{widget_id}` (or `{widgetId}`) the `id` where the owner's last
//!   segment is `widget` or a plural of it.
//! - **Pointed-at collections.** `{thing_field}` (`{work_pool_name}`, `{flow_id}`) also
//!   takes `field` of a record of any collection whose last segment is `thing` or a plural
//!   of it, wherever that collection sits; and a name that is not generic (not a bare
//!   `id`, `pk`, `name` or `id_or_…`) the field of that very name in any record (a run's
//!   `flow_id`, a block type's `slug`).
//! - **Scope.** A record answered to a request with path values is a member of what those
//!   values named: parts listed by `GET /widgets/7/parts` belong to widget `7`. Where two
//!   values follow one qualifier, the one whose name points at a thing their owner does
//!   not name (`{flow_name}` in `/deployments/name/{flow_name}/{deployment_name}`) is no
//!   member of the owner, and takes no scope. Two path
//!   values of one request must name one resource together, so a second value comes from
//!   the same record's scope or its own fields, never from a record found apart.

use std::collections::BTreeMap;

/// Segments that end a path as a question about its collection rather than a member.
const QUESTION_SEGMENTS: &[&str] = &[
    "filter", "paginate", "count", "search", "list", "query", "find", "history",
];

/// Fields that identify a record; `pk` is read as `id`.
const IDENTIFYING: &[&str] = &["id", "uuid", "name", "key", "slug", "code"];

/// The collection a path names: its literal segments, parameters left out, a trailing
/// question segment dropped (`/flows/filter` → `flows`).
pub fn collection(path: &str) -> String {
    named(path, None)
}

/// The collection of the literal segments of `path`; `then` names the parameter that
/// follows its end (the prefix of a path before one), so that a trailing qualifier is
/// dropped too.
fn named(path: &str, then: Option<&str>) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let all: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let param = |s: &str| {
        s.strip_prefix('{')
            .map(|p| p.trim_end_matches('}').to_string())
    };
    let mut segments: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            let next = match all.get(i + 1) {
                Some(n) => param(n),
                None => then.map(str::to_string),
            };
            let qualifier = next.is_some_and(|n| {
                let word = snake(s);
                identifying(&word).is_some() || word == snake(&n)
            });
            param(s).is_none() && !qualifier
        })
        .map(|(_, s)| *s)
        .collect();
    if segments
        .last()
        .is_some_and(|s| QUESTION_SEGMENTS.contains(&s.to_ascii_lowercase().as_str()))
    {
        segments.pop();
    }
    segments.join("/")
}

/// The collection path parameter `name` of `path` belongs to: the one its literal
/// segments before it name. `None` when `path` has no such parameter.
pub fn owner(path: &str, name: &str) -> Option<String> {
    let (prefix, _) = path.split_once(&format!("{{{name}}}"))?;
    Some(named(prefix, Some(name)))
}

/// The collection whose member path parameter `name` of `path` names, as a request's
/// scope records it: its owner; but where two parameters share one owner (two values
/// after one qualifier), the one whose name points at a thing the owner does not name is
/// no member of it (`{flow_name}` in `/deployments/name/{flow_name}/{deployment_name}` is
/// a flow's name, not a deployment's).
pub fn member_of(path: &str, name: &str) -> Option<String> {
    let owner = owner(path, name)?;
    let shared = path
        .split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .filter(|other| *other != name)
        .any(|other| owner_is(path, other, &owner));
    match pointed(name) {
        Some((thing, _)) if shared && !names_thing(&owner, &thing) => None,
        _ => Some(owner),
    }
}

fn owner_is(path: &str, name: &str, collection: &str) -> bool {
    owner(path, name).is_some_and(|o| o == collection)
}

/// `camelCase` and `kebab-case` as `snake_case`, lower-cased.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '-' {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

/// The identifying field a name's last word stands for (`pk` reads as `id`).
fn identifying(word: &str) -> Option<&'static str> {
    if word == "pk" {
        return Some("id");
    }
    IDENTIFYING.iter().find(|f| **f == word).copied()
}

/// Whether a parameter's name says nothing of what it names (`id`, `pk`, `name`,
/// `id_or_…`: every collection has one): such a name is looked up only in its owner's
/// records. A `slug`, `key`, `uuid` or `code` is rarer, and may be looked up anywhere.
pub fn is_generic(name: &str) -> bool {
    let n = snake(name);
    matches!(n.as_str(), "id" | "pk" | "name") || n.starts_with("id_or_")
}

/// `name` split as `<thing>_<identifying field>` (`work_pool_name` → (`work_pool`,
/// `name`), `widgetId` → (`widget`, `id`)).
pub fn pointed(name: &str) -> Option<(String, &'static str)> {
    let n = snake(name);
    let (thing, last) = n.rsplit_once('_')?;
    if thing.is_empty() {
        return None;
    }
    Some((thing.to_string(), identifying(last)?))
}

/// Whether a collection's last segment is `thing` or a plural of it (`widget`, `widgets`,
/// `boxes`, `categories`; `flow_runs` for `run`, `flow-runs` for `flow_run`).
pub fn names_thing(collection: &str, thing: &str) -> bool {
    let last = snake(collection.rsplit('/').next().unwrap_or(collection));
    let forms = [
        thing.to_string(),
        format!("{thing}s"),
        format!("{thing}es"),
        thing
            .strip_suffix('f')
            .map(|t| format!("{t}ves"))
            .unwrap_or_default(),
        thing
            .strip_suffix('y')
            .map(|t| format!("{t}ies"))
            .unwrap_or_default(),
    ];
    forms
        .iter()
        .filter(|f| !f.is_empty())
        .any(|f| last == *f || last.ends_with(&format!("_{f}")))
}

/// The fields of a record of the parameter's owner collection `owner` that give path
/// parameter `name`, most telling first (see the module's rules).
pub fn own_fields(name: &str, owner: &str) -> Vec<String> {
    let n = snake(name);
    let mut out = vec![name.to_string()];
    let mut add = |f: &str| {
        if !out.iter().any(|o| o == f) {
            out.push(f.to_string());
        }
    };
    if n != name {
        add(&n);
    }
    if let Some(f) = identifying(&n) {
        add(f);
    }
    if let Some(rest) = n.strip_prefix("id_or_") {
        add("id");
        add(rest);
    }
    if let Some((thing, field)) = pointed(name)
        && names_thing(owner, &thing)
    {
        add(field);
    }
    out
}

/// The path values of a request to `template` that was sent as `path` (relative to the
/// base URL, query allowed), by the collection each value names a member of: `GET
/// /widgets/7/parts` → `{"widgets": "7"}`. Empty when the two do not line up.
pub fn scope_of(template: &str, path: &str) -> BTreeMap<String, String> {
    let t: Vec<&str> = template.split('/').collect();
    aligned(template, path)
        .into_iter()
        .map(|(i, name, value)| (named(&t[..i].join("/"), Some(name)), value))
        .collect()
}

/// The same path values by parameter name (`{"widget_id": "7"}`).
pub fn path_values(template: &str, path: &str) -> BTreeMap<String, String> {
    aligned(template, path)
        .into_iter()
        .map(|(_, name, value)| (name.to_string(), value))
        .collect()
}

/// Each parameter segment of `template` with its position and the decoded segment of
/// `path` in its place; empty when the two do not line up.
fn aligned<'t>(template: &'t str, path: &str) -> Vec<(usize, &'t str, String)> {
    let path = path.split('?').next().unwrap_or(path);
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    if t.len() != p.len() {
        return Vec::new();
    }
    t.iter()
        .zip(&p)
        .enumerate()
        .filter(|(_, (ts, ps))| ts.starts_with('{') && ts.ends_with('}') && !ps.is_empty())
        .map(|(i, (ts, ps))| {
            (
                i,
                ts.trim_start_matches('{').trim_end_matches('}'),
                decoded(ps),
            )
        })
        .collect()
}

/// `text` with its `%XX` escapes decoded (invalid UTF-8 replaced).
pub fn decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_drop_parameters_and_question_segments() {
        assert_eq!(collection("/flows/filter"), "flows");
        assert_eq!(collection("/flows/"), "flows");
        assert_eq!(
            collection("/work_pools/{name}/queues/filter"),
            "work_pools/queues"
        );
        assert_eq!(collection("/flows/{id}"), "flows");
        assert_eq!(collection("/flows/?limit=1"), "flows");
        assert_eq!(
            owner("/widgets/{widget_id}/parts/{part_id}", "part_id").as_deref(),
            Some("widgets/parts")
        );
        assert_eq!(owner("/widgets/{widget_id}", "other"), None);
        // A qualifier before a parameter says what it is matched on, not a collection.
        assert_eq!(collection("/widgets/name/{name}"), "widgets");
        assert_eq!(
            owner("/widgets/name/{name}", "name").as_deref(),
            Some("widgets")
        );
        assert_eq!(
            owner("/widgets/slug/{slug}/parts/{part_id}", "part_id").as_deref(),
            Some("widgets/parts")
        );
        assert_eq!(
            scope_of("/widgets/name/{name}/parts", "/widgets/name/a/parts"),
            BTreeMap::from([("widgets".to_string(), "a".to_string())])
        );
        assert_eq!(owner("/limits/tag/{tag}", "tag").as_deref(), Some("limits"));
        assert_eq!(collection("/limits/tag/{tag}/reset"), "limits/reset");
        // Not before a parameter, the word is a collection of its own.
        assert_eq!(collection("/widgets/{id}/name"), "widgets/name");
    }

    #[test]
    fn a_parameter_takes_its_own_name_then_the_field_its_name_points_at() {
        assert_eq!(own_fields("pk", "api/chart"), ["pk", "id"]);
        assert_eq!(
            own_fields("id_or_slug", "dashboard"),
            ["id_or_slug", "id", "slug"]
        );
        assert_eq!(
            own_fields("widgetId", "widgets"),
            ["widgetId", "widget_id", "id"]
        );
        assert_eq!(own_fields("part_id", "widgets/parts"), ["part_id", "id"]);
        assert_eq!(
            own_fields("run_id", "deployments/flow_runs"),
            ["run_id", "id"]
        );
        // A `<thing>_id` under another collection is not that collection's `id`.
        assert_eq!(own_fields("owner_id", "widgets"), ["owner_id"]);
        assert_eq!(own_fields("uuid", "things"), ["uuid"]);
        assert_eq!(own_fields("key", "variables"), ["key"]);
    }

    #[test]
    fn things_are_named_singular_or_plural_and_names_split_at_their_last_word() {
        assert!(names_thing("api/v1/widgets", "widget"));
        assert!(names_thing("boxes", "box"));
        assert!(names_thing("categories", "category"));
        assert!(names_thing("shelves", "shelf"));
        assert!(names_thing("flow-runs", "run"));
        assert!(!names_thing("widgets", "gadget"));
        assert_eq!(
            pointed("work_pool_name"),
            Some(("work_pool".into(), "name"))
        );
        assert_eq!(pointed("dagId"), Some(("dag".into(), "id")));
        assert_eq!(pointed("chart_pk"), Some(("chart".into(), "id")));
        assert_eq!(pointed("page_size"), None);
        assert!(is_generic("pk") && is_generic("id_or_slug") && !is_generic("dag_id"));
        assert!(!is_generic("slug") && !is_generic("key"));
    }

    #[test]
    fn a_requests_path_values_are_scoped_by_the_collection_each_names() {
        let scope = scope_of(
            "/widgets/{widget_id}/parts/{part_id}/notes",
            "/widgets/7/parts/a%20b/notes?limit=2",
        );
        assert_eq!(
            scope,
            BTreeMap::from([
                ("widgets".to_string(), "7".to_string()),
                ("widgets/parts".to_string(), "a b".to_string())
            ])
        );
        assert!(scope_of("/widgets/{id}", "/other/7/x").is_empty());
        // Two values after one qualifier: the one whose name points elsewhere is not a
        // member of the collection before them.
        let path = "/deployments/name/{flow_name}/{deployment_name}";
        assert_eq!(member_of(path, "flow_name"), None);
        assert_eq!(
            member_of(path, "deployment_name").as_deref(),
            Some("deployments")
        );
        assert_eq!(
            member_of("/widgets/{widget_id}/parts", "widget_id").as_deref(),
            Some("widgets")
        );
    }
}

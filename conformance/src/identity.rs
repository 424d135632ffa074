//! What names a record: the rules that tie a path parameter to the field of a collection's
//! records that can give its value. Stated once, read twice: by the target's state
//! ([`crate::state`], which looks the field up in the records the run's answers held) and
//! by the plan's dependency graph ([`crate::plan::graph`], which looks it up in the
//! response schemas). They hold for any spec and name none:
//!
//! - **Collections.** A path names the collection of its literal segments, parameters left
//!   out, a trailing question verb (`filter`, `count`, `search`, …) dropped: `GET /widgets/`,
//!   `POST /widgets/filter` and `GET /widgets/{id}` all answer records of `widgets`, and
//!   `GET /widgets/{widget_id}/parts` records of `widgets/parts`. A path parameter belongs
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
//!   values named: parts listed by `GET /widgets/7/parts` belong to widget `7`. Two path
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
    let path = path.split('?').next().unwrap_or(path);
    let mut segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
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
    Some(collection(prefix))
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
    let path = path.split('?').next().unwrap_or(path);
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    let mut scope = BTreeMap::new();
    if t.len() != p.len() {
        return scope;
    }
    for (i, (ts, ps)) in t.iter().zip(&p).enumerate() {
        if ts.starts_with('{') && ts.ends_with('}') && !ps.is_empty() {
            let value = percent_encoding::percent_decode_str(ps)
                .decode_utf8_lossy()
                .into_owned();
            scope.insert(collection(&t[..i].join("/")), value);
        }
    }
    scope
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
    }
}

//! What a request may do to the target's state, and so whether the run may send it.
//!
//! The harness runs against servers it does not own: a QA engineer's staging server, a
//! colleague's application. A spec's security says nothing about whether a request
//! changes data (an unsecured API is not a read-only one), so the effect is judged from
//! the method, the path's shape and the operation's own words, and the spec may say it
//! outright with `x-effect`. When in doubt the judgement errs towards the more harmful
//! effect: a skipped case costs a line in the report, a sent one may cost the user's data.
//!
//! A write that makes records its answer does not name (`defaults`, `import`, `bulk`,
//! `seed`, `sync`, `copy`, `duplicate` or `reset` as a word of its name, summary or path,
//! or `x-effect: destructive`; see [`makes_unknown_records`]) is destructive: the run could
//! not remove what it made, so only `--allow-destructive` sends it, and its 2xx answers are
//! reported `NOT REMOVED`.

pub use spec_model::extensions::Effect;

/// Words that mark an operation as ending or changing a session or a credential. A
/// `GET …/logout` changes state although its method is safe; sending it with the user's
/// token would revoke that token for the rest of the run.
const SESSION_WORDS: &[&str] = &[
    "logout",
    "logoff",
    "signout",
    "revoke",
    "password",
    "passwd",
    "rotate",
    "rotation",
    "deactivate",
    "invalidate",
];

/// Nouns that name a credential or a session in a path: a `DELETE`, `PUT` or `PATCH` of
/// such a path (`DELETE /api-keys/{id}`, `PUT /sessions/{id}`) ends or changes one, while
/// a `POST` to it (`POST /auth/token`) is how one is obtained and stays a create.
const CREDENTIAL_NOUNS: &[&str] = &["token", "apikey", "credential", "session", "secret"];

/// Words that, beside a credential noun, make a request rotate that credential
/// (`POST /token/refresh`, `refresh_access_token`): the token it was sent with may be dead
/// after it.
const ROTATE_WORDS: &[&str] = &["refresh", "renew", "reissue", "regenerate"];

/// Words that mark a write as able to remove or overwrite data the run did not create.
const DESTRUCTIVE_WORDS: &[&str] = &[
    "delete", "remove", "bulk", "clear", "reset", "purge", "truncate", "wipe", "destroy", "erase",
    "drop", "prune", "flush",
];

/// Words that mark a write as making records it does not answer with, so the run can
/// neither know nor remove them (`POST /things/defaults`, `importUsers`, `bulk_create`,
/// `seed`, `sync`, `copy`, `duplicate`, `reset`). Matched as whole words of the
/// operation's name, summary and path (split by [`tokens`]), or the word with a plural
/// `s` (`imports`): `copyright`, `synchronous_read` and `reseed` are other words, and
/// `default` (`set_default` changes one record) is not `defaults`.
const MAKES_UNKNOWN_WORDS: &[&str] = &[
    "defaults",
    "import",
    "bulk",
    "seed",
    "sync",
    "copy",
    "duplicate",
    "reset",
];

/// Words that mark a write as removing rather than making (`bulk_delete`): one with a
/// [`MAKES_UNKNOWN_WORDS`] word and one of these removes records; it makes none.
const REMOVAL_WORDS: &[&str] = &[
    "delete", "remove", "clear", "purge", "truncate", "wipe", "destroy", "erase", "drop", "prune",
    "flush",
];

/// Words that mark a `POST` to a fixed path as changing an existing record rather than
/// creating one (`POST /contactInfo/updatecontactinfoname`).
const UPDATE_WORDS: &[&str] = &[
    "update", "edit", "modify", "change", "set", "replace", "patch", "rename", "assign",
];

/// Words that, leading an operation's name, say a `POST` only asks (`count_flows`,
/// `filterOrders`, `searchUsers`): the request body carries the question.
const QUERY_WORDS: &[&str] = &[
    "count", "filter", "search", "find", "query", "list", "read", "get", "paginate", "validate",
    "preview", "lookup",
];

/// Whether a method is safe in RFC 9110's sense (§9.2.1): a request with it asks for no
/// change of state.
pub fn safe_method(method: &str) -> bool {
    matches!(
        method.to_ascii_uppercase().as_str(),
        "GET" | "HEAD" | "OPTIONS" | "TRACE"
    )
}

/// The effect of a request with `method` to `path` (an operation's own or a probe's):
/// session words first (they make even a `GET` harmful), then the method, then the path's
/// shape and words.
pub fn judge(method: &str, path: &str, words: &str, paths: &PathsIndex) -> Effect {
    let tokens = tokens(&format!("{words} {path}"));
    let pairs = tokens.windows(2).map(|w| format!("{}{}", w[0], w[1]));
    if tokens
        .iter()
        .cloned()
        .chain(pairs)
        .any(|t| SESSION_WORDS.iter().any(|w| t.starts_with(w)))
    {
        return Effect::Session;
    }
    let path_words: Vec<String> = {
        let literal = path
            .split('/')
            .filter(|s| !s.starts_with('{'))
            .collect::<Vec<_>>()
            .join("/");
        let t = self::tokens(&literal);
        let pairs: Vec<String> = t.windows(2).map(|w| format!("{}{}", w[0], w[1])).collect();
        t.into_iter().chain(pairs).collect()
    };
    let names_credential = |list: &[String]| {
        list.iter()
            .any(|t| CREDENTIAL_NOUNS.iter().any(|w| t.starts_with(w)))
    };
    let all_words: Vec<String> = {
        let pairs: Vec<String> = tokens
            .windows(2)
            .map(|w| format!("{}{}", w[0], w[1]))
            .collect();
        tokens.iter().cloned().chain(pairs).collect()
    };
    if names_credential(&all_words)
        && tokens
            .iter()
            .any(|t| ROTATE_WORDS.iter().any(|w| t.starts_with(w)))
    {
        return Effect::Session;
    }
    if matches!(
        method.to_ascii_uppercase().as_str(),
        "DELETE" | "PUT" | "PATCH"
    ) && names_credential(&path_words)
    {
        return Effect::Session;
    }
    if safe_method(method) {
        return Effect::Read;
    }
    // What a write makes without answering it the run can neither know nor remove: only
    // `--allow-destructive` sends it.
    if tokens.iter().any(|t| is_word_of(t, MAKES_UNKNOWN_WORDS)) {
        return Effect::Destructive;
    }
    let method = method.to_ascii_uppercase();
    let names_one = ends_with_parameter(path);
    let path_tokens = self::tokens(path);
    let has = |list: &[&str], tokens: &[String]| {
        tokens.iter().any(|t| list.iter().any(|w| t.starts_with(w)))
    };
    match method.as_str() {
        // A delete of one resource changes that resource; a delete of anything else (a
        // collection, `/admin/storage`) may take data the run never created.
        "DELETE" if names_one => Effect::Update,
        "DELETE" => Effect::Destructive,
        _ if has(DESTRUCTIVE_WORDS, &path_tokens) => Effect::Destructive,
        // A PUT or PATCH of a path whose GET answers a list changes the whole collection.
        "PUT" | "PATCH" if paths.lists(path) => Effect::Destructive,
        "PUT" | "PATCH" => Effect::Update,
        // A POST named as a question (`read_flows` at `/flows/filter`) asks rather than acts.
        // On a path that names a resource only when the path itself says so in its last
        // word (`/events/count-by/{countable}`): `POST /queues/{id}/get_runs` or
        // `/notifications/{id}/read` change what they name, whatever their name begins with.
        "POST"
            if asks(words)
                && !has(UPDATE_WORDS, &tokens)
                && !has(DESTRUCTIVE_WORDS, &tokens)
                && (!has_parameter(path) || path_asks(path)) =>
        {
            Effect::Query
        }
        // A POST to a collection under a named resource whose members the spec addresses
        // one by one (`/buckets/{bucket_id}/collections` beside `…/collections/{id}`)
        // makes a member, as a POST to a top-level collection does.
        "POST" if !names_one && paths.has_members(path) && !has(UPDATE_WORDS, &tokens) => {
            Effect::Create
        }
        // A POST that acts on a named resource (`/flow_runs/{id}/set_state`) changes it.
        _ if has_parameter(path) => Effect::Update,
        _ if has(UPDATE_WORDS, &tokens) => Effect::Update,
        _ => Effect::Create,
    }
}

/// Whether an operation, answered 2xx, may have made records its answer does not name, so
/// the run cannot know them, let alone remove them: a write (not a `DELETE`, not a
/// session change) whose name, summary or path has one of [`MAKES_UNKNOWN_WORDS`], or
/// that the spec declares `x-effect: destructive`, unless it also has one of
/// [`REMOVAL_WORDS`] (`bulk_delete` removes; it makes nothing).
/// `words` are the operation's own (`operationId` and summary), `effect` what it was
/// judged, `declared` its `x-effect`.
pub fn makes_unknown_records(
    method: &str,
    path: &str,
    words: &str,
    effect: Effect,
    declared: Option<Effect>,
) -> bool {
    if safe_method(method) || method.eq_ignore_ascii_case("DELETE") || effect == Effect::Session {
        return false;
    }
    let tokens = tokens(&format!("{words} {path}"));
    let removes = tokens.iter().any(|t| {
        REMOVAL_WORDS.iter().any(|w| {
            t.strip_prefix(w)
                .is_some_and(|rest| matches!(rest, "" | "s" | "d" | "ed"))
        })
    });
    let makes = declared == Some(Effect::Destructive)
        || tokens.iter().any(|t| is_word_of(t, MAKES_UNKNOWN_WORDS));
    makes && !removes
}

/// Whether `token` is one of `words`, or one of them with a plural `s`.
fn is_word_of(token: &str, words: &[&str]) -> bool {
    words
        .iter()
        .any(|w| token == *w || token.strip_suffix('s') == Some(w))
}

/// The words of identifiers and prose, lower-case: split at anything not a letter or
/// digit and at camelCase humps, so `logOut`, `log_out`, `log-out` and `Log Out` all give
/// `log`, `out` (and `logout` gives `logout`), while `catalog outline` stays two words
/// that do not begin with `logout`.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Words that, as a path's last literal segment, make it a question about a collection.
const QUESTION_SEGMENTS: &[&str] = &[
    "count", "filter", "search", "query", "find", "list", "paginate", "history", "lookup",
];

/// Whether the last literal segment of `path` begins with a question word.
fn path_asks(path: &str) -> bool {
    path.split('/')
        .rfind(|s| !s.is_empty() && !s.starts_with('{'))
        .and_then(|s| tokens(s).into_iter().next())
        .is_some_and(|w| QUESTION_SEGMENTS.contains(&w.as_str()))
}

/// Whether the operation's name (its first word) is a question verb.
fn asks(words: &str) -> bool {
    tokens(words)
        .first()
        .is_some_and(|first| QUERY_WORDS.contains(&first.as_str()))
}

fn ends_with_parameter(path: &str) -> bool {
    path.trim_end_matches('/').ends_with('}')
}

fn has_parameter(path: &str) -> bool {
    path.contains('{')
}

/// Which paths of the spec answer a list to `GET` (a `PUT` or `PATCH` there changes every
/// item at once), and which paths it has at all (a `POST` to a path whose members the
/// spec addresses one by one makes a member).
#[derive(Debug, Default, Clone)]
pub struct PathsIndex {
    listing: std::collections::BTreeSet<String>,
    /// Every path of the spec, each parameter written `{}`, without a trailing `/`.
    shapes: std::collections::BTreeSet<String>,
}

impl PathsIndex {
    /// The index of `paths` (every path of the spec), of which `listing` answer a list
    /// to `GET` (both without a trailing `/`); the spec reads them off its operations
    /// (`spec::paths_index`).
    pub fn new(
        listing: std::collections::BTreeSet<String>,
        paths: impl IntoIterator<Item = String>,
    ) -> PathsIndex {
        PathsIndex {
            listing,
            shapes: paths.into_iter().map(|p| shape(&p)).collect(),
        }
    }

    fn lists(&self, path: &str) -> bool {
        self.listing.contains(path.trim_end_matches('/'))
    }

    /// Whether the spec addresses members of `path` one by one (`path/{id}`).
    fn has_members(&self, path: &str) -> bool {
        self.shapes.contains(&format!("{}/{{}}", shape(path)))
    }
}

/// A path with each parameter written `{}`, without a trailing `/`.
fn shape(path: &str) -> String {
    path.trim_end_matches('/')
        .split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// What the user allowed the run to do to the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Permissions {
    /// `--allow-writes` (or `allow_writes` in the fixtures): creates, and changes of the
    /// run's own resources and of the records named in `restore:`.
    pub writes: bool,
    /// `--allow-destructive`: also requests that may delete or overwrite data the run
    /// did not create.
    pub destructive: bool,
    /// `session:` in the fixtures names a throwaway account: requests that end or change a
    /// session go, with a session the run logs into for each, never with the run's own
    /// credentials.
    pub own_session: bool,
}

impl Permissions {
    /// Why a request with `effect` may not be sent, or `None` when it may. `restorable`:
    /// the user named the operation's record with the values that put it back
    /// (`restore:`), so an update of it is undone at the end of the run. `own_target`:
    /// the request names a resource the run itself created in the same case.
    pub fn refusal(&self, effect: Effect, restorable: bool, own_target: bool) -> Option<String> {
        match effect {
            Effect::Read => None,
            _ if !self.writes => Some(
                "changes the target's state: writes are not sent without --allow-writes"
                    .to_string(),
            ),
            Effect::Query | Effect::Create => None,
            Effect::Session if self.own_session => None,
            Effect::Session => Some(SESSION_REFUSAL.to_string()),
            Effect::Update if restorable || own_target || self.destructive => None,
            Effect::Update => Some(
                "changes a resource the run did not create (and `restore:` in --fixtures names no values to put it back): needs --allow-destructive"
                    .to_string(),
            ),
            Effect::Destructive if self.destructive => None,
            Effect::Destructive => Some(
                "may delete or overwrite data the run did not create: needs --allow-destructive"
                    .to_string(),
            ),
        }
    }
}

impl Permissions {
    /// The header's line on writes: what this run sends, and the flag that sends more.
    /// `session_ops`: whether the spec has operations that end or change a session, so
    /// the line says what becomes of them.
    pub fn describe(&self, embedded: bool, session_ops: bool) -> String {
        let mut line = match (self.writes, self.destructive) {
            _ if embedded => "sent (the embedded reference server is the run's own)".to_string(),
            (false, _) => return "not sent; --allow-writes to send".to_string(),
            (true, false) => {
                "sent (--allow-writes); destructive ones not sent; --allow-destructive to send"
                    .to_string()
            }
            (true, true) => {
                "sent, destructive ones included, after every other case (--allow-destructive)"
                    .to_string()
            }
        };
        if !session_ops {
            return line;
        }
        line.push_str(if self.own_session {
            "; session-ending ones last, each with a session of the throwaway account in --fixtures"
        } else {
            "; session-ending ones never (no throwaway account under `session:` in --fixtures)"
        });
        line
    }
}

/// Why a request that ends or changes a session is not sent without a throwaway account.
pub const SESSION_REFUSAL: &str = "ends or changes a session or credential, so it is never sent with the credentials the run was given: name a throwaway account under `session:` in --fixtures for the run to log into and send it with";

/// The effect's name in plans and reports.
pub fn name(effect: Effect) -> &'static str {
    match effect {
        Effect::Read => "read",
        Effect::Query => "query",
        Effect::Create => "create",
        Effect::Update => "update",
        Effect::Destructive => "destructive",
        Effect::Session => "session",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(method: &str, path: &str, words: &str) -> Effect {
        judge(method, path, words, &PathsIndex::default())
    }

    #[test]
    fn methods_paths_and_words_give_the_effect() {
        assert_eq!(j("GET", "/flows/{id}", "read_flow"), Effect::Read);
        assert_eq!(j("GET", "/auth/logout", "logout"), Effect::Session);
        assert_eq!(
            j("GET", "/api/v1/users/me", "Log Out the user"),
            Effect::Session
        );
        assert_eq!(
            j("GET", "/catalog/outline", "catalog outline"),
            Effect::Read
        );
        assert_eq!(j("GET", "/signOut", ""), Effect::Session);
        assert_eq!(j("GET", "/session", "log_out"), Effect::Session);
        assert_eq!(j("POST", "/users/{id}/password", "change"), Effect::Session);
        assert_eq!(j("POST", "/tokens/revoke", "revoke"), Effect::Session);
        // Deleting or replacing a credential ends it; obtaining one is a create.
        assert_eq!(
            j("DELETE", "/api-keys/{key_id}", "delete_key"),
            Effect::Session
        );
        assert_eq!(j("PATCH", "/sessions/{id}", "update"), Effect::Session);
        assert_eq!(j("POST", "/auth/token", "login"), Effect::Create);
        assert_eq!(j("POST", "/api-keys", "create_key"), Effect::Create);
        // A token refresh may rotate the token it was sent with.
        assert_eq!(
            j("POST", "/auth/token/refresh", "refresh_token"),
            Effect::Session
        );
        assert_eq!(j("POST", "/cache/refresh", "refresh_cache"), Effect::Create);
        // A credential noun inside a longer word of another sense is not one.
        assert_eq!(
            j("DELETE", "/tokenizers/{id}", "delete_tokenizer"),
            Effect::Session,
            "starts_with errs towards the harmful side"
        );
        assert_eq!(j("POST", "/flows/", "create_flow"), Effect::Create);
        assert_eq!(j("POST", "/flows/filter", "read_flows"), Effect::Query);
        // A question about a named resource does not change it.
        assert_eq!(
            j(
                "POST",
                "/events/count-by/{countable}",
                "count_account_events Count Account Events"
            ),
            Effect::Query
        );
        // A question-named POST to a resource's action changes that resource.
        assert_eq!(
            j("POST", "/work_queues/{id}/get_runs", "read_work_queue_runs"),
            Effect::Update
        );
        assert_eq!(
            j("POST", "/notifications/{id}/read", "read_notification"),
            Effect::Update
        );
        // A question verb with a destructive word in the name is no query.
        assert_ne!(
            j("POST", "/runs/filter", "filter_and_delete_runs"),
            Effect::Query
        );
        // A question verb later in the name does not make an action a question.
        assert_eq!(
            j(
                "POST",
                "/deployments/{id}/schedule",
                "schedule_deployment_get"
            ),
            Effect::Update
        );
        assert_eq!(
            j("POST", "/items/{id}/reindex", "update_index_find"),
            Effect::Update
        );
        assert_eq!(
            j("POST", "/flows/bulk_delete", "bulk_delete_flows"),
            Effect::Destructive
        );
        assert_eq!(j("DELETE", "/admin/storage", "clear"), Effect::Destructive);
        assert_eq!(j("DELETE", "/flows/{id}", "delete_flow"), Effect::Update);
        assert_eq!(j("PATCH", "/flows/{id}", "update_flow"), Effect::Update);
        assert_eq!(
            j("POST", "/flow_runs/{id}/set_state", "set_flow_run_state"),
            Effect::Update
        );
        assert_eq!(
            j(
                "POST",
                "/contactInfo/updatecontactinfoname",
                "updateContactInfoName"
            ),
            Effect::Update
        );
        assert_eq!(
            j("POST", "/auth/oauthtoken", "exchangeToken"),
            Effect::Create
        );
        assert_eq!(j("POST", "/assets", "create_asset"), Effect::Create);
    }

    #[test]
    fn a_write_that_makes_records_it_does_not_name_is_destructive() {
        assert_eq!(
            j("POST", "/things/defaults", "create_defaults"),
            Effect::Destructive
        );
        assert_eq!(j("POST", "/users", "importUsers"), Effect::Destructive);
        assert_eq!(
            j("POST", "/limits/increment", "bulk_increment_slots"),
            Effect::Destructive
        );
        assert_eq!(
            j("POST", "/things/{id}/duplicate", "duplicate_thing"),
            Effect::Destructive
        );
        assert_eq!(j("POST", "/seeds", "plant"), Effect::Destructive);
        // Other words that begin like them do not count.
        assert_eq!(
            j("POST", "/copyright_notices", "create_copyright_notice"),
            Effect::Create
        );
        assert_eq!(
            j("POST", "/synchronous_reads", "create_synchronous_read"),
            Effect::Create
        );
        assert_eq!(
            j("POST", "/things/{id}/default", "set_default"),
            Effect::Update
        );
        // A read stays a read.
        assert_eq!(j("GET", "/things/defaults", "read_defaults"), Effect::Read);
    }

    #[test]
    fn which_writes_make_records_the_run_cannot_know_of() {
        let spec = crate::spec::Spec::parse(
            r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things/defaults:
    post: {operationId: make_defaults, responses: {"204": {description: ok}}}
    get: {operationId: read_defaults, responses: {"200": {description: ok}}}
  /things/bulk_delete:
    post: {operationId: bulk_delete_things, responses: {"204": {description: ok}}}
  /things/import:
    delete: {operationId: forget_import, responses: {"204": {description: ok}}}
  /things/stamp:
    post: {operationId: stamp, x-effect: destructive, responses: {"204": {description: ok}}}
  /things:
    post: {operationId: create_thing, responses: {"201": {description: ok}}}
  /copyright:
    post: {operationId: create_copyright, responses: {"201": {description: ok}}}
"##,
        )
        .unwrap();
        let makes = |id: &str| {
            let op = spec.operation(id).unwrap();
            makes_unknown_records(
                &op.method,
                &op.path,
                &op.words(),
                op.effect,
                op.declared_effect,
            )
        };
        assert!(makes("make_defaults"));
        assert!(makes("stamp"), "x-effect: destructive");
        assert!(!makes("read_defaults"), "a read makes nothing");
        assert!(!makes("bulk_delete_things"), "a bulk delete removes");
        assert!(!makes("forget_import"), "a DELETE removes");
        assert!(!makes("create_thing"), "a create answers what it made");
        assert!(!makes("create_copyright"));
    }

    #[test]
    fn nothing_but_a_read_goes_without_permission() {
        let none = Permissions::default();
        for e in [
            Effect::Query,
            Effect::Create,
            Effect::Update,
            Effect::Destructive,
            Effect::Session,
        ] {
            assert!(none.refusal(e, true, true).is_some(), "{e:?}");
        }
        assert!(none.refusal(Effect::Read, false, false).is_none());
        let writes = Permissions {
            writes: true,
            destructive: false,
            own_session: false,
        };
        assert!(writes.refusal(Effect::Create, false, false).is_none());
        assert!(writes.refusal(Effect::Query, false, false).is_none());
        assert!(writes.refusal(Effect::Update, false, false).is_some());
        assert!(writes.refusal(Effect::Update, true, false).is_none());
        assert!(writes.refusal(Effect::Update, false, true).is_none());
        assert!(writes.refusal(Effect::Destructive, true, true).is_some());
        let all = Permissions {
            writes: true,
            destructive: true,
            own_session: false,
        };
        assert!(all.refusal(Effect::Destructive, false, false).is_none());
    }
}

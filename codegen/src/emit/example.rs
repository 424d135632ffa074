//! The usage example of a generated crate: its README and its root rustdoc show the same
//! code, made for the spec at hand, so that a newcomer learns the crate from the crate.
//!
//! The example builds the client, sets the credential of every security scheme the client
//! sends (read from the environment, never a literal secret), calls one operation and
//! matches its documented error. The operation is the first, in this order, whose every
//! argument the example can write as a literal: a `GET` before other methods, no
//! required body before one, fewer arguments before more, then spec order. A deprecated operation,
//! one called through a request builder and one needing a value with no literal form (a
//! date-time, a union, a byte stream) is never chosen. When no operation qualifies the
//! example stops after the credentials.
//!
//! It is compiled as a doctest of the root rustdoc (`no_run`: it would need the server),
//! so a change of any signature it uses fails the crate's own `cargo test --doc`.

use crate::ir::{Api, BodyKind, Method, Operation, SchemeKind, Ty, TypeDef};

/// How deep a literal goes into nested request models before the example gives up on an
/// operation (a cycle, or a body too deep to read as a first example).
const MAX_DEPTH: usize = 3;

/// The example's Rust code (no fences), for crate `lib` (the library's name as Rust code
/// spells it: the package name with `-` as `_`).
pub fn code(api: &Api, lib: &str) -> String {
    if !api.client {
        return server_code(lib);
    }
    let base = api
        .server_url
        .clone()
        .unwrap_or_else(|| "https://api.example.com".to_owned());
    let mut out = format!(
        "use {lib}::{{Client, Error}};\n\n\
         async fn example() -> Result<(), Box<dyn std::error::Error>> {{\n    \
         let client = Client::new({base:?})?;\n"
    );
    for line in credentials(api) {
        out.push_str("    ");
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(call) = chosen_call(api, lib) {
        out.push_str(&format!(
            "    match {call}.await {{\n        \
             Ok(answer) => println!(\"{{:?}}\", answer.body()),\n        \
             Err(Error::Response {{ status, error, .. }}) => eprintln!(\"{{status}}: {{error:?}}\"),\n        \
             Err(error) => eprintln!(\"{{error}}\"),\n    \
             }}\n"
        ));
    }
    out.push_str("    Ok(())\n}\n");
    out
}

/// The example of a server-only crate: an implementation that starts with no method
/// written (each answers 501 until it is) and the router it is served through. The same
/// for every spec, since the trait's defaults need no operation to be chosen.
fn server_code(lib: &str) -> String {
    format!(
        "use {lib}::server::{{router, Api}};\n\n\
         /// The service: write the methods of `Api` one by one; those not written yet\n\
         /// answer 501 Not Implemented, and every request is judged against the spec\n\
         /// before a method sees it.\n\
         struct Service;\n\n\
         impl Api for Service {{}}\n\n\
         /// The service's routes, served with `axum::serve` on a `tokio::net::TcpListener`.\n\
         fn app() -> axum::Router {{\n    \
         router(Service)\n\
         }}\n"
    )
}

/// The library name of package `package` (`trading-api` is `trading_api` in code).
pub fn lib_name(package: &str) -> String {
    package.replace('-', "_")
}

/// What the example shows, in a sentence: a call of the client, or a server-only
/// crate's service.
fn intro(client: bool) -> &'static str {
    if client {
        "Call an operation and tell a documented error answer from the rest"
    } else {
        "Implement the spec's operations and serve them"
    }
}

/// The crate's root rustdoc section holding the example, compiled as a doctest; `client`:
/// whether the crate has its client (see [`code`]).
pub fn rustdoc(code: &str, client: bool) -> String {
    format!(
        "# Example\n\n\
         {}:\n\n\
         ```no_run\n{code}```",
        intro(client)
    )
}

/// The README section holding the example.
pub fn readme(code: &str, client: bool) -> String {
    format!(
        "## Example\n\n\
         {} (the same code is the crate's doctest):\n\n\
         ```rust\n{code}```\n",
        intro(client)
    )
}

/// One statement per scheme the client sends: its setter, with the secret read from an
/// environment variable named after the scheme. The one-word `set_bearer_token` stands in
/// for the setter of the spec's only bearer scheme.
fn credentials(api: &Api) -> Vec<String> {
    let bearers = api
        .schemes
        .iter()
        .filter(|s| matches!(s.kind, SchemeKind::Bearer(_)))
        .count();
    let mut lines = Vec::new();
    for s in &api.schemes {
        let var = s.stem.trim_start_matches("r#").to_ascii_uppercase();
        let env = |suffix: &str| format!("&std::env::var(\"{var}{suffix}\")?");
        let scheme = super::auth::describe(s).replace(['\n', '\r'], " ");
        lines.push(format!("// Security scheme {scheme}."));
        let setter = format!("set_{}", s.stem);
        let set = match &s.kind {
            SchemeKind::Bearer(_) if bearers == 1 => {
                format!("client.set_bearer_token({})?;", env(""))
            }
            SchemeKind::Bearer(_) => format!("client.{setter}({})?;", env("")),
            SchemeKind::Basic => {
                lines.push(format!(
                    "let username = std::env::var(\"{var}_USERNAME\")?;"
                ));
                format!("client.{setter}(&username, {})?;", env("_PASSWORD"))
            }
            SchemeKind::ApiKey {
                location: crate::ir::ApiKeyLocation::Query,
                ..
            } => format!("client.{setter}({});", env("")),
            SchemeKind::ApiKey { .. } => format!("client.{setter}({})?;", env("")),
        };
        lines.push(set);
    }
    lines
}

/// `client.<method>(<arguments>)` of the operation the example calls, if one qualifies.
fn chosen_call(api: &Api, lib: &str) -> Option<String> {
    let mut candidates: Vec<(usize, &Operation, Vec<String>)> = api
        .operations
        .iter()
        .enumerate()
        .filter(|(_, op)| !op.deprecated && !super::requests::uses_builder(op))
        .filter_map(|(index, op)| Some((index, op, arguments(api, op, lib)?)))
        .collect();
    candidates.sort_by_key(|(index, op, args)| {
        (
            op.method != Method::Get,
            op.body.as_ref().is_some_and(|b| b.required),
            args.len(),
            *index,
        )
    });
    let (_, op, args) = candidates.into_iter().next()?;
    Some(format!("client.{}({})", op.name, args.join(", ")))
}

/// The operation's arguments as literals, in the method's order (parameters, then the
/// body), or `None` when one has no literal form.
fn arguments(api: &Api, op: &Operation, lib: &str) -> Option<Vec<String>> {
    let models = format!("{lib}::models");
    let mut args = Vec::new();
    for p in &op.params {
        if p.required {
            args.push(argument(api, &p.ty, &p.wire, &models)?);
        } else {
            args.push("None".to_owned());
        }
    }
    if let Some(body) = &op.body {
        if !body.required {
            args.push("None".to_owned());
        } else if matches!(body.kind, BodyKind::Json | BodyKind::Form) {
            args.push(match &body.ty {
                Ty::String => "\"<body>\"".to_owned(),
                Ty::Vec(item) => format!("&[{}]", owned(api, item, "item", &models, 0)?),
                ty if super::types::is_copy(ty) => owned(api, ty, "body", &models, 0)?,
                ty => format!("&{}", owned(api, ty, "body", &models, 0)?),
            });
        } else if body.kind == BodyKind::Text {
            args.push("\"<body>\"".to_owned());
        } else {
            return None;
        }
    }
    Some(args)
}

/// A literal of `ty` as a method argument takes it (see `types::argument`): strings and
/// lists borrowed, numbers by value, models by reference.
fn argument(api: &Api, ty: &Ty, name: &str, models: &str) -> Option<String> {
    Some(match ty {
        Ty::String => placeholder(name),
        Ty::Vec(item) if **item == Ty::String => format!("&[{}]", placeholder(name)),
        Ty::Vec(item) => format!("&[{}]", owned(api, item, name, models, 0)?),
        ty if super::types::is_copy(ty) => owned(api, ty, name, models, 0)?,
        ty => format!("&{}", owned(api, ty, name, models, 0)?),
    })
}

/// A literal of `ty` as an owned value (a model's field, a constructor's argument).
fn owned(api: &Api, ty: &Ty, name: &str, models: &str, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match ty {
        Ty::Bool => "true".to_owned(),
        Ty::I32 | Ty::I64 => "1".to_owned(),
        Ty::F32 | Ty::F64 => "1.0".to_owned(),
        Ty::String => format!("{}.to_owned()", placeholder(name)),
        Ty::Json => "serde_json::Value::Null".to_owned(),
        Ty::Vec(item) => format!("vec![{}]", owned(api, item, name, models, depth + 1)?),
        Ty::Map(_) => "std::collections::BTreeMap::new()".to_owned(),
        Ty::Option(_) => "None".to_owned(),
        Ty::Named(type_name) => named(api, type_name, models, depth)?,
        Ty::DateTime | Ty::Date | Ty::Uuid | Ty::Tuple(_) | Ty::Unit => return None,
    })
}

/// A literal of the model `type_name`: an enum's first value, a request model through
/// the constructor `emit::builders` gives it (`new(required…)`, or `default()` when no
/// field is required), an alias through what it names.
fn named(api: &Api, type_name: &str, models: &str, depth: usize) -> Option<String> {
    let def = api.types.iter().find(|t| t.name() == type_name)?;
    let path = format!("{models}::{type_name}");
    match def {
        TypeDef::Enum(e) => {
            let (variant, _) = e.variants.first()?;
            Some(format!("{path}::{variant}"))
        }
        TypeDef::Alias(a) => owned(api, &a.ty, type_name, models, depth + 1),
        TypeDef::Struct(s) if s.request => {
            let required = super::builders::required(s);
            if required.is_empty() {
                return Some(format!("{path}::default()"));
            }
            if super::builders::swappable(&required) {
                return None;
            }
            let args = required
                .iter()
                .map(|f| match &f.ty {
                    // `new` takes strings as `impl Into<String>`.
                    Ty::String => Some(placeholder(&f.wire)),
                    ty => owned(api, ty, &f.wire, models, depth + 1),
                })
                .collect::<Option<Vec<_>>>()?;
            Some(format!("{path}::new({})", args.join(", ")))
        }
        TypeDef::Struct(_) | TypeDef::Union(_) => None,
    }
}

/// A string literal that reads as "put the value of `name` here".
fn placeholder(name: &str) -> String {
    let name: String = name
        .chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .collect();
    format!("\"<{name}>\"")
}

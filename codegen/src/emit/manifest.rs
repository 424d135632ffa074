//! The generated crate's `Cargo.toml` and `README.md`, for a crate that builds on its own
//! outside any workspace.
//!
//! The dependency list is read off the IR, not written once for every crate: each
//! dependency and each `reqwest` feature is there because some emitted code calls it, so
//! an emitter that starts calling something new (a multipart body, a byte stream) adds one
//! condition in [`dependencies`]. Versions are the ones this workspace builds and tests
//! the emitted code against (a test compares them with the root `Cargo.toml`).

use crate::emit::File;
use crate::ir::{
    Api, ApiKeyLocation, BodyKind, FormPartKind, ListEncoding, ParamLocation, Payload, SchemeKind,
    Ty, TypeDef,
};

/// One dependency of the generated crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// Crate name.
    pub name: &'static str,
    /// Version requirement.
    pub version: &'static str,
    /// Whether the crate's default features stay on.
    pub default_features: bool,
    /// Features switched on.
    pub features: Vec<&'static str>,
    /// Optional: pulled in by the generated crate's feature of the same name.
    pub optional: bool,
}

/// `serde` version requirement of the emitted code.
pub const SERDE: &str = "1";
/// `serde_json` version requirement of the emitted code.
pub const SERDE_JSON: &str = "1";
/// `reqwest` version requirement of the emitted code.
pub const REQWEST: &str = "0.13";
/// `tokio` version requirement of the emitted code.
pub const TOKIO: &str = "1.54";
/// `httpdate` version requirement of the emitted code.
pub const HTTPDATE: &str = "1";
/// `percent-encoding` version requirement of the emitted code (the runtime's `encode.rs`).
pub const PERCENT_ENCODING: &str = "2.3";
/// `serde_path_to_error` version requirement of the emitted code (the runtime's JSON
/// decoder, which names the field a body fails at).
pub const SERDE_PATH_TO_ERROR: &str = "0.1";
/// `tracing` version requirement of the emitted code (feature `tracing`).
pub const TRACING: &str = "0.1";
/// `chrono` version requirement of the emitted code (`format: date-time` and `date`).
pub const CHRONO: &str = "0.4";
/// `regex` version requirement of the emitted code (`pattern` checks).
pub const REGEX: &str = "1";
/// `uuid` version requirement of the emitted code (`format: uuid`).
pub const UUID: &str = "1";
/// `axum` version requirement of the emitted server (feature `server`).
pub const AXUM: &str = "0.8";
/// `jsonschema` version requirement of the emitted server (feature `server`).
pub const JSONSCHEMA: &str = "0.60";
/// `form_urlencoded` version requirement of the emitted server (feature `server`).
pub const FORM_URLENCODED: &str = "1.2";
/// `http-body-util` version requirement of the emitted server (feature `server`).
pub const HTTP_BODY_UTIL: &str = "0.1";
/// `multer` version requirement of a server that reads multipart bodies.
pub const MULTER: &str = "3";
/// `futures-util` version requirement of a server that reads multipart bodies (the
/// body handed to `multer` as a stream).
pub const FUTURES_UTIL: &str = "0.3";

/// The crate feature that compiles the server half (`--server`).
pub const SERVER_FEATURE: &str = "server";

/// The optional dependencies the `server` feature turns on (rather than a feature each).
const SERVER_DEPENDENCIES: &[&str] = &[
    "axum",
    "jsonschema",
    "form_urlencoded",
    "http-body-util",
    "percent-encoding",
    "serde_path_to_error",
    "multer",
    "futures-util",
];

/// Whether some type the emitted code spells (a model's field or variant, an alias, an
/// argument, a body, a decoded answer) is or holds a type `wanted` accepts.
fn spells(api: &Api, wanted: impl Fn(&Ty) -> bool + Copy) -> bool {
    fn holds(ty: &Ty, wanted: impl Fn(&Ty) -> bool + Copy) -> bool {
        wanted(ty)
            || match ty {
                Ty::Vec(inner) | Ty::Map(inner) | Ty::Option(inner) => holds(inner, wanted),
                Ty::Tuple(items) => items.iter().any(|t| holds(t, wanted)),
                _ => false,
            }
    }
    let in_types = api.types.iter().any(|t| match t {
        TypeDef::Struct(s) => s.fields.iter().any(|f| holds(&f.ty, wanted)),
        TypeDef::Union(u) => u
            .variants
            .iter()
            .any(|v| v.ty.as_ref().is_some_and(|ty| holds(ty, wanted))),
        TypeDef::Alias(a) => holds(&a.ty, wanted),
        TypeDef::Enum(_) => false,
    });
    in_types
        || api.operations.iter().any(|op| {
            op.params.iter().any(|p| holds(&p.ty, wanted))
                || op
                    .body
                    .iter()
                    .chain(op.other_bodies.iter().map(|(_, b)| b))
                    .any(|b| {
                        (b.kind != BodyKind::Binary && holds(&b.ty, wanted))
                        || b.form.iter().flat_map(|f| &f.parts).any(|part| {
                            matches!(
                                &part.kind,
                                FormPartKind::Text(ty) | FormPartKind::Json(ty) if holds(ty, wanted)
                            )
                        })
                    })
                || op
                    .responses
                    .iter()
                    .any(|r| matches!(&r.payload, Payload::Json(ty) if holds(ty, wanted)))
        })
}

/// The dependencies the code emitted for `api` uses, in the order the manifest lists
/// them. `files` are the crate's sources: which runtime files were copied (see
/// `emit::runtime`) decides some of them.
pub fn dependencies(api: &Api, files: &[File]) -> Vec<Dependency> {
    let mut all = always(api, reqwest_features(api));
    if !api.client {
        // No client: serde and serde_json are all of `always` the models and the server
        // use (reqwest, its retry waits, `Retry-After` dates and the call spans go).
        all.truncate(2);
        all.extend(wanted(api, files));
        return all;
    }
    // Before the optional ones, so the manifest lists required dependencies first.
    let at = all.len() - 1;
    all.splice(at..at, wanted(api, files));
    all
}

/// The features of reqwest the client's requests use (and TLS).
fn reqwest_features(api: &Api) -> Vec<&'static str> {
    let params = || api.operations.iter().flat_map(|op| op.params.iter());
    // Every body an operation can send: its own and those of its other-encoding methods.
    let bodies = || {
        api.operations.iter().flat_map(|op| {
            op.body
                .iter()
                .chain(op.other_bodies.iter().map(|(_, body)| body))
        })
    };
    // `RequestBuilder::query`: every query parameter but a list joined or an object
    // written into the URL by hand (see the client emitter's `add_joined_query`), and an
    // API key sent in the query.
    let query = params().any(|p| {
        p.location == ParamLocation::Query
            && !matches!(
                (&p.ty, &p.list),
                (Ty::Vec(_), ListEncoding::Join(_) | ListEncoding::DeepList)
            )
            && !p.list.is_object()
    }) || api.schemes.iter().any(|s| {
        matches!(
            s.kind,
            SchemeKind::ApiKey {
                location: ApiKeyLocation::Query,
                ..
            }
        )
    });
    let mut reqwest_features = Vec::new();
    if bodies().any(|b| b.kind == BodyKind::Json) {
        reqwest_features.push("json");
    }
    if bodies().any(|b| b.kind == BodyKind::Form) {
        reqwest_features.push("form");
    }
    if query {
        reqwest_features.push("query");
    }
    if bodies().any(|b| b.kind == BodyKind::Multipart) {
        reqwest_features.push("multipart");
    }
    // HTTPS: without a TLS backend the client could only reach `http://` servers.
    reqwest_features.push("rustls");
    reqwest_features
}

/// The dependencies every generated crate has: serde, reqwest (with `reqwest_features`),
/// tokio, httpdate and the optional tracing (last).
fn always(api: &Api, reqwest_features: Vec<&'static str>) -> Vec<Dependency> {
    vec![
        // Models derive `Serialize`/`Deserialize`; the client's decoder is generic over
        // `DeserializeOwned`.
        Dependency {
            name: "serde",
            version: SERDE,
            default_features: true,
            features: vec!["derive"],
            optional: false,
        },
        // Response decoding (`from_slice`) and the error type's JSON error.
        Dependency {
            name: "serde_json",
            version: SERDE_JSON,
            default_features: true,
            features: Vec::new(),
            optional: false,
        },
        Dependency {
            name: "reqwest",
            version: REQWEST,
            default_features: false,
            features: reqwest_features,
            optional: false,
        },
        // The retry policy's waits (`tokio::time::sleep`; reqwest runs on tokio already).
        Dependency {
            name: "tokio",
            version: TOKIO,
            default_features: false,
            features: if crate::emit::auth::refreshing(api).is_empty() {
                vec!["time"]
            } else {
                // A refreshing token source holds its tokens under an async lock.
                vec!["time", "sync"]
            },
            optional: false,
        },
        // `Retry-After` in its HTTP-date form.
        Dependency {
            name: "httpdate",
            version: HTTPDATE,
            default_features: true,
            features: Vec::new(),
            optional: false,
        },
        // A span per call, behind the crate's `tracing` feature (off by default).
        Dependency {
            name: "tracing",
            version: TRACING,
            default_features: true,
            features: Vec::new(),
            optional: true,
        },
    ]
}

/// The dependencies only some crates need, in the manifest's order: those of string
/// formats, `pattern` checks, and the runtime files that were copied.
fn wanted(api: &Api, files: &[File]) -> Vec<Dependency> {
    let params = || api.operations.iter().flat_map(|op| op.params.iter());
    let mut wanted = Vec::new();
    // `format: date-time` and `date` (see `Options::string_wanted`): serde's impls and
    // `to_rfc3339` (`alloc`); no clock, no time zone database.
    if spells(api, |ty| matches!(ty, Ty::DateTime | Ty::Date)) {
        wanted.push(Dependency {
            name: "chrono",
            version: CHRONO,
            default_features: false,
            features: vec!["alloc", "serde"],
            optional: false,
        });
    }
    // `format: uuid`.
    if spells(api, |ty| *ty == Ty::Uuid) {
        wanted.push(Dependency {
            name: "uuid",
            version: UUID,
            default_features: false,
            features: vec!["serde"],
            optional: false,
        });
    }
    // `pattern` checks (`Regex::is_match` on arguments and request fields).
    let patterned = params().any(|p| p.checks.pattern.is_some())
        || api.types.iter().any(|t| match t {
            crate::ir::TypeDef::Struct(s) => s.fields.iter().any(|f| f.checks.pattern.is_some()),
            _ => false,
        });
    // A crate without its client has no `validate` (see `Api::client`).
    if patterned && api.client {
        wanted.push(Dependency {
            name: "regex",
            version: REGEX,
            default_features: true,
            features: Vec::new(),
            optional: false,
        });
    }
    // Paths and hand-written query strings, in the runtime's `encode.rs`.
    if files.iter().any(|f| f.path == "encode.rs") {
        wanted.push(Dependency {
            name: "percent-encoding",
            version: PERCENT_ENCODING,
            default_features: true,
            features: Vec::new(),
            optional: false,
        });
    }
    // The runtime's JSON decoder, whose `Error::Decode` names the field that does not fit.
    if files
        .iter()
        .any(|f| f.path == "error.rs" && f.contents.contains("serde_path_to_error::"))
    {
        wanted.push(Dependency {
            name: "serde_path_to_error",
            version: SERDE_PATH_TO_ERROR,
            default_features: true,
            features: Vec::new(),
            optional: false,
        });
    }
    // The server half, behind the crate's `server` feature: its router, the validator
    // its runtime judges requests with, and what the runtime reads requests with
    // (optional twins of the client's own where the client does not have them), and
    // `multer` where the runtime reads multipart bodies.
    if files.iter().any(|f| f.path == "server.rs") {
        for (name, version, default_features) in [
            ("axum", AXUM, true),
            ("jsonschema", JSONSCHEMA, false),
            ("form_urlencoded", FORM_URLENCODED, true),
            ("http-body-util", HTTP_BODY_UTIL, true),
            ("percent-encoding", PERCENT_ENCODING, true),
            ("serde_path_to_error", SERDE_PATH_TO_ERROR, true),
        ]
        .into_iter()
        .chain(
            super::server::reads_forms(api)
                .then_some([
                    ("multer", MULTER, true),
                    ("futures-util", FUTURES_UTIL, false),
                ])
                .into_iter()
                .flatten(),
        ) {
            if wanted.iter().any(|d: &Dependency| d.name == name) {
                continue;
            }
            wanted.push(Dependency {
                name,
                version,
                default_features,
                features: Vec::new(),
                optional: true,
            });
        }
    }
    wanted
}

/// What a crate written by the generator is called and how it is regenerated.
#[derive(Debug, Clone)]
pub struct CrateInfo {
    /// Package name (`trading-api`).
    pub name: String,
    /// The spec as the header and README name it.
    pub spec_name: String,
    /// The command that regenerates the crate, for its README.
    pub command: String,
}

/// The two generated files at the crate's root: `Cargo.toml` and `README.md`, each
/// starting with the generator's marker so that a later run may replace them.
///
/// `example` is the usage example's code ([`crate::Generated::example`]), shown in the
/// README.
pub fn root_files(
    dependencies: &[Dependency],
    info: &CrateInfo,
    example: Option<&str>,
) -> Vec<File> {
    vec![
        File {
            path: "Cargo.toml".to_owned(),
            contents: cargo_toml(dependencies, info),
        },
        File {
            path: "README.md".to_owned(),
            contents: readme(info, example, !client_less(dependencies)),
        },
    ]
}

fn cargo_toml(dependencies: &[Dependency], info: &CrateInfo) -> String {
    let mut out = format!(
        "# @generated by `cargo xtask codegen` from {}. Do not edit.\n\n\
         [package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n",
        info.spec_name, info.name
    );
    for dep in dependencies {
        let mut fields = vec![format!("version = \"{}\"", dep.version)];
        if !dep.default_features {
            fields.push("default-features = false".to_owned());
        }
        if !dep.features.is_empty() {
            let features: Vec<String> = dep.features.iter().map(|f| format!("\"{f}\"")).collect();
            fields.push(format!("features = [{}]", features.join(", ")));
        }
        if dep.optional {
            fields.push("optional = true".to_owned());
        }
        out.push_str(&format!("{} = {{ {} }}\n", dep.name, fields.join(", ")));
    }
    let optional: Vec<&Dependency> = dependencies.iter().filter(|d| d.optional).collect();
    let (server, own): (Vec<&Dependency>, Vec<&Dependency>) = optional
        .iter()
        .partition(|d| SERVER_DEPENDENCIES.contains(&d.name));
    if !optional.is_empty() {
        out.push_str("\n[features]\n");
        for dep in &own {
            out.push_str(&format!("{0} = [\"dep:{0}\"]\n", dep.name));
        }
    }
    if client_less(dependencies) {
        // A crate generated with `--server-only` is its server: on unless turned off.
        out.push_str(&format!("default = [\"{SERVER_FEATURE}\"]\n"));
    }
    if !server.is_empty() {
        // The server decodes requests into the models: it needs their `Deserialize`.
        let deps: Vec<String> =
            std::iter::once(format!("\"{}\"", crate::emit::models::DESERIALIZE_REQUESTS))
                .chain(server.iter().map(|d| format!("\"dep:{}\"", d.name)))
                .collect();
        out.push_str(&format!("{SERVER_FEATURE} = [{}]\n", deps.join(", ")));
    }
    // `Deserialize` for the models only a request holds (see `emit::models`): off by
    // default, since the client only serializes them.
    out.push_str(if optional.is_empty() {
        "\n[features]\n"
    } else {
        ""
    });
    out.push_str(&format!(
        "{} = []\n",
        crate::emit::models::DESERIALIZE_REQUESTS
    ));
    out
}

/// Whether the crate has no client (`--server-only`): what the manifest and the README
/// say follows from its dependencies, which are what the emitted code calls.
fn client_less(dependencies: &[Dependency]) -> bool {
    !dependencies.iter().any(|d| d.name == "reqwest")
}

fn readme(info: &CrateInfo, example: Option<&str>, client: bool) -> String {
    let example = example
        .map(|code| format!("\n{}", crate::emit::example::readme(code, client)))
        .unwrap_or_default();
    let what = if client {
        format!(
            "Typed models and an async `reqwest` client generated from `{}`: `models`\n\
             holds a type per schema, `client::Client` a method per operation, `Error` what\n\
             a call can fail with.",
            info.spec_name
        )
    } else {
        format!(
            "Typed models and an axum server generated from `{}`, without a client:\n\
             `models` holds a type per schema, `server` a typed request and answer per\n\
             operation, the `Api` trait to implement and the `router` that judges every\n\
             request against the spec before `Api` sees it.",
            info.spec_name
        )
    };
    format!(
        "<!-- @generated by `cargo xtask codegen` from {spec}. Do not edit. -->\n\n\
         # {name}\n\n\
         {what}\n{example}\n\
         Every file here is generated (a hand-written file added beside them is left alone).\n\
         Regenerate with, in the generator's repository:\n\n\
         ```sh\n{command}\n```\n",
        spec = info.spec_name,
        name = info.name,
        command = info.command,
        example = example,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(yaml: &str) -> Api {
        let source = spec_model::Source {
            name: "test.yaml".into(),
            text: yaml.into(),
        };
        let spec = spec_model::parse(&source).unwrap();
        crate::lower::lower(&spec).unwrap().0
    }

    fn reqwest_features(yaml: &str) -> Vec<&'static str> {
        dependencies(&api(yaml), &[])
            .into_iter()
            .find(|d| d.name == "reqwest")
            .unwrap()
            .features
    }

    const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n";

    #[test]
    fn reqwest_features_follow_what_the_client_calls() {
        assert_eq!(reqwest_features(&format!("{HEAD}  {{}}\n")), ["rustls"]);
        let query = format!(
            "{HEAD}  /a:\n    get:\n      operationId: a\n      parameters:\n        - {{name: q, in: query, schema: {{type: string}}}}\n      responses: {{'204': {{description: ok}}}}\n"
        );
        assert_eq!(reqwest_features(&query), ["query", "rustls"]);
        // A list joined into the URL by hand needs no `query`.
        let joined = format!(
            "{HEAD}  /a:\n    get:\n      operationId: a\n      parameters:\n        - {{name: q, in: query, explode: false, schema: {{type: array, items: {{type: string}}}}}}\n      responses: {{'204': {{description: ok}}}}\n"
        );
        assert_eq!(reqwest_features(&joined), ["rustls"]);
        // So is an object (here `deepObject`).
        let object = format!(
            "{HEAD}  /a:\n    get:\n      operationId: a\n      parameters:\n        - {{name: q, in: query, style: deepObject, schema: {{type: object, properties: {{k: {{type: string}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n"
        );
        assert_eq!(reqwest_features(&object), ["rustls"]);
        let bodies = format!(
            "{HEAD}  /a:\n    post:\n      operationId: a\n      requestBody: {{content: {{application/json: {{schema: {{type: string}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n  /b:\n    post:\n      operationId: b\n      requestBody: {{content: {{application/x-www-form-urlencoded: {{schema: {{type: object}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n"
        );
        assert_eq!(reqwest_features(&bodies), ["json", "form", "rustls"]);
        let multipart = format!(
            "{HEAD}  /a:\n    post:\n      operationId: a\n      requestBody: {{content: {{multipart/form-data: {{schema: {{type: object, properties: {{f: {{type: string, format: binary}}}}}}}}}}}}\n      responses: {{'204': {{description: ok}}}}\n"
        );
        assert_eq!(reqwest_features(&multipart), ["multipart", "rustls"]);
        // An API key in the query goes through `RequestBuilder::query`.
        let query_key = format!(
            "{HEAD}  /a:\n    get:\n      operationId: a\n      security: [{{k: []}}]\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  securitySchemes:\n    k: {{type: apiKey, in: query, name: key}}\n"
        );
        assert_eq!(reqwest_features(&query_key), ["query", "rustls"]);
    }

    /// The versions written into a generated crate are the ones this workspace compiles
    /// the emitted code with.
    #[test]
    fn versions_match_the_workspace() {
        let root = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml"),
        )
        .unwrap();
        for (name, version) in [
            ("serde", SERDE),
            ("serde_json", SERDE_JSON),
            ("reqwest", REQWEST),
            ("tokio", TOKIO),
            ("httpdate", HTTPDATE),
            ("tracing", TRACING),
            ("chrono", CHRONO),
            ("uuid", UUID),
            ("regex", REGEX),
            ("percent-encoding", PERCENT_ENCODING),
            ("serde_path_to_error", SERDE_PATH_TO_ERROR),
            ("axum", AXUM),
            ("jsonschema", JSONSCHEMA),
            ("form_urlencoded", FORM_URLENCODED),
            ("http-body-util", HTTP_BODY_UTIL),
        ] {
            let line = root
                .lines()
                .find(|l| l.starts_with(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{name} is not a workspace dependency"));
            assert!(
                line.contains(&format!("\"{version}\"")),
                "{name}: the generated crate asks for {version}, the workspace has `{line}`"
            );
        }
    }

    #[test]
    fn the_manifest_is_marked_and_lists_each_dependency() {
        let info = CrateInfo {
            name: "petstore".into(),
            spec_name: "petstore.yaml".into(),
            command: "cargo xtask codegen --spec petstore.yaml --crate petstore".into(),
        };
        let files = root_files(
            &dependencies(&api(&format!("{HEAD}  {{}}\n")), &[]),
            &info,
            None,
        );
        assert_eq!(
            files[0].contents,
            "# @generated by `cargo xtask codegen` from petstore.yaml. Do not edit.\n\n\
             [package]\nname = \"petstore\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\n\
             serde = { version = \"1\", features = [\"derive\"] }\n\
             serde_json = { version = \"1\" }\n\
             reqwest = { version = \"0.13\", default-features = false, features = [\"rustls\"] }\n\
             tokio = { version = \"1.54\", default-features = false, features = [\"time\"] }\n\
             httpdate = { version = \"1\" }\n\
             tracing = { version = \"0.1\", optional = true }\n\
             \n[features]\n\
             tracing = [\"dep:tracing\"]\n\
             deserialize-requests = []\n"
        );
        assert!(files[1].contents.starts_with("<!-- @generated by"));
        assert!(files[1].contents.contains(&info.command));
    }
}

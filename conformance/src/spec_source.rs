//! Where `--spec` reads the spec from: a file, an `http(s)` URL, or standard input (`-`).
//!
//! Most running applications serve their own spec, some only to a caller with the
//! credentials, so a URL is fetched with the run's own headers (`-H`, `--public-header`),
//! `--token` as a bearer token, and its transport options (`--timeout`, `--ca-cert`,
//! `--insecure`, `--proxy`). Without `--base-url`, the target is where the spec says its
//! server is: the first `servers` entry's URL (its `{variables}` given their defaults),
//! resolved against the spec's URL as OpenAPI resolves a relative server URL (`/api`
//! next to `http://host:4200/openapi.json` is `http://host:4200/api`); a spec with no
//! `servers` has OpenAPI's default server `/`, the URL's origin. A spec read from a file
//! or stdin names no place, so it still needs `--base-url`.
//!
//! A fetch that fails is a configuration error in one line naming the URL (a password in
//! it redacted) and the cause: the status, or the transport's error. The answer's body is
//! not shown (a server may echo the credentials), nor is the token.

use std::path::Path;

use reqwest::Url;
use serde_json::Value;

use crate::config;
use crate::error::HarnessError;
use crate::run_config::{Config, Files};
use crate::spec::Spec;
use crate::transport::{Request, Transport};

/// The largest spec fetched: larger than any answer a case reads (large applications
/// serve specs of several MB), still a bound.
pub const MAX_SPEC_BYTES: usize = 64 << 20;

/// Where `--spec` points.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// A spec file.
    File,
    /// An `http://` or `https://` URL.
    Url(Url),
    /// `-`: standard input.
    Stdin,
}

/// Where the `--spec` argument `arg` points: `-` is stdin, an argument starting with
/// `http://` or `https://` (any case) is a URL, anything else a file.
pub fn location(arg: &Path) -> Result<Location, HarnessError> {
    let text = arg.to_string_lossy();
    if text == "-" {
        return Ok(Location::Stdin);
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let url = Url::parse(&text)
            .map_err(|e| HarnessError::Config(format!("--spec {}: {e}", redacted(&text))))?;
        if url.host_str().is_none() {
            return Err(HarnessError::Config(format!(
                "--spec {}: the URL has no host",
                redacted(&text)
            )));
        }
        return Ok(Location::Url(url));
    }
    Ok(Location::File)
}

/// Reads a `--spec` URL or `-` into `config.files.spec_text`, before anything else of the
/// run, and gives a URL's spec's server as the base URL when none was given. A file is
/// left to [`load`].
pub async fn prepare(config: &mut Config) -> Result<(), HarnessError> {
    let Some(arg) = config.files.spec.clone() else {
        return Ok(());
    };
    let place = location(&arg).map_err(|e| match e {
        HarnessError::Config(m) => HarnessError::Config(hide(&m, config)),
        other => other,
    })?;
    match place {
        Location::File => {}
        Location::Stdin => {
            let text = std::io::read_to_string(std::io::stdin()).map_err(|e| {
                HarnessError::Config(format!("--spec -: cannot read standard input: {e}"))
            })?;
            config.files.spec_text = Some(("standard input".into(), text));
        }
        Location::Url(url) => {
            let (text, status, resent) = fetch(&url, config).await?;
            // With `--url-refs` a spec served over HTTP may be split over documents beside
            // it: its relative `$ref`s resolve against its URL.
            let text = if config.files.url_refs {
                let source = spec_model::Source {
                    name: hide(&redacted(url.as_str()), config),
                    text,
                };
                let fetch: spec_model::bundle::Fetch<'_> = &spec_model::fetch::url;
                spec_model::bundle::bundle_with(Path::new(url.as_str()), source, Some(fetch))
                    .map_err(|e| HarnessError::Config(hide(&e.to_string(), config)))?
                    .text
            } else {
                text
            };
            config.files.spec_fetched =
                Some((hide(&redacted(url.as_str()), config), status, resent));
            if config.base_url.is_none() {
                config.base_url = Some(crate::run_config::base_url(
                    server_of(&text, &url).as_str(),
                )?);
            }
            config.files.spec_text = Some((hide(&redacted(url.as_str()), config), text));
        }
    }
    Ok(())
}

/// The spec the run judges against: what [`prepare`] read, else the `--spec` file, else
/// the built-in spec. A spec read from a URL or stdin names where it came from in its
/// identity (the run header shows it).
pub fn load(files: &Files) -> Result<Spec, HarnessError> {
    match (&files.spec_text, &files.spec) {
        (Some((name, text)), _) => {
            let mut spec = Spec::from_source(&spec_model::Source {
                name: name.clone(),
                text: text.clone(),
            })?;
            spec.identity.source = Some(name.clone());
            Ok(spec)
        }
        (None, Some(path)) => match location(path)? {
            Location::File if files.url_refs => {
                Spec::load_with(path, Some(&spec_model::fetch::url))
            }
            Location::File => Spec::load(path),
            // `prepare` reads these; a caller that skipped it gets told, not a file error.
            _ => Err(HarnessError::Config(format!(
                "--spec {}: not read yet",
                redacted(&path.to_string_lossy())
            ))),
        },
        (None, None) => Spec::load_builtin(),
    }
}

/// Fetches the spec at `url` with the run's headers, token and transport options.
async fn fetch(url: &Url, config: &Config) -> Result<(String, u16, usize), HarnessError> {
    let shown = hide(&redacted(url.as_str()), config);
    let transport = Transport::with_options(
        config.transport.timeout,
        &config::transport_options(&config.transport)?,
    )?
    .with_max_body(MAX_SPEC_BYTES);
    // An app in this process serves its own spec at `http://in-process/…`.
    let transport = match &config.transport.in_process {
        Some(app) if url.as_str().starts_with(crate::in_process::ORIGIN) => {
            transport.with_in_process(app.clone())
        }
        _ => transport,
    };
    let mut headers = vec![(
        "accept".to_string(),
        "application/json, application/yaml;q=0.9, */*;q=0.5".to_string(),
    )];
    if let Some(token) = &config.credentials.token {
        headers.push(("authorization".into(), format!("Bearer {token}")));
    }
    let request = Request {
        method: reqwest::Method::GET,
        url: url.clone(),
        headers,
        body: None,
    };
    let answer = transport
        .send(&request)
        .await
        .map_err(|e| HarnessError::Config(format!("--spec {shown}: cannot fetch the spec: {e}")))?;
    if !(200..300).contains(&answer.status) {
        let credentials = if config.credentials.token.is_some() {
            "sent with the bearer token"
        } else {
            "sent without a token: a server that serves its spec only to a caller with credentials needs --token or -H"
        };
        return Err(HarnessError::Config(format!(
            "--spec {shown}: cannot fetch the spec: the server answered {} ({credentials})",
            answer.status
        )));
    }
    let (status, resent) = (answer.status, answer.retries);
    let text = String::from_utf8(answer.body).map_err(|_| {
        HarnessError::Config(format!(
            "--spec {shown}: the answer is not UTF-8 text, so not an OpenAPI document"
        ))
    })?;
    Ok((text, status, resent))
}

/// The server a spec fetched from `url` names: its first `servers` URL with its
/// variables' defaults, resolved against `url`; the URL's origin when it names none (or
/// one that cannot be read).
pub fn server_of(text: &str, url: &Url) -> Url {
    let origin = || {
        let mut o = url.clone();
        o.set_path("/");
        o.set_query(None);
        o.set_fragment(None);
        o
    };
    let doc: Value = match serde_yaml::from_str(text) {
        Ok(d) => d,
        Err(_) => return origin(),
    };
    let Some(server) = doc.get("servers").and_then(|s| s.get(0)) else {
        return origin();
    };
    let Some(mut given) = server.get("url").and_then(Value::as_str).map(str::to_owned) else {
        return origin();
    };
    if let Some(vars) = server.get("variables").and_then(Value::as_object) {
        for (name, v) in vars {
            if let Some(d) = v.get("default").and_then(Value::as_str) {
                given = given.replace(&format!("{{{name}}}"), d);
            }
        }
    }
    url.join(&given).unwrap_or_else(|_| origin())
}

/// `text` (a spec URL, or a message naming it) with the run's credentials replaced: the
/// `--token` by `$TOKEN` and each secret `-H` value by `$NAME` ([`crate::redact`]'s
/// placeholders, as the reports show them), for a URL that carries one in its query.
fn hide(text: &str, config: &Config) -> String {
    let mut secrets = crate::redact::Secrets::new(Default::default());
    if let Some(t) = &config.credentials.token {
        secrets.add(t, "$TOKEN");
    }
    for (name, value) in &config.transport.headers {
        secrets.add_header(name, value, true);
    }
    secrets.redact_in_url(text)
}

/// `url` with the password of its userinfo, if any, shown as `<redacted>`; read as text,
/// so that a URL too malformed to parse does not show its password either.
pub fn redacted(url: &str) -> String {
    let Some(start) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    let authority = &url[start..end];
    let Some(at) = authority.rfind('@') else {
        return url.to_string();
    };
    match authority[..at].find(':') {
        Some(colon) => format!(
            "{}{}:<redacted>{}",
            &url[..start],
            &authority[..colon],
            &url[start + at..]
        ),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    /// A spec file whose schema is a `$ref` to a URL (a server on a loopback port) is
    /// read with `--url-refs`, and refused without it, naming the flag.
    #[test]
    fn a_url_ref_is_fetched_only_with_url_refs() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Some(Ok(mut socket)) = listener.incoming().next() {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf);
                let body = "type: object\nproperties:\n  name: {type: string}\n";
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                socket.write_all(answer.as_bytes()).unwrap();
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        std::fs::write(
            &path,
            format!(
                "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /pets:\n    get:\n      operationId: getPet\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{$ref: 'http://{addr}/Pet.yaml'}}\n"
            ),
        )
        .unwrap();
        let mut files = Files {
            spec: Some(path),
            ..Files::default()
        };
        let spec = match load(&files) {
            Ok(spec) => panic!("read without --url-refs: {:?}", spec.identity),
            Err(e) => e.to_string(),
        };
        assert!(spec.contains("--url-refs"), "{spec}");
        files.url_refs = true;
        let spec = load(&files).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            spec.doc
                .pointer("/components/schemas/Pet/properties/name")
                .is_some(),
            "the fetched schema is a component: {:?}",
            spec.doc.get("components")
        );
    }

    #[test]
    fn the_servers_url_is_resolved_against_the_specs_url() {
        let at = url("http://127.0.0.1:4200/api/openapi.json?x=1");
        let relative = "openapi: 3.1.0\nservers: [{url: /api}]\n";
        assert_eq!(
            server_of(relative, &at).as_str(),
            "http://127.0.0.1:4200/api"
        );
        let beside = "openapi: 3.1.0\nservers: [{url: v2}]\n";
        assert_eq!(
            server_of(beside, &at).as_str(),
            "http://127.0.0.1:4200/api/v2"
        );
        let absolute = r#"{"openapi": "3.0.3", "servers": [{"url": "https://{region}.example.test/v1", "variables": {"region": {"default": "eu"}}}]}"#;
        assert_eq!(
            server_of(absolute, &at).as_str(),
            "https://eu.example.test/v1"
        );
        // No `servers`: OpenAPI's default `/`, the origin.
        assert_eq!(
            server_of("openapi: 3.1.0\n", &at).as_str(),
            "http://127.0.0.1:4200/"
        );
    }

    #[test]
    fn the_spec_argument_is_a_file_a_url_or_stdin() {
        assert_eq!(location(Path::new("-")).unwrap(), Location::Stdin);
        assert_eq!(
            location(Path::new("spec/openapi.yaml")).unwrap(),
            Location::File
        );
        assert_eq!(
            location(Path::new("HTTPS://host/openapi.json")).unwrap(),
            Location::Url(url("https://host/openapi.json"))
        );
        let err = location(Path::new("http://user:hunter2@/x")).unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }

    #[test]
    fn a_credential_in_the_url_is_not_shown() {
        let mut args = crate::cli::Args::defaults();
        args.token = Some("tok-5ecret".into());
        args.headers = vec![("x-api-key".into(), "key-5ecret".into())];
        let config = Config::from_args(&args).unwrap();
        assert_eq!(
            hide("http://h/openapi.json?t=tok-5ecret&k=key-5ecret", &config),
            "http://h/openapi.json?t=$TOKEN&k=$X_API_KEY"
        );
    }

    #[test]
    fn a_password_in_the_url_is_not_shown() {
        assert_eq!(
            redacted("https://me:hunter2@host/openapi.json"),
            "https://me:<redacted>@host/openapi.json"
        );
        assert_eq!(redacted("http://host/x"), "http://host/x");
    }
}

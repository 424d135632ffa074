//! `cargo xtask codegen [--check]`: regenerate `generated/src` from `spec/openapi.yaml`,
//! or (with `--check`) verify it is current without writing anything. `--crate DIR`
//! writes a whole crate instead (manifest, README and sources) that builds on its own,
//! outside this workspace.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub struct Args {
    /// Compare only: write nothing, exit 1 naming each stale file.
    #[arg(long)]
    check: bool,
    /// The spec to generate from (relative to the repository root).
    #[arg(long, default_value = "spec/openapi.yaml")]
    spec: PathBuf,
    /// The directory that receives the sources (relative to the repository root).
    #[arg(long, default_value = "generated/src")]
    out: PathBuf,
    /// Write a complete crate into DIR (relative to the repository root): `Cargo.toml`
    /// with the dependencies the code needs, `README.md` and `src/`.
    #[arg(long = "crate", value_name = "DIR", conflicts_with = "out")]
    crate_dir: Option<PathBuf>,
    /// The package name of the crate (default: the `--crate` directory's name; with
    /// `--out`, the `[package]` name of the `Cargo.toml` beside the `--out` directory).
    /// The crate's usage example (its root rustdoc's doctest) names the crate by it.
    #[arg(long)]
    name: Option<String>,
    /// Refuse the spec (exit 2, nothing written) when generation has any warning whose
    /// kind `--allow-warning` does not name.
    #[arg(long)]
    deny_warnings: bool,
    /// With `--deny-warnings`, accept the warnings of this kind (repeatable; the kinds:
    /// `--list-warning-kinds`).
    #[arg(
        long = "allow-warning",
        value_name = "KIND",
        requires = "deny_warnings"
    )]
    allow_warning: Vec<String>,
    /// Print every warning kind with what it is about, and exit.
    #[arg(long)]
    list_warning_kinds: bool,
    /// Write the spec as one file to OUT (relative to the repository root), every other
    /// file its `$ref`s name brought in, and exit without generating (as `redocly bundle`).
    #[arg(long, value_name = "OUT", conflicts_with_all = ["check", "crate_dir"])]
    bundle: Option<PathBuf>,
    /// Fetch a `$ref` to an `http(s)` URL (and the relative ones inside what it fetches)
    /// instead of refusing it: the spec then reads what the network says at each run.
    #[arg(long)]
    url_refs: bool,
    /// Read a schema `$ref` that points at nothing as any JSON value
    /// (`serde_json::Value`), with a warning each, instead of refusing the spec.
    #[arg(long)]
    dangling_refs_as_any: bool,
    /// Keep `format: date-time`, `date` and `uuid` strings as `String` instead of
    /// `chrono` and `uuid` types (and the crate without those dependencies).
    #[arg(long)]
    string_formats: bool,
    /// Decode answers tolerantly: a number where a string is declared, a string holding
    /// exactly a number where one is declared, `null` in a field with a default, a
    /// date-time without its UTC offset (read as UTC).
    #[arg(long)]
    tolerant: bool,
    /// Generate the server half too: a `server` module (behind the crate feature
    /// `server`) with a typed request and answer per operation, `trait Api` and an axum
    /// `router(api)` that judges every request against the spec. With `--out`, also
    /// when the `Cargo.toml` beside the directory declares a `server` feature: the crate
    /// says what it holds, so a plain regeneration keeps its server.
    #[arg(long)]
    server: bool,
    /// Generate the server half alone: the models and the server, no client (no
    /// `reqwest`, no client runtime), the `server` feature on by default. For a service
    /// whose clients are built elsewhere.
    #[arg(long)]
    server_only: bool,
}

/// The repository root: xtask's manifest directory's parent.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// Whether `name` is a package name cargo takes: ASCII letters, digits, `-` and `_`,
/// not starting with a digit.
fn valid_package_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The package name of the crate being written: `--name`, else the `--crate` directory's
/// name, else (with `--out`) the `[package]` name of the `Cargo.toml` beside the `--out`
/// directory, if there is one. A name cargo would refuse is an error.
fn package_name(args: &Args, root: &Path) -> Result<Option<String>, String> {
    let name = match (&args.name, &args.crate_dir) {
        (Some(name), _) => Some(name.clone()),
        (None, Some(dir)) => Some(
            root.join(dir)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned(),
        ),
        (None, None) => root
            .join(&args.out)
            .parent()
            .and_then(|dir| std::fs::read_to_string(dir.join("Cargo.toml")).ok())
            .and_then(|manifest| manifest_package_name(&manifest)),
    };
    match name {
        Some(name) if !valid_package_name(&name) => Err(format!(
            "`{name}` is not a package name (letters, digits, `-`, `_`): give one with --name"
        )),
        name => Ok(name),
    }
}

/// Whether the manifest beside `--out` (no `--crate`) declares a `server` feature in its
/// `[features]` table.
fn out_declares_server(args: &Args, root: &Path) -> bool {
    if args.crate_dir.is_some() {
        return false;
    }
    let Some(manifest) = root
        .join(&args.out)
        .parent()
        .and_then(|dir| std::fs::read_to_string(dir.join("Cargo.toml")).ok())
    else {
        return false;
    };
    let mut in_features = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        if in_features
            && line
                .strip_prefix("server")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return true;
        }
    }
    false
}

/// The `name` of a manifest's `[package]` table, as written on one line
/// (`name = "trading-api"`): what `cargo new` and this generator write.
fn manifest_package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        if let Some(value) = line.strip_prefix("name").map(str::trim_start)
            && let Some(value) = value.strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_owned());
        }
    }
    None
}

/// Where the files go: `(directory, files)` pairs, all checked before any is written.
type Plan = Vec<(PathBuf, Vec<codegen::File>)>;

/// The crate's root files beside its sources, or the sources alone.
fn plan(args: &Args, root: &Path, generated: codegen::Generated) -> Result<Plan, String> {
    let Some(dir) = &args.crate_dir else {
        return Ok(vec![(root.join(&args.out), generated.files)]);
    };
    let crate_dir = root.join(dir);
    let name = package_name(args, root)?.unwrap_or_default();
    let info = codegen::CrateInfo {
        command: format!(
            "cargo xtask codegen --spec {} --crate {} --name {name}",
            args.spec.display(),
            dir.display()
        ),
        name,
        spec_name: args.spec.display().to_string(),
    };
    let root_files =
        codegen::root_files(&generated.dependencies, &info, generated.example.as_deref());
    Ok(vec![
        (crate_dir.join("src"), generated.files),
        (crate_dir, root_files),
    ])
}

/// Runs the subcommand: exit 0 when done (or current), 1 when `--check` finds stale
/// files, 2 when the spec cannot be generated (or has warnings under
/// `--deny-warnings`) or files cannot be written.
pub fn run(args: Args) -> ExitCode {
    if args.list_warning_kinds {
        for kind in codegen::WarningKind::ALL {
            println!("{kind:<24} {}", kind.description());
        }
        return ExitCode::SUCCESS;
    }
    let allowed = match allowed_kinds(&args) {
        Ok(allowed) => allowed,
        Err(code) => return code,
    };
    let root = root();
    let spec = root.join(&args.spec);
    let header_name = args.spec.display().to_string();
    let text = match bundled_text(&spec, &header_name, args.url_refs) {
        Ok(text) => text,
        Err(code) => return code,
    };
    if let Some(out) = &args.bundle {
        let out = root.join(out);
        return match std::fs::write(&out, &text) {
            Ok(()) => {
                println!("wrote {}", out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", out.display());
                ExitCode::from(2)
            }
        };
    }
    let generated = match generate(&args, &header_name, &text, &allowed) {
        Ok(generated) => generated,
        Err(code) => return code,
    };
    let plan = match plan(&args, &root, generated) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    sync_plan(&args, &root, &plan)
}

/// The warning kinds `--allow-warning` names; an unknown name is an error (exit 2).
fn allowed_kinds(args: &Args) -> Result<Vec<codegen::WarningKind>, ExitCode> {
    let mut allowed = Vec::new();
    for name in &args.allow_warning {
        match codegen::WarningKind::from_name(name) {
            Some(kind) => allowed.push(kind),
            None => {
                eprintln!(
                    "error: --allow-warning {name}: no such warning kind (the kinds: {})",
                    codegen::WarningKind::ALL
                        .iter()
                        .map(|k| k.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return Err(ExitCode::from(2));
            }
        }
    }
    Ok(allowed)
}

/// The text of the spec at `spec`, with the files its `$ref`s name brought in (a spec
/// split over files is read as one); unreadable or unbundlable is an error (exit 2).
fn bundled_text(spec: &Path, header_name: &str, url_refs: bool) -> Result<String, ExitCode> {
    let text = match std::fs::read_to_string(spec) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", spec.display());
            return Err(ExitCode::from(2));
        }
    };
    // A spec split over files is read as one: the files its `$ref`s name brought in.
    let source = spec_model::Source {
        name: header_name.to_string(),
        text,
    };
    let fetch: Option<spec_model::bundle::Fetch<'_>> = url_refs.then_some(&spec_model::fetch::url);
    match spec_model::bundle::bundle_with(spec, source, fetch) {
        Ok(bundled) => Ok(bundled.text),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Generates the crate's files from the spec's `text`, printing the warnings; a spec that
/// cannot be generated, or warnings of kinds not `allowed` under `--deny-warnings`, are
/// an error (exit 2).
fn generate(
    args: &Args,
    header_name: &str,
    text: &str,
    allowed: &[codegen::WarningKind],
) -> Result<codegen::Generated, ExitCode> {
    // Errors name the spec as given, relative to the repository root.
    let crate_name = match package_name(args, &root()) {
        Ok(name) => name,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    if crate_name.is_none() {
        eprintln!(
            "note: no package name for the sources in {} (no Cargo.toml beside them; give \
             --name): the crate's root rustdoc gets no usage example",
            args.out.display()
        );
    }
    let options = codegen::Options {
        dangling_refs_as_any: args.dangling_refs_as_any,
        string_formats: args.string_formats,
        tolerant: args.tolerant,
        crate_name,
        server: args.server || args.server_only || out_declares_server(args, &root()),
        server_only: args.server_only,
    };
    let generated = match codegen::generate_str_with(header_name, text, header_name, &options) {
        Ok(generated) => generated,
        // Several problems found together (every dangling `$ref`): one line each.
        Err(codegen::Error::Specs(problems)) => {
            for problem in &problems {
                eprintln!("error: {problem}");
            }
            return Err(ExitCode::from(2));
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    for warning in &generated.warnings {
        eprintln!("warning: {warning} [{}]", warning.kind);
    }
    if let Some(summary) = generated.summary() {
        eprintln!("warning: {summary}");
    }
    let denied = generated.denied(allowed);
    if args.deny_warnings && !denied.is_empty() {
        let mut kinds: Vec<&str> = denied.iter().map(|w| w.kind.name()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        eprintln!(
            "error: {} generation warning(s) of kinds not allowed ({}) and --deny-warnings: \
             nothing written (accept a kind with --allow-warning KIND)",
            denied.len(),
            kinds.join(", ")
        );
        return Err(ExitCode::from(2));
    }
    Ok(generated)
}

/// Compares every directory of `plan` with what is there, then (unless `--check`) writes
/// it: exit 1 when `--check` finds stale files, 2 when a directory cannot be read or
/// written.
fn sync_plan(args: &Args, root: &Path, plan: &Plan) -> ExitCode {
    // Every directory is compared first, so a hand-written file in any of them stops the
    // run before anything is written.
    let mut report = codegen::SyncReport::default();
    for (dir, files) in plan {
        match codegen::sync(dir, files, codegen::Mode::Check) {
            Ok(r) => {
                report.changed.extend(r.changed);
                report.extra.extend(r.extra);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    if args.check {
        if report.is_clean() {
            return ExitCode::SUCCESS;
        }
        for path in &report.changed {
            eprintln!("stale: {}", shown(path));
        }
        for path in &report.extra {
            eprintln!("no longer generated: {}", shown(path));
        }
        eprintln!("generated code is out of date: run `cargo xtask codegen` and commit");
        return ExitCode::from(1);
    }
    let notice = (!report.is_clean())
        .then(|| api_break(plan, &report))
        .flatten();
    for (dir, files) in plan {
        if let Err(e) = codegen::sync(dir, files, codegen::Mode::Write) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    for path in &report.changed {
        println!("wrote {}", shown(path));
    }
    for path in &report.extra {
        println!("removed {}", shown(path));
    }
    if report.is_clean() {
        let target = args.crate_dir.as_ref().unwrap_or(&args.out);
        println!("{} is up to date", shown(&root.join(target)));
    }
    if let Some(notice) = notice {
        println!("{notice}");
    }
    ExitCode::SUCCESS
}

/// One line when the sources about to be written break the public API of the Rust files
/// they replace (or remove) in a semver-major way (`spec_diff::surface`, the rules of
/// `cargo xtask diff`); `None` when nothing was there before, nothing breaks, or the old
/// files cannot be read as Rust (then there is no API to compare with).
fn api_break(plan: &Plan, report: &codegen::SyncReport) -> Option<String> {
    let mut old: Vec<(String, String)> = Vec::new();
    let mut new: Vec<(String, String)> = Vec::new();
    for (dir, files) in plan {
        for f in files.iter().filter(|f| f.path.ends_with(".rs")) {
            new.push((f.path.clone(), f.contents.clone()));
            if let Ok(text) = std::fs::read_to_string(dir.join(&f.path)) {
                old.push((f.path.clone(), text));
            }
        }
    }
    for path in report
        .extra
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        if let (Some(name), Ok(text)) = (path.file_name(), std::fs::read_to_string(path)) {
            old.push((name.to_string_lossy().into_owned(), text));
        }
    }
    if old.is_empty() {
        return None;
    }
    let majors = spec_diff::surface::major_changes(
        old.iter().map(|(p, c)| (p.as_str(), c.as_str())),
        new.iter().map(|(p, c)| (p.as_str(), c.as_str())),
    )
    .ok()?;
    let (_, _, first) = majors.first()?;
    Some(format!(
        "public API: {} semver-major change(s) since the files replaced (first: {first}); \
         the crate needs a major version bump (details: cargo xtask diff OLD-SPEC NEW-SPEC)",
        majors.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-codegen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn args(spec: &str, out: &Path, check: bool) -> Args {
        Args {
            check,
            spec: PathBuf::from(spec),
            out: out.to_owned(),
            crate_dir: None,
            name: None,
            deny_warnings: false,
            allow_warning: Vec::new(),
            list_warning_kinds: false,
            bundle: None,
            url_refs: false,
            dangling_refs_as_any: false,
            string_formats: false,
            tolerant: false,
            server: false,
            server_only: false,
        }
    }

    #[test]
    fn a_bad_spec_exits_2_and_writes_nothing() {
        let out = scratch("bad");
        std::fs::write(out.join("models.rs"), "untouched").unwrap();
        let code = run(args(
            "codegen/tests/specs/bad/missing_ref.yaml",
            &out,
            false,
        ));
        assert_eq!(code, ExitCode::from(2));
        let names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["models.rs"]);
        assert_eq!(
            std::fs::read_to_string(out.join("models.rs")).unwrap(),
            "untouched"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn check_fails_on_stale_output_and_passes_after_writing() {
        let out = scratch("check");
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::from(1)
        );
        assert!(
            std::fs::read_dir(&out).unwrap().next().is_none(),
            "check mode writes nothing"
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::SUCCESS
        );
        // A hand-written file beside the generated ones is left alone ...
        std::fs::write(out.join("helpers.rs"), "pub fn mine() {}").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert!(
            out.join("helpers.rs").exists(),
            "a hand-written file was removed"
        );
        // ... while a generated file no longer emitted is stale, then removed.
        std::fs::write(out.join("stray.rs"), "// @generated by an older run\n").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, true)),
            ExitCode::from(1)
        );
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::SUCCESS
        );
        assert!(!out.join("stray.rs").exists());
        // A hand-written file where a generated one goes: exit 2, nothing written.
        std::fs::write(out.join("lib.rs"), "pub fn mine() {}").unwrap();
        assert_eq!(
            run(args("spec/openapi.yaml", &out, false)),
            ExitCode::from(2)
        );
        assert_eq!(
            std::fs::read_to_string(out.join("lib.rs")).unwrap(),
            "pub fn mine() {}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }

    /// `--bundle OUT` writes the split spec as one file, which generates the crate the
    /// split spec does, and writes nothing else.
    #[test]
    fn bundle_writes_a_split_spec_as_one_file() {
        let dir = scratch("bundle");
        let out = dir.join("bundle.json");
        let mut bundling = args(
            "codegen/tests/specs/multi_file/openapi.yaml",
            &dir.join("src"),
            false,
        );
        bundling.bundle = Some(out.clone());
        assert_eq!(run(bundling), ExitCode::SUCCESS);
        assert!(!dir.join("src").exists(), "nothing generated");
        let text = std::fs::read_to_string(&out).unwrap();
        let one = codegen::generate_str("b.json", &text, "pets.yaml").unwrap();
        let split = codegen::generate_file(
            &root().join("codegen/tests/specs/multi_file/openapi.yaml"),
            "pets.yaml",
        )
        .unwrap();
        assert_eq!(
            one.files.iter().map(|f| &f.contents).collect::<Vec<_>>(),
            split.files.iter().map(|f| &f.contents).collect::<Vec<_>>()
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// `--url-refs` fetches a `$ref` to a URL (here a server on a loopback port) and
    /// generates; without it the spec is refused naming the flag, and nothing is written.
    #[test]
    fn url_refs_fetches_a_schema_from_a_url_only_when_asked() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for socket in listener.incoming().take(2) {
                let mut socket = socket.unwrap();
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf);
                let body = "type: object\nproperties:\n  name: {type: string}\n";
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                socket
                    .write_all(format!("{head}{body}").as_bytes())
                    .unwrap();
            }
        });
        let dir = scratch("url-refs");
        let spec = dir.join("spec.yaml");
        std::fs::write(
            &spec,
            format!(
                "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /pets:\n    get:\n      operationId: getPet\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {{$ref: 'http://{addr}/schemas/Pet.yaml'}}\n"
            ),
        )
        .unwrap();
        let out = dir.join("src");
        let refused = run(args(spec.to_str().unwrap(), &out, false));
        assert_eq!(refused, ExitCode::from(2));
        assert!(!out.exists(), "nothing written");
        let mut asked = args(spec.to_str().unwrap(), &out, false);
        asked.url_refs = true;
        assert_eq!(run(asked), ExitCode::SUCCESS);
        let models = std::fs::read_to_string(out.join("models.rs")).unwrap();
        assert!(models.contains("pub struct Pet"), "{models}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn dangling_refs_as_any_goes_on_with_a_spec_that_refs_nothing() {
        let spec = "codegen/tests/specs/bad/dangling_refs.yaml";
        let out = scratch("dangling");
        // The parameter's `$ref` leads nowhere either, and a parameter cannot be "any
        // value": still refused, nothing written.
        let mut going_on = args(spec, &out, false);
        going_on.dangling_refs_as_any = true;
        assert_eq!(run(going_on), ExitCode::from(2));
        assert!(std::fs::read_dir(&out).unwrap().next().is_none());
        // Only schema references dangle here: refused by default, generated on request.
        let spec = "codegen/tests/specs/options/dangling_refs.yaml";
        assert_eq!(run(args(spec, &out, false)), ExitCode::from(2));
        assert!(std::fs::read_dir(&out).unwrap().next().is_none());
        let mut going_on = args(spec, &out, false);
        going_on.dangling_refs_as_any = true;
        assert_eq!(run(going_on), ExitCode::SUCCESS);
        assert!(out.join("models.rs").is_file());
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn string_formats_keeps_strings() {
        let spec = "codegen/tests/specs/string_formats.yaml";
        let out = scratch("formats");
        assert_eq!(run(args(spec, &out, false)), ExitCode::SUCCESS);
        let typed = std::fs::read_to_string(out.join("models.rs")).unwrap();
        assert!(typed.contains("pub id: uuid::Uuid,"), "{typed}");
        let mut strings = args(spec, &out, false);
        strings.string_formats = true;
        assert_eq!(run(strings), ExitCode::SUCCESS);
        let kept = std::fs::read_to_string(out.join("models.rs")).unwrap();
        assert!(kept.contains("pub id: String,"), "{kept}");
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn warnings_are_printed_and_deny_warnings_refuses_them() {
        let spec = "codegen/tests/specs/warn/unknown_format.yaml";
        let out = scratch("deny");
        let mut denying = args(spec, &out, false);
        denying.deny_warnings = true;
        assert_eq!(run(denying), ExitCode::from(2));
        assert!(
            std::fs::read_dir(&out).unwrap().next().is_none(),
            "--deny-warnings wrote files"
        );
        assert_eq!(run(args(spec, &out, false)), ExitCode::SUCCESS);
        assert!(out.join("models.rs").is_file());
        std::fs::remove_dir_all(&out).unwrap();
    }

    /// `--allow-warning KIND` accepts that kind under `--deny-warnings` and nothing else;
    /// an unknown kind is an error before anything is read.
    #[test]
    fn allow_warning_accepts_its_kind_only() {
        // `unknown_format.yaml` warns once, of kind `unknown-format`.
        let spec = "codegen/tests/specs/warn/unknown_format.yaml";
        let allowing = |kinds: &[&str], out: &Path| Args {
            deny_warnings: true,
            allow_warning: kinds.iter().map(|k| (*k).to_owned()).collect(),
            ..args(spec, out, false)
        };

        let out = scratch("allow-other");
        assert_eq!(
            run(allowing(&["free-form-object"], &out)),
            ExitCode::from(2)
        );
        assert!(
            std::fs::read_dir(&out).unwrap().next().is_none(),
            "a warning of a kind not allowed wrote files"
        );

        let out_unknown = scratch("allow-unknown");
        assert_eq!(
            run(allowing(&["unknown-format", "no-such-kind"], &out_unknown)),
            ExitCode::from(2)
        );
        assert!(std::fs::read_dir(&out_unknown).unwrap().next().is_none());
        std::fs::remove_dir_all(&out_unknown).unwrap();

        assert_eq!(
            run(allowing(&["free-form-object", "unknown-format"], &out)),
            ExitCode::SUCCESS
        );
        assert!(out.join("models.rs").is_file());
        std::fs::remove_dir_all(&out).unwrap();
    }

    fn crate_args(dir: &Path, check: bool) -> Args {
        Args {
            crate_dir: Some(dir.to_owned()),
            name: Some("optional-required".to_owned()),
            ..args(
                "codegen/tests/specs/optional_required.yaml",
                Path::new("unused"),
                check,
            )
        }
    }

    /// `--crate` writes a crate that builds on its own: checked here outside this
    /// workspace (a directory under the system's temporary directory), offline, with
    /// warnings denied. The workspace's `Cargo.lock` is copied in only so that the
    /// dependencies already downloaded and built for the workspace are the ones chosen.
    #[test]
    fn a_crate_builds_on_its_own_outside_the_workspace() {
        let dir = scratch("crate").join("optional-required");
        assert_eq!(run(crate_args(&dir, false)), ExitCode::SUCCESS);
        let mut names: Vec<String> = walk(&dir);
        names.sort();
        assert_eq!(
            names,
            [
                "Cargo.toml",
                "README.md",
                "src/client.rs",
                // The runtime's encoders: the spec has path parameters.
                "src/encode.rs",
                "src/error.rs",
                "src/lib.rs",
                "src/models.rs"
            ]
        );
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("name = \"optional-required\""),
            "{manifest}"
        );
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(readme.contains(&format!(
            "cargo xtask codegen --spec codegen/tests/specs/optional_required.yaml --crate {} --name optional-required",
            dir.display()
        )));
        assert_eq!(run(crate_args(&dir, true)), ExitCode::SUCCESS);

        std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target"))
            .join("generated-check");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = std::process::Command::new(cargo)
            .args(["check", "--offline", "--message-format", "short"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            // Throwaway builds, built once: no debug information and no incremental cache,
            // which were most of their size on disk (the caches 12 of `generated-check`'s
            // 14 GB in a clean `.ci/run`).
            .env("CARGO_PROFILE_DEV_DEBUG", "false")
            .env("CARGO_INCREMENTAL", "0")
            .env("RUSTFLAGS", "-Dwarnings")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "the written crate does not build on its own:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );

        // A hand-written manifest is never replaced: exit 2, and no source written.
        std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"mine\"\n").unwrap();
        std::fs::remove_file(dir.join("src/models.rs")).unwrap();
        assert_eq!(run(crate_args(&dir, false)), ExitCode::from(2));
        assert!(!dir.join("src/models.rs").exists(), "wrote before refusing");
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    /// The files under `dir`, relative to it, leaving out what cargo adds.
    fn walk(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let sub = path.file_name().unwrap().to_str().unwrap().to_owned();
                found.extend(walk(&path).into_iter().map(|f| format!("{sub}/{f}")));
            } else {
                found.push(path.file_name().unwrap().to_str().unwrap().to_owned());
            }
        }
        found
    }

    /// The notice of `cargo xtask codegen` when the regenerated sources break the API of
    /// the ones they replace: one line for a removed operation, none for an enum value added.
    #[test]
    fn a_major_api_change_is_noticed_in_one_line() {
        let out = scratch("major");
        let pair = |name: &str, side: &str| format!("spec-diff/tests/pairs/{name}/{side}.yaml");
        let notice = |name: &str| {
            assert_eq!(
                run(args(&pair(name, "old"), &out, false)),
                ExitCode::SUCCESS
            );
            let next = args(&pair(name, "new"), &out, false);
            let generated = codegen::generate_file(&root().join(&next.spec), "x").unwrap();
            let plan = plan(&next, &root(), generated).unwrap();
            let report = codegen::sync(&plan[0].0, &plan[0].1, codegen::Mode::Check).unwrap();
            api_break(&plan, &report)
        };
        let line = notice("api-removed-without-deprecation").expect("a notice");
        assert!(
            line.contains("semver-major") && !line.contains('\n'),
            "{line}"
        );
        assert!(
            line.contains("get_pet") || line.contains("GetPet"),
            "{line}"
        );
        assert_eq!(notice("rust-variant-added-non-exhaustive"), None);
        std::fs::remove_dir_all(&out).unwrap();
    }
}

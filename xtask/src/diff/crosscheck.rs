//! `cargo xtask diff --cross-check`: the verdicts of `cargo xtask diff` on every focused
//! pair (`spec-diff/tests/pairs/`) against two tools nobody here wrote, both installed
//! into `target/tools/`: cargo-semver-checks on the two crates `cargo xtask codegen`
//! generates from the pair (major or not), and Redocly CLI's `diff` on the two specs
//! (its bump `major` or not).
//!
//! Our Rust verdict is major when any Rust finding is; our wire verdict is "breaking" when
//! a wire finding at ERR or WARN affects someone (requests refused or answers unreadable),
//! which is what Redocly rates major. A pair where a verdict differs must be listed in
//! [`KNOWN`] with the reason the tools define the change differently; an unlisted
//! difference, a listed pair that agrees, or a tool that cannot run fails the step.

use std::path::{Path, PathBuf};
use std::process::Command;

use spec_diff::rules::{Kind, Level, Semver, Wire};

/// Pinned versions of the outside tools.
const SEMVER_CHECKS: &str = "0.51.0";
const REDOCLY: &str = "@redocly/cli@2.77.0";

/// Which tool disagrees on a pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tool {
    SemverChecks,
    Redocly,
}

/// The reason of a pair that changes a type: cargo-semver-checks compares items, fields,
/// variants, impls and arities, but not the types in signatures, fields and aliases.
macro_rules! types {
    ($what:literal) => {
        concat!(
            "cargo-semver-checks has no type-changed lints yet (its issues #148 and #149); ",
            "a public field, argument, return value or alias of another type breaks code ",
            "that uses it (major), and here ",
            $what
        )
    };
}

/// Pairs where a tool's verdict differs from ours, and why the two define the change
/// differently.
#[rustfmt::skip]
const KNOWN: &[(&str, Tool, &str)] = &[
    ("request-body-became-required", Tool::SemverChecks, types!("the body argument of create_pet goes from Option<&NewPet> to &NewPet")),
    ("request-parameter-became-optional", Tool::SemverChecks, types!("an argument of list_pets goes from a value to an Option")),
    ("request-parameter-became-required", Tool::SemverChecks, types!("an argument of list_pets goes from an Option to a value")),
    ("request-type-changed", Tool::SemverChecks, types!("NewPet's age goes from Option<i64> to Option<String>")),
    ("request-type-widened", Tool::SemverChecks, types!("NewPet's age goes from Option<i64> to Option<f64>")),
    ("response-became-nullable", Tool::SemverChecks, types!("Pet's name goes from String to Option<String>")),
    ("response-property-became-optional", Tool::SemverChecks, types!("Pet's name goes from String to Option<String>")),
    ("response-success-status-removed", Tool::SemverChecks, types!("get_pet's success type goes from Pet to ()")),
    ("response-type-changed", Tool::SemverChecks, types!("Pet's id goes from i64 to String")),
    ("rust-alias-changed", Tool::SemverChecks, types!("the alias Tags goes from Vec<String> to Vec<i64>")),
    ("rust-field-type-changed", Tool::SemverChecks, types!("Pet's tag goes from Option<String> to Option<i64>")),
    ("rust-trait-impl-added", Tool::SemverChecks, types!("Shelter's city goes from String to Option<String> (the Default derive it gains is minor)")),
    ("rust-trait-impl-removed", Tool::SemverChecks, types!("Shelter's city goes from Option<String> to String; the Default derive it loses is not reported either (run by hand with --release-type patch: every lint passes), though code that relied on Default no longer compiles")),
    ("rust-variant-changed", Tool::SemverChecks, types!("the NotFound variant of ListPetsError goes from holding Person to holding Shelter")),
    (
        "api-operation-id-changed",
        Tool::Redocly,
        "Redocly rates a new operationId major because SDKs name methods after it; on the \
         wire nothing changes, and we report the renamed method as the Rust verdict (major)",
    ),
    (
        "new-required-request-body",
        Tool::Redocly,
        "Redocly rates every added request body minor, `required: true` included (no \
         verdict on it); existing clients send no body and a server of the new spec \
         refuses them, as oasdiff's new-required-request-body says",
    ),
    (
        "request-pattern-rewritten",
        Tool::Redocly,
        "Redocly rates every changed pattern major; here `^[a-z]+$` became `^[A-Za-z]+$`, \
         which takes every string the old one took (the strings generated from the old \
         pattern all match the new one), so no request is refused",
    ),
    (
        "request-property-removed",
        Tool::Redocly,
        "Redocly rates it patch: the schema still admits the property as an additional one; \
         we follow oasdiff (WARN): a server of the new spec drops or refuses data existing \
         clients still send",
    ),
];

/// cargo-semver-checks under `target/tools/cargo-semver-checks`, built from crates.io
/// once.
///
/// Its own release profile asks for fat LTO and one codegen unit, which made the build of
/// a clean clone take 39 minutes on one job; the profile is overridden to Cargo's release
/// defaults (no LTO, 16 codegen units), which changes how fast the tool runs on a few
/// small crates, not what it reports (BENCHMARKS.md, "Spec diff cross-check").
fn semver_checks() -> Result<PathBuf, String> {
    let root = crate::tools::tools_dir().join("cargo-semver-checks");
    let exe = root.join("bin").join("cargo-semver-checks");
    let marker = root.join(".installed");
    if exe.exists() && std::fs::read_to_string(&marker).ok().as_deref() == Some(SEMVER_CHECKS) {
        return Ok(exe);
    }
    eprintln!(
        "installing cargo-semver-checks {SEMVER_CHECKS} into {} (compiles once)",
        root.display()
    );
    crate::tools::run_checked(
        crate::child::cargo(&["install", "--locked", "--version", SEMVER_CHECKS, "--root"])
            .arg(&root)
            .arg("cargo-semver-checks")
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    )?;
    std::fs::write(&marker, SEMVER_CHECKS)
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(exe)
}

/// Our verdicts on a pair: (Rust major, wire breaking).
fn ours(dir: &Path) -> Result<(bool, bool), String> {
    let read = |f: &str| -> Result<spec_model::Source, String> {
        Ok(spec_model::Source {
            name: f.to_owned(),
            text: std::fs::read_to_string(dir.join(f)).map_err(|e| e.to_string())?,
        })
    };
    let report = spec_diff::diff(&read("old.yaml")?, &read("new.yaml")?, &Default::default())
        .map_err(|e| e.to_string())?;
    let major = report.rust.bump == Some(Semver::Major);
    let breaking = report
        .active()
        .any(|f| f.kind == Kind::Wire && f.level != Level::Info && f.wire != Wire::None);
    Ok((major, breaking))
}

/// Redocly's verdict: whether its bump is `major`.
fn redocly(exe: &Path, dir: &Path) -> Result<bool, String> {
    let out = Command::new(exe)
        .args([
            "diff",
            "old.yaml",
            "new.yaml",
            "--format",
            "json",
            "--fail-on",
            "none",
        ])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run redocly: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('{').ok_or_else(|| {
        format!(
            "redocly diff printed no JSON (exit {}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    let json: serde_json::Value =
        serde_json::from_str(&text[start..]).map_err(|e| format!("redocly diff's JSON: {e}"))?;
    match json.get("bump").and_then(|b| b.as_str()) {
        Some(bump) => Ok(bump == "major"),
        None => Err("redocly diff's JSON has no `bump`".to_owned()),
    }
}

/// Generates the crate of `spec` into `dir` (package `pair-api`) with this xtask.
fn generate(spec: &Path, dir: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("codegen")
        .arg("--spec")
        .arg(spec)
        .arg("--crate")
        .arg(dir)
        .args(["--name", "pair-api"])
        .current_dir(crate::tools::project_root())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "codegen of {}: {}",
            spec.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The sources and manifest under `dir` (the README, which names the directory it was
/// generated into, is no part of the API), by path relative to it, with their bytes.
fn files(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            let api = path.extension().is_some_and(|e| e == "rs")
                || path.file_name().is_some_and(|n| n == "Cargo.toml");
            if path.is_dir() {
                stack.push(path);
            } else if api {
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let rel = path
                    .strip_prefix(dir)
                    .map_err(|e| e.to_string())?
                    .to_owned();
                out.push((rel, bytes));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// cargo-semver-checks' verdict on a pair's two generated crates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SemverVerdict {
    /// It asks for a new major version.
    Major,
    /// It asks for a minor or patch version, or none.
    NotMajor,
    /// The two crates are the same files, byte for byte: the tool is not run (it would
    /// compare an API with itself), and the verdict is "not major".
    SameCrate,
}

/// cargo-semver-checks' verdict on the two generated crates. The crates are written to
/// `crates` (outside this workspace, which would otherwise claim them); builds go to
/// `target`, shared by every pair.
fn semver(exe: &Path, crates: &Path, target: &Path, dir: &Path) -> Result<SemverVerdict, String> {
    let (old, new) = (crates.join("old"), crates.join("new"));
    let _ = std::fs::remove_dir_all(&old);
    let _ = std::fs::remove_dir_all(&new);
    // Both from one path, so the `@generated from` headers match where the APIs do.
    let spec = crates.join("spec.yaml");
    for (file, out) in [("old.yaml", &old), ("new.yaml", &new)] {
        std::fs::copy(dir.join(file), &spec).map_err(|e| format!("{file}: {e}"))?;
        generate(&spec, out)?;
    }
    if files(&old)? == files(&new)? {
        return Ok(SemverVerdict::SameCrate);
    }
    let out = Command::new(exe)
        .arg("semver-checks")
        .arg("--manifest-path")
        .arg(new.join("Cargo.toml"))
        .arg("--baseline-root")
        .arg(&old)
        .args(["--color", "never"])
        // One target directory for every pair: the dependencies build once.
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("cannot run cargo-semver-checks: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if text.contains("requires new major version") {
        Ok(SemverVerdict::Major)
    } else if text.contains("no semver update required")
        || text.contains("requires new minor version")
        || text.contains("requires new patch version")
    {
        Ok(SemverVerdict::NotMajor)
    } else {
        Err(format!(
            "cargo-semver-checks gave no verdict: {}",
            text.trim()
        ))
    }
}

/// Runs the cross-check on every pair (or those whose name contains `only`); returns
/// whether every difference is explained.
pub fn run(only: Option<&str>) -> Result<bool, String> {
    let redocly_exe = crate::tools::npm_tool(REDOCLY, "redocly")?;
    let semver_exe = semver_checks()?;
    let pairs_dir = crate::tools::project_root().join("spec-diff/tests/pairs");
    let mut names: Vec<String> = std::fs::read_dir(&pairs_dir)
        .map_err(|e| format!("{}: {e}", pairs_dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| only.is_none_or(|o| n.contains(o)))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err("no pair to cross-check".to_owned());
    }
    let target = crate::tools::tools_dir()
        .parent()
        .map_or_else(|| PathBuf::from("target"), Path::to_owned)
        .join("diff-crosscheck");
    let crates = std::env::temp_dir().join(format!("spec-diff-crosscheck-{}", std::process::id()));
    std::fs::create_dir_all(&crates).map_err(|e| e.to_string())?;
    let mut unexplained = Vec::new();
    let mut explained = 0;
    let mut same_crates = 0;
    println!(
        "{:<40} {:>6} {:>6}   {:>6} {:>8}",
        "pair", "rust", "semver", "wire", "redocly"
    );
    for name in &names {
        let dir = pairs_dir.join(name);
        let (rust_major, wire_breaking) = ours(&dir)?;
        let redocly_major = redocly(&redocly_exe, &dir)?;
        let verdict = semver(&semver_exe, &crates, &target, &dir)?;
        let semver_major = verdict == SemverVerdict::Major;
        if verdict == SemverVerdict::SameCrate {
            same_crates += 1;
        }
        let yn = |b: bool| if b { "major" } else { "-" };
        println!(
            "{name:<40} {:>6} {:>6}   {:>6} {:>8}",
            yn(rust_major),
            if verdict == SemverVerdict::SameCrate {
                "same"
            } else {
                yn(semver_major)
            },
            if wire_breaking { "break" } else { "-" },
            yn(redocly_major)
        );
        for (tool, agree) in [
            (Tool::SemverChecks, rust_major == semver_major),
            (Tool::Redocly, wire_breaking == redocly_major),
        ] {
            let known = KNOWN.iter().find(|(n, t, _)| n == name && *t == tool);
            match (agree, known) {
                (true, None) => {}
                (false, Some((_, _, why))) => {
                    explained += 1;
                    println!("    {tool:?} differs, known: {why}");
                }
                (false, None) => unexplained.push(format!("{name}: {tool:?} differs")),
                (true, Some(_)) => unexplained.push(format!(
                    "{name}: listed as differing from {tool:?}, but they agree: remove it from KNOWN"
                )),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&crates);
    println!(
        "cross-check: {} pairs, {} explained differences, {} unexplained ({} pairs generate \
         the same crate twice, so cargo-semver-checks was not run on them: `same`)",
        names.len(),
        explained,
        unexplained.len(),
        same_crates
    );
    for u in &unexplained {
        println!("    {u}");
    }
    Ok(unexplained.is_empty())
}

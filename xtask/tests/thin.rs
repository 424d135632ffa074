//! xtask stays thin: it links the generator and nothing it drives. If it linked the
//! generated crate (or a crate built on it), a broken `generated/` would stop `cargo
//! xtask codegen`, the one command that can repair it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Crates xtask runs as child processes, and must therefore not link.
const DRIVEN: &[&str] = &["trading-api", "conformance", "reference-server"];

/// Names of the packages xtask's own build needs (normal and build dependencies,
/// transitively, for this host; its dev-dependencies build only its tests).
fn xtask_build_closure() -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "xtask",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
        .output()
        .expect("run cargo tree");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn xtask_links_the_generator_and_none_of_the_crates_it_drives() {
    let closure = xtask_build_closure();
    assert!(
        closure.contains("codegen"),
        "the walk found xtask's dependencies: {closure:?}"
    );
    let linked: Vec<_> = DRIVEN.iter().filter(|c| closure.contains(**c)).collect();
    assert!(
        linked.is_empty(),
        "xtask links {linked:?}: run it as a child process instead"
    );
}

/// Copies the workspace's sources (not `target/` nor `.git`) into `to`.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("read the workspace") {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().expect("a file type").is_dir() {
            copy_sources(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy a file");
        }
    }
}

#[test]
fn the_workspace_loads_with_generated_src_deleted() {
    // Cargo loads every member's manifest before building anything; if `generated/`
    // without its sources made that fail, `cargo xtask codegen` could not run to write them.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let copy = std::env::temp_dir().join(format!("xtask-thin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_sources(&root, &copy);
    std::fs::remove_dir_all(copy.join("generated/src")).expect("delete generated/src");
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--no-deps",
        ])
        .current_dir(&copy)
        .output()
        .expect("run cargo metadata");
    let _ = std::fs::remove_dir_all(&copy);
    assert!(
        output.status.success(),
        "the workspace does not load without generated/src: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

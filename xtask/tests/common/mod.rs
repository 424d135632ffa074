//! What the house's structural tests (`imports.rs`, `lengths.rs`) share: where the
//! workspace is and how its sources are walked, so both read the same files the same way.

use std::path::{Path, PathBuf};

/// The workspace root: the tests read the sources, not the build.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, in path order, leaving out the folders `skip` accepts.
pub fn files_except(dir: &Path, skip: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !skip(&p) {
                files_except(&p, skip, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every `.rs` file under `dir`, in path order.
#[allow(dead_code)] // Each test binary compiles this module; not every one walks all.
pub fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_except(dir, &|_| false, out);
}

//! Putting generated files on disk, or checking that they already are.
//!
//! Everything is generated in memory before this runs, so a spec error never leaves a
//! half-written crate. Each file is written to a temporary file in the same directory and
//! renamed over the old one (atomic on POSIX), and files are only touched when their
//! bytes change. `.rs` files of the directory that the generator no longer emits are
//! removed, so a renamed output cannot linger.

use std::path::{Path, PathBuf};

use crate::emit::File;
use crate::error::Error;

/// Whether to write or only compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write changed files and remove ones no longer generated.
    Write,
    /// Change nothing; report what differs.
    Check,
}

/// What [`sync`] did (in [`Mode::Write`]) or would do (in [`Mode::Check`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SyncReport {
    /// Files whose contents differ from the generator's output (or are missing).
    pub changed: Vec<PathBuf>,
    /// `.rs` files the generator no longer emits.
    pub extra: Vec<PathBuf>,
}

impl SyncReport {
    /// Whether the directory already held exactly the generator's output.
    pub fn is_clean(&self) -> bool {
        self.changed.is_empty() && self.extra.is_empty()
    }
}

/// Makes `dir` hold exactly `files` (or, in check mode, reports how it does not).
pub fn sync(dir: &Path, files: &[File], mode: Mode) -> Result<SyncReport, Error> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Write { path, source }
    };
    let mut report = SyncReport::default();
    for file in files {
        let path = dir.join(&file.path);
        let current = match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(&path)(e)),
        };
        if current.as_deref() != Some(file.contents.as_bytes()) {
            report.changed.push(path);
        }
    }
    let wanted: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    if dir.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !wanted.contains(&n))
            })
            .collect();
        entries.sort();
        report.extra = entries;
    }
    if mode == Mode::Check {
        return Ok(report);
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for file in files {
        let path = dir.join(&file.path);
        if report.changed.contains(&path) {
            write_atomic(&path, file.contents.as_bytes())?;
        }
    }
    for extra in &report.extra {
        std::fs::remove_file(extra).map_err(io(extra))?;
    }
    Ok(report)
}

/// Writes through a temporary file in the same directory, then renames it into place.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let err = |source| Error::Write {
        path: path.to_owned(),
        source,
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".codegen-")
        .tempfile_in(dir)
        .map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    // A temporary file is created owner-only; a source file must stay readable by the
    // other users and tools (CI caches, containers) that read the checkout.
    let permissions = source_permissions(path, tmp.as_file()).map_err(err)?;
    tmp.as_file().set_permissions(permissions).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// The mode a written file gets: the replaced file's, or `rw-r--r--` for a new one
/// (elsewhere than Unix, the temporary file's own).
fn source_permissions(path: &Path, tmp: &std::fs::File) -> std::io::Result<std::fs::Permissions> {
    if let Ok(meta) = std::fs::metadata(path) {
        return Ok(meta.permissions());
    }
    #[cfg(unix)]
    {
        let _ = tmp;
        use std::os::unix::fs::PermissionsExt;
        Ok(std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    {
        tmp.metadata().map(|m| m.permissions())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, contents: &str) -> File {
        File {
            path: path.into(),
            contents: contents.into(),
        }
    }

    #[test]
    fn check_reports_and_write_fixes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.rs"), "x").unwrap();
        std::fs::write(dir.path().join("a.rs"), "stale").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "kept").unwrap();
        let files = [file("a.rs", "fresh"), file("b.rs", "new")];
        let report = sync(dir.path(), &files, Mode::Check).unwrap();
        assert_eq!(report.changed.len(), 2);
        assert_eq!(report.extra, vec![dir.path().join("old.rs")]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "stale"
        );
        sync(dir.path(), &files, Mode::Write).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
            "fresh"
        );
        assert!(!dir.path().join("old.rs").exists());
        assert!(dir.path().join("notes.txt").exists());
        assert!(sync(dir.path(), &files, Mode::Check).unwrap().is_clean());
    }

    #[cfg(unix)]
    #[test]
    fn written_files_are_world_readable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        write_atomic(&dir.path().join("new.rs"), b"x").unwrap();
        let mode = std::fs::metadata(dir.path().join("new.rs"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644);
    }
}

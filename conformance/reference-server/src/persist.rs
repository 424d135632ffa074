//! `--state FILE`: contact records and token digests written atomically (temporary
//! file in the same directory, fsync, rename, fsync of the directory) before a change
//! is acknowledged, so that a crash at any instant leaves either the old or the new
//! file, never a torn one, and a restart loses no acknowledged update.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use trading_api::models::ContactInfo;

use crate::error::ServerError;
use crate::tokens::StoredTokens;

const FORMAT_VERSION: u32 = 1;

/// What the state file holds.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Snapshot {
    pub(crate) version: u32,
    /// Every contact record, by user id order.
    pub(crate) contacts: Vec<ContactInfo>,
    pub(crate) tokens: StoredTokens,
}

impl Snapshot {
    pub(crate) fn new(contacts: Vec<ContactInfo>, tokens: StoredTokens) -> Self {
        Snapshot {
            version: FORMAT_VERSION,
            contacts,
            tokens,
        }
    }
}

/// The state file.
#[derive(Debug)]
pub(crate) struct StateFile {
    path: PathBuf,
}

impl StateFile {
    pub(crate) fn new(path: PathBuf) -> Self {
        StateFile { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, message: impl Into<String>) -> ServerError {
        ServerError::State {
            path: self.path.display().to_string(),
            message: message.into(),
        }
    }

    /// The snapshot on disk, or `None` when the file does not exist yet.
    pub(crate) fn load(&self) -> Result<Option<Snapshot>, ServerError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.error(format!("cannot read: {e}"))),
        };
        let snapshot: Snapshot =
            serde_json::from_str(&text).map_err(|e| self.error(e.to_string()))?;
        if snapshot.version != FORMAT_VERSION {
            return Err(self.error(format!(
                "format version {} is not the supported {FORMAT_VERSION}",
                snapshot.version
            )));
        }
        Ok(Some(snapshot))
    }

    /// Writes the snapshot atomically.
    pub(crate) fn store(&self, snapshot: &Snapshot) -> Result<(), ServerError> {
        let dir = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let bytes = serde_json::to_vec_pretty(snapshot).map_err(|e| self.error(e.to_string()))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".state-")
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| {
                self.error(format!(
                    "cannot create a temporary file in {}: {e}",
                    dir.display()
                ))
            })?;
        tmp.write_all(&bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| self.error(format!("cannot write: {e}")))?;
        tmp.persist(&self.path)
            .map_err(|e| self.error(format!("cannot rename into place: {}", e.error)))?;
        sync_dir(&dir);
        Ok(())
    }
}

/// Makes the rename itself durable; best effort, since not every platform can open a
/// directory for syncing.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = StateFile::new(dir.path().join("state.json"));
        assert!(file.load().unwrap().is_none());
        file.store(&Snapshot::new(vec![], StoredTokens::default()))
            .unwrap();
        assert!(file.load().unwrap().is_some());
        std::fs::write(dir.path().join("state.json"), "{ nope").unwrap();
        let err = file.load().unwrap_err().to_string();
        assert!(
            err.contains("state.json") && err.contains("line 1"),
            "{err}"
        );
    }
}

//! The paths the run has deleted: a `DELETE` of a path answered 2xx removes what the path
//! names, so a later request to that very path that gets a 404 or 410 got the answer a
//! deleted record gets, which its operation need not declare (a second case deleting the
//! record a first case deleted, a read of it). The path is there again once any other
//! request to it is answered 2xx (a `PUT` that makes it anew).

use std::collections::HashSet;
use std::sync::Mutex;

/// The URL paths (no query) the run deleted and has not seen answered since.
#[derive(Default)]
pub struct Gone(Mutex<HashSet<String>>);

impl Gone {
    /// A `DELETE` of `path` was answered 2xx.
    pub fn deleted(&self, path: &str) {
        if let Ok(mut gone) = self.0.lock() {
            gone.insert(path.to_owned());
        }
    }

    /// A request other than a `DELETE` of `path` was answered 2xx: it names something.
    pub fn answered(&self, path: &str) {
        if let Ok(mut gone) = self.0.lock() {
            gone.remove(path);
        }
    }

    /// Whether the run deleted `path` and has not seen it answered since.
    pub fn holds(&self, path: &str) -> bool {
        self.0.lock().is_ok_and(|gone| gone.contains(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deleted_path_is_gone_until_it_is_answered_again() {
        let gone = Gone::default();
        assert!(!gone.holds("/flows/1"));
        gone.deleted("/flows/1");
        assert!(gone.holds("/flows/1"));
        assert!(!gone.holds("/flows/2"), "only that very path");
        gone.answered("/flows/1");
        assert!(!gone.holds("/flows/1"));
    }
}

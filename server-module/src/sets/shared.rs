//! [`SiteSets`]: the definitions a server wants, shared by its configuration, the reloader that
//! follows the configuration file, and the index that applies them.

use std::sync::Arc;

use tokio::sync::watch;

use super::Definitions;

/// The wanted definitions; the index's maintenance task is told of every change.
#[derive(Clone, Debug)]
pub(crate) struct SiteSets {
    tx: Arc<watch::Sender<Arc<Definitions>>>,
}

impl Default for SiteSets {
    fn default() -> Self {
        SiteSets {
            tx: Arc::new(watch::Sender::new(Arc::new(Definitions::default()))),
        }
    }
}

impl SiteSets {
    /// The definitions wanted now.
    pub(crate) fn current(&self) -> Arc<Definitions> {
        self.tx.borrow().clone()
    }

    /// Wants `defs` from now on.
    pub(crate) fn replace(&self, defs: Definitions) {
        self.tx.send_replace(Arc::new(defs));
    }

    /// Told of each replacement.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Arc<Definitions>> {
        self.tx.subscribe()
    }
}

//! `state.json`: per harvested list (endpoint, format, set), where the last harvest got to and
//! when the last complete one started, written atomically at every checkpoint.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Everything the archive remembers between runs besides the ledger.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    /// The archive id of the archive's PWIDs ([`crate::pwid`]), fixed when its first item is
    /// archived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_id: Option<String>,
    /// When the archive id was fixed (RFC 3339), for the message refusing another one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_id_fixed: Option<String>,
    /// Ledger bytes already merged into the CDXJ index.
    #[serde(default)]
    pub indexed: u64,
    /// The harvested lists, by [`ListKey::id`].
    #[serde(default)]
    pub lists: BTreeMap<String, ListState>,
}

/// What identifies a harvested list.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ListKey {
    /// The base URL.
    pub endpoint: String,
    /// The metadata prefix.
    pub prefix: String,
    /// The set, if the harvest was selective.
    pub set: Option<String>,
}

impl ListKey {
    /// The key's text form in `state.json`.
    pub fn id(&self) -> String {
        format!(
            "{} {} {}",
            self.endpoint,
            self.prefix,
            self.set.as_deref().unwrap_or("-")
        )
    }
}

/// One list's history.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ListState {
    /// Which list.
    pub key: ListKey,
    /// The `responseDate` of the first page of the last complete harvest: the next incremental
    /// harvest asks `from` it.
    #[serde(default)]
    pub complete_from: Option<String>,
    /// The harvest in progress, if the last one did not finish.
    #[serde(default)]
    pub running: Option<Running>,
    /// Finished (or failed) harvests, oldest first.
    #[serde(default)]
    pub runs: Vec<Run>,
}

impl ListState {
    /// A harvest of the list completed, or one got past its first page.
    fn holds_anything(&self) -> bool {
        self.complete_from.is_some()
            || self.running.as_ref().is_some_and(|r| r.pages > 0)
            || self.runs.iter().any(|r| r.pages > 0 || r.archived > 0)
    }
}

/// A harvest in progress: enough to continue it after a crash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Running {
    /// `from` of the selection, as sent.
    pub from: Option<String>,
    /// `until` of the selection, as sent.
    pub until: Option<String>,
    /// The token for the next page; `None` before the first page completed.
    pub token: Option<String>,
    /// Pages completed.
    pub pages: u64,
    /// `responseDate` of the first page.
    pub first_response_date: Option<String>,
    /// When the harvest began (RFC 3339).
    pub started: String,
    /// `completeListSize` of the last token, if the server gave one.
    #[serde(default)]
    pub list_size: Option<u64>,
    /// Items seen so far in this harvest (archived or already present).
    #[serde(default)]
    pub items: u64,
}

/// A finished harvest, for `inspect archive`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// RFC 3339.
    pub started: String,
    /// RFC 3339.
    pub finished: String,
    /// `from` asked.
    pub from: Option<String>,
    /// `until` asked.
    pub until: Option<String>,
    /// Items newly archived.
    pub archived: u64,
    /// Items skipped because the archive already had them.
    pub skipped: u64,
    /// Payload bytes archived.
    pub bytes: u64,
    /// Pages fetched.
    pub pages: u64,
    /// `complete`, or what stopped it.
    pub outcome: String,
}

impl State {
    /// The formats of `endpoint` this archive holds: those of its lists that got past a first
    /// page (a run that stopped at once, e.g. on a refused port, holds nothing).
    pub fn prefixes_of(&self, endpoint: &str) -> BTreeSet<&str> {
        self.lists
            .values()
            .filter(|l| l.key.endpoint == endpoint && l.holds_anything())
            .map(|l| l.key.prefix.as_str())
            .collect()
    }

    /// Reads `path`; a missing file is an empty state.
    pub(crate) fn load(path: &Path) -> io::Result<State> {
        match fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(e),
        }
    }

    /// Writes `path` atomically: a synced temporary file renamed over it.
    pub(crate) fn save(&self, path: &Path) -> io::Result<()> {
        let tmp: PathBuf = path.with_extension("json.tmp");
        let written = File::create(&tmp).and_then(|mut file| {
            file.write_all(&serde_json::to_vec_pretty(self).map_err(io::Error::other)?)?;
            file.sync_all()
        });
        if let Err(e) = written {
            // A full disk: the old state stays whole; leave no partial copy taking room.
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent() {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }

    /// The list's state, created empty if new.
    pub fn list_mut(&mut self, key: &ListKey) -> &mut ListState {
        self.lists.entry(key.id()).or_insert_with(|| ListState {
            key: key.clone(),
            complete_from: None,
            running: None,
            runs: Vec::new(),
        })
    }
}

//! How new WARC files are written, and which archive id the archive's PWIDs carry.

use super::{ArchiveError, State};
use crate::pwid::check_archive_id;

/// How new WARC files are written.
#[derive(Clone, Debug)]
pub struct ArchiveOptions {
    /// File name prefix. Default `modoai`.
    pub prefix: String,
    /// Rotation size. Default 1 GB.
    pub max_file_size: u64,
    /// Host part of file names; `None` = this machine's name.
    pub host: Option<String>,
    /// The archive id of its PWIDs (`1*unreserved`, in practice a domain). Set once: the first
    /// archived item fixes it (`None` = this machine's name), and asking for another one later is
    /// an error, since the PWIDs already given out would stop resolving.
    pub archive_id: Option<String>,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        Self {
            prefix: "modoai".into(),
            max_file_size: 1_000_000_000,
            host: None,
            archive_id: None,
        }
    }
}

/// The archive id: the stored one, which `options` may only repeat once an item was archived
/// (`fixed`); else the one asked for, else the stored one, else this machine's name. Until the
/// first item is archived nothing is fixed, so a first harvest that failed (a mistyped URL)
/// leaves the choice open.
pub(super) fn archive_id(
    state: &State,
    options: &ArchiveOptions,
    fixed: bool,
) -> Result<String, ArchiveError> {
    let asked = options.archive_id.as_deref();
    if let Some(asked) = asked {
        check_archive_id(asked).map_err(|e| ArchiveError::ArchiveId(e.to_string()))?;
    }
    match (&state.archive_id, asked) {
        (Some(have), Some(asked)) if fixed && have != asked => {
            let since = match &state.archive_id_fixed {
                Some(date) => format!(" on {date}"),
                None => String::new(),
            };
            Err(ArchiveError::ArchiveId(format!(
                "this archive's id is {have:?} (fixed by its first harvest{since}), not \
                 {asked:?}: its PWIDs name it, so it cannot change; drop --archive-id or use \
                 another --archive folder"
            )))
        }
        (_, Some(asked)) => Ok(asked.to_owned()),
        (Some(have), None) => Ok(have.clone()),
        (None, None) => Ok(crate::warc::default_host()),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(id: &str) -> ArchiveOptions {
        ArchiveOptions {
            archive_id: Some(id.into()),
            ..ArchiveOptions::default()
        }
    }

    fn stored(id: &str) -> State {
        State {
            archive_id: Some(id.into()),
            archive_id_fixed: Some("2026-11-24T10:07:52Z".into()),
            ..State::default()
        }
    }

    #[test]
    fn an_id_not_yet_fixed_by_an_item_can_still_be_chosen() {
        let id = archive_id(&stored("vm"), &asking("archive.example.org"), false).unwrap();
        assert_eq!(id, "archive.example.org");
        let id = archive_id(&State::default(), &ArchiveOptions::default(), false).unwrap();
        assert_eq!(id, crate::warc::default_host());
    }

    #[test]
    fn a_fixed_id_is_kept_and_another_one_refused_saying_what_to_do() {
        let state = stored("archive.example.org");
        let id = archive_id(&state, &ArchiveOptions::default(), true).unwrap();
        assert_eq!(id, "archive.example.org");
        assert_eq!(
            archive_id(&state, &asking("archive.example.org"), true).unwrap(),
            id
        );
        let error = archive_id(&state, &asking("other.example.org"), true).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with(
                "this archive's id is \"archive.example.org\" (fixed by its first harvest on \
                 2026-11-24T10:07:52Z), not \"other.example.org\""
            ),
            "{message}"
        );
        assert!(
            message.ends_with("drop --archive-id or use another --archive folder"),
            "{message}"
        );
    }
}

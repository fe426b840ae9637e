//! What an archive holds, per list and per harvest: [`ArchiveReport`], read with the ledger
//! streamed one entry at a time.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Entry, ListState, ReadError, Reader};

/// What an archive holds: its files, per list the items archived, and every harvest run.
/// Serialises (with serde) to the JSON that `inspect archive --json` prints.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct ArchiveReport {
    /// The archive folder, as given.
    pub archive: String,
    /// The archive id of its PWIDs.
    pub archive_id: String,
    /// Closed WARC files.
    pub warc_files: u64,
    /// Their bytes.
    pub warc_bytes: u64,
    /// WARC files still open (`.open`): a harvest is writing them, or was killed before closing
    /// them (`modoai-harvester repair` closes them).
    pub open_warc_files: u64,
    /// Ledger items left out because a record of theirs is not on disk (yet).
    pub incomplete_items: u64,
    /// Lines of the CDXJ index (complete items not merged into it yet are not counted).
    pub index_lines: u64,
    /// Per endpoint and format, in their order.
    pub lists: Vec<ListReport>,
    /// Every run of every list (by list), then the list's interrupted run, if any.
    pub harvests: Vec<HarvestReport>,
}

/// One list's figures in an archive.
#[derive(Debug, Default, Serialize)]
#[non_exhaustive]
pub struct ListReport {
    /// The endpoint.
    pub endpoint: String,
    /// The metadata format.
    pub prefix: String,
    /// Items archived.
    pub items: u64,
    /// Of them, deleted records.
    pub deleted: u64,
    /// Payload bytes.
    pub bytes: u64,
    /// WARC records by `WARC-Type`.
    pub records: BTreeMap<String, u64>,
    /// Fixity mismatches recorded.
    pub fixity_errors: u64,
    /// Captures of the endpoint's site root (for replay; not items).
    pub site_pages: u64,
    /// `WARC-Date` of the first item.
    pub first_harvested: Option<String>,
    /// `WARC-Date` of the last item.
    pub last_harvested: Option<String>,
}

/// One harvest run of a list. Fields are declared in name order, the order the JSON has
/// always had.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum HarvestReport {
    /// A run that ended (complete or stopped early).
    Finished {
        /// Items archived.
        archived: u64,
        /// Payload bytes archived.
        bytes: u64,
        /// The endpoint.
        endpoint: String,
        /// When it ended.
        finished: String,
        /// `from` asked.
        from: Option<String>,
        /// `complete`, or why it stopped.
        outcome: String,
        /// Pages completed.
        pages: u64,
        /// The metadata format.
        prefix: String,
        /// The set.
        set: Option<String>,
        /// Items already held.
        skipped: u64,
        /// When it started.
        started: String,
        /// `until` asked.
        until: Option<String>,
    },
    /// The run a harvest of the list would continue.
    Interrupted {
        /// The endpoint.
        endpoint: String,
        /// What happened, and what to do.
        outcome: String,
        /// The metadata format.
        prefix: String,
        /// The set.
        set: Option<String>,
        /// When it started.
        started: String,
    },
}

impl ArchiveReport {
    /// The report of an archive as `reader` sees it: complete items only, so it can be read
    /// while a harvest runs or after one was killed.
    pub fn read(reader: &Reader) -> Result<Self, ReadError> {
        let layout = reader.layout();
        let io_at = |path: PathBuf| move |error| ReadError::Io { path, error };
        let ledger = layout.ledger();
        let mut lists: BTreeMap<(String, String), ListReport> = BTreeMap::new();
        let mut entries = reader.entries().map_err(io_at(ledger.clone()))?;
        for entry in entries.by_ref() {
            add(&mut lists, &entry.map_err(io_at(ledger.clone()))?);
        }
        let (mut warc_files, mut warc_bytes) = (0, 0);
        let warcs = layout.warcs();
        for e in fs::read_dir(&warcs)
            .map_err(io_at(warcs.clone()))?
            .flatten()
        {
            if e.file_name().to_string_lossy().ends_with(".warc.gz") {
                warc_files += 1;
                warc_bytes += e.metadata().map_err(io_at(warcs.clone()))?.len();
            }
        }
        let open_warc_files = reader.open_files().map_err(io_at(warcs))?.len() as u64;
        let index_lines = count_lines(&layout.index()).unwrap_or(0);
        Ok(ArchiveReport {
            archive: layout.dir().display().to_string(),
            archive_id: reader.archive_id().unwrap_or_default().to_owned(),
            warc_files,
            warc_bytes,
            open_warc_files,
            incomplete_items: entries.incomplete(),
            index_lines,
            lists: lists.into_values().collect(),
            harvests: reader.state().lists.values().flat_map(harvests).collect(),
        })
    }
}

/// The lines of a file as `str::lines` counts them (a last line without `\n` counts too), read
/// in bounded chunks: an index holds one line per capture.
fn count_lines(path: &Path) -> io::Result<u64> {
    let mut file = io::BufReader::with_capacity(64 * 1024, fs::File::open(path)?);
    let (mut lines, mut open_line) = (0, false);
    loop {
        let chunk = file.fill_buf()?;
        let Some(&last) = chunk.last() else {
            return Ok(lines + u64::from(open_line));
        };
        lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        open_line = last != b'\n';
        let n = chunk.len();
        file.consume(n);
    }
}

fn add(lists: &mut BTreeMap<(String, String), ListReport>, e: &Entry) {
    let r = lists
        .entry((e.endpoint.clone(), e.prefix.clone()))
        .or_insert_with(|| ListReport {
            endpoint: e.endpoint.clone(),
            prefix: e.prefix.clone(),
            ..ListReport::default()
        });
    if !e.kind.is_item() {
        r.site_pages += 1;
        return;
    }
    r.items += 1;
    r.deleted += u64::from(e.deleted);
    r.bytes += e.bytes;
    r.fixity_errors += e.fixity_errors.len() as u64;
    for w in &e.records {
        *r.records.entry(w.kind.as_str().to_owned()).or_default() += 1;
    }
    if r.first_harvested.is_none() {
        r.first_harvested = Some(e.harvested.clone());
    }
    r.last_harvested = Some(e.harvested.clone());
}

fn harvests(l: &ListState) -> Vec<HarvestReport> {
    let mut out: Vec<HarvestReport> = l
        .runs
        .iter()
        .map(|run| HarvestReport::Finished {
            archived: run.archived,
            bytes: run.bytes,
            endpoint: l.key.endpoint.clone(),
            finished: run.finished.clone(),
            from: run.from.clone(),
            outcome: run.outcome.clone(),
            pages: run.pages,
            prefix: l.key.prefix.clone(),
            set: l.key.set.clone(),
            skipped: run.skipped,
            started: run.started.clone(),
            until: run.until.clone(),
        })
        .collect();
    if let Some(r) = &l.running {
        out.push(HarvestReport::Interrupted {
            endpoint: l.key.endpoint.clone(),
            outcome: format!(
                "interrupted after {} pages, or still running: when no harvest runs, run it again to continue",
                r.pages
            ),
            prefix: l.key.prefix.clone(),
            set: l.key.set.clone(),
            started: r.started.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON is what `inspect archive --json` printed when it built `serde_json::json!`
    /// values (whose keys come out sorted).
    #[test]
    fn lines_are_counted_as_str_lines_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.cdxj");
        for text in ["", "a\n", "a\nb", "a\n\nb\n", &"x y {}\n".repeat(20_000)] {
            fs::write(&path, text).unwrap();
            assert_eq!(
                count_lines(&path).unwrap(),
                text.lines().count() as u64,
                "{text:.20?}"
            );
        }
    }

    #[test]
    fn harvests_serialise_as_the_json_values_did() {
        let finished = HarvestReport::Finished {
            archived: 3,
            bytes: 10,
            endpoint: "http://e/oai".into(),
            finished: "2024-01-01T00:00:01Z".into(),
            from: None,
            outcome: "complete".into(),
            pages: 2,
            prefix: "oai_dc".into(),
            set: Some("s".into()),
            skipped: 1,
            started: "2024-01-01T00:00:00Z".into(),
            until: None,
        };
        let json = serde_json::json!({
            "endpoint": "http://e/oai", "prefix": "oai_dc", "set": "s",
            "started": "2024-01-01T00:00:00Z", "finished": "2024-01-01T00:00:01Z",
            "from": null, "until": null, "archived": 3, "skipped": 1, "bytes": 10, "pages": 2,
            "outcome": "complete",
        });
        assert_eq!(
            serde_json::to_string_pretty(&finished).unwrap(),
            serde_json::to_string_pretty(&json).unwrap()
        );
        let interrupted = HarvestReport::Interrupted {
            endpoint: "http://e/oai".into(),
            outcome: "interrupted after 1 pages, or still running: when no harvest runs, run it again to continue".into(),
            prefix: "oai_dc".into(),
            set: None,
            started: "2024-01-01T00:00:00Z".into(),
        };
        let json = serde_json::json!({
            "endpoint": "http://e/oai", "prefix": "oai_dc", "set": null,
            "started": "2024-01-01T00:00:00Z",
            "outcome": "interrupted after 1 pages, or still running: when no harvest runs, run it again to continue",
        });
        assert_eq!(
            serde_json::to_string_pretty(&interrupted).unwrap(),
            serde_json::to_string_pretty(&json).unwrap()
        );
    }
}

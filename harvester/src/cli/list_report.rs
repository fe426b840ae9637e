//! What `harvest-list` tells about each endpoint: a [`Row`] kept per endpoint (the harvest's
//! [`Summary`] is dropped once its row is made), printed as a table and written as JSON with
//! `--report FILE`. docs/archivists.md documents the JSON fields.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use modoai_cli::Exit;
use modoai_harvester::harvest::{HarvestOptions, Summary};
use serde::Serialize;

use super::summary;

/// How one endpoint's harvest ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// Harvested to the end of its list.
    Complete,
    /// Harvested to the end, but some items were not archived or failed a fixity check.
    Problems,
    /// Stopped early (unreachable, HTTP errors, a broken page, the archive unusable): the next
    /// run continues from its last completed page.
    Failed,
    /// The endpoint refused what was asked (a set or format it does not have, a bad argument).
    Refused,
    /// Stopped at a safe point by SIGINT/SIGTERM.
    Interrupted,
    /// Not begun: the run was interrupted before its turn.
    NotStarted,
}

impl Outcome {
    fn of(s: &Summary) -> Outcome {
        match summary::exit_code(s) {
            Exit::Done => Outcome::Complete,
            Exit::Problems => Outcome::Problems,
            Exit::Interrupted => Outcome::Interrupted,
            Exit::Usage => Outcome::Refused,
            _ => Outcome::Failed,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::Problems => "problems",
            Outcome::Failed => "failed",
            Outcome::Refused => "refused",
            Outcome::Interrupted => "interrupted",
            Outcome::NotStarted => "not-started",
        }
    }
}

/// One endpoint's line of the report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) endpoint: String,
    pub(crate) archive: PathBuf,
    pub(crate) prefix: Option<String>,
    pub(crate) set: Option<String>,
    pub(crate) outcome: Outcome,
    /// Items seen in the pages (archived, already held, deleted, or not archived).
    pub(crate) records: u64,
    pub(crate) archived: u64,
    pub(crate) skipped: u64,
    pub(crate) deleted: u64,
    /// Payload bytes archived.
    pub(crate) bytes: u64,
    /// Items not archived plus fixity mismatches.
    pub(crate) errors: u64,
    pub(crate) pages: u64,
    pub(crate) requests: u64,
    pub(crate) http_retries: u64,
    pub(crate) seconds: f64,
    /// Continued an interrupted or failed harvest.
    pub(crate) resumed: bool,
    /// Why it stopped early.
    pub(crate) error: Option<String>,
}

impl Row {
    /// The row of a harvest that ran.
    pub(crate) fn of(s: &Summary, archive: &Path) -> Row {
        Row {
            endpoint: s.endpoint.clone(),
            archive: archive.to_owned(),
            prefix: (!s.prefix.is_empty()).then(|| s.prefix.clone()),
            set: s.set.clone(),
            outcome: Outcome::of(s),
            records: s.items,
            archived: s.archived,
            skipped: s.skipped,
            deleted: s.deleted,
            bytes: s.bytes,
            errors: s.bad_records + s.fixity_errors,
            pages: s.pages,
            requests: s.requests,
            http_retries: s.http_retries,
            seconds: s.elapsed.as_secs_f64(),
            resumed: s.resumed,
            error: s.error.as_ref().map(ToString::to_string),
        }
    }

    /// The row of a list that did not run: `outcome` says why, `error` with what message.
    pub(crate) fn without_harvest(
        o: &HarvestOptions,
        archive: &Path,
        outcome: Outcome,
        error: Option<String>,
    ) -> Row {
        Row {
            endpoint: o.endpoint.clone(),
            archive: archive.to_owned(),
            prefix: o.prefix.clone(),
            set: o.set.clone(),
            outcome,
            records: 0,
            archived: 0,
            skipped: 0,
            deleted: 0,
            bytes: 0,
            errors: 0,
            pages: 0,
            requests: 0,
            http_retries: 0,
            seconds: 0.0,
            resumed: false,
            error,
        }
    }
}

/// The whole `--report` file.
#[derive(Debug, Serialize)]
pub(crate) struct Report<'a> {
    /// The harvest list.
    pub(crate) list: &'a Path,
    /// `I/N`, when the run harvested one shard.
    pub(crate) shard: Option<String>,
    pub(crate) started: String,
    pub(crate) finished: String,
    /// Endpoints per outcome.
    pub(crate) outcomes: std::collections::BTreeMap<&'static str, usize>,
    pub(crate) endpoints: &'a [Row],
}

impl<'a> Report<'a> {
    pub(crate) fn new(
        list: &'a Path,
        shard: Option<String>,
        started: String,
        rows: &'a [Row],
    ) -> Self {
        let mut outcomes = std::collections::BTreeMap::new();
        for r in rows {
            *outcomes.entry(r.outcome.name()).or_insert(0) += 1;
        }
        let finished = now();
        Report {
            list,
            shard,
            started,
            finished,
            outcomes,
            endpoints: rows,
        }
    }

    /// Writes the report to `path` atomically: a synced temporary file beside it, renamed.
    pub(crate) fn write(&self, path: &Path) -> anyhow::Result<()> {
        use anyhow::Context as _;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let write = || -> std::io::Result<()> {
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            serde_json::to_writer_pretty(&mut tmp, self)?;
            tmp.write_all(b"\n")?;
            tmp.as_file().sync_all()?;
            tmp.persist(path).map_err(|e| e.error)?;
            Ok(())
        };
        write().with_context(|| format!("cannot write the report {}", path.display()))
    }
}

/// Now, RFC 3339 in UTC.
pub(crate) fn now() -> String {
    modoai_archive::warc::warc_date(time::OffsetDateTime::now_utc())
}

/// The table of every endpoint, then a line of totals.
pub(crate) fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<11} {:>9} {:>9} {:>13} {:>6} {:>9}  endpoint\n",
        "outcome", "records", "archived", "bytes", "errors", "seconds"
    );
    for r in rows {
        let set = r
            .set
            .as_ref()
            .map(|s| format!(" (set {s})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<11} {:>9} {:>9} {:>13} {:>6} {:>9.1}  {}{set}\n",
            r.outcome.name(),
            r.records,
            r.archived,
            r.bytes,
            r.errors,
            r.seconds,
            r.endpoint
        ));
    }
    let report = Report::new(Path::new(""), None, String::new(), rows);
    let counts: Vec<String> = report
        .outcomes
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    out.push_str(&format!("{} endpoints: {}", rows.len(), counts.join(", ")));
    out
}

/// The exit code of the whole run: the worst outcome.
pub(crate) fn exit_code(rows: &[Row]) -> Exit {
    let worst = |o: Outcome| rows.iter().any(|r| r.outcome == o);
    if worst(Outcome::Interrupted) || worst(Outcome::NotStarted) {
        Exit::Interrupted
    } else if worst(Outcome::Failed) || worst(Outcome::Refused) {
        Exit::Failed
    } else if worst(Outcome::Problems) {
        Exit::Problems
    } else {
        Exit::Done
    }
}

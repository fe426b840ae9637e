//! The summary printed after a harvest, and the exit code it implies.

use modoai_archive::archive::Recovery;
use modoai_cli::Exit;
use modoai_harvester::harvest::Summary;

/// A few lines for people.
pub(crate) fn render(s: &Summary) -> String {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let mut out = format!(
        "{endpoint} ({prefix}{set}{from}): {state}\n  \
         {items} items in {pages} pages: {archived} archived ({deleted} deleted, {revisits} revisits), \
         {skipped} already in the archive, {bad} not archived\n  \
         {mb:.2} MB in {secs:.1} s ({rate:.1} items/s, {mbs:.2} MB/s); \
         {requests} requests, {retries} HTTP retries, {page_retries} page retries, {restarts} restarts",
        endpoint = s.endpoint,
        prefix = if s.prefix.is_empty() { "?" } else { &s.prefix },
        set = s.set.as_ref().map(|x| format!(", set {x}")).unwrap_or_default(),
        from = s.from.as_ref().map(|x| format!(", from {x}")).unwrap_or_default(),
        state = match (&s.error, s.resumed) {
            (Some(_), _) if s.is_interrupted() => "INTERRUPTED",
            (Some(_), _) => "STOPPED EARLY",
            (None, true) => "complete (continued an interrupted harvest)",
            (None, false) => "complete",
        },
        items = s.items,
        pages = s.pages,
        archived = s.archived,
        deleted = s.deleted,
        revisits = s.revisits,
        skipped = s.skipped,
        bad = s.bad_records,
        mb = s.bytes as f64 / 1e6,
        rate = s.items as f64 / secs,
        mbs = s.bytes as f64 / 1e6 / secs,
        requests = s.requests,
        retries = s.http_retries,
        page_retries = s.page_retries,
        restarts = s.restarts,
    );
    if s.fixity_errors > 0 {
        out.push_str(&format!(
            "\n  {} FIXITY MISMATCHES (recorded in the archive's metadata records)",
            s.fixity_errors
        ));
    }
    out
}

/// Prints a summary on stdout. A reader that closed stdout (`… | head`) did not want the rest:
/// the harvest's outcome, not the broken pipe, decides the exit code.
pub(crate) fn print(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

pub(crate) fn recovery(r: &Recovery) -> String {
    format!(
        "recovered the archive after an interrupted run: {} WARC files closed, {} removed, {} bytes of unfinished items dropped (they are harvested again)",
        r.files_closed, r.files_removed, r.bytes_dropped
    )
}

pub(crate) fn exit_code(s: &Summary) -> Exit {
    if s.is_interrupted() {
        Exit::Interrupted
    } else if s.error.as_ref().is_some_and(|e| e.is_usage()) {
        Exit::Usage
    } else if s.error.is_some() {
        Exit::Failed
    } else if s.fixity_errors > 0 || s.bad_records > 0 {
        Exit::Problems
    } else {
        Exit::Done
    }
}

//! Going on after bad bytes: a damaged gzip member, an I/O error, a bad head or garbage is
//! reported as skipped, and reading goes on at the next readable record.

use std::io;

use super::{Found, Records, SkipReason, Skipped};
use crate::any::head::{is_arc_line, is_warc_start};
use crate::any::stream::GzipError;

impl Records {
    /// A gzip error or I/O error: report it, and go on at the next member if there is one.
    pub(super) fn failed(&mut self, error: io::Error) {
        let gzip = error
            .get_ref()
            .and_then(|e| e.downcast_ref::<GzipError>())
            .cloned();
        let Some(gzip) = gzip else {
            let start = self.raw_at(self.stream.position());
            self.skip(start, start, 0, SkipReason::Unreadable(error.to_string()));
            self.done = true;
            return;
        };
        // A bad member header: the damage starts there.
        let start = match self.stream.header_failed() {
            Some(at) => at,
            None => self.raw_at(self.stream.position()),
        };
        match self.stream.resync() {
            Ok(Some(end)) => self.skip(start, end, 0, SkipReason::Gzip(gzip.to_string())),
            Ok(None) => {
                let end = self.stream.raw_position();
                self.skip(start, end, 0, SkipReason::Gzip(gzip.to_string()));
                self.done = true;
            }
            Err(e) => self.failed(e),
        }
    }

    /// Skips to the next line that starts a record; `line` first skips the current line (whose
    /// start was a bad record head).
    pub(super) fn resync(&mut self, reason: SkipReason, line: bool) {
        let from = self.stream.position();
        let start = self.raw_at(from);
        let result = self.seek_record(line);
        let to = self.stream.position();
        let end = self.raw_at(to);
        self.skip(start, end, to - from, reason);
        if let Err(e) = result {
            self.failed(e);
        }
    }

    /// Consumes bytes up to the next record start: `WARC/` and a version anywhere (a head that
    /// then does not parse is skipped in turn), or in an ARC file a header line at a line start
    /// (or member start). `skip_line` first skips the current line (whose start was a bad head).
    fn seek_record(&mut self, mut skip_line: bool) -> io::Result<()> {
        loop {
            if !skip_line {
                let head = self.stream.peek(16, false)?;
                if is_warc_start(head) {
                    return Ok(());
                }
                if self.arc == Some(true) && is_arc_line(&self.line()?) {
                    return Ok(());
                }
            }
            skip_line = false;
            // To the next line start, `WARC/` or member start, whichever comes first.
            let bytes = self.stream.peek(1, false)?;
            if bytes.is_empty() {
                if self.stream.peek(1, true)?.is_empty() {
                    return Ok(());
                }
                continue;
            }
            let line = memchr::memchr(b'\n', bytes).map(|i| i + 1);
            let warc = memchr::memmem::find(&bytes[1..], b"WARC/").map(|i| i + 1);
            let n = match (line, warc) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap_or(bytes.len()),
            };
            self.stream.consume(n);
        }
    }

    fn raw_at(&self, decoded: u64) -> u64 {
        self.stream.member_at(decoded).map_or(decoded, |m| m.raw)
    }

    fn skip(&mut self, start: u64, end: u64, bytes: u64, reason: SkipReason) {
        self.queue.push_back(Found::Skipped(Skipped {
            source: self.source.clone(),
            start,
            end,
            bytes,
            reason,
        }));
    }
}

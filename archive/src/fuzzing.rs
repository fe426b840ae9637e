//! The bodies of the `records` and `pwid` fuzz targets (`fuzz/fuzz_targets/`), public so that the
//! fuzz crate and this crate's regression tests run the same code. Not part of the API.
//!
//! [`records`] reads the input as a WARC/ARC file (plain, gzip per record or one gzip stream,
//! whatever its bytes are) with [`Records`](crate::any::Records), and checks:
//!
//! - reading ends, with at most one item per input byte (plus a few);
//! - every record's location lies in the input, record locations never go back, and a record
//!   keeps no more of its block than its `Content-Length`;
//! - the record at a location of a plain or gzip-per-record framing is read again there, with
//!   the same type and fields;
//! - skipped ranges lie in the input, start before they end, and each has a reason;
//! - decoding a body for extraction stays within its limits.

use std::io::Cursor;

use crate::any::{BodyLimits, Found, Framing, ReadOptions, Records, Source, Summary};

/// Inputs longer than this are ignored, so that a run's memory stays bounded.
pub const MAX_INPUT: usize = 1 << 20;

/// Runs the `records` target on one input; panics when an invariant does not hold.
pub fn records(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let source = Source::file("fuzz.warc");
    let len = data.len() as u64;
    let input = Box::new(Cursor::new(data.to_vec()));
    let options = ReadOptions::default().keep(64 << 10);
    let Ok(reader) = Records::new(source.clone(), input, options) else {
        return;
    };
    let limits = BodyLimits {
        max_size: 256 << 10,
        max_ratio: 200,
    };
    let mut summary = Summary::default();
    let mut last = 0;
    for (n, found) in reader.enumerate() {
        assert!(n <= data.len() + 8, "more items than input bytes");
        summary.add(&found);
        match found {
            Found::Record(record) => {
                let at = &record.location;
                assert_eq!(at.source, source);
                assert!(
                    at.offset >= last,
                    "a record located before the one before it"
                );
                last = at.offset;
                match at.framing {
                    Framing::Plain | Framing::Gzip => assert!(at.offset + at.length <= len),
                    Framing::GzipStream { .. } => assert!(at.offset < len),
                }
                assert!(record.block.len() as u64 <= record.block_len);
                let body = record.body(&limits);
                assert!(body.bytes.len() as u64 <= limits.max_size);
                if !matches!(at.framing, Framing::GzipStream { .. }) {
                    let rest = data[at.offset as usize..].to_vec();
                    let again = Records::head_at(source.clone(), Box::new(Cursor::new(rest)), 0);
                    let (head, _) = again.expect("a located record is read again");
                    assert_eq!((&head.kind, &head.fields), (&record.kind, &record.fields));
                }
            }
            Found::Skipped(skip) => {
                assert_eq!(skip.source, source);
                assert!(
                    skip.start <= skip.end && skip.end <= len,
                    "{skip:?} in {len} bytes"
                );
                assert!(!skip.reason.to_string().is_empty());
            }
        }
    }
}

/// Runs the `pwid` target on one input: a PWID (`urn:pwid:…` or the older `pwid:…` form) that
/// parses is written in the URN form, which parses again to the same PWID and is written the same
/// way; its archive id passes [`check_archive_id`](crate::pwid::check_archive_id) and its item is
/// not empty. Panics when an invariant does not hold.
pub fn pwid(data: &[u8]) {
    use crate::pwid::{check_archive_id, Pwid};
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let Ok(pwid) = text.parse::<Pwid>() else {
        return;
    };
    let written = pwid.to_string();
    let again: Pwid = written.parse().expect("a written PWID parses");
    assert_eq!(again, pwid, "{text:?} -> {written}");
    assert_eq!(again.to_string(), written);
    assert!(check_archive_id(&pwid.archive_id).is_ok() && !pwid.item.is_empty());
}

#[cfg(test)]
mod tests {
    use modoai_protocol::fuzzing::inputs;

    /// Every seed (warcio-written cases and pywb's sample files, some cut or damaged) and every
    /// input that once failed (`fuzz/regressions/records/`) goes through the target, so a fixed
    /// crash stays fixed in the ordinary test run.
    #[test]
    fn corpus_and_regressions() {
        let all = [inputs("corpus/records"), inputs("regressions/records")].concat();
        assert!(!all.is_empty(), "no records seeds");
        all.iter().for_each(|(_, input)| super::records(input));
    }

    /// The same for the `pwid` target.
    #[test]
    fn pwid_corpus_and_regressions() {
        let all = [inputs("corpus/pwid"), inputs("regressions/pwid")].concat();
        assert!(!all.is_empty(), "no pwid seeds");
        all.iter().for_each(|(_, input)| super::pwid(input));
    }
}

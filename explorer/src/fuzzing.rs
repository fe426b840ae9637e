//! The bodies of the explorer's fuzz targets (`fuzz/fuzz_targets/`), public so that the fuzz
//! crate and this crate's regression test run the same code. Not part of the API.
//!
//! - [`search`]: the search parameters of `/api/v1/search` and `/` as a query string, and the
//!   query they make. Parameters that parse are read again from the pairs they came from to the
//!   same parameters; a page is within the window; the query is built against an empty index with
//!   the real schema and analyzers, or refused as a query error or a bad request, each with a
//!   message, and an accepted query runs on that index and finds nothing.
//! - [`memento`]: Memento's dates and the URI-M of `/memento/TIMESTAMP/URI-R`. An
//!   `Accept-Datetime` that parses is written back as the same HTTP-date and parses again to the
//!   same moment; a timestamp of 1 to 14 digits that parses is the start of its period, so its
//!   14-digit form starts with the digits given (month and day `00` read as `01`), and the 14-digit
//!   form parses to the same moment; a URI-R is never empty once read.
//! - [`keys`]: the key file. A file that parses is written out and parses again to the same keys
//!   (names, digests, limits, scopes), and every key's digest parses; a file that does not parse
//!   is a `Syntax` error that names the file.

use std::path::Path;

use modoai_archive::archive::timestamp14;

use crate::index::ArchiveIndex;
use crate::keys::{KeyError, KeyFile};
use crate::memento::datetime::{http_date, parse_http_date};
use crate::memento::target::uri_r;
use crate::search::{build_query, parse_timestamp14, Scope, SearchError, SearchParams};

/// Inputs longer than this are ignored: a header line, a path or a key file is short.
pub const MAX_INPUT: usize = 64 << 10;

/// Runs the `search` target on one input (a query string: `q=…&facet=…&from=…`); panics when an
/// invariant does not hold.
pub fn search(data: &[u8]) {
    thread_local! {
        static INDEX: ArchiveIndex = ArchiveIndex::in_memory();
    }
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(pairs) = modoai_protocol::form::parse_bytes(data) else {
        return;
    };
    let params = match SearchParams::parse(&pairs) {
        Ok(p) => p,
        Err(message) => {
            assert!(!message.is_empty(), "a refusal says why");
            return;
        }
    };
    assert_eq!(SearchParams::parse(&pairs).as_ref(), Ok(&params));
    let window = params.page.saturating_add(1).saturating_mul(params.size);
    assert!(params.size >= 1 && window <= crate::search::MAX_WINDOW);
    INDEX.with(
        |index| match build_query(index.index(), &index.fields(), &params, &Scope::all()) {
            Ok(query) => {
                let reader = index.index().reader().expect("a reader of an empty index");
                let hits = query.count(&reader.searcher()).expect("a built query runs");
                assert_eq!(hits, 0, "an empty index has no match");
            }
            Err(SearchError::Query(e)) => assert!(!e.to_string().is_empty()),
            Err(SearchError::BadRequest(m)) => assert!(!m.is_empty()),
            Err(e) => panic!("a query is accepted or refused with a message: {e}"),
        },
    );
}

/// Runs the `memento` target on one input; panics when an invariant does not hold.
pub fn memento(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    if let Some(t) = parse_http_date(&text) {
        let written = http_date(t);
        assert_eq!(parse_http_date(&written), Some(t), "{text:?} -> {written}");
    }
    let (digits, rest) = text.split_once('/').unwrap_or((&text, ""));
    if let Some(t) = parse_timestamp14(digits) {
        let full = timestamp14(t);
        let given = digits.as_bytes();
        for (i, (&a, &b)) in given.iter().zip(full.as_bytes()).enumerate() {
            let zero_month_or_day = matches!(i, 5 | 7) && a == b'0' && b == b'1';
            assert!(a == b || zero_month_or_day, "{digits} -> {full}");
        }
        assert_eq!(parse_timestamp14(&full), Some(t), "{digits} -> {full}");
    }
    if let Ok(uri) = uri_r(rest, "/memento/") {
        assert!(!uri.is_empty());
    }
}

/// Runs the `keys` target on one input; panics when an invariant does not hold.
pub fn keys(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let path = Path::new("fuzz-keys.toml");
    let text = String::from_utf8_lossy(data);
    match KeyFile::parse(path, &text) {
        Ok(file) => {
            let written = file.text().expect("a parsed key file is written out");
            let again = KeyFile::parse(path, &written).expect("a written key file parses");
            let keys: Vec<_> = file.keys().collect();
            assert_eq!(keys, again.keys().collect::<Vec<_>>(), "{written}");
        }
        Err(KeyError::Syntax { path: named, .. }) => assert_eq!(named, path),
        Err(e) => panic!("a key file that does not parse is a syntax error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use modoai_protocol::fuzzing::inputs;

    /// Every seed and every input that once failed (`fuzz/regressions/TARGET/`) goes through its
    /// target, so a fixed crash stays fixed in the ordinary test run.
    #[test]
    fn corpus_and_regressions() {
        for (target, body) in [
            ("search", super::search as fn(&[u8])),
            ("memento", super::memento),
            ("keys", super::keys),
        ] {
            let all = [
                inputs(&format!("corpus/{target}")),
                inputs(&format!("regressions/{target}")),
            ]
            .concat();
            assert!(!all.is_empty(), "no {target} seeds");
            all.iter().for_each(|(_, input)| body(input));
        }
    }
}

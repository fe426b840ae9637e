//! The body of the `request` fuzz target (`fuzz/fuzz_targets/request.rs`), public so that the fuzz
//! crate and this crate's regression test run the same code. Not part of the API.
//!
//! [`request`] decodes arbitrary bytes as a query string or form body, parses the pairs as a
//! request at both granularities and checks what must hold whatever the input:
//!
//! - decoding is the same from `&str` and from bytes, and [`form::encode`] undoes [`form::decode`];
//! - a refusal has 1 to 16 errors, all `badVerb` or all `badArgument` (§3.6: the response's
//!   `request` element then carries no arguments);
//! - an accepted request names the one `verb` sent, holds only legal values, and a request valid
//!   for a day-granularity repository is the same request for a seconds-granularity one;
//! - an accepted request written out again with [`form::request_url`] parses to the same request.

use crate::datestamp::Granularity;
use crate::error::ErrorCode;
use crate::form;
use crate::request::{is_uri, ListArgs, Request, Selection};
use crate::{is_metadata_prefix, SetSpec};

/// Inputs longer than this are ignored: decoding is linear, longer inputs find nothing new.
pub const MAX_INPUT: usize = 64 * 1024;

/// Runs the `request` target on one input; panics when an invariant does not hold.
pub fn request(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let decoded = form::parse_bytes(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(form::parse(text), decoded, "str and bytes decode alike");
    }
    let Ok(pairs) = decoded else { return };
    for (name, value) in &pairs {
        assert_eq!(
            form::decode(form::encode(name).as_bytes()).as_ref(),
            Ok(name)
        );
        assert_eq!(
            form::decode(form::encode(value).as_bytes()).as_ref(),
            Ok(value)
        );
    }
    let by_day = Request::parse(&pairs, Granularity::Day);
    let by_seconds = Request::parse(&pairs, Granularity::Seconds);
    for result in [&by_day, &by_seconds] {
        match result {
            Ok(request) => accepted(request, &pairs),
            Err(errors) => refused(errors),
        }
    }
    if let Ok(request) = &by_day {
        assert_eq!(
            by_seconds.as_ref(),
            Ok(request),
            "finer repository, same request"
        );
    }
}

fn refused(errors: &[crate::OaiError]) {
    assert!((1..=16).contains(&errors.len()), "{} errors", errors.len());
    let code = errors[0].code;
    assert!(
        matches!(code, ErrorCode::BadVerb | ErrorCode::BadArgument),
        "{code}"
    );
    assert!(
        errors.iter().all(|e| e.code == code),
        "mixed codes: {errors:?}"
    );
}

fn accepted(request: &Request, pairs: &[(String, String)]) {
    let verbs: Vec<&str> = pairs
        .iter()
        .filter(|(k, _)| k == "verb")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(verbs, [request.verb().as_str()]);
    let args = arguments(request);
    for (name, value) in &args {
        assert!(!value.is_empty(), "{name} is empty");
        assert!(request.verb().allowed_args().contains(name), "{name}");
    }
    check_values(request);
    let url = form::request_url("", request.verb(), &borrowed(&args));
    let query = url.strip_prefix('?').expect("an empty base gets `?`");
    let again = form::parse(query).expect("request_url encodes every value");
    assert_eq!(
        Request::parse(&again, Granularity::Seconds).as_ref(),
        Ok(request),
        "{query}"
    );
}

fn check_values(request: &Request) {
    match request {
        Request::GetRecord {
            identifier,
            metadata_prefix,
        } => {
            assert!(is_uri(identifier) && is_metadata_prefix(metadata_prefix));
        }
        Request::ListMetadataFormats {
            identifier: Some(identifier),
        } => assert!(is_uri(identifier)),
        Request::ListIdentifiers(ListArgs::Select(s))
        | Request::ListRecords(ListArgs::Select(s)) => {
            assert!(is_metadata_prefix(&s.metadata_prefix));
            assert!(s
                .set
                .as_ref()
                .is_none_or(|set| SetSpec::parse(set.as_str()).is_some()));
            if let (Some(from), Some(until)) = (s.from, s.until) {
                assert!(from <= until, "{from} > {until}");
                assert!(s.admits(from) && s.admits(until));
            }
        }
        _ => {}
    }
}

/// The arguments that express `request`, bounds at seconds granularity (they are stored widened).
fn arguments(request: &Request) -> Vec<(&'static str, String)> {
    let mut args = Vec::new();
    match request {
        Request::Identify => {}
        Request::ListMetadataFormats { identifier } => {
            args.extend(identifier.clone().map(|id| ("identifier", id)));
        }
        Request::ListSets { resumption_token } => {
            args.extend(resumption_token.clone().map(|t| ("resumptionToken", t)));
        }
        Request::ListIdentifiers(list) | Request::ListRecords(list) => match list {
            ListArgs::Resume(token) => args.push(("resumptionToken", token.clone())),
            ListArgs::Select(selection) => selection_arguments(selection, &mut args),
        },
        Request::GetRecord {
            identifier,
            metadata_prefix,
        } => {
            args.push(("identifier", identifier.clone()));
            args.push(("metadataPrefix", metadata_prefix.clone()));
        }
    }
    args
}

fn selection_arguments(s: &Selection, args: &mut Vec<(&'static str, String)>) {
    args.push(("metadataPrefix", s.metadata_prefix.clone()));
    args.extend(s.from.map(|d| ("from", d.to_string())));
    args.extend(s.until.map(|d| ("until", d.to_string())));
    args.extend(s.set.as_ref().map(|set| ("set", set.as_str().to_owned())));
}

/// The files of the repository's `fuzz/DIR` (e.g. `corpus/request`, `regressions/page`) with
/// their names; empty when the folder is absent. The regression tests of all three targets run
/// their seeds and past failures through these.
pub fn inputs(dir: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

fn borrowed<'a>(args: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    args.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[cfg(test)]
mod tests {
    use super::inputs;

    /// Every seed of the corpus and every input that once failed (`fuzz/regressions/request/`)
    /// goes through the target, so a fixed crash stays fixed in the ordinary test run.
    #[test]
    fn corpus_and_regressions() {
        let all = [inputs("corpus/request"), inputs("regressions/request")].concat();
        assert!(!all.is_empty(), "no request seeds");
        all.iter().for_each(|(_, input)| super::request(input));
    }
}

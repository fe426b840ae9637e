//! A provider that misbehaves on purpose (the support library's FaultServer): 503 with Retry-After,
//! dropped connections, truncated pages, invalid XML characters, repeated and rejected tokens,
//! a CRATE whose md5 does not match its file.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use modoai_archive::archive::{Archive, ArchiveOptions};
use modoai_harvester::client::{Client, ClientConfig};
use modoai_harvester::harvest::{HarvestError, HarvestOptions, Harvester, Quiet, Summary};

use super::scripted::{self, error, page, IDENTIFY};
use super::{archive_check, ledger};
use integration_tests::fault::{FaultServer, Reply, RequestInfo};

/// Three pages of three records: tokens `p2`, `p3`, then an empty final token.
fn normal(req: &RequestInfo) -> Option<Reply> {
    let verb = req.params("verb").pop().unwrap_or_default();
    if verb == "Identify" {
        return Some(Reply::ok(IDENTIFY));
    }
    Some(Reply::ok(
        match req.params("resumptionToken").pop().as_deref() {
            None => page(0, 3, Some("p2")),
            Some("p2") => page(3, 3, Some("p3")),
            Some("p3") => page(6, 3, Some("")),
            Some(_) => error("badResumptionToken"),
        },
    ))
}

fn harvest(server: &FaultServer, archive: &std::path::Path) -> Summary {
    let client = Client::new(
        ClientConfig::default()
            .backoff_base(Duration::from_millis(5))
            .backoff_max(Duration::from_millis(50))
            .max_retries(3),
    );
    let url = server.url("/oai");
    let archive = archive.to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let handle = runtime.handle().clone();
    let summary = std::thread::spawn(move || {
        let mut a = Archive::open(&archive, ArchiveOptions::default()).unwrap();
        let mut o = HarvestOptions::new(&url);
        o.prefix = Some("oai_dc".into());
        let s = Harvester::new(client, handle, &mut a, &Quiet).run(&o);
        a.close().unwrap();
        s
    })
    .join()
    .unwrap();
    drop(runtime);
    summary
}

fn identifiers(archive: &std::path::Path) -> Vec<String> {
    let mut ids: Vec<String> = ledger(archive).into_iter().map(|e| e.identifier).collect();
    ids.sort();
    ids
}

fn all_nine() -> Vec<String> {
    let mut ids: Vec<String> = (0..9).map(|i| format!("oai:scripted:{i}")).collect();
    ids.sort();
    ids
}

#[test]
fn retry_after_503_dropped_connections_and_truncated_pages_are_survived() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let server = FaultServer::start(move |req| {
        let token = req.params("resumptionToken").pop();
        let n = c.fetch_add(1, Ordering::SeqCst);
        match (token.as_deref(), n) {
            // The first list request: 503 with Retry-After in seconds.
            (None, _)
                if req.params("verb").pop().as_deref() == Some("ListRecords")
                    && !req.params("metadataPrefix").is_empty()
                    && n < 2 =>
            {
                Reply::status(503).header("Retry-After", "1")
            }
            // Page 2: the connection drops once, then the body is cut in the middle of a record.
            (Some("p2"), _) if n < 4 => Reply::drop_connection(),
            (Some("p2"), _) if n < 5 => Reply::truncate(page(3, 3, Some("p3")), 300),
            _ => normal(req).unwrap(),
        }
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("a");
    let s = harvest(&server, &archive);
    assert!(s.is_complete(), "{:?}", s.error);
    assert_eq!(
        identifiers(&archive),
        all_nine(),
        "each record exactly once"
    );
    assert!(s.page_retries >= 1, "{s:?}");
    assert!(s.http_retries >= 2, "{s:?}");
    let times: Vec<_> = server.requests();
    let first_list = times
        .iter()
        .position(|r| r.params("metadataPrefix") == ["oai_dc"])
        .unwrap();
    let gap = times[first_list + 1].arrived - times[first_list].arrived;
    assert!(
        gap >= Duration::from_millis(900),
        "Retry-After: 1 honoured, waited {gap:?}"
    );
    archive_check(&archive);
}

#[test]
fn retry_after_as_http_date_is_honoured() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let server = FaultServer::start(move |req| {
        if req.params("metadataPrefix") == ["oai_dc"] && c.fetch_add(1, Ordering::SeqCst) == 0 {
            let when = std::time::SystemTime::now() + Duration::from_secs(2);
            return Reply::status(503).header("Retry-After", &httpdate::fmt_http_date(when));
        }
        normal(req).unwrap()
    });
    let work = tempfile::tempdir().unwrap();
    let s = harvest(&server, &work.path().join("a"));
    assert!(s.is_complete(), "{:?}", s.error);
    let reqs = server.requests();
    let i = reqs
        .iter()
        .position(|r| r.params("metadataPrefix") == ["oai_dc"])
        .unwrap();
    assert!(reqs[i + 1].arrived - reqs[i].arrived >= Duration::from_millis(900));
}

#[test]
fn a_page_with_an_invalid_character_is_retried_then_reported_and_the_rerun_continues() {
    let broken = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let b = broken.clone();
    let server = FaultServer::start(move |req| {
        if req.params("resumptionToken") == ["p2"] && b.load(Ordering::SeqCst) {
            return Reply::ok(page(3, 3, Some("p3")).replace("record 4", "record \u{1} 4"));
        }
        normal(req).unwrap()
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("a");
    let s = harvest(&server, &archive);
    match &s.error {
        Some(HarvestError::BrokenPage {
            url,
            attempts,
            error,
        }) => {
            assert!(url.contains("resumptionToken=p2"), "{url}");
            assert_eq!(*attempts, 4);
            assert!(error.to_string().contains("U+0001"), "{error}");
        }
        other => panic!("expected a broken page, got {other:?}"),
    }
    // Records before the broken one were kept; page 2 is asked again on the next run.
    assert_eq!(identifiers(&archive).len(), 4);
    broken.store(false, Ordering::SeqCst);
    let s = harvest(&server, &archive);
    assert!(s.is_complete(), "{:?}", s.error);
    assert!(s.resumed);
    assert_eq!(identifiers(&archive), all_nine());
    let first_after = server
        .requests()
        .iter()
        .filter(|r| r.params("metadataPrefix") == ["oai_dc"])
        .count();
    assert_eq!(
        first_after, 1,
        "the rerun continued at page 2 instead of starting over"
    );
    archive_check(&archive);
}

#[test]
fn a_repeated_token_is_reported_instead_of_looping() {
    let server = FaultServer::start(|req| match req.params("resumptionToken").pop().as_deref() {
        Some("p2") => Reply::ok(page(3, 3, Some("p2"))),
        _ => normal(req).unwrap(),
    });
    let work = tempfile::tempdir().unwrap();
    let s = harvest(&server, &work.path().join("a"));
    match &s.error {
        Some(HarvestError::RepeatedToken { token, .. }) => assert_eq!(token, "p2"),
        other => panic!("expected a repeated token, got {other:?}"),
    }
    assert!(server.requests().len() < 10);
}

#[test]
fn bad_resumption_token_restarts_the_list_without_duplicates() {
    let rejected = Arc::new(AtomicUsize::new(0));
    let r = rejected.clone();
    let server = FaultServer::start(move |req| {
        if req.params("resumptionToken") == ["p3"] && r.fetch_add(1, Ordering::SeqCst) == 0 {
            return Reply::ok(error("badResumptionToken"));
        }
        normal(req).unwrap()
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("a");
    let s = harvest(&server, &archive);
    assert!(s.is_complete(), "{:?}", s.error);
    assert_eq!(s.restarts, 1);
    assert_eq!(identifiers(&archive), all_nine());
    assert!(
        s.skipped >= 6,
        "records of the first pages were not stored twice: {s:?}"
    );
}

#[test]
fn no_records_match_is_an_empty_success() {
    let server = FaultServer::start(|req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::ok(error("noRecordsMatch")),
    });
    let work = tempfile::tempdir().unwrap();
    let s = harvest(&server, &work.path().join("a"));
    assert!(s.is_complete(), "{:?}", s.error);
    assert_eq!(s.items, 0);
}

#[test]
fn other_oai_errors_stop_the_harvest_with_their_code() {
    let server = FaultServer::start(|req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::ok(error("cannotDisseminateFormat")),
    });
    let work = tempfile::tempdir().unwrap();
    let s = harvest(&server, &work.path().join("a"));
    let e = s.error.expect("an error").to_string();
    assert!(e.contains("cannotDisseminateFormat"), "{e}");
}

#[test]
fn an_html_error_page_is_not_taken_for_an_empty_list() {
    let server = FaultServer::start(|req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::ok("<html><body>Service temporarily down</body></html>"),
    });
    let work = tempfile::tempdir().unwrap();
    let s = harvest(&server, &work.path().join("a"));
    assert!(
        matches!(s.error, Some(HarvestError::BrokenPage { .. })),
        "{:?}",
        s.error
    );
}

#[test]
fn a_fixity_mismatch_is_recorded_not_hidden() {
    let file = b"the file's bytes";
    let didl = scripted::crate_page(file, "00000000000000000000000000000000");
    let server = FaultServer::start(move |req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::ok(didl.clone()),
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("a");
    let s = harvest(&server, &archive);
    assert!(s.is_complete(), "{:?}", s.error);
    assert_eq!(s.fixity_errors, 1);
    let e = &ledger(&archive)[0];
    assert!(
        e.fixity_errors[0].contains("MISMATCH md5 expected 00000000000000000000000000000000"),
        "{:?}",
        e.fixity_errors
    );
    assert_eq!(e.bytes, file.len() as u64);
    archive_check(&archive);
}

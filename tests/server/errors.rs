//! Every error code, the request echo rules of §3.2, and hostile arguments.

use integration_tests::{Server, TestSite};

/// (query, expected code)
const CASES: &[(&str, &str)] = &[
    ("", "badVerb"),
    ("junk", "badVerb"),
    ("verb=junk", "badVerb"),
    ("verb=Identify&verb=Identify", "badVerb"),
    ("verb=Identify&verb=ListSets", "badVerb"),
    ("verb=Identify&test=test", "badArgument"),
    ("verb=ListRecords", "badArgument"),
    ("verb=ListIdentifiers", "badArgument"),
    ("verb=GetRecord&metadataPrefix=oai_dc", "badArgument"),
    ("verb=GetRecord&identifier=http://x.org/a", "badArgument"),
    (
        "verb=GetRecord&identifier=invalid%22id&metadataPrefix=oai_dc",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=junk",
        "badArgument",
    ),
    (
        "verb=ListIdentifiers&metadataPrefix=oai_dc&until=junk",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05&until=2002-02-06T05:35:00Z",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-06&until=2002-02-05",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05T00:00:00.5Z",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05T00:00:00",
        "badArgument",
    ),
    (
        "verb=ListRecords&resumptionToken=junk&until=2000-01-01",
        "badArgument",
    ),
    (
        "verb=ListIdentifiers&resumptionToken=junk&metadataPrefix=oai_dc",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&set=image/jpeg",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&set=mime:image:svg+xml",
        "badArgument",
    ),
    ("verb=ListRecords&metadataPrefix=", "badArgument"),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=%FF",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=%zz",
        "badArgument",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=%C0%AE",
        "badArgument",
    ),
    ("verb=ListMetadataFormats&identifier=", "badArgument"),
    (
        "verb=ListRecords&resumptionToken=junk",
        "badResumptionToken",
    ),
    (
        "verb=ListIdentifiers&resumptionToken=junk",
        "badResumptionToken",
    ),
    ("verb=ListSets&resumptionToken=junk", "badResumptionToken"),
    (
        "verb=ListRecords&metadataPrefix=marc21",
        "cannotDisseminateFormat",
    ),
    (
        "verb=ListIdentifiers&metadataPrefix=oai_crate",
        "cannotDisseminateFormat",
    ),
    (
        "verb=GetRecord&identifier=urn:x:nothing&metadataPrefix=oai_dc",
        "idDoesNotExist",
    ),
    (
        "verb=ListMetadataFormats&identifier=urn:x:nothing",
        "idDoesNotExist",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&until=1971-01-01",
        "noRecordsMatch",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&from=2999-01-01",
        "noRecordsMatch",
    ),
    (
        "verb=ListRecords&metadataPrefix=oai_dc&set=mime:model",
        "noRecordsMatch",
    ),
    (
        "verb=ListIdentifiers&metadataPrefix=oai_dc&set=nosuchset",
        "noRecordsMatch",
    ),
];

#[tokio::test]
async fn every_error_code_with_valid_responses() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    for (query, code) in CASES {
        let r = server.oai(query).await;
        r.assert_valid();
        assert_eq!(r.error_codes(), [*code], "{query}: {}", r.text());
        for message in r.texts("error") {
            assert!(!message.is_empty(), "{query}: errors carry text");
        }
        let attrs = r.request_attrs();
        if matches!(*code, "badVerb" | "badArgument") {
            assert!(attrs.is_empty(), "{query}: no attributes on {code}");
        } else {
            let sent = modoai_protocol::form::parse(query).unwrap();
            let sent: std::collections::BTreeMap<_, _> = sent.into_iter().collect();
            assert_eq!(attrs, sent, "{query}: arguments echoed as received");
        }
    }
}

#[tokio::test]
async fn empty_repository_has_no_sets() {
    let site = TestSite::empty();
    let server = Server::start(site.path(), |c| c).await;
    let r = server.oai("verb=ListSets").await;
    r.assert_valid();
    assert_eq!(r.error_codes(), ["noSetHierarchy"]);
    let r = server.oai("verb=ListRecords&metadataPrefix=oai_dc").await;
    assert_eq!(r.error_codes(), ["noRecordsMatch"]);
    server.oai("verb=Identify").await.assert_valid();
}

#[tokio::test]
async fn identifiers_never_reach_outside_the_index() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let base = &server.base;
    for id in [
        format!("{base}../../../etc/passwd"),
        format!("{base}%2e%2e/%2e%2e/etc/passwd"),
        format!("{base}images/..%2F..%2F..%2Fetc%2Fpasswd"),
        format!("{base}%5c..%5cetc%5cpasswd"),
        format!("{base}.private/key.txt"),
        format!("{base}.htpasswd-example"),
        format!("{base}images"),
        base.to_string(),
        format!("{base}/etc/passwd"),
        format!("{base}images/logo.png/"),
        format!("{base}images//logo.png"),
        format!("{base}IMAGES/logo.png"),
        format!("{base}images/logo%2Epng"),
        "file:///etc/passwd".to_owned(),
        "http://other.example/images/logo.png".to_owned(),
        "c:/windows/win.ini".to_owned(),
    ] {
        let q = format!(
            "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
            modoai_protocol::form::encode(&id)
        );
        let r = server.oai(&q).await;
        r.assert_valid();
        assert_eq!(r.error_codes(), ["idDoesNotExist"], "{id}");
        assert!(!r.text().contains("root:"), "{id}");
    }
}

#[tokio::test]
async fn posted_and_queried_arguments_together_are_repeats() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let req = http::Request::post(format!("{}?verb=Identify", server.oai))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(
            b"verb=Identify",
        )))
        .unwrap();
    let r = server.send(req).await;
    r.assert_valid();
    assert_eq!(r.error_codes(), ["badVerb"]);
}

#[tokio::test]
async fn http_level_refusals() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let put = http::Request::put(&server.oai)
        .body(http_body_util::Full::default())
        .unwrap();
    let r = server.send(put).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers["allow"], "GET, HEAD, POST");
    let json = http::Request::post(&server.oai)
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(b"{}")))
        .unwrap();
    assert_eq!(server.send(json).await.status, 415);
    let big = "verb=Identify&".repeat(10_000);
    let huge = http::Request::post(&server.oai)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(http_body_util::Full::new(bytes::Bytes::from(big)))
        .unwrap();
    assert_eq!(server.send(huge).await.status, 413);
    let many = (0..2000)
        .map(|i| format!("a{i}=1"))
        .collect::<Vec<_>>()
        .join("&");
    let r = server.oai(&format!("verb=Identify&{many}")).await;
    r.assert_valid();
    assert_eq!(r.error_codes()[0], "badArgument");
}

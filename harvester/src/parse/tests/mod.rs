use std::io::BufReader;

use modoai_protocol::{ns, ErrorCode, Verb};
use quick_xml::events::Event;
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

use super::*;

mod malformed;
mod stream;

const OPEN: &str = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">"#;

/// A response envelope around `body`.
fn page(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{OPEN}\n\
         <responseDate>2024-05-01T12:00:00Z</responseDate>\n\
         <request>http://example.org/oai</request>\n{body}\n</OAI-PMH>\n"
    )
}

fn parse(xml: impl AsRef<[u8]>) -> Result<Vec<PageEvent>, ParseError> {
    PageParser::new(xml.as_ref()).collect()
}

fn records(events: &[PageEvent]) -> Vec<&Record> {
    events
        .iter()
        .filter_map(|e| {
            if let PageEvent::Record(r) = e {
                Some(r)
            } else {
                None
            }
        })
        .collect()
}

const TWO_RECORDS: &str = r#"<ListRecords>
  <record><header><identifier>a</identifier><datestamp>2024-01-01</datestamp></header>
    <metadata><dc xmlns="urn:x">one &amp; only</dc></metadata></record>
  <record><header><identifier>b</identifier><datestamp>2024-01-02</datestamp></header>
    <metadata><dc xmlns="urn:x">two</dc></metadata></record>
  <resumptionToken cursor="0">next</resumptionToken>
</ListRecords>"#;

#[test]
fn list_page_in_order() {
    let events = parse(page(TWO_RECORDS)).unwrap();
    assert!(
        matches!(events[0], PageEvent::ResponseDate(d) if d.to_string() == "2024-05-01T12:00:00Z")
    );
    let ids: Vec<_> = records(&events)
        .iter()
        .map(|r| r.header.identifier.as_str())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(
        records(&events)[1].metadata.as_deref(),
        Some(r#"<dc xmlns="urn:x">two</dc>"#)
    );
    let PageEvent::Token(token) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (token.token.as_str(), token.cursor, token.complete_list_size),
        ("next", Some(0), None)
    );
}

#[test]
fn prefixed_elements() {
    let xml = r#"<oai:OAI-PMH xmlns:oai="http://www.openarchives.org/OAI/2.0/">
      <oai:responseDate>2024-05-01T12:00:00Z</oai:responseDate>
      <oai:ListIdentifiers>
        <oai:header oai:ignored="x" status="deleted"><oai:identifier>a</oai:identifier>
          <oai:datestamp>2024-01-01</oai:datestamp><oai:setSpec>s</oai:setSpec></oai:header>
        <oai:resumptionToken/>
      </oai:ListIdentifiers>
    </oai:OAI-PMH>"#;
    let mut parser = PageParser::new(xml.as_bytes());
    let events: Vec<_> = parser.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(parser.verb(), Some(Verb::ListIdentifiers));
    assert!(parser.is_complete());
    let PageEvent::Header(h) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(
        (h.identifier.as_str(), h.set_specs.as_slice(), h.deleted),
        ("a", &["s".to_owned()][..], true)
    );
    assert!(matches!(&events[2], PageEvent::Token(t) if t.is_final()));
}

#[test]
fn names_are_matched_by_namespace_not_by_text() {
    // A `record` in another namespace is not a record.
    let body = r#"<ListRecords xmlns:x="urn:x"><x:record><x:header/></x:record>
        <record><header><identifier>real</identifier></header></record></ListRecords>"#;
    let events = parse(page(body)).unwrap();
    assert_eq!(records(&events).len(), 1);
    // `OAI-PMH` without the namespace is not OAI-PMH.
    let err = parse("<OAI-PMH><ListRecords/></OAI-PMH>").unwrap_err();
    assert!(matches!(err, ParseError::NotOaiPmh { .. }), "{err}");
}

#[test]
fn html_instead_of_oai() {
    let html = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body/></html>";
    let err = parse(html).unwrap_err();
    assert!(
        matches!(&err, ParseError::NotOaiPmh { position: 16, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "not an OAI-PMH document: the root element is `html` at byte 16"
    );
    let err = parse(r#"<html xmlns="http://www.w3.org/1999/xhtml"/>"#).unwrap_err();
    assert!(
        err.to_string()
            .contains("`{http://www.w3.org/1999/xhtml}html`"),
        "{err}"
    );
}

#[test]
fn text_or_nothing_instead_of_oai() {
    let err = parse("Service Temporarily Unavailable").unwrap_err();
    assert!(
        err.to_string()
            .contains("\"Service Temporarily Unavailable\""),
        "{err}"
    );
    for empty in ["", "  \n", "<?xml version=\"1.0\"?>\n"] {
        let err = parse(empty).unwrap_err();
        assert!(matches!(&err, ParseError::NotOaiPmh { found, .. } if found == "no root element"));
    }
}

#[test]
fn references_are_resolved() {
    let body = "<error code=\"badVerb\">&lt;&#39;&#x263A;&amp;&quot;<![CDATA[<raw>]]></error>";
    let events = parse(page(body)).unwrap();
    let PageEvent::Error(e) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(e.message, "<'\u{263A}&\"<raw>");
}

#[test]
fn an_envelope_without_payload_is_an_error() {
    for xml in [
        page(""),
        format!("{OPEN}</OAI-PMH>"),
        OPEN.replace('>', "/>"),
    ] {
        let err = parse(&xml).unwrap_err();
        assert!(
            matches!(err, ParseError::NoPayload { .. }),
            "{xml}: {err:?}"
        );
    }
}

#[test]
fn errors_one_event_each() {
    let body = r#"<error code="badArgument">one</error><error code=" noSetHierarchy ">two</error>"#;
    let codes: Vec<_> = parse(page(body))
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let PageEvent::Error(e) = e {
                Some(e.code)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(codes, [ErrorCode::BadArgument, ErrorCode::NoSetHierarchy]);
    let err = parse(page(r#"<error code="tooBad">x</error>"#)).unwrap_err();
    assert!(
        matches!(&err, ParseError::UnknownErrorCode { code, .. } if code == "tooBad"),
        "{err:?}"
    );
}

#[test]
fn anything_after_the_envelope_is_not_read() {
    let xml = format!(
        "{}<br />\n<b>Notice</b>: Undefined index & stuff",
        page(TWO_RECORDS)
    );
    let mut parser = PageParser::new(xml.as_bytes());
    assert_eq!(parser.by_ref().count(), 4);
    assert!(parser.is_complete());
}

#[test]
fn token_attributes_are_optional_and_lenient() {
    let cases = [
        (
            r#"<resumptionToken>  t  </resumptionToken>"#,
            ("t", None, None, None),
        ),
        (
            r#"<resumptionToken cursor="x" completeListSize="-1">t</resumptionToken>"#,
            ("t", None, None, None),
        ),
        (
            r#"<resumptionToken expirationDate="2024-01-01T00:00:00.5Z" cursor=" 5 " completeListSize="9"/>"#,
            ("", Some(5), Some(9), Some(1_704_067_200)),
        ),
    ];
    for (xml, expected) in cases {
        let events = parse(page(&format!("<ListSets>{xml}</ListSets>"))).unwrap();
        let PageEvent::Token(t) = &events[1] else {
            panic!("{events:?}")
        };
        let got = (
            t.token.as_str(),
            t.cursor,
            t.complete_list_size,
            t.expiration.map(|d| d.unix()),
        );
        assert_eq!(got, expected, "{xml}");
    }
}

#[test]
fn metadata_stands_alone() {
    let xml = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
        xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"><responseDate>2024-05-01</responseDate>
      <GetRecord><record><header><identifier>a</identifier></header>
        <metadata>
          <oai_dc:dc xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title a='say "hi"'>A &amp; B</dc:title></oai_dc:dc>
        </metadata><about><x/></about></record></GetRecord></OAI-PMH>"#;
    let events = parse(xml).unwrap();
    let metadata = records(&events)[0].metadata.clone().unwrap();
    assert!(metadata.starts_with("<oai_dc:dc "), "{metadata}");
    assert!(
        metadata.ends_with("<dc:title a='say \"hi\"'>A &amp; B</dc:title></oai_dc:dc>"),
        "{metadata}"
    );
    assert_eq!(
        metadata.matches("xmlns:dc=").count(),
        1,
        "no duplicate binding: {metadata}"
    );
    let mut reader = NsReader::from_str(&metadata);
    let Ok((ResolveResult::Bound(Namespace(uri)), Event::Start(_))) = reader.read_resolved_event()
    else {
        panic!("{metadata}")
    };
    assert_eq!(uri, ns::OAI_DC.as_bytes());
}

#[test]
fn deleted_record_has_no_metadata() {
    let body = r#"<GetRecord><record><header status="deleted"><identifier>a</identifier>
        <datestamp>2024-01-01T10:00:00Z</datestamp></header></record></GetRecord>"#;
    let events = parse(page(body)).unwrap();
    let record = records(&events)[0];
    assert!(record.header.deleted && record.metadata.is_none());
    assert_eq!(
        record.header.datestamp.map(|d| d.to_string()).as_deref(),
        Some("2024-01-01T10:00:00Z")
    );
}

#[test]
fn odd_values_are_passed_on() {
    let body =
        "<ListIdentifiers><header><datestamp>yesterday</datestamp></header></ListIdentifiers>";
    let events = parse(page(body)).unwrap();
    let PageEvent::Header(h) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(
        (h.identifier.as_str(), h.datestamp, h.datestamp_raw.as_str()),
        ("", None, "yesterday")
    );
}

#[test]
fn tiny_buffers_give_the_same_events() {
    let xml = page(TWO_RECORDS);
    let expected = parse(&xml).unwrap();
    for capacity in [1, 2, 7] {
        let reader = BufReader::with_capacity(capacity, xml.as_bytes());
        assert_eq!(
            PageParser::new(reader)
                .collect::<Result<Vec<_>, _>>()
                .unwrap(),
            expected
        );
    }
}

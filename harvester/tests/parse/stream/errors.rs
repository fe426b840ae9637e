//! Pages that must fail while streaming, and where: bad Base64, cuts, a failing sink.

use modoai_harvester::parse::{PageParser, ParseError};

use super::payloads::{encode, Wrap};
use super::{didl_page, stream, streamed_record, Recorder};

/// Where `needle` is in `page`.
fn at(page: &str, needle: &str) -> u64 {
    page.find(needle).unwrap_or_else(|| panic!("{needle}")) as u64
}

#[test]
fn bad_base64_is_an_error_where_it_is() {
    let resource = |content: &str| {
        didl_page(&format!(
            r#"<didl:Resource encoding="base64">{content}</didl:Resource>"#
        ))
    };
    // The content, and the text the error points at (the first character of it).
    let cases = [
        ("QUJD\nQU!D", "!"),
        ("QUJD\nQQ=Q", "Q<"),
        ("QUJD\nQQ===", "=<"),
        ("QUJDQ=", "=<"),
        ("QUJD\nQUJ", "QUJ<"),
        ("QUJD\nQR==", "QR=="),
        ("QUJD<![CDATA[QU>D]]>", ">D"),
        ("QUJD&lt;", "&lt;"),
        ("QUJD<child/>QUJD", "<child/>"),
        ("QU<x></x>JD", "<x>"),
        ("QUJD\u{e9}", "\u{e9}"),
    ];
    for (content, culprit) in cases {
        let page = resource(content);
        let err = streamed_record(page.as_bytes()).unwrap_err();
        assert!(
            matches!(err, ParseError::Base64 { position, .. } if position == at(&page, culprit)),
            "{content}: {err:?}"
        );
    }
    let page = resource("QU\u{1}D");
    let err = streamed_record(page.as_bytes()).unwrap_err();
    assert!(
        matches!(err, ParseError::InvalidChar { character: '\u{1}', position } if position == at(&page, "\u{1}")),
        "{err:?}"
    );
    // next_event does not decode, so the same pages are fine there.
    assert!(PageParser::new(resource("QU!D").as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .is_ok());
}

#[test]
fn cut_inside_base64_is_truncated() {
    let page = didl_page(
        r#"<didl:Resource encoding="base64">QUJD
QUJD<![CDATA[QU JD]]>&#13;
QQ==</didl:Resource>"#,
    );
    let from = at(&page, "QUJD") as usize;
    let to = at(&page, "</didl:Resource>") as usize + 3;
    for cut in from..to {
        let err = stream(&page.as_bytes()[..cut]).unwrap_err();
        assert!(
            matches!(err, ParseError::Truncated { .. }),
            "cut at {cut}: {err:?}"
        );
        // In text the input ends at the cut; in markup, where the markup starts.
        let read = &page[..cut];
        let expected = match (read.rfind(['<', '&']), read.rfind(['>', ';'])) {
            (Some(open), close) if Some(open) > close => open,
            _ => cut,
        };
        assert_eq!(err.position(), expected as u64, "cut at {cut}: {err:?}");
    }
}

#[test]
fn positions_after_a_large_resource_are_exact() {
    let payload: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    let text = encode(&payload, Wrap::Mime);
    let broken = [
        ("<dc>\u{1}</dc>", "\u{1}"),
        ("</didl:Oops>", "</didl:Oops>"),
        ("<dc>&bogus;</dc>", "&bogus;"),
    ];
    for (tail, culprit) in broken {
        let page = didl_page(&format!(
            r#"<didl:Resource encoding="base64">{text}</didl:Resource>{tail}"#
        ));
        let err = match stream(page.as_bytes()) {
            Err(err) => err,
            Ok(events) => panic!("{tail}: {} events", events.len()),
        };
        assert_eq!(err.position(), at(&page, culprit), "{tail}: {err:?}");
        let plain = PageParser::new(page.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err();
        assert_eq!(err.position(), plain.position(), "{tail}: as next_event");
    }
}

#[test]
fn sink_errors_stop_the_parser() {
    let page = didl_page(r#"<didl:Resource encoding="base64">QUJD</didl:Resource>"#);
    for call in ["xml", "resource_start", "resource_bytes", "resource_end"] {
        let mut parser = PageParser::new(page.as_bytes());
        let mut sink = Recorder {
            fail_on: Some(call),
            ..Recorder::default()
        };
        let err = loop {
            match parser.next_event_with(&mut sink) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("{call}: no error"),
                Err(err) => break err,
            }
        };
        let ParseError::Sink { source, .. } = &err else {
            panic!("{call}: {err:?}")
        };
        assert_eq!(source.to_string(), format!("{call} refused"));
        assert!(std::error::Error::source(&err).is_some(), "{call}: chained");
        assert_eq!(
            parser.next_event().unwrap_err().to_string(),
            err.to_string(),
            "fused"
        );
    }
}

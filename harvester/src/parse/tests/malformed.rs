//! Input that must fail: cut short, bad characters, bad references, too deep.

use super::*;
use crate::parse::check::MAX_DEPTH;

#[test]
fn truncated_after_the_last_record() {
    let full = page(TWO_RECORDS);
    let cut = &full[..full.find("<resumptionToken").unwrap()];
    let mut parser = PageParser::new(cut.as_bytes());
    let mut seen = 0;
    let err = loop {
        match parser.next_event() {
            Ok(Some(PageEvent::Record(_))) => seen += 1,
            Ok(Some(_)) => {}
            Ok(None) => panic!("a truncated page must not end cleanly"),
            Err(err) => break err,
        }
    };
    assert_eq!(seen, 2, "records before the cut are still delivered");
    assert!(
        matches!(err, ParseError::Truncated { source: None, .. }),
        "{err:?}"
    );
    assert!(!parser.is_complete());
}

#[test]
fn truncated_anywhere_is_an_error() {
    let full = page(TWO_RECORDS);
    let root = full.find(OPEN).unwrap() + OPEN.len();
    let end = full.rfind("</OAI-PMH>").unwrap() + "</OAI-PMH>".len();
    for cut in root..end {
        match parse(&full[..cut]) {
            Err(ParseError::Truncated { .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    assert!(parse(&full[..end]).is_ok());
}

#[test]
fn truncated_inside_markup_names_the_markup() {
    let full = page(TWO_RECORDS);
    let cut = full.find("<identifier>b").unwrap() + 5;
    let err = parse(&full[..cut]).unwrap_err();
    let ParseError::Truncated {
        position,
        source: Some(_),
    } = err
    else {
        panic!("{err:?}")
    };
    assert_eq!(position, cut as u64 - 5, "points at the unfinished tag");
}

#[test]
fn raw_invalid_characters_are_errors_with_position() {
    for bad in ['\u{1A}', '\u{0}', '\u{B}', '\u{FFFE}', '\u{FFFF}'] {
        let xml = page(&format!(
            "<ListIdentifiers><header><identifier>a{bad}b</identifier></header></ListIdentifiers>"
        ));
        let at = xml.find(bad).unwrap() as u64;
        let err = parse(&xml).unwrap_err();
        assert!(
            matches!(err, ParseError::InvalidChar { character, position } if character == bad && position == at),
            "{bad:?}: {err:?}"
        );
        assert!(err.is_character_error());
    }
    let err = parse(page("<error code=\"badVerb\">x\u{1A}</error>")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("invalid XML character U+001A at byte "),
        "{err}"
    );
}

#[test]
fn invalid_characters_everywhere_are_caught() {
    let in_metadata = "<GetRecord><record><header/><metadata><x xmlns=\"urn:x\">\u{1A}</x></metadata></record></GetRecord>";
    let in_skipped = "<ListSets><set><setSpec>a</setSpec><setDescription>\u{FFFE}</setDescription></set></ListSets>";
    let in_attribute = "<error code=\"badVerb&#x1;\">x</error>";
    let char_refs = [
        "<error code=\"badVerb\">&#x1A;</error>",
        "<error code=\"badVerb\">&#65534;</error>",
    ];
    for body in [in_metadata, in_skipped, in_attribute]
        .into_iter()
        .chain(char_refs)
    {
        let err = parse(page(body)).unwrap_err();
        assert!(
            matches!(err, ParseError::InvalidChar { .. }),
            "{body}: {err:?}"
        );
    }
}

#[test]
fn invalid_utf8_is_an_error_with_position() {
    let mut xml = page("<error code=\"badVerb\">caf\u{e9}</error>").into_bytes();
    let at = xml
        .windows(2)
        .position(|w| w == "\u{e9}".as_bytes())
        .unwrap();
    xml[at] = 0xFF; // Latin-1 bytes in a UTF-8 document
    let err = parse(&xml).unwrap_err();
    assert!(
        matches!(err, ParseError::InvalidUtf8 { position } if position == at as u64),
        "{err:?}"
    );
}

#[test]
fn undefined_entity() {
    let err = parse(page("<error code=\"badVerb\">&nbsp;</error>")).unwrap_err();
    assert!(
        matches!(&err, ParseError::UndefinedEntity { name, .. } if name == "nbsp"),
        "{err:?}"
    );
    let err = parse(page("<error code=\"badVerb&nbsp;\">x</error>")).unwrap_err();
    assert!(
        matches!(&err, ParseError::UndefinedEntity { name, .. } if name == "nbsp"),
        "{err:?}"
    );
}

#[test]
fn fused_after_an_error() {
    let mut parser = PageParser::new(&b"<html/>"[..]);
    let first = parser.next_event().unwrap_err();
    assert_eq!(
        parser.next_event().unwrap_err().to_string(),
        first.to_string()
    );
    let mut parser = PageParser::new(&b"<html/>"[..]);
    assert!(parser.next().unwrap().is_err());
    assert!(parser.next().is_none());
}

#[test]
fn deep_nesting_is_bounded() {
    let nested = |depth: usize| {
        let body = format!(
            "<x>{}{}</x>",
            "<x>".repeat(depth - 5),
            "</x>".repeat(depth - 5)
        );
        page(&format!(
            "<GetRecord><record><header/><about>{body}</about></record></GetRecord>"
        ))
    };
    // OAI-PMH, GetRecord, record, about, then the <x>s.
    assert_eq!(records(&parse(nested(MAX_DEPTH)).unwrap()).len(), 1);
    let err = parse(nested(MAX_DEPTH + 1)).unwrap_err();
    assert!(
        matches!(
            err,
            ParseError::TooDeep {
                limit: MAX_DEPTH,
                ..
            }
        ),
        "{err:?}"
    );
    // Far beyond quick-xml's u16 scope counter: an error, not a panic.
    assert!(parse(nested(70_000)).is_err());
}

#[test]
fn stray_markup_is_malformed_not_truncated() {
    for body in [
        "<error code=\"badVerb\">R & D</error>",
        "<!FOO><error code=\"badVerb\"/>",
    ] {
        let err = parse(page(body)).unwrap_err();
        assert!(
            matches!(err, ParseError::Malformed { .. }),
            "{body}: {err:?}"
        );
    }
}

/// Found by the `page` fuzz target (fuzz/regressions/page/attribute_without_value_in_metadata.xml):
/// attributes of elements the parser does not read were never parsed, so a page with a
/// malformed one parsed without error as long as it was not a `didl:Resource` being streamed.
#[test]
fn malformed_attributes_anywhere_are_errors() {
    for (attrs, malformed) in [
        ("flag", true),
        ("a=1", true),
        ("a='1' a='2'", true),
        ("a='&nbsp;'", false),
        ("a='&#1;'", false),
    ] {
        for body in [
            format!("<GetRecord><record><metadata><x:y xmlns:x=\"urn:x\" {attrs}/></metadata></record></GetRecord>"),
            format!("<Identify><description><z {attrs}/></description></Identify>"),
        ] {
            let err = parse(page(&body)).expect_err(&body);
            if malformed {
                assert!(matches!(err, ParseError::Malformed { .. }), "{body}: {err:?}");
            } else {
                assert!(matches!(err, ParseError::UndefinedEntity { .. } | ParseError::InvalidChar { .. }), "{body}: {err:?}");
            }
        }
    }
}

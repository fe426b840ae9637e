//! Fixtures that must not parse, and good ones broken on purpose.

use std::fs::File;
use std::io::BufReader;

use modoai_harvester::parse::{PageParser, ParseError};
use modoai_protocol::ns;

use super::{bytes, events, good_fixtures, path};

#[test]
fn negative_fixtures_are_errors() {
    let err = events("pyoai_NEG_Identify_bogus_element.xml").unwrap_err();
    let ParseError::Malformed {
        source: quick_xml::Error::IllFormed(ill),
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(
        ill.to_string().contains("bogus"),
        "the unclosed <bogus> is named: {ill}"
    );

    let err = events("pyoai_NEG_Identify_undefined_entity.xml").unwrap_err();
    assert!(
        matches!(&err, ParseError::UndefinedEntity { name, .. } if name == "bogus"),
        "{err:?}"
    );
    assert!(err.is_character_error());

    let err = events("lanl_adore_didl_standalone.xml").unwrap_err();
    assert!(matches!(err, ParseError::NotOaiPmh { .. }), "{err:?}");
    assert!(err.to_string().contains(ns::DIDL), "{err}");
}

#[test]
fn every_fixture_cut_short_is_truncated() {
    for name in good_fixtures() {
        let full = String::from_utf8(bytes(name)).unwrap();
        let open = full.find("<OAI-PMH").unwrap();
        let start = open + full[open..].find('>').unwrap() + 1;
        let end = full.rfind("</OAI-PMH>").unwrap();
        let step = ((end - start) / 40).max(1);
        for cut in (start..end)
            .step_by(step)
            .filter(|&cut| full.is_char_boundary(cut))
        {
            match PageParser::new(&full.as_bytes()[..cut]).collect::<Result<Vec<_>, _>>() {
                Err(ParseError::Truncated { .. }) => {}
                other => panic!("{name} cut at {cut}: {other:?}"),
            }
        }
    }
}

#[test]
fn small_read_buffers_give_the_same_events() {
    for name in good_fixtures() {
        let expected = events(name).unwrap();
        let reader = BufReader::with_capacity(3, File::open(path(name)).unwrap());
        let got: Vec<_> = PageParser::new(reader).collect::<Result<_, _>>().unwrap();
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn a_raw_control_character_in_a_real_page() {
    // TreeBASE/treebase#193: one 0x1A in a title killed the harvest. It still must not pass
    // silently; the position lets the harvester log the spot and retry with sanitising.
    let mut page = bytes("pyoai_ListRecords_oai_dc.xml");
    let at = page.windows(9).position(|w| w == b"<dc:title").unwrap() + 10;
    page[at] = 0x1A;
    let mut parser = PageParser::new(&page[..]);
    let before = parser.by_ref().take_while(Result::is_ok).count();
    assert_eq!(before, 1, "only the responseDate precedes the first record");
    let err = parser.next_event().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid XML character U+001A at byte {at}")
    );
    assert!(err.is_character_error());
}

//! The page parser against real responses from other implementations (`fixtures/SOURCES.md`).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::BufReader;
use std::path::PathBuf;

use modoai_harvester::parse::{
    Header, Identify, PageEvent, PageParser, ParseError, Record, ResumptionToken,
};
use modoai_protocol::{ns, Datestamp, ErrorCode, Granularity, Verb};

mod broken;
mod metadata;
mod stream;

fn path(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", name]
        .iter()
        .collect()
}

fn bytes(name: &str) -> Vec<u8> {
    fs::read(path(name)).unwrap()
}

fn events(name: &str) -> Result<Vec<PageEvent>, ParseError> {
    PageParser::new(BufReader::new(File::open(path(name)).unwrap())).collect()
}

/// What a well-formed page contains.
#[derive(Debug, Default)]
struct Page {
    verb: Option<Verb>,
    response_date: Option<Datestamp>,
    records: Vec<Record>,
    headers: Vec<Header>,
    sets: Vec<(String, String)>,
    formats: Vec<[String; 3]>,
    errors: Vec<ErrorCode>,
    identify: Option<Identify>,
    tokens: Vec<ResumptionToken>,
}

fn page(name: &str) -> Page {
    let mut parser = PageParser::new(BufReader::new(File::open(path(name)).unwrap()));
    let mut page = Page::default();
    while let Some(event) = parser
        .next_event()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {
        match event {
            PageEvent::ResponseDate(d) => page.response_date = Some(d),
            PageEvent::Error(e) => page.errors.push(e.code),
            PageEvent::Header(h) => page.headers.push(h),
            PageEvent::Record(r) => page.records.push(r),
            PageEvent::Set { spec, name, .. } => page.sets.push((spec, name)),
            PageEvent::Format {
                prefix,
                schema,
                namespace,
            } => page.formats.push([prefix, schema, namespace]),
            PageEvent::Identify(i) => page.identify = Some(i),
            PageEvent::Token(t) => page.tokens.push(t),
            other => panic!("{name}: unexpected {other:?}"),
        }
    }
    assert!(parser.is_complete(), "{name}");
    page.verb = parser.verb();
    page
}

/// How the list of a page ends.
#[derive(Debug)]
enum End {
    /// No `resumptionToken` element.
    NoToken,
    /// The empty token of the last page.
    Final,
    /// A token for the next page.
    More(&'static str),
}

/// A well-formed OAI-PMH fixture: name, verb, records, headers, sets, formats, how it ends.
type Expected = (&'static str, Option<Verb>, usize, usize, usize, usize, End);

#[rustfmt::skip]
const PAGES: &[Expected] = &[
    ("flevi_ListRecords_p1.xml", Some(Verb::ListRecords), 3, 0, 0, 0, End::More("177435798600000")),
    ("flevi_ListRecords_p2.xml", Some(Verb::ListRecords), 3, 0, 0, 0, End::More("177435798700000")),
    ("flevi_ListRecords_p3_no_token.xml", Some(Verb::ListRecords), 3, 0, 0, 0, End::NoToken),
    ("gmh_GetRecord_nl_didl_differ.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("gmh_GetRecord_nl_didl_uu.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("lanl_adore_GetRecord_didl.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("mc_Identify_persistent_oai-identifier.xml", Some(Verb::Identify), 0, 0, 0, 0, End::NoToken),
    ("php_GetRecord_nsdl_dc.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("php_Identify_nsdl.xml", Some(Verb::Identify), 0, 0, 0, 0, End::NoToken),
    ("php_ListIdentifiers_p1.xml", Some(Verb::ListIdentifiers), 0, 200, 0, 0, End::More("0/200/733/nsdl_dc/null/2012-07-26/null")),
    ("php_ListIdentifiers_p2.xml", Some(Verb::ListIdentifiers), 0, 200, 0, 0, End::More("200/400/733/nsdl_dc/null/2012-07-26/null")),
    ("php_ListIdentifiers_p3.xml", Some(Verb::ListIdentifiers), 0, 200, 0, 0, End::More("400/600/733/nsdl_dc/null/2012-07-26/null")),
    ("php_ListIdentifiers_p4_final.xml", Some(Verb::ListIdentifiers), 0, 133, 0, 0, End::Final),
    ("php_ListRecords_bnf_oai_dc.xml", Some(Verb::ListRecords), 1, 0, 0, 0, End::More("1!53691!20513471!2505879!100!2402263!oai_dc")),
    ("pyoai_GetRecord_deleted.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("pyoai_GetRecord_oai_dc.xml", Some(Verb::GetRecord), 1, 0, 0, 0, End::NoToken),
    ("pyoai_Identify.xml", Some(Verb::Identify), 0, 0, 0, 0, End::NoToken),
    ("pyoai_ListIdentifiers_from.xml", Some(Verb::ListIdentifiers), 0, 16, 0, 0, End::NoToken),
    ("pyoai_ListMetadataFormats.xml", Some(Verb::ListMetadataFormats), 0, 0, 0, 1, End::NoToken),
    ("pyoai_ListRecords_oai_dc.xml", Some(Verb::ListRecords), 16, 0, 0, 0, End::NoToken),
    ("pyoai_ListSets.xml", Some(Verb::ListSets), 0, 0, 10, 0, End::NoToken),
];

/// Error responses and their single code.
const ERRORS: &[(&str, ErrorCode)] = &[
    ("flevi_error_idDoesNotExist.xml", ErrorCode::IdDoesNotExist),
    (
        "mc_error_cannotDisseminateFormat.xml",
        ErrorCode::CannotDisseminateFormat,
    ),
    ("php_error_badVerb.xml", ErrorCode::BadVerb),
    ("php_error_idDoesNotExist.xml", ErrorCode::IdDoesNotExist),
];

/// Documents that must not parse.
const BROKEN: &[&str] = &[
    "lanl_adore_didl_standalone.xml",
    "pyoai_NEG_Identify_bogus_element.xml",
    "pyoai_NEG_Identify_undefined_entity.xml",
];

fn good_fixtures() -> impl Iterator<Item = &'static str> {
    PAGES.iter().map(|p| p.0).chain(ERRORS.iter().map(|e| e.0))
}

#[test]
fn every_fixture_is_covered() {
    let on_disk: BTreeSet<String> = fs::read_dir(path(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".xml"))
        .collect();
    let listed: BTreeSet<String> = good_fixtures()
        .chain(BROKEN.iter().copied())
        .map(String::from)
        .collect();
    assert_eq!(on_disk, listed);
    assert_eq!(listed.len(), 28, "SOURCES.md lists 28 documents");
}

#[test]
fn every_page_has_its_items_and_its_end() {
    for (name, verb, records, headers, sets, formats, end) in PAGES {
        let page = page(name);
        let counts = (
            page.verb,
            page.records.len(),
            page.headers.len(),
            page.sets.len(),
            page.formats.len(),
        );
        assert_eq!(
            counts,
            (*verb, *records, *headers, *sets, *formats),
            "{name}"
        );
        assert!(
            page.errors.is_empty() && page.response_date.is_some(),
            "{name}"
        );
        let got = match page.tokens.as_slice() {
            [] => None,
            [token] => Some(token.token.as_str()),
            many => panic!("{name}: {} tokens", many.len()),
        };
        let want = match end {
            End::NoToken => None,
            End::Final => Some(""),
            End::More(token) => Some(*token),
        };
        assert_eq!(got, want, "{name}");
        let items = page.records.iter().map(|r| &r.header).chain(&page.headers);
        for header in items {
            assert!(
                !header.identifier.is_empty() && header.datestamp.is_some(),
                "{name}: {header:?}"
            );
        }
    }
}

#[test]
fn error_fixtures_give_their_code() {
    for (name, code) in ERRORS {
        let page = page(name);
        assert_eq!(page.errors, [*code], "{name}");
        assert_eq!(page.verb, None, "{name}");
        assert!(page.response_date.is_some() && page.records.is_empty() && page.tokens.is_empty());
    }
    let events = events("php_error_badVerb.xml").unwrap();
    let PageEvent::Error(e) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(
        e.message, "The verb 'NotExist' is illegal",
        "&#39; resolved"
    );
}

#[test]
fn php_pages_chain_to_the_empty_final_token() {
    let names = ["p1", "p2", "p3", "p4_final"].map(|p| format!("php_ListIdentifiers_{p}.xml"));
    let pages: Vec<Page> = names.iter().map(|n| page(n)).collect();
    let cursors: Vec<_> = pages.iter().map(|p| p.tokens[0].cursor).collect();
    assert_eq!(cursors, [Some(0), Some(200), Some(400), Some(600)]);
    let expiry = Datestamp::parse_request("2099-01-01T01:30:28Z").unwrap().0;
    for p in &pages {
        assert_eq!(
            (p.tokens[0].complete_list_size, p.tokens[0].expiration),
            (Some(733), Some(expiry))
        );
    }
    let total: usize = pages.iter().map(|p| p.headers.len()).sum();
    assert_eq!(total, 733, "the headers add up to completeListSize");
    let last = &pages[3].tokens[0];
    assert_eq!(
        (last.token.as_str(), last.cursor, last.complete_list_size),
        ("", Some(600), Some(733))
    );
}

#[test]
fn flevi_pages_end_without_a_token() {
    let pages = ["p1", "p2", "p3_no_token"].map(|p| page(&format!("flevi_ListRecords_{p}.xml")));
    let ids: Vec<String> = pages
        .iter()
        .flat_map(|p| &p.records)
        .map(|r| r.header.identifier.clone())
        .collect();
    assert_eq!(
        ids,
        (1..=9)
            .map(|i| format!("oai:tethys.at:{i}"))
            .collect::<Vec<_>>()
    );
    let attrs: Vec<_> = pages[..2]
        .iter()
        .map(|p| (p.tokens[0].cursor, p.tokens[0].complete_list_size))
        .collect();
    assert_eq!(
        attrs,
        [(Some(0), Some(3)), (Some(1), Some(3))],
        "cursor and size count pages here"
    );
    assert!(pages[2].tokens.is_empty());
}

#[test]
fn deleted_record_without_metadata() {
    let deleted = page("pyoai_GetRecord_deleted.xml").records.remove(0);
    let header = &deleted.header;
    assert!(header.deleted && deleted.metadata.is_none());
    assert_eq!(header.identifier, "hdl:1765/1160");
    assert_eq!(header.set_specs, ["1:1", "1:1"], "duplicates are kept");
    assert_eq!(
        header.datestamp.unwrap().to_string(),
        "2004-02-16T13:29:54Z"
    );
    let live =
        ["pyoai_GetRecord_oai_dc.xml", "pyoai_ListRecords_oai_dc.xml"].map(|n| page(n).records);
    assert!(live
        .iter()
        .flatten()
        .all(|r| !r.header.deleted && r.metadata.is_some()));
}

#[test]
fn identify_fixtures() {
    let pyoai = page("pyoai_Identify.xml").identify.unwrap();
    assert_eq!(
        pyoai.repository_name,
        "Erasmus University : Research Online"
    );
    assert_eq!(pyoai.base_url, "http://dspace.ubib.eur.nl/oai/");
    assert_eq!(
        (
            pyoai.protocol_version.as_str(),
            pyoai.deleted_record.as_str()
        ),
        ("2.0", "no")
    );
    assert_eq!(pyoai.admin_emails, ["service@ubib.eur.nl"]);
    assert_eq!(pyoai.compression, ["gzip", "compress", "deflate"]);
    assert_eq!(
        pyoai.earliest_datestamp.unwrap().to_string(),
        "2001-01-01T00:00:00Z"
    );
    assert_eq!(pyoai.granularity, Some(Granularity::Seconds));

    let nsdl = page("php_Identify_nsdl.xml").identify.unwrap();
    assert_eq!(
        (nsdl.base_url.as_str(), nsdl.admin_emails.as_slice()),
        ("http://nsdl.org/oai", &["jweather@ucar.edu".to_owned()][..])
    );
    assert_eq!(
        nsdl.earliest_datestamp.unwrap().to_string(),
        "1900-01-01T12:00:00Z"
    );
    assert_eq!(nsdl.compression, ["gzip"]);

    let mc = page("mc_Identify_persistent_oai-identifier.xml")
        .identify
        .unwrap();
    assert_eq!(
        (mc.repository_name.as_str(), mc.deleted_record.as_str()),
        ("ArchivesSpace OAI Provider", "persistent")
    );
    assert_eq!(
        (mc.granularity, mc.compression.len()),
        (Some(Granularity::Seconds), 0)
    );
}

#[test]
fn sets_and_formats() {
    let sets = page("pyoai_ListSets.xml").sets;
    assert_eq!(
        sets[0],
        (
            "3".to_owned(),
            "Erasmus MC (University Medical Center Rotterdam)".to_owned()
        )
    );
    assert_eq!(sets[9].0, "2:3");
    let formats = page("pyoai_ListMetadataFormats.xml").formats;
    assert_eq!(
        formats,
        [["oai_dc", ns::OAI_DC_XSD, ns::OAI_DC].map(String::from)]
    );
}

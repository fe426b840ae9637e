//! Metadata kept as XML: every fragment must parse on its own, namespaces included.

use modoai_protocol::ns;
use quick_xml::events::Event;
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

use super::{page, PAGES};

/// The namespace of the first element of an XML fragment, after reading it whole.
fn root_namespace(xml: &str) -> Vec<u8> {
    let mut reader = NsReader::from_str(xml);
    let mut root = None;
    loop {
        match reader
            .read_resolved_event()
            .unwrap_or_else(|e| panic!("{e}: {xml}"))
        {
            (ResolveResult::Bound(Namespace(ns)), Event::Start(_) | Event::Empty(_))
                if root.is_none() =>
            {
                root = Some(ns.to_vec());
            }
            (ResolveResult::Unknown(prefix), _) => panic!("unbound prefix {prefix:?} in {xml}"),
            (_, Event::Eof) => return root.expect("a root element"),
            _ => {}
        }
    }
}

#[test]
fn didl_metadata_is_kept_as_xml() {
    for name in [
        "lanl_adore_GetRecord_didl.xml",
        "gmh_GetRecord_nl_didl_uu.xml",
        "gmh_GetRecord_nl_didl_differ.xml",
    ] {
        let page = page(name);
        let xml = page.records[0].metadata.as_deref().unwrap();
        assert!(
            xml.starts_with("<didl:DIDL ") && xml.ends_with("</didl:DIDL>"),
            "{name}"
        );
        assert_eq!(root_namespace(xml), ns::DIDL.as_bytes(), "{name}");
    }
    let lanl = page("lanl_adore_GetRecord_didl.xml");
    let xml = lanl.records[0].metadata.as_deref().unwrap();
    assert!(
        xml.contains(r#"<record xsi:schemaLocation="http://www.loc.gov/MARC21/slim"#),
        "MARC record kept"
    );
    assert!(xml.contains("&amp;rfr_id="), "escapes kept as sent");
    assert_eq!(
        lanl.records[0].header.set_specs[0],
        "collection:info*3Asid*2Flibrary.lanl.gov*3Asciserver"
    );
}

#[test]
fn every_metadata_fragment_stands_alone() {
    let mut checked = 0;
    for (name, ..) in PAGES {
        let expected = match *name {
            n if n.contains("didl") => ns::DIDL,
            n if n.contains("nsdl_dc") => "http://ns.nsdl.org/nsdl_dc_v1.02/",
            _ => ns::OAI_DC,
        };
        for xml in page(name).records.into_iter().filter_map(|r| r.metadata) {
            assert_eq!(root_namespace(&xml), expected.as_bytes(), "{name}");
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        9 + 2 + 1 + 1 + 1 + 1 + 16,
        "flevi, gmh, lanl, php, bnf, pyoai"
    );
    // BnF and flevi declare the oai_dc and dc prefixes on the root only.
    for name in ["php_ListRecords_bnf_oai_dc.xml", "flevi_ListRecords_p1.xml"] {
        let xml = page(name).records[0].metadata.clone().unwrap();
        assert_eq!(root_namespace(&xml), ns::OAI_DC.as_bytes(), "{name}");
        assert!(
            xml.contains(&format!(r#"xmlns:dc="{}""#, ns::DC)),
            "{name}: {xml}"
        );
    }
}

//! Each verb answered correctly, over GET and POST, and valid against the schemas.

use integration_tests::{Server, TestSite};
use modoai::sets::FolderSets;

use crate::example_ids;

#[tokio::test]
async fn identify_describes_the_repository() {
    let site = TestSite::example();
    site.write("old.txt", b"old", Some(1_000_000_000));
    let server = Server::start(site.path(), |c| c.repository_name("Example site")).await;
    let r = server.oai("verb=Identify");
    let r = r.await;
    r.assert_valid();
    assert_eq!(r.texts("repositoryName"), ["Example site"]);
    assert_eq!(r.texts("baseURL"), std::slice::from_ref(&server.oai));
    assert_eq!(server.oai, format!("{}modoai", server.base));
    assert_eq!(r.texts("protocolVersion"), ["2.0"]);
    assert_eq!(r.texts("adminEmail"), ["webmaster@example.org"]);
    assert_eq!(
        r.texts("earliestDatestamp"),
        ["2001-09-09T01:46:40Z"],
        "the oldest mtime"
    );
    assert_eq!(r.texts("deletedRecord"), ["transient"]);
    assert_eq!(r.texts("granularity"), ["YYYY-MM-DDThh:mm:ssZ"]);
    assert_eq!(
        r.request_attrs().get("verb").map(String::as_str),
        Some("Identify")
    );
    let date = &r.texts("responseDate")[0];
    assert_eq!(date.len(), 20, "no fractions: {date}");
    assert!(date.ends_with('Z'));
}

#[tokio::test]
async fn every_verb_over_get_and_post_agrees() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let id = server.id("images/logo.png");
    let enc = modoai_protocol::form::encode(&id);
    for q in [
        "verb=Identify".to_owned(),
        "verb=ListMetadataFormats".to_owned(),
        format!("verb=ListMetadataFormats&identifier={enc}"),
        "verb=ListSets".to_owned(),
        "verb=ListIdentifiers&metadataPrefix=oai_dc".to_owned(),
        "verb=ListRecords&metadataPrefix=oai_dc".to_owned(),
        "verb=ListRecords&metadataPrefix=oai_didl".to_owned(),
        format!("verb=GetRecord&metadataPrefix=oai_dc&identifier={enc}"),
        format!("verb=GetRecord&metadataPrefix=oai_didl&identifier={enc}"),
    ] {
        let get = server.oai(&q).await;
        get.assert_valid();
        assert!(get.error_codes().is_empty(), "{q}: {}", get.text());
        let post = server.post(&q).await;
        post.assert_valid();
        let strip = |s: &str| s.split("</responseDate>").nth(1).map(str::to_owned);
        assert_eq!(
            strip(get.text()),
            strip(post.text()),
            "{q}: GET and POST differ"
        );
    }
}

#[tokio::test]
async fn lists_every_visible_regular_file() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let r = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await;
    r.assert_valid();
    let mut ids = r.texts("identifier");
    ids.sort();
    assert_eq!(
        ids,
        example_ids(&server),
        "hidden files and folders are not records"
    );
    assert!(
        r.token().is_none(),
        "a list that fits one page has no token"
    );
    let records = server.oai("verb=ListRecords&metadataPrefix=oai_dc").await;
    assert_eq!(records.texts("record").len(), ids.len());
}

#[tokio::test]
async fn metadata_formats() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let r = server
        .oai(&format!(
            "verb=ListMetadataFormats&identifier={}",
            server.id("index.html")
        ))
        .await;
    r.assert_valid();
    assert_eq!(r.texts("metadataPrefix"), ["oai_dc", "oai_didl"]);
    assert_eq!(
        r.texts("metadataNamespace"),
        [
            "http://www.openarchives.org/OAI/2.0/oai_dc/",
            "urn:mpeg:mpeg21:2002:02-DIDL-NS"
        ]
    );
    assert_eq!(
        r.texts("schema"),
        ["http://www.openarchives.org/OAI/2.0/oai_dc.xsd", "http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-21_schema_files/did/didl.xsd"]
    );
}

#[tokio::test]
async fn sets_are_the_mime_hierarchy() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let r = server.oai("verb=ListSets").await;
    r.assert_valid();
    let specs = r.texts("setSpec");
    assert_eq!(
        specs[0], "mime",
        "a plain root set first (the validator picks the first)"
    );
    for s in [
        "mime:image",
        "mime:image:jpeg",
        "mime:image:svg*2Bxml",
        "mime:text:html",
        "mime:application:pdf",
    ] {
        assert!(specs.contains(&s.to_owned()), "{s} in {specs:?}");
    }
    assert!(r
        .texts("setName")
        .contains(&"Files of MIME type image/svg+xml".to_owned()));
    let svg = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc&set=mime:image:svg*2Bxml")
        .await;
    assert_eq!(svg.texts("identifier"), [server.id("images/icon.svg")]);
    let images = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc&set=mime:image")
        .await;
    assert_eq!(
        images.texts("identifier").len(),
        6,
        "the set and its descendants"
    );
    for specs in images.texts("header") {
        assert!(specs.contains("mime:image"), "{specs}");
    }
}

#[tokio::test]
async fn dublin_core_describes_the_file() {
    let site = TestSite::example();
    site.write("docs/notes.txt", b"hello", Some(1_600_000_000));
    // The MIME sets are the subject here; the folder sets are `sets.rs`'s.
    let server = Server::start(site.path(), |c| c.folder_sets(FolderSets::Off)).await;
    let id = server.id("docs/notes.txt");
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={id}"
        ))
        .await;
    r.assert_valid();
    assert_eq!(r.texts("title"), ["notes.txt"]);
    assert_eq!(r.texts("identifier"), [id.clone(), id]);
    assert_eq!(r.texts("type"), ["Text"]);
    assert_eq!(r.texts("format"), ["text/plain", "5 bytes"]);
    assert_eq!(r.texts("date"), ["2020-09-13T12:26:40Z"]);
    assert_eq!(r.texts("datestamp"), ["2020-09-13T12:26:40Z"]);
    assert_eq!(r.texts("setSpec"), ["mime", "mime:text", "mime:text:plain"]);
    let jpeg = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            server.id("images/sunset.jpg")
        ))
        .await;
    assert_eq!(jpeg.texts("type"), ["StillImage"]);
}

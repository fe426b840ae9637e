//! `oai_didl`: the Base64 payload is exactly the bytes of a plain GET, the header block is the
//! plain GET's headers, big files go by reference, hostile names stay well-formed.

use base64::Engine;
use integration_tests::{element_attrs, texts, Server, TestSite};

use crate::EXAMPLE_FILES;

fn header_map(xml: &[u8]) -> std::collections::BTreeMap<String, String> {
    integration_tests::http_headers(xml).into_iter().collect()
}

#[tokio::test]
async fn payload_is_the_plain_get_byte_for_byte() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    for path in EXAMPLE_FILES {
        let url = server.id(path);
        let plain = server.get(&url).await;
        assert_eq!(plain.status, 200, "{url}");
        let r = server
            .oai(&format!(
                "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
                modoai_protocol::form::encode(&url)
            ))
            .await;
        r.assert_valid();
        let resources = element_attrs(&r.body, "Resource");
        assert_eq!(resources.len(), 2, "{url}: by value, then by reference");
        assert_eq!(resources[0]["encoding"], "base64");
        assert_eq!(resources[1]["ref"], url);
        let ct = plain.headers["content-type"].to_str().unwrap();
        assert_eq!(
            resources[0]["mimeType"], ct,
            "the record's type is what visitors get"
        );
        let b64 = &texts(&r.body, "Resource")[0];
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .expect("valid Base64");
        assert_eq!(bytes, plain.body, "{url}");
        let headers = header_map(&r.body);
        for h in ["content-type", "content-length", "last-modified", "etag"] {
            assert_eq!(
                headers.get(h).map(String::as_str),
                plain.headers.get(h).map(|v| v.to_str().unwrap()),
                "{url}: {h}"
            );
        }
        assert_eq!(texts(&r.body, "Identifier"), std::slice::from_ref(&url));
        assert_eq!(element_attrs(&r.body, "DIDL")[0]["DIDLDocumentId"], url);
        assert_eq!(element_attrs(&r.body, "httpResponse")[0]["status"], "200");
    }
}

#[tokio::test]
async fn large_files_go_by_reference_only() {
    let site = TestSite::empty();
    site.write("small.bin", &[7u8; 1000], None);
    site.write("large.bin", &[9u8; 5000], None);
    let server = Server::start(site.path(), |c| c.inline_max(4096)).await;
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
            server.id("large.bin")
        ))
        .await;
    r.assert_valid();
    let resources = element_attrs(&r.body, "Resource");
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0]["ref"], server.id("large.bin"));
    assert_eq!(
        header_map(&r.body)["content-length"],
        "5000",
        "headers from a HEAD"
    );
    let all = server.oai("verb=ListRecords&metadataPrefix=oai_didl").await;
    all.assert_valid();
    assert_eq!(element_attrs(&all.body, "Resource").len(), 3);
}

#[tokio::test]
async fn hostile_file_names_and_content_keep_the_document_valid() {
    use std::os::unix::ffi::OsStrExt;
    let site = TestSite::empty();
    let names: [&[u8]; 4] = [
        b"ctl\x01\x1b\x7f.txt",
        b"cdata]]>&<\"'.txt",
        b"bad\xff\xfeutf8.txt",
        b"sp ace+plus%25.txt",
    ];
    for n in names {
        let path = site.path().join(std::ffi::OsStr::from_bytes(n));
        std::fs::write(path, b"]]>\x00\x01 <not xml> \xff").unwrap();
    }
    let server = Server::start(site.path(), |c| c).await;
    for prefix in ["oai_dc", "oai_didl"] {
        let r = server
            .oai(&format!("verb=ListRecords&metadataPrefix={prefix}"))
            .await;
        r.assert_valid();
        assert_eq!(r.texts("record").len(), 4, "{prefix}");
    }
    let ids = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await
        .texts("identifier");
    for id in &ids {
        assert!(modoai_protocol::request::is_uri(id), "{id}");
        let got = server.get(id).await;
        assert_eq!(
            got.status, 200,
            "the identifier is where the site serves the file: {id}"
        );
        let r = server
            .oai(&format!(
                "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
                modoai_protocol::form::encode(id)
            ))
            .await;
        r.assert_valid();
    }
    assert!(ids.contains(&server.id("bad%FF%FEutf8.txt")));
}

//! The front doors beside the OAI-PMH XML: content negotiation of the HTML view (harvesters keep
//! the exact XML), the route that always answers XML, FAIR Signposting `Link` headers and
//! Linksets, checked with the `signposting` package as the independent client.

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::Full;
use integration_tests::{run_python, Reply, Server, TestSite};
use modoai::Plugins;

/// What Chromium sends for a page.
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

async fn request(server: &Server, method: Method, url: &str, accept: Option<&str>) -> Reply {
    let mut req = Request::builder().method(method).uri(url);
    if let Some(a) = accept {
        req = req.header("accept", a);
    }
    server
        .send(req.body(Full::<Bytes>::default()).unwrap())
        .await
}

/// The example site with the md5 plugin, so that `oai_crate` is offered too.
async fn example_with_crate() -> (TestSite, Server, tempfile::TempDir) {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("plugins.toml");
    std::fs::write(
        &path,
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
    )
    .unwrap();
    let plugins = Plugins::load(&path).await.unwrap();
    let server = Server::start(site.path(), |c| c.plugins(plugins).page_size(5)).await;
    (site, server, work)
}

#[tokio::test]
async fn harvesters_get_the_xml_they_always_got_and_browsers_a_page() {
    let (_site, server, _work) = example_with_crate().await;
    let url = format!("{}?verb=ListIdentifiers&metadataPrefix=oai_dc", server.oai);
    let plain = request(&server, Method::GET, &url, None).await;
    plain.assert_valid();
    for accept in [
        "*/*",
        "text/xml",
        "application/xml",
        "text/html, text/xml",
        "text/*",
    ] {
        let r = request(&server, Method::GET, &url, Some(accept)).await;
        r.assert_valid();
        assert_eq!(r.headers["vary"], "accept", "{accept}");
        assert_eq!(r.texts("identifier"), plain.texts("identifier"), "{accept}");
    }
    let page = request(&server, Method::GET, &url, Some(BROWSER)).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(page.headers["vary"], "accept");
    let html = page.text();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("modoai repository of 127.0.0.1"), "{html}");
    assert!(
        html.contains(&format!(">{}about.html</a>", server.base)),
        "{html}"
    );
    assert!(
        html.contains("rel=\"next\""),
        "page size 5 of 14: a next page"
    );
    // The raw route answers XML whatever Accept says, and names the OAI route as baseURL.
    let raw = format!(
        "{}/xml?verb=ListIdentifiers&metadataPrefix=oai_dc",
        server.oai
    );
    let xml = request(&server, Method::GET, &raw, Some(BROWSER)).await;
    xml.assert_valid();
    assert_eq!(xml.texts("identifier"), plain.texts("identifier"));
    assert_eq!(xml.texts("request")[0], server.oai);
    assert!(
        html.contains(&format!(
            "href=\"{}/xml?verb=ListIdentifiers&amp;metadataPrefix=oai_dc\"",
            server.oai
        )),
        "{html}"
    );
    // Asking for the XML view with an argument stays what OAI-PMH says it is: a bad argument.
    let extra = server.oai("verb=Identify&format=xml").await;
    assert_eq!(extra.assert_valid().error_codes(), ["badArgument"]);
    server.stop().await;
}

#[tokio::test]
async fn the_html_view_links_files_explains_errors_and_can_be_turned_off() {
    let (_site, server, _work) = example_with_crate().await;
    let id = server.id("images/logo.png");
    let url = format!(
        "{}?verb=GetRecord&metadataPrefix=oai_crate&identifier={id}",
        server.oai
    );
    let html = request(&server, Method::GET, &url, Some(BROWSER)).await;
    let text = html.text();
    assert!(
        text.contains(&format!("<a href=\"{id}\">{id}</a>")),
        "the file is linked: {text}"
    );
    assert!(
        !text.contains("iVBORw0KGgo"),
        "no Base64 of the PNG on the page"
    );
    assert!(
        text.contains("<td>md5</td>"),
        "the CRATE's tools as a table: {text}"
    );
    let xml = server.get(&url).await;
    let md5 = xml.texts("output");
    assert_eq!(md5.len(), 1);
    assert!(text.contains(&md5[0]), "the tool's finding: {text}");
    let bad = format!(
        "{}?verb=GetRecord&metadataPrefix=oai_dc&identifier=http://elsewhere.example/x",
        server.oai
    );
    let err = request(&server, Method::GET, &bad, Some(BROWSER)).await;
    assert!(
        err.text().contains("Error: idDoesNotExist")
            && err.text().contains("Identifiers are the URLs"),
        "{}",
        err.text()
    );
    server.stop().await;

    let site = TestSite::example();
    let off = Server::start(site.path(), |c| c.html_view(false)).await;
    let r = request(
        &off,
        Method::GET,
        &format!("{}?verb=Identify", off.oai),
        Some(BROWSER),
    )
    .await;
    r.assert_valid();
    assert!(r.headers.get("vary").is_none());
    off.stop().await;
}

#[tokio::test]
async fn files_carry_signposts_that_the_signposting_client_reads() {
    let (_site, server, _work) = example_with_crate().await;
    let file = server.id("docs/report.pdf");
    for method in [Method::GET, Method::HEAD] {
        let r = request(&server, method.clone(), &file, None).await;
        assert_eq!(r.status, 200);
        let link = r.headers["link"].to_str().unwrap();
        assert!(
            link.contains(&format!("<{file}>; rel=\"cite-as\"")),
            "{method}: {link}"
        );
    }
    // Never on the OAI route's own answers, nor on what is not a record.
    assert!(server
        .oai("verb=Identify")
        .await
        .headers
        .get("link")
        .is_none());
    for path in ["", "docs/", "no-such.txt", ".private/secret.txt"] {
        let r = request(
            &server,
            Method::GET,
            &format!("{}{path}", server.base),
            None,
        )
        .await;
        assert!(r.headers.get("link").is_none(), "{path}: {:?}", r.headers);
    }
    let (ok, out, err) = run_python("signposting_check.py", &["http", &file]).await;
    assert!(ok, "{err}");
    let found = integration_tests::json(&out);
    assert_eq!(found["citeAs"], file);
    assert_eq!(
        found["types"],
        serde_json::json!(["https://schema.org/DigitalDocument"])
    );
    let described = found["describedBy"].as_array().unwrap();
    assert_eq!(described.len(), 3, "oai_dc, oai_didl, oai_crate: {out}");
    for d in described {
        assert_eq!(d["type"], "text/xml");
        // Each target is the GetRecord of that format, and answers a valid record.
        let target = d["target"].as_str().unwrap();
        let record = server.get(target).await;
        record.assert_valid();
        assert_eq!(record.texts("identifier")[0], file);
    }
    let profiles: Vec<&str> = described
        .iter()
        .map(|d| d["profiles"][0].as_str().unwrap())
        .collect();
    assert!(
        profiles.contains(&"http://www.openarchives.org/OAI/2.0/oai_dc/"),
        "{profiles:?}"
    );
    assert_eq!(found["linksets"].as_array().unwrap().len(), 2, "{out}");
    server.stop().await;
}

#[tokio::test]
async fn linksets_describe_records_only() {
    let (_site, server, _work) = example_with_crate().await;
    let file = server.id("images/sunset.jpg");
    let q = percent_encoding::utf8_percent_encode(&file, percent_encoding::NON_ALPHANUMERIC);
    let text_url = format!("{}/linkset?uri={q}", server.oai);
    let text = server.get(&text_url).await;
    assert_eq!(text.status, 200);
    assert_eq!(text.headers["content-type"], "application/linkset");
    let (ok, out, err) = run_python("signposting_check.py", &["linkset", &text_url, &file]).await;
    assert!(ok, "{err}");
    let found = integration_tests::json(&out);
    assert_eq!(found["citeAs"], file);
    assert_eq!(
        found["types"],
        serde_json::json!(["https://schema.org/ImageObject"])
    );
    assert_eq!(found["describedBy"].as_array().unwrap().len(), 3);
    assert_eq!(found["describes"], serde_json::json!([file, file, file]));
    // The JSON Linkset (RFC 9264 §4.2): anchors, arrays of targets, profile as an array.
    let json = server
        .get(&format!("{}/linkset.json?uri={q}", server.oai))
        .await;
    assert_eq!(json.headers["content-type"], "application/linkset+json");
    let v: serde_json::Value = serde_json::from_slice(&json.body).unwrap();
    let contexts = v["linkset"].as_array().unwrap();
    assert_eq!(contexts[0]["anchor"], file);
    for d in contexts[0]["describedby"].as_array().unwrap() {
        assert!(d["profile"].is_array(), "{d}");
        assert_eq!(d["type"], "text/xml");
    }
    assert!(contexts[1..]
        .iter()
        .all(|c| c["describes"][0]["href"] == file));
    // Nothing outside the index: 404 with a short text; no uri: 400.
    for uri in [
        "http://elsewhere.example/x",
        &server.id(".private/secret.txt"),
        &server.id("../etc/passwd"),
    ] {
        let q = percent_encoding::utf8_percent_encode(uri, percent_encoding::NON_ALPHANUMERIC);
        let r = server
            .get(&format!("{}/linkset.json?uri={q}", server.oai))
            .await;
        assert_eq!(r.status, 404, "{uri}");
        assert_eq!(r.text(), "no record has this identifier\n");
    }
    assert_eq!(
        server.get(&format!("{}/linkset", server.oai)).await.status,
        400
    );
    server.stop().await;

    let site = TestSite::example();
    let off = Server::start(site.path(), |c| c.signposting(false)).await;
    assert!(off
        .get(&off.id("index.html"))
        .await
        .headers
        .get("link")
        .is_none());
    assert_eq!(
        off.get(&format!("{}/linkset?uri={q}", off.oai))
            .await
            .status,
        404
    );
    off.stop().await;
}

//! Memento (RFC 7089) and PWID: TimeMaps, the TimeGate, mementos byte-exact, PWID redirects;
//! compared with pywb's answers on the same archive.

use std::collections::BTreeMap;

use integration_tests::python::python;

use super::harvested;

fn base32_sha1(bytes: &[u8]) -> String {
    let digest = modoai_archive::warc::sha1_digest(bytes);
    digest.trim_start_matches("sha1:").to_owned()
}

/// The mementos of a link-format TimeMap: (URI-M, rel, datetime), in order.
pub(crate) fn mementos(timemap: &str) -> Vec<(String, String, String)> {
    timemap
        .split(",\n")
        .filter(|l| l.contains("memento"))
        .map(|l| {
            let uri = l[1..l.find('>').unwrap()].to_owned();
            let attr = |name: &str| {
                let at = l.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                l[at..at + l[at..].find('"').unwrap()].to_owned()
            };
            (uri, attr("rel"), attr("datetime"))
        })
        .collect()
}

#[test]
fn the_timemap_follows_rfc_7089_and_lists_what_pywb_lists() {
    let e = super::shared_explorer("memento-timemap", false);
    let url = format!("{}images/sunset.jpg", harvested().base);
    let r = e.get_ready(&format!("/timemap/link/{url}"), None);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/link-format"));
    let entries: Vec<&str> = r.body.trim_end().split(",\n").collect();
    assert_eq!(
        entries[0],
        format!("<{url}>; rel=\"original\""),
        "§5: the original first"
    );
    assert!(
        entries[1].contains("rel=\"self\"")
            && entries[1].contains("type=\"application/link-format\"")
            && entries[1].contains("from=\"")
            && entries[1].contains("until=\"")
    );
    assert!(entries[2].ends_with("; rel=\"timegate\""));
    let ours = mementos(&r.body);
    assert_eq!(ours.len(), 1);
    assert_eq!(
        ours[0].1, "first last memento",
        "§2.2: first and last combine with memento"
    );
    assert!(
        ours[0].2.ends_with(" GMT") && httpdate::parse_http_date(&ours[0].2).is_ok(),
        "§2.1.1: an HTTP-date"
    );
    let json = e.get_ready(&format!("/timemap/json/{url}"), None).json();
    assert_eq!(json["mementos"]["list"].as_array().unwrap().len(), 1);
    assert_eq!(json["original_uri"], url.as_str());
    // pywb on the same archive lists the same captures, and replays the same bytes.
    let logo = format!("{}images/logo.png", harvested().base);
    let archive = harvested().archive.to_str().unwrap().to_owned();
    let pywb = integration_tests::json(&python("pywb_memento.py", &[&archive, &url, &logo]));
    for u in [&url, &logo] {
        let ours = mementos(&e.get_ready(&format!("/timemap/link/{u}"), None).body);
        let stamps: Vec<String> = ours
            .iter()
            .map(|m| m.0.split('/').nth(4).unwrap().to_owned())
            .collect();
        let theirs: Vec<String> = pywb["urls"][u.as_str()]["timemap"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(stamps, theirs, "{u}");
        let bodies: BTreeMap<String, String> =
            serde_json::from_value(pywb["urls"][u.as_str()]["bodies"].clone()).unwrap();
        for (ts, sha1) in bodies {
            let m = e.get(&format!("/memento/{ts}/{u}"), None);
            assert_eq!(
                base32_sha1(&m.bytes),
                sha1,
                "{u} at {ts}: the same bytes as pywb's id_ replay"
            );
        }
    }
}

#[test]
fn the_timegate_redirects_to_the_closest_memento_and_refuses_malformed_dates() {
    let e = super::shared_explorer("memento-timegate", false);
    let url = format!("{}docs/report.pdf", harvested().base);
    let r = super::get(
        e.port,
        &format!("/timegate/{url}"),
        &[("Accept-Datetime", "Tue, 20 Mar 2001 20:35:00 GMT")],
    );
    assert_eq!(r.status, 302, "{}", r.body);
    assert_eq!(r.header("vary"), Some("accept-datetime"), "§2.1.2");
    let location = r.header("location").unwrap().to_owned();
    assert!(
        location.contains("/memento/") && location.ends_with(&url),
        "{location}"
    );
    let link = r.header("link").unwrap();
    assert!(
        link.contains(&format!("<{url}>; rel=\"original\"")) && link.contains("rel=\"timemap\""),
        "{link}"
    );
    assert!(
        r.header("memento-datetime").is_none(),
        "§4.2.1: a 302 TimeGate sends no Memento-Datetime"
    );
    let without = super::get(e.port, &format!("/timegate/{url}"), &[]);
    assert_eq!(
        without.status, 302,
        "no Accept-Datetime: the latest memento"
    );
    for bad in [
        "yesterday",
        "2001-03-20T20:35:00Z",
        "Tue, 20 Mar 2001 20:35:00",
    ] {
        let r = super::get(
            e.port,
            &format!("/timegate/{url}"),
            &[("Accept-Datetime", bad)],
        );
        assert_eq!(r.status, 400, "{bad}");
        assert!(r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Accept-Datetime"));
    }
    let none = super::get(e.port, "/timegate/http://nowhere.example/", &[]);
    assert_eq!(none.status, 404);
}

#[test]
fn a_memento_is_the_file_byte_for_byte_with_its_headers_and_a_pwid_leads_to_it() {
    let e = super::shared_explorer("memento-bytes", false);
    let url = format!("{}docs/report.pdf", harvested().base);
    let tm = e.get_ready(&format!("/timemap/link/{url}"), None);
    let (uri_m, _, datetime) = mementos(&tm.body).remove(0);
    let path = &uri_m[uri_m.find("/memento/").unwrap()..];
    let m = e.get(path, None);
    assert_eq!(m.status, 200);
    let file = std::fs::read(integration_tests::repo_root().join("examples/site/docs/report.pdf"))
        .unwrap();
    assert_eq!(m.bytes, file, "byte-exact from the WARC");
    assert_eq!(m.header("content-type"), Some("application/pdf"));
    assert_eq!(m.header("memento-datetime"), Some(datetime.as_str()));
    let link = m.header("link").unwrap();
    for rel in ["rel=\"original\"", "rel=\"timegate\"", "rel=\"timemap\""] {
        assert!(link.contains(rel), "{link}");
    }
    // Another second redirects to the closest memento.
    let ts = &path[9..23];
    let earlier = format!("/memento/{}/{url}", "19990101000000");
    let r = e.get(&earlier, None);
    assert_eq!(r.status, 302);
    assert!(r.header("location").unwrap().contains(ts));
    // The revisit (identical bytes) replays the original's bytes.
    let copy = format!("{}data/logo-copy", harvested().base);
    let tm = e.get_ready(&format!("/timemap/link/{copy}"), None);
    let (uri_m, _, _) = mementos(&tm.body).remove(0);
    let m = e.get(&uri_m[uri_m.find("/memento/").unwrap()..], None);
    assert_eq!(
        m.bytes,
        std::fs::read(integration_tests::repo_root().join("examples/site/images/logo.png"))
            .unwrap()
    );
    // A PWID redirects to its memento.
    let list = e.get_ready(
        &format!("/api/v1/captures?url={}", super::enc(&url)),
        Some(&super::add_key(&e.keys, "k", &[])),
    );
    let _ = list;
    let reader = modoai_archive::archive::Reader::open(&harvested().archive).unwrap();
    let pwid = format!("urn:pwid:{}:{}:part:{url}", reader.archive_id().unwrap(), {
        let t = httpdate::parse_http_date(&datetime).unwrap();
        time::OffsetDateTime::from(t)
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    });
    let r = e.get(&format!("/pwid/{pwid}"), None);
    assert_eq!(r.status, 302, "{pwid}: {}", r.body);
    assert!(r
        .header("location")
        .unwrap()
        .ends_with(&format!("/memento/{ts}/{url}")));
    assert_eq!(e.get("/pwid/urn:pwid:nope", None).status, 400);
    assert_eq!(
        e.get(
            &format!("/pwid/urn:pwid:other.example:2020-01-01T00:00:00Z:part:{url}"),
            None
        )
        .status,
        404
    );
}

#[test]
fn a_pwid_resolves_exactly_or_is_404_with_the_nearest_captures() {
    let e = super::shared_explorer("memento-pwid", false);
    let url = format!("{}docs/report.pdf", harvested().base);
    let tm = e.get_ready(&format!("/timemap/link/{url}"), None);
    let (uri_m, _, datetime) = mementos(&tm.body).remove(0);
    let ts = uri_m[uri_m.find("/memento/").unwrap() + 9..][..14].to_owned();
    let at = time::OffsetDateTime::from(httpdate::parse_http_date(&datetime).unwrap());
    let reader = modoai_archive::archive::Reader::open(&harvested().archive).unwrap();
    let id = reader.archive_id().unwrap().to_owned();
    let pwid = |t: time::OffsetDateTime, item: &str| {
        let t = t
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap();
        format!("/pwid/urn:pwid:{id}:{t}:part:{item}")
    };
    // The time of the capture: its memento.
    let r = e.get(&pwid(at, &url), None);
    assert_eq!(r.status, 302, "{}", r.body);
    assert!(r.header("location").unwrap().contains(&ts));
    // A second later: no capture then. 404, never another capture, with the nearest listed.
    let later = pwid(at + time::Duration::SECOND, &url);
    let r = e.get(&later, None);
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.header("location").is_none());
    let error = &r.json()["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("was not captured at"),
        "{error}"
    );
    let nearest = error["nearest"].as_array().unwrap();
    assert_eq!(nearest.len(), 1, "the one capture of the file: {error}");
    assert!(
        nearest[0]["memento"].as_str().unwrap().contains(&ts),
        "{error}"
    );
    assert!(nearest[0]["pwid"]
        .as_str()
        .unwrap()
        .starts_with(&format!("urn:pwid:{id}:")));
    // A browser gets a page with the same links.
    let r = super::get(
        e.port,
        &later,
        &[("Accept", "text/html,application/xhtml+xml")],
    );
    assert_eq!(r.status, 404);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(
        r.body.contains("Not captured at that time") && r.body.contains(&ts),
        "{}",
        r.body
    );
    // A URL never captured: 404 at once, not a redirect to a memento that is not there.
    let r = e.get(&pwid(at, "http://nowhere.example/x"), None);
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.header("location").is_none());
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no capture of"));
}

//! One capture with its CRATE findings, the captures of a URL, identical bytes grouped by SHA-1.

use super::{enc, harvested};

#[test]
fn a_capture_shows_its_crate_findings() {
    let e = super::shared_explorer("capture-crate", true);
    let url = format!("{}images/sunset.jpg", harvested().base);
    let list = e
        .get_ready(&format!("/api/v1/captures?url={}", enc(&url)), None)
        .json();
    assert_eq!(list["count"], 1, "{list}");
    let id = list["data"][0]["id"].as_str().unwrap().to_owned();
    let c = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
    assert_eq!(c["capture"]["url"], url.as_str());
    assert_eq!(c["capture"]["puid"], "fmt/43");
    assert_eq!(c["capture"]["jhove"], "valid");
    assert!(c["capture"]["pwid"]
        .as_str()
        .unwrap()
        .starts_with("urn:pwid:"));
    let plugins = c["crate"]["plugins"].as_array().unwrap();
    let labels: Vec<&str> = plugins
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    for tool in ["file", "md5", "jhove", "exiftool", "siegfried"] {
        assert!(labels.contains(&tool), "{tool} in {labels:?}");
    }
    let jhove = plugins.iter().find(|p| p["label"] == "jhove").unwrap();
    let status = jhove["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "status")
        .unwrap();
    assert_eq!(status["value"], "Well-Formed and valid");
    assert!(jhove["version"].as_str().unwrap().contains("1."), "{jhove}");
    assert!(c["record"]["file"].as_str().unwrap().ends_with(".warc.gz"));
    let missing = e.get("/api/v1/capture/0000000000000000", None);
    assert_eq!(missing.status, 404);
}

#[test]
fn identical_bytes_are_separate_captures_grouped_by_sha1() {
    let e = super::shared_explorer("capture-sha1", true);
    let base = &harvested().base;
    let logo = e
        .get_ready(
            &format!(
                "/api/v1/captures?url={}",
                enc(&format!("{base}images/logo.png"))
            ),
            None,
        )
        .json();
    let copy = e
        .get_ready(
            &format!(
                "/api/v1/captures?url={}",
                enc(&format!("{base}data/logo-copy"))
            ),
            None,
        )
        .json();
    let (a, b) = (&logo["data"][0], &copy["data"][0]);
    assert_ne!(a["id"], b["id"]);
    assert_eq!(a["sha1"], b["sha1"], "the same bytes");
    let same = e
        .get_ready(
            &format!("/api/v1/capture/{}", a["id"].as_str().unwrap()),
            None,
        )
        .json();
    assert_eq!(same["same_bytes"].as_array().unwrap().len(), 2, "{same}");
    let sha1 = a["sha1"].as_str().unwrap();
    let grouped = e
        .get_ready(&format!("/api/v1/search?sha1={sha1}&group=sha1"), None)
        .json();
    assert_eq!(grouped["total"], 2);
    assert_eq!(grouped["count"], 1, "one result per SHA-1");
    assert_eq!(grouped["data"][0]["copies"], 2);
}

//! A photo with EXIF date, camera and GPS position, made at test time (Pillow draws it, ExifTool
//! writes its tags), through the whole path: served with the real plugins, harvested in
//! oai_crate, indexed, then found by its camera facet and shown on its capture page.

use std::path::Path;
use std::process::Command;

use integration_tests::process::require_tool;
use integration_tests::python::venv_python;

use super::{enc, harvested};

/// Where the photo lies in the shared site.
pub(crate) const PATH: &str = "photos/harbour.jpg";
const MAKE: &str = "Fujifilm";
const MODEL: &str = "X-T30";
const TAKEN: &str = "2019:07:14 18:30:05";
/// Stockholm: 59.3293 N, 18.0686 E, as ExifTool prints it.
const LATITUDE: &str = "59 deg 19' 45.48\" N";
const LONGITUDE: &str = "18 deg 4' 6.96\" E";

/// Draws a 320×240 gradient JPEG at `path` and writes its EXIF tags.
pub(crate) fn make(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let draw =
        "import sys\nfrom PIL import Image\nw, h = 320, 240\nimg = Image.new('RGB', (w, h))\n\
                img.putdata([(x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h)) \
                for y in range(h) for x in range(w)])\nimg.save(sys.argv[1], quality=90)\n";
    let out = Command::new(venv_python())
        .args(["-c", draw])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "Pillow (scripts/setup installs it in .venv): {out:?}"
    );
    require_tool("exiftool", "apt-get install libimage-exiftool-perl");
    let tags = [
        format!("-Make={MAKE}"),
        format!("-Model={MODEL}"),
        format!("-DateTimeOriginal={TAKEN}"),
        "-GPSLatitude=59.3293".to_owned(),
        "-GPSLatitudeRef=N".to_owned(),
        "-GPSLongitude=18.0686".to_owned(),
        "-GPSLongitudeRef=E".to_owned(),
    ];
    let out = Command::new("exiftool")
        .arg("-overwrite_original")
        .args(&tags)
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "exiftool: {out:?}");
}

#[test]
fn a_photos_exif_date_camera_and_gps_reach_the_facets_and_its_capture_page() {
    let e = super::shared_explorer("photo-exif", true);
    let url = format!("{}{PATH}", harvested().base);
    let camera = format!("{MAKE} {MODEL}");
    // The camera facet counts it, and narrows to it.
    let all = e.get_ready("/api/v1/search?facets=camera", None).json();
    let cameras = all["facets"]["camera"].as_array().unwrap();
    let counted: Vec<(&str, u64)> = cameras
        .iter()
        .map(|v| (v["value"].as_str().unwrap(), v["count"].as_u64().unwrap()))
        .collect();
    assert!(counted.contains(&(camera.as_str(), 1)), "{counted:?}");
    let narrowed = e
        .get_ready(&format!("/api/v1/search?camera={}", enc(&camera)), None)
        .json();
    assert_eq!(narrowed["total"], 1, "{narrowed}");
    let hit = &narrowed["data"][0];
    assert_eq!(hit["url"], url.as_str());
    assert_eq!(hit["camera"], camera.as_str());
    assert_eq!(hit["exif_date"], TAKEN);
    let gps = format!("{LATITUDE}, {LONGITUDE}");
    assert_eq!(hit["gps"], gps.as_str());
    // The capture in the API, and its page as a person reads it.
    let id = hit["id"].as_str().unwrap();
    let capture = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
    assert_eq!(capture["capture"]["camera"], camera.as_str(), "{capture}");
    assert_eq!(capture["capture"]["exif_date"], TAKEN);
    assert_eq!(capture["capture"]["gps"], gps.as_str());
    let page = e.get_ready(&format!("/capture/{id}"), None);
    assert_eq!(page.status, 200);
    let escaped = gps.replace('"', "&quot;");
    for (th, td) in [
        ("taken (EXIF)", TAKEN),
        ("camera", camera.as_str()),
        ("GPS position", escaped.as_str()),
    ] {
        let row = format!("<th>{th}</th><td>{td}</td>");
        assert!(page.body.contains(&row), "{row} in:\n{}", page.body);
    }
    // The search page's camera facet links to it.
    let search = e.get_ready("/search?q=", None);
    assert!(search.body.contains(&camera), "{}", search.body);
}

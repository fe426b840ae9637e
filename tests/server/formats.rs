//! The PUIDs of the default identifier: a site of 25 formats written at test time by real writers
//! (`tests/python/make_formats.py`: Pillow, python-docx, odfpy, Python's standard library, LAME,
//! Ghostscript), served
//! with the default `plugins.toml` and harvested as `oai_crate`; each record's Siegfried document
//! must name the PUID PRONOM gives that format and version. The same site with FIDO switched on
//! prints where FIDO and Siegfried disagree (the table in `docs/plugins.md`).

use std::collections::BTreeMap;

use integration_tests::{repo_root, require_tool, venv_python, Server, TestSite};
use modoai::Plugins;

use crate::crate_tools::{harvest, Crate};

/// File, PUID, PRONOM's name for that format and version.
const EXPECTED: [(&str, &str, &str); 25] = [
    ("image.png", "fmt/11", "Portable Network Graphics 1.0"),
    ("image.jpg", "fmt/43", "JPEG File Interchange Format 1.01"),
    ("image87a.gif", "fmt/3", "Graphics Interchange Format 87a"),
    ("image89a.gif", "fmt/4", "Graphics Interchange Format 89a"),
    ("image.tif", "fmt/353", "Tagged Image File Format"),
    ("image.bmp", "fmt/116", "Windows Bitmap 3.0"),
    ("image.webp", "fmt/567", "WebP Lossless"),
    (
        "document.pdf",
        "fmt/18",
        "Acrobat PDF 1.4 - Portable Document Format 1.4",
    ),
    ("page.html", "fmt/471", "Hypertext Markup Language 5"),
    ("data.xml", "fmt/101", "Extensible Markup Language 1.0"),
    ("drawing.svg", "fmt/92", "Scalable Vector Graphics 1.1"),
    ("notes.txt", "x-fmt/111", "Plain Text File"),
    ("table.csv", "x-fmt/18", "Comma Separated Values"),
    ("data.json", "fmt/817", "JSON Data Interchange Format"),
    ("archive.zip", "x-fmt/263", "ZIP Format"),
    ("notes.txt.gz", "x-fmt/266", "GZIP Format"),
    ("archive.tar", "x-fmt/265", "Tape Archive Format"),
    (
        "letter.docx",
        "fmt/412",
        "Microsoft Word for Windows 2007 onwards",
    ),
    ("letter.odt", "fmt/291", "OpenDocument Text 1.2"),
    ("tone.wav", "fmt/141", "Waveform Audio (PCMWAVEFORMAT)"),
    ("image.jpeg", "fmt/43", "JPEG File Interchange Format 1.01"),
    ("tone.mp3", "fmt/134", "MPEG 1/2 Audio Layer 3"),
    (
        "ghostscript.pdf",
        "fmt/18",
        "Acrobat PDF 1.4 - Portable Document Format 1.4",
    ),
    (
        "pdfa1b.pdf",
        "fmt/354",
        "Acrobat PDF/A - Portable Document Format 1b",
    ),
    (
        "pdfa2b.pdf",
        "fmt/477",
        "Acrobat PDF/A - Portable Document Format 2b",
    ),
];

/// The site, written by the real writers into a fresh folder.
fn make_site() -> TestSite {
    let site = TestSite::empty();
    let out = std::process::Command::new(venv_python())
        .arg(repo_root().join("tests/python/make_formats.py"))
        .arg(site.path())
        .output()
        .expect("the venv's Python runs");
    assert!(
        out.status.success(),
        "make_formats.py (its writers come from scripts/setup):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    site
}

/// The record whose identifier ends with `/name`.
fn record<'a>(records: &'a [Crate], name: &str) -> &'a Crate {
    records
        .iter()
        .find(|c| c.id.ends_with(&format!("/{name}")) || c.id.ends_with(&format!(":{name}")))
        .unwrap_or_else(|| panic!("no record for {name}"))
}

/// The PUIDs of a Siegfried document, in its order. The CRATE parser of `crate_tools` keeps each
/// entity reference as `&`; in these documents every one is a `&quot;`.
fn siegfried_puids(output: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(&output.trim().replace('&', "\""))
        .unwrap_or_else(|e| panic!("Siegfried's answer is JSON ({e}): {output}"));
    doc["files"][0]["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The PUIDs of FIDO's CSV lines (`OK,MS,PUID,...`).
fn fido_puids(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("OK,"))
        .filter_map(|l| l.split(',').nth(1).map(str::to_owned))
        .collect()
}

/// The default plugins.toml, with FIDO switched on as its comment says when `fido` is true.
async fn plugins(work: &std::path::Path, fido: bool) -> Plugins {
    let default = std::fs::read_to_string(repo_root().join("plugins.toml")).unwrap();
    let mut in_fido = false;
    let text: String = default
        .lines()
        .map(|line| {
            in_fido = fido && (line == "# [[plugin]]" || (in_fido && line.starts_with("# ")));
            format!("{}\n", if in_fido { &line[2..] } else { line })
        })
        .collect();
    let path = work.join("plugins.toml");
    std::fs::write(&path, text).unwrap();
    let plugins = Plugins::load(&path).await.expect("plugins.toml loads");
    assert!(plugins.all_healthy(), "{}", plugins.check_report());
    plugins
}

async fn harvest_site(site: &TestSite, fido: bool) -> Vec<Crate> {
    let work = tempfile::tempdir().unwrap();
    let plugins = plugins(work.path(), fido).await;
    let server = Server::start(site.path(), |c| c.page_size(50).plugins(plugins.clone())).await;
    harvest(&server).await
}

#[tokio::test]
async fn siegfried_names_the_pronom_format_of_each_writer() {
    require_tool("modoai-siegfried", "pygfried (see scripts/setup)");
    require_tool("fido", "opf-fido (see scripts/setup)");
    let site = make_site();
    std::fs::copy(
        site.path().join("image.jpg"),
        site.path().join("image.jpeg"),
    )
    .unwrap();
    let records = harvest_site(&site, false).await;
    let mut wrong = Vec::new();
    for (name, puid, format) in EXPECTED {
        let (status, output) = &record(&records, name).plugins["siegfried"];
        assert_eq!(status, "ok", "{name}: {output}");
        let found = siegfried_puids(output);
        if found != [puid] {
            wrong.push(format!("{name}: {found:?}, PRONOM: {puid} ({format})"));
        }
    }
    assert!(wrong.is_empty(), "Siegfried's PUIDs:\n{}", wrong.join("\n"));

    let records = harvest_site(&site, true).await;
    let mut table = BTreeMap::new();
    for (name, _, format) in EXPECTED {
        let c = record(&records, name);
        let sf = siegfried_puids(&c.plugins["siegfried"].1);
        let fido = fido_puids(&c.plugins["fido"].1);
        if sf != fido {
            table.insert(name, (format, sf.join(" "), fido.join(" ")));
        }
    }
    println!("| File | Format (PRONOM) | Siegfried | FIDO |\n|---|---|---|---|");
    for (name, (format, sf, fido)) in table {
        println!("| {name} | {format} | {sf} | {fido} |");
    }
}

//! A CRATE as a table people read: per metadata tool its version, status, time and key findings
//! (the fields that say what a file is and whether it is sound), the whole output under "all".

use maud::{html, Markup};
use modoai_archive::facts::{Facts, PluginFacts};

use crate::capture::{fido_findings, siegfried_findings};

use super::format::cut;

/// Findings shown per tool before "all".
const FINDINGS: usize = 8;
/// Characters of one finding shown at most.
const FINDING_CHARS: usize = 160;
/// Lines of a text output shown as its findings.
const TEXT_LINES: usize = 4;
/// The fields that say what a file is and whether it is sound, by their local name (after any
/// `group:` prefix): JHOVE's verdict and format, ExifTool's type, size, camera, date and place,
/// MediaInfo's format and duration.
const KEY_FIELDS: [&str; 20] = [
    "status",
    "format",
    "version",
    "mimeType",
    "profile",
    "FileType",
    "MIMEType",
    "ImageSize",
    "Make",
    "Model",
    "DateTimeOriginal",
    "CreateDate",
    "GPSPosition",
    "Format",
    "Format_Profile",
    "Duration",
    "Width",
    "Height",
    "PageCount",
    "Title",
];

/// The CRATE's tools, and the HTTP answer the file was served with.
pub(super) fn table(facts: &Facts) -> Markup {
    html! {
        table.crate {
            thead { tr { th { "tool" } th { "version" } th { "status" } th.num { "ms" } th { "key findings" } } }
            tbody {
                @for p in &facts.plugins {
                    tr data-tool=(p.label) {
                        td.tool { (p.label) }
                        td { (p.version) }
                        td { span class={ "status " (p.status_name()) } { (p.status_name()) } }
                        td.num { (p.duration_ms) @if p.cached == "true" { " (cached)" } }
                        td { (findings(p)) }
                    }
                }
            }
        }
        @if !facts.http_headers.is_empty() {
            details.http {
                summary { "HTTP answer the file was served with" @if let Some(s) = &facts.http_status { " (" (s) ")" } }
                table.fields { @for (n, v) in &facts.http_headers { tr { th { (n) } td { (v) } } } }
            }
        }
    }
}

/// What a tool found: its key fields, or the first lines of a text output; a note when it did
/// not run; everything under "all".
fn findings(p: &PluginFacts) -> Markup {
    let lines = key_findings(p);
    let all: Vec<String> = if let Some(fido) = fido_findings(&p.text) {
        fido
    } else if p.fields.is_empty() {
        p.text.lines().map(str::to_owned).collect()
    } else {
        p.fields.iter().map(|(n, v)| format!("{n}: {v}")).collect()
    };
    html! {
        @if !p.note.is_empty() { span.note { (p.note) } br; }
        @for line in &lines { span.finding { (line) } br; }
        @if all.len() > lines.len() {
            details { summary { "all (" (all.len()) ")" } pre { (all.join("\n")) } }
        }
    }
}

/// The key findings of a tool's output: Siegfried's document read as its matches (its one JSON
/// line would otherwise be cut before the format), FIDO's CSV as fields (without the path of the
/// temporary file it was given).
pub(super) fn key_findings(p: &PluginFacts) -> Vec<String> {
    if p.fields.is_empty() {
        if let Some(lines) = siegfried_findings(&p.text).or_else(|| fido_findings(&p.text)) {
            return lines
                .into_iter()
                .take(FINDINGS)
                .map(|l| cut(&l, FINDING_CHARS))
                .collect();
        }
        return p
            .text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(TEXT_LINES)
            .map(|l| cut(l, FINDING_CHARS))
            .collect();
    }
    let local = |n: &str| n.rsplit(':').next().unwrap_or(n).to_owned();
    let mut keyed: Vec<&(String, String)> = p
        .fields
        .iter()
        .filter(|(n, v)| !v.is_empty() && KEY_FIELDS.contains(&local(n).as_str()))
        .collect();
    keyed.dedup_by(|a, b| a.0 == b.0);
    if keyed.is_empty() {
        keyed = p.fields.iter().filter(|(_, v)| !v.is_empty()).collect();
    }
    keyed
        .into_iter()
        .take(FINDINGS)
        .map(|(n, v)| cut(&format!("{n}: {v}"), FINDING_CHARS))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(text: &str, fields: &[(&str, &str)]) -> PluginFacts {
        PluginFacts {
            label: "t".into(),
            text: text.into(),
            fields: fields
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            ..PluginFacts::default()
        }
    }

    #[test]
    fn key_fields_come_first_and_text_outputs_show_their_first_lines() {
        let jhove = plugin(
            "",
            &[
                ("reportingModule", "JPEG-hul"),
                ("date", "2024-01-01"),
                ("format", "JPEG"),
                ("status", "Well-Formed and valid"),
            ],
        );
        assert_eq!(
            key_findings(&jhove),
            ["format: JPEG", "status: Well-Formed and valid"]
        );
        let exif = plugin("", &[("IFD0:Make", "Canon"), ("File:Other", "x")]);
        assert_eq!(key_findings(&exif), ["IFD0:Make: Canon"]);
        let unknown = plugin("", &[("a", "1"), ("b", "")]);
        assert_eq!(
            key_findings(&unknown),
            ["a: 1"],
            "no key field: the first ones"
        );
        let md5 = plugin("\n d41d8cd98f00b204e9800998ecf8427e \n", &[]);
        assert_eq!(key_findings(&md5), ["d41d8cd98f00b204e9800998ecf8427e"]);
    }

    #[test]
    fn siegfried_shows_its_match_not_the_start_of_its_json() {
        let doc = r#"{"siegfried":"1.11.9","signature":"default.sig","created":"2026-09-27T12:04:02+10:00","identifiers":[{"name":"pronom","details":"DROID_SignatureFile_V125.xml; container-signature-20260119.xml"}],"files":[{"filename":"f000001.jpg","errors":"","matches":[{"ns":"pronom","id":"fmt/43","format":"JPEG File Interchange Format","version":"1.01","mime":"image/jpeg","class":"Image (Raster)","basis":"extension match jpg; byte match at [[0 14] [2506 2]]","warning":""}]}]}"#;
        assert_eq!(
            key_findings(&plugin(doc, &[])),
            [
                "pronom: fmt/43 JPEG File Interchange Format 1.01",
                "mime: image/jpeg",
                "basis: extension match jpg; byte match at [[0 14] [2506 2]]",
            ]
        );
        let empty = r#"{"files":[{"errors":"empty source","matches":[{"ns":"pronom","id":"UNKNOWN","warning":"no match"}]}]}"#;
        assert_eq!(
            key_findings(&plugin(empty, &[])),
            [
                "error: empty source",
                "pronom: UNKNOWN",
                "warning: no match"
            ]
        );
    }

    #[test]
    fn fido_shows_fields_never_its_csv_or_the_temporary_path() {
        let csv = r#"OK,3,fmt/43,"JPEG File Interchange Format","JFIF 1.01",99,"/tmp/.tmpQx1/f000001.jpg","image/jpeg","signature""#;
        let fido = plugin(csv, &[]);
        assert_eq!(
            key_findings(&fido),
            [
                "pronom: fmt/43 JPEG File Interchange Format",
                "signature: JFIF 1.01",
                "mime: image/jpeg",
                "basis: signature",
            ]
        );
        let html = findings(&fido).into_string();
        assert!(!html.contains("/tmp") && !html.contains("OK,3"), "{html}");
    }
}

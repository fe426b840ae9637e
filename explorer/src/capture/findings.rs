//! What the CRATE's tools found about a file, read from the plugin results the archive
//! library parses ([`Facts`]): the PRONOM format (Siegfried's, else FIDO's: [`super::pronom`]),
//! the JHOVE verdict, and from ExifTool the capture date, the camera and the GPS position.

use std::fmt;
use std::str::FromStr;

use modoai_archive::facts::{Facts, PluginFacts};
use serde::Serialize;

use super::pronom;

/// The findings the index keeps. Empty when the item has no CRATE (an `oai_didl` or `oai_dc`
/// harvest) or the tool did not run on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// PRONOM unique identifier (`fmt/43`), from Siegfried or FIDO.
    pub puid: Option<String>,
    /// PRONOM format name (`JPEG File Interchange Format`), from Siegfried or FIDO.
    pub format: Option<String>,
    /// JHOVE's verdict.
    pub jhove: Option<JhoveStatus>,
    /// ExifTool's `DateTimeOriginal` (or `CreateDate`), as written (`2020:05:01 10:00:00`).
    pub exif_date: Option<String>,
    /// `Make Model` of the camera.
    pub camera: Option<String>,
    /// ExifTool's `GPSPosition` (or `GPSLatitude, GPSLongitude`).
    pub gps: Option<String>,
    /// The explorer's own tool results (`index --tools`) for a capture without a CRATE; empty
    /// otherwise (a CRATE's are read from its record).
    pub tools: Vec<PluginFacts>,
    /// Where the findings came from: `CRATE, harvested 2026-05-01`, `explorer, indexed
    /// 2026-06-01, siegfried 1.11.9, default.sig of …`, or both (`CRATE, …; PRONOM format:
    /// explorer, …`).
    pub source: Option<String>,
}

/// JHOVE's `status` of a file. Stored in the index and serialised as its facet value
/// ([`JhoveStatus::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JhoveStatus {
    /// "Well-Formed and valid".
    Valid,
    /// "Well-Formed, but not valid".
    WellFormed,
    /// "Not well-formed".
    NotWellFormed,
    /// "Unknown" or another answer.
    Unknown,
}

impl JhoveStatus {
    /// The facet value: `valid`, `well-formed`, `not-well-formed`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            JhoveStatus::Valid => "valid",
            JhoveStatus::WellFormed => "well-formed",
            JhoveStatus::NotWellFormed => "not-well-formed",
            JhoveStatus::Unknown => "unknown",
        }
    }

    /// JHOVE's own wording.
    pub fn parse(status: &str) -> Self {
        let s = status.to_ascii_lowercase();
        if s.starts_with("not well-formed") {
            JhoveStatus::NotWellFormed
        } else if s.starts_with("well-formed and valid") {
            JhoveStatus::Valid
        } else if s.starts_with("well-formed") {
            JhoveStatus::WellFormed
        } else {
            JhoveStatus::Unknown
        }
    }
}

impl fmt::Display for JhoveStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value that is not one of the four facet values of [`JhoveStatus`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a JHOVE status (valid, well-formed, not-well-formed, unknown)")]
pub struct UnknownStatus(String);

/// Reads a facet value ([`JhoveStatus::as_str`]); JHOVE's own wording is [`JhoveStatus::parse`].
impl FromStr for JhoveStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            JhoveStatus::Valid,
            JhoveStatus::WellFormed,
            JhoveStatus::NotWellFormed,
            JhoveStatus::Unknown,
        ]
        .into_iter()
        .find(|j| j.as_str() == s)
        .ok_or_else(|| UnknownStatus(s.to_owned()))
    }
}

impl Findings {
    /// The findings of a CRATE's plugin results.
    pub fn of(facts: &Facts) -> Findings {
        let ok = |label: &str| facts.plugins.iter().find(|p| p.label == label && p.is_ok());
        // Siegfried first, the default and the newer signatures; FIDO where it alone ran (an
        // older harvest, or a server that still runs it) or where Siegfried found nothing.
        let (puid, format) = ok("siegfried")
            .and_then(|p| pronom::siegfried(&p.text))
            .or_else(|| ok("fido").and_then(|p| pronom::fido(&p.text)))
            .map_or((None, None), |(p, f)| (Some(p), Some(f)));
        let jhove = ok("jhove")
            .and_then(|p| field(p, "status"))
            .map(JhoveStatus::parse);
        let exif = ok("exiftool");
        let get = |names: &[&str]| exif.and_then(|p| names.iter().find_map(|n| field(p, n)));
        let camera = match (get(&["Make"]), get(&["Model"])) {
            (Some(make), Some(model)) if model.starts_with(make) => Some(model.to_owned()),
            (Some(make), Some(model)) => Some(format!("{make} {model}")),
            (a, b) => a.or(b).map(str::to_owned),
        };
        let gps = get(&["GPSPosition"]).map(str::to_owned).or_else(|| {
            Some(format!(
                "{}, {}",
                get(&["GPSLatitude"])?,
                get(&["GPSLongitude"])?
            ))
        });
        Findings {
            puid,
            format,
            jhove,
            exif_date: get(&["DateTimeOriginal", "CreateDate"]).map(str::to_owned),
            camera,
            gps,
            tools: Vec::new(),
            source: None,
        }
    }
}

/// The first value of a leaf element named `name` (its part after a `group:` prefix).
fn field<'a>(p: &'a PluginFacts, name: &str) -> Option<&'a str> {
    p.fields
        .iter()
        .find(|(n, _)| n.rsplit(':').next() == Some(name))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use modoai_protocol::crate_vocab::PluginStatus;

    fn plugin(label: &str, text: &str, fields: &[(&str, &str)]) -> PluginFacts {
        PluginFacts {
            label: label.into(),
            status: Some(PluginStatus::Ok),
            text: text.into(),
            fields: fields
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..PluginFacts::default()
        }
    }

    #[test]
    fn siegfried_comes_before_fido() {
        let siegfried = r#"{"siegfried":"1.11.9","files":[{"filename":"f000001.docx","errors":"","matches":[{"ns":"pronom","id":"fmt/412","format":"Microsoft Word for Windows","version":"2007 onwards","basis":"container name [Content_Types].xml with byte match at 0, 20","warning":""}]}]}"#;
        let fido = "OK,3,x-fmt/263,\"ZIP Format\",\"\",99,\"f000001.docx\",\"application/zip\",\"signature\"";
        let facts = |plugins| Facts {
            plugins,
            ..Facts::default()
        };
        let both = facts(vec![
            plugin("fido", fido, &[]),
            plugin("siegfried", siegfried, &[]),
        ]);
        let f = Findings::of(&both);
        assert_eq!(f.puid.as_deref(), Some("fmt/412"));
        assert_eq!(f.format.as_deref(), Some("Microsoft Word for Windows"));
        let unknown = siegfried.replace("fmt/412", "UNKNOWN");
        let f = Findings::of(&facts(vec![
            plugin("siegfried", &unknown, &[]),
            plugin("fido", fido, &[]),
        ]));
        assert_eq!(
            f.puid.as_deref(),
            Some("x-fmt/263"),
            "FIDO where Siegfried found nothing"
        );
        let f = Findings::of(&facts(vec![plugin("siegfried", siegfried, &[])]));
        assert_eq!(f.puid.as_deref(), Some("fmt/412"), "Siegfried alone");
    }

    #[test]
    fn findings_of_fido_jhove_and_exiftool() {
        let facts = Facts {
            plugins: vec![
                plugin("fido", "OK,12,x-fmt/111,\"Plain Text File\",\"\",5,\"f.txt\",\"text/plain\",\"extension\"\nOK,3,fmt/43,\"JPEG File Interchange Format\",\"JFIF 1.01\",99,\"f000001.jpg\",\"image/jpeg\",\"signature\"", &[]),
                plugin("jhove", "", &[("repInfo", "x"), ("status", "Not well-formed")]),
                plugin("exiftool", "", &[("IFD0:Make", "Canon"), ("IFD0:Model", "Canon EOS 5D"), ("ExifIFD:DateTimeOriginal", "2020:05:01 10:00:00"), ("Composite:GPSPosition", "52 deg 30' 0.00\" N, 13 deg 22' 0.00\" E")]),
            ],
            ..Facts::default()
        };
        let f = Findings::of(&facts);
        assert_eq!(f.puid.as_deref(), Some("fmt/43"));
        assert_eq!(f.format.as_deref(), Some("JPEG File Interchange Format"));
        assert_eq!(f.jhove, Some(JhoveStatus::NotWellFormed));
        assert_eq!(f.camera.as_deref(), Some("Canon EOS 5D"));
        assert_eq!(f.exif_date.as_deref(), Some("2020:05:01 10:00:00"));
        assert!(f.gps.unwrap().starts_with("52 deg"));
        assert_eq!(Findings::of(&Facts::default()), Findings::default());
    }

    #[test]
    fn jhove_statuses() {
        for (text, s) in [
            ("Well-Formed and valid", "valid"),
            ("Well-Formed, but not valid", "well-formed"),
            ("Not well-formed", "not-well-formed"),
            ("Unknown", "unknown"),
        ] {
            assert_eq!(JhoveStatus::parse(text).as_str(), s);
        }
    }

    #[test]
    fn jhove_statuses_read_back_from_their_facet_values() {
        for s in ["valid", "well-formed", "not-well-formed", "unknown"] {
            let status: JhoveStatus = s.parse().unwrap();
            assert_eq!(status.as_str(), s);
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                s,
                "serialised as written"
            );
        }
        assert!("Well-Formed and valid".parse::<JhoveStatus>().is_err());
    }
}

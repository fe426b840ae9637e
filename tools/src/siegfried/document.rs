//! Siegfried's JSON document for one file, as `modoai-siegfried` answers it and a CRATE keeps
//! it (`docs/plugins.md`, "Siegfried"): the part that names the file's format. The writer (the
//! runner's status) and the readers (the explorer's PRONOM facet and capture page) read it through
//! this one type.

use serde::Deserialize;

/// Siegfried's document.
///
/// ```
/// let doc = modoai_tools::SiegfriedDocument::parse(
///     r#"{"siegfried":"1.11.9","files":[{"filename":"a.jpg","errors":"","matches":[{"ns":"pronom","id":"fmt/43","format":"JPEG File Interchange Format","version":"1.01"}]}]}"#,
/// )
/// .unwrap();
/// assert_eq!(doc.files[0].matches[0].id, "fmt/43");
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[non_exhaustive]
pub struct SiegfriedDocument {
    /// One entry per file asked about (one in a CRATE).
    pub files: Vec<SiegfriedFile>,
}

/// What Siegfried says of one file.
#[derive(Clone, Debug, Default, Deserialize)]
#[non_exhaustive]
pub struct SiegfriedFile {
    /// Why it could not read the file (`empty source`, `open: …`), empty when it could.
    #[serde(default)]
    pub errors: String,
    /// One match per identifier (namespace) of its signature file.
    #[serde(default)]
    pub matches: Vec<SiegfriedMatch>,
}

/// One identifier's answer: `UNKNOWN` when it found nothing.
#[derive(Clone, Debug, Default, Deserialize)]
#[non_exhaustive]
pub struct SiegfriedMatch {
    /// The identifier's namespace (`pronom`).
    #[serde(default)]
    pub ns: String,
    /// The format's identifier (a PRONOM PUID such as `fmt/43`, or `UNKNOWN`).
    pub id: String,
    /// The format's name.
    #[serde(default)]
    pub format: String,
    /// The format's version.
    #[serde(default)]
    pub version: String,
    /// The format's MIME type.
    #[serde(default)]
    pub mime: String,
    /// What the identification rests on (byte, container or extension matches).
    #[serde(default)]
    pub basis: String,
    /// Why the answer may be doubtful (extension only, several matches, no match).
    #[serde(default)]
    pub warning: String,
}

impl SiegfriedDocument {
    /// Reads one document; an error when the text is not one.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

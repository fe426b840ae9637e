//! The PRONOM format of a file as an identifier's CRATE output names it: Siegfried's JSON
//! document (`modoai-siegfried`, the default) or FIDO's CSV lines.

use modoai_tools::SiegfriedDocument;

/// PUID and format name of Siegfried's PRONOM match, if it found one (`UNKNOWN` is none).
pub(crate) fn siegfried(text: &str) -> Option<(String, String)> {
    let doc = SiegfriedDocument::parse(text).ok()?;
    let found = doc
        .files
        .into_iter()
        .next()?
        .matches
        .into_iter()
        .find(|m| m.ns == "pronom" && m.id != "UNKNOWN" && !m.id.is_empty())?;
    Some((found.id, found.format))
}

/// What a person reads first of Siegfried's document for one file: per match its identifier,
/// format and version, then MIME type, basis and warning; the file's error if Siegfried had one.
/// `None` when the text is not such a document.
///
/// ```
/// let doc = r#"{"files":[{"matches":[{"ns":"pronom","id":"fmt/43","format":"JPEG File Interchange Format","version":"1.01","mime":"image/jpeg","basis":"byte match at 0, 14","warning":""}]}]}"#;
/// let lines = modoai_explorer::capture::siegfried_findings(doc).unwrap();
/// assert_eq!(lines[0], "pronom: fmt/43 JPEG File Interchange Format 1.01");
/// ```
pub fn siegfried_findings(text: &str) -> Option<Vec<String>> {
    let doc = SiegfriedDocument::parse(text).ok()?;
    let file = doc.files.into_iter().next()?;
    let mut lines = Vec::new();
    if !file.errors.is_empty() {
        lines.push(format!("error: {}", file.errors));
    }
    for m in file.matches {
        let named = [m.id.as_str(), m.format.as_str(), m.version.as_str()];
        let named: Vec<&str> = named.into_iter().filter(|s| !s.is_empty()).collect();
        lines.push(format!("{}: {}", m.ns, named.join(" ")));
        for (name, value) in [("mime", m.mime), ("basis", m.basis), ("warning", m.warning)] {
            if !value.is_empty() {
                lines.push(format!("{name}: {value}"));
            }
        }
    }
    Some(lines)
}

/// PUID and format name of FIDO's best match: a signature or container match before an
/// extension-only one. FIDO's CSV: `OK,MS,PUID,"NAME","SIGNATURE",SIZE,"PATH","MIME","HOW"`.
pub(super) fn fido(text: &str) -> Option<(String, String)> {
    let matches: Vec<Vec<String>> = text
        .lines()
        .map(csv)
        .filter(|f| f.len() >= 9 && f[0] == "OK" && !f[2].is_empty())
        .collect();
    let best = matches
        .iter()
        .find(|f| f[8] != "extension")
        .or(matches.first())?;
    Some((best[2].clone(), best[3].clone()))
}

/// What a person reads of FIDO's CSV, as fields: per line its PRONOM match (PUID and format
/// name), signature, MIME type and how it matched, or that nothing matched; never the file's
/// path (a temporary file's, meaningless after the run) nor the raw line. `None` when the text
/// is not FIDO's CSV.
///
/// ```
/// let csv = r#"OK,3,fmt/43,"JPEG File Interchange Format","JFIF 1.01",99,"/tmp/.tmpX/f000001.jpg","image/jpeg","signature""#;
/// let lines = modoai_explorer::capture::fido_findings(csv).unwrap();
/// assert_eq!(lines[0], "pronom: fmt/43 JPEG File Interchange Format");
/// assert!(!lines.iter().any(|l| l.contains("/tmp")));
/// ```
pub fn fido_findings(text: &str) -> Option<Vec<String>> {
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(csv)
        .collect();
    let is_fido = |f: &Vec<String>| f.len() >= 9 && (f[0] == "OK" || f[0] == "KO");
    if rows.is_empty() || !rows.iter().all(is_fido) {
        return None;
    }
    let mut lines = Vec::new();
    for f in rows {
        if f[0] == "KO" || f[2].is_empty() {
            lines.push("pronom: no match".to_owned());
            continue;
        }
        lines.push(format!("pronom: {} {}", f[2], f[3]).trim_end().to_owned());
        for (name, value) in [("signature", &f[4]), ("mime", &f[7]), ("basis", &f[8])] {
            if !value.is_empty() {
                lines.push(format!("{name}: {value}"));
            }
        }
    }
    Some(lines)
}

/// One CSV line, with `"…"` fields and `""` for a quote inside them.
fn csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().expect("never empty").push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siegfried_documents() {
        let doc = r#"{"siegfried":"1.11.9","signature":"default.sig","files":[{"filename":"f000001.jpg","errors":"","matches":[{"ns":"pronom","id":"fmt/43","format":"JPEG File Interchange Format","version":"1.01","mime":"image/jpeg","class":"Image (Raster)","basis":"extension match jpg; byte match at [[0 14] [2506 2]]","warning":""}]}]}"#;
        assert_eq!(
            siegfried(doc),
            Some(("fmt/43".into(), "JPEG File Interchange Format".into()))
        );
        assert_eq!(siegfried(&doc.replace("fmt/43", "UNKNOWN")), None);
        assert_eq!(
            siegfried(r#"{"files":[{"errors":"empty source","matches":[]}]}"#),
            None
        );
        assert_eq!(siegfried("OK,3,fmt/43,\"JPEG\""), None, "not JSON");
    }

    #[test]
    fn fido_lines() {
        assert_eq!(
            fido("OK,12,x-fmt/111,\"Plain Text File\",\"\",5,\"f.txt\",\"text/plain\",\"extension\"\nOK,3,fmt/43,\"JPEG File Interchange Format\",\"JFIF 1.01\",99,\"f000001.jpg\",\"image/jpeg\",\"signature\""),
            Some(("fmt/43".into(), "JPEG File Interchange Format".into())),
            "a signature match before an extension-only one"
        );
        assert_eq!(csv(r#"a,"b,c","d""e""#), ["a", "b,c", "d\"e"]);
    }

    #[test]
    fn fido_findings_are_fields_without_the_path() {
        let out = "OK,12,x-fmt/111,\"Plain Text File\",\"\",5,\"/tmp/.tmpAb12/f.txt\",\"text/plain\",\"extension\"\nKO,4,,,,5,\"/tmp/.tmpAb12/f.bin\",,\"fail\"";
        assert_eq!(
            fido_findings(out).unwrap(),
            [
                "pronom: x-fmt/111 Plain Text File",
                "mime: text/plain",
                "basis: extension",
                "pronom: no match"
            ]
        );
        assert_eq!(fido_findings("{\"files\":[]}"), None);
        assert_eq!(fido_findings(""), None);
    }
}

//! Splitting the output of one batch run (many files, one process) into one output per file.

use quick_xml::events::Event;
use quick_xml::Reader;

/// JHOVE's `-h xml` output for many files is one `<jhove>` document with a `<repInfo uri="…">`
/// per file. Gives, for each file name, a standalone document: the root's start tag (it carries
/// the namespace declarations), that file's `<repInfo>`, and the root's end tag.
pub(crate) fn split_jhove(xml: &[u8], names: &[String]) -> Vec<Option<Vec<u8>>> {
    let mut out = vec![None; names.len()];
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let (mut depth, mut root_start, mut root_name) = (0usize, None::<(usize, usize)>, Vec::new());
    let mut current: Option<(usize, usize)> = None; // (file index, byte offset of the repInfo start)
    loop {
        let before = reader.buffer_position() as usize;
        let event = match reader.read_event_into(&mut buf) {
            Ok(e) => e,
            Err(_) => break,
        };
        let after = reader.buffer_position() as usize;
        match event {
            Event::Start(e) => {
                if depth == 0 {
                    root_start = Some((before, after));
                    root_name = e.name().as_ref().to_vec();
                } else if depth == 1 && e.local_name().as_ref() == b"repInfo" {
                    let uri = e
                        .try_get_attribute("uri")
                        .ok()
                        .flatten()
                        .map(|a| a.value.into_owned())
                        .unwrap_or_default();
                    current = names
                        .iter()
                        .position(|n| uri.ends_with(n.as_bytes()))
                        .map(|i| (i, before));
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    if let (Some((i, start)), Some((rs, re))) = (current.take(), root_start) {
                        let mut doc = xml[rs..re].to_vec();
                        doc.extend_from_slice(&xml[start..after]);
                        doc.extend_from_slice(b"</");
                        doc.extend_from_slice(&root_name);
                        doc.push(b'>');
                        out[i] = Some(doc);
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    out
}

/// FIDO's CSV output names each file in a quoted field; lines are grouped by the file they name.
/// stderr lines are attributed the same way.
pub(crate) fn split_lines(text: &[u8], names: &[String]) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(); names.len()];
    for line in text.split_inclusive(|&b| b == b'\n') {
        let owner = names.iter().position(|n| contains(line, n.as_bytes()));
        if let Some(i) = owner {
            out[i].extend_from_slice(line);
        }
    }
    out
}

/// The output of a `lines-batch` run: line `i` (with its newline) for file `i`, if there are
/// exactly `n` lines (else the output cannot be attributed, and each file is run on its own).
pub(crate) fn split_ordered_lines(text: &[u8], n: usize) -> Option<Vec<Vec<u8>>> {
    let lines: Vec<Vec<u8>> = text
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    (lines.len() == n).then_some(lines)
}

/// Whether `needle` occurs in `hay` (a line names a file, or a worker's sentinel).
pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jhove_documents_per_file() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<jhove xmlns="http://schema.openpreservation.org/ois/xml/ns/jhove" name="Jhove" release="1.28.0">
 <date>2026-01-01</date>
 <repInfo uri="/tmp/x/f000002.jpg"><format>JPEG</format><status>Well-Formed and valid</status></repInfo>
 <repInfo uri="/tmp/x/f000001.jpg"><status>Not well-formed</status></repInfo>
</jhove>"#;
        let names = [
            "f000001.jpg".to_owned(),
            "f000002.jpg".to_owned(),
            "f000003.jpg".to_owned(),
        ];
        let docs = split_jhove(xml, &names);
        let one = String::from_utf8(docs[0].clone().unwrap()).unwrap();
        assert!(
            one.starts_with("<jhove xmlns=\"http://schema.openpreservation.org/ois/xml/ns/jhove\""),
            "{one}"
        );
        assert!(
            one.contains("Not well-formed") && one.ends_with("</repInfo></jhove>"),
            "{one}"
        );
        assert!(String::from_utf8(docs[1].clone().unwrap())
            .unwrap()
            .contains("Well-Formed and valid"));
        assert!(docs[2].is_none());
    }

    #[test]
    fn ordered_lines_per_file() {
        let out = b"JPEG image data\nERROR: cannot stat `x'\nempty\n";
        let parts = split_ordered_lines(out, 3).unwrap();
        assert_eq!(parts[1], b"ERROR: cannot stat `x'\n");
        assert!(split_ordered_lines(out, 2).is_none());
    }

    #[test]
    fn lines_per_file() {
        let csv = b"OK,1,fmt/43,\"JPEG\",\"JFIF\",10,\"/t/f000001.jpg\",\"image/jpeg\",\"signature\"\nKO,2,,,,0,\"/t/f000002.bin\",,\nOK,1,x-fmt/111,\"Plain Text\",\"\",3,\"/t/f000001.jpg\",\"text/plain\",\"extension\"\n";
        let names = ["f000001.jpg".to_owned(), "f000002.bin".to_owned()];
        let parts = split_lines(csv, &names);
        assert_eq!(parts[0].iter().filter(|&&b| b == b'\n').count(), 2);
        assert!(parts[1].starts_with(b"KO"));
    }
}

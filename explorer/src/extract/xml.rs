//! XML: every text node, and the first element named `title` as the title (Dublin Core's
//! `dc:title`, Atom's, XHTML's, SVG's).

use quick_xml::events::Event;
use quick_xml::Reader;

/// The title and the text of an XML document; a malformed document gives what came before the
/// error.
pub(super) fn title_and_text(bytes: &[u8]) -> (String, String) {
    let mut reader = Reader::from_reader(bytes);
    let mut buf = Vec::new();
    let (mut title, mut text) = (String::new(), String::new());
    let mut in_title = false;
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                in_title = e.local_name().as_ref() == b"title" && title.is_empty()
            }
            Ok(Event::End(_)) => in_title = false,
            Ok(Event::Text(t)) => {
                let s = t
                    .xml10_content()
                    .map(|c| c.into_owned())
                    .unwrap_or_default();
                push(&mut title, &mut text, in_title, &s);
            }
            Ok(Event::CData(t)) => {
                let s = String::from_utf8_lossy(&t).into_owned();
                push(&mut title, &mut text, in_title, &s);
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    (title, text)
}

fn push(title: &mut String, text: &mut String, in_title: bool, s: &str) {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.is_empty() {
        return;
    }
    if in_title {
        title.push_str(&s);
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dublin_core_title_and_text() {
        let (title, text) = title_and_text(
            br#"<oai_dc:dc xmlns:oai_dc="x" xmlns:dc="y"><dc:title>Harbour  map</dc:title><dc:subject><![CDATA[maps]]></dc:subject></oai_dc:dc>"#,
        );
        assert_eq!(title, "Harbour map");
        assert_eq!(text, "Harbour map maps");
        assert_eq!(title_and_text(b"<a>cut <b>her").1, "cut her");
    }
}

//! `oai_dc`: what HTTP knows of a file, in simple Dublin Core.

use modoai_protocol::{ns, Granularity};

use super::format::dcmi_type;
use crate::index::Entry;
use crate::xml::Xml;

/// Writes the `oai_dc:dc` element of one file.
pub(crate) fn write_dc(x: &mut Xml, entry: &Entry, identifier: &str) {
    let schema_location = format!("{} {}", ns::OAI_DC, ns::OAI_DC_XSD);
    x.start(
        "oai_dc:dc",
        &[
            ("xmlns:oai_dc", ns::OAI_DC),
            ("xmlns:dc", ns::DC),
            ("xmlns:xsi", ns::XSI),
            ("xsi:schemaLocation", &schema_location),
        ],
    );
    x.leaf("dc:title", &[], &title(&entry.path));
    x.leaf("dc:identifier", &[], identifier);
    x.leaf("dc:type", &[], dcmi_type(&entry.mime));
    x.leaf("dc:format", &[], &entry.mime);
    x.leaf("dc:format", &[], &format!("{} bytes", entry.stamp.size));
    x.leaf(
        "dc:date",
        &[],
        &entry.datestamp.format(Granularity::Seconds),
    );
    x.end("oai_dc:dc");
}

/// The file name, decoded from its URL form (bytes that are not UTF-8 become U+FFFD).
pub(crate) fn title(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    percent_encoding::percent_decode_str(name)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles() {
        assert_eq!(title("a/b%20c.jpg"), "b c.jpg");
        assert_eq!(title("bad%FFname"), "bad\u{FFFD}name");
    }
}

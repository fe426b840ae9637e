//! A small XML emitter over quick-xml that keeps every document well-formed: text and attribute
//! values are escaped by quick-xml and cleaned of characters XML 1.0 forbids first, so a file
//! name or header with control bytes can never break a harvest.

use std::borrow::Cow;

use bytes::Bytes;
use modoai_protocol::is_xml_char;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// Builds XML into a buffer that the caller drains as body frames with [`Xml::take`].
pub(crate) struct Xml {
    w: Writer<Vec<u8>>,
}

impl Xml {
    pub(crate) fn new() -> Self {
        Xml {
            w: Writer::new(Vec::with_capacity(16 * 1024)),
        }
    }

    pub(crate) fn declaration(&mut self) {
        self.write(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        self.raw(b"\n");
    }

    /// `<name a="v" …>`.
    pub(crate) fn start(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.write(Event::Start(element(name, attrs)));
    }

    /// `</name>`.
    pub(crate) fn end(&mut self, name: &str) {
        self.write(Event::End(BytesEnd::new(name)));
    }

    /// `<name a="v" …/>`.
    pub(crate) fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.write(Event::Empty(element(name, attrs)));
    }

    /// `<name …>text</name>`.
    pub(crate) fn leaf(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        self.start(name, attrs);
        self.text(text);
        self.end(name);
    }

    /// Escaped, cleaned character data.
    pub(crate) fn text(&mut self, text: &str) {
        self.write(Event::Text(BytesText::new(&clean(text))));
    }

    /// Bytes known to be well-formed in context (Base64, fixed markup).
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.w.get_mut().extend_from_slice(bytes);
    }

    /// `bytes` as Base64 (standard alphabet, padded), encoded straight into the buffer.
    pub(crate) fn base64(&mut self, bytes: &[u8]) {
        base64_simd::STANDARD.encode_append(bytes, self.w.get_mut());
    }

    /// Bytes written and not yet taken.
    pub(crate) fn len(&self) -> usize {
        self.w.get_ref().len()
    }

    /// Takes what was written so far, leaving `next` (an empty buffer) to write on.
    pub(crate) fn take_leaving(&mut self, next: Vec<u8>) -> Vec<u8> {
        std::mem::replace(self.w.get_mut(), next)
    }

    /// Takes what was written so far.
    pub(crate) fn take(&mut self) -> Bytes {
        Bytes::from(std::mem::take(self.w.get_mut()))
    }

    fn write(&mut self, event: Event<'_>) {
        self.w
            .write_event(event)
            .expect("writing to a Vec cannot fail");
    }
}

fn element<'a>(name: &'a str, attrs: &[(&str, &str)]) -> BytesStart<'a> {
    let mut el = BytesStart::new(name);
    for (k, v) in attrs {
        el.push_attribute((*k, clean(v).as_ref()));
    }
    el
}

/// Replaces every character XML 1.0 forbids by U+FFFD.
pub(crate) fn clean(s: &str) -> Cow<'_, str> {
    if s.chars().all(is_xml_char) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(
            s.chars()
                .map(|c| if is_xml_char(c) { c } else { '\u{FFFD}' })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_cleans() {
        let mut x = Xml::new();
        x.leaf("a", &[("k", "\"<&\u{0}")], "]]> & <b> \u{1}\u{FFFE}");
        let out = String::from_utf8(x.take().to_vec()).unwrap();
        assert_eq!(
            out,
            "<a k=\"&quot;&lt;&amp;\u{FFFD}\">]]&gt; &amp; &lt;b&gt; \u{FFFD}\u{FFFD}</a>"
        );
    }
}

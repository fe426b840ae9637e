//! [`Node`]: one small unit of an OAI-PMH response (a record, a header, a set, an error) as a
//! tree, built from the XML as it streams by. Base64 payloads are not kept: a person's page links
//! the file instead.

use quick_xml::events::{BytesRef, BytesStart, BytesText};

/// An element with its attributes, text and children; names are local (prefixes dropped).
#[derive(Debug, Default, Clone)]
pub(crate) struct Node {
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) text: String,
    pub(crate) children: Vec<Node>,
    /// Characters of a Base64 payload that were not kept.
    pub(crate) omitted: usize,
}

impl Node {
    /// The value of the attribute with this local name.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first child with this local name.
    pub(crate) fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The children with this local name.
    pub(crate) fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// Every descendant, depth first.
    pub(crate) fn descendants(&self) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut stack: Vec<&Node> = self.children.iter().rev().collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(n.children.iter().rev());
        }
        out
    }

    /// The trimmed text of this element itself.
    pub(crate) fn value(&self) -> &str {
        self.text.trim()
    }
}

/// Builds one [`Node`] from the events of its element.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    stack: Vec<Node>,
}

impl Builder {
    /// An element starts (or, with `empty`, starts and ends at once). Returns the finished tree
    /// when that closes the unit.
    pub(crate) fn start(&mut self, e: &BytesStart<'_>, empty: bool) -> Option<Node> {
        let node = Node {
            name: local(e.name().as_ref()),
            attrs: e
                .attributes()
                .flatten()
                .map(|a| {
                    let value = a
                        .unescape_value()
                        .map(|v| v.into_owned())
                        .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned());
                    (local(a.key.as_ref()), value)
                })
                .collect(),
            ..Node::default()
        };
        self.stack.push(node);
        if empty {
            self.end()
        } else {
            None
        }
    }

    /// Text inside the current element; a Base64 resource's text is only counted.
    pub(crate) fn text(&mut self, t: &BytesText<'_>) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if top.name == "Resource" && top.attr("encoding") == Some("base64") {
            top.omitted += t.len();
            return;
        }
        match t.decode() {
            Ok(text) => top.text.push_str(&text),
            Err(_) => top.text.push_str(&String::from_utf8_lossy(t)),
        }
    }

    /// A character or entity reference in text (`&#233;`, `&amp;`): its character.
    pub(crate) fn reference(&mut self, r: &BytesRef<'_>) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if let Ok(Some(c)) = r.resolve_char_ref() {
            top.text.push(c);
        } else if let Some(s) = std::str::from_utf8(r)
            .ok()
            .and_then(quick_xml::escape::resolve_predefined_entity)
        {
            top.text.push_str(s);
        }
    }

    /// Text of a CDATA section, as it is.
    pub(crate) fn raw_text(&mut self, text: &str) {
        if let Some(top) = self.stack.last_mut() {
            top.text.push_str(text);
        }
    }

    /// The current element ends. Returns the finished tree when that closes the unit.
    pub(crate) fn end(&mut self) -> Option<Node> {
        let node = self.stack.pop()?;
        match self.stack.last_mut() {
            Some(parent) => {
                parent.children.push(node);
                None
            }
            None => Some(node),
        }
    }
}

/// The local part of a qualified name.
fn local(qname: &[u8]) -> String {
    let name = String::from_utf8_lossy(qname);
    match name.rsplit_once(':') {
        Some((_, local)) => local.to_owned(),
        None => name.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quick_xml::events::Event;
    use quick_xml::Reader;

    fn tree(xml: &str) -> Node {
        let mut r = Reader::from_str(xml);
        let mut b = Builder::default();
        loop {
            let done = match r.read_event().unwrap() {
                Event::Start(e) => b.start(&e, false),
                Event::Empty(e) => b.start(&e, true),
                Event::Text(t) => {
                    b.text(&t);
                    None
                }
                Event::GeneralRef(r) => {
                    b.reference(&r);
                    None
                }
                Event::End(_) => b.end(),
                Event::Eof => panic!("unfinished"),
                _ => None,
            };
            if let Some(n) = done {
                return n;
            }
        }
    }

    #[test]
    fn keeps_structure_and_drops_base64() {
        let n = tree(
            r#"<didl:Item xmlns:didl="x"><didl:Resource mimeType="image/png" encoding="base64">iVBORw0K</didl:Resource><didl:Resource ref="http://h/a.png"/><t>a &amp; b</t></didl:Item>"#,
        );
        assert_eq!(n.name, "Item");
        let res: Vec<&Node> = n.children_named("Resource").collect();
        assert_eq!(res[0].omitted, 8);
        assert_eq!(res[0].text, "");
        assert_eq!(res[1].attr("ref"), Some("http://h/a.png"));
        assert_eq!(n.child("t").unwrap().value(), "a & b");
    }
}

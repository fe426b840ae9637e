//! The leaf elements of a tool's XML output in a CRATE (`crate:output encoding="xml"`), as
//! `(name, text)` pairs: JHOVE's `status`, ExifTool's `IFD0:Model`, and so on, without keeping
//! the whole subtree.

use quick_xml::events::Event;

/// Leaf elements kept per output at most: the findings come first in the tools' output (JHOVE's
/// status, ExifTool's groups), and a long output must not grow the harvester's memory.
pub(crate) const MAX_FIELDS: usize = 256;
/// Characters of one value kept at most.
const MAX_VALUE: usize = 512;

#[derive(Debug, Default)]
struct Node {
    name: String,
    has_children: bool,
}

/// The reading of one XML output, from just after its start tag to its end tag.
#[derive(Debug, Default)]
pub(crate) struct Leaves {
    stack: Vec<Node>,
    text: String,
    fields: Vec<(String, String)>,
}

impl Leaves {
    /// Takes one event inside the output; true at the output's own end tag.
    pub(crate) fn feed(&mut self, event: &Event<'_>) -> bool {
        match event {
            Event::Start(e) => {
                self.mark_parent();
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                self.stack.push(Node {
                    name,
                    has_children: false,
                });
                self.text.clear();
            }
            Event::Empty(_) => self.mark_parent(),
            Event::Text(t) => {
                if let Ok(s) = t.xml10_content() {
                    self.text.push_str(&s);
                }
            }
            Event::CData(t) => self.text.push_str(&String::from_utf8_lossy(t)),
            Event::GeneralRef(r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    self.text.push(c);
                } else {
                    self.text.push_str(predefined(&String::from_utf8_lossy(r)));
                }
            }
            Event::End(_) => match self.stack.pop() {
                None => return true,
                Some(node) => self.leaf(node),
            },
            _ => {}
        }
        false
    }

    /// The `(name, text)` pairs read.
    pub(crate) fn into_fields(self) -> Vec<(String, String)> {
        self.fields
    }

    fn mark_parent(&mut self) {
        if let Some(parent) = self.stack.last_mut() {
            parent.has_children = true;
        }
    }

    fn leaf(&mut self, node: Node) {
        let value = self.text.trim();
        if !node.has_children && !value.is_empty() && self.fields.len() < MAX_FIELDS {
            let value: String = value.chars().take(MAX_VALUE).collect();
            self.fields.push((node.name, value));
        }
        self.text.clear();
    }
}

/// The leaf elements of one XML document or fragment (a tool's XML output, as a CRATE would
/// embed it) as `(name as written, text)` pairs in document order, at most 256, values cut at
/// 512 characters: what [`PluginFacts::fields`](super::PluginFacts::fields) holds.
///
/// ```
/// let xml = b"<jhove><repInfo><status>Well-Formed and valid</status></repInfo></jhove>";
/// let fields = modoai_archive::facts::xml_fields(xml);
/// assert_eq!(fields, [("status".to_owned(), "Well-Formed and valid".to_owned())]);
/// ```
pub fn xml_fields(xml: &[u8]) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut leaves = Leaves::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => break,
            // The root's own end tag ends nothing here: the whole input is the output.
            Ok(event) => {
                leaves.feed(&event);
            }
        }
    }
    leaves.into_fields()
}

/// XML's predefined entities.
pub(crate) fn predefined(name: &str) -> &'static str {
    match name {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "apos" => "'",
        "quot" => "\"",
        _ => "",
    }
}

//! Reading our XML responses in tests: element texts and attributes, and the HTTP headers a DIDL
//! record carries, with quick-xml.

use std::collections::BTreeMap;

use quick_xml::events::Event;

/// Text of every element with this local name, entities resolved.
pub fn texts(xml: &[u8], local: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let (mut out, mut depth, mut cur) = (Vec::new(), 0usize, String::new());
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if e.local_name().as_ref() == local.as_bytes() => {
                depth += 1;
                if depth == 1 {
                    cur.clear();
                }
            }
            Event::Empty(e) if e.local_name().as_ref() == local.as_bytes() && depth == 0 => {
                out.push(String::new())
            }
            Event::Text(t) if depth > 0 => cur.push_str(&t.decode().expect("text")),
            Event::GeneralRef(r) if depth > 0 => push_reference(&mut cur, &r),
            Event::End(e) if e.local_name().as_ref() == local.as_bytes() => {
                depth -= 1;
                if depth == 0 {
                    out.push(std::mem::take(&mut cur));
                }
            }
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

/// Appends what a character or predefined entity reference stands for (modoai writes no other).
fn push_reference(out: &mut String, r: &quick_xml::events::BytesRef<'_>) {
    match r.resolve_char_ref().expect("character reference") {
        Some(c) => out.push(c),
        None => {
            let name = r.decode().expect("entity name");
            out.push_str(
                quick_xml::escape::resolve_predefined_entity(&name).expect("predefined entity"),
            );
        }
    }
}

/// One attribute of every element with this local name.
pub fn attrs(xml: &[u8], local: &str, attr: &str) -> Vec<String> {
    element_attrs(xml, local)
        .into_iter()
        .filter_map(|mut m| m.remove(attr))
        .collect()
}

/// The attributes of every element with this local name.
pub fn element_attrs(xml: &[u8], local: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == local.as_bytes() => {
                let map = e
                    .attributes()
                    .map(|a| {
                        let a = a.expect("attribute");
                        (
                            String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                            a.unescape_value().expect("value").into_owned(),
                        )
                    })
                    .collect();
                out.push(map);
            }
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

/// The `modoai:header` name/value pairs of a DIDL record, in order.
pub fn http_headers(xml: &[u8]) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let (mut out, mut buf, mut current) = (Vec::new(), Vec::new(), None::<(String, String)>);
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if e.name().as_ref() == b"modoai:header" => {
                let name = e
                    .try_get_attribute("name")
                    .expect("attr")
                    .expect("name attribute");
                current = Some((
                    name.unescape_value().expect("value").into_owned(),
                    String::new(),
                ));
            }
            Event::Text(t) => {
                if let Some((_, v)) = current.as_mut() {
                    v.push_str(&t.decode().expect("text"));
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, v)) = current.as_mut() {
                    push_reference(v, &r);
                }
            }
            Event::End(e) if e.name().as_ref() == b"modoai:header" => out.extend(current.take()),
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

//! TimeMaps: link format (RFC 7089 §5, RFC 6690) and JSON.

use serde_json::{json, Value};

use super::datetime::http_date;
use crate::search::Memento;
use crate::web::links::{self, TimeMap};

/// The rel of the i-th of n mementos (§2.2: `first`/`last` combine with `memento`).
fn rel(i: usize, n: usize) -> &'static str {
    match (i == 0, i + 1 == n) {
        (true, true) => "first last memento",
        (true, false) => "first memento",
        (false, true) => "last memento",
        _ => "memento",
    }
}

/// The absolute URLs of one URI-R on this server.
pub(super) struct Urls<'a> {
    /// `http://host:port`.
    pub(super) base: &'a str,
    /// The URI-R.
    pub(super) uri: &'a str,
}

impl Urls<'_> {
    /// A memento's URI-M.
    pub(super) fn memento(&self, m: &Memento) -> String {
        format!("{}{}", self.base, links::memento(&m.timestamp, self.uri))
    }
    /// The TimeGate.
    pub(super) fn timegate(&self) -> String {
        format!("{}{}", self.base, links::timegate(self.uri))
    }
    /// The TimeMap in `format`.
    pub(super) fn timemap(&self, format: TimeMap) -> String {
        format!("{}{}", self.base, links::timemap(format, self.uri))
    }
}

/// The link-format TimeMap: original, self (with from/until), timegate, then every memento.
pub(super) fn link_format(urls: &Urls<'_>, mementos: &[Memento]) -> String {
    let mut out = format!("<{}>; rel=\"original\",\n", urls.uri);
    out.push_str(&format!(
        "<{}>; rel=\"self\"; type=\"application/link-format\"",
        urls.timemap(TimeMap::Link)
    ));
    if let (Some(first), Some(last)) = (mementos.first(), mementos.last()) {
        out.push_str(&format!(
            "; from=\"{}\"; until=\"{}\"",
            http_date(first.time),
            http_date(last.time)
        ));
    }
    out.push_str(&format!(",\n<{}>; rel=\"timegate\"", urls.timegate()));
    let n = mementos.len();
    for (i, m) in mementos.iter().enumerate() {
        out.push_str(&format!(
            ",\n<{}>; rel=\"{}\"; datetime=\"{}\"",
            urls.memento(m),
            rel(i, n),
            http_date(m.time)
        ));
    }
    out.push('\n');
    out
}

/// The JSON TimeMap, in the shape Memento aggregators use.
pub(super) fn json(urls: &Urls<'_>, mementos: &[Memento]) -> Value {
    let entry = |m: &Memento| json!({"datetime": http_date(m.time), "uri": urls.memento(m)});
    json!({
        "original_uri": urls.uri,
        "timegate_uri": urls.timegate(),
        "timemap_uri": {"link_format": urls.timemap(TimeMap::Link), "json_format": urls.timemap(TimeMap::Json)},
        "mementos": {
            "first": mementos.first().map(entry),
            "last": mementos.last().map(entry),
            "list": mementos.iter().map(entry).collect::<Vec<_>>(),
        },
    })
}

/// The `Link` header of a memento or TimeGate answer: original, timegate, timemap, then the
/// chosen memento (`all[chosen]`) and its neighbours in time (RFC 7089 §2.2: `first`, `prev`,
/// `next` and `last` combine with `memento`; one link per memento, carrying every rel it has).
pub(super) fn link_header(urls: &Urls<'_>, all: &[Memento], chosen: usize) -> String {
    let mut out = format!(
        "<{}>; rel=\"original\", <{}>; rel=\"timegate\", <{}>; rel=\"timemap\"; type=\"application/link-format\"",
        urls.uri,
        urls.timegate(),
        urls.timemap(TimeMap::Link)
    );
    let last = all.len().saturating_sub(1);
    let mut shown: Vec<usize> = vec![0, chosen.saturating_sub(1), chosen, chosen + 1, last];
    shown.retain(|&i| i < all.len());
    shown.dedup();
    for i in shown {
        let rels = [
            (i == 0, "first"),
            (i + 1 == chosen, "prev"),
            (i == chosen + 1, "next"),
            (i == last, "last"),
        ];
        let mut rel: Vec<&str> = rels.iter().filter(|r| r.0).map(|r| r.1).collect();
        rel.push("memento");
        out.push_str(&format!(
            ", <{}>; rel=\"{}\"; datetime=\"{}\"",
            urls.memento(&all[i]),
            rel.join(" "),
            http_date(all[i].time)
        ));
    }
    out
}

/// The index of `m` in `all`.
pub(super) fn position(all: &[Memento], m: &Memento) -> usize {
    all.iter().position(|x| x == m).unwrap_or(0)
}

//! One line of the access log: the [`Record`] of a finished response, written in the Common or
//! Combined Log Format of Apache and nginx, or as one JSON object.

use std::fmt::Write as _;
use std::net::IpAddr;
use std::time::Duration;

use serde::Serialize;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::{AccessLogFormat, OaiFacts};

/// What the access log says of one request, once its response has ended.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) time: OffsetDateTime,
    pub(crate) client: Option<IpAddr>,
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) protocol: &'static str,
    pub(crate) status: u16,
    pub(crate) bytes: u64,
    pub(crate) duration: Duration,
    pub(crate) facts: Option<OaiFacts>,
    pub(crate) user_agent: Option<Vec<u8>>,
    pub(crate) referer: Option<Vec<u8>>,
}

/// The JSON form of a [`Record`]; absent values are `null`, so every line has the same keys.
#[derive(Serialize)]
struct JsonLine<'a> {
    time: String,
    client: Option<String>,
    method: &'a str,
    target: &'a str,
    protocol: &'a str,
    status: u16,
    bytes: u64,
    duration_seconds: f64,
    verb: Option<&'static str>,
    metadata_prefix: Option<&'a str>,
    oai_errors: Vec<&'static str>,
    user: Option<&'a str>,
    refusal: Option<&'static str>,
    user_agent: Option<String>,
    referer: Option<String>,
}

impl Record {
    /// The line, with its line feed; `None` for [`AccessLogFormat::Off`].
    pub(crate) fn line(&self, format: AccessLogFormat) -> Option<String> {
        let mut line = match format {
            AccessLogFormat::Off => return None,
            AccessLogFormat::Common => self.common(),
            AccessLogFormat::Combined => {
                let mut l = self.common();
                let _ = write!(
                    l,
                    " \"{}\" \"{}\"",
                    quoted(self.referer.as_deref()),
                    quoted(self.user_agent.as_deref())
                );
                l
            }
            AccessLogFormat::Json => self.json(),
        };
        line.push('\n');
        Some(line)
    }

    /// `client - user [time] "request" status bytes`, as Apache's `%h %l %u %t "%r" %>s %b`.
    fn common(&self) -> String {
        let client = self.client.map_or("-".to_owned(), |ip| ip.to_string());
        let user = self.user().map_or("-".to_owned(), |u| escape(u.as_bytes()));
        let bytes = match self.bytes {
            0 => "-".to_owned(),
            n => n.to_string(),
        };
        format!(
            "{client} - {user} [{}] \"{} {} {}\" {} {bytes}",
            clf_time(self.time),
            escape(self.method.as_bytes()),
            escape(self.target.as_bytes()),
            self.protocol,
            self.status,
        )
    }

    fn json(&self) -> String {
        let facts = self.facts.as_ref();
        let text = |v: &Option<Vec<u8>>| v.as_deref().map(|b| String::from_utf8_lossy(b).into());
        let line = JsonLine {
            time: self.time.format(&Rfc3339).unwrap_or_default(),
            client: self.client.map(|ip| ip.to_string()),
            method: &self.method,
            target: &self.target,
            protocol: self.protocol,
            status: self.status,
            bytes: self.bytes,
            duration_seconds: self.duration.as_secs_f64(),
            verb: facts.and_then(|f| f.verb).map(|v| v.as_str()),
            metadata_prefix: facts.and_then(|f| f.metadata_prefix.as_deref()),
            oai_errors: facts.map_or(Vec::new(), |f| {
                f.errors.iter().map(|c| c.as_str()).collect()
            }),
            user: self.user(),
            refusal: facts.and_then(|f| f.refusal).map(|r| r.as_str()),
            user_agent: text(&self.user_agent),
            referer: text(&self.referer),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }

    fn user(&self) -> Option<&str> {
        self.facts.as_ref().and_then(|f| f.user.as_deref())
    }
}

/// `10/Oct/2000:13:55:36 +0000`, the time of the Common Log Format.
fn clf_time(t: OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[day]/[month repr:short]/[year]:[hour]:[minute]:[second] [offset_hour sign:mandatory][offset_minute]"
    );
    t.format(&format).unwrap_or_default()
}

/// A header value for a quoted field: `-` when absent.
fn quoted(value: Option<&[u8]>) -> String {
    value.map_or("-".to_owned(), escape)
}

/// Bytes as nginx writes them into a log line: `"`, `\` and bytes outside printable ASCII as
/// `\xHH`, so no client can end a field or a line, or forge one.
fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            let _ = write!(out, "\\x{b:02X}");
        } else {
            out.push(char::from(b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use modoai_protocol::{ErrorCode, Verb};

    use super::*;

    fn record() -> Record {
        Record {
            time: OffsetDateTime::from_unix_timestamp(971_186_136).unwrap(),
            client: Some("192.0.2.7".parse().unwrap()),
            method: "GET".to_owned(),
            target: "/modoai?verb=ListRecords&metadataPrefix=oai_dc".to_owned(),
            protocol: "HTTP/1.1",
            status: 200,
            bytes: 2326,
            duration: Duration::from_millis(12),
            facts: Some(OaiFacts {
                verb: Some(Verb::ListRecords),
                metadata_prefix: Some("oai_dc".to_owned()),
                errors: vec![ErrorCode::NoRecordsMatch],
                user: Some("user:alice".to_owned()),
                refusal: None,
            }),
            user_agent: Some(b"Sickle/0.7 \"x\"\n".to_vec()),
            referer: None,
        }
    }

    #[test]
    fn common_and_combined_are_apaches() {
        let r = record();
        assert_eq!(
            r.line(AccessLogFormat::Common).unwrap(),
            "192.0.2.7 - user:alice [10/Oct/2000:13:55:36 +0000] \"GET /modoai?verb=ListRecords&metadataPrefix=oai_dc HTTP/1.1\" 200 2326\n"
        );
        let combined = r.line(AccessLogFormat::Combined).unwrap();
        assert!(
            combined.ends_with(" 200 2326 \"-\" \"Sickle/0.7 \\x22x\\x22\\x0A\"\n"),
            "{combined}"
        );
        assert_eq!(combined.matches('\n').count(), 1);
        assert!(r.line(AccessLogFormat::Off).is_none());
    }

    #[test]
    fn empty_bodies_and_unknown_clients_are_dashes() {
        let r = Record {
            client: None,
            bytes: 0,
            facts: None,
            ..record()
        };
        let line = r.line(AccessLogFormat::Common).unwrap();
        assert!(line.starts_with("- - - ["), "{line}");
        assert!(line.ends_with(" 200 -\n"), "{line}");
    }

    #[test]
    fn json_carries_the_oai_facts() {
        let line = record().line(AccessLogFormat::Json).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["time"], "2000-10-10T13:55:36Z");
        assert_eq!(v["verb"], "ListRecords");
        assert_eq!(v["metadata_prefix"], "oai_dc");
        assert_eq!(v["oai_errors"][0], "noRecordsMatch");
        assert_eq!(v["user"], "user:alice");
        assert_eq!(v["bytes"], 2326);
        assert_eq!(v["duration_seconds"], 0.012);
        assert_eq!(v["referer"], serde_json::Value::Null);
        assert_eq!(v["user_agent"], "Sickle/0.7 \"x\"\n");
    }
}

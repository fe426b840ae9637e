//! HTTP for the tests: [`Reply`], a whole response read by the in-process [`Server`]'s client,
//! and the one GET over a plain socket that the tests of a server process use ([`get`]).
//!
//! [`Server`]: crate::Server

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;

use bytes::Bytes;
use http::{HeaderMap, StatusCode};

use crate::process::MARGIN;
use crate::xml::{attrs, element_attrs, texts};
use crate::xsd::xsd_validate;

/// A whole HTTP response.
pub struct Reply {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

impl Reply {
    /// The body as UTF-8.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("UTF-8 body")
    }

    /// Every `code` of the `<error>` elements.
    pub fn error_codes(&self) -> Vec<String> {
        attrs(&self.body, "error", "code")
    }

    /// Text of every element with this local name.
    pub fn texts(&self, local: &str) -> Vec<String> {
        texts(&self.body, local)
    }

    /// The attributes of the `request` element.
    pub fn request_attrs(&self) -> BTreeMap<String, String> {
        element_attrs(&self.body, "request")
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// The `resumptionToken` element: its text and attributes, if present.
    pub fn token(&self) -> Option<(String, BTreeMap<String, String>)> {
        let attrs = element_attrs(&self.body, "resumptionToken")
            .into_iter()
            .next()?;
        let text = texts(&self.body, "resumptionToken")
            .into_iter()
            .next()
            .unwrap_or_default();
        Some((text, attrs))
    }

    /// Asserts HTTP 200 and `text/xml; charset=UTF-8`, and validates against the schemas.
    pub fn assert_valid(&self) -> &Self {
        assert_eq!(
            self.status,
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.headers["content-type"], "text/xml; charset=UTF-8");
        if let Err(e) = xsd_validate(&self.body) {
            panic!(
                "response does not validate: {e}\n{}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(4000)])
            );
        }
        self
    }
}

/// Sends `GET target` to `127.0.0.1:port` with `headers` and returns the connection, ready for
/// the response to be read; `None` when nothing listens. The request is HTTP/1.0, so the body
/// comes unchunked and ends where the connection does. Reads time out after [`MARGIN`].
pub fn send_get(port: u16, target: &str, headers: &[(&str, &str)]) -> Option<TcpStream> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(MARGIN)).expect("read timeout");
    let mut head = format!("GET {target} HTTP/1.0\r\nHost: t\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("send the request");
    Some(s)
}

/// A whole HTTP/1.0 response to `GET target`, head included; empty when nothing listens.
pub fn get(port: u16, target: &str) -> Vec<u8> {
    let Some(mut s) = send_get(port, target, &[]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

/// [`get`] as text, retried while the server answers 503 (it is still building its index).
pub fn get_when_ready(port: u16, target: &str) -> String {
    for _ in 0..200 {
        let out = String::from_utf8_lossy(&get(port, target)).into_owned();
        if !out.starts_with("HTTP/1.0 503") {
            return out;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("the index never became ready");
}

/// The status code of a response read with [`send_get`] or [`get`]; 0 when there is none.
pub fn status_code(response: &[u8]) -> u16 {
    let head = String::from_utf8_lossy(&response[..response.len().min(12)]).into_owned();
    head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0)
}

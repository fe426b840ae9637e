//! A small HTTP client that times requests and counts bytes without keeping bodies.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// Bytes of a body's end kept, to find the resumption token.
const TAIL: usize = 8192;

/// One response: status, body size, the body's end, and the time to its last byte.
pub(crate) struct Fetched {
    pub(crate) status: u16,
    pub(crate) bytes: u64,
    pub(crate) tail: Vec<u8>,
    pub(crate) elapsed: Duration,
}

impl Fetched {
    /// The resumption token at the end of a list page, if not empty.
    pub(crate) fn token(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.tail);
        let start = text.rfind("<resumptionToken")?;
        let rest = &text[start..];
        let open = rest.find('>')?;
        if rest[..open].ends_with('/') {
            return None;
        }
        let close = rest.find("</resumptionToken>")?;
        let raw = &rest[open + 1..close];
        let token = quick_xml::escape::unescape(raw).ok()?.into_owned();
        (!token.is_empty()).then_some(token)
    }
}

#[derive(Clone)]
pub(crate) struct Http {
    client: Client<HttpConnector, Empty<Bytes>>,
}

impl Http {
    pub(crate) fn new() -> Self {
        Http {
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    pub(crate) async fn get(&self, url: &str) -> anyhow::Result<Fetched> {
        let start = Instant::now();
        let uri: hyper::Uri = url.parse().with_context(|| format!("bad URL {url}"))?;
        let resp = self.client.get(uri).await?;
        let status = resp.status().as_u16();
        let mut body = resp.into_body();
        let (mut bytes, mut tail) = (0u64, Vec::with_capacity(2 * TAIL));
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame?.into_data() {
                bytes += data.len() as u64;
                tail.extend_from_slice(&data);
                if tail.len() > 2 * TAIL {
                    tail.drain(..tail.len() - TAIL);
                }
            }
        }
        Ok(Fetched {
            status,
            bytes,
            tail,
            elapsed: start.elapsed(),
        })
    }

    /// Streams the body of `url` into the file `path`; its status and size, and the time to
    /// its last byte written.
    pub(crate) async fn save(&self, url: &str, path: &std::path::Path) -> anyhow::Result<Fetched> {
        use std::io::Write as _;
        let start = Instant::now();
        let uri: hyper::Uri = url.parse().with_context(|| format!("bad URL {url}"))?;
        let resp = self.client.get(uri).await?;
        let status = resp.status().as_u16();
        let mut body = resp.into_body();
        let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
        let mut bytes = 0u64;
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame?.into_data() {
                bytes += data.len() as u64;
                file.write_all(&data)?;
            }
        }
        file.flush()?;
        Ok(Fetched {
            status,
            bytes,
            tail: Vec::new(),
            elapsed: start.elapsed(),
        })
    }

    /// The whole body of a 200 answer, as text (for documents of a few MB at most).
    pub(crate) async fn text(&self, url: &str) -> anyhow::Result<String> {
        let uri: hyper::Uri = url.parse().with_context(|| format!("bad URL {url}"))?;
        let resp = self.client.get(uri).await?;
        anyhow::ensure!(resp.status() == 200, "{url}: HTTP {}", resp.status());
        let body = resp.into_body().collect().await?.to_bytes();
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// Fetches a whole list (`verb=…&metadataPrefix=…`), following tokens. Returns (pages, bytes).
    pub(crate) async fn list(
        &self,
        oai: &str,
        verb: &str,
        prefix: &str,
    ) -> anyhow::Result<(u64, u64)> {
        let mut url = format!("{oai}?verb={verb}&metadataPrefix={prefix}");
        let (mut pages, mut bytes) = (0, 0);
        loop {
            let page = self.get(&url).await?;
            anyhow::ensure!(page.status == 200, "{url}: HTTP {}", page.status);
            pages += 1;
            bytes += page.bytes;
            match page.token() {
                Some(t) => url = format!("{oai}?verb={verb}&resumptionToken={}", encode(&t)),
                None => return Ok((pages, bytes)),
            }
        }
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
pub(crate) fn encode(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(tail: &str) -> Fetched {
        Fetched {
            status: 200,
            bytes: 0,
            tail: tail.as_bytes().to_vec(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn tokens() {
        let t = fetched("<x/><resumptionToken cursor=\"0\" completeListSize=\"9\">a&amp;b</resumptionToken></ListRecords>");
        assert_eq!(t.token().as_deref(), Some("a&b"));
        assert_eq!(fetched("<resumptionToken cursor=\"9\"/>").token(), None);
        assert_eq!(fetched("<resumptionToken></resumptionToken>").token(), None);
        assert_eq!(fetched("</ListRecords>").token(), None);
        assert_eq!(encode("a+b/c=="), "a%2Bb%2Fc%3D%3D");
    }
}

//! A synthetic crawl WARC as a crawler writes one: WARC 1.1, one gzip member per record, a
//! warcinfo record, then responses of HTML pages with text of seeded words, JPEG photos, PNG logos
//! and PDF reports, and revisits of both profiles: every PNG after the first has the payload of
//! the first (identical payload digest, the original at another URL), and every tenth capture
//! re-fetches an earlier page that answered 304 (server not modified). The same bytes every run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use flate2::write::GzEncoder;
use modoai_archive::warc::sha1_digest;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What [`write()`] wrote.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Records, the warcinfo included.
    pub(crate) records: u64,
    /// `revisit` records.
    pub(crate) revisits: u64,
    /// Bytes of the file.
    pub(crate) bytes: u64,
}

/// The first capture of a payload that later captures revisit.
struct Original {
    uri: String,
    date: String,
    digest: String,
}

/// How much a crawl holds, and how long its pages are.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// Bytes of the file at least (`None`: no bound).
    pub(crate) bytes: Option<u64>,
    /// Records at least (`None`: no bound); the crawl ends at the first bound reached.
    pub(crate) records: Option<u64>,
    /// Paragraphs of 20 to 120 words a page has (the end excluded).
    pub(crate) paragraphs: Range<u32>,
}

impl Shape {
    /// At least `bytes` bytes, pages of 3 to 29 paragraphs (about 4 to 16 KB of text).
    pub(crate) fn bytes(bytes: u64) -> Shape {
        Shape {
            bytes: Some(bytes),
            records: None,
            paragraphs: 3..30,
        }
    }

    /// `records` records, pages of one to three paragraphs (about 150 B to 3 KB of text).
    pub(crate) fn records(records: u64) -> Shape {
        Shape {
            bytes: None,
            records: Some(records),
            paragraphs: 1..4,
        }
    }

    fn done(&self, w: &Written) -> bool {
        self.bytes.is_some_and(|b| w.bytes >= b) || self.records.is_some_and(|r| w.records >= r)
    }
}

/// Writes a crawl of `shape` to `path`; `repo` holds the example site, whose photo, logo and
/// report are the images and PDFs (each JPEG and PDF made distinct by a comment).
pub(crate) fn write(path: &Path, shape: &Shape, repo: &Path) -> anyhow::Result<Written> {
    let site = repo.join("examples/site");
    let jpeg = std::fs::read(site.join("images/sunset.jpg"))?;
    let png = std::fs::read(site.join("images/logo.png"))?;
    let pdf = std::fs::read(site.join("docs/report.pdf"))?;
    let words = Words::new(7);
    let mut rng = StdRng::seed_from_u64(11);
    let mut out = BufWriter::new(File::create_new(path)?);
    let mut done = Written::default();
    let info = b"software: modoai-bench synthetic crawl\r\nformat: WARC File Format 1.1\r\n";
    done.bytes += record(
        &mut out,
        "warcinfo",
        None,
        0,
        "application/warc-fields",
        info,
        &[],
    )?;
    done.records += 1;
    let (mut logo, mut pages): (Option<Original>, Vec<Original>) = (None, Vec::new());
    let mut i = 0u64;
    while !shape.done(&done) {
        i += 1;
        let host = format!("http://site{}.example.org", i % 97);
        let (written, revisit) = match i % 10 {
            6 => {
                let uri = format!("{host}/photos/{i}.jpg");
                let body = with_jpeg_comment(&jpeg, i);
                (response(&mut out, &uri, i, "image/jpeg", &body)?, false)
            }
            7 => {
                let uri = format!("{host}/logo-{i}.png");
                match &logo {
                    Some(o) => (revisit_identical(&mut out, &uri, i, o)?, true),
                    None => {
                        let n = response(&mut out, &uri, i, "image/png", &png)?;
                        logo = Some(original(&uri, i, &png));
                        (n, false)
                    }
                }
            }
            8 => {
                let uri = format!("{host}/reports/{i}.pdf");
                let mut body = pdf.clone();
                body.extend_from_slice(format!("% copy {i}\n").as_bytes());
                (
                    response(&mut out, &uri, i, "application/pdf", &body)?,
                    false,
                )
            }
            9 if !pages.is_empty() => {
                let o = &pages[rng.random_range(0..pages.len())];
                (revisit_not_modified(&mut out, i, o)?, true)
            }
            _ => {
                let uri = format!("{host}/articles/{i}.html");
                let body = words.page(&mut rng, shape.paragraphs.clone());
                let n = response(&mut out, &uri, i, "text/html; charset=utf-8", &body)?;
                if pages.len() < 10_000 {
                    pages.push(original(&uri, i, &body));
                }
                (n, false)
            }
        };
        done.bytes += written;
        done.records += 1;
        done.revisits += u64::from(revisit);
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(done)
}

fn original(uri: &str, i: u64, payload: &[u8]) -> Original {
    Original {
        uri: uri.to_owned(),
        date: date(i),
        digest: sha1_digest(payload),
    }
}

/// A `200 OK` response record of `body`.
fn response(
    out: &mut impl Write,
    uri: &str,
    i: u64,
    mime: &str,
    body: &[u8],
) -> anyhow::Result<u64> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {mime}\r\nContent-Length: {}\r\nServer: bench\r\n\r\n",
        body.len()
    );
    let block = [head.as_bytes(), body].concat();
    let extra = [("WARC-Payload-Digest", sha1_digest(body))];
    record(
        out,
        "response",
        Some(uri),
        i,
        "application/http;msgtype=response",
        &block,
        &extra,
    )
}

/// A revisit of `o`'s payload at another URL (WARC 1.1 §6.7.2).
fn revisit_identical(out: &mut impl Write, uri: &str, i: u64, o: &Original) -> anyhow::Result<u64> {
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nServer: bench\r\n\r\n";
    let extra = [
        (
            "WARC-Profile",
            "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".to_owned(),
        ),
        ("WARC-Payload-Digest", o.digest.clone()),
        ("WARC-Refers-To-Target-URI", o.uri.clone()),
        ("WARC-Refers-To-Date", o.date.clone()),
    ];
    record(
        out,
        "revisit",
        Some(uri),
        i,
        "application/http;msgtype=response",
        head,
        &extra,
    )
}

/// A re-fetch of `o` that the server answered 304 (WARC 1.1 §6.7.3).
fn revisit_not_modified(out: &mut impl Write, i: u64, o: &Original) -> anyhow::Result<u64> {
    let head = b"HTTP/1.1 304 Not Modified\r\nServer: bench\r\n\r\n";
    let extra = [
        (
            "WARC-Profile",
            "http://netpreserve.org/warc/1.1/revisit/server-not-modified".to_owned(),
        ),
        ("WARC-Refers-To-Target-URI", o.uri.clone()),
        ("WARC-Refers-To-Date", o.date.clone()),
    ];
    record(
        out,
        "revisit",
        Some(&o.uri),
        i,
        "application/http;msgtype=response",
        head,
        &extra,
    )
}

/// Writes one record as its own gzip member; returns the compressed bytes written.
fn record(
    out: &mut impl Write,
    kind: &str,
    uri: Option<&str>,
    i: u64,
    content_type: &str,
    block: &[u8],
    extra: &[(&str, String)],
) -> anyhow::Result<u64> {
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{i:012x}>\r\nWARC-Date: {}\r\n",
        date(i)
    );
    if let Some(uri) = uri {
        head.push_str(&format!("WARC-Target-URI: {uri}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "WARC-Block-Digest: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        sha1_digest(block),
        block.len()
    ));
    let mut gz = GzEncoder::new(
        Vec::with_capacity(block.len() / 2 + 512),
        flate2::Compression::default(),
    );
    gz.write_all(head.as_bytes())?;
    gz.write_all(block)?;
    gz.write_all(b"\r\n\r\n")?;
    let member = gz.finish()?;
    out.write_all(&member)?;
    Ok(member.len() as u64)
}

/// The capture time of the `i`-th capture: one a second from 2024-03-01.
fn date(i: u64) -> String {
    let (day, s) = (i / 86_400 % 28, i % 86_400);
    format!(
        "2024-03-{:02}T{:02}:{:02}:{:02}Z",
        day + 1,
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// `jpeg` with a COM segment naming copy `i` right after its SOI marker.
fn with_jpeg_comment(jpeg: &[u8], i: u64) -> Vec<u8> {
    let text = format!("copy {i}");
    let len = u16::try_from(text.len() + 2).expect("a short comment");
    let mut out = Vec::with_capacity(jpeg.len() + text.len() + 4);
    out.extend_from_slice(&jpeg[..2]);
    out.extend_from_slice(&[0xFF, 0xFE]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// A vocabulary of pronounceable words made from a seed, drawn with a skew so that a few words
/// are frequent and most are rare, as in real text.
struct Words(Vec<String>);

impl Words {
    fn new(seed: u64) -> Words {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mer", "sti", "an", "ve", "dor", "pi", "lu", "tra", "en", "sol", "ri",
            "mu", "ha", "ge", "nor", "ta", "bel", "is", "qua", "fe", "rin", "do",
        ];
        let mut rng = StdRng::seed_from_u64(seed);
        let words = (0..20_000)
            .map(|_| {
                let n = rng.random_range(1..=4);
                (0..n)
                    .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
                    .collect()
            })
            .collect();
        Words(words)
    }

    fn word(&self, rng: &mut StdRng) -> &str {
        let r: f64 = rng.random();
        &self.0[(r * r * r * self.0.len() as f64) as usize]
    }

    /// An HTML page: a title and `paragraphs` paragraphs of 20 to 120 words.
    fn page(&self, rng: &mut StdRng, paragraphs: Range<u32>) -> Vec<u8> {
        let mut html = String::from("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>");
        for _ in 0..rng.random_range(2..8) {
            html.push_str(self.word(rng));
            html.push(' ');
        }
        html.push_str("</title></head><body>\n");
        for _ in 0..rng.random_range(paragraphs) {
            html.push_str("<p>");
            for _ in 0..rng.random_range(20..120) {
                html.push_str(self.word(rng));
                html.push(' ');
            }
            html.push_str("</p>\n");
        }
        html.push_str("</body></html>\n");
        html.into_bytes()
    }
}

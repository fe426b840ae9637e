//! Reading one record's block as it streams by: the first bytes kept, the HTTP head found, and
//! the block and payload digests computed in the same pass.

use std::io::{self, Read};

use super::chunked::Dechunk;
use super::digest::{Algorithm, Digest, DigestCheck, Running};
use super::head::is_warc_start;
use super::http::{HttpHead, MAX_HTTP_HEAD};
use super::stream::Stream;

/// What precedes the payload in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// An HTTP response head (parsed and kept).
    Response,
    /// An HTTP request head (skipped for the payload).
    Request,
    /// Nothing: payload = block.
    None,
}

/// How to read a block.
pub(crate) struct Plan<'a> {
    pub(crate) length: u64,
    pub(crate) keep: usize,
    pub(crate) protocol: Protocol,
    /// Whether the record has a payload of its own (not warcinfo, metadata or revisit).
    pub(crate) has_payload: bool,
    /// Whether `WARC-Payload-Digest` describes this record's payload (not a revisit's).
    pub(crate) check_payload: bool,
    pub(crate) block_digest: Option<&'a Digest>,
    pub(crate) payload_digest: Option<&'a Digest>,
    /// Whether the block must end within the gzip member it starts in.
    pub(crate) in_member: bool,
}

/// What reading a block found.
pub(crate) struct BlockRead {
    pub(crate) kept: Vec<u8>,
    pub(crate) http: Option<HttpHead>,
    pub(crate) block_digest: DigestCheck,
    pub(crate) payload_digest: DigestCheck,
    pub(crate) payload_sha1: Option<String>,
    /// Whether the block ended early (end of file, member or damage).
    pub(crate) cut: bool,
    /// The error that cut it, if one did.
    pub(crate) error: Option<io::Error>,
}

/// The running digests of one block.
struct Hashes {
    block: Option<(Algorithm, Running)>,
    sha1: Option<Running>,
    /// The declared payload algorithm's hash when it is not SHA-1.
    payload: Option<(Algorithm, Running)>,
    /// The payload without chunked transfer-coding, hashed with the declared algorithm.
    dechunked: Option<(Dechunk, Running)>,
}

impl Hashes {
    fn payload_bytes(&mut self, bytes: &[u8]) {
        if let Some(h) = &mut self.sha1 {
            h.update(bytes);
        }
        if let Some((_, h)) = &mut self.payload {
            h.update(bytes);
        }
        if let Some((d, h)) = &mut self.dechunked {
            d.feed(bytes, &mut |b| h.update(b));
        }
    }
}

/// Reads `plan.length` bytes of block from `stream`.
pub(crate) fn read_block<R: Read>(stream: &mut Stream<R>, plan: &Plan<'_>) -> BlockRead {
    let declared = plan
        .payload_digest
        .filter(|_| plan.check_payload && plan.has_payload);
    let payload_alg = declared.and_then(|d| d.algorithm);
    let mut hashes = Hashes {
        block: plan
            .block_digest
            .and_then(|d| d.algorithm)
            .map(|a| (a, Running::new(a))),
        sha1: plan.has_payload.then(|| Running::new(Algorithm::Sha1)),
        payload: payload_alg
            .filter(|a| *a != Algorithm::Sha1)
            .map(|a| (a, Running::new(a))),
        dechunked: None,
    };
    let mut kept = Vec::with_capacity(plan.keep.min(plan.length as usize).min(1 << 20));
    // Until the protocol head is known, bytes are kept and not yet hashed as payload.
    let mut head: Option<Option<HttpHead>> = (plan.protocol == Protocol::None).then_some(None);
    let (mut left, mut error) = (plan.length, None);
    while left > 0 {
        let chunk = match stream.peek(1, false) {
            Ok([]) => match stream.peek(8, true) {
                // A member that ends inside the block, followed by a record: the block is cut.
                Ok(next) if next.is_empty() || plan.in_member && is_warc_start(next) => break,
                Ok(_) => continue,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            },
            Ok(c) => c,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        let n = chunk.len().min(left as usize);
        let bytes = &chunk[..n];
        if let Some((_, h)) = &mut hashes.block {
            h.update(bytes);
        }
        let room = if head.is_none() {
            n
        } else {
            plan.keep.saturating_sub(kept.len()).min(n)
        };
        kept.extend_from_slice(&bytes[..room]);
        if head.is_some() {
            hashes.payload_bytes(bytes);
        }
        stream.consume(n);
        left -= n as u64;
        if head.is_none() {
            if let Some(found) = find_head(plan.protocol, &kept, left == 0) {
                let payload_from = found.0;
                let chunked = found.1.as_ref().is_some_and(HttpHead::is_chunked);
                if let Some(a) = declared.and_then(|d| d.algorithm).filter(|_| chunked) {
                    hashes.dechunked = Some((Dechunk::default(), Running::new(a)));
                }
                head = Some(found.1);
                let payload = kept[payload_from.min(kept.len())..].to_vec();
                hashes.payload_bytes(&payload);
                kept.truncate(plan.keep.max(payload_from).min(kept.len()));
            }
        }
    }
    let cut = left > 0;
    if head.is_none() {
        // The block ended before its head did: everything read is payload.
        hashes.payload_bytes(&kept.clone());
        head = Some(None);
    }
    finish(plan, declared, hashes, kept, head.flatten(), cut, error)
}

/// Where the payload starts, once `kept` holds the protocol head (or shows there is none).
fn find_head(protocol: Protocol, kept: &[u8], ended: bool) -> Option<(usize, Option<HttpHead>)> {
    match protocol {
        Protocol::None => Some((0, None)),
        Protocol::Response => match HttpHead::parse(kept) {
            Some(h) => Some((h.body_offset as usize, Some(h))),
            None if ended => match HttpHead::parse_whole(kept) {
                Some(h) => Some((h.body_offset as usize, Some(h))),
                None => Some((0, None)),
            },
            None if kept.len() >= MAX_HTTP_HEAD
                || !kept.starts_with(b"HTTP/") && kept.len() >= 5 =>
            {
                Some((0, None))
            }
            None => None,
        },
        Protocol::Request => match memchr::memmem::find(kept, b"\r\n\r\n") {
            Some(i) => Some((i + 4, None)),
            None if ended || kept.len() >= MAX_HTTP_HEAD => Some((0, None)),
            None => None,
        },
    }
}

fn finish(
    plan: &Plan<'_>,
    declared: Option<&Digest>,
    hashes: Hashes,
    kept: Vec<u8>,
    http: Option<HttpHead>,
    cut: bool,
    error: Option<io::Error>,
) -> BlockRead {
    let block_digest = match (plan.block_digest, hashes.block) {
        (None, _) => DigestCheck::Absent,
        (Some(_), _) if cut => DigestCheck::NotChecked,
        (Some(d), Some((a, h))) if !d.value.is_empty() => compare(d, a, h.finish()),
        (Some(_), _) => DigestCheck::Unsupported,
    };
    let sha1 = hashes.sha1.map(Running::finish);
    let payload_digest = match (plan.payload_digest, declared) {
        (None, _) => DigestCheck::Absent,
        (Some(_), None) => DigestCheck::NotChecked,
        (Some(_), Some(_)) if cut => DigestCheck::NotChecked,
        (Some(d), Some(_)) => match (d.algorithm, d.value.is_empty()) {
            (Some(a), false) => {
                let stored = match (a, hashes.payload) {
                    (Algorithm::Sha1, _) => sha1.clone().unwrap_or_default(),
                    (_, Some((_, h))) => h.finish(),
                    (_, None) => Vec::new(),
                };
                let dechunked = hashes.dechunked.map(|(_, h)| h.finish());
                match compare(d, a, stored) {
                    DigestCheck::Failed { .. } if dechunked.as_deref() == Some(&d.value[..]) => {
                        DigestCheck::PassedDechunked
                    }
                    other => other,
                }
            }
            _ => DigestCheck::Unsupported,
        },
    };
    let payload_sha1 = sha1.filter(|_| !cut).map(|s| Algorithm::Sha1.format(&s));
    BlockRead {
        kept,
        http,
        block_digest,
        payload_digest,
        payload_sha1,
        cut,
        error,
    }
}

fn compare(declared: &Digest, algorithm: Algorithm, computed: Vec<u8>) -> DigestCheck {
    if computed == declared.value {
        DigestCheck::Passed
    } else {
        DigestCheck::Failed {
            computed: algorithm.format(&computed),
        }
    }
}

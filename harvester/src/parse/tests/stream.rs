//! A resource far larger than the parser's buffers streams through them.

use std::io::{self, BufReader, Read};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

use super::*;

/// The payload repeats this many bytes: a multiple of 3, so that its Base64 repeats too, and
/// 3 × a prime, so that 64 KiB chunks do not line up with it.
const PERIOD: usize = 3 * 16_411;

/// Payload bytes streamed.
const SIZE: u64 = 200 << 20;

/// A page around one resource whose Base64 text is `body` repeated, made while it is read.
struct Generated {
    parts: [Vec<u8>; 3],
    repeats: u64,
    pos: u64,
}

impl Generated {
    fn len(&self) -> u64 {
        let [prefix, body, suffix] = &self.parts;
        (prefix.len() + suffix.len()) as u64 + body.len() as u64 * self.repeats
    }

    /// The rest of the part `pos` is in.
    fn current(&self) -> &[u8] {
        let [prefix, body, suffix] = &self.parts;
        let (prefix_len, body_len) = (prefix.len() as u64, body.len() as u64);
        let body_end = prefix_len + body_len * self.repeats;
        if self.pos < prefix_len {
            &prefix[self.pos as usize..]
        } else if self.pos < body_end {
            &body[((self.pos - prefix_len) % body_len) as usize..]
        } else {
            &suffix[((self.pos - body_end) as usize).min(suffix.len())..]
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.current().read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Checks the bytes against the repeated pattern as they come, keeping none of them.
struct Checker {
    pattern: Vec<u8>,
    count: u64,
    resources: usize,
    ended: usize,
    xml: usize,
    largest_piece: usize,
}

impl MetadataSink for Checker {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        self.xml += piece.len();
        self.largest_piece = self.largest_piece.max(piece.len());
        Ok(())
    }

    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
        assert_eq!(resource.mime_type.as_deref(), Some("application/pdf"));
        self.resources += 1;
        Ok(())
    }

    fn resource_bytes(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        assert!(bytes.len() <= 64 * 1024);
        while !bytes.is_empty() {
            let offset = (self.count % PERIOD as u64) as usize;
            let n = bytes.len().min(PERIOD - offset);
            assert!(
                bytes[..n] == self.pattern[offset..offset + n],
                "at {}",
                self.count
            );
            (bytes, self.count) = (&bytes[n..], self.count + n as u64);
        }
        Ok(())
    }

    fn resource_end(&mut self) -> io::Result<()> {
        self.ended += 1;
        Ok(())
    }
}

#[test]
fn a_large_resource_streams_in_bounded_memory() {
    let mut pattern = vec![0; PERIOD];
    StdRng::seed_from_u64(1).fill_bytes(&mut pattern);
    let record = r#"<GetRecord><record><header><identifier>big</identifier></header><metadata>
        <didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS"><didl:Item><didl:Component>
        <didl:Resource mimeType="application/pdf" encoding="base64">"#;
    let full = page(&format!("{record}@</didl:Resource></didl:Component></didl:Item></didl:DIDL></metadata></record></GetRecord>"));
    let (prefix, suffix) = full.split_once('@').unwrap();
    let repeats = SIZE / PERIOD as u64;
    let input = Generated {
        parts: [prefix, &STANDARD.encode(&pattern), suffix].map(|p| p.as_bytes().to_vec()),
        repeats,
        pos: 0,
    };
    let len = input.len();
    let mut parser = PageParser::new(BufReader::new(input));
    let mut sink = Checker {
        pattern,
        count: 0,
        resources: 0,
        ended: 0,
        xml: 0,
        largest_piece: 0,
    };
    let mut records = 0;
    while let Some(event) = parser.next_event_with(&mut sink).unwrap() {
        records += usize::from(matches!(event, PageEvent::Record(r) if r.streamed));
    }
    assert!(parser.is_complete());
    assert_eq!((records, sink.resources, sink.ended), (1, 1, 1));
    assert_eq!(sink.count, repeats * PERIOD as u64);
    assert_eq!(
        parser.position(),
        len - 1,
        "all but the newline after `</OAI-PMH>`"
    );
    assert!(sink.xml < 1024 && sink.largest_piece < 1024);
    let capacity = parser.source.buffer_capacity();
    assert!(
        capacity <= 1024,
        "the event buffer grew to {capacity} bytes"
    );
}

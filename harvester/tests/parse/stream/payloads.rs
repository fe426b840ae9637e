//! Random payloads of many sizes, written as Base64 every way XML allows, decode to themselves.

use std::io::Read;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

use super::{didl_page, plain, stream, streamed_record, Trickle};

/// How the Base64 text is laid out.
#[derive(Clone, Copy, Debug)]
pub(super) enum Wrap {
    /// One line, as our server writes it.
    None,
    /// MIME: 76 characters and CRLF, indented.
    Mime,
    /// Whitespace of every kind, everywhere: inside quanta and between `=`.
    Spaces,
    /// Every other piece in a CDATA section, one of them only whitespace; a comment and a
    /// processing instruction in between.
    Markup,
    /// Lines joined by `&#13;` and a newline; `+` and `/` as character references.
    Refs,
}

const WRAPS: [Wrap; 5] = [
    Wrap::None,
    Wrap::Mime,
    Wrap::Spaces,
    Wrap::Markup,
    Wrap::Refs,
];

pub(super) fn encode(payload: &[u8], wrap: Wrap) -> String {
    let text = STANDARD.encode(payload);
    let pieces = |n: usize| -> Vec<&str> {
        text.as_bytes()
            .chunks(n)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect()
    };
    match wrap {
        Wrap::None => text.clone(),
        Wrap::Mime => format!("\r\n    {}\r\n  ", pieces(76).join("\r\n    ")),
        Wrap::Spaces => {
            let gaps = [" ", "\t", "\r\n", "\n  ", "\r"];
            let mut out = String::from("\n");
            for (i, c) in text.chars().enumerate() {
                out.push(c);
                out.push_str(gaps[i % gaps.len()]);
            }
            out
        }
        Wrap::Markup => {
            let mut out = String::from("<![CDATA[ \n ]]>");
            for (i, piece) in pieces(61).into_iter().enumerate() {
                match i % 4 {
                    0 => out.push_str(&format!("<![CDATA[{piece}\r\n]]>")),
                    1 => out.push_str(&format!("{piece}<!-- a comment -->")),
                    2 => out.push_str(&format!("<![CDATA[{piece}]]><?pi data?>")),
                    _ => out.push_str(piece),
                }
            }
            out
        }
        Wrap::Refs => pieces(64)
            .join("&#13;\n")
            .replace('+', "&#43;")
            .replace('/', "&#x2F;"),
    }
}

fn random(size: usize, seed: u64) -> Vec<u8> {
    let mut payload = vec![0; size];
    StdRng::seed_from_u64(seed).fill_bytes(&mut payload);
    payload
}

fn page(payload: &[u8], wrap: Wrap) -> String {
    didl_page(&format!(
        r#"<didl:Component><didl:Resource mimeType="application/octet-stream" encoding="base64">{}</didl:Resource></didl:Component>"#,
        encode(payload, wrap)
    ))
}

/// The decoded bytes of the page's single resource, or nothing if there was none.
fn decoded(page: impl std::io::BufRead) -> Vec<u8> {
    let files = streamed_record(page).unwrap().files();
    assert!(files.len() <= 1, "{files:?}");
    files.into_iter().next().map(|f| f.1).unwrap_or_default()
}

#[test]
fn payloads_of_many_sizes_round_trip() {
    let chunk = 3 * 64 * 1024;
    let sizes = [
        0,
        1,
        2,
        3,
        4,
        5,
        56,
        57,
        58,
        114,
        chunk - 1,
        chunk,
        chunk + 1,
    ];
    for (seed, size) in sizes.into_iter().enumerate() {
        let payload = random(size, seed as u64);
        for wrap in WRAPS {
            let page = page(&payload, wrap);
            let what = format!("{size} bytes, {wrap:?}");
            assert_eq!(decoded(page.as_bytes()), payload, "{what}");
            assert_eq!(
                decoded(Trickle::new(page.as_bytes(), seed as u64)),
                payload,
                "{what}, trickled"
            );
            // Every event, and the position after it, as without a sink.
            let streamed = stream(page.as_bytes()).unwrap();
            let positions: Vec<u64> = streamed.iter().map(|e| e.2).collect();
            let expected: Vec<u64> = plain(page.as_bytes()).iter().map(|e| e.1).collect();
            assert_eq!(positions, expected, "{what}");
        }
    }
}

#[test]
fn split_at_every_offset() {
    for (size, wrap) in [
        (5, Wrap::Spaces),
        (57, Wrap::Mime),
        (58, Wrap::Markup),
        (40, Wrap::Refs),
    ] {
        let payload = random(size, 7);
        let page = page(&payload, wrap);
        let bytes = page.as_bytes();
        for cut in 0..=bytes.len() {
            let reader = bytes[..cut].chain(&bytes[cut..]);
            assert_eq!(
                decoded(reader),
                payload,
                "{size} bytes, {wrap:?}, cut at {cut}"
            );
        }
    }
}

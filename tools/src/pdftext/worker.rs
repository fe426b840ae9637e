//! The worker protocol: one `stdbuf -oL mutool run pdftext.js MARKER` process, one PDF at a
//! time.
//!
//! A request is a line, `PAGES PATH`. The answer is the text, as lines, then a line that starts
//! with the worker's marker: `MARKER ok PAGES FAILED`, or `MARKER error MESSAGE`. The marker is
//! 128 random bits drawn for each process, so a PDF's text cannot end an answer early. MuPDF's
//! messages on stderr are dropped: a file it cannot read is the answer's `error` line.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::resident::{self, Process};
use crate::run::{Capture, Ended};

/// Longest piece of a line read at once.
const PIECE: u64 = 64 * 1024;

/// How an answer ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The text was read: pages read, and how many of them failed.
    Read { pages: u32, failed: u32 },
    /// MuPDF could not read the file, for this reason.
    Unreadable(String),
}

/// A running `mutool run` process and its pipes.
#[derive(Debug)]
pub(crate) struct Worker {
    process: Process,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The marker line's start, `MARKER ` (a space after it).
    marker: Vec<u8>,
}

impl resident::Worker for Worker {
    /// Starts `argv` (`mutool run SCRIPT`, maybe behind the isolation programs) with a new
    /// marker as the script's argument.
    fn spawn(argv: &[OsString]) -> Result<Worker, Ended> {
        let marker = format!("{:032x}", rand::random::<u128>());
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .arg(&marker)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut process = Process::spawn(command)?;
        let child = process.child();
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        Ok(Worker {
            process,
            stdin,
            stdout: BufReader::new(stdout),
            marker: format!("{marker} ").into_bytes(),
        })
    }

    fn process(&mut self) -> &mut Process {
        &mut self.process
    }
}

impl Worker {
    /// Sends `request` (made by [`request`]) and reads its answer, the text kept in `text` up
    /// to its cap. An error leaves the process out of step (it is replaced).
    pub(crate) async fn text(&mut self, request: &[u8], text: &mut Capture) -> io::Result<Answer> {
        self.stdin.write_all(request).await?;
        self.stdin.flush().await?;
        read_answer(&mut self.stdout, &self.marker, text).await
    }
}

/// The request line for the first `pages` pages of `path`: a path that is not UTF-8 or holds a
/// line break cannot be sent.
pub(crate) fn request(path: &Path, pages: u32) -> io::Result<Vec<u8>> {
    match path.to_str() {
        Some(p) if !p.is_empty() && !p.contains(['\n', '\r', '\0']) => {
            Ok(format!("{pages} {p}\n").into_bytes())
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a path that is empty, not UTF-8 or holds a line break cannot be sent",
        )),
    }
}

/// Reads text lines into `text` up to the line that starts with `marker`, and what it says. The
/// script writes a line break before the marker line, which is not part of the text. The end of
/// the stream first is an error (the worker died).
async fn read_answer<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    marker: &[u8],
    text: &mut Capture,
) -> io::Result<Answer> {
    let mut line = Vec::new();
    let (mut held, mut at_start) = (false, true);
    loop {
        line.clear();
        let whole = read_piece(reader, &mut line).await?;
        if line.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the worker ended before its answer",
            ));
        }
        if at_start && line.starts_with(marker) {
            return Ok(status(&line[marker.len()..]));
        }
        at_start = whole;
        // A line break is held back until the next line shows it is not the one before the
        // marker.
        if held {
            text.push(b"\n");
        }
        held = whole;
        text.push(&line[..line.len() - usize::from(whole)]);
    }
}

/// Reads up to a line break (kept) or [`PIECE`] bytes into `line`; true if it ends a line.
/// Empty at the end of the stream. A long line comes in pieces: only a piece at a line's start
/// can be the marker.
async fn read_piece<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> io::Result<bool> {
    (&mut *reader).take(PIECE).read_until(b'\n', line).await?;
    Ok(line.ends_with(b"\n"))
}

/// What the marker line's rest says.
fn status(rest: &[u8]) -> Answer {
    let rest = String::from_utf8_lossy(rest);
    let rest = rest.trim_end();
    let mut words = rest.split(' ');
    match (words.next(), words.next(), words.next()) {
        (Some("ok"), Some(pages), Some(failed)) => Answer::Read {
            pages: pages.parse().unwrap_or_default(),
            failed: failed.parse().unwrap_or_default(),
        },
        _ => Answer::Unreadable(
            rest.strip_prefix("error ")
                .unwrap_or(rest)
                .trim_start_matches("Error: ")
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn answer(input: &[u8]) -> (io::Result<Answer>, Vec<u8>, usize) {
        let mut reader = input;
        let mut text = Capture::new(1 << 20);
        let got = read_answer(&mut reader, b"M1 ", &mut text).await;
        (got, text.bytes, reader.len())
    }

    #[tokio::test]
    async fn the_text_ends_at_the_marker_line() {
        let (got, text, left) =
            answer(b"Title\n\nM10 is not the marker\nM1\n\nM1 ok 3 1\nnext\n").await;
        assert_eq!(
            got.unwrap(),
            Answer::Read {
                pages: 3,
                failed: 1
            }
        );
        assert_eq!(text, b"Title\n\nM10 is not the marker\nM1\n");
        assert_eq!(left, 5, "the next answer is left unread");
    }

    #[tokio::test]
    async fn an_unreadable_file_says_why_and_a_dead_worker_is_an_error() {
        let (got, text, _) = answer(b"\nM1 error Error: no objects found\n").await;
        assert_eq!(got.unwrap(), Answer::Unreadable("no objects found".into()));
        assert!(text.is_empty());
        let (got, _, _) = answer(b"some text\n").await;
        assert_eq!(got.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }

    #[tokio::test]
    async fn a_long_line_is_read_in_pieces_and_kept_up_to_the_cap() {
        let mut input = vec![b'x'; 3 * PIECE as usize];
        input.extend_from_slice(b"M1 ok 1 0\n\nM1 ok 1 0\n");
        let mut reader = &input[..];
        let mut text = Capture::new(100);
        let got = read_answer(&mut reader, b"M1 ", &mut text).await.unwrap();
        assert_eq!(
            got,
            Answer::Read {
                pages: 1,
                failed: 0
            }
        );
        assert_eq!(text.bytes.len(), 100);
        assert!(text.truncated);
        assert!(
            reader.is_empty(),
            "a marker inside a line does not end the answer"
        );
    }

    #[test]
    fn paths_that_would_break_the_line_are_refused() {
        assert_eq!(
            request(Path::new("/s/a b.pdf"), 50).unwrap(),
            b"50 /s/a b.pdf\n"
        );
        assert!(request(Path::new("/s/a\nb.pdf"), 50).is_err());
        assert!(request(Path::new(""), 50).is_err());
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"/s/caf\xe9.pdf");
        assert!(request(Path::new(odd), 50).is_err());
    }
}

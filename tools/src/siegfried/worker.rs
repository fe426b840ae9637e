//! The worker protocol: one `modoai-siegfried --stdin` process, one batch of paths at a time.
//!
//! A batch is its paths, each followed by a NUL byte, then one more NUL (an empty path, which no
//! file has): no byte of a path needs escaping, so a name with newlines or bytes that are not
//! UTF-8 cannot break the framing. The answer is one line per path, in order, each Siegfried's
//! JSON document for that file (it starts with `{"siegfried":`; JSON escapes control
//! characters, so a document is one line), then `{"end":N}`, N counting the batches from 1.
//! stdout and stderr share one pipe; any other line is a message (a Python warning, a Go panic)
//! and goes to the batch's stderr.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::process::{ChildStdin, Command};

use crate::pool::Batches;
use crate::resident::{self, Merged, Process};
use crate::run::{Capture, Ended};

/// How every answer line starts.
pub(super) const ANSWER: &[u8] = b"{\"siegfried\":";
/// Longest piece of a line read at once.
const PIECE: u64 = 64 * 1024;
/// Longest answer line kept whole (a document is under a kilobyte); the rest of a longer one is
/// read and dropped, and its newline kept.
const MAX_LINE: usize = 1 << 20;

/// A running `modoai-siegfried --stdin` process and its pipes.
#[derive(Debug)]
pub(crate) struct Worker {
    process: Process,
    /// Where batches are written.
    stdin: ChildStdin,
    /// stdout and stderr, in the order the worker wrote them.
    output: BufReader<pipe::Receiver>,
    /// Batches sent so far.
    batches: u64,
}

impl resident::Worker for Worker {
    /// Starts `argv` (`modoai-siegfried --stdin`, maybe behind the isolation programs).
    fn spawn(argv: &[OsString]) -> Result<Worker, Ended> {
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        let Merged {
            process,
            stdin,
            output,
        } = Merged::spawn("siegfried", command)?;
        Ok(Worker {
            process,
            stdin,
            output,
            batches: 0,
        })
    }

    fn process(&mut self) -> &mut Process {
        &mut self.process
    }
}

impl Batches for Worker {
    /// Sends `paths` and reads their answers into `out`, one line each in order, and any
    /// message into `err`. An answer line past [`MAX_LINE`] is cut (its newline kept) and `out`
    /// marked truncated.
    async fn exchange(
        &mut self,
        paths: &[PathBuf],
        out: &mut Capture,
        err: &mut Capture,
    ) -> io::Result<()> {
        self.batches += 1;
        let request = request(paths)?;
        let end = format!("{{\"end\":{}}}\n", self.batches);
        // Written while the answer is read: a long batch could fill both pipes otherwise.
        let stdin = &mut self.stdin;
        let written = async {
            stdin.write_all(&request).await?;
            stdin.flush().await
        };
        let read = read_answer(&mut self.output, paths.len(), end.as_bytes(), out, err);
        tokio::try_join!(written, read).map(|_| ())
    }
}

/// The bytes of one batch: each path and a NUL, then a NUL.
fn request(paths: &[PathBuf]) -> io::Result<Vec<u8>> {
    let mut request = Vec::with_capacity(64 * (paths.len() + 1));
    for path in paths {
        let bytes = path.as_os_str().as_bytes();
        if bytes.is_empty() || bytes.contains(&0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty path, or one with a NUL byte, cannot be sent",
            ));
        }
        request.extend_from_slice(bytes);
        request.push(0);
    }
    request.push(0);
    Ok(request)
}

/// Reads lines up to `end`: answers (lines starting with [`ANSWER`]) go to `out`, other lines to
/// `err`. Exactly `files` answers must come before `end`; fewer or more, or the end of the stream
/// first, is an error (the worker is out of step, or died).
async fn read_answer<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    files: usize,
    end: &[u8],
    out: &mut Capture,
    err: &mut Capture,
) -> io::Result<()> {
    let mut answers = 0;
    let mut line = Vec::new();
    loop {
        let cut = read_line(reader, &mut line).await?;
        if line.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("ended after {answers} of {files} answers"),
            ));
        }
        if line == end {
            return match answers == files {
                true => Ok(()),
                false => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("answered {answers} of {files} files"),
                )),
            };
        }
        if line.starts_with(ANSWER) {
            answers += 1;
            out.push(&line);
            out.truncated |= cut;
        } else {
            err.push(&line);
        }
    }
}

/// Reads one line into `line` (cleared first), newline included, keeping at most [`MAX_LINE`]
/// bytes of it and its newline; true if some were dropped. Empty at the end of the stream.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> io::Result<bool> {
    line.clear();
    let mut piece = Vec::new();
    let mut cut = false;
    loop {
        piece.clear();
        let n = (&mut *reader)
            .take(PIECE)
            .read_until(b'\n', &mut piece)
            .await?;
        let room = MAX_LINE.saturating_sub(line.len());
        cut |= piece.len() > room;
        line.extend_from_slice(&piece[..piece.len().min(room)]);
        if n == 0 || piece.ends_with(b"\n") {
            if cut && n > 0 {
                line.push(b'\n');
            }
            return Ok(cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_answer_ends_at_its_marker_with_one_line_per_file() {
        let input = b"{\"siegfried\":\"1\",\"files\":[{\"filename\":\"a\\nb\"}]}\n\
            Traceback: a message\n\
            {\"siegfried\":\"1\",\"files\":[{\"filename\":\"c\"}]}\n\
            {\"end\":2}\n\
            next\n";
        let mut reader = &input[..];
        let (mut out, mut err) = (Capture::new(4096), Capture::new(4096));
        read_answer(&mut reader, 2, b"{\"end\":2}\n", &mut out, &mut err)
            .await
            .unwrap();
        let out = String::from_utf8(out.bytes).unwrap();
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(out.contains("a\\nb") && out.contains("\"c\""), "{out}");
        assert_eq!(err.bytes, b"Traceback: a message\n");
        assert_eq!(reader, b"next\n");
    }

    #[tokio::test]
    async fn too_few_answers_or_no_marker_put_the_worker_out_of_step() {
        let one = b"{\"siegfried\":\"1\"}\n{\"end\":1}\n";
        let (mut out, mut err) = (Capture::new(64), Capture::new(64));
        let e = read_answer(&mut &one[..], 2, b"{\"end\":1}\n", &mut out, &mut err)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        // An earlier batch's marker does not end this one; the stream's end does, as an error.
        let e = read_answer(&mut &one[..], 1, b"{\"end\":2}\n", &mut out, &mut err)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[tokio::test]
    async fn a_long_line_is_cut_and_keeps_its_newline() {
        let mut input = b"{\"siegfried\":\"".to_vec();
        input.resize(MAX_LINE + 10, b'x');
        input.extend_from_slice(b"\"}\n{\"end\":1}\n");
        let (mut out, mut err) = (Capture::new(2 * MAX_LINE), Capture::new(64));
        read_answer(&mut &input[..], 1, b"{\"end\":1}\n", &mut out, &mut err)
            .await
            .unwrap();
        assert_eq!(out.bytes.len(), MAX_LINE + 1);
        assert!(out.bytes.ends_with(b"x\n") && out.truncated);
    }

    #[test]
    fn paths_are_sent_as_they_are_ended_by_nul() {
        use std::os::unix::ffi::OsStrExt;
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/s/caf\xe9\nx.txt"));
        let got = request(&[PathBuf::from("/s/a.jpg"), odd]).unwrap();
        assert_eq!(got, b"/s/a.jpg\0/s/caf\xe9\nx.txt\0\0");
        let nul = PathBuf::from(std::ffi::OsStr::from_bytes(b"a\0b"));
        assert!(request(&[nul]).is_err());
        assert!(request(&[PathBuf::new()]).is_err());
    }
}

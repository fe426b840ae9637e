//! The worker protocol: one `exiftool -stay_open True -@ -` process, one request at a time, the
//! requests of a page written ahead.
//!
//! **Pairing stderr with its request.** ExifTool's errors (`Error: File not found - …`) go to
//! stderr, which has no `{ready}` line. Each request therefore starts with `-echo4` and the text
//! `{done<N> ${status}}`: `-echo4` prints its text on stderr *after* the command is processed, with
//! `${status}` replaced by the exit status the command would have had on its own. Requests are
//! serialized, so everything on stderr after the previous request's marker and up to this one
//! belongs to this request, and the marker also gives the request an exit code like a one-shot
//! run's. Both pipes are read at the same time until both markers have arrived; between requests
//! ExifTool writes nothing, so no background reader is needed. `N` is a sequence number followed by
//! nine random digits, so a file whose metadata holds a line like `{ready2}` (with `-b`, say)
//! cannot end a request early.
//!
//! **Written ahead.** ExifTool runs the commands of its argument stream in order, so a page's
//! requests are all written at once while their answers are read one after another: ExifTool
//! goes from one file to the next without waiting for the server to read an answer and write
//! the next command. Each answer gets its own timeout, counted from the end of the one before.

use std::ffi::OsString;
use std::io;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use crate::resident::{self, Process};
use crate::run::{Capture, Ended, MAX_STDERR};

/// Longest marker line beyond its fixed prefix: the exit status and the closing brace.
const MAX_STATUS_LEN: usize = 12;

/// A running ExifTool process and its pipes.
#[derive(Debug)]
pub(super) struct Worker {
    /// The `exiftool` process.
    process: Process,
    /// Where commands are written.
    stdin: ChildStdin,
    /// Answers, each ending with `{ready<N>}`.
    stdout: BufReader<ChildStdout>,
    /// Messages, each request's ending with the `-echo4` marker.
    stderr: BufReader<ChildStderr>,
    /// Requests sent so far.
    requests: u64,
}

impl resident::Worker for Worker {
    /// Starts `argv` (`exiftool -stay_open True -@ -`, maybe behind the isolation programs).
    fn spawn(argv: &[OsString]) -> Result<Worker, Ended> {
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut process = Process::spawn(command)?;
        let child = process.child();
        Ok(Worker {
            stdin: child.stdin.take().expect("stdin is piped"),
            stdout: BufReader::new(child.stdout.take().expect("stdout is piped")),
            stderr: BufReader::new(child.stderr.take().expect("stderr is piped")),
            process,
            requests: 0,
        })
    }

    fn process(&mut self) -> &mut Process {
        &mut self.process
    }
}

/// One command and the markers that end its answer.
struct Request {
    /// The argument-file lines to write, markers included.
    command: Vec<u8>,
    /// stdout's last line: `{ready<N>}`.
    ready: Vec<u8>,
    /// The start of stderr's last line: `{done<N> `, then the exit status.
    done: Vec<u8>,
}

/// One answered request: its exit status, what it wrote, how long it took.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) status: i32,
    pub(super) out: Capture,
    pub(super) err: Capture,
    pub(super) took: Duration,
}

impl Worker {
    /// The command for `lines` (from [`super::argfile::argfile_lines`]), with a fresh id.
    fn request(&mut self, lines: &[u8]) -> Request {
        self.requests += 1;
        let id = format!(
            "{}{:09}",
            self.requests,
            rand::random_range(0..1_000_000_000u32)
        );
        let done = format!("{{done{id} ");
        let mut command = Vec::with_capacity(lines.len() + 64);
        command.extend_from_slice(b"-echo4\n");
        command.extend_from_slice(done.as_bytes());
        command.extend_from_slice(b"${status}}\n");
        command.extend_from_slice(lines);
        command.extend_from_slice(format!("-execute{id}\n").as_bytes());
        Request {
            command,
            ready: format!("{{ready{id}}}").into_bytes(),
            done: done.into_bytes(),
        }
    }

    /// Sends one command per entry of `lines` and pushes each answer to `answers`, in order, as
    /// it arrives; each answer may take up to `timeout` from the end of the one before (an
    /// error of kind `TimedOut` otherwise), and keeps at most `max_stdout` bytes of stdout.
    pub(super) async fn exchange_all(
        &mut self,
        lines: &[&[u8]],
        timeout: Duration,
        max_stdout: usize,
        answers: &mut Vec<Answer>,
    ) -> io::Result<()> {
        let requests: Vec<Request> = lines.iter().map(|l| self.request(l)).collect();
        let stdin = &mut self.stdin;
        let (stdout, stderr) = (&mut self.stdout, &mut self.stderr);
        // Written while the answers are read: ExifTool's output could fill its pipes otherwise.
        let written = async {
            for r in &requests {
                stdin.write_all(&r.command).await?;
            }
            stdin.flush().await
        };
        let read = async {
            for r in &requests {
                let started = Instant::now();
                let mut out = Capture::new(max_stdout);
                let mut err = Capture::new(MAX_STDERR);
                let answer = answer(stdout, stderr, r, &mut out, &mut err);
                let status = tokio::time::timeout(timeout, answer)
                    .await
                    .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer in time"))??;
                answers.push(Answer {
                    status,
                    out,
                    err,
                    took: started.elapsed(),
                });
            }
            Ok(())
        };
        tokio::try_join!(written, read).map(|_| ())
    }
}

/// Reads the answer to `r` into `out` and `err`: both pipes at once, up to both markers; returns
/// the command's exit status.
async fn answer(
    stdout: &mut BufReader<ChildStdout>,
    stderr: &mut BufReader<ChildStderr>,
    r: &Request,
    out: &mut Capture,
    err: &mut Capture,
) -> io::Result<i32> {
    let (ready, done) = (&r.ready[..], &r.done[..]);
    let ((), status) = tokio::try_join!(
        async {
            read_to_marker(stdout, ready, |line| line == ready, out).await?;
            Ok(())
        },
        async {
            let line = read_to_marker(stderr, done, |l| status(l, done).is_some(), err).await?;
            Ok::<_, io::Error>(status(&line, done).expect("the marker has a status"))
        }
    )?;
    Ok(status)
}

/// The exit status in a stderr marker line `{done<N> <status>}`, whose prefix is `done`.
fn status(line: &[u8], done: &[u8]) -> Option<i32> {
    let digits = line.strip_prefix(done)?.strip_suffix(b"}")?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Reads lines into `into` up to the line that `is_marker` accepts, and returns that line (without
/// its newline; it is not captured).
///
/// Only a line that starts like `prefix` and is at most [`MAX_STATUS_LEN`] longer is held back to
/// be tested, so memory stays bounded whatever the line lengths. The end of the stream before the
/// marker is an error: the worker died.
async fn read_to_marker<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    prefix: &[u8],
    is_marker: impl Fn(&[u8]) -> bool,
    into: &mut Capture,
) -> io::Result<Vec<u8>> {
    // The current line so far, while it may still be the marker.
    let mut line = Vec::new();
    let mut candidate = true;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "ended before answering",
            ));
        }
        let newline = buf.iter().position(|&b| b == b'\n');
        let part = &buf[..newline.unwrap_or(buf.len())];
        if candidate {
            line.extend_from_slice(part);
            let n = line.len().min(prefix.len());
            if line.len() > prefix.len() + MAX_STATUS_LEN || line[..n] != prefix[..n] {
                into.push(&line);
                line.clear();
                candidate = false;
            }
        } else {
            into.push(part);
        }
        let used = newline.map_or(buf.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            if candidate && is_marker(&line) {
                return Ok(line);
            }
            into.push(&line);
            into.push(b"\n");
            line.clear();
            candidate = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn marker_lookalikes_and_long_lines_are_output() {
        let input = b"{ready12}\n{ready1\n{ready123}x\nlong long line\n{ready123}\nnext\n";
        let mut reader = &input[..];
        let mut out = Capture::new(1024);
        let marker = read_to_marker(&mut reader, b"{ready123}", |l| l == b"{ready123}", &mut out)
            .await
            .unwrap();
        assert_eq!(marker, b"{ready123}");
        assert_eq!(
            out.bytes,
            b"{ready12}\n{ready1\n{ready123}x\nlong long line\n"
        );
        assert_eq!(reader, b"next\n");

        let mut eof = &b"no marker\n"[..];
        let err = read_to_marker(&mut eof, b"{x}", |_| false, &mut Capture::new(8))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn status_markers_parse() {
        assert_eq!(status(b"{done17 0}", b"{done17 "), Some(0));
        assert_eq!(status(b"{done17 1}", b"{done17 "), Some(1));
        assert_eq!(status(b"{done17 }", b"{done17 "), None);
        assert_eq!(status(b"{done17 x}", b"{done17 "), None);
        assert_eq!(status(b"{done18 1}", b"{done17 "), None);
    }
}

//! The worker protocol: one `fido … -input -` process, one batch of paths at a time.
//!
//! FIDO reads paths on stdin, one per line, and writes each file's CSV lines as soon as it has
//! identified it. Nothing marks the end of an answer (a path that does not exist gets no line at
//! all), so each batch ends with a **sentinel**: a path of the worker's own, `end-<N>`, a link to
//! a small text file without an extension, for which FIDO writes one `KO` line. The batch's
//! answer is every line before the first one that names this batch's sentinel; a line naming an
//! earlier sentinel is dropped.
//!
//! stdout and stderr share one pipe, so a file's messages (`FIDO: Zero byte file …`) stay next
//! to its lines, and neither pipe can fill up while the other is read. Python writes both
//! unbuffered (`PYTHONUNBUFFERED=1`); a line that starts with `FIDO:` is stderr.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::process::{ChildStdin, Command};

use crate::batch::contains;
use crate::pool::Batches;
use crate::resident::{self, Merged, Process};
use crate::run::{Capture, Ended};

/// Longest piece of a line read at once; a longer line is captured in pieces.
const MAX_LINE: u64 = 64 * 1024;

/// What FIDO is given as the sentinel's target: text it identifies as nothing.
const SENTINEL_TEXT: &[u8] = b"modoai: the end of a batch\n";

/// A running FIDO process, its pipes and its sentinel folder.
#[derive(Debug)]
pub(crate) struct Worker {
    /// The `fido` process.
    process: Process,
    /// Where paths are written.
    stdin: ChildStdin,
    /// stdout and stderr, in the order FIDO wrote them.
    output: BufReader<pipe::Receiver>,
    /// Holds `end`, the sentinel's target, and the `end-<N>` link of the batch in progress.
    folder: tempfile::TempDir,
    /// Batches sent so far.
    batches: u64,
}

impl resident::Worker for Worker {
    /// Starts `argv` (`fido … -input -`, maybe behind the isolation programs).
    fn spawn(argv: &[OsString]) -> Result<Worker, Ended> {
        let failed = |what: &str, e: io::Error| Ended::Failed(format!("fido worker: {what}: {e}"));
        let folder = crate::scratch::tempdir("modoai-fido-")
            .map_err(|e| failed("cannot make its folder", e))?;
        std::fs::write(folder.path().join("end"), SENTINEL_TEXT)
            .map_err(|e| failed("cannot write its sentinel", e))?;
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).env("PYTHONUNBUFFERED", "1");
        let Merged {
            process,
            stdin,
            output,
        } = Merged::spawn("fido", command)?;
        Ok(Worker {
            stdin,
            output,
            process,
            folder,
            batches: 0,
        })
    }

    fn process(&mut self) -> &mut Process {
        &mut self.process
    }
}

impl Batches for Worker {
    /// Sends `paths` and reads their lines into `out` (CSV) and `err` (`FIDO:` messages).
    async fn exchange(
        &mut self,
        paths: &[PathBuf],
        out: &mut Capture,
        err: &mut Capture,
    ) -> io::Result<()> {
        self.batches += 1;
        let sentinel = self.folder.path().join(format!("end-{}", self.batches));
        std::os::unix::fs::symlink("end", &sentinel)?;
        let mut request = Vec::with_capacity(64 * (paths.len() + 1));
        for path in paths.iter().chain([&sentinel]) {
            let bytes = path.as_os_str().as_bytes();
            if bytes.contains(&b'\n') {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a path with a line break cannot be sent",
                ));
            }
            request.extend_from_slice(bytes);
            request.push(b'\n');
        }
        let folder = self.folder.path().as_os_str().as_bytes();
        let sentinel_name = sentinel.as_os_str().as_bytes();
        // Written while the answer is read: a long batch could fill both pipes otherwise.
        let stdin = &mut self.stdin;
        let written = async {
            stdin.write_all(&request).await?;
            stdin.flush().await
        };
        let read = read_answer(&mut self.output, folder, sentinel_name, out, err);
        let answered = tokio::try_join!(written, read).map(|_| ());
        let _ = std::fs::remove_file(&sentinel);
        answered
    }
}

/// Reads lines up to the first that names `sentinel`: lines naming another path in `folder` (an
/// earlier sentinel) are dropped, lines starting with `FIDO:` go to `err`, the others to `out`.
/// The end of the stream before the sentinel is an error: the worker died.
async fn read_answer<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    folder: &[u8],
    sentinel: &[u8],
    out: &mut Capture,
    err: &mut Capture,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut *reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "ended before answering",
            ));
        }
        if contains(&line, sentinel) {
            return Ok(());
        }
        if contains(&line, folder) {
            continue;
        }
        if line.starts_with(b"FIDO:") {
            err.push(&line);
        } else {
            out.push(&line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_answer_ends_at_its_sentinel() {
        let input =
            b"OK,1,fmt/41,\"Raw JPEG\",\"x\",9,\"/s/f000001.jpg\",\"image/jpeg\",\"signature\"\n\
            KO,1,,,,23,\"/w/end-1\",,\"fail\"\n\
            FIDO: Zero byte file (empty): Path is: /s/f000002.jpg\n\
            OK,1,fmt/42,\"JPEG\",\"External\",0,\"/s/f000002.jpg\",\"image/jpeg\",\"extension\"\n\
            KO,1,,,,23,\"/w/end-2\",,\"fail\"\n\
            next\n";
        let mut reader = &input[..];
        let (mut out, mut err) = (Capture::new(4096), Capture::new(4096));
        read_answer(&mut reader, b"/w/", b"\"/w/end-2\"", &mut out, &mut err)
            .await
            .unwrap();
        let out = String::from_utf8(out.bytes).unwrap();
        assert!(
            out.contains("f000001.jpg") && out.contains("f000002.jpg"),
            "{out}"
        );
        assert!(
            !out.contains("end-1"),
            "an earlier sentinel's line is dropped: {out}"
        );
        assert_eq!(
            err.bytes,
            b"FIDO: Zero byte file (empty): Path is: /s/f000002.jpg\n"
        );
        assert_eq!(reader, b"next\n");

        let mut eof = &b"OK,1,no sentinel\n"[..];
        let (mut out, mut err) = (Capture::new(64), Capture::new(64));
        let e = read_answer(&mut eof, b"/w/", b"/w/end-3", &mut out, &mut err)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}

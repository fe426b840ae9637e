//! One persistent ExifTool process for all requests.
//!
//! Perl and ExifTool take 85–95 ms to start; a running `exiftool -stay_open True -@ -` answers in
//! 2–2.5 ms per file (`docs/plugins.md`, "Tool facts"). It reads arguments from stdin, one per line, runs them as one
//! command at each `-execute<N>`, and then prints `{ready<N>}` on stdout.
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
//! **Failures.** If a request times out, or the worker dies or breaks the protocol, the worker's
//! whole process group is killed and the next request starts a fresh one. If the caller drops the
//! request before it ends, the worker (holding a half-read answer) is dropped and killed too.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;

use super::isolate::Isolation;
use super::run::{reap, spawn_failure, Capture, Ended, Outcome, ProcessGroup};

/// Bytes of stderr kept per request, as for any plugin (`plugins.toml`: "stderr capped at 64 KiB").
const MAX_STDERR: usize = 64 * 1024;

/// Longest marker line beyond its fixed prefix: the exit status and the closing brace.
const MAX_STATUS_LEN: usize = 12;

/// One persistent `exiftool -stay_open True -@ -` process shared by all requests, started lazily
/// and restarted when it dies or times out.
///
/// ExifTool handles one command at a time, so requests are serialized.
#[derive(Debug)]
pub(crate) struct ExifTool {
    /// The `exiftool` program.
    program: OsString,
    /// Wall-clock limit for one request, from the moment it has the worker.
    timeout: Duration,
    /// Bytes of stdout kept per request.
    max_stdout: usize,
    /// The running worker, if any; taken out for the length of a request.
    worker: Mutex<Option<Worker>>,
    /// Worker processes started so far.
    starts: AtomicUsize,
    /// Priority and limits of the worker process.
    isolation: Isolation,
}

impl ExifTool {
    /// An ExifTool runner; no process starts until the first request.
    pub(crate) fn new(program: OsString, timeout: Duration, max_stdout: usize) -> Self {
        ExifTool {
            program,
            timeout,
            max_stdout,
            worker: Mutex::new(None),
            starts: AtomicUsize::new(0),
            isolation: Isolation::default(),
        }
    }

    /// Starts workers with this priority and these limits. Defaults to none.
    pub(crate) fn isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// Stops the idle worker, if any (a request in progress owns its worker, which is killed
    /// when that request is dropped).
    pub(crate) fn shutdown(&self) {
        if let Ok(mut slot) = self.worker.try_lock() {
            // Dropping the worker kills its process group.
            slot.take();
        }
    }

    /// Analyses one file: sends `args` (the file's path among them) as one command and returns
    /// what ExifTool wrote for it on stdout and stderr.
    ///
    /// The exit code is the one a one-shot `exiftool` would have returned. Arguments that `-@`
    /// cannot carry unchanged, or that would break the worker's protocol, give
    /// [`Ended::Failed`] and are not sent. On timeout the worker is killed and
    /// [`Ended::TimedOut`] returned; the next call starts a fresh worker.
    pub(crate) async fn analyse(&self, args: &[OsString]) -> Outcome {
        self.analyse_within(args, self.timeout).await
    }

    /// How many worker processes were started so far.
    pub(crate) fn starts(&self) -> usize {
        self.starts.load(Ordering::Relaxed)
    }

    /// [`Self::analyse`] with another timeout.
    async fn analyse_within(&self, args: &[OsString], timeout: Duration) -> Outcome {
        let lines = match argfile_lines(args) {
            Ok(lines) => lines,
            Err(reason) => return Outcome::without_output(Ended::Failed(reason), Duration::ZERO),
        };
        let mut slot = self.worker.lock().await;
        let started = Instant::now();
        // Taken out of the slot: if this future is dropped mid-request, the worker drops with it.
        // `RLIMIT_CPU` counts the worker's whole life, so a worker that has used half of it is
        // replaced: every request gets at least half the limit, and only a file that alone burns
        // that much CPU meets it.
        let half = self.isolation.cpu_secs.map(|s| Duration::from_secs(s) / 2);
        let alive = slot
            .take()
            .and_then(|mut w| (w.is_alive() && !w.used_cpu(half)).then_some(w));
        let mut worker = match alive {
            Some(worker) => worker,
            None => match self.start() {
                Ok(worker) => worker,
                Err(ended) => return Outcome::without_output(ended, started.elapsed()),
            },
        };
        let mut out = Capture::new(self.max_stdout);
        let mut err = Capture::new(MAX_STDERR);
        let exchanged = worker.exchange(&lines, &mut out, &mut err);
        let result = tokio::time::timeout(timeout, exchanged).await;
        let ended = match result {
            Ok(Ok(status)) => {
                *slot = Some(worker);
                Ended::Exited(Some(status))
            }
            Ok(Err(e)) => match worker.stop().await.map(Ended::of) {
                Some(killed @ Ended::Killed(_)) => killed,
                Some(_) | None => Ended::Failed(format!("exiftool worker: {e}")),
            },
            Err(_elapsed) => {
                worker.stop().await;
                Ended::TimedOut
            }
        };
        Outcome::captured(ended, out, err, started)
    }

    /// Starts a worker process.
    fn start(&self) -> Result<Worker, Ended> {
        let argv = self.isolation.wrap(&[
            self.program.clone(),
            "-stay_open".into(),
            "True".into(),
            "-@".into(),
            "-".into(),
        ]);
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| spawn_failure(&e))?;
        self.starts.fetch_add(1, Ordering::Relaxed);
        Ok(Worker {
            group: ProcessGroup::of(&child),
            stdin: child.stdin.take().expect("stdin is piped"),
            stdout: BufReader::new(child.stdout.take().expect("stdout is piped")),
            stderr: BufReader::new(child.stderr.take().expect("stderr is piped")),
            child,
            requests: 0,
        })
    }
}

/// A running ExifTool process and its pipes.
#[derive(Debug)]
struct Worker {
    /// Kills the process group on drop. Declared before `child`, so it drops first, while the
    /// leader is unreaped and its id cannot belong to anyone else.
    group: ProcessGroup,
    /// The `exiftool` process.
    child: Child,
    /// Where commands are written.
    stdin: ChildStdin,
    /// Answers, each ending with `{ready<N>}`.
    stdout: BufReader<ChildStdout>,
    /// Messages, each request's ending with the `-echo4` marker.
    stderr: BufReader<ChildStderr>,
    /// Requests sent so far.
    requests: u64,
}

impl Worker {
    /// Whether the process is still running.
    fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Whether the worker has used at least `budget` of CPU time (user and system, from
    /// `/proc/PID/stat`); false without a budget or when the figure cannot be read.
    fn used_cpu(&self, budget: Option<Duration>) -> bool {
        let (Some(budget), Some(pid)) = (budget, self.child.id()) else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // Fields after the command name, which may hold spaces: utime and stime are the 12th and
        // 13th, in clock ticks.
        let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
        let ticks: u64 = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .filter_map(|t| t.parse::<u64>().ok())
            .sum();
        // The kernel reports USER_HZ ticks, 100 per second on Linux.
        Duration::from_millis(ticks * 10) >= budget
    }

    /// Sends one command (`lines`, from [`argfile_lines`]) and reads its answer into `out` and
    /// `err`; returns the command's exit status.
    async fn exchange(
        &mut self,
        lines: &[u8],
        out: &mut Capture,
        err: &mut Capture,
    ) -> io::Result<i32> {
        self.requests += 1;
        let id = format!(
            "{}{:09}",
            self.requests,
            rand::random_range(0..1_000_000_000u32)
        );
        let ready = format!("{{ready{id}}}");
        let done = format!("{{done{id} ");

        let mut command = Vec::with_capacity(lines.len() + 64);
        command.extend_from_slice(b"-echo4\n");
        command.extend_from_slice(done.as_bytes());
        command.extend_from_slice(b"${status}}\n");
        command.extend_from_slice(lines);
        command.extend_from_slice(format!("-execute{id}\n").as_bytes());
        self.stdin.write_all(&command).await?;
        self.stdin.flush().await?;

        let ready = ready.as_bytes();
        let done = done.as_bytes();
        let ((), status) = tokio::try_join!(
            async {
                read_to_marker(&mut self.stdout, ready, |line| line == ready, out).await?;
                Ok(())
            },
            async {
                let line =
                    read_to_marker(&mut self.stderr, done, |l| status(l, done).is_some(), err)
                        .await?;
                Ok::<_, io::Error>(status(&line, done).expect("the marker has a status"))
            }
        )?;
        Ok(status)
    }

    /// Kills the process group and reaps the worker.
    async fn stop(&mut self) -> Option<ExitStatus> {
        self.group.kill();
        reap(&mut self.child).await
    }
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

/// `args` as `-@` argument-file lines, or why one of them cannot be sent.
///
/// ExifTool reads each line of an argument file as one argument but skips empty lines and lines
/// starting with `#`, strips leading white space and ends a line at a line break (exiftool(1),
/// `-@`). A few options would break the protocol itself.
fn argfile_lines(args: &[OsString]) -> Result<Vec<u8>, String> {
    let mut lines = Vec::new();
    for arg in args {
        let bytes = arg.as_bytes();
        if let Some(reason) = unsendable(bytes) {
            return Err(format!(
                "exiftool argument {:?} cannot be sent to the worker: {reason}",
                arg
            ));
        }
        lines.extend_from_slice(bytes);
        lines.push(b'\n');
    }
    Ok(lines)
}

/// Why `arg` cannot be sent as one `-@` line to the worker, if it cannot.
fn unsendable(arg: &[u8]) -> Option<&'static str> {
    let lower = arg.to_ascii_lowercase();
    if arg.contains(&b'\n') || arg.contains(&b'\r') {
        Some("it contains a line break")
    } else if arg.is_empty() {
        Some("exiftool skips empty lines")
    } else if arg[0].is_ascii_whitespace() {
        Some("exiftool strips leading white space")
    } else if arg[0] == b'#' {
        Some("exiftool reads lines starting with # as comments")
    } else if arg == b"--" {
        Some("after it exiftool would read -execute as a file name")
    } else if lower == b"-stay_open" || lower == b"-@" || lower.starts_with(b"-execute") {
        Some("it would break the worker's protocol")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::Path;

    /// The `exiftool` program, or a panic naming the setup script if it is missing.
    fn exiftool() -> OsString {
        let program = OsString::from("exiftool");
        match std::process::Command::new(&program).arg("-ver").output() {
            Ok(out) if out.status.success() => program,
            Ok(out) => panic!("`exiftool -ver` failed ({}): run scripts/setup", out.status),
            Err(e) => panic!(
                "exiftool is not installed ({e}): run scripts/setup \
                 (Debian package libimage-exiftool-perl)"
            ),
        }
    }

    fn tool() -> ExifTool {
        ExifTool::new(exiftool(), Duration::from_secs(30), 1 << 20)
    }

    /// `-X --System:all PATH`: RDF/XML without the volatile file-system fields.
    fn xml_args(path: &Path) -> Vec<OsString> {
        vec!["-X".into(), "--System:all".into(), path.into()]
    }

    /// A 1×1 GIF and a small text file in a fresh folder.
    fn samples() -> (tempfile::TempDir, [std::path::PathBuf; 2]) {
        const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\
            !\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
        let dir = tempfile::tempdir().unwrap();
        let gif = dir.path().join("f000001.gif");
        let txt = dir.path().join("f000002.txt");
        std::fs::write(&gif, GIF).unwrap();
        std::fs::write(&txt, "one line\nand another\n").unwrap();
        (dir, [gif, txt])
    }

    #[tokio::test]
    async fn one_worker_answers_like_one_shot_runs() {
        let (_dir, files) = samples();
        let tool = tool();
        for file in &files {
            let args = xml_args(file);
            let got = tool.analyse(&args).await;
            let want = std::process::Command::new(exiftool())
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(got.ended, Ended::Exited(Some(0)));
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout)
            );
            assert!(got.stdout.starts_with(b"<?xml"), "{:?}", got);
            assert!(got.stderr.is_empty(), "{:?}", got);
            assert!(!got.truncated);
        }
        assert_eq!(tool.starts(), 1);
    }

    #[tokio::test]
    async fn stderr_belongs_to_its_request() {
        let (dir, files) = samples();
        let tool = tool();
        let missing = tool
            .analyse(&xml_args(&dir.path().join("f000009.gif")))
            .await;
        assert_eq!(missing.ended, Ended::Exited(Some(1)), "{missing:?}");
        let stderr = String::from_utf8_lossy(&missing.stderr);
        assert!(stderr.contains("File not found"), "{stderr}");
        assert!(
            !stderr.contains("{done"),
            "the marker is not output: {stderr}"
        );

        let clean = tool.analyse(&xml_args(&files[0])).await;
        assert_eq!(clean.ended, Ended::Exited(Some(0)));
        assert!(clean.stderr.is_empty(), "{clean:?}");
        assert!(!clean.stdout.is_empty());
        assert_eq!(tool.starts(), 1);
    }

    #[tokio::test]
    async fn timeout_kills_the_worker_and_the_next_request_restarts_it() {
        let (_dir, files) = samples();
        let tool = tool();
        let first = tool
            .analyse_within(&xml_args(&files[0]), Duration::from_millis(1))
            .await;
        assert_eq!(first.ended, Ended::TimedOut);
        assert!(tool.worker.lock().await.is_none(), "the worker was dropped");

        let second = tool.analyse(&xml_args(&files[0])).await;
        assert_eq!(second.ended, Ended::Exited(Some(0)), "{second:?}");
        assert!(!second.stdout.is_empty());
        assert_eq!(tool.starts(), 2);
    }

    #[tokio::test]
    async fn a_dropped_request_drops_its_worker() {
        let (_dir, files) = samples();
        let tool = tool();
        let args = xml_args(&files[0]);
        let abandoned = tokio::time::timeout(Duration::from_millis(1), tool.analyse(&args));
        assert!(abandoned.await.is_err());

        let next = tool.analyse(&xml_args(&files[1])).await;
        assert_eq!(next.ended, Ended::Exited(Some(0)), "{next:?}");
        assert_eq!(tool.starts(), 2);
    }

    #[tokio::test]
    async fn a_dead_worker_is_replaced() {
        let (_dir, files) = samples();
        let tool = tool();
        assert_eq!(
            tool.analyse(&xml_args(&files[0])).await.ended,
            Ended::Exited(Some(0))
        );
        tool.worker.lock().await.as_mut().unwrap().stop().await;

        let next = tool.analyse(&xml_args(&files[1])).await;
        assert_eq!(next.ended, Ended::Exited(Some(0)), "{next:?}");
        assert_eq!(tool.starts(), 2);
    }

    #[tokio::test]
    async fn output_past_the_cap_is_truncated_and_the_worker_stays_in_step() {
        let (_dir, files) = samples();
        let tool = ExifTool::new(exiftool(), Duration::from_secs(30), 100);
        let capped = tool.analyse(&xml_args(&files[0])).await;
        assert_eq!(capped.ended, Ended::Exited(Some(0)));
        assert_eq!(capped.stdout.len(), 100);
        assert!(capped.truncated);

        let small = tool
            .analyse(&["-s3".into(), "-FileType".into(), files[1].clone().into()])
            .await;
        assert_eq!(small.ended, Ended::Exited(Some(0)));
        assert_eq!(small.stdout, b"TXT\n");
        assert_eq!(tool.starts(), 1);
    }

    #[tokio::test]
    async fn a_missing_program_is_not_found() {
        let tool = ExifTool::new("/nonexistent/exiftool".into(), Duration::from_secs(5), 1024);
        let outcome = tool.analyse(&["-ver".into()]).await;
        assert_eq!(outcome.ended, Ended::NotFound);
        assert_eq!(tool.starts(), 0);
    }

    #[tokio::test]
    async fn arguments_the_argfile_cannot_carry_are_refused() {
        let tool = ExifTool::new("/nonexistent/exiftool".into(), Duration::from_secs(5), 1024);
        for arg in [
            "a\nb",
            "",
            " lead",
            "#x",
            "--",
            "-stay_open",
            "-EXECUTE3",
            "-@",
        ] {
            let outcome = tool.analyse(&["-X".into(), arg.into()]).await;
            match outcome.ended {
                Ended::Failed(reason) => assert!(reason.contains("cannot be sent"), "{reason}"),
                other => panic!("{arg:?}: {other:?}"),
            }
        }
        assert_eq!(tool.starts(), 0, "nothing was started");
    }

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

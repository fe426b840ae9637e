//! Running one external tool, bounded and killable.
//!
//! Metadata tools are slow on some inputs (JHOVE's HTML module is roughly quadratic on large text:
//! about 10 s for 4 MB, over two minutes for 16 MB; see `docs/plugins.md`, "Tool facts"), may write more than anyone wants to embed, and some are shell wrappers that
//! fork the real program. So every run here:
//!
//! - starts the program directly (no shell) with stdin closed, or fed the given bytes;
//! - reads stdout and stderr at the same time, so a tool that fills one pipe while we wait on the
//!   other cannot deadlock us (the trap ripgrep's `CommandReader` documents), and keeps at most a
//!   cap of each while reading on, so the tool never blocks on a full pipe;
//! - puts the tool in its own process group and, on timeout or when the caller gives up (the
//!   future is dropped), sends SIGKILL to the whole group: killing only the direct child would
//!   leave a wrapper's grandchild running, holding our pipes open;
//! - takes one permit of a semaphore for the whole run, which bounds the processes of the server.

use std::ffi::OsString;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{kill_process_group, Pid, Signal};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Semaphore;

/// Bytes read from a pipe per call: the default pipe buffer on Linux.
const CHUNK: usize = 64 * 1024;

/// Bytes of stderr kept per tool run or worker request (`plugins.toml`: "stderr capped at
/// 64 KiB").
pub(crate) const MAX_STDERR: usize = 64 * 1024;

/// How long to wait for a killed process to be reaped. SIGKILL ends a process at once unless it is
/// stuck in the kernel (uninterruptible sleep); then the request goes on without it and tokio's
/// orphan reaping collects it later (`kill_on_drop`).
const REAP_GRACE: Duration = Duration::from_secs(2);

/// The bounds of one run.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Wall-clock time from the start of the process until it is killed.
    pub(crate) timeout: Duration,
    /// Bytes of stdout kept; the rest is read and discarded.
    pub(crate) max_stdout: usize,
    /// Bytes of stderr kept; the rest is read and discarded.
    pub(crate) max_stderr: usize,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// The process exited with this code; `None` if it ended some other way.
    Exited(Option<i32>),
    /// A signal ended the process: this one (SIGXCPU from the CPU-time limit, say).
    Killed(i32),
    /// The timeout passed; the process group was killed.
    TimedOut,
    /// The program does not exist (spawn failed with `NotFound`).
    NotFound,
    /// The process could not be started or supervised, for this reason.
    Failed(String),
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// How the run ended.
    pub(crate) ended: Ended,
    /// The first bytes of stdout, at most the cap; also what came before a timeout.
    pub(crate) stdout: Vec<u8>,
    /// The first bytes of stderr, at most the cap.
    pub(crate) stderr: Vec<u8>,
    /// Whether stdout or stderr went past its cap.
    pub(crate) truncated: bool,
    /// Time from the start of the process (not counting the wait for a permit) to its end.
    pub(crate) duration: Duration,
}

impl Ended {
    /// How a process that ended with `status` ended.
    pub fn of(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (None, Some(signal)) => Ended::Killed(signal),
            (code, _) => Ended::Exited(code),
        }
    }
}

impl Outcome {
    /// An outcome with no output, for runs that ended before any process produced some.
    pub(crate) fn without_output(ended: Ended, duration: Duration) -> Self {
        Outcome {
            ended,
            stdout: Vec::new(),
            stderr: Vec::new(),
            truncated: false,
            duration,
        }
    }

    /// The outcome of a run that captured `out` and `err` since `started`.
    pub(crate) fn captured(ended: Ended, out: Capture, err: Capture, started: Instant) -> Self {
        Outcome {
            ended,
            truncated: out.truncated || err.truncated,
            stdout: out.bytes,
            stderr: err.bytes,
            duration: started.elapsed(),
        }
    }
}

/// Runs `argv[0]` with `argv[1..]` (no shell), with stdin closed or fed `stdin`, bounded by
/// `limits`, holding one permit of `permits` for the whole run. `permits` is never closed: the
/// server only ever waits on it.
///
/// The program runs in its own process group. On timeout, and when this future is dropped before
/// the end, the whole group is killed with SIGKILL and the child reaped, so neither the tool nor
/// anything it forked outlives the run. When the tool exits by itself, whatever it left running in
/// its group is killed too: leftovers would hold the output pipes open and stall the run until the
/// timeout.
pub(crate) async fn run(
    argv: &[OsString],
    stdin: Option<Vec<u8>>,
    limits: &Limits,
    permits: &Semaphore,
) -> Outcome {
    let Some((program, args)) = argv.split_first() else {
        return Outcome::without_output(Ended::Failed("empty command".into()), Duration::ZERO);
    };
    let _permit = permits
        .acquire()
        .await
        .expect("the process-limit semaphore is never closed");
    let started = Instant::now();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Outcome::without_output(spawn_failure(&err), started.elapsed()),
    };
    // Declared after `child`, so it is dropped first: the group is killed while its leader is
    // still unreaped, and so while its id cannot belong to anyone else.
    let mut group = ProcessGroup::of(&child);
    let mut out = Capture::new(limits.max_stdout);
    let mut err = Capture::new(limits.max_stderr);

    let supervised = supervise(&mut child, &mut group, stdin, &mut out, &mut err);
    let result = tokio::time::timeout(limits.timeout, supervised).await;
    let ended = match result {
        Ok(Ok(status)) => Ended::of(status),
        Ok(Err(e)) => {
            group.kill();
            reap(&mut child).await;
            Ended::Failed(format!("supervising the process: {e}"))
        }
        Err(_elapsed) => {
            group.kill();
            reap(&mut child).await;
            Ended::TimedOut
        }
    };
    Outcome::captured(ended, out, err, started)
}

/// Feeds stdin, drains both output pipes and waits for the child, all at once.
///
/// The captures are borrowed, not owned, so what was read before a timeout is kept.
async fn supervise(
    child: &mut Child,
    group: &mut ProcessGroup,
    input: Option<Vec<u8>>,
    out: &mut Capture,
    err: &mut Capture,
) -> io::Result<ExitStatus> {
    let pipe_in = child.stdin.take();
    let pipe_out = child.stdout.take().expect("stdout is piped");
    let pipe_err = child.stderr.take().expect("stderr is piped");
    let wait = async {
        let status = child.wait().await?;
        // The leader is reaped, so its id could in principle be reused. It is not while any
        // process of the group is alive (the kernel keeps a process group's id while it has
        // members); with none left, the signal reaches nobody, short of a pid wrap-around in
        // these microseconds by a new group leader.
        group.kill();
        Ok(status)
    };
    let ((), (), (), status) = tokio::try_join!(
        feed(pipe_in, input),
        drain(pipe_out, out),
        drain(pipe_err, err),
        wait
    )?;
    Ok(status)
}

/// Writes `input` to the child's stdin and closes it.
async fn feed(pipe: Option<ChildStdin>, input: Option<Vec<u8>>) -> io::Result<()> {
    let (Some(mut pipe), Some(input)) = (pipe, input) else {
        return Ok(());
    };
    match pipe.write_all(&input).await {
        // A tool may exit, or close stdin, before reading all of it; its exit code tells whether
        // it minded.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
    // `pipe` drops here: the tool sees end of file.
}

/// Reads `pipe` to its end into `into`.
async fn drain(mut pipe: impl AsyncRead + Unpin, into: &mut Capture) -> io::Result<()> {
    let mut chunk = vec![0; CHUNK];
    loop {
        let n = pipe.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        into.push(&chunk[..n]);
    }
}

/// Waits, for a bounded time, until a killed child is reaped.
pub(crate) async fn reap(child: &mut Child) -> Option<ExitStatus> {
    tokio::time::timeout(REAP_GRACE, child.wait())
        .await
        .ok()
        .and_then(Result::ok)
}

/// The [`Ended`] for a failed spawn: [`Ended::NotFound`] when the program does not exist.
pub(crate) fn spawn_failure(err: &io::Error) -> Ended {
    if err.kind() == io::ErrorKind::NotFound {
        Ended::NotFound
    } else {
        Ended::Failed(format!("could not start the program: {err}"))
    }
}

/// At most `cap` bytes of a stream, and whether more came.
#[derive(Debug)]
pub(crate) struct Capture {
    /// The bytes kept.
    pub(crate) bytes: Vec<u8>,
    /// Bytes kept at most.
    cap: usize,
    /// Whether bytes past the cap were discarded.
    pub(crate) truncated: bool,
}

impl Capture {
    /// An empty capture keeping at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Self {
        Capture {
            bytes: Vec::new(),
            cap,
            truncated: false,
        }
    }

    /// Keeps as much of `data` as the cap allows and notes whether some was discarded.
    pub(crate) fn push(&mut self, data: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        if data.len() > room {
            self.truncated = true;
        }
        self.bytes.extend_from_slice(&data[..data.len().min(room)]);
    }
}

/// The process group of a child started with `process_group(0)`, killed when this guard drops.
///
/// `kill_on_drop` alone would kill only the direct child; a wrapper script's grandchildren would
/// live on.
#[derive(Debug)]
pub(crate) struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// The group led by `child` (its process group id is its pid).
    pub(crate) fn of(child: &Child) -> Self {
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            // 0 (and negative ids) would address our own group.
            .filter(|&id| id > 0)
            .and_then(Pid::from_raw);
        ProcessGroup(pgid)
    }

    /// Sends SIGKILL to every process of the group, once; later calls and the drop do nothing.
    pub(crate) fn kill(&mut self) {
        let Some(pgid) = self.0.take() else { return };
        match kill_process_group(pgid, Signal::KILL) {
            // No process left in the group.
            Ok(()) | Err(Errno::SRCH) => {}
            Err(e) => {
                tracing::warn!(pgid = pgid.as_raw_pid(), error = %e, "could not kill a tool's process group")
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests;

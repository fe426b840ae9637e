//! A tool process kept running between requests: ExifTool's `-stay_open`, FIDO's `-input -` and
//! `modoai-siegfried --stdin`.
//!
//! [`Resident`] starts its process at the first request (or at [`Resident::start_now`]), serves
//! one request at a time, and replaces the process when it has died, broken its protocol, timed
//! out or used half of its CPU-time limit. A request dropped before it ends drops (and kills) the
//! process with it, since a half-read answer would put the next request out of step.

use std::ffi::OsString;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::BufReader;
use tokio::net::unix::pipe;
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use super::isolate::Isolation;
use super::run::{reap, spawn_failure, Ended, ProcessGroup};

/// A running tool process in a process group of its own, killed with its group when dropped.
#[derive(Debug)]
pub(crate) struct Process {
    /// Kills the process group on drop. Declared before `child`, so it drops first, while the
    /// leader is unreaped and its id cannot belong to anyone else.
    group: ProcessGroup,
    child: Child,
}

impl Process {
    /// Starts `command` (its pipes already set) as the leader of a new process group.
    pub(crate) fn spawn(mut command: Command) -> Result<Process, Ended> {
        let child = command
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| spawn_failure(&e))?;
        Ok(Process {
            group: ProcessGroup::of(&child),
            child,
        })
    }

    /// The process, for taking its pipes.
    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Whether the process is still running.
    fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Whether the process has used at least `budget` of CPU time (user and system, from
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

    /// Kills the process group and reaps the leader.
    pub(crate) async fn stop(&mut self) -> Option<ExitStatus> {
        self.group.kill();
        reap(&mut self.child).await
    }
}

/// A tool process whose stdout and stderr share one pipe: its messages stay next to the answers
/// they belong to, and neither pipe can fill up while the other is read.
#[derive(Debug)]
pub(crate) struct Merged {
    pub(crate) process: Process,
    /// Where requests are written.
    pub(crate) stdin: ChildStdin,
    /// stdout and stderr, in the order the tool wrote them.
    pub(crate) output: BufReader<pipe::Receiver>,
}

impl Merged {
    /// Starts `command` (the worker of tool `name`) with stdin piped and both outputs on one
    /// pipe.
    pub(crate) fn spawn(name: &str, mut command: Command) -> Result<Merged, Ended> {
        let failed =
            |what: &str, e: io::Error| Ended::Failed(format!("{name} worker: {what}: {e}"));
        let (reader, writer) = io::pipe().map_err(|e| failed("cannot make a pipe", e))?;
        let stderr = writer
            .try_clone()
            .map_err(|e| failed("cannot share its pipe", e))?;
        command.stdin(Stdio::piped()).stdout(writer).stderr(stderr);
        // The command holds the pipe's write ends until it is dropped in `spawn`: afterwards only
        // the worker has them, so its death ends the stream.
        let mut process = Process::spawn(command)?;
        let output = pipe::Receiver::from_owned_fd(reader.into())
            .map_err(|e| failed("cannot read its pipe", e))?;
        Ok(Merged {
            stdin: process.child().stdin.take().expect("stdin is piped"),
            output: BufReader::new(output),
            process,
        })
    }
}

/// A tool's protocol over a [`Process`].
pub(crate) trait Worker: Sized + Send {
    /// Starts the tool from `argv` (the isolation programs first).
    fn spawn(argv: &[OsString]) -> Result<Self, Ended>;
    /// The process the protocol runs over.
    fn process(&mut self) -> &mut Process;
}

/// What the server does with each kept-running tool, whatever its protocol: start it early,
/// count its starts, stop it when the server stops.
pub(crate) trait Kept {
    /// Starts the tool's workers now, those not running or starting.
    fn start_now(&self);
    /// How many worker processes were started so far.
    fn starts(&self) -> usize;
    /// Stops the idle workers (a request in progress owns its worker, which is killed when that
    /// request is dropped).
    fn shutdown(&self);
}

/// One kept-running process of a tool, shared by all requests.
#[derive(Debug)]
pub(crate) struct Resident<W> {
    /// The tool's name, for messages.
    name: &'static str,
    /// The tool's command line, without the isolation programs.
    argv: Vec<OsString>,
    /// The running worker, if any; taken out for the length of a request.
    slot: Mutex<Option<W>>,
    /// Worker processes started so far.
    starts: AtomicUsize,
    /// Priority and limits of the worker process.
    isolation: Isolation,
}

impl<W: Worker> Resident<W> {
    /// A tool that runs as `argv` under `isolation`; nothing starts yet.
    pub(crate) fn new(name: &'static str, argv: Vec<OsString>, isolation: Isolation) -> Self {
        Resident {
            name,
            argv,
            slot: Mutex::new(None),
            starts: AtomicUsize::new(0),
            isolation,
        }
    }

    /// How many worker processes were started so far.
    pub(crate) fn starts(&self) -> usize {
        self.starts.load(Ordering::Relaxed)
    }

    /// Starts the worker now if none is running or starting, so that the first request does not
    /// wait for the tool's own start. A failure is left for that request to report.
    pub(crate) fn start_now(&self) {
        if let Ok(mut slot) = self.slot.try_lock() {
            if slot.is_none() {
                *slot = self.start().ok();
            }
        }
    }

    /// Stops the idle worker, if any (a request in progress owns its worker, which is killed
    /// when that request is dropped).
    pub(crate) fn shutdown(&self) {
        if let Ok(mut slot) = self.slot.try_lock() {
            // Dropping the worker kills its process group.
            slot.take();
        }
    }

    /// Runs `exchange` on the worker (started if needed) within `timeout`, from the moment it
    /// has the worker; returns its answer and when it began. On an error or a timeout (the
    /// session's, or one `exchange` reports as an error of kind `TimedOut`) the worker is
    /// killed, and the next request starts a fresh one.
    pub(crate) async fn exchange<T>(
        &self,
        timeout: Duration,
        exchange: impl AsyncFnOnce(&mut W) -> io::Result<T>,
    ) -> (Result<T, Ended>, Instant) {
        let mut slot = self.slot.lock().await;
        let started = Instant::now();
        // Taken out of the slot: if this future is dropped mid-request, the worker drops with it.
        // `RLIMIT_CPU` counts the worker's whole life, so a worker that has used half of it is
        // replaced: every request gets at least half the limit, and only a request that alone
        // burns that much CPU meets it.
        let half = self.isolation.cpu_secs.map(|s| Duration::from_secs(s) / 2);
        let alive = slot.take().and_then(|mut w| {
            let p = w.process();
            (p.is_alive() && !p.used_cpu(half)).then_some(w)
        });
        let mut worker = match alive {
            Some(worker) => worker,
            None => match self.start() {
                Ok(worker) => worker,
                Err(ended) => return (Err(ended), started),
            },
        };
        let answer = match tokio::time::timeout(timeout, exchange(&mut worker)).await {
            Ok(Ok(answer)) => {
                *slot = Some(worker);
                Ok(answer)
            }
            Ok(Err(e)) if e.kind() == io::ErrorKind::TimedOut => {
                worker.process().stop().await;
                Err(Ended::TimedOut)
            }
            Ok(Err(e)) => match worker.process().stop().await.map(Ended::of) {
                Some(killed @ Ended::Killed(_)) => Err(killed),
                Some(_) | None => Err(Ended::Failed(format!("{} worker: {e}", self.name))),
            },
            Err(_elapsed) => {
                worker.process().stop().await;
                Err(Ended::TimedOut)
            }
        };
        (answer, started)
    }

    /// Starts a worker process.
    fn start(&self) -> Result<W, Ended> {
        let worker = W::spawn(&self.isolation.wrap(&self.argv))?;
        self.starts.fetch_add(1, Ordering::Relaxed);
        Ok(worker)
    }

    /// Kills the idle worker as if it had died (tests of the replacement).
    #[cfg(test)]
    pub(crate) async fn kill_idle(&self) {
        if let Some(w) = self.slot.lock().await.as_mut() {
            w.process().stop().await;
        }
    }

    /// Whether a worker is idle in the slot (tests).
    #[cfg(test)]
    pub(crate) async fn has_idle(&self) -> bool {
        self.slot.lock().await.is_some()
    }
}

//! What became of one plugin for one file: its [`Status`], and the [`Cached`] result a tool run's
//! [`Outcome`] maps to, which is what the cache keeps and the CRATE record shows.

use rustix::process::Signal;
use serde::{Deserialize, Serialize};

use super::isolate::Isolation;
use super::registry::Plugin;
use super::run::{Ended, Outcome};

/// SIGXCPU: the soft CPU-time limit (`cpu-secs`) was reached.
const SIGXCPU: i32 = Signal::XCPU.as_raw();
/// SIGKILL: the hard CPU-time limit, the kernel's out-of-memory killer, or an administrator.
const SIGKILL: i32 = Signal::KILL.as_raw();

/// What became of one plugin for one file: the CRATE's status vocabulary, shared with the
/// programs that read CRATE records.
pub use modoai_protocol::crate_vocab::PluginStatus as Status;

/// What one plugin said about one file: as cached, and as served.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Cached {
    /// What became of the run.
    pub status: Status,
    /// The tool's exit code, if it exited.
    pub exit_code: Option<i32>,
    /// How long the run took.
    pub duration_ms: u64,
    /// Whether stdout or stderr went past its cap.
    pub truncated: bool,
    /// Why the status is what it is, when that needs saying.
    pub note: Option<String>,
    /// The tool's standard output, up to the plugin's cap.
    #[serde(skip)]
    pub stdout: Vec<u8>,
    /// The tool's standard error, up to 64 KiB.
    #[serde(skip)]
    pub stderr: Vec<u8>,
}

/// A result with no output, only a status and a reason.
pub(crate) fn note(status: Status, why: impl Into<Option<String>>) -> Cached {
    Cached {
        status,
        exit_code: None,
        duration_ms: 0,
        truncated: false,
        note: why.into(),
        stdout: Vec::new(),
        stderr: Vec::new(),
    }
}

/// Whether a run ended past a limit (its timeout, or the CPU-time limit), for which one file of a
/// batch may be to blame.
pub(crate) fn is_past_a_limit(ended: &Ended) -> bool {
    matches!(ended, Ended::TimedOut | Ended::Killed(SIGXCPU | SIGKILL))
}

impl Cached {
    /// The result of plugin `p`'s run that ended as `o`, under `isolation`'s limits.
    pub(crate) fn from_outcome(p: &Plugin, isolation: &Isolation, o: Outcome) -> Cached {
        let (status, exit_code, why) = verdict(p, isolation, o.ended, &o.stdout);
        let mut cached = Cached {
            status,
            exit_code,
            duration_ms: o.duration.as_millis() as u64,
            truncated: o.truncated,
            note: why,
            stdout: o.stdout,
            stderr: o.stderr,
        };
        if matches!(cached.status, Status::Error | Status::Failed) {
            if let Some(why) = isolation.memory_note(&cached.stderr) {
                cached.status = Status::Limit;
                cached.note = Some(why);
            }
        }
        cached
    }
}

/// The status, exit code and reason of a run that ended as `ended` after writing `stdout`.
fn verdict(
    p: &Plugin,
    isolation: &Isolation,
    ended: Ended,
    stdout: &[u8],
) -> (Status, Option<i32>, Option<String>) {
    match ended {
        Ended::Exited(Some(c)) if p.ok_exit.contains(&c) => (Status::Ok, Some(c), None),
        // JHOVE: 255 with no output is a configuration or usage error (the paper's JhoveException).
        Ended::Exited(Some(255)) if stdout.iter().all(u8::is_ascii_whitespace) => (
            Status::ConfigError,
            Some(255),
            Some("the tool reported a configuration or usage error".to_owned()),
        ),
        Ended::Exited(Some(c)) => (Status::Error, Some(c), Some(format!("exit code {c}"))),
        Ended::Exited(None) => (Status::Failed, None, Some("ended abnormally".to_owned())),
        Ended::Killed(SIGXCPU) if isolation.cpu_secs.is_some() => (
            Status::Limit,
            None,
            Some(format!(
                "exceeded its CPU-time limit (cpu-secs = {}): killed by SIGXCPU",
                isolation.cpu_secs.unwrap_or_default()
            )),
        ),
        Ended::Killed(SIGKILL) if isolation.cpu_secs.is_some() => (
            Status::Limit,
            None,
            Some("killed by SIGKILL: the hard CPU-time limit (cpu-secs + 5 s) or the kernel's out-of-memory killer".to_owned()),
        ),
        Ended::Killed(signal) => (
            Status::Failed,
            None,
            Some(format!("killed by signal {signal}")),
        ),
        Ended::TimedOut => (
            Status::Timeout,
            None,
            Some(format!(
                "no answer within {} s; its process group was killed",
                p.timeout.as_secs()
            )),
        ),
        Ended::NotFound => (Status::Missing, None, Some("program not found".to_owned())),
        Ended::Failed(why) => (Status::Failed, None, Some(why)),
    }
}

//! Crash points for the kill -9 tests: with `MODOAI_HARVESTER_CRASH=POINT` set, the harvester
//! kills itself (SIGKILL, as `kill -9` would) when it reaches `POINT`, so a test can stop it
//! exactly between two steps of an upload. Unset, these are no-ops.

/// The variable naming the crash point.
const VAR: &str = "MODOAI_HARVESTER_CRASH";

/// A step of an upload after which a test may crash the harvester.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CrashPoint {
    /// A multipart upload has its first part, not its completion (`store-part`).
    Part,
    /// An object is uploaded and verified, the local file not yet removed (`store-verified`).
    Verified,
}

impl CrashPoint {
    fn name(self) -> &'static str {
        match self {
            CrashPoint::Part => "store-part",
            CrashPoint::Verified => "store-verified",
        }
    }
}

/// Kills this process with SIGKILL when `MODOAI_HARVESTER_CRASH` names `point`.
pub(crate) fn crash_at(point: CrashPoint) {
    if std::env::var(VAR).is_ok_and(|v| v == point.name()) {
        use rustix::process::{getpid, kill_process, Signal};
        let _ = kill_process(getpid(), Signal::KILL);
    }
}

//! [`AccessLog`]: hands lines to a writer thread, so that writing the log never blocks or breaks
//! a response; appends to a file (reopened on request, for logrotate) or to standard error.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

use super::line::Record;
use super::AccessLogFormat;

/// Lines waiting for the writer; beyond, lines are dropped (and that is warned about once).
const QUEUE: usize = 16 * 1024;

/// The access log of the standalone server. Cheap to clone; the writer thread ends when the last
/// clone is dropped, after writing what was queued.
#[derive(Clone, Debug)]
pub(crate) struct AccessLog {
    format: AccessLogFormat,
    tx: SyncSender<Message>,
    dropping: Arc<AtomicBool>,
}

enum Message {
    Line(String),
    Reopen,
    /// Answered once every line queued before it is written.
    Sync(mpsc::Sender<()>),
}

/// Where the lines go.
enum Target {
    Stderr,
    File { path: PathBuf, file: File },
}

impl AccessLog {
    /// Starts the writer; the file, if any, is opened for append (created if missing) now, so a
    /// path that cannot be written is an error at start-up.
    pub(crate) fn start(format: AccessLogFormat, file: Option<&Path>) -> io::Result<AccessLog> {
        let target = match file {
            Some(path) => Target::File {
                path: path.to_owned(),
                file: open(path)?,
            },
            None => Target::Stderr,
        };
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("modoai-access-log".to_owned())
            .spawn(move || write_lines(target, rx))?;
        Ok(AccessLog {
            format,
            tx,
            dropping: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Queues the line of `record`; never waits.
    pub(crate) fn record(&self, record: &Record) {
        let Some(line) = record.line(self.format) else {
            return;
        };
        match self.tx.try_send(Message::Line(line)) {
            Ok(()) => {
                if self.dropping.swap(false, Ordering::Relaxed) {
                    tracing::info!("access log keeps up again");
                }
            }
            Err(TrySendError::Full(_)) => {
                if !self.dropping.swap(true, Ordering::Relaxed) {
                    tracing::warn!("access log writes fall behind; lines are dropped until they catch up (is its disk slow?)");
                }
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Waits (at most `limit`) until every line queued so far is written: at shutdown, so the
    /// last requests' lines are not lost when the process exits.
    pub(crate) fn sync(&self, limit: std::time::Duration) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send(Message::Sync(tx)).is_ok() {
            let _ = rx.recv_timeout(limit);
        }
    }

    /// Closes the file and opens it again by name: after logrotate moved it, a new one is created.
    pub(crate) fn reopen(&self) {
        let _ = self.tx.try_send(Message::Reopen);
    }
}

fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "cannot open the access log {}: {e}; check that its folder exists and is writable",
                    path.display()
                ),
            )
        })
}

/// The writer thread: writes each line whole; on an error warns once (until a write succeeds
/// again) and goes on, so a full disk costs log lines, never responses.
fn write_lines(mut target: Target, rx: Receiver<Message>) {
    let mut failing = false;
    for message in rx {
        let written = match (message, &mut target) {
            (Message::Line(line), Target::Stderr) => io::stderr().write_all(line.as_bytes()),
            (Message::Line(line), Target::File { file, .. }) => file.write_all(line.as_bytes()),
            (Message::Reopen, Target::Stderr) => Ok(()),
            (Message::Reopen, Target::File { path, file }) => open(path).map(|f| *file = f),
            (Message::Sync(done), _) => {
                let _ = done.send(());
                continue;
            }
        };
        match written {
            Ok(()) if failing => {
                failing = false;
                tracing::info!("access log is written again");
            }
            Ok(()) => {}
            Err(err) if !failing => {
                failing = true;
                tracing::warn!(error = %err, "cannot write the access log; serving goes on, its lines are lost until writing works again");
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::observe::OaiFacts;

    fn record(target: &str) -> Record {
        Record {
            time: time::OffsetDateTime::now_utc(),
            client: None,
            method: "GET".to_owned(),
            target: target.to_owned(),
            protocol: "HTTP/1.1",
            status: 200,
            bytes: 1,
            duration: Duration::ZERO,
            facts: None::<OaiFacts>,
            user_agent: None,
            referer: None,
        }
    }

    fn wait_for(path: &Path, text: &str) -> String {
        let start = Instant::now();
        loop {
            let got = std::fs::read_to_string(path).unwrap_or_default();
            if got.contains(text) || start.elapsed() > Duration::from_secs(10) {
                return got;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn appends_and_reopens_a_moved_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.log");
        std::fs::write(&path, "old\n").unwrap();
        let log = AccessLog::start(AccessLogFormat::Common, Some(&path)).unwrap();
        log.record(&record("/one"));
        assert!(wait_for(&path, "/one").starts_with("old\n"));
        std::fs::rename(&path, dir.path().join("access.log.1")).unwrap();
        log.reopen();
        log.record(&record("/two"));
        let fresh = wait_for(&path, "/two");
        assert!(fresh.contains("/two") && !fresh.contains("/one"), "{fresh}");
    }

    #[test]
    fn an_unwritable_path_is_an_error_that_says_what_to_do() {
        let err = AccessLog::start(AccessLogFormat::Json, Some(Path::new("/nonexistent/a.log")))
            .unwrap_err();
        assert!(err.to_string().contains("writable"), "{err}");
    }
}

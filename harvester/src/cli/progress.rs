//! The progress bar: records, bytes, rate, and percentage and ETA when the endpoint gives
//! `completeListSize`. Hidden when quiet or when stderr is not a terminal. Log lines and notices
//! go through [`log_writer`] and [`eprintln`], which clear the bar while they print, so they never
//! land in the middle of it.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use modoai_harvester::harvest::Progress;

/// The bar on screen (`harvest` shows one, `harvest-list` none), which stderr output has to
/// clear first.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Writes `bytes` to stderr, the bars cleared meanwhile and drawn again after.
fn write_stderr(bytes: &[u8]) -> io::Result<()> {
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let write = || io::stderr().lock().write_all(bytes);
    match shown {
        None => write(),
        Some(bar) => bar.suspend(write),
    }
}

/// One line on stderr, around the progress bar.
pub(crate) fn eprintln(line: &str) {
    let _ = write_stderr(format!("{line}\n").as_bytes());
}

/// The writer of the log (tracing) output: stderr, around the progress bar.
pub(crate) fn log_writer() -> LogWriter {
    LogWriter
}

/// See [`log_writer`].
pub(crate) struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_stderr(buf).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

pub(crate) struct Bar {
    bar: ProgressBar,
    bytes: AtomicU64,
}

impl Bar {
    pub(crate) fn new(quiet: bool, label: &str) -> Bar {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        };
        bar.set_style(spinner_style());
        bar.set_prefix(label.to_owned());
        if !bar.is_hidden() {
            *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        }
        Bar {
            bar,
            bytes: AtomicU64::new(0),
        }
    }

    pub(crate) fn finish(&self) {
        SHOWN.lock().unwrap_or_else(PoisonError::into_inner).take();
        self.bar.finish_and_clear();
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{spinner} {prefix}: {pos} records, {msg} [{elapsed_precise}, {per_sec}]",
    )
    .expect("valid template")
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{prefix}: [{bar:30}] {pos}/{len} records ({percent}%), {msg}, {per_sec}, ETA {eta}",
    )
    .expect("valid template")
    .progress_chars("=> ")
}

impl Progress for Bar {
    fn page(&self, _pages: u64, list_size: Option<u64>, _cursor: Option<u64>) {
        if let Some(n) = list_size {
            if self.bar.length() != Some(n) {
                self.bar.set_length(n);
                self.bar.set_style(bar_style());
            }
        }
    }

    fn item(&self, bytes: u64) {
        let total = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.bar.inc(1);
        self.bar.set_message(HumanBytes(total).to_string());
    }
}

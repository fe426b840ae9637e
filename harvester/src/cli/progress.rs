//! The progress bar: records, bytes, rate, and percentage and ETA when the endpoint gives
//! `completeListSize`. Hidden when quiet or when stderr is not a terminal.

use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use modoai_harvester::harvest::Progress;

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
        Bar {
            bar,
            bytes: AtomicU64::new(0),
        }
    }

    pub(crate) fn finish(&self) {
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

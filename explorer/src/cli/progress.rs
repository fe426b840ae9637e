//! The progress bar of `index`: ledger bytes read, captures added; on stderr, hidden when it is
//! not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::index::Progress;

/// An indicatif bar.
pub(crate) struct Bar(ProgressBar);

impl Bar {
    pub(crate) fn new(quiet: bool) -> Bar {
        let bar = ProgressBar::with_draw_target(
            None,
            if quiet {
                ProgressDrawTarget::hidden()
            } else {
                ProgressDrawTarget::stderr()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {percent}% {msg}",
            )
            .expect("a valid template"),
        );
        Bar(bar)
    }
}

impl Progress for Bar {
    fn begin(&self, archive: &str, todo: u64) {
        self.0.reset();
        self.0.set_length(todo);
        self.0.set_position(0);
        self.0.set_prefix(format!("indexing {archive}"));
    }

    fn advance(&self, done: u64, added: u64) {
        self.0.set_position(done);
        self.0.set_message(format!("{added} captures"));
    }

    fn end(&self) {
        self.0.finish_and_clear();
    }
}

//! One batch of files, in one process or on one identifier's worker, and its output split per
//! file: JHOVE's `<repInfo>`s, FIDO's CSV lines by the path they name, one line per file in order
//! for `lines-batch` and Siegfried.

use std::path::PathBuf;

use super::{Dispatcher, NEVER_CLOSED};
use crate::batch;
use crate::loaded::Loaded;
use crate::registry::{Kind, Plugin};
use crate::run::{Ended, Limits, Outcome, MAX_STDERR};
use crate::stage::{expand, Stage};
use crate::status::{is_past_a_limit, note, Cached, Status};

impl Dispatcher {
    /// One process for many files (or one batch to an identifier's worker); split its output per
    /// file. If the batch goes past a limit, each file is tried on its own, so one pathological
    /// file cannot cost the others their metadata.
    pub(super) async fn run_batch(
        &self,
        l: &Loaded,
        argv: &[String],
        files: &[usize],
        stage: &Stage,
        part: usize,
    ) -> Vec<Cached> {
        let p = &l.plugin;
        let paths: Vec<PathBuf> = files.iter().map(|&i| stage.path(i)).collect();
        let limits = Limits {
            timeout: p.timeout * files.len().min(8) as u32,
            max_stdout: p.max_output * files.len(),
            max_stderr: MAX_STDERR,
        };
        let outcome = match (&l.fido, &l.siegfried) {
            (Some(fido), _) => self.on_worker(fido.analyse(part, &paths, &limits)).await,
            (_, Some(sf)) => self.on_worker(sf.analyse(part, &paths, &limits)).await,
            (None, None) => self.run(&expand(argv, &paths), &limits).await,
        };
        let lines = match &p.kind {
            Kind::LinesBatch(_) => batch::split_ordered_lines(&outcome.stdout, files.len()),
            // Siegfried's worker answers every file or none: a run that ended otherwise is
            // tried file by file.
            Kind::Siegfried(_) if outcome.ended == Ended::Exited(Some(0)) => {
                batch::split_ordered_lines(&outcome.stdout, files.len())
            }
            _ => None,
        };
        if let Some(lines) = lines {
            return self.per_line(p, &outcome, lines);
        }
        let unsplittable = matches!(p.kind, Kind::LinesBatch(_) | Kind::Siegfried(_));
        if files.len() > 1 && (unsplittable || is_past_a_limit(&outcome.ended)) {
            let mut out = Vec::with_capacity(paths.len());
            for path in paths {
                out.push(self.run_once(p, expand(argv, &[path])).await);
            }
            return out;
        }
        let names: Vec<String> = files.iter().map(|&i| stage.name(i)).collect();
        self.split_batch(p, outcome, &names)
    }

    /// `batch` on a worker, holding a permit of the process limit, until the server stops.
    async fn on_worker(&self, batch: impl std::future::Future<Output = Outcome>) -> Outcome {
        let _permit = self.permits.acquire().await.expect(NEVER_CLOSED);
        self.unless_stopped(batch).await
    }

    /// The results of a run with one line per file: each file's line, with its own status
    /// (`lines-batch`: an error where it says `ERROR:`; Siegfried: from its answer) and, for
    /// Siegfried, the batch's messages.
    fn per_line(&self, p: &Plugin, outcome: &Outcome, lines: Vec<Vec<u8>>) -> Vec<Cached> {
        let per = outcome.duration / lines.len().max(1) as u32;
        let stderr = match p.kind {
            Kind::Siegfried(_) => outcome.stderr.clone(),
            _ => Vec::new(),
        };
        lines
            .into_iter()
            .map(|line| {
                let failed = matches!(p.kind, Kind::LinesBatch(_)) && line.starts_with(b"ERROR:");
                let one = Outcome {
                    ended: match outcome.ended {
                        Ended::Exited(Some(_)) => Ended::Exited(Some(i32::from(failed))),
                        ref other => other.clone(),
                    },
                    stdout: line,
                    stderr: stderr.clone(),
                    truncated: outcome.truncated,
                    duration: per,
                };
                self.to_cached(p, one)
            })
            .collect()
    }

    /// The result of each of the files `names` from one batch run's `outcome`.
    fn split_batch(&self, p: &Plugin, outcome: Outcome, names: &[String]) -> Vec<Cached> {
        let per_ms = outcome.duration.as_millis() as u64 / names.len() as u64;
        // The status of the whole run (from its exit code), without its output.
        let mut whole = self.to_cached(
            p,
            Outcome {
                ended: outcome.ended.clone(),
                stdout: outcome.stdout.clone(),
                stderr: Vec::new(),
                truncated: outcome.truncated,
                duration: outcome.duration,
            },
        );
        whole.stdout.clear();
        let (stdouts, stderrs): (Vec<Option<Vec<u8>>>, Vec<Vec<u8>>) = match &p.kind {
            Kind::JhoveBatch(_) => (
                batch::split_jhove(&outcome.stdout, names),
                vec![outcome.stderr.clone(); names.len()],
            ),
            _ => (
                batch::split_lines(&outcome.stdout, names)
                    .into_iter()
                    .map(Some)
                    .collect(),
                batch::split_lines(&outcome.stderr, names),
            ),
        };
        stdouts
            .into_iter()
            .zip(stderrs)
            .map(|(stdout, stderr)| match stdout {
                Some(stdout) => Cached {
                    stdout,
                    stderr,
                    duration_ms: per_ms,
                    truncated: outcome.truncated,
                    ..whole.clone()
                },
                None if whole.status != Status::Ok => Cached {
                    stderr,
                    duration_ms: per_ms,
                    ..whole.clone()
                },
                None => Cached {
                    stderr,
                    ..note(
                        Status::Failed,
                        "the batch output has no part for this file".to_owned(),
                    )
                },
            })
            .collect()
    }
}

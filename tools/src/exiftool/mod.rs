//! One persistent ExifTool process for all requests.
//!
//! Perl and ExifTool take 85–95 ms to start; a running `exiftool -stay_open True -@ -` answers in
//! 2–2.5 ms per file (`docs/plugins.md`, "Tool facts"). It reads arguments from stdin, one per
//! line, runs them as one command at each `-execute<N>`, and then prints `{ready<N>}` on stdout.
//! [`worker`] speaks that protocol (and pairs stderr with its request); [`argfile`] turns a
//! request's arguments into argument-file lines; this module keeps one worker alive.
//!
//! **Failures.** If a request times out, or the worker dies or breaks the protocol, the worker's
//! whole process group is killed and the next request starts a fresh one. If the caller drops the
//! request before it ends, the worker (holding a half-read answer) is dropped and killed too.

mod argfile;
mod worker;

use std::ffi::OsString;
use std::time::Duration;

use super::isolate::Isolation;
use super::resident::{Kept, Resident};
use super::run::{Ended, Outcome};
use argfile::argfile_lines;
use worker::Worker;

/// One persistent `exiftool -stay_open True -@ -` process shared by all requests, started lazily
/// and restarted when it dies or times out.
///
/// ExifTool handles one command at a time, so requests are serialized.
#[derive(Debug)]
pub(crate) struct ExifTool {
    /// Wall-clock limit for one request, from the moment it has the worker.
    timeout: Duration,
    /// Bytes of stdout kept per request.
    max_stdout: usize,
    /// The worker process.
    resident: Resident<Worker>,
}

impl ExifTool {
    /// An ExifTool runner, its worker started under `isolation`; no process starts until the
    /// first request or [`Kept::start_now`].
    pub(crate) fn new(
        program: OsString,
        timeout: Duration,
        max_stdout: usize,
        isolation: Isolation,
    ) -> Self {
        let argv = vec![
            program,
            "-stay_open".into(),
            "True".into(),
            "-@".into(),
            "-".into(),
        ];
        ExifTool {
            timeout,
            max_stdout,
            resident: Resident::new("exiftool", argv, isolation),
        }
    }

    /// Analyses one file: sends `args` (the file's path among them) as one command and returns
    /// what ExifTool wrote for it on stdout and stderr.
    ///
    /// The exit code is the one a one-shot `exiftool` would have returned. Arguments that `-@`
    /// cannot carry unchanged, or that would break the worker's protocol, give
    /// [`Ended::Failed`] and are not sent. On timeout the worker is killed and
    /// [`Ended::TimedOut`] returned; the next call starts a fresh worker.
    #[cfg(test)]
    pub(crate) async fn analyse(&self, args: &[OsString]) -> Outcome {
        let mut one = self
            .analyse_all_within(&[args.to_vec()], self.timeout)
            .await;
        one.pop().expect("one outcome per request")
    }

    /// [`Self::analyse`] for many files, one command each, all written ahead (see [`worker`]):
    /// an outcome per command, in order. Each command has the whole timeout to itself; after
    /// one that times out or breaks the worker, the rest go to a fresh worker.
    pub(crate) async fn analyse_all(&self, requests: &[Vec<OsString>]) -> Vec<Outcome> {
        self.analyse_all_within(requests, self.timeout).await
    }

    /// [`Self::analyse_all`] with another timeout per command.
    async fn analyse_all_within(
        &self,
        requests: &[Vec<OsString>],
        timeout: Duration,
    ) -> Vec<Outcome> {
        let mut outcomes: Vec<Option<Outcome>> = (0..requests.len()).map(|_| None).collect();
        // The commands to send, by their request's index.
        let mut todo: Vec<(usize, Vec<u8>)> = Vec::with_capacity(requests.len());
        for (i, args) in requests.iter().enumerate() {
            match argfile_lines(args) {
                Ok(lines) => todo.push((i, lines)),
                Err(reason) => {
                    outcomes[i] = Some(Outcome::without_output(
                        Ended::Failed(reason),
                        Duration::ZERO,
                    ))
                }
            }
        }
        let mut rest = &todo[..];
        while !rest.is_empty() {
            let lines: Vec<&[u8]> = rest.iter().map(|(_, l)| &l[..]).collect();
            let mut answers = Vec::with_capacity(lines.len());
            // The worker's whole session is bounded too, should ExifTool stop reading commands.
            let session = timeout.saturating_mul(lines.len() as u32 + 1);
            let (result, started) = self
                .resident
                .exchange(session, async |w: &mut Worker| {
                    w.exchange_all(&lines, timeout, self.max_stdout, &mut answers)
                        .await
                })
                .await;
            let answered = answers.len();
            for ((i, _), a) in rest.iter().zip(answers) {
                outcomes[*i] = Some(Outcome {
                    ended: Ended::Exited(Some(a.status)),
                    truncated: a.out.truncated || a.err.truncated,
                    stdout: a.out.bytes,
                    stderr: a.err.bytes,
                    duration: a.took,
                });
            }
            let mut next = answered;
            if let (Err(ended), Some((i, _))) = (result, rest.get(answered)) {
                // The command in progress ended the session; the rest go to a fresh worker.
                outcomes[*i] = Some(Outcome::without_output(ended, started.elapsed()));
                next += 1;
            }
            // A session answers every command, or ends at one: each turn takes at least one.
            debug_assert!(next > 0);
            rest = &rest[next.clamp(1, rest.len())..];
        }
        outcomes
            .into_iter()
            .map(|o| o.expect("every request has an outcome"))
            .collect()
    }
}

impl Kept for ExifTool {
    fn start_now(&self) {
        self.resident.start_now();
    }

    fn starts(&self) -> usize {
        self.resident.starts()
    }

    fn shutdown(&self) {
        self.resident.shutdown();
    }
}

#[cfg(test)]
mod tests;

//! One external tool run the way the plugins run theirs, for other programs of the workspace: the
//! isolation of `plugins.toml`'s `[settings]` (nice, ionice, prlimit), its timeout and output cap,
//! its bound on processes at once, its own process group killed at the end. The explorer reads
//! PDF text through it, from kept-running MuPDF workers ([`ToolRunner::pdf_text`]).

use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::config::PluginsError;
use super::isolate::Isolation;
use super::pdftext::PdfText;
use super::registry::Registry;
use super::run::{run, Ended, Limits, Outcome, MAX_STDERR};

/// Runs tools with the isolation and limits of a `plugins.toml`'s `[settings]`. Cheap to clone;
/// clones share the bound on processes at once.
///
/// ```no_run
/// # async fn f() -> Result<(), modoai_tools::PluginsError> {
/// use modoai_tools::{Ended, ToolRunner};
/// let tools = ToolRunner::defaults()?;
/// let run = tools.run(&["pdfinfo".into(), "a.pdf".into()]).await;
/// if run.ended == Ended::Exited(Some(0)) {
///     println!("{}", String::from_utf8_lossy(&run.stdout));
/// }
/// let text = tools.pdf_text("a.pdf".as_ref(), 50).await;
/// println!("{}", String::from_utf8_lossy(&text.stdout));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct ToolRunner {
    isolation: Arc<Isolation>,
    limits: Limits,
    permits: Arc<Semaphore>,
    /// Processes at once (`max-processes`): as many PDF workers.
    processes: usize,
    /// The PDF text workers, made at the first PDF: `Err` when they cannot be (their script
    /// not written, `stdbuf` missing), `None` when `mutool` is not installed.
    pdf: Arc<OnceLock<Result<Option<PdfText>, String>>>,
}

/// What one run produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolRun {
    /// How it ended.
    pub ended: Ended,
    /// The first bytes of stdout, at most the output cap.
    pub stdout: Vec<u8>,
    /// The first 64 KiB of stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr went past its cap.
    pub truncated: bool,
}

impl ToolRunner {
    /// The `[settings]` of a `plugins.toml` (its `[[plugin]]` entries are checked too).
    pub fn from_plugins_file(path: &Path) -> Result<Self, PluginsError> {
        Ok(Self::of(Registry::load(path)?))
    }

    /// The default `[settings]`: nice 10, best-effort I/O at level 7, 300 s of CPU, 2 GiB of
    /// data, a 30 s timeout, 1 MiB of output, 2 processes at once.
    pub fn defaults() -> Result<Self, PluginsError> {
        Ok(Self::of(Registry::from_text(
            Path::new("plugins.toml"),
            "",
        )?))
    }

    fn of(registry: Registry) -> Self {
        ToolRunner {
            isolation: Arc::new(registry.isolation),
            limits: Limits {
                timeout: registry.timeout,
                max_stdout: registry.max_output,
                max_stderr: MAX_STDERR,
            },
            permits: Arc::new(Semaphore::new(registry.max_processes)),
            processes: registry.max_processes,
            pdf: Arc::new(OnceLock::new()),
        }
    }

    /// The wall-clock limit of a run.
    pub fn timeout(&self) -> Duration {
        self.limits.timeout
    }

    /// Runs `argv` (no shell, stdin closed) under the isolation, waiting for a free process
    /// slot first; on timeout its whole process group is killed.
    pub async fn run(&self, argv: &[OsString]) -> ToolRun {
        let argv = self.isolation.wrap(argv);
        let outcome = run(&argv, None, &self.limits, &self.permits).await;
        ToolRun::of(outcome)
    }

    /// The text of the first `pages` pages of the PDF at `path` as stdout, read by a
    /// kept-running MuPDF worker (`mutool run`) under the isolation and limits: exit code 0 when
    /// it was read, 1 with MuPDF's reason on stderr when it could not be, [`Ended::NotFound`]
    /// when `mutool` is not installed. As many workers as processes may run at once.
    pub async fn pdf_text(&self, path: &Path, pages: u32) -> ToolRun {
        let workers = self.pdf.get_or_init(|| {
            PdfText::new(&self.isolation, self.processes)
                .map_err(|e| format!("cannot start PDF workers: {e}"))
        });
        let outcome = match workers {
            Ok(Some(workers)) => workers.text(path, pages, &self.limits).await,
            Ok(None) => Outcome::without_output(Ended::NotFound, Duration::ZERO),
            Err(why) => Outcome::without_output(Ended::Failed(why.clone()), Duration::ZERO),
        };
        ToolRun::of(outcome)
    }
}

impl ToolRun {
    fn of(outcome: Outcome) -> Self {
        ToolRun {
            ended: outcome.ended,
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            truncated: outcome.truncated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tools_run_isolated_and_report_how_they_ended() {
        let tools = ToolRunner::defaults().unwrap();
        assert_eq!(tools.timeout(), Duration::from_secs(30));
        let run = tools.run(&["sh".into(), "-c".into(), "nice".into()]).await;
        assert_eq!(run.ended, Ended::Exited(Some(0)));
        assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "10", "niced");
        let run = tools.run(&["no-such-tool-here".into()]).await;
        assert!(
            matches!(run.ended, Ended::Exited(Some(_)) | Ended::NotFound),
            "{run:?}"
        );
    }

    #[tokio::test]
    async fn pdf_text_comes_from_a_kept_running_worker_under_the_isolation() {
        let tools = ToolRunner::defaults().unwrap();
        let report = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/site/docs/report.pdf");
        for _ in 0..2 {
            let run = tools.pdf_text(&report, 50).await;
            assert_eq!(run.ended, Ended::Exited(Some(0)), "{run:?}");
            assert_eq!(
                String::from_utf8_lossy(&run.stdout).trim(),
                "A report from the example site"
            );
        }
        let Some(Ok(Some(pdf))) = tools.pdf.get() else {
            panic!("the workers were made");
        };
        assert_eq!(
            pdf.starts(),
            2,
            "one worker each, in turn, for both requests"
        );
    }
}

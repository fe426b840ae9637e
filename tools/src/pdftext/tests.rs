//! The PDF text workers against the real `mutool` (Debian: mupdf-tools, installed by
//! `scripts/setup`).

use std::path::PathBuf;
use std::time::Duration;

use super::*;

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(60),
        max_stdout: 1 << 20,
        max_stderr: 64 * 1024,
    }
}

fn report() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/site/docs/report.pdf")
}

fn one_worker() -> PdfText {
    PdfText::new(&Isolation::default(), 1)
        .unwrap()
        .expect("mutool is installed (scripts/setup)")
}

#[tokio::test]
async fn one_worker_reads_pdf_after_pdf_and_says_why_a_file_is_unreadable() {
    let pdf = one_worker();
    for _ in 0..3 {
        let run = pdf.text(&report(), 50, &limits()).await;
        assert_eq!(run.ended, Ended::Exited(Some(0)), "{run:?}");
        assert_eq!(
            String::from_utf8_lossy(&run.stdout).trim(),
            "A report from the example site"
        );
    }
    let not_pdf = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(not_pdf.path(), "plain text, no PDF").unwrap();
    let run = pdf.text(not_pdf.path(), 50, &limits()).await;
    assert_eq!(run.ended, Ended::Exited(Some(1)), "{run:?}");
    assert!(run.stdout.is_empty());
    assert!(!run.stderr.is_empty(), "MuPDF's reason is kept");
    let run = pdf.text(&report(), 0, &limits()).await;
    assert_eq!(run.ended, Ended::Exited(Some(0)));
    assert!(run.stdout.is_empty(), "no page asked for, no text");
    assert_eq!(pdf.starts(), 1, "one process for every request");
}

#[tokio::test]
async fn a_dead_or_timed_out_worker_is_replaced_and_the_text_is_capped() {
    let pdf = one_worker();
    assert_eq!(
        pdf.text(&report(), 50, &limits()).await.ended,
        Ended::Exited(Some(0))
    );
    pdf.workers.resident(0).kill_idle().await;
    assert_eq!(
        pdf.text(&report(), 50, &limits()).await.ended,
        Ended::Exited(Some(0))
    );
    assert_eq!(pdf.starts(), 2, "the dead worker was replaced");
    // A FIFO no one writes to: MuPDF waits on it for ever.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("stuck.pdf");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let short = Limits {
        timeout: Duration::from_millis(300),
        ..limits()
    };
    assert_eq!(pdf.text(&fifo, 50, &short).await.ended, Ended::TimedOut);
    assert!(
        !pdf.workers.resident(0).has_idle().await,
        "the timed-out worker was killed"
    );
    let capped = Limits {
        max_stdout: 8,
        ..limits()
    };
    let run = pdf.text(&report(), 50, &capped).await;
    assert_eq!(run.ended, Ended::Exited(Some(0)));
    assert_eq!(run.stdout, b"A report");
    assert!(run.truncated);
    assert_eq!(pdf.starts(), 3);
}

#[tokio::test]
async fn a_missing_file_is_an_answer_not_a_dead_worker() {
    let pdf = one_worker();
    let run = pdf
        .text(Path::new("/no/such/file.pdf"), 50, &limits())
        .await;
    assert_eq!(run.ended, Ended::Exited(Some(1)), "{run:?}");
    let run = pdf.text(Path::new("/s/a\nb.pdf"), 50, &limits()).await;
    assert!(matches!(run.ended, Ended::Failed(_)), "{run:?}");
    assert_eq!(
        pdf.text(&report(), 50, &limits()).await.ended,
        Ended::Exited(Some(0))
    );
    assert_eq!(
        pdf.starts(),
        1,
        "a path that cannot be sent is refused before the worker"
    );
}

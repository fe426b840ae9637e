//! The explorer's pages as a person sees them, in headless Chromium: a word finds its file with
//! the word marked, facet counts narrow the results, the calendar drills down from years to
//! days, the word cloud and the MIME chart describe the results, a URL's timeline (`browse`); a
//! capture page shows its CRATE and its image, and links to its replay in pywb (`capture`); a
//! deleted file is "Gone since" its deletion until it comes back (`gone`); the
//! the search page's export menu, its count and its downloads (`export`); the
//! API page's sandbox with a key, the pages without JavaScript, bad input as a readable error
//! page (`plain`); the query help, pages counted from 1, formats by name and the OAI sets
//! (`reading`); an archived page's scripts, as a memento, reach nothing of the
//! explorer's origin (`sandboxed`). Screenshots of these pages are in docs/screenshots/ (made with
//! `MODOAI_SCREENSHOTS=docs/screenshots`).

mod browse;
mod capture;
mod export;
mod gone;
mod plain;
mod reading;
mod sandboxed;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use integration_tests::browser::Browser;
use modoai_explorer::synthetic::{write, Spec};

use super::{explorer, once_per_run, work_dir, Explorer};

/// Captures of the synthetic archive, and of them captures of [`HOT_URL`].
pub(super) const SYNTHETIC: u64 = 400;
pub(super) const HOT: u64 = 24;

/// A synthetic archive whose captures spread over eleven years, indexed (made on first use,
/// once per test run).
pub(super) fn synthetic() -> &'static Path {
    static ONCE: OnceLock<PathBuf> = OnceLock::new();
    ONCE.get_or_init(|| {
        let archive = once_per_run("ui-synthetic", || {
            let archive = work_dir("ui-synthetic").join("archive");
            let spec = Spec {
                captures: SYNTHETIC,
                hot: HOT,
                first: 0,
                text: (200, 600),
                seed: 11,
            };
            write(&archive, &spec).unwrap();
            // Indexed here, once: servers of tests running at once would otherwise race to
            // build the index inside the archive, and one could answer from an index another
            // is still filling.
            let path = archive.to_str().unwrap();
            let out = explorer(&["index", "--quiet", "--archive", path]);
            assert!(
                out.status.success(),
                "index: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            archive.to_string_lossy().into_owned()
        });
        PathBuf::from(archive)
    })
}

/// An explorer over the synthetic archive, its index built and searchable.
pub(super) fn synthetic_explorer(name: &str) -> Explorer {
    let e = Explorer::start(&[synthetic()], &work_dir(name), "");
    e.get_ready("/search", None);
    e
}

/// The whole number in a text (`"1,234 captures"` → 1234).
pub(super) fn number(text: &str) -> u64 {
    let digits: String = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no number in {text:?}"))
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// The captures the page says it found.
pub(super) async fn found(b: &Browser) -> u64 {
    number(&b.text("h1.found").await)
}

/// The counts of the elements `css` selects, each a number in its text (also of those folded
/// away under "more", which a person opens to read).
pub(super) async fn counts(b: &Browser, css: &str) -> Vec<u64> {
    let texts = b
        .script(&format!(
            "return [...document.querySelectorAll({css:?})].map(e => e.textContent);"
        ))
        .await;
    let texts = texts.as_array().unwrap_or_else(|| panic!("{css}: {texts}"));
    texts
        .iter()
        .map(|t| number(t.as_str().unwrap_or_default()))
        .collect()
}

pub(super) fn page(e: &Explorer, path: &str) -> String {
    format!("http://127.0.0.1:{}{path}", e.port)
}

//! Support for these tests: the Python oracles' venv.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The repository's `.venv` python, checked to import `modules`; panics naming `scripts/setup`.
pub(crate) fn venv_python(modules: &str) -> PathBuf {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{} cannot import {modules}; run scripts/setup to create the test oracles' venv",
        python.display()
    );
    python
}

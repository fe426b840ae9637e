//! The Python peers and oracles of `tests/python`, run with the venv `scripts/setup` creates.

use std::path::PathBuf;
use std::process::Command;

use crate::site::repo_root;

/// The Python of the project's venv (`scripts/setup` makes it), for the peers Sickle and pyoai.
pub fn venv_python() -> PathBuf {
    let python = repo_root().join(".venv/bin/python");
    assert!(python.exists(), "the Python peers are not installed: run scripts/setup (it creates .venv with Sickle and pyoai)");
    python
}

/// A program the venv installs (`schemathesis`, `openapi-spec-validator`, `wb-manager`, …).
pub fn venv_tool(name: &str) -> PathBuf {
    let tool = repo_root().join(".venv/bin").join(name);
    assert!(
        tool.exists(),
        "{name} is not installed: run scripts/setup (it installs the Python peers in .venv)"
    );
    tool
}

/// Runs one of `tests/python/*.py` in the venv without blocking the runtime; returns
/// (success, stdout, stderr).
pub async fn run_python(script: &str, args: &[&str]) -> (bool, String, String) {
    let python = venv_python();
    let script = repo_root().join("tests/python").join(script);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let out =
        tokio::task::spawn_blocking(move || Command::new(python).arg(script).args(args).output())
            .await
            .expect("join")
            .expect("python runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Parses the JSON a harvester script prints.
pub fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// Runs one of `tests/python/*.py` in the venv and returns its stdout; panics with its output
/// when it fails.
pub fn python(script: &str, args: &[&str]) -> String {
    let python = venv_python();
    let out = Command::new(&python)
        .arg(repo_root().join("tests/python").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; run scripts/setup", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script} {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

//! Support for these tests: the fault server, the Python oracles' venv, peak memory.

use std::path::PathBuf;
use std::process::{Command, Stdio};

// The scripted HTTP server the client tests misbehave with. It is the one of the end-to-end
// tests' support library (tests/src/fault), included by path: this crate cannot depend on
// `integration-tests`, which depends on it. Each test module uses a part of it.
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../../../tests/src/fault/mod.rs"]
mod fault;

pub(crate) use fault::{generated_byte, FaultServer, Reply};

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

/// Peak resident memory (VmHWM) of a running process, in KiB; `None` once it is gone.
pub(crate) fn vm_hwm(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

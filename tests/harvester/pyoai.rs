//! A foreign provider: pyoai's server (tests/python/mini_pyoai.py), oai_dc over several pages.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use integration_tests::repo_root;

use super::{archive_check, harvest_ok, ledger};

/// pyoai serving `n` records, killed on drop.
pub(crate) struct PyOai {
    child: Child,
    pub(crate) url: String,
}

impl PyOai {
    pub(crate) fn start(n: usize) -> PyOai {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(integration_tests::venv_python())
            .arg(repo_root().join("tests/python/mini_pyoai.py"))
            .args([port.to_string(), n.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mini_pyoai.py (run scripts/setup for the venv with pyoai)");
        let server = PyOai {
            child,
            url: format!("http://127.0.0.1:{port}/oai"),
        };
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("mini_pyoai.py did not start");
    }
}

impl Drop for PyOai {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn pyoai_oai_dc_over_several_pages() {
    let server = PyOai::start(250);
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap();
    // pyoai offers no oai_crate, so the default format is oai_dc.
    let out = harvest_ok(&["harvest", &server.url, "--archive", a], 0);
    assert!(out.contains("(oai_dc"), "{out}");
    assert!(out.contains("250 items in 3 pages"), "{out}");
    let entries = ledger(&archive);
    assert_eq!(entries.len(), 250);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e.identifier, format!("oai:example.org:{i}"));
        let r = &e.records[0];
        assert_eq!(r.kind, "resource");
        assert_eq!(r.mime, "application/xml");
        assert!(
            r.uri.starts_with(&format!(
                "{}?verb=GetRecord&identifier=oai%3Aexample.org%3A{i}&",
                server.url
            )),
            "{}",
            r.uri
        );
    }
    archive_check(&archive);
    // Again: incremental, nothing new (pyoai answers noRecordsMatch, an empty success).
    let out = harvest_ok(&["harvest", &server.url, "--archive", a], 0);
    assert!(out.contains("0 archived"), "{out}");
    assert_eq!(ledger(&archive).len(), 250);
}

//! Running the real `modoai` binary in tests: start it on a document root, talk HTTP/1.0 to it.

#![allow(dead_code)] // each test file uses its own part of this

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for the server to start, answer or exit before calling it hung.
pub(crate) const MARGIN: Duration = Duration::from_secs(30);

/// Kills the server if the test fails before it exits.
pub(crate) struct Running(pub(crate) Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `modoai serve ARGS` on `root` with a configuration file in `work` holding `config`,
/// and waits until it answers Identify.
pub(crate) fn start(root: &Path, work: &Path, config: &str, args: &[&str]) -> (Running, u16) {
    let port = free_port();
    let config_path = work.join("modoai.toml");
    std::fs::write(&config_path, config).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_modoai"))
        .arg("serve")
        .args(args)
        .arg("--root")
        .arg(root)
        .args(["--listen", &format!("127.0.0.1:{port}"), "--config"])
        .arg(&config_path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the modoai binary starts");
    let server = Running(child);
    let started = Instant::now();
    while !get(port, "/modoai?verb=Identify").starts_with(b"HTTP/1.0 200") {
        assert!(started.elapsed() < MARGIN, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

/// A whole HTTP/1.0 response (the body ends where the connection does); empty when nothing
/// listens.
pub(crate) fn get(port: u16, target: &str) -> Vec<u8> {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return Vec::new();
    };
    s.set_read_timeout(Some(MARGIN)).unwrap();
    write!(s, "GET {target} HTTP/1.0\r\nHost: t\r\n\r\n").unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

//! A real S3 server for the tests of `--store`: `s3s-fs` (installed by `scripts/setup`) on a
//! free loopback port, serving a temporary folder, with the AWS environment that reaches it.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::http::MARGIN;
use crate::process::{free_port, require_tool, Running};

/// How `scripts/setup` installs s3s-fs (the tests fail with it when s3s-fs is missing).
pub const S3S_INSTALL: &str = "cargo install s3s-fs --locked --version 0.14.1 --features binary";

/// The access key the server accepts.
const ACCESS_KEY: &str = "modoai-test";
/// Its secret.
const SECRET_KEY: &str = "modoai-test-secret";

/// An `s3s-fs` server, stopped when dropped; its buckets are folders of [`S3Server::root`].
pub struct S3Server {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    root: tempfile::TempDir,
    _child: Running,
}

impl S3Server {
    /// Starts s3s-fs with an empty bucket `bucket`, and waits until it accepts connections.
    ///
    /// # Panics
    ///
    /// When s3s-fs is not installed (with the command that installs it), or does not start.
    pub fn start(bucket: &str) -> S3Server {
        require_tool("s3s-fs", S3S_INSTALL);
        let root = tempfile::tempdir().expect("a folder for the S3 server");
        std::fs::create_dir(root.path().join(bucket)).expect("the bucket's folder");
        let port = free_port();
        let child = Command::new("s3s-fs")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(root.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("s3s-fs does not start ({e}): run `{S3S_INSTALL}`"));
        let child = Running(child);
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < MARGIN, "s3s-fs did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        }
        S3Server {
            endpoint: format!("http://127.0.0.1:{port}"),
            root,
            _child: child,
        }
    }

    /// The AWS environment variables that reach this server with its credentials.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
        ]
    }

    /// The server's data folder: one folder per bucket, objects as files under their keys.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The object `key` of `bucket` as a file.
    pub fn object(&self, bucket: &str, key: &str) -> PathBuf {
        self.root.path().join(bucket).join(key)
    }

    /// The parts of multipart uploads neither completed nor aborted.
    pub fn incomplete_parts(&self) -> Vec<String> {
        std::fs::read_dir(self.root.path())
            .expect("the server's folder")
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with(".upload_id-"))
            .collect()
    }
}

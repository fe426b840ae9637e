//! Helpers for modoai's end-to-end tests: temporary sites, an in-process server on an ephemeral
//! port, an HTTP client, XSD validation with xmllint, and the Python peers of `scripts/setup`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use quick_xml::events::Event;
use tempfile::TempDir;

pub use modoai::Config;

/// The repository's top folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A document root in a temporary folder.
pub struct TestSite {
    dir: TempDir,
}

impl TestSite {
    /// An empty site.
    pub fn empty() -> Self {
        TestSite {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A copy of `examples/site`, hidden files included (they must stay out of the index).
    pub fn example() -> Self {
        let site = Self::empty();
        copy_dir(&repo_root().join("examples/site"), site.path());
        site
    }

    /// A copy of any folder.
    pub fn from_dir(dir: &Path) -> Self {
        let site = Self::empty();
        copy_dir(dir, site.path());
        site
    }

    /// The root folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating folders) and sets its mtime to `unix` seconds, if given.
    pub fn write(&self, rel: &str, bytes: &[u8], unix: Option<u64>) -> PathBuf {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write");
        if let Some(secs) = unix {
            set_mtime(&path, secs);
        }
        path
    }
}

/// Sets a file's modification time.
pub fn set_mtime(path: &Path, unix: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open for mtime");
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(unix))
        .expect("set mtime");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read example site") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The standalone server, in this process, on 127.0.0.1 and a free port.
pub struct Server {
    /// `http://127.0.0.1:PORT/`, the site's base URL.
    pub base: String,
    /// The OAI-PMH base URL.
    pub oai: String,
    /// The listening address.
    pub addr: SocketAddr,
    client: Client<HttpConnector, Full<Bytes>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Serves `root` with the default test settings changed by `configure`, and waits for the index.
    pub async fn start(root: &Path, configure: impl FnOnce(Config) -> Config) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let base = format!("http://{addr}/");
        let config = configure(
            Config::new(root, &base)
                .expect("config")
                .admin_email("webmaster@example.org")
                .expect("email"),
        );
        let oai = config.oai_base_url();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(modoai::serve(listener, config, async move {
            let _ = stopped.await;
        }));
        let client = Client::builder(TokioExecutor::new()).build_http();
        let server = Server {
            base,
            oai,
            addr,
            client,
            stop: Some(stop),
            task: Some(task),
        };
        server.wait_ready().await;
        server
    }

    async fn wait_ready(&self) {
        for _ in 0..400 {
            if self.oai("verb=Identify").await.status == StatusCode::OK {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the server's index did not become ready");
    }

    /// Stops the server and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("server task").expect("server result");
        }
    }

    /// The identifier of a file: the site's base URL plus its encoded path.
    pub fn id(&self, encoded_path: &str) -> String {
        format!("{}{encoded_path}", self.base)
    }

    /// GET a URL.
    pub async fn get(&self, url: &str) -> Reply {
        self.send(Request::get(url).body(Full::default()).expect("request"))
            .await
    }

    /// GET the OAI route with a raw query string.
    pub async fn oai(&self, query: &str) -> Reply {
        self.get(&format!("{}?{query}", self.oai)).await
    }

    /// POST a form to the OAI route.
    pub async fn post(&self, form: &str) -> Reply {
        let req = Request::post(&self.oai)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Full::new(Bytes::from(form.to_owned())))
            .expect("request");
        self.send(req).await
    }

    /// Sends any request.
    pub async fn send(&self, req: Request<Full<Bytes>>) -> Reply {
        let res = self.client.request(req).await.expect("HTTP request");
        let (parts, body) = res.into_parts();
        let body = body.collect().await.expect("body").to_bytes();
        Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// A whole HTTP response.
pub struct Reply {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

impl Reply {
    /// The body as UTF-8.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("UTF-8 body")
    }

    /// Every `code` of the `<error>` elements.
    pub fn error_codes(&self) -> Vec<String> {
        attrs(&self.body, "error", "code")
    }

    /// Text of every element with this local name.
    pub fn texts(&self, local: &str) -> Vec<String> {
        texts(&self.body, local)
    }

    /// The attributes of the `request` element.
    pub fn request_attrs(&self) -> BTreeMap<String, String> {
        element_attrs(&self.body, "request")
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// The `resumptionToken` element: its text and attributes, if present.
    pub fn token(&self) -> Option<(String, BTreeMap<String, String>)> {
        let attrs = element_attrs(&self.body, "resumptionToken")
            .into_iter()
            .next()?;
        let text = texts(&self.body, "resumptionToken")
            .into_iter()
            .next()
            .unwrap_or_default();
        Some((text, attrs))
    }

    /// Asserts HTTP 200 and `text/xml; charset=UTF-8`, and validates against the schemas.
    pub fn assert_valid(&self) -> &Self {
        assert_eq!(
            self.status,
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.headers["content-type"], "text/xml; charset=UTF-8");
        if let Err(e) = xsd_validate(&self.body) {
            panic!(
                "response does not validate: {e}\n{}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(4000)])
            );
        }
        self
    }
}

/// Text of every element with this local name, entities resolved.
pub fn texts(xml: &[u8], local: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let (mut out, mut depth, mut cur) = (Vec::new(), 0usize, String::new());
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if e.local_name().as_ref() == local.as_bytes() => {
                depth += 1;
                if depth == 1 {
                    cur.clear();
                }
            }
            Event::Empty(e) if e.local_name().as_ref() == local.as_bytes() && depth == 0 => {
                out.push(String::new())
            }
            Event::Text(t) if depth > 0 => cur.push_str(&t.decode().expect("text")),
            Event::GeneralRef(r) if depth > 0 => push_reference(&mut cur, &r),
            Event::End(e) if e.local_name().as_ref() == local.as_bytes() => {
                depth -= 1;
                if depth == 0 {
                    out.push(std::mem::take(&mut cur));
                }
            }
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

/// Appends what a character or predefined entity reference stands for (modoai writes no other).
fn push_reference(out: &mut String, r: &quick_xml::events::BytesRef<'_>) {
    match r.resolve_char_ref().expect("character reference") {
        Some(c) => out.push(c),
        None => {
            let name = r.decode().expect("entity name");
            out.push_str(
                quick_xml::escape::resolve_predefined_entity(&name).expect("predefined entity"),
            );
        }
    }
}

/// One attribute of every element with this local name.
pub fn attrs(xml: &[u8], local: &str, attr: &str) -> Vec<String> {
    element_attrs(xml, local)
        .into_iter()
        .filter_map(|mut m| m.remove(attr))
        .collect()
}

/// The attributes of every element with this local name.
pub fn element_attrs(xml: &[u8], local: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == local.as_bytes() => {
                let map = e
                    .attributes()
                    .map(|a| {
                        let a = a.expect("attribute");
                        (
                            String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                            a.unescape_value().expect("value").into_owned(),
                        )
                    })
                    .collect();
                out.push(map);
            }
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

/// The `modoai:header` name/value pairs of a DIDL record, in order.
pub fn http_headers(xml: &[u8]) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let (mut out, mut buf, mut current) = (Vec::new(), Vec::new(), None::<(String, String)>);
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if e.name().as_ref() == b"modoai:header" => {
                let name = e
                    .try_get_attribute("name")
                    .expect("attr")
                    .expect("name attribute");
                current = Some((
                    name.unescape_value().expect("value").into_owned(),
                    String::new(),
                ));
            }
            Event::Text(t) => {
                if let Some((_, v)) = current.as_mut() {
                    v.push_str(&t.decode().expect("text"));
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, v)) = current.as_mut() {
                    push_reference(v, &r);
                }
            }
            Event::End(e) if e.name().as_ref() == b"modoai:header" => out.extend(current.take()),
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

/// Panics with how to install `tool` when it is missing.
pub fn require_tool(tool: &str, install: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status();
    assert!(
        found.is_ok_and(|s| s.success()),
        "{tool} is not installed: run scripts/setup (or: {install})"
    );
}

/// Validates a response with xmllint against `schemas/modoai-all.xsd` (OAI-PMH, oai_dc, DIDL, modoai).
pub fn xsd_validate(xml: &[u8]) -> Result<(), String> {
    require_tool("xmllint", "apt-get install libxml2-utils");
    let schema = repo_root().join("schemas/modoai-all.xsd");
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "--huge", "--schema"])
        .arg(&schema)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().expect("stdin");
    let data = xml.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The Python of the project's venv (`scripts/setup` makes it), for the peers Sickle and pyoai.
pub fn venv_python() -> PathBuf {
    let python = repo_root().join(".venv/bin/python");
    assert!(python.exists(), "the Python peers are not installed: run scripts/setup (it creates .venv with Sickle and pyoai)");
    python
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

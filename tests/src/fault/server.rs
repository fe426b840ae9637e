//! [`FaultServer`]: the scripted server, its thread and its request log.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use super::reply::Reply;
use super::wire;

type Script = dyn Fn(&RequestInfo) -> Reply + Send + Sync;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RequestInfo {
    /// 0-based arrival order over the whole server.
    pub n: usize,
    /// 0-based connection number: equal numbers mean a reused (keep-alive) connection.
    pub connection: usize,
    /// The request method.
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The request body (as long as its `Content-Length`).
    pub body: Vec<u8>,
    /// When the request head had been read.
    pub arrived: Instant,
    /// When the server had sent its reply, or given up on it (a fault or a gone client); `None`
    /// while the reply is under way, and always `None` in the script's view.
    pub finished: Option<Instant>,
}

impl RequestInfo {
    /// The first header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The target without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// The raw query, without `?`.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, query)| query)
    }

    /// Every value of query parameter `key`, form-decoded, in order.
    pub fn params(&self, key: &str) -> Vec<String> {
        let query = self.query().unwrap_or_default().as_bytes();
        let pairs = url::form_urlencoded::parse(query);
        pairs
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
            .collect()
    }
}

/// State shared by the connection tasks.
pub(crate) struct Shared {
    script: Box<Script>,
    log: Mutex<Vec<RequestInfo>>,
    connections: AtomicUsize,
    /// Body bytes written to sockets so far.
    pub(crate) body_bytes: AtomicU64,
}

/// A scripted HTTP/1.1 server on loopback, stopped when dropped.
pub struct FaultServer {
    addr: SocketAddr,
    host: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FaultServer {
    /// Serves on `127.0.0.1:<free port>`; [`url`](Self::url)s name host `127.0.0.1`.
    pub fn start(script: impl Fn(&RequestInfo) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_as("127.0.0.1", script)
    }

    /// Serves on `127.0.0.1:<free port>` but names host `host` in its URLs (e.g. `localhost`,
    /// so that one client sees two servers as two different hosts).
    pub fn start_as(
        host: &str,
        script: impl Fn(&RequestInfo) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            script: Box::new(script),
            log: Mutex::default(),
            connections: AtomicUsize::new(0),
            body_bytes: AtomicU64::new(0),
        });
        let (stop, stopped) = oneshot::channel();
        let serving = Arc::clone(&shared);
        let thread = std::thread::spawn(move || run(listener, serving, stopped));
        let host = host.to_owned();
        Self {
            addr,
            host,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://<host>:<port><path>`; `path` starts with `/` and may carry a query.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}:{}{path}", self.host, self.addr.port())
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestInfo> {
        self.shared.log.lock().unwrap().clone()
    }

    /// Body bytes written to sockets so far, over all replies.
    pub fn body_bytes_sent(&self) -> u64 {
        self.shared.body_bytes.load(SeqCst)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The server thread: a current-thread runtime running the accept loop until told to stop;
/// dropping the runtime then cancels the connection tasks (stalled ones included).
fn run(listener: std::net::TcpListener, shared: Arc<Shared>, stopped: oneshot::Receiver<()>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = TcpListener::from_std(listener).unwrap();
        tokio::select! {
            _ = stopped => {}
            () = accept(listener, shared) => {}
        }
    });
}

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    while let Ok((stream, _)) = listener.accept().await {
        let connection = shared.connections.fetch_add(1, SeqCst);
        tokio::spawn(serve(stream, connection, Arc::clone(&shared)));
    }
}

/// Answers requests on one connection until the client closes it or a reply ends it.
async fn serve(stream: TcpStream, connection: usize, shared: Arc<Shared>) {
    let mut stream = tokio::io::BufStream::new(stream);
    while let Some(head) = wire::read_request(&mut stream).await {
        let info = shared.record(head, connection);
        let reply = (shared.script)(&info);
        let keep_alive = wire::write_reply(&mut stream, &reply, &shared.body_bytes).await;
        shared.finish(info.n);
        if !keep_alive || info.header("connection") == Some("close") {
            break;
        }
    }
}

impl Shared {
    fn record(&self, head: wire::RequestHead, connection: usize) -> RequestInfo {
        let mut log = self.log.lock().unwrap();
        let info = RequestInfo {
            n: log.len(),
            connection,
            method: head.method,
            target: head.target,
            headers: head.headers,
            body: head.body,
            arrived: Instant::now(),
            finished: None,
        };
        log.push(info.clone());
        info
    }

    fn finish(&self, n: usize) {
        self.log.lock().unwrap()[n].finished = Some(Instant::now());
    }
}

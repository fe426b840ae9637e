//! The in-process standalone server on 127.0.0.1 and a free port, and its hyper client.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use modoai::Config;

use crate::reply::Reply;

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

    /// Waits until the server answers GetRecord for `id` with (or without) `status="deleted"`:
    /// it saw a file go (or come back).
    pub async fn until_deleted(&self, id: &str, deleted: bool) {
        let get = format!("verb=GetRecord&metadataPrefix=oai_dc&identifier={id}");
        for _ in 0..400 {
            let reply = self.oai(&get).await;
            if reply.error_codes().is_empty()
                && reply.text().contains("status=\"deleted\"") == deleted
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{id} never became deleted={deleted}");
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

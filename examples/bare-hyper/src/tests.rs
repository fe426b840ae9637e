//! The server on an ephemeral port, asked over real TCP connections.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use http::StatusCode;
use http_body_util::BodyExt;
use http_body_util::Empty;
use hyper::body::Bytes;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::*;

/// [`serve`] on 127.0.0.1 and a free port, with a client and a way to stop it.
struct TestServer {
    base: String,
    client: Client<HttpConnector, Empty<Bytes>>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/", listener.local_addr().unwrap());
        let config = Config::new(site_root(), &base).unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, config, async {
            let _ = stopped.await;
        }));
        let client = Client::builder(TokioExecutor::new()).build_http();
        TestServer {
            base,
            client,
            stop,
            task,
        }
    }

    async fn get(&self, path_and_query: &str) -> (StatusCode, Bytes) {
        let uri = format!("{}{path_and_query}", self.base).parse().unwrap();
        let res = self.client.get(uri).await.unwrap();
        let status = res.status();
        (status, res.into_body().collect().await.unwrap().to_bytes())
    }

    /// GETs an OAI-PMH request, retrying while the index is still being built (503).
    async fn get_oai(&self, query: &str) -> (StatusCode, Bytes) {
        for _ in 0..200 {
            let res = self.get(&format!("modoai?{query}")).await;
            if res.0 != StatusCode::SERVICE_UNAVAILABLE {
                return res;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the index was not ready within 10 s");
    }

    /// Asks for shutdown and checks the server stops cleanly.
    async fn stop(self) {
        self.stop.send(()).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

/// The text of the by-value `didl:Resource`: the file in Base64.
fn didl_payload(xml: &str) -> &str {
    let start = xml
        .find(r#"encoding="base64">"#)
        .expect("a by-value Resource")
        + r#"encoding="base64">"#.len();
    let len = xml[start..]
        .find("</didl:Resource>")
        .expect("the Resource closes");
    &xml[start..start + len]
}

fn logo() -> Vec<u8> {
    std::fs::read(site_root().join("images/logo.png")).unwrap()
}

#[tokio::test]
async fn plain_files_are_served() {
    let server = TestServer::start().await;
    let (status, body) = server.get("images/logo.png").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, logo());
    let (status, _) = server.get("no/such/file").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    server.stop().await;
}

#[tokio::test]
async fn didl_record_carries_the_file_bytes() {
    let server = TestServer::start().await;
    let identifier = format!("{}images/logo.png", server.base);
    let (status, body) = server
        .get_oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_didl&identifier={identifier}"
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    let xml = std::str::from_utf8(&body).unwrap();
    assert!(
        xml.contains(&format!("<identifier>{identifier}</identifier>")),
        "{xml}"
    );
    let b64: String = didl_payload(xml).split_whitespace().collect();
    assert_eq!(
        B64.decode(b64).unwrap(),
        logo(),
        "the payload is the file, byte for byte"
    );
    server.stop().await;
}

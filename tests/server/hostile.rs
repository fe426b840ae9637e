//! Hostile input, sent as raw bytes over a socket so nothing is normalised on the way:
//! traversal in every encoding, NUL, overlong UTF-8, absolute paths and drive letters, double
//! encoding, symlinks out of the root, hidden names, FIFOs and device files, huge and broken
//! queries; both as OAI identifiers and as plain URLs of the site. For each: no byte of a secret
//! planted outside the root is ever sent, no request hangs (the client timeout only detects
//! hangs), OAI errors have the right codes and validate, and the server answers normally after.

use std::os::unix::fs::symlink;
use std::time::Duration;

use integration_tests::{xsd_validate, Server, TestSite};
use modoai_protocol::form;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Content of the files planted outside the root.
const SECRET: &str = "SECRET-outside-the-root-4f1c";
/// Longest a request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(30);

/// A status code (0 if the server closed without answering) and the body.
struct Raw {
    status: u16,
    body: Vec<u8>,
}

/// Sends `target` as an HTTP/1.0 request line (so the body is not chunked) and reads the whole
/// response; panics on a hang.
async fn raw(server: &Server, method: &str, target: &[u8]) -> Raw {
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let mut req = format!("{method} ").into_bytes();
    req.extend_from_slice(target);
    req.extend_from_slice(b" HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    let exchange = async {
        // The server may refuse a huge request before reading all of it.
        let _ = s.write_all(&req).await;
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out).await;
        out
    };
    let out = tokio::time::timeout(HANG, exchange)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "hang on {}",
                String::from_utf8_lossy(&target[..target.len().min(200)])
            )
        });
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = match out.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => out[i + 4..].to_vec(),
        None => Vec::new(),
    };
    assert!(
        !String::from_utf8_lossy(&out).contains(SECRET),
        "the secret leaked for {}",
        String::from_utf8_lossy(&target[..target.len().min(200)])
    );
    Raw { status, body }
}

/// A site with every kind of trap, and a folder outside it holding the secret.
struct Traps {
    site: TestSite,
    _outside: TestSite,
}

fn traps() -> Traps {
    let outside = TestSite::empty();
    outside.write("secret.txt", SECRET.as_bytes(), None);
    outside.write("index.html", SECRET.as_bytes(), None);
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    site.write(".hidden.txt", SECRET.as_bytes(), None);
    site.write(".dot/inner.txt", SECRET.as_bytes(), None);
    site.write("dir/index.html", b"dir index", None);
    let root = site.path();
    symlink(outside.path().join("secret.txt"), root.join("escape.txt")).unwrap();
    symlink(outside.path(), root.join("escape-dir")).unwrap();
    symlink(
        "../../../../../../../../etc/hostname",
        root.join("relative-escape.txt"),
    )
    .unwrap();
    symlink("/dev/zero", root.join("zero.bin")).unwrap();
    symlink("/dev/urandom", root.join("urandom.bin")).unwrap();
    symlink(root.join(".hidden.txt"), root.join("to-hidden.txt")).unwrap();
    for fifo in ["pipe.txt", "fifo-dir/index.html"] {
        let path = root.join(fifo);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.unwrap().success(), "mkfifo (coreutils)");
    }
    symlink(root.join("pipe.txt"), root.join("to-pipe.txt")).unwrap();
    Traps {
        site,
        _outside: outside,
    }
}

/// Path suffixes that must never reach a file outside the visible records.
fn hostile_paths() -> Vec<Vec<u8>> {
    let mut paths: Vec<Vec<u8>> = [
        "../secret.txt",
        "../../../../../../etc/passwd",
        "%2e%2e/secret.txt",
        "%2E%2E/%2E%2E/etc/passwd",
        "..%2fsecret.txt",
        "dir/..%2f..%2fsecret.txt",
        "%5c..%5csecret.txt",
        "..%5c..%5csecret.txt",
        "..\\..\\secret.txt",
        "dir\\..\\a.txt",
        "a.txt%00",
        "a.txt%00.html",
        "%00",
        "%c0%ae%c0%ae/secret.txt",
        "%c0%af..%c0%afsecret.txt",
        "%e0%80%ae%e0%80%ae/secret.txt",
        "/etc/passwd",
        "//etc/passwd",
        "C:/secret.txt",
        "C:%5csecret.txt",
        "c:\\windows\\win.ini",
        "%252e%252e/secret.txt",
        "%252e%252e%252fsecret.txt",
        "%25%32%65%25%32%65/secret.txt",
        "escape.txt",
        "escape-dir/secret.txt",
        "escape-dir/",
        "escape-dir",
        "relative-escape.txt",
        ".hidden.txt",
        ".dot/inner.txt",
        "%2ehidden.txt",
        "to-hidden.txt",
        "pipe.txt",
        "to-pipe.txt",
        "fifo-dir/",
        "fifo-dir/index.html",
        "zero.bin",
        "urandom.bin",
        "%ff%fe.txt",
        "%zz",
        "%",
        "a.txt%",
        "dir/./index.html",
        "dir/../a.txt",
    ]
    .iter()
    .map(|p| p.as_bytes().to_vec())
    .collect();
    paths.push(b"\xff\xfe.txt".to_vec());
    paths.push("a/".repeat(20_000).into_bytes());
    paths.push(format!("{}.txt", "x".repeat(100_000)).into_bytes());
    paths
}

#[tokio::test]
async fn hostile_urls_of_the_site() {
    let t = traps();
    let server = Server::start(t.site.path(), |c| c).await;
    for path in hostile_paths() {
        let mut target = b"/".to_vec();
        target.extend_from_slice(&path);
        for method in ["GET", "HEAD"] {
            let r = raw(&server, method, &target).await;
            let shown = String::from_utf8_lossy(&target[..target.len().min(80)]).into_owned();
            // dir/./index.html and dir/../a.txt may be normalised by nobody: refused or served
            // as the files inside the root they name, never anything else.
            match r.status {
                200 => assert!(
                    shown == "/dir/./index.html" || shown == "/dir/../a.txt",
                    "{method} {shown} served"
                ),
                400 | 404 | 414 | 431 | 0 => {}
                other => panic!("{method} {shown}: status {other}"),
            }
        }
    }
    // Absolute-form request targets and huge queries.
    for target in [
        b"http://127.0.0.1/../secret.txt".to_vec(),
        b"http://other.example/%2e%2e/secret.txt".to_vec(),
        format!("/a.txt?{}", "q".repeat(1 << 20)).into_bytes(),
    ] {
        raw(&server, "GET", &target).await;
    }
    let ok = raw(&server, "GET", b"/a.txt").await;
    assert_eq!((ok.status, ok.body.as_slice()), (200, b"hello".as_slice()));
    assert_eq!(raw(&server, "GET", b"/dir/").await.body, b"dir index");
}

/// Sends an OAI query (already encoded), validates the response and returns its error codes.
async fn oai_codes(server: &Server, query: &[u8]) -> (u16, Vec<String>) {
    let mut target = b"/modoai?".to_vec();
    target.extend_from_slice(query);
    let r = raw(server, "GET", &target).await;
    if r.status != 200 {
        return (r.status, Vec::new());
    }
    if let Err(e) = xsd_validate(&r.body) {
        panic!(
            "{}: invalid response: {e}",
            String::from_utf8_lossy(&query[..query.len().min(200)])
        );
    }
    (r.status, integration_tests::attrs(&r.body, "error", "code"))
}

#[tokio::test]
async fn hostile_oai_identifiers() {
    let t = traps();
    let server = Server::start(t.site.path(), |c| c).await;
    let base = server.base.as_bytes().to_vec();
    for path in hostile_paths() {
        let mut id = base.clone();
        id.extend_from_slice(&path);
        let shown = String::from_utf8_lossy(&id[..id.len().min(120)]).into_owned();
        // The identifier percent-encoded as a form value (it arrives exactly as written), and
        // as written (the form decoding then decodes its escapes once more).
        let encoded = form::encode(&String::from_utf8_lossy(&id)).into_bytes();
        for value in [encoded, id.clone()] {
            for verb in [
                &b"verb=GetRecord&metadataPrefix=oai_didl&identifier="[..],
                b"verb=ListMetadataFormats&identifier=",
            ] {
                let mut query = verb.to_vec();
                query.extend_from_slice(&value);
                let (status, codes) = oai_codes(&server, &query).await;
                match (status, codes.as_slice()) {
                    (200, [code]) if code == "idDoesNotExist" || code == "badArgument" => {}
                    // A request line beyond hyper's buffer, or with bytes a request line may not
                    // hold (not ASCII, backslashes), is refused before modoai sees it.
                    (400 | 414 | 431 | 0, [])
                        if value.len() > 8000 || !value.iter().all(u8::is_ascii_graphic) => {}
                    other => panic!("{shown}: {other:?}"),
                }
            }
        }
    }
    // Not a URI at all (a path, backslashes, `..`) is a bad argument; a URI of no record here
    // (`c:` and `file:` are schemes) does not exist.
    for (id, want) in [
        ("/etc/passwd", "badArgument"),
        ("C:\\secret.txt", "badArgument"),
        ("..", "badArgument"),
        ("%2e%2e", "badArgument"),
        ("c:/windows/win.ini", "idDoesNotExist"),
        ("file:///etc/passwd", "idDoesNotExist"),
    ] {
        let query = format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            form::encode(id)
        );
        let (_, codes) = oai_codes(&server, query.as_bytes()).await;
        assert_eq!(codes, [want], "{id}");
    }
    let (_, codes) = oai_codes(
        &server,
        format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            form::encode(&server.id("a.txt"))
        )
        .as_bytes(),
    )
    .await;
    assert!(codes.is_empty(), "a real identifier still works");
}

#[tokio::test]
async fn hostile_oai_arguments() {
    let t = traps();
    let server = Server::start(t.site.path(), |c| c).await;
    let id = form::encode(&server.id("a.txt"));
    // 10,000 arguments (40 KB: within hyper's URI and modoai's form limits).
    let many = vec!["x=1"; 10_000].join("&");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"verb=GetRecord&metadataPrefix=oai_dc&identifier=%zz".to_vec(),
            "badArgument",
        ),
        (
            b"verb=GetRecord&metadataPrefix=oai_dc&identifier=%".to_vec(),
            "badArgument",
        ),
        (
            b"verb=GetRecord&metadataPrefix=oai_dc&identifier=%ff%fe".to_vec(),
            "badArgument",
        ),
        (
            b"verb=GetRecord&metadataPrefix=oai_dc&identifier=%c0%ae".to_vec(),
            "badArgument",
        ),
        (
            b"verb=ListMetadataFormats&identifier=%zz".to_vec(),
            "badArgument",
        ),
        (
            b"verb=ListMetadataFormats&identifier=%".to_vec(),
            "badArgument",
        ),
        (
            b"verb=ListMetadataFormats&identifier=%00".to_vec(),
            "badArgument",
        ),
        // An argument that cannot be decoded makes the whole request a bad argument.
        (b"verb=%zz".to_vec(), "badArgument"),
        (b"verb=Identify%00".to_vec(), "badVerb"),
        (b"%=%".to_vec(), "badArgument"),
        (
            format!("verb=GetRecord&metadataPrefix=oai_dc&identifier={id}&identifier={id}")
                .into_bytes(),
            "badArgument",
        ),
        (
            format!("verb=ListMetadataFormats&identifier={id}&identifier=x").into_bytes(),
            "badArgument",
        ),
        (
            format!("verb=GetRecord&metadataPrefix=oai_dc&metadataPrefix=oai_dc&identifier={id}")
                .into_bytes(),
            "badArgument",
        ),
        (format!("verb=Identify&{many}").into_bytes(), "badArgument"),
        (
            format!("verb=GetRecord&metadataPrefix=oai_dc&identifier={id}&{many}").into_bytes(),
            "badArgument",
        ),
    ];
    for (query, code) in cases {
        let shown = String::from_utf8_lossy(&query[..query.len().min(100)]).into_owned();
        let (status, codes) = oai_codes(&server, &query).await;
        assert_eq!((status, codes), (200, vec![code.to_owned()]), "{shown}");
    }
    // Raw bytes that are not ASCII cannot be in a request line: HTTP's 400, before modoai.
    let (status, _) = oai_codes(
        &server,
        b"verb=GetRecord&metadataPrefix=oai_dc&identifier=\xff\xfe",
    )
    .await;
    assert_eq!(status, 400);
    // 1 MB of query: refused by the HTTP layer or answered with an OAI error, never a hang.
    let huge = format!(
        "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
        "x".repeat(1 << 20)
    );
    let (status, codes) = oai_codes(&server, huge.as_bytes()).await;
    assert!(
        matches!(status, 400 | 414 | 431 | 0)
            || codes == ["idDoesNotExist"]
            || codes == ["badArgument"],
        "{status} {codes:?}"
    );
    // A 1 MB form posted: refused with 413 (the limit of errors.rs), the server unharmed.
    let body = format!("verb=Identify&x={}", "y".repeat(1 << 20));
    let post = http::Request::post(&server.oai)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    assert_eq!(server.send(post).await.status, 413);
    let post = http::Request::post(&server.oai)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(http_body_util::Full::new(bytes::Bytes::from(format!(
            "verb=Identify&{many}"
        ))))
        .unwrap();
    let r = server.send(post).await;
    r.assert_valid();
    assert_eq!(r.error_codes(), ["badArgument"], "10,000 posted arguments");
    server.oai("verb=Identify").await.assert_valid();
}

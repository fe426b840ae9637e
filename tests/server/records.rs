//! What is a record and what never is: hidden files, FIFOs, device files, symlinks leaving the
//! root. The standalone site refuses the same things, before opening anything.

use std::os::unix::fs::symlink;
use std::time::Duration;

use integration_tests::{Server, TestSite};
use modoai::sets::FolderSets;

#[tokio::test]
async fn only_visible_regular_files_inside_the_root() {
    let outside = TestSite::empty();
    outside.write("secret.txt", b"outside the root", None);
    let site = TestSite::empty();
    site.write("ok.txt", b"ok", None);
    site.write(".hidden.txt", b"hidden", None);
    site.write(".git/config", b"hidden folder", None);
    site.write("dir/.env", b"hidden", None);
    site.write("dir/inner.txt", b"inner", None);
    let fifo = site.path().join("pipe.txt");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    symlink(
        outside.path().join("secret.txt"),
        site.path().join("escape.txt"),
    )
    .unwrap();
    symlink(outside.path(), site.path().join("escape-dir")).unwrap();
    symlink("/dev/zero", site.path().join("zero.bin")).unwrap();
    symlink("/etc/passwd", site.path().join("passwd.txt")).unwrap();
    symlink(site.path().join("ok.txt"), site.path().join("alias.txt")).unwrap();
    symlink(
        site.path().join(".hidden.txt"),
        site.path().join("to-hidden.txt"),
    )
    .unwrap();
    let server = Server::start(site.path(), |c| c).await;
    let r = tokio::time::timeout(
        Duration::from_secs(20),
        server.oai("verb=ListIdentifiers&metadataPrefix=oai_dc"),
    )
    .await
    .expect("no hang on the FIFO");
    r.assert_valid();
    let mut ids = r.texts("identifier");
    ids.sort();
    assert_eq!(
        ids,
        [
            server.id("alias.txt"),
            server.id("dir/inner.txt"),
            server.id("ok.txt")
        ]
    );
    for path in [
        "pipe.txt",
        "escape.txt",
        "escape-dir/secret.txt",
        "zero.bin",
        "passwd.txt",
        ".hidden.txt",
        ".git/config",
        "dir/.env",
        "to-hidden.txt",
        "%2e%2e/etc/passwd",
        "dir/..%2f..%2fetc/passwd",
        "dir%5c..%5cok.txt",
    ] {
        let got = tokio::time::timeout(Duration::from_secs(10), server.get(&server.id(path)))
            .await
            .expect("no hang");
        assert_eq!(got.status, 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&got.body).contains("outside the root")
                && !String::from_utf8_lossy(&got.body).contains("root:")
        );
    }
    assert_eq!(
        server.get(&server.id("alias.txt")).await.body.as_ref(),
        b"ok"
    );
}

#[tokio::test]
async fn one_type_for_visitors_and_records() {
    let site = TestSite::example();
    // The MIME sets are the subject here; the folder sets are `sets.rs`'s.
    let server = Server::start(site.path(), |c| c.folder_sets(FolderSets::Off)).await;
    let plain = server.get(&server.id("data/logo-copy")).await;
    assert_eq!(
        plain.headers["content-type"], "image/png",
        "no extension: typed by content"
    );
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            server.id("data/logo-copy")
        ))
        .await;
    assert_eq!(r.texts("setSpec"), ["mime", "mime:image", "mime:image:png"]);
    assert_eq!(r.texts("format")[0], "image/png");
    let svg = server.get(&server.id("images/icon.svg")).await;
    assert_eq!(svg.headers["content-type"], "image/svg+xml");
}

#[tokio::test]
async fn static_site_basics() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let index = server.get(&server.base).await;
    assert_eq!(index.status, 200);
    assert!(String::from_utf8_lossy(&index.body).contains("An example site"));
    let logo = server.get(&server.id("images/logo.png")).await;
    let etag = logo.headers["etag"].clone();
    let req = http::Request::get(server.id("images/logo.png"))
        .header("if-none-match", etag.clone())
        .body(http_body_util::Full::default())
        .unwrap();
    let cached = server.send(req).await;
    assert_eq!(cached.status, 304);
    assert_eq!(cached.headers["etag"], etag);
    let range = http::Request::get(server.id("images/logo.png"))
        .header("range", "bytes=0-3")
        .body(http_body_util::Full::default())
        .unwrap();
    let part = server.send(range).await;
    assert_eq!(part.status, 206);
    assert_eq!(part.body.as_ref(), &logo.body[..4]);
    assert_eq!(server.get(&server.id("no/such/file")).await.status, 404);
}

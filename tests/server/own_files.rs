//! The server's own files (plugins file, plugin cache, configuration, access log) inside the
//! document root: never records, never served, never analysed. Before, a plugins file with its
//! cache inside the root made the cache public, and every `oai_crate` pass analysed the cache and
//! added records (14 → 108 → 424).

use integration_tests::{Server, TestSite};
use modoai::Plugins;

use crate::example_ids;

/// The example site with a plugins file (md5 for every file, cache in `modoai-cache`) inside it.
async fn site_with_plugins_inside() -> (TestSite, Plugins) {
    let site = TestSite::example();
    let path = site.path().join("plugins.toml");
    let text = "[settings]\ncache-dir = \"modoai-cache\"\n\n\
                [[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n";
    std::fs::write(&path, text).unwrap();
    let plugins = Plugins::load(&path).await.expect("plugins.toml loads");
    (site, plugins)
}

async fn identifiers(server: &Server) -> Vec<String> {
    let reply = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await;
    let mut ids = reply.texts("identifier");
    ids.sort();
    ids
}

#[tokio::test]
async fn plugins_file_and_cache_inside_the_root_are_never_records() {
    let (site, plugins) = site_with_plugins_inside().await;
    std::fs::create_dir(site.path().join("logs")).unwrap();
    let log = site.path().join("logs/access.log");
    let server = Server::start(site.path(), |c| {
        c.plugins(plugins)
            .access_log(modoai::observe::AccessLogFormat::Common)
            .access_log_file(&log)
            .own_path(site.path().join("state"))
    })
    .await;
    std::fs::create_dir(site.path().join("state")).unwrap();
    std::fs::write(site.path().join("state/secret.toml"), "x").unwrap();
    assert_eq!(identifiers(&server).await, example_ids(&server));
    // Each oai_crate pass fills the cache inside the root; the records stay the site's files.
    for pass in 0..3 {
        let reply = server
            .oai("verb=ListRecords&metadataPrefix=oai_crate")
            .await;
        assert_eq!(reply.texts("identifier").len(), 14, "pass {pass}");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(
            identifiers(&server).await,
            example_ids(&server),
            "pass {pass}"
        );
    }
    let cached = walkdir::WalkDir::new(site.path().join("modoai-cache"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_file())
        .expect("the cache holds results");
    let rel = cached.path().strip_prefix(site.path()).unwrap();
    for path in [
        "plugins.toml".to_owned(),
        format!("{}", rel.display()),
        "modoai-cache/".to_owned(),
        "logs/access.log".to_owned(),
        "state/secret.toml".to_owned(),
    ] {
        let reply = server.get(&format!("{}{path}", server.base)).await;
        assert_eq!(reply.status, 404, "{path} is not served");
        let id = server.id(&path);
        let record = server
            .oai(&format!(
                "verb=GetRecord&metadataPrefix=oai_dc&identifier={id}"
            ))
            .await;
        assert_eq!(record.error_codes(), ["idDoesNotExist"], "{path}");
    }
    // The site's own files are still served.
    assert_eq!(
        server
            .get(&format!("{}about.html", server.base))
            .await
            .status,
        200
    );
    server.stop().await;
}

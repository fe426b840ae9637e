//! Access control per metadata format against the standalone server: HTTP Basic users,
//! Bearer API keys and address ranges, alone and combined; 401 versus 403; the trusted-proxy
//! header; resumption tokens; refusal before any file is opened or tool started; and reloading
//! the rules (key rotation) without a restart. Timeouts only detect hangs.

use std::path::Path;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use integration_tests::{Reply, Server, TestSite};
use modoai::access::{hash_api_key, hash_password, AccessRules, Cidr, ForwardedHeader, Rule};
use modoai::{FileConfig, Plugins, Reloader};

const KEY: &str = "key-A-0123456789abcdefghijklmnopqrstuv";
const KEY2: &str = "key-B-0123456789abcdefghijklmnopqrstuv";
/// Longest a reload may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(30);

fn site() -> TestSite {
    let site = TestSite::empty();
    for i in 0..5 {
        site.write(
            &format!("f{i}.txt"),
            format!("file {i}\n").as_bytes(),
            Some(1_600_000_000 + i),
        );
    }
    site
}

fn cidr(s: &str) -> Cidr {
    s.parse().unwrap()
}

/// Alice (password `wonderland`) and Bob (`builder`), and keys A and B.
fn people() -> AccessRules {
    AccessRules::new()
        .realm("test realm")
        .user("alice", &hash_password("wonderland").unwrap())
        .unwrap()
        .user("bob", &hash_password("builder").unwrap())
        .unwrap()
        .api_key("a", &hash_api_key(KEY).unwrap())
        .unwrap()
        .api_key("b", &hash_api_key(KEY2).unwrap())
        .unwrap()
}

fn basic(user: &str, password: &str) -> String {
    let creds = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {creds}")
}

/// GET the OAI route with a query and extra headers.
async fn oai(server: &Server, query: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = Request::get(format!("{}?{query}", server.oai));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    server
        .send(req.body(Full::<Bytes>::default()).unwrap())
        .await
}

fn get_record(server: &Server, prefix: &str) -> String {
    format!(
        "verb=GetRecord&metadataPrefix={prefix}&identifier={}",
        server.id("f1.txt")
    )
}

fn challenges(r: &Reply) -> Vec<String> {
    r.headers
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn basic_users() {
    let site = site();
    let rules = people()
        .format("oai_didl", Rule::restricted().users(["alice"]))
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    let q = get_record(&server, "oai_didl");
    let r = oai(&server, &q, &[]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenges(&r),
        ["Basic realm=\"test realm\", charset=\"UTF-8\""]
    );
    let alice = basic("alice", "wonderland");
    oai(&server, &q, &[("authorization", &alice)])
        .await
        .assert_valid();
    // Remembered for a while, and still right the second time.
    oai(&server, &q, &[("authorization", &alice)])
        .await
        .assert_valid();
    for wrong in [
        basic("alice", "Wonderland"),
        basic("bob", "builder"),
        basic("mallory", "x"),
    ] {
        let r = oai(&server, &q, &[("authorization", &wrong)]).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{wrong}");
        assert!(challenges(&r).is_empty());
    }
    // The formats without a rule stay open.
    oai(&server, &get_record(&server, "oai_dc"), &[])
        .await
        .assert_valid();
    server.stop().await;
}

#[tokio::test]
async fn bearer_keys_and_malformed_headers() {
    let site = site();
    let rules = people()
        .format("oai_didl", Rule::restricted().keys(["a"]))
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    let q = get_record(&server, "oai_didl");
    let r = oai(&server, &q, &[]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenges(&r), ["Bearer realm=\"test realm\""]);
    oai(&server, &q, &[("authorization", &format!("Bearer {KEY}"))])
        .await
        .assert_valid();
    for wrong in [
        format!("Bearer {KEY2}"),
        "Bearer nonsense".to_owned(),
        basic("alice", "wonderland"),
    ] {
        let r = oai(&server, &q, &[("authorization", &wrong)]).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{wrong}");
    }
    for malformed in [
        "Bearer",
        "Bearer two words",
        "Basic ***",
        "Digest username=\"a\"",
        "Token",
    ] {
        let r = oai(&server, &q, &[("authorization", malformed)]).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{malformed}");
        assert_eq!(challenges(&r), ["Bearer realm=\"test realm\""]);
    }
    server.stop().await;
}

#[tokio::test]
async fn address_ranges() {
    let site = site();
    let rules = people()
        .format(
            "oai_didl",
            Rule::restricted().addresses([cidr("127.0.0.0/8")]),
        )
        .unwrap()
        .default_rule(Rule::restricted().addresses([cidr("192.0.2.0/24"), cidr("2001:db8::/32")]))
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    oai(&server, &get_record(&server, "oai_didl"), &[])
        .await
        .assert_valid();
    // oai_dc falls to the default rule, which does not admit 127.0.0.1: credentials cannot help.
    let r = oai(
        &server,
        &get_record(&server, "oai_dc"),
        &[("authorization", &basic("alice", "wonderland"))],
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(challenges(&r).is_empty());
    server.stop().await;
}

#[tokio::test]
async fn mechanisms_combined() {
    let site = site();
    let rules = people()
        // Any: an address that does not match, or Alice, or key B.
        .format(
            "oai_didl",
            Rule::restricted()
                .users(["alice"])
                .keys(["b"])
                .addresses([cidr("192.0.2.0/24")]),
        )
        .unwrap()
        // All: this host's address and key A.
        .format(
            "oai_dc",
            Rule::restricted()
                .keys(["a"])
                .addresses([cidr("127.0.0.1")])
                .require_all(true),
        )
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    let didl = get_record(&server, "oai_didl");
    let r = oai(&server, &didl, &[]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenges(&r),
        [
            "Basic realm=\"test realm\", charset=\"UTF-8\"",
            "Bearer realm=\"test realm\""
        ]
    );
    oai(
        &server,
        &didl,
        &[("authorization", &basic("alice", "wonderland"))],
    )
    .await
    .assert_valid();
    oai(
        &server,
        &didl,
        &[("authorization", &format!("Bearer {KEY2}"))],
    )
    .await
    .assert_valid();
    let r = oai(
        &server,
        &didl,
        &[("authorization", &format!("Bearer {KEY}"))],
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::FORBIDDEN,
        "key A is not admitted to oai_didl"
    );
    let dc = get_record(&server, "oai_dc");
    let r = oai(&server, &dc, &[]).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenges(&r), ["Bearer realm=\"test realm\""]);
    oai(&server, &dc, &[("authorization", &format!("Bearer {KEY}"))])
        .await
        .assert_valid();
    server.stop().await;
}

#[tokio::test]
async fn require_all_refuses_other_addresses_even_with_the_key() {
    let site = site();
    let rules = people()
        .format(
            "oai_didl",
            Rule::restricted()
                .keys(["a"])
                .addresses([cidr("192.0.2.0/24")])
                .require_all(true),
        )
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    let r = oai(
        &server,
        &get_record(&server, "oai_didl"),
        &[("authorization", &format!("Bearer {KEY}"))],
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    server.stop().await;
}

#[tokio::test]
async fn every_request_naming_the_format_is_guarded_and_the_rest_stay_open() {
    let site = site();
    let rules = people()
        .format("oai_didl", Rule::restricted().keys(["a"]))
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules).page_size(2)).await;
    let key = format!("Bearer {KEY}");
    for q in [
        "verb=ListRecords&metadataPrefix=oai_didl".to_owned(),
        "verb=ListIdentifiers&metadataPrefix=oai_didl".to_owned(),
        get_record(&server, "oai_didl"),
    ] {
        assert_eq!(
            oai(&server, &q, &[]).await.status,
            StatusCode::UNAUTHORIZED,
            "{q}"
        );
        oai(&server, &q, &[("authorization", &key)])
            .await
            .assert_valid();
    }
    for q in [
        "verb=Identify",
        "verb=ListSets",
        "verb=ListIdentifiers&metadataPrefix=oai_dc",
    ] {
        oai(&server, q, &[]).await.assert_valid();
    }
    // ListMetadataFormats lists what the repository supports, oai_didl included.
    let formats = oai(&server, "verb=ListMetadataFormats", &[]).await;
    formats.assert_valid();
    assert!(formats
        .texts("metadataPrefix")
        .contains(&"oai_didl".to_owned()));
    // A resumption token carries its format: resuming needs the key too.
    let first = oai(
        &server,
        "verb=ListIdentifiers&metadataPrefix=oai_didl",
        &[("authorization", &key)],
    )
    .await;
    let (token, _) = first.token().expect("a second page");
    let resume = format!("verb=ListIdentifiers&resumptionToken={token}");
    assert_eq!(
        oai(&server, &resume, &[]).await.status,
        StatusCode::UNAUTHORIZED
    );
    oai(&server, &resume, &[("authorization", &key)])
        .await
        .assert_valid();
    // A garbled token names no format: badResumptionToken, as without rules.
    let r = oai(&server, "verb=ListIdentifiers&resumptionToken=garbage", &[]).await;
    assert_eq!(r.error_codes(), ["badResumptionToken"]);
    // An unknown prefix is still cannotDisseminateFormat.
    let r = oai(&server, "verb=ListRecords&metadataPrefix=oai_nope", &[]).await;
    assert_eq!(r.error_codes(), ["cannotDisseminateFormat"]);
    // POST is guarded like GET.
    assert_eq!(
        server
            .post("verb=ListRecords&metadataPrefix=oai_didl")
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    server.stop().await;
}

#[tokio::test]
async fn forwarding_headers_count_only_from_trusted_proxies() {
    let site = site();
    let rule = Rule::restricted().addresses([cidr("192.0.2.0/24"), cidr("2001:db8::/32")]);
    let q = |s: &Server| get_record(s, "oai_didl");
    // Untrusted peer: a spoofed header is ignored.
    let rules = people().format("oai_didl", rule.clone()).unwrap();
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    for spoof in ["192.0.2.7", "2001:db8::5"] {
        let r = oai(&server, &q(&server), &[("x-forwarded-for", spoof)]).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{spoof}");
        let r = oai(
            &server,
            &q(&server),
            &[("forwarded", &format!("for=\"{spoof}\""))],
        )
        .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{spoof}");
    }
    server.stop().await;
    // This host as the trusted proxy: the rightmost untrusted address is the client.
    let rules = people()
        .format("oai_didl", rule)
        .unwrap()
        .trusted_proxies(vec![cidr("127.0.0.1")], ForwardedHeader::XForwardedFor);
    let server = Server::start(site.path(), |c| c.access(rules)).await;
    for admitted in [
        "192.0.2.7",
        "203.0.113.1, 192.0.2.7",
        "2001:db8:0:1::5",
        "[2001:db8::5]:4711, 127.0.0.1",
    ] {
        oai(&server, &q(&server), &[("x-forwarded-for", admitted)])
            .await
            .assert_valid();
    }
    for refused in ["203.0.113.1", "192.0.2.7, 203.0.113.1", "2001:db9::5"] {
        let r = oai(&server, &q(&server), &[("x-forwarded-for", refused)]).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{refused}");
    }
    // Without a header, the proxy itself is the client.
    assert_eq!(
        oai(&server, &q(&server), &[]).await.status,
        StatusCode::FORBIDDEN
    );
    server.stop().await;
}

/// Collects the open events of one file (inotify `IN_OPEN`).
struct OpenProbe {
    rx: std::sync::mpsc::Receiver<()>,
    _watcher: notify::RecommendedWatcher,
}

impl OpenProbe {
    fn new(file: &Path) -> Self {
        use notify::Watcher;
        let (tx, rx) = std::sync::mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |e: notify::Result<notify::Event>| {
            if let Ok(e) = e {
                if matches!(
                    e.kind,
                    notify::EventKind::Access(notify::event::AccessKind::Open(_))
                ) {
                    let _ = tx.send(());
                }
            }
        })
        .unwrap();
        watcher
            .watch(file, notify::RecursiveMode::NonRecursive)
            .unwrap();
        OpenProbe {
            rx,
            _watcher: watcher,
        }
    }

    /// Open events since the last call, waiting `settle` for late ones.
    fn opened(&self, settle: Duration) -> usize {
        std::thread::sleep(settle);
        self.rx.try_iter().count()
    }
}

async fn size_plugin(dir: &Path) -> Plugins {
    let path = dir.join("plugins.toml");
    std::fs::write(
        &path,
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"size\"\nmime = \"*/*\"\n\
         command = [\"sh\", \"-c\", \"wc -c < \\\"$1\\\"\", \"sh\", \"{path}\"]\n\
         version-command = [\"sh\", \"-c\", \"echo size 1\"]\n",
    )
    .unwrap();
    Plugins::load(&path).await.expect("plugins.toml loads")
}

#[tokio::test]
async fn refused_requests_open_no_file_and_start_no_tool() {
    let site = site();
    let work = tempfile::tempdir().unwrap();
    let plugins = size_plugin(work.path()).await;
    let rules = people()
        .format("oai_crate", Rule::restricted().keys(["a"]))
        .unwrap()
        .format("oai_didl", Rule::restricted().keys(["a"]))
        .unwrap();
    let server = Server::start(site.path(), |c| c.access(rules).plugins(plugins.clone())).await;
    let probe = OpenProbe::new(&site.path().join("f1.txt"));
    let settle = Duration::from_millis(300);
    probe.opened(settle);
    let before = plugins.processes_started();
    for prefix in ["oai_crate", "oai_didl"] {
        for auth in [
            None,
            Some(format!("Bearer {KEY2}")),
            Some("Bearer".to_owned()),
        ] {
            let headers: Vec<(&str, &str)> =
                auth.iter().map(|a| ("authorization", a.as_str())).collect();
            let r = oai(&server, &get_record(&server, prefix), &headers).await;
            assert!(
                matches!(r.status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN),
                "{}",
                r.status
            );
        }
        let r = oai(
            &server,
            &format!("verb=ListRecords&metadataPrefix={prefix}"),
            &[],
        )
        .await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(plugins.processes_started(), before, "no tool started");
    assert_eq!(probe.opened(settle), 0, "no file opened");
    // The probe does see the opens of an admitted request.
    let r = oai(
        &server,
        &get_record(&server, "oai_crate"),
        &[("authorization", &format!("Bearer {KEY}"))],
    )
    .await;
    r.assert_valid();
    assert!(
        probe.opened(settle) > 0,
        "the admitted request read the file"
    );
    assert_eq!(plugins.processes_started(), before + 1);
    server.stop().await;
}

fn write_config(path: &Path, key_id: &str, key: &str) {
    let text = format!(
        "[access.keys]\n{key_id} = \"{}\"\n\n[access.oai_didl]\nkeys = [\"{key_id}\"]\n",
        hash_api_key(key).unwrap()
    );
    // Written beside and renamed, as editors and deployment tools do.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn wait_for(what: &str, done: impl Fn() -> bool) {
    tokio::time::timeout(HANG, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} did not happen"));
}

/// Starts a server whose rules come from the file at `path`, followed by a [`Reloader`].
async fn start_from_file(root: &Path, path: &Path) -> (Server, Reloader) {
    let file = FileConfig::load(path).unwrap();
    let mut policy = None;
    let server = Server::start(root, |c| {
        let c = c.apply_policy(&file.access, &file.flow).unwrap();
        policy = Some(c.policy().clone());
        c
    })
    .await;
    let reloader = Reloader::spawn(policy.unwrap(), path.to_owned(), false).unwrap();
    (server, reloader)
}

#[tokio::test]
async fn keys_rotate_when_the_file_changes_without_a_restart() {
    let site = site();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("modoai.toml");
    write_config(&path, "old", KEY);
    let (server, reloader) = start_from_file(site.path(), &path).await;
    let q = get_record(&server, "oai_didl");
    let old = format!("Bearer {KEY}");
    let new = format!("Bearer {KEY2}");
    oai(&server, &q, &[("authorization", &old)])
        .await
        .assert_valid();
    assert_eq!(
        oai(&server, &q, &[("authorization", &new)]).await.status,
        StatusCode::FORBIDDEN
    );

    write_config(&path, "new", KEY2);
    wait_for("the reload", || reloader.reloads() >= 1).await;
    oai(&server, &q, &[("authorization", &new)])
        .await
        .assert_valid();
    assert_eq!(
        oai(&server, &q, &[("authorization", &old)]).await.status,
        StatusCode::FORBIDDEN
    );

    // A file with an error is refused whole: the new key keeps working.
    let failures = reloader.failures();
    std::fs::write(&path, "[access.oai_didl]\nkeys = [\"nobody\"]\n").unwrap();
    wait_for("the refused reload", || reloader.failures() > failures).await;
    oai(&server, &q, &[("authorization", &new)])
        .await
        .assert_valid();
    assert_eq!(oai(&server, &q, &[]).await.status, StatusCode::UNAUTHORIZED);

    // Removing the section opens the format again.
    let reloads = reloader.reloads();
    std::fs::write(&path, "").unwrap();
    wait_for("the reload", || reloader.reloads() > reloads).await;
    oai(&server, &q, &[]).await.assert_valid();
    server.stop().await;
}

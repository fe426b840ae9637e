//! What the standalone server tells its operators: the access log (JSON and Combined lines, a
//! file reopened on SIGHUP, a full disk), `/healthz`, Prometheus `/metrics` read by the
//! Prometheus project's own parser, and plain log lines when standard error is no terminal.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use base64::Engine;
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use integration_tests::http::{get, status_code};
use integration_tests::process::{free_port, modoai, signal, start_modoai, Running};
use integration_tests::python::{json, python};
use integration_tests::{Server, TestSite};
use modoai::access::{hash_password, AccessRules, Cidr, ForwardedHeader, Rule};
use modoai::flow::FlowLimits;
use modoai::observe::AccessLogFormat;
use modoai::Plugins;

/// The first line of `path` that contains `needle`, once there is one.
fn wait_line(path: &Path, needle: &str) -> String {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains(needle)) {
            return line.to_owned();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no line with {needle} in {}:\n{text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines of `path` once it holds at least `n` of them.
fn wait_lines(path: &Path, n: usize) -> Vec<String> {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        if lines.len() >= n {
            return lines;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{n} lines expected in {}:\n{text}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn send(server: &Server, target: &str, headers: &[(&str, &str)]) -> integration_tests::Reply {
    let mut req = Request::get(format!("http://{}{target}", server.addr));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    server
        .send(req.body(Full::<Bytes>::default()).unwrap())
        .await
}

#[tokio::test]
async fn json_access_log_names_client_verb_user_bytes_and_refusals() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("access.jsonl");
    let rules = AccessRules::new()
        .user("alice", &hash_password("wonderland").unwrap())
        .unwrap()
        .format("oai_didl", Rule::restricted().users(["alice"]))
        .unwrap()
        .trusted_proxies(
            vec!["127.0.0.1".parse::<Cidr>().unwrap()],
            ForwardedHeader::XForwardedFor,
        );
    let limits = FlowLimits::new().format_rate("oai_dc", 0.001, 1).unwrap();
    let log_path = log.clone();
    let server = Server::start(site.path(), move |c| {
        c.access(rules)
            .flow(limits)
            .access_log(AccessLogFormat::Json)
            .access_log_file(log_path)
    })
    .await;
    let xff = ("x-forwarded-for", "203.0.113.9, 192.0.2.7");
    let ua = ("user-agent", "Sickle/0.7 \"quoted\"");
    let list = send(
        &server,
        "/modoai?verb=ListRecords&metadataPrefix=oai_dc",
        &[xff, ua],
    )
    .await;
    assert_eq!(list.status, StatusCode::OK);
    let limited = send(
        &server,
        "/modoai?verb=ListRecords&metadataPrefix=oai_dc",
        &[xff],
    )
    .await;
    assert_eq!(limited.status, StatusCode::SERVICE_UNAVAILABLE);
    let id = server.id("about.html");
    let didl = format!("/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier={id}");
    assert_eq!(
        send(&server, &didl, &[]).await.status,
        StatusCode::UNAUTHORIZED
    );
    let creds = base64::engine::general_purpose::STANDARD.encode("alice:wonderland");
    let auth = ("authorization", format!("Basic {creds}"));
    let record = send(&server, &didl, &[("authorization", &auth.1)]).await;
    assert_eq!(record.status, StatusCode::OK);
    let bad = send(&server, "/modoai?verb=Bogus", &[]).await;
    let page = send(
        &server,
        "/about.html",
        &[("referer", "http://example.org/")],
    )
    .await;
    assert_eq!(
        send(&server, "/missing.html", &[]).await.status,
        StatusCode::NOT_FOUND
    );
    // The Identify requests of Server::start come first; their lines may still be on their way.
    let started = Instant::now();
    let (lines, entries) = loop {
        let lines = wait_lines(&log, 1);
        let entries: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| json(l))
            .filter(|e| e["verb"] != "Identify")
            .collect();
        if entries.len() >= 7 || started.elapsed() > Duration::from_secs(20) {
            break (lines, entries);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let [list_l, limited_l, unauth_l, record_l, bad_l, page_l, missing_l] = &entries[..] else {
        panic!("{lines:?}");
    };
    assert_eq!(
        list_l["client"], "192.0.2.7",
        "the trusted proxy's client, not the peer"
    );
    assert_eq!(list_l["verb"], "ListRecords");
    assert_eq!(list_l["metadata_prefix"], "oai_dc");
    assert_eq!(list_l["status"], 200);
    assert_eq!(list_l["bytes"], list.body.len());
    assert_eq!(list_l["user_agent"], "Sickle/0.7 \"quoted\"");
    assert_eq!(list_l["method"], "GET");
    assert!(list_l["duration_seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(limited_l["client"], "192.0.2.7");
    assert_eq!(
        (limited_l["status"].as_u64(), limited_l["refusal"].as_str()),
        (Some(503), Some("rate_limit"))
    );
    assert_eq!(
        (unauth_l["status"].as_u64(), unauth_l["refusal"].as_str()),
        (Some(401), Some("unauthorized"))
    );
    assert_eq!(record_l["user"], "user:alice");
    assert_eq!(record_l["metadata_prefix"], "oai_didl");
    assert_eq!(record_l["bytes"], record.body.len());
    assert_eq!(bad_l["oai_errors"], serde_json::json!(["badVerb"]));
    assert_eq!(bad_l["bytes"], bad.body.len());
    assert_eq!(page_l["target"], "/about.html");
    assert_eq!(page_l["verb"], serde_json::Value::Null);
    assert_eq!(page_l["referer"], "http://example.org/");
    assert_eq!(page_l["bytes"], page.body.len());
    assert_eq!(missing_l["status"], 404);
    server.stop().await;
}

/// `modoai serve` with `args`, its standard error piped.
fn serve_piped(
    root: &Path,
    port: u16,
    args: &[&str],
) -> (Running, BufReader<std::process::ChildStderr>) {
    let mut child = modoai()
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--root"])
        .arg(root)
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    (Running(child), stderr)
}

/// Waits until the server on `port` answers `target` with 200.
fn wait_ok(port: u16, target: &str) {
    let started = Instant::now();
    while status_code(&get(port, target)) != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{target} never answered 200"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn combined_log_file_is_reopened_on_sighup_for_logrotate() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("access.log");
    let log_arg = log.to_str().unwrap();
    let (server, port) = start_modoai(
        site.path(),
        work.path(),
        "",
        &["--access-log", "combined", "--access-log-file", log_arg],
    );
    assert_eq!(status_code(&get(port, "/about.html")), 200);
    let line = wait_line(&log, "/about.html");
    let size = std::fs::metadata(site.path().join("about.html"))
        .unwrap()
        .len();
    assert!(line.starts_with("127.0.0.1 - - ["), "{line}");
    assert!(
        line.contains(&format!(
            "] \"GET /about.html HTTP/1.0\" 200 {size} \"-\" \"-\""
        )),
        "{line}"
    );
    std::fs::rename(&log, work.path().join("access.log.1")).unwrap();
    signal(server.0.id(), rustix::process::Signal::HUP);
    let started = Instant::now();
    // Requests until the new file appears: the signal is handled asynchronously.
    while !log.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "SIGHUP did not reopen the access log"
        );
        let _ = get(port, "/docs/readme.txt");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = get(port, "/images/logo.png");
    let started = Instant::now();
    loop {
        let fresh = std::fs::read_to_string(&log).unwrap();
        assert!(!fresh.contains("/about.html"), "{fresh}");
        if fresh.contains("/images/logo.png") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{fresh}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The line of the last request before SIGTERM is in the file when the server has exited.
    assert_eq!(status_code(&get(port, "/docs/report.pdf")), 200);
    let mut server = server;
    signal(server.0.id(), rustix::process::Signal::TERM);
    assert!(server.0.wait().unwrap().success());
    let last = std::fs::read_to_string(&log).unwrap();
    assert!(last.contains("/docs/report.pdf"), "{last}");
}

#[test]
fn a_full_disk_costs_log_lines_not_responses() {
    let site = TestSite::example();
    let port = free_port();
    let (_server, stderr) = serve_piped(
        site.path(),
        port,
        &["--access-log", "common", "--access-log-file", "/dev/full"],
    );
    wait_ok(port, "/modoai?verb=Identify");
    for _ in 0..20 {
        assert_eq!(status_code(&get(port, "/about.html")), 200);
    }
    // The writer thread has had time to try them all.
    std::thread::sleep(Duration::from_secs(1));
    drop(_server);
    let text: String = stderr
        .lines()
        .map_while(Result::ok)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        text.matches("cannot write the access log").count(),
        1,
        "warned once:\n{text}"
    );
}

#[test]
fn log_lines_have_no_colours_when_stderr_is_not_a_terminal() {
    let site = TestSite::example();
    let port = free_port();
    let (_server, mut stderr) = serve_piped(site.path(), port, &[]);
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("listening on"), "{line}");
    assert!(!line.contains('\x1b'), "ANSI escapes in a pipe: {line:?}");
}

/// Writes `plugins.toml` in `dir` with an md5 digest and a shell tool, and loads it.
async fn plugins(dir: &Path) -> Plugins {
    let path = dir.join("plugins.toml");
    std::fs::write(
        &path,
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n\n\
         [[plugin]]\nlabel = \"size\"\nmime = \"*/*\"\ncommand = [\"wc\", \"-c\", \"{path}\"]\nversion-command = [\"wc\", \"--version\"]\n",
    )
    .unwrap();
    Plugins::load(&path).await.expect("plugins.toml loads")
}

/// The samples of a scrape, as the Python `prometheus_client` parser reads them.
fn parse(dir: &Path, text: &str) -> Vec<serde_json::Value> {
    let file = dir.join("scrape.txt");
    std::fs::write(&file, text).unwrap();
    let out = python("metrics_parse.py", &[file.to_str().unwrap()]);
    json(&out).as_array().unwrap().clone()
}

/// The value of the sample `name` whose labels include `labels`; 0 when there is none.
fn value(samples: &[serde_json::Value], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s["name"] == name && labels.iter().all(|(k, v)| s["labels"][*k] == *v))
        .map(|s| s["value"].as_f64().unwrap())
        .sum()
}

#[tokio::test]
async fn healthz_and_metrics_count_requests_tools_cache_and_refusals() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let p = plugins(work.path()).await;
    let limits = FlowLimits::new().format_rate("oai_dc", 0.001, 1).unwrap();
    let server = Server::start(site.path(), move |c| {
        c.plugins(p).flow(limits).metrics("/metrics", None).unwrap()
    })
    .await;
    let health = server.get(&format!("{}healthz", server.base)).await;
    assert_eq!((health.status, health.text()), (StatusCode::OK, "ok\n"));
    assert_eq!(
        server
            .oai("verb=ListRecords&metadataPrefix=oai_dc")
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        server
            .oai("verb=ListRecords&metadataPrefix=oai_dc")
            .await
            .status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    // A crate harvest, twice: tools run the first time, the cache answers the second.
    for _ in 0..2 {
        let r = server
            .oai("verb=ListRecords&metadataPrefix=oai_crate")
            .await;
        assert_eq!(r.status, StatusCode::OK);
    }
    assert_eq!(
        server
            .get(&format!("{}about.html", server.base))
            .await
            .status,
        StatusCode::OK
    );
    let scrape = server.get(&format!("{}metrics", server.base)).await;
    assert_eq!(scrape.status, StatusCode::OK);
    assert!(scrape.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let s = parse(work.path(), scrape.text());
    let files = super::EXAMPLE_FILES.len() as f64;
    assert_eq!(
        value(
            &s,
            "modoai_http_requests_total",
            &[("verb", "ListRecords"), ("status", "2xx")]
        ),
        3.0
    );
    assert_eq!(
        value(
            &s,
            "modoai_http_requests_total",
            &[("verb", "ListRecords"), ("status", "5xx")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &s,
            "modoai_http_requests_total",
            &[("verb", "site"), ("status", "2xx")]
        ),
        2.0,
        "healthz, about.html"
    );
    assert_eq!(
        value(
            &s,
            "modoai_flow_rejections_total",
            &[("reason", "rate_limit")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &s,
            "modoai_plugin_runs_total",
            &[("plugin", "size"), ("status", "ok")]
        ),
        files
    );
    assert_eq!(
        value(
            &s,
            "modoai_plugin_runs_total",
            &[("plugin", "md5"), ("status", "ok")]
        ),
        files
    );
    assert_eq!(
        value(
            &s,
            "modoai_plugin_cache_misses_total",
            &[("plugin", "size")]
        ),
        files
    );
    assert_eq!(
        value(&s, "modoai_plugin_cache_hits_total", &[("plugin", "size")]),
        files
    );
    assert_eq!(
        value(
            &s,
            "modoai_plugin_run_duration_seconds_count",
            &[("plugin", "size")]
        ),
        files
    );
    assert_eq!(
        value(
            &s,
            "modoai_http_request_duration_seconds_count",
            &[("verb", "ListRecords")]
        ),
        4.0
    );
    assert!(
        value(
            &s,
            "modoai_http_response_bytes_total",
            &[("verb", "ListRecords")]
        ) > 1000.0
    );
    assert_eq!(value(&s, "modoai_index_records", &[]), files);
    let scanned = value(&s, "modoai_index_last_scan_timestamp_seconds", &[]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(scanned > now - 600.0 && scanned <= now + 1.0, "{scanned}");
    server.stop().await;
}

#[tokio::test]
async fn metrics_on_their_own_listen_address_stay_off_the_site() {
    let site = TestSite::example();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}").parse().unwrap();
    let server = Server::start(site.path(), move |c| {
        c.metrics("/metrics", Some(listen)).unwrap()
    })
    .await;
    assert_eq!(
        server.get(&format!("{}metrics", server.base)).await.status,
        StatusCode::NOT_FOUND
    );
    let side = server
        .get(&format!("http://127.0.0.1:{port}/metrics"))
        .await;
    assert_eq!(side.status, StatusCode::OK);
    assert!(
        side.text().contains("modoai_http_requests_total"),
        "{}",
        side.text()
    );
    let health = server
        .get(&format!("http://127.0.0.1:{port}/healthz"))
        .await;
    assert_eq!(health.text(), "ok\n");
    server.stop().await;
}

#[test]
fn healthz_answers_503_once_shutdown_has_begun() {
    let root = tempfile::tempdir().unwrap();
    // A response far larger than socket buffers hold keeps the server in its grace period.
    let bytes: Vec<u8> = (0..16u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(root.path().join("big.bin"), &bytes).unwrap();
    let work = tempfile::tempdir().unwrap();
    let side = free_port();
    let config = format!(
        "[server]\ngrace-secs = 60\n[oai]\ninline-max = 1000000000\n\
         [metrics]\nenabled = true\nlisten = \"127.0.0.1:{side}\"\n"
    );
    let (mut server, port) = start_modoai(root.path(), work.path(), &config, &["--no-watch"]);
    assert_eq!(
        String::from_utf8_lossy(&get(side, "/healthz"))
            .split("\r\n\r\n")
            .nth(1),
        Some("ok\n")
    );
    let id = format!("http://127.0.0.1:{port}/big.bin");
    let target = format!("/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier={id}");
    let mut slow = integration_tests::http::send_get(port, &target, &[]).unwrap();
    let mut head = [0u8; 1024];
    let n = integration_tests::http::read_some(&mut slow, &mut head).unwrap();
    assert!(head[..n].starts_with(b"HTTP/1.0 200"));
    signal(server.0.id(), rustix::process::Signal::TERM);
    let started = Instant::now();
    loop {
        let res = get(side, "/healthz");
        if status_code(&res) == 503 {
            assert!(String::from_utf8_lossy(&res).ends_with("shutting down\n"));
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "/healthz still says ok"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(slow);
    assert!(server.0.wait().unwrap().success());
}

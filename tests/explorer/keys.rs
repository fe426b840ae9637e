//! API keys: made, listed and revoked with the command line, stored hashed; 401 without or with
//! a bad key; quotas with RateLimit fields and 429; scopes that hide everything outside them.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use integration_tests::http::MARGIN;
use integration_tests::process::{free_port, modoai_explorer, Running};

use super::{add_key, enc, explorer, get, harvested, work_dir, Explorer};

#[test]
fn keys_are_made_listed_and_revoked_and_stored_only_hashed() {
    let work = super::work_dir("keys-cli");
    let file = work.join("keys.toml");
    let key = add_key(
        &file,
        "alice",
        &[
            "--quota",
            "1000/hour",
            "--rate",
            "5/s",
            "--allow",
            "host:example.org",
        ],
    );
    assert!(key.len() >= 43, "{key}");
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(
        !stored.contains(&key) && stored.contains("sha256:"),
        "{stored}"
    );
    let list = explorer(&["keys", "list", "--keys", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.contains("alice") && text.contains("1000/hour") && text.contains("host:example.org"),
        "{text}"
    );
    assert!(!text.contains(&key));
    for (args, code) in [
        (vec!["keys", "add", "alice"], 2),
        (vec!["keys", "add", "bob", "--quota", "10"], 2),
        (vec!["keys", "add", "bob", "--allow", "colour:red"], 2),
        (vec!["keys", "revoke", "nobody"], 1),
        (vec!["keys", "revoke", "alice"], 0),
    ] {
        let mut all = args.clone();
        all.extend(["--keys", file.to_str().unwrap()]);
        assert_eq!(explorer(&all).status.code(), Some(code), "{all:?}");
    }
    assert!(!std::fs::read_to_string(&file).unwrap().contains("alice"));
}

#[test]
fn listing_a_missing_key_file_fails_and_says_how_to_make_one() {
    let missing = work_dir("keys-missing").join("missing.toml");
    let list = explorer(&["keys", "list", "--keys", missing.to_str().unwrap()]);
    assert_eq!(list.status.code(), Some(1));
    let err = String::from_utf8_lossy(&list.stderr);
    assert!(
        err.contains("no key file at") && err.contains("keys add NAME --keys"),
        "{err}"
    );
    assert!(!missing.exists(), "listing makes no file");
}

#[test]
fn revoking_in_a_missing_key_file_fails_and_makes_no_file() {
    let missing = work_dir("keys-revoke-missing").join("missing.toml");
    let out = explorer(&[
        "keys",
        "revoke",
        "alice",
        "--keys",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no key file at"), "{err}");
    assert!(!missing.exists());
}

#[test]
fn keys_added_at_once_are_all_kept() {
    let file = work_dir("keys-at-once").join("keys.toml");
    let children: Vec<_> = (0..12)
        .map(|i| {
            modoai_explorer()
                .args(["keys", "add", &format!("k{i}"), "--keys"])
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let list = explorer(&["keys", "list", "--keys", file.to_str().unwrap()]);
    let names = String::from_utf8_lossy(&list.stdout).lines().count();
    assert_eq!(names, 12, "every key added at once is in the file");
}

/// Without `--keys`, `keys add` run in one folder and `serve` started in another use the same
/// file (the state folder's), and both say where it is.
#[test]
fn a_key_added_in_one_folder_works_for_a_server_started_in_another() {
    let work = work_dir("keys-state");
    let (here, there, state) = (work.join("here"), work.join("there"), work.join("state"));
    for d in [&here, &there] {
        std::fs::create_dir_all(d).unwrap();
    }
    let added = modoai_explorer()
        .args(["keys", "add", "alice"])
        .current_dir(&here)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert!(added.status.success());
    let key = String::from_utf8(added.stdout).unwrap().trim().to_owned();
    let file = state.join("modoai-explorer/keys.toml");
    let said = String::from_utf8_lossy(&added.stderr);
    assert!(said.contains(&file.display().to_string()), "{said}");
    assert!(file.exists() && std::fs::read_dir(&here).unwrap().next().is_none());
    let port = free_port();
    let mut server = Running(
        modoai_explorer()
            .args([
                "serve",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--archive",
            ])
            .arg(&harvested().archive)
            .current_dir(&there)
            .env("XDG_STATE_HOME", &state)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.contains("API keys are read from") && line.contains(&file.display().to_string()),
        "{line}"
    );
    let started = Instant::now();
    let bearer = format!("Bearer {key}");
    let me = loop {
        let r = get(port, "/api/v1/me", &[("Authorization", &bearer)]);
        if r.status != 0 && r.status != 503 || started.elapsed() > MARGIN {
            break r;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(me.status, 200, "the key is found: {}", me.body);
}

#[test]
fn the_api_needs_a_key_by_default_and_refuses_bad_ones() {
    let work = super::work_dir("keys-401");
    let e = Explorer::start(&[&harvested().archive], &work, "");
    for auth in [None, Some("not-a-key-of-this-server-at-all-0123456789")] {
        let r = e.get("/api/v1/search", auth);
        assert_eq!(r.status, 401, "{auth:?}");
        assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
        assert!(r.json()["error"]["message"].is_string());
    }
    let r = super::get(e.port, "/api/v1/me", &[("Authorization", "Basic YTpi")]);
    assert_eq!(r.status, 401);
    // The Memento routes and the OpenAPI document stay public.
    assert_eq!(e.get("/api/v1/openapi.json", None).status, 200);
    let url = format!("{}images/sunset.jpg", harvested().base);
    assert_eq!(
        e.get_ready(&format!("/timemap/link/{url}"), None).status,
        200
    );
    let key = add_key(&e.keys, "reader", &[]);
    assert_eq!(
        e.get_ready("/api/v1/search", Some(&key)).status,
        200,
        "a key added while serving works at the next request"
    );
    assert_eq!(
        explorer(&[
            "keys",
            "revoke",
            "reader",
            "--keys",
            e.keys.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0)
    );
    assert_eq!(
        e.get("/api/v1/search", Some(&key)).status,
        401,
        "a revoked key is refused at the next request"
    );
}

#[test]
fn a_spent_quota_gets_429_with_retry_after_and_ratelimit_fields() {
    let work = super::work_dir("keys-quota");
    let key = add_key(&work.join("keys.toml"), "limited", &["--quota", "3/hour"]);
    let e = Explorer::start(&[&harvested().archive], &work, "");
    let first = e.get_ready("/api/v1/search", Some(&key));
    assert_eq!(first.status, 200);
    assert_eq!(
        first.header("ratelimit-policy"),
        Some("\"hour\";q=3;w=3600")
    );
    let field = first.header("ratelimit").unwrap();
    assert!(field.starts_with("\"hour\";r=2;t="), "{field}");
    let me = e.get("/api/v1/me", Some(&key)).json();
    assert_eq!(
        (
            me["name"].as_str(),
            me["used"].as_u64(),
            me["remaining"].as_u64()
        ),
        (Some("limited"), Some(2), Some(1))
    );
    assert_eq!(e.get("/api/v1/search", Some(&key)).status, 200);
    let spent = e.get("/api/v1/search", Some(&key));
    assert_eq!(spent.status, 429, "{}", spent.body);
    let retry: u64 = spent.header("retry-after").unwrap().parse().unwrap();
    assert!((3000..=3600).contains(&retry), "{retry}");
    assert!(spent
        .header("ratelimit")
        .unwrap()
        .starts_with("\"hour\";r=0;"));
    let fast = add_key(&e.keys, "fast", &["--rate", "1/s"]);
    assert_eq!(e.get_ready("/api/v1/me", Some(&fast)).status, 200);
    let too_fast = e.get("/api/v1/me", Some(&fast));
    assert_eq!(too_fast.status, 429);
    assert_eq!(too_fast.header("retry-after"), Some("1"));
}

#[test]
fn a_key_never_sees_counts_or_facets_outside_its_scope() {
    let work = super::work_dir("keys-scope");
    let all = add_key(&work.join("keys.toml"), "all", &[]);
    let images = add_key(
        &work.join("keys.toml"),
        "images",
        &["--allow", "mime:image/*"],
    );
    let e = Explorer::start(&[&harvested().archive], &work, "");
    let everything = e.get_ready("/api/v1/search?facets=mime", Some(&all)).json();
    let seen = e
        .get_ready("/api/v1/search?facets=mime&size=100", Some(&images))
        .json();
    assert!(seen["total"].as_u64().unwrap() < everything["total"].as_u64().unwrap());
    for m in seen["facets"]["mime"].as_array().unwrap() {
        assert!(m["value"].as_str().unwrap().starts_with("image/"), "{m}");
    }
    for d in seen["data"].as_array().unwrap() {
        assert!(d["mime"].as_str().unwrap().starts_with("image/"), "{d}");
    }
    let terms = e.get_ready("/api/v1/terms", Some(&images)).json();
    assert!(terms["total"].as_u64().unwrap() <= seen["total"].as_u64().unwrap());
    let pdf = format!("{}docs/report.pdf", harvested().base);
    let list = e
        .get_ready(
            &format!("/api/v1/captures?url={}", enc(&pdf)),
            Some(&images),
        )
        .json();
    assert_eq!(list["count"], 0, "out of scope");
    let id = e
        .get_ready(&format!("/api/v1/captures?url={}", enc(&pdf)), Some(&all))
        .json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        e.get(&format!("/api/v1/capture/{id}"), Some(&images))
            .status,
        404
    );
    assert_eq!(
        e.get(&format!("/timemap/link/{pdf}"), Some(&images)).status,
        404,
        "Memento respects the key's scope"
    );
    let me = e.get("/api/v1/me", Some(&images)).json();
    assert_eq!(me["scope"][0], "mime:image/*");
    assert_eq!(me["captures"], seen["total"]);
}

//! The real `modoai` binary: `modoai hash-secret` prints what `[access]` takes, and
//! SIGHUP reloads `[access]` without a restart. Time bounds here detect hangs only.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use integration_tests::http::{send_get, status_code};
use integration_tests::process::{free_port, modoai, signal, Running};
use rustix::process::Signal;

const HANG: Duration = Duration::from_secs(30);
const OLD_KEY: &str = "old-0123456789abcdefghijklmnopqrstuvwxyz";
const NEW_KEY: &str = "new-0123456789abcdefghijklmnopqrstuvwxyz";

/// `modoai hash-secret ARGS` with `input` on stdin: (success, stdout, stderr).
fn hash_secret(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = modoai()
        .arg("hash-secret")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the modoai binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn hash_secret_prints_what_access_takes() {
    let (ok, out, _) = hash_secret(&[], "correct horse\n");
    assert!(ok);
    let phc = out.trim_end();
    assert!(phc.starts_with("$argon2id$v=19$"), "{out}");
    assert!(!out.contains("correct horse"));
    modoai::access::AccessRules::new()
        .user("u", phc)
        .expect("[access.users] takes it");
    let (ok, out, _) = hash_secret(&["--api-key"], &format!("{OLD_KEY}\r\n"));
    assert!(ok);
    assert_eq!(
        out.trim_end(),
        modoai::access::hash_api_key(OLD_KEY).unwrap()
    );
    let (ok, _, err) = hash_secret(&["--api-key"], "short\n");
    assert!(!ok);
    assert!(err.contains("at least 32 characters"), "{err}");
    assert!(!err.contains("short"), "the secret is not echoed: {err}");
    let (ok, _, err) = hash_secret(&[], "\n");
    assert!(!ok && err.contains("empty"), "{err}");
}

fn config(key_id: &str, key: &str) -> String {
    format!(
        "[access.keys]\n{key_id} = \"{}\"\n[access.oai_didl]\nkeys = [\"{key_id}\"]\n",
        modoai::access::hash_api_key(key).unwrap()
    )
}

/// The status code of a GetRecord in oai_didl with this key.
fn status(port: u16, key: &str) -> u16 {
    let target = format!(
        "/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier=http://127.0.0.1:{port}/a.txt"
    );
    let bearer = format!("Bearer {key}");
    let Some(mut s) = send_get(port, &target, &[("Authorization", &bearer)]) else {
        return 0;
    };
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    status_code(&out)
}

fn until(what: &str, done: impl Fn() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < HANG, "{what} did not happen");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sighup_reloads_the_access_rules() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("site");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "hello").unwrap();
    // The server reads the config through a symlink whose target lives in another folder: the
    // server's watcher (on the symlink's folder) does not see the target change, so only SIGHUP
    // can make the new rules apply.
    let real = work.path().join("real");
    let conf = work.path().join("conf");
    std::fs::create_dir(&real).unwrap();
    std::fs::create_dir(&conf).unwrap();
    std::fs::write(real.join("modoai.toml"), config("old", OLD_KEY)).unwrap();
    std::os::unix::fs::symlink(real.join("modoai.toml"), conf.join("modoai.toml")).unwrap();
    let port = free_port();
    let server = Running(
        modoai()
            .args(["serve", "--no-watch", "--root"])
            .arg(&root)
            .args(["--listen", &format!("127.0.0.1:{port}"), "--config"])
            .arg(conf.join("modoai.toml"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the modoai binary starts"),
    );
    until("the server start", || status(port, OLD_KEY) == 200);
    assert_eq!(status(port, NEW_KEY), 403);
    std::fs::write(real.join("modoai.toml"), config("new", NEW_KEY)).unwrap();
    signal(server.0.id(), Signal::HUP);
    until("the reload", || status(port, NEW_KEY) == 200);
    assert_eq!(status(port, OLD_KEY), 403);
    // A broken file on SIGHUP: the server keeps running with the rules it has.
    std::fs::write(real.join("modoai.toml"), "[access\n").unwrap();
    signal(server.0.id(), Signal::HUP);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(status(port, NEW_KEY), 200);
    assert_eq!(status(port, OLD_KEY), 403);
}

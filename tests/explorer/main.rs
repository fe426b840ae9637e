//! End-to-end tests of `modoai-explorer`: the example site served by `modoai` with the real
//! plugins, harvested by `modoai-harvester --index`, then searched, narrowed, looked up and
//! replayed through the explorer's API and Memento routes, as a person or a program would.

mod capture;
mod crash;
mod docs;
mod export;
mod export_memory;
mod foreign;
mod harvest;
mod identify;
mod keys;
mod manual;
mod memento;
mod metadata;
mod openapi;
mod photo;
mod repair;
mod revisits;
mod search;
mod tools;
mod ui;
mod versions;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use integration_tests::http::{read_some, send_request, MARGIN};
use integration_tests::process::{free_port, modoai_explorer, program, start_modoai, Running};
use integration_tests::repo_root;

/// Chinese and Japanese pages added to the example site.
pub(crate) const BEIJING: &str = "<html><head><title>北京</title></head><body><p>北京是中华人民共和国的首都，也是政治和文化中心。</p></body></html>";
pub(crate) const TOKYO: &str = "<html><head><title>東京</title></head><body><p>東京は日本の首都です。多くの人が住んでいます。</p></body></html>";
/// A Japanese page in kana only (no kanji: jieba's dictionary has none of its words).
pub(crate) const KANA: &str = "<html><head><title>かなのページ</title></head><body><p>ひらがなとカタカナでかきます。コーヒーをのみます。</p></body></html>";
/// A gzip-compressed changelog added to the example site (`docs/changelog.gz`), with a word no
/// other file has.
pub(crate) const CHANGELOG: &str =
    "modoai-example (1.0) unstable; urgency=low\n\n  * First release: zephyrine winds.\n";

/// The example site (plus a Chinese page, two Japanese pages, a gzip-compressed changelog and a
/// photo with EXIF) harvested once in oai_crate with the
/// default plugins, and indexed by `harvest --index`.
pub(crate) struct Harvested {
    /// The archive.
    pub(crate) archive: PathBuf,
    /// The site's base URL as harvested (`http://127.0.0.1:PORT/`).
    pub(crate) base: String,
}

/// The shared harvest (made on first use, once per test run: [`once_per_run`]).
pub(crate) fn harvested() -> &'static Harvested {
    static ONCE: OnceLock<Harvested> = OnceLock::new();
    ONCE.get_or_init(|| Harvested {
        base: once_per_run("shared", || harvest().base),
        archive: work_root().join("shared").join("archive"),
    })
}

/// The folder of the tests' folders.
pub(crate) fn work_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("explorer")
}

/// What `make` returned, made once per test run in the test folder `name`: nextest runs each test
/// in a process of its own, so the first process of a run (`NEXTEST_RUN_ID`) makes it under a
/// file lock while the others wait, then take what it wrote; `cargo test` runs all in one.
pub(crate) fn once_per_run(name: &str, make: impl FnOnce() -> String) -> String {
    let root = work_root();
    std::fs::create_dir_all(&root).unwrap();
    let lock = std::fs::File::create(root.join(format!("{name}.lock"))).unwrap();
    lock.lock().expect("lock the shared folder");
    let run =
        std::env::var("NEXTEST_RUN_ID").unwrap_or_else(|_| format!("pid {}", std::process::id()));
    let done = root.join(format!("{name}.done"));
    let made = std::fs::read_to_string(&done).ok();
    if let Some(value) = made
        .as_deref()
        .and_then(|d| d.strip_prefix(&format!("{run}\n")))
    {
        return value.to_owned();
    }
    let _ = std::fs::remove_file(&done);
    let value = make();
    std::fs::write(&done, format!("{run}\n{value}")).unwrap();
    value
}

/// Harvests the example site (plus the Chinese and Japanese pages, the compressed changelog and
/// the photo) into `shared/archive`.
fn harvest() -> Harvested {
    let work = work_dir("shared");
    let site = work.join("site");
    copy_dir(&repo_root().join("examples/site"), &site);
    std::fs::create_dir_all(site.join("zh")).unwrap();
    std::fs::create_dir_all(site.join("ja")).unwrap();
    std::fs::write(site.join("zh/beijing.html"), BEIJING).unwrap();
    std::fs::write(site.join("ja/tokyo.html"), TOKYO).unwrap();
    photo::make(&site.join(photo::PATH));
    std::fs::write(site.join("ja/kana.html"), KANA).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, CHANGELOG.as_bytes()).unwrap();
    std::fs::write(site.join("docs/changelog.gz"), gz.finish().unwrap()).unwrap();
    // The plugins' cache goes beside their file: here, not in the repository.
    std::fs::copy(repo_root().join("plugins.toml"), work.join("plugins.toml")).unwrap();
    let plugins = work.join("plugins.toml");
    let (server, port) = start_modoai(&site, &work, "", &["--plugins", plugins.to_str().unwrap()]);
    let archive = work.join("archive");
    let oai = format!("http://127.0.0.1:{port}/modoai");
    let out = harvest_into(&program("modoai-harvester"), &oai, &archive, &["--index"]);
    assert!(
        out.status.success(),
        "harvest --index: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(server);
    Harvested {
        archive,
        base: format!("http://127.0.0.1:{port}/"),
    }
}

/// `BIN harvest OAI --quiet FLAGS… --archive ARCHIVE`: the harvester's output (each test checks
/// the exit code it expects).
pub(crate) fn harvest_into(bin: &Path, oai: &str, archive: &Path, flags: &[&str]) -> Output {
    Command::new(bin)
        .args(["harvest", oai, "--quiet"])
        .args(flags)
        .arg("--archive")
        .arg(archive)
        // `--index` runs the explorer, whose identification cache is in its state folder.
        .env("XDG_STATE_HOME", work_root().join("state"))
        .output()
        .expect("run the harvester")
}

/// Serves `site` with `modoai` (state in `work`) and harvests it as `oai_didl` into `archive`,
/// which must succeed; the port the server had (it is stopped).
pub(crate) fn harvest_didl(site: &Path, work: &Path, archive: &Path) -> u16 {
    let (server, port) = start_modoai(site, work, "", &[]);
    let oai = format!("http://127.0.0.1:{port}/modoai");
    let didl = ["--metadata-prefix", "oai_didl"];
    let out = harvest_into(&program("modoai-harvester"), &oai, archive, &didl);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(server);
    port
}

/// A server over the shared harvest in a fresh folder `name`; the API answers without a key when
/// `open_api`.
pub(crate) fn shared_explorer(name: &str, open_api: bool) -> Explorer {
    let config = if open_api {
        "[access]\nanonymous-api = true\n"
    } else {
        ""
    };
    Explorer::start(&[&harvested().archive], &work_dir(name), config)
}

/// The string `field` of every object of the array `value[key]` (the URLs of a page's results).
pub(crate) fn each(value: &serde_json::Value, key: &str, field: &str) -> Vec<String> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("no array {key} in {value}"))
        .iter()
        .map(|v| v[field].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A fresh folder for one test under cargo's temporary folder for tests.
pub(crate) fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("explorer")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies a folder tree.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let target = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// `modoai-explorer ARGS`, output captured.
pub(crate) fn explorer(args: &[&str]) -> Output {
    modoai_explorer()
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run modoai-explorer")
}

/// From `index`'s summary line `WHAT: C … from the cache, R … (P processes started; …)` (the
/// `identification` and `tools` lines): C, R and P.
pub(crate) fn summary_counts(what: &str, out: &Output) -> (u64, u64, u64) {
    let said = String::from_utf8_lossy(&out.stderr);
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{what}: ")))
        .unwrap_or_else(|| panic!("no {what} line in {said}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

/// A new key for `name` in `keys` with extra `args`; the key.
pub(crate) fn add_key(keys: &Path, name: &str, args: &[&str]) -> String {
    let mut all = vec!["keys", "add", name, "--keys", keys.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = explorer(&all);
    assert!(
        out.status.success(),
        "keys add: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A running `modoai-explorer serve` over `archives`, with `config` as its configuration file
/// (its keys in `work/keys.toml` unless the configuration names a file).
pub(crate) struct Explorer {
    pub(crate) port: u16,
    pub(crate) keys: PathBuf,
    _child: Running,
}

impl Explorer {
    pub(crate) fn start(archives: &[&Path], work: &Path, config: &str) -> Explorer {
        let mut args = Vec::new();
        for a in archives {
            args.extend(["--archive", a.to_str().expect("a UTF-8 path")]);
        }
        Explorer::start_with(&args, work, config)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self._child.0.id()
    }

    /// A server started with `args` (`--archive …` and other options of `serve`).
    pub(crate) fn start_with(args: &[&str], work: &Path, config: &str) -> Explorer {
        let port = free_port();
        let config_path = work.join("explorer.toml");
        std::fs::write(&config_path, config).unwrap();
        let keys = work.join("keys.toml");
        let mut command = modoai_explorer();
        command.arg("serve").args(args);
        command
            .args(["--listen", &format!("127.0.0.1:{port}"), "--config"])
            .arg(&config_path)
            .arg("--keys")
            .arg(&keys)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = Running(command.spawn().expect("modoai-explorer serve starts"));
        let started = Instant::now();
        while get(port, "/api/v1/openapi.json", &[]).status != 200 {
            assert!(started.elapsed() < MARGIN, "the explorer did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Explorer {
            port,
            keys,
            _child: child,
        }
    }

    /// GET with a key (or none).
    pub(crate) fn get(&self, target: &str, key: Option<&str>) -> Reply {
        self.request("GET", target, key)
    }

    /// POST without a body, with a key (or none).
    pub(crate) fn post(&self, target: &str, key: Option<&str>) -> Reply {
        self.request("POST", target, key)
    }

    fn request(&self, method: &str, target: &str, key: Option<&str>) -> Reply {
        let auth = key.map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        request(self.port, method, target, &headers)
    }

    /// GET with a key, retried while the index is being built (503).
    pub(crate) fn get_ready(&self, target: &str, key: Option<&str>) -> Reply {
        let started = Instant::now();
        loop {
            let r = self.get(target, key);
            if r.status != 503 {
                return r;
            }
            assert!(
                started.elapsed() < MARGIN,
                "{target}: still 503: {}",
                r.body
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A whole response.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
    pub(crate) bytes: Vec<u8>,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// GET `target` with `headers` over a plain socket (HTTP/1.0).
pub(crate) fn get(port: u16, target: &str, headers: &[(&str, &str)]) -> Reply {
    request(port, "GET", target, headers)
}

/// `method` (GET, or POST without a body) `target` with `headers` over a plain socket (HTTP/1.0).
fn request(port: u16, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    let Some(mut s) = send_request(port, method, target, headers) else {
        return Reply {
            status: 0,
            headers: vec![],
            body: String::new(),
            bytes: vec![],
        };
    };
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    while let Ok(n) = read_some(&mut s, &mut buf) {
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw.len(), |i| i + 4);
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let bytes = raw[split..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.get(9..12))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        bytes,
    }
}

/// Percent-encodes a query value.
pub(crate) fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

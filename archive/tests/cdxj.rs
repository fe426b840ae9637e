//! CDXJ lines and the sorted index file; cdxj-indexer 1.5.0 from `<repo>/.venv` as the oracle.

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use modoai_archive::cdxj::{CdxjError, CdxjIndex, CdxjLine};
use modoai_archive::surt::surt;
use serde_json::Value;

use crate::support::venv_python;

const EXAMPLE: &str = r#"com,example)/dir/page.html 20240501120000 {"url": "http://www.example.com/dir/page.html", "mime": "text/html", "digest": "sha1:P76CQJTARBRT3ZRVRCLU2SRK4GJ5OQOI", "length": "328", "offset": "1366", "filename": "EXAMPLE-20240501120000000-00000-localhost.warc.gz"}"#;

fn line(key: &str, timestamp: &str, url: &str) -> CdxjLine {
    CdxjLine {
        surt: key.to_owned(),
        timestamp: timestamp.to_owned(),
        fields: vec![
            ("url".to_owned(), Value::from(url)),
            ("mime".to_owned(), Value::from("text/html")),
        ],
    }
}

#[test]
fn parse_keeps_field_order_and_round_trips() {
    let parsed = CdxjLine::parse(EXAMPLE).unwrap();
    assert_eq!(parsed.surt, "com,example)/dir/page.html");
    assert_eq!(parsed.timestamp, "20240501120000");
    let keys: Vec<&str> = parsed.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["url", "mime", "digest", "length", "offset", "filename"]
    );
    assert_eq!(parsed.get("offset"), Some("1366"));
    assert_eq!(parsed.to_line(), EXAMPLE);
    assert_eq!(CdxjLine::parse(&format!("{EXAMPLE}\r\n")).unwrap(), parsed);
}

#[test]
fn to_line_escapes_like_python_json_dumps() {
    let l = line(
        "ch,xn--bcher-kva)/",
        "20240501120000",
        "http://bücher.ch/\"\u{1F600}",
    );
    assert_eq!(
        l.to_line(),
        r#"ch,xn--bcher-kva)/ 20240501120000 {"url": "http://b\u00fccher.ch/\"\ud83d\ude00", "mime": "text/html"}"#
    );
    assert_eq!(CdxjLine::parse(&l.to_line()).unwrap(), l);
}

#[test]
fn parse_rejects_malformed_lines() {
    assert!(matches!(
        CdxjLine::parse("com,example)/"),
        Err(CdxjError::Missing(_))
    ));
    assert!(matches!(
        CdxjLine::parse("k 2024 {}"),
        Err(CdxjError::Timestamp(_))
    ));
    assert!(matches!(
        CdxjLine::parse("k 20240501120000 [1]"),
        Err(CdxjError::Json(_))
    ));
    assert!(matches!(
        CdxjLine::parse("k 20240501120000 {"),
        Err(CdxjError::Json(_))
    ));
    assert!(matches!(
        CdxjLine::parse(" 20240501120000 {}"),
        Err(CdxjError::Key(_))
    ));
    let mut index = CdxjIndex::open(tempfile::tempdir().unwrap().path().join("x.cdxj"));
    let bad = line("a key", "20240501120000", "u");
    assert!(matches!(index.add([bad]), Err(CdxjError::Key(_))));
}

/// Deterministic pseudo-random numbers (a linear congruential generator).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }

    /// A line whose key is built from bytes around the separators (space 0x20, `!`, `(`, `)`,
    /// `,`, `/`), so byte order and "key is a prefix of another key" both matter.
    fn line(&mut self) -> CdxjLine {
        const PARTS: &[&str] = &[
            "com,a)", "com,a,b)", "com,a)/", "org,z)", "com,a!)", "/x", "/x/", "?q=1", "/ü",
        ];
        let key: String = (0..1 + self.below(3))
            .map(|_| PARTS[self.below(PARTS.len())])
            .collect();
        let timestamp = format!("2024050112000{}", self.below(3));
        line(&key, &timestamp, &format!("http://host/{}", self.below(4)))
    }
}

/// The file equals `LC_ALL=C sort -u` of every line ever added.
#[test]
fn merging_random_batches_equals_sorting_the_union() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = CdxjIndex::open(dir.path().join("index.cdxj"));
    let mut rng = Lcg(7);
    let mut union = Vec::new();
    for _ in 0..20 {
        let batch: Vec<CdxjLine> = (0..rng.below(40)).map(|_| rng.line()).collect();
        union.extend(batch.iter().map(CdxjLine::to_line));
        index.add(batch).unwrap();
        assert_eq!(
            fs::read_to_string(index.path()).unwrap(),
            c_sort_unique(&union)
        );
    }
    assert!(!dir.path().join("index.cdxj.tmp").exists());
}

fn c_sort_unique(lines: &[String]) -> String {
    let mut child = Command::new("sort")
        .arg("-u")
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("coreutils sort");
    let mut input = lines.join("\n");
    input.push('\n');
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn adding_an_empty_batch_creates_an_empty_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = CdxjIndex::open(dir.path().join("index.cdxj"));
    assert!(index.lookup("com,a)/").unwrap().is_empty());
    index.add([]).unwrap();
    assert_eq!(fs::read(index.path()).unwrap(), b"");
    assert!(index.lookup("com,a)/").unwrap().is_empty());
}

/// A merge that died before its rename leaves `<index>.tmp` behind: readers still see the old
/// index, and the next merge overwrites the leftover.
#[test]
fn crash_mid_merge_leaves_the_old_index_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.cdxj");
    let mut index = CdxjIndex::open(&path);
    let first = line("com,a)/", "20240501120000", "http://a/");
    index.add([first.clone()]).unwrap();
    let before = fs::read(&path).unwrap();

    fs::write(
        dir.path().join("index.cdxj.tmp"),
        "com,a)/ 2024050112 {\"url\": \"trunc",
    )
    .unwrap();
    let reopened = CdxjIndex::open(&path);
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(
        reopened.lookup("com,a)/").unwrap(),
        std::slice::from_ref(&first)
    );

    let second = line("com,b)/", "20240501120000", "http://b/");
    index.add([second.clone()]).unwrap();
    assert!(!dir.path().join("index.cdxj.tmp").exists());
    assert_eq!(index.lookup("com,a)/").unwrap(), [first]);
    assert_eq!(index.lookup("com,b)/").unwrap(), [second]);
}

/// Keys at the file's start, middle and end; absent keys before, between and after them; keys
/// that are prefixes of other keys.
#[test]
fn lookup_finds_present_and_absent_keys_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = CdxjIndex::open(dir.path().join("index.cdxj"));
    let keys: Vec<String> = (0..500).map(|i| format!("com,host{i:03})/page")).collect();
    let mut lines: Vec<CdxjLine> = keys
        .iter()
        .flat_map(|k| {
            let url = format!("http://{k}");
            [
                line(k, "20240501120000", &url),
                line(k, "20240502120000", &url),
            ]
        })
        .collect();
    lines.push(line(
        "com,host250)/page/more",
        "20240501120000",
        "http://more",
    ));
    lines.push(line("com,host250)/pag", "20240501120000", "http://pag"));
    index.add(lines).unwrap();

    for key in [&keys[0], &keys[250], &keys[499]] {
        let found = index.lookup(key).unwrap();
        let stamps: Vec<&str> = found.iter().map(|l| l.timestamp.as_str()).collect();
        assert_eq!(stamps, ["20240501120000", "20240502120000"], "{key}");
        assert!(found.iter().all(|l| &l.surt == key));
    }
    assert_eq!(index.lookup("com,host250)/pag").unwrap().len(), 1);
    assert_eq!(index.lookup("com,host250)/page/more").unwrap().len(), 1);
    for absent in [
        "a",
        "com,host",
        "com,host000)/pagf",
        "com,host250)/page/",
        "com,host999)/page",
        "zzz",
    ] {
        assert!(index.lookup(absent).unwrap().is_empty(), "{absent}");
    }
}

/// cdxj-indexer's lines parse, round-trip byte for byte, and carry our SURT of their `url`.
#[test]
fn reads_cdxj_indexer_output_for_a_warcio_file() {
    let python = venv_python("warcio, cdxj_indexer, surt");
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("oracle.warc.gz");
    let urls = [
        "http://www.example.com/dir/page.html",
        "HTTPS://Example.COM:443/A/B?b=2&a=1#frag",
        "http://example.com:8080/x/",
        "http://bücher.ch/Straße",
        "http://192.168.1.254/info/",
        "http://example.com/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile",
        "http://example.com/a%20b?q=Wroc%C5%82aw",
        "ftp://www2.example.com/pub/file.txt",
        "urn:oai:example.com:123",
    ];
    let script = r#"
import io, json, sys
from warcio.warcwriter import WARCWriter
from warcio.statusandheaders import StatusAndHeaders
with open(sys.argv[1], "wb") as out:
    writer = WARCWriter(out, gzip=True)
    for i, url in enumerate(json.loads(sys.argv[2])):
        body = ("file %d" % i).encode()
        if i % 2:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/plain; charset=utf-8")], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=headers)
        else:
            record = writer.create_warc_record(url, "resource", payload=io.BytesIO(body), warc_content_type="application/pdf")
        writer.write_record(record)
"#;
    let status = Command::new(&python)
        .args(["-c", script])
        .arg(&warc)
        .arg(serde_json::to_string(&urls).unwrap())
        .status()
        .unwrap();
    assert!(status.success(), "warcio could not write the oracle file");
    let indexer = python.with_file_name("cdxj-indexer");
    let output = Command::new(&indexer).arg(&warc).output().unwrap();
    assert!(output.status.success(), "{} failed", indexer.display());
    let text = String::from_utf8(output.stdout).unwrap();

    let mut lines = Vec::new();
    for raw in text.lines() {
        let parsed = CdxjLine::parse(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
        assert_eq!(parsed.to_line(), raw);
        let url = parsed.get("url").expect("url field");
        assert_eq!(surt(url).unwrap(), parsed.surt, "{url}");
        lines.push(parsed);
    }
    assert_eq!(lines.len(), urls.len());

    let mut index = CdxjIndex::open(dir.path().join("oracle.cdxj"));
    index.add(lines.clone()).unwrap();
    let sorted: Vec<String> = lines.iter().map(CdxjLine::to_line).collect();
    assert_eq!(
        fs::read_to_string(index.path()).unwrap(),
        c_sort_unique(&sorted)
    );
    for l in &lines {
        assert!(index.lookup(&l.surt).unwrap().contains(l));
    }
}

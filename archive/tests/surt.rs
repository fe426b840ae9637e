//! SURT keys: the IA canonicalisation vectors (docs/archivists.md, Formats: SURT), and a differential test against the Python `surt`
//! package 0.3.1 in `<repo>/.venv` (installed by `scripts/setup`).

use std::io::Write;
use std::process::{Command, Stdio};

use modoai_archive::surt::{mementomap_key, surt, SurtError};

use crate::support::venv_python;

/// The canonicalisation test vectors, then a documented quirk and the special inputs.
const VECTORS: &[(&str, &str)] = &[
    ("http://www.archive.org/", "org,archive)/"),
    ("http://archive.org/goo/", "org,archive)/goo"),
    ("http://archive.org/goo/?b&a", "org,archive)/goo?a&b"),
    (
        "http://archive.org/goo/?a=2&b&a=1",
        "org,archive)/goo?a=1&a=2&b",
    ),
    (
        "HTTP://WWW.Example.COM:80/A/B/Index.HTML?B=2&a=1#Frag",
        "com,example)/a/b/index.html?a=1&b=2",
    ),
    ("https://example.com:443/x", "com,example)/x"),
    ("https://example.com:8443/x", "com,example:8443)/x"),
    ("http://example.com:443/x", "com,example:443)/x"),
    ("http://www2.example.com/", "com,example)/"),
    ("http://www2foo.example.com/", "com,example,www2foo)/"),
    (
        "http://user:pass@example.com/private",
        "com,example)/private",
    ),
    ("http://example.com/a/./b/../c", "com,example)/a/c"),
    (
        "http://example.com//double//slash",
        "com,example)/double/slash",
    ),
    ("http://example.com/%7Euser/%41", "com,example)/~user/a"),
    (
        "http://example.com/a%20b?q=a%20b",
        "com,example)/a%20b?q=a%20b",
    ),
    (
        "http://example.com/app?item=Wroc%C5%82aw",
        "com,example)/app?item=wroc%c5%82aw",
    ),
    ("http://bücher.ch/", "ch,xn--bcher-kva)/"),
    ("http://192.168.1.254/info/", "254,1,168,192)/info"),
    (
        "http://example.com/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile",
        "com,example)/index.php?action=profile",
    ),
    (
        "ftp://www.example.com/pub/file.txt",
        "com,example)/pub/file.txt",
    ),
    ("dns:archive.org", "dns:archive.org"),
    ("urn:oai:example.com:123", "urn:oai:example.com:123"),
    // Quirk: the query is unescaped before it is split on `&`.
    (
        "http://example.com/?type=a+b+%26+c&grape=wine",
        "com,example)/?+c&grape=wine&type=a+b+",
    ),
    // Case-only differences collide.
    ("http://example.com/Readme.TXT", "com,example)/readme.txt"),
    ("", "-"),
    ("filedesc:IA-001.arc.gz", "filedesc:IA-001.arc.gz"),
];

#[test]
fn reference_vectors() {
    for (input, expected) in VECTORS {
        assert_eq!(surt(input).as_deref(), Ok(*expected), "surt({input:?})");
    }
}

#[test]
fn errors_where_python_raises() {
    assert_eq!(surt("   "), Err(SurtError::Blank));
    assert!(matches!(
        surt("http://example.com:99999/"),
        Err(SurtError::InvalidPort(_))
    ));
    assert!(matches!(
        surt("http://example.com:8x/"),
        Err(SurtError::InvalidPort(_))
    ));
}

#[test]
fn mementomap_keys() {
    // Keys as the MementoMap reference tool makes them: the query is dropped, then `/` and `,` are trimmed.
    assert_eq!(mementomap_key("com,example)/"), "com,example)");
    assert_eq!(
        mementomap_key("com,example)/a/1.html"),
        "com,example)/a/1.html"
    );
    assert_eq!(
        mementomap_key("com,example)/a/2.html?x=1"),
        "com,example)/a/2.html"
    );
    assert_eq!(mementomap_key("com,example,docs)/"), "com,example,docs)");
}

/// Differences from the Python package that are accepted, with the reason. Every other input
/// must give the same key (or fail in both).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

#[test]
fn differential_against_python_surt() {
    let urls = generated_urls();
    assert!(urls.len() >= 300, "only {} urls", urls.len());
    let python = venv_python("surt");
    let script = r#"
import json, sys, surt
out = []
for url in json.load(sys.stdin):
    try:
        out.append(["ok", surt.surt(url)])
    except Exception as e:
        out.append(["err", type(e).__name__])
json.dump(out, sys.stdout)
"#;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_vec(&urls).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "python surt failed");
    let expected: Vec<(String, String)> = serde_json::from_slice(&output.stdout).unwrap();

    let mut mismatches = Vec::new();
    for (url, (kind, value)) in urls.iter().zip(&expected) {
        let ours = surt(url);
        let same = match (kind.as_str(), &ours) {
            ("ok", Ok(key)) => key == value,
            ("err", Err(_)) => true,
            _ => false,
        };
        let known = KNOWN_DIFFERENCES.iter().any(|(u, _)| u == url);
        if same == known {
            mismatches.push(format!(
                "{url:?}: python {kind} {value:?}, ours {ours:?}, known {known}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// About 300 URLs: every host with a plain path, then mixed combinations, then odd inputs.
fn generated_urls() -> Vec<String> {
    const SCHEMES: &[&str] = &["http://", "https://", "HTTP://", "ftp://", "Https://"];
    const HOSTS: &[&str] = &[
        "example.com",
        "WWW.Example.COM",
        "www.example.com",
        "www2.example.com",
        "www12.example.com",
        "www2foo.example.com",
        "wwwexample.com",
        "bücher.ch",
        "Bücher.CH",
        "faß.de",
        "ÖBB.at",
        "例え.テスト",
        "b%C3%BCcher.ch",
        "192.168.1.254",
        "3232235998",
        "0300.0250.01.0376",
        "0x7f.0.0.1",
        "127.1",
        "10.010.0.1",
        "1.2.3.999",
        "4294967297",
        "[::1]",
        "[2001:DB8::1]",
        "example.com.",
        ".example.com",
        "example..com",
        "user:pass@example.com",
        "user@www.example.com",
        "ex%61mple.com",
        "EXAMPLE.com:",
        "xn--bcher-kva.ch",
        "a.b.c.d.example.co.uk",
    ];
    const PORTS: &[&str] = &["", ":80", ":443", ":8080", ":0", ":"];
    const PATHS: &[&str] = &[
        "",
        "/",
        "/A/B/Index.HTML",
        "/a/./b/../c",
        "//double//slash/",
        "/%7Euser/%41",
        "/a%20b",
        "/a b",
        "/%2541",
        "/../up",
        "/dir/",
        "/x;jsessionid=abc",
        "/Wroc%C5%82aw",
        "/zażółć",
        "/(a(0123456789abcdefghijklmn))/page.aspx",
        "/(0123456789abcdefghijklmn)/Page.ASPX?x=1",
        "/a%2Fb",
        "/%",
        "/%zz",
        "/a/b/.",
        "/~tilde/\"quote\"/<angle>",
    ];
    const QUERIES: &[&str] = &[
        "",
        "?",
        "?b&a",
        "?a=2&b&a=1",
        "?B=2&a=1",
        "?q=a%20b",
        "?type=a+b+%26+c&grape=wine",
        "?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile",
        "?jsessionid=0123456789ABCDEFGHIJKLMNOPQRSTUV",
        "?x=1&sid=0123456789abcdefghijklmnopqrstuv",
        "?ASPSESSIONIDABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&y=2",
        "?cfid=1&cftoken=2&z=1",
        "?a=1&a=1&a",
        "?x=%E2%82%AC",
        "?a=&a",
        "?a-b&a=1",
        "?Q=Ü",
        "?&&",
    ];
    const FRAGMENTS: &[&str] = &["", "#Frag", "#a?b", "#"];

    let mut urls: Vec<String> = HOSTS.iter().map(|h| format!("http://{h}/")).collect();
    // A small linear congruential generator: deterministic, no dependency.
    let mut state: u64 = 0x5eed;
    let mut pick = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    };
    for _ in 0..240 {
        urls.push(format!(
            "{}{}{}{}{}{}",
            SCHEMES[pick(SCHEMES.len())],
            HOSTS[pick(HOSTS.len())],
            PORTS[pick(PORTS.len())],
            PATHS[pick(PATHS.len())],
            QUERIES[pick(QUERIES.len())],
            FRAGMENTS[pick(FRAGMENTS.len())],
        ));
    }
    urls.extend(
        [
            "dns:archive.org",
            "DNS:Archive.org",
            "mailto:Foo@Example.com",
            "urn:oai:Example.com:123?b&a",
            "warcinfo:/x.warc.gz",
            "filedesc:x",
            "example.com/path",
            "www.example.com",
            "WWW.EXAMPLE.COM/A?B",
            "  http://example.com/  ",
            "http://example.com/\tx\ny\r",
            "\u{b}http://example.com/\u{c}",
            "http://https://example.com/",
            "http://http://http://example.com/a",
            "http:////www.vikings.com/X",
            "HTTP:////foo/x",
            "http:///",
            "http://",
            "http://:80/x",
            "http://@/x",
            "localhost:8080/x",
            "//example.com/x",
            "/relative/path",
            "http://example.com:99999/",
            "http://example.com:8x/",
            "http://example.com:+80/",
            "http://[::1]:8080/x",
            "http://[fe80::1%25eth0]/",
            "http://a[b]c:81/",
            "   ",
            "http://example.com/?",
            "http://example.com?a",
            "http://example.com#frag",
            "http://exa mple.com/",
            "http://%zz.com/",
            "http://%ff.com/",
            "http://bü..ch/",
            "http://...example.com.../",
            "http://0/",
            "http://00/",
            "http://1.08/",
            "http://0300.0250.0x1.1/",
            "http://ex#ample.com/",
            "https://example.com:443",
            "http://example.com/a%00b",
            "http://example.com/%E2%82%AC?%E2%82%AC=%e2%82%ac",
            "http://Σίσυφος.gr/",
            "http://ς.gr/",
            "http://a\u{200d}b.com/",
            "http://ＥＸＡＭＰＬＥ.com/",
            "http://example。com/",
        ]
        .map(String::from),
    );
    urls
}

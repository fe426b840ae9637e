//! A file harvested in three versions: the TimeGate's closest memento, the first, last, prev and
//! next links of each memento, and the calendar of its captures, each against pywb's answers on
//! the same archive.

use std::collections::BTreeMap;
use std::time::Duration;

use integration_tests::process::{program, start_modoai};
use integration_tests::python::python;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::memento::mementos;
use super::{enc, get, harvest_into, work_dir, Explorer};

const VERSIONS: [&str; 3] = [
    "The chronicle, first edition: spring.\n",
    "The chronicle, second edition: summer, with a new chapter.\n",
    "The chronicle, third edition: autumn, the chapter rewritten and an index added.\n",
];

fn parse14(ts: &str) -> OffsetDateTime {
    let f = format_description!("[year][month][day][hour][minute][second]");
    PrimitiveDateTime::parse(ts, f).unwrap().assume_utc()
}

fn ts14(t: OffsetDateTime) -> String {
    let f = format_description!("[year][month][day][hour][minute][second]");
    t.format(f).unwrap()
}

/// The (URI-M timestamp, rels) of the memento links of a `Link` header.
fn memento_links(link: &str) -> BTreeMap<String, String> {
    link.split(", <")
        .filter(|l| l.contains("memento\""))
        .map(|l| {
            let uri = &l[..l.find('>').unwrap()];
            let ts = uri.split("/memento/").nth(1).unwrap()[..14].to_owned();
            let at = l.find("rel=\"").unwrap() + 5;
            (ts, l[at..at + l[at..].find('"').unwrap()].to_owned())
        })
        .collect()
}

/// The site's one file harvested three times, changed in between (each capture at least three
/// seconds after the one before, so no asked time lies half-way); the last harvest indexes.
fn harvest_three_versions(work: &std::path::Path) -> (std::path::PathBuf, String) {
    let site = work.join("site");
    std::fs::create_dir_all(site.join("notes")).unwrap();
    let (server, port) = start_modoai(&site, work, "", &[]);
    let archive = work.join("archive");
    let oai = format!("http://127.0.0.1:{port}/modoai");
    for (i, text) in VERSIONS.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(3_200));
        }
        std::fs::write(site.join("notes/chronicle.txt"), text).unwrap();
        let mut flags = vec!["--metadata-prefix", "oai_didl"];
        if i + 1 == VERSIONS.len() {
            flags.push("--index");
        }
        // The server sees the change (its watcher) before the harvest asks.
        let url = format!("http://127.0.0.1:{port}/notes/chronicle.txt");
        let started = std::time::Instant::now();
        while super::get(port, "/notes/chronicle.txt", &[]).bytes != text.as_bytes() {
            assert!(started.elapsed() < integration_tests::http::MARGIN, "{url}");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(1_100));
        let out = harvest_into(&program("modoai-harvester"), &oai, &archive, &flags);
        assert!(
            out.status.success(),
            "harvest {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    drop(server);
    (
        archive,
        format!("http://127.0.0.1:{port}/notes/chronicle.txt"),
    )
}

#[test]
fn three_versions_give_the_closest_memento_links_and_calendar_that_pywb_gives() {
    let work = work_dir("memento-versions");
    let (archive, url) = harvest_three_versions(&work);
    let e = Explorer::start(&[&archive], &work, "[access]\nanonymous-api = true\n");
    let tm = e.get_ready(&format!("/timemap/link/{url}"), None);
    assert_eq!(tm.status, 200, "{}", tm.body);
    let ours = mementos(&tm.body);
    let stamps: Vec<String> = ours
        .iter()
        .map(|m| m.0.split("/memento/").nth(1).unwrap()[..14].to_owned())
        .collect();
    let rels: Vec<&str> = ours.iter().map(|m| m.1.as_str()).collect();
    assert_eq!(
        rels,
        ["first memento", "memento", "last memento"],
        "{}",
        tm.body
    );
    let times: Vec<OffsetDateTime> = stamps.iter().map(|s| parse14(s)).collect();
    assert!(
        times
            .windows(2)
            .all(|w| w[1] - w[0] >= time::Duration::seconds(3)),
        "{stamps:?}"
    );

    // Times to ask: long before, at, just before and just after each capture, long after.
    let mut asked = vec![ts14(times[0] - time::Duration::days(1))];
    for t in &times {
        for d in [-1, 0, 1] {
            asked.push(ts14(*t + time::Duration::seconds(d)));
        }
    }
    asked.push(ts14(times[2] + time::Duration::days(1)));
    let mut args = vec![archive.to_str().unwrap(), url.as_str(), "--closest"];
    args.extend(asked.iter().map(String::as_str));
    let pywb = integration_tests::json(&python("pywb_memento.py", &args));
    let theirs = &pywb["urls"][url.as_str()];
    let list = |key: &str| -> Vec<String> {
        let values = theirs[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key}: {theirs}"));
        values
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(stamps, list("timemap"), "the TimeMap");
    assert_eq!(stamps, list("cdx"), "the CDX API");

    for ts in &asked {
        let expected = theirs["closest"][ts.as_str()].as_str().unwrap();
        let when = httpdate::fmt_http_date(parse14(ts).into());
        let gate = get(
            e.port,
            &format!("/timegate/{url}"),
            &[("Accept-Datetime", &when)],
        );
        assert_eq!(gate.status, 302, "{when}: {}", gate.body);
        let location = gate.header("location").unwrap();
        assert!(
            location.contains(&format!("/memento/{expected}/")),
            "TimeGate at {when}: {location}, pywb replays {expected}"
        );
        let m = e.get(&format!("/memento/{ts}/{url}"), None);
        if ts == expected {
            assert_eq!(m.status, 200, "{ts}");
        } else {
            assert_eq!(m.status, 302, "{ts}");
            assert!(m
                .header("location")
                .unwrap()
                .contains(&format!("/memento/{expected}/")));
        }
    }

    // Each memento: its own bytes, pywb's bytes, and links to first, last, prev and next.
    let bodies = &theirs["bodies"];
    for (i, ts) in stamps.iter().enumerate() {
        let m = e.get(&format!("/memento/{ts}/{url}"), None);
        assert_eq!(m.bytes, VERSIONS[i].as_bytes(), "version {i}");
        let sha1 = modoai_archive::warc::sha1_digest(&m.bytes);
        assert_eq!(
            Some(sha1.trim_start_matches("sha1:")),
            bodies[ts.as_str()].as_str()
        );
        let links = memento_links(m.header("link").unwrap());
        let has = |j: usize, rel: &str| {
            links
                .get(&stamps[j])
                .is_some_and(|r| r.split(' ').any(|x| x == rel))
        };
        assert!(has(0, "first") && has(2, "last"), "{i}: {links:?}");
        assert!(has(i, "memento"), "{i}: {links:?}");
        assert_eq!(i > 0 && has(i - 1, "prev"), i > 0, "{i}: {links:?}");
        assert_eq!(i < 2 && has(i + 1, "next"), i < 2, "{i}: {links:?}");
        let prevs = links.values().filter(|r| r.contains("prev")).count();
        let nexts = links.values().filter(|r| r.contains("next")).count();
        assert_eq!((prevs, nexts), (usize::from(i > 0), usize::from(i < 2)));
    }

    // pywb's comparison fails when pywb does not answer 200 (here: a URL it does not hold).
    let script = integration_tests::repo_root().join("tests/python/pywb_memento.py");
    let out = std::process::Command::new(integration_tests::python::venv_python())
        .arg(script)
        .args([archive.to_str().unwrap(), "http://nowhere.example/"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("pywb did not answer 200"), "{stderr}");

    // The calendar counts the captures pywb's CDX API lists, by year, month and day.
    let page = e
        .get_ready(
            &format!(
                "/api/v1/search?q={}&facets=year,month,day",
                enc("chronicle")
            ),
            None,
        )
        .json();
    for (facet, len) in [("year", 4), ("month", 6), ("day", 8)] {
        let mut expected: BTreeMap<String, u64> = BTreeMap::new();
        for ts in list("cdx") {
            let value = match len {
                4 => ts[..4].to_owned(),
                6 => format!("{}-{}", &ts[..4], &ts[4..6]),
                _ => format!("{}-{}-{}", &ts[..4], &ts[4..6], &ts[6..8]),
            };
            *expected.entry(value).or_default() += 1;
        }
        let counted: BTreeMap<String, u64> = page["facets"][facet]
            .as_array()
            .unwrap_or_else(|| panic!("{facet}: {page}"))
            .iter()
            .map(|v| {
                (
                    v["value"].as_str().unwrap().to_owned(),
                    v["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(counted, expected, "{facet}");
    }
}

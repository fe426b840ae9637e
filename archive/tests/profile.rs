//! MementoMap profiles against the reference tool (PyPI `mementomap` 0.1.0b2, installed by
//! `scripts/setup`): `generate` and `compact` must agree with it except for its known bugs
//! (docs/archivists.md, Formats: MementoMap); lookup is checked against a linear scan (the reference lookup is broken).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use modoai_archive::profile::{compact, generate, lookup, lookup_keys, CompactOptions, Header};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support::venv_python;

/// Runs the reference `mementomap` with `args`; returns its stdout.
fn reference(args: &[&str]) -> String {
    let python = venv_python("mementomap");
    let out = Command::new(&python)
        .args(["-m", "mementomap"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; run scripts/setup", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && !stdout.contains("usage:"),
        "mementomap {args:?} failed (is mementomap==0.1.0b2 in .venv? run scripts/setup):\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The data lines of a profile (header lines left out).
fn data(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('!'))
        .map(str::to_owned)
        .collect()
}

/// A sorted, normalised profile of a random site tree with `M` counts only (the reference reads
/// no `/R`): hosts under a few TLDs, subdomains, and path trees whose fan-out varies enough that
/// some sub-trees cross the cut-offs at the factors tried and others do not.
fn random_profile(seed: u64, hosts: usize) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut keys = BTreeMap::new();
    for h in 0..hosts {
        let tld = ["com", "org", "edu", "uk,co"][rng.random_range(0..4)];
        let mut host = format!("{tld},site{}", h % (hosts / 2 + 1));
        for s in 0..rng.random_range(0..3) {
            host.push_str(&format!(",s{s}"));
        }
        keys.insert(format!("{host})"), rng.random_range(1..50u64));
        let fanout = [1, 2, 4, 12, 30][rng.random_range(0..5)];
        for a in 0..fanout {
            let dir = format!("{host})/d{a}");
            keys.insert(dir.clone(), rng.random_range(1..50));
            for b in 0..rng.random_range(0..fanout.min(12)) {
                keys.insert(format!("{dir}/f{b}.html"), rng.random_range(1..9));
            }
        }
    }
    let mut out = String::new();
    for (k, v) in keys {
        out.push_str(&format!("{k} {v}\n"));
    }
    out
}

#[test]
fn compaction_agrees_with_the_reference_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut rollups = 0;
    for seed in 0..4 {
        let input = dir.path().join(format!("in{seed}"));
        // A header line: ours keeps it, the reference drops it (its `line[0] ==
        // b"!"` never matches in Python 3), so only data lines are compared.
        let text = format!(
            "!meta {{type: \"MementoMap\"}}\n{}",
            random_profile(seed, 60)
        );
        std::fs::write(&input, text).unwrap();
        for (hcf, pcf) in [
            (1.0, 1.0),
            (0.5, 0.5),
            (0.2, 0.1),
            (0.05, 0.05),
            (0.01, 1.0),
            (1.0, 0.01),
        ] {
            let ours = dir.path().join("ours");
            let theirs = dir.path().join("theirs");
            let stats = compact(
                &input,
                &ours,
                &CompactOptions::default().host_factor(hcf).path_factor(pcf),
            )
            .unwrap();
            let printed = reference(&[
                "compact",
                input.to_str().unwrap(),
                theirs.to_str().unwrap(),
                "--hcf",
                &hcf.to_string(),
                "--pcf",
                &pcf.to_string(),
            ]);
            assert_eq!(
                data(&ours),
                data(&theirs),
                "seed {seed}, hcf {hcf}, pcf {pcf}"
            );
            // Its counts: in-lines, out-lines, in-bytes, out-bytes, roll-ups. Out-lines differ by
            // the header line it drops.
            let f: Vec<u64> = printed
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(
                (f[0], f[1] + 1, f[4]),
                (stats.in_lines, stats.out_lines, stats.rollups),
                "{printed}"
            );
            assert!(std::fs::read_to_string(&ours).unwrap().starts_with("!meta"));
            rollups += stats.rollups;
        }
    }
    assert!(
        rollups > 20,
        "the inputs must exercise roll-ups, got {rollups}"
    );
}

#[test]
fn generation_agrees_with_the_reference_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    // A sorted CDXJ-like index: roots, paths, queries (dropped from keys), and lines that are no
    // URL SURT (skipped by both).
    let mut lines = Vec::new();
    for h in 0..40 {
        let host = format!("org,example{h})");
        for p in [
            "/",
            "/a",
            "/a/",
            "/a/b.html",
            "/a?x=1",
            "/a?x=2",
            "/c/d/e.pdf",
        ] {
            for t in 0..rng.random_range(0..4) {
                lines.push(format!("{host}{p} 2024010100000{t} {{\"url\": \"x\"}}"));
            }
        }
    }
    lines.push("filedesc:x.warc.gz 20240101000000 {}".into());
    lines.sort();
    let input = dir.path().join("index.cdxj");
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let ours = dir.path().join("ours");
    let theirs = dir.path().join("theirs");
    generate(&input, &ours, &Header::default()).unwrap();
    reference(&[
        "generate",
        input.to_str().unwrap(),
        theirs.to_str().unwrap(),
    ]);
    // The reference counts runs of consecutive lines, and CDXJ order interleaves `…/a ` and
    // `…/a/b `, `…/a?x`: it may write one key several times. Summed per key, the URI-M counts
    // must match ours, which are written once per key, in order.
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for line in data(&theirs) {
        let (k, n) = line.split_once(' ').unwrap();
        *expected.entry(k.to_owned()).or_default() += n.parse::<u64>().unwrap();
    }
    let ours_lines = data(&ours);
    let mut got = BTreeMap::new();
    for line in &ours_lines {
        let (k, f) = line.split_once(' ').unwrap();
        let (m, r) = f.split_once('/').unwrap();
        got.insert(k.to_owned(), m.parse::<u64>().unwrap());
        // URI-Rs: the distinct SURTs (query included) under the key.
        let distinct: std::collections::BTreeSet<&str> = lines
            .iter()
            .map(|l| l.split(' ').next().unwrap())
            .filter(|s| modoai_archive::surt::mementomap_key(s) == k)
            .collect();
        assert_eq!(r.parse::<usize>().unwrap(), distinct.len(), "{line}");
    }
    assert_eq!(got, expected);
    let mut sorted = ours_lines.clone();
    sorted.sort();
    sorted.dedup_by(|a, b| a.split(' ').next() == b.split(' ').next());
    assert_eq!(sorted, ours_lines, "sorted, one line per key");
}

#[test]
fn candidate_keys_agree_with_the_reference_and_lookup_with_a_linear_scan() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, random_profile(11, 80)).unwrap();
    let map = dir.path().join("map");
    compact(
        &input,
        &map,
        &CompactOptions::default().host_factor(0.2).path_factor(0.1),
    )
    .unwrap();
    let lines = data(&map);
    let mut uris: Vec<String> = Vec::new();
    for l in &lines {
        let key = l.split(' ').next().unwrap();
        let base = key.trim_end_matches("/*").trim_end_matches(",*");
        // A host wildcard's base (`uk,co`) is no SURT yet: a host under it is.
        let base = match base.contains(')') {
            true => base.to_owned(),
            false => format!("{base},www)"),
        };
        uris.push(base.clone());
        uris.push(format!("{base}/x/y.html?q=1"));
        uris.push(format!("{base}?q=2"));
    }
    uris.extend([
        "com,zzz)/".into(),
        "aaa,a)/".into(),
        "zz,zz)/a/b".into(),
        "com,cnn)/news/a/b/c".into(),
    ]);
    // The reference's own candidate keys for every URI.
    let script = "import sys\nfrom mementomap.cli import lookup_keys\nfor s in sys.stdin.read().split('\\n'):\n    print(' '.join(lookup_keys(s)))\n";
    let mut child = Command::new(venv_python("mementomap"))
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python; run scripts/setup");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(uris.join("\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let theirs: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(theirs.len(), uris.len());
    let mut hits = 0;
    for (uri, their_keys) in uris.iter().zip(theirs) {
        let keys = lookup_keys(uri);
        assert_eq!(keys.join(" "), their_keys, "{uri}");
        // The first candidate present in the file, found by scanning every line.
        let linear = keys.iter().enumerate().find_map(|(d, k)| {
            lines
                .iter()
                .find(|l| l.split(' ').next() == Some(k.as_str()))
                .map(|l| (l.clone(), d))
        });
        let found = lookup(&map, uri)
            .unwrap()
            .map(|h| (format!("{} {}", h.key, h.frequency), h.distance));
        assert_eq!(found, linear, "{uri}");
        hits += usize::from(found.is_some());
    }
    assert!(
        hits > uris.len() / 2 && hits < uris.len(),
        "{hits} of {}",
        uris.len()
    );
    // The first and the last line of the file are found too.
    for l in [lines.first().unwrap(), lines.last().unwrap()] {
        let key = l.split(' ').next().unwrap();
        assert_eq!(
            lookup(&map, key).unwrap().map(|h| h.key),
            Some(key.to_owned())
        );
    }
}

//! The docs point at things that exist: relative links and their `#anchors`, and the files that
//! docs/architecture.md names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use integration_tests::repo_root;

use super::{blocks, doc_files, read};

/// A heading's anchor as GitHub makes it: lower case, spaces to `-`, other punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text (headings outside fenced blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of `[text](target)` links.
fn links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            rest.find(')').map(|end| rest[..end].to_owned())
        })
        .collect()
}

#[test]
fn relative_links_and_anchors_resolve() {
    let root = repo_root();
    let mut broken = Vec::new();
    for doc in doc_files() {
        let text = read(&doc);
        let folder = Path::new(&doc)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path: PathBuf = if file.is_empty() {
                PathBuf::from(&doc)
            } else {
                folder.join(file)
            };
            if !root.join(&path).exists() {
                broken.push(format!("{doc}: {target} (no {})", path.display()));
            } else if !anchor.is_empty()
                && !anchors(&read(&path.to_string_lossy())).contains(anchor)
            {
                broken.push(format!("{doc}: {target} (no heading #{anchor})"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The top folders whose paths docs/architecture.md names in backticks.
const TOP: [&str; 12] = [
    "protocol/",
    "tools/",
    "gate/",
    "archive/",
    "server-module/",
    "harvester/",
    "explorer/",
    "tests/",
    "examples/",
    "bench/",
    "fuzz/",
    "schemas/",
];

/// Source folders where the bare `*.rs` names of the architecture diagrams live.
const SOURCES: [&str; 8] = [
    "cli/src",
    "tools/src",
    "gate/src",
    "archive/src",
    "server-module/src",
    "harvester/src",
    "explorer/src",
    "protocol/src",
];

/// Every file docs/architecture.md names exists: full paths in backticks, and the `dir/file.rs`
/// names of its diagrams under one of the crates' `src/`. No line is exempt.
#[test]
fn architecture_names_existing_files() {
    let root = repo_root();
    let text = read("docs/architecture.md");
    let mut missing = Vec::new();
    assert!(
        !text.contains("<!--check-->"),
        "docs/architecture.md: a line is still marked <!--check-->; check its paths and drop the marker"
    );
    for line in text.lines() {
        for (i, span) in line.split('`').enumerate() {
            let path = span.trim_end_matches('/');
            if i % 2 == 1 && TOP.iter().any(|t| span.starts_with(t)) && !root.join(path).exists() {
                missing.push(span.to_owned());
            }
        }
    }
    for (info, lines) in blocks(&text) {
        if info != "text" {
            continue;
        }
        for word in lines.iter().flat_map(|l| l.split([' ', ','])) {
            let word = word
                .trim_start_matches('(')
                .trim_end_matches(['.', ')', ';']);
            if !word.ends_with(".rs") || word.contains(['{', '}', '*']) {
                continue;
            }
            let found = if TOP.iter().any(|t| word.starts_with(t)) {
                root.join(word).is_file()
            } else {
                SOURCES.iter().any(|s| exists_under(&root.join(s), word))
            };
            if !found {
                missing.push(word.to_owned());
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names files that do not exist (update the doc):\n{}",
        missing.join("\n")
    );
}

/// `name` (such as `oai/handler.rs`) is `dir/name` or `dir/…/name`; a module's two layouts,
/// `x.rs` and `x/mod.rs`, count as one.
fn exists_under(dir: &Path, name: &str) -> bool {
    let other = match name.strip_suffix("/mod.rs") {
        Some(module) => format!("{module}.rs"),
        None => format!("{}/mod.rs", name.trim_end_matches(".rs")),
    };
    if dir.join(name).is_file() || dir.join(other).is_file() {
        return true;
    }
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .any(|e| exists_under(&e.path(), name))
}

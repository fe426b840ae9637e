//! Every shell command in the docs runs.
//!
//! The test reads the ```` ```sh ```` blocks of README.md, CONTRIBUTING.md and docs/*.md and
//! checks each command line against [`table::TABLE`], which says how it runs: for real against
//! the binaries ([`How::Run`]), as a server that must start and answer ([`How::Serve`]), by CI
//! ([`How::Ci`]), by another test ([`How::Peer`]), or, for `cargo` commands that build or run
//! the tests, checked for the packages, test binaries and modules they name ([`How::Cargo`]). A
//! command missing from the table, or an entry missing from the docs, fails the test. Synopses
//! and output go in ```` ```text ```` blocks, configuration in ```` ```toml ````.

mod exec;
mod links;
mod table;

use std::fs;
use std::path::PathBuf;

use integration_tests::repo_root;

use table::{How, Prepare, TABLE};

/// The docs whose ```` ```sh ```` blocks are read, relative to the repository root.
fn doc_files() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned(), "CONTRIBUTING.md".to_owned()];
    let mut more: Vec<String> = fs::read_dir(repo_root().join("docs"))
        .expect("docs/ exists")
        .map(|e| {
            e.expect("a docs/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    more.sort();
    docs.append(&mut more);
    docs
}

fn read(rel: &str) -> String {
    fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The fenced blocks of a Markdown text: (info string, lines).
fn blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), Vec::new())),
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some((_, lines)), None) => lines.push(trimmed.to_owned()),
            (None, None) => {}
        }
    }
    out
}

/// The commands of a block: comments and blank lines skipped, `\` continuations joined.
fn commands(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in lines {
        let line = line.trim();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        if !pending.is_empty() {
            pending.push(' ');
        }
        match line.strip_suffix('\\') {
            Some(part) => pending.push_str(part.trim_end()),
            None => out.push(std::mem::take(&mut pending) + line),
        }
    }
    out
}

/// Every command of the docs, with the doc it is in.
fn doc_commands() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for doc in doc_files() {
        for (info, lines) in blocks(&read(&doc)) {
            let lang = info.split_whitespace().next().unwrap_or("");
            assert!(
                !matches!(lang, "bash" | "shell" | "console" | "shell-session" | "zsh"),
                "{doc}: write commands in ```sh blocks (found ```{lang})"
            );
            if lang == "sh" {
                out.extend(commands(&lines).into_iter().map(|c| (doc.clone(), c)));
            }
        }
    }
    out
}

#[test]
fn every_documented_command_is_in_the_table() {
    let missing: Vec<String> = doc_commands()
        .into_iter()
        .filter(|(_, cmd)| !TABLE.iter().any(|e| e.command == cmd))
        .map(|(doc, cmd)| format!("{doc}: {cmd}"))
        .collect();
    assert!(
        missing.is_empty(),
        "commands in the docs that tests/docs/table.rs does not run:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_table_entry_is_in_the_docs() {
    let documented: Vec<String> = doc_commands().into_iter().map(|(_, c)| c).collect();
    let stale: Vec<&str> = TABLE
        .iter()
        .map(|e| e.command)
        .filter(|c| !documented.iter().any(|d| d == c))
        .collect();
    assert!(
        stale.is_empty(),
        "entries of tests/docs/table.rs that no doc has:\n{}",
        stale.join("\n")
    );
}

/// A `scripts/…` command is run by CI when `scripts/test` calls its script (or it is
/// `scripts/test`, which `.ci/run` calls); any other CI command is a line of `scripts/test`.
fn assert_run_by_ci(command: &str) {
    let test = read("scripts/test");
    let Some(script) = command.strip_prefix("scripts/") else {
        assert!(
            test.lines().any(|l| step_command(l.trim()) == command),
            "scripts/test does not run `{command}`"
        );
        return;
    };
    let script = format!("scripts/{}", script.split_whitespace().next().unwrap_or(""));
    assert!(
        repo_root().join(&script).is_file(),
        "{script} does not exist"
    );
    let (caller, text) = if script == "scripts/test" {
        (".ci/run", read(".ci/run"))
    } else {
        ("scripts/test", test)
    };
    let called = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| l.split_whitespace().any(|w| w == script));
    assert!(called, "{caller} does not call {script} (`{command}`)");
}

/// A line of `scripts/test` without its timing wrapper: `step NAME COMMAND…` runs `COMMAND…`.
fn step_command(line: &str) -> &str {
    match line.strip_prefix("step ") {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, command)| command),
        None => line,
    }
}

#[test]
fn ci_commands_are_run_by_ci() {
    for entry in TABLE {
        match entry.how {
            How::Ci => assert_run_by_ci(entry.command),
            How::Serve { .. } => {
                let parts: Vec<&str> = entry.command.split(" && ").collect();
                for part in &parts[..parts.len() - 1] {
                    assert!(
                        part.starts_with("scripts/"),
                        "only scripts/ may precede a server"
                    );
                    assert_run_by_ci(part);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn peer_commands_are_run_by_their_test() {
    for entry in TABLE {
        if let How::Peer {
            script,
            words,
            runner,
        } = entry.how
        {
            let text = read(script);
            for word in words {
                assert!(text.contains(word), "{script} never uses {word}");
            }
            let name = PathBuf::from(script);
            let stem = name.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            assert!(
                read(runner).contains(stem),
                "{runner} does not run {script}"
            );
        }
    }
}

/// The packages of the workspace as `cargo metadata` describes them.
fn workspace_packages() -> Vec<serde_json::Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(repo_root())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed");
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    metadata["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .clone()
}

/// The targets of `package` of the given kind (`test`, `lib`, …), as (name, source path).
fn targets(package: &serde_json::Value, kind: &str) -> Vec<(String, String)> {
    package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == kind))
        })
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_owned(),
                t["src_path"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn cargo_commands_name_real_packages_tests_and_modules() {
    let packages = workspace_packages();
    for entry in TABLE {
        let How::Cargo = entry.how else {
            continue;
        };
        // Environment assignments before the command (`NAME=value cargo …`) are not words of it.
        let words: Vec<&str> = entry
            .command
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        assert!(
            words[0] == "cargo",
            "`{}` is not a cargo command",
            entry.command
        );
        let Some(at) = words.iter().position(|w| *w == "-p") else {
            continue;
        };
        let name = words[at + 1];
        let package = packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("`{}`: no workspace package {name}", entry.command));
        if words.contains(&"--lib") {
            assert!(
                !targets(package, "lib").is_empty(),
                "`{}`: {name} has no library",
                entry.command
            );
        }
        let Some(at) = words.iter().position(|w| *w == "--test") else {
            continue;
        };
        let test = words[at + 1];
        let (_, source) = targets(package, "test")
            .into_iter()
            .find(|(t, _)| t == test)
            .unwrap_or_else(|| panic!("`{}`: {name} has no test {test}", entry.command));
        if let Some(filter) = words.get(at + 2).filter(|w| !w.starts_with('-')) {
            let text = fs::read_to_string(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
            assert!(
                text.lines().any(|l| l.trim() == format!("mod {filter};")),
                "`{}`: {source} declares no module {filter}",
                entry.command
            );
        }
    }
}

#[test]
fn servers_start_and_answer() {
    let dir = exec::work_dir();
    for entry in TABLE {
        if let How::Serve { probe, expect } = entry.how {
            let server_part = entry.command.rsplit(" && ").next().unwrap_or(entry.command);
            let server = exec::Server::start(dir.path(), server_part);
            let body = server.probe(probe);
            assert!(
                body.contains(expect),
                "`{}`: GET {probe} lacks {expect:?}:\n{body}",
                entry.command
            );
            let status = server.stop();
            assert!(status.success(), "`{}` ended with {status}", entry.command);
        }
    }
}

#[test]
fn commands_run_against_the_example_site() {
    let dir = exec::work_dir();
    let server = exec::Server::start(
        dir.path(),
        // The README's first command (without `scripts/setup`, which CI runs): its plugins make
        // the `oai_crate` records the walkthrough harvests.
        "cargo run -p modoai -- serve --root examples/site --listen 127.0.0.1:8080 --plugins plugins.toml",
    );
    server.probe("/modoai?verb=Identify");
    let mut s3 = None;
    for entry in TABLE {
        let How::Run {
            codes,
            expect,
            prepare,
        } = entry.how
        else {
            continue;
        };
        let mut command = exec::rewrite(entry.command, server.address());
        match prepare {
            Prepare::Nothing => {}
            Prepare::TomlBlock { doc, marker, file } => {
                let (_, lines) = blocks(&read(doc))
                    .into_iter()
                    .find(|(info, lines)| info == "toml" && lines.iter().any(|l| l == marker))
                    .unwrap_or_else(|| panic!("{doc} has no ```toml block with {marker}"));
                let toml = lines.join("\n").replace("127.0.0.1:8080", server.address());
                fs::write(dir.path().join(file), toml).expect("write the TOML block");
            }
            Prepare::Pwid {
                archive,
                url_suffix,
            } => command = with_real_pwid(&command, dir.path(), archive, url_suffix),
            Prepare::S3 => {
                let s3 =
                    s3.get_or_insert_with(|| integration_tests::s3::S3Server::start("archives"));
                command = command.replace("http://127.0.0.1:9000", &s3.endpoint);
            }
        }
        let output = exec::shell(dir.path(), &command);
        let text =
            String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
        let code = output.status.code().unwrap_or(-1);
        assert!(
            codes.contains(&code),
            "`{}` exited {code}, expected {codes:?}:\n{text}",
            entry.command
        );
        assert!(
            text.contains(expect),
            "`{}` printed no {expect:?}:\n{text}",
            entry.command
        );
    }
    assert!(
        server.stop().success(),
        "the fixture server did not stop cleanly"
    );
}

/// `command` with its quoted example PWID replaced by the PWID the archive gave the part whose
/// URL ends with `url_suffix`.
fn with_real_pwid(command: &str, dir: &std::path::Path, archive: &str, url_suffix: &str) -> String {
    let parts = exec::rewrite(
        &format!("cargo run -p modoai-harvester -- inspect archive {archive} --parts"),
        "",
    );
    let listing = String::from_utf8_lossy(&exec::shell(dir, &parts).stdout).into_owned();
    let pwid = listing
        .split_whitespace()
        .find(|w| w.starts_with("urn:pwid:") && w.ends_with(url_suffix))
        .unwrap_or_else(|| panic!("no part ends with {url_suffix}:\n{listing}"));
    let start = command
        .find("'urn:pwid:")
        .expect("the command quotes a PWID");
    let end = start + 1 + command[start + 1..].find('\'').expect("a closing quote");
    format!("{}'{pwid}'{}", &command[..start], &command[end + 1..])
}

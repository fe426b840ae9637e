//! What `modoai` tells its user about itself: each command's `--help` (defaults, examples, exit
//! codes), the exit codes README.md and docs/webmasters.md list against `--help` and against
//! what commands really exit with, shell completions, manual pages and `plugins check --json`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use integration_tests::manual::{
    assert_bash_completes, assert_man_page_renders, doc_exit_codes, help_exit_codes,
};
use integration_tests::process::{self, program};
use integration_tests::repo_root;

/// Every command of `modoai`, as the words after the program name.
const COMMANDS: [&[&str]; 8] = [
    &["serve"],
    &["records"],
    &["plugins"],
    &["plugins", "check"],
    &["plugins", "explain"],
    &["hash-secret"],
    &["completions"],
    &["man"],
];

fn modoai(args: &[&str]) -> Output {
    process::modoai()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the modoai binary starts")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A plugins file in `dir` with one built-in plugin (healthy) or one whose program is not
/// installed (missing).
fn plugins_file(dir: &Path, healthy: bool) -> std::path::PathBuf {
    let file = dir.join(if healthy { "ok.toml" } else { "broken.toml" });
    let plugin = if healthy {
        "[[plugin]]\nlabel = \"md5\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n"
    } else {
        "[[plugin]]\nlabel = \"gone\"\nmime = \"*/*\"\ncommand = [\"modoai-no-such-tool\", \"{path}\"]\nversion-command = [\"modoai-no-such-tool\", \"--version\"]\n"
    };
    std::fs::write(&file, plugin).unwrap();
    file
}

#[test]
fn every_command_help_shows_examples_and_its_exit_codes() {
    let policy = help_exit_codes(&stdout(&modoai(&["--help"])));
    for words in COMMANDS {
        let mut args = words.to_vec();
        args.push("--help");
        let help = stdout(&modoai(&args));
        let name = words.join(" ");
        if words != ["plugins"] {
            assert!(
                help.contains("Examples:") || help.contains("Install"),
                "{name}:\n{help}"
            );
            for code in help_exit_codes(&help) {
                assert!(
                    policy.contains(&code),
                    "{name} lists {code}, not in the policy"
                );
            }
        }
        assert!(
            help.contains("modoai --help"),
            "{name} does not point to the policy:\n{help}"
        );
        // Its examples run this command, not another.
        for line in help
            .lines()
            .filter(|l| l.trim_start().starts_with("modoai "))
        {
            assert!(
                line.contains(&format!("modoai {}", words[0])),
                "{name}: {line}"
            );
        }
    }
    let serve = stdout(&modoai(&["serve", "--help"]));
    for default in [
        "[default: 127.0.0.1:8080",
        "[default: 100,",
        "[default: 50000000,",
        "[default: 7340032",
        "[default: /modoai,",
        "[default: 300,",
        "[default: random per process",
    ] {
        assert!(
            serve.contains(default),
            "{default} missing from serve --help:\n{serve}"
        );
    }
    let check = stdout(&modoai(&["plugins", "check", "--help"]));
    assert!(check.contains("[default: plugins.toml]"), "{check}");
}

#[test]
fn the_exit_codes_of_the_docs_are_those_of_help() {
    let help = help_exit_codes(&stdout(&modoai(&["--help"])));
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert_eq!(
        doc_exit_codes(&readme, "Exit codes", "`modoai`"),
        help,
        "README.md"
    );
    let guide = std::fs::read_to_string(repo_root().join("docs/webmasters.md")).unwrap();
    assert_eq!(
        doc_exit_codes(&guide, "Exit codes of `modoai`", "code"),
        help,
        "docs/webmasters.md"
    );
}

#[test]
fn a_command_exits_with_each_listed_code() {
    let dir = tempfile::tempdir().unwrap();
    for code in help_exit_codes(&stdout(&modoai(&["--help"]))) {
        let outputs = match code {
            0 => vec![
                hash_secret("a password"),
                modoai(&[
                    "plugins",
                    "check",
                    "--plugins",
                    path(&plugins_file(dir.path(), true)),
                ]),
            ],
            1 => {
                let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let addr = taken.local_addr().unwrap().to_string();
                vec![modoai(&["serve", "--root", ".", "--listen", &addr])]
            }
            2 => {
                let config = dir.path().join("modoai.toml");
                std::fs::write(&config, "[oai]\npage-sise = 3\n").unwrap();
                let config = path(&config);
                vec![
                    modoai(&[
                        "serve",
                        "--root",
                        ".",
                        "--listen",
                        "127.0.0.1:0",
                        "--config",
                        config,
                    ]),
                    modoai(&["serve", "--no-such-flag"]),
                    hash_secret(""),
                    modoai(&["man", "no-such-command"]),
                ]
            }
            3 => vec![modoai(&[
                "plugins",
                "check",
                "--plugins",
                path(&plugins_file(dir.path(), false)),
            ])],
            other => panic!("--help lists exit code {other}, and no command here produces it"),
        };
        for out in outputs {
            assert_eq!(
                out.status.code(),
                Some(code),
                "stdout:\n{}\nstderr:\n{}",
                stdout(&out),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `modoai hash-secret` with `secret` on stdin.
fn hash_secret(secret: &str) -> Output {
    let mut child = Command::new(program("modoai"))
        .arg("hash-secret")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{secret}").unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn completions_load_in_bash_and_exist_for_every_shell() {
    assert_bash_completes(&program("modoai"), "modoai", "pl", "plugins");
    for (shell, marker) in [
        ("zsh", "#compdef modoai"),
        ("fish", "complete -c modoai"),
        ("elvish", "edit:completion:arg-completer[modoai]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = modoai(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}:\n{script}");
        assert!(script.contains("base-url"), "{shell} lacks serve's flags");
    }
    assert_eq!(modoai(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn every_command_has_a_manual_page_that_renders() {
    let top = modoai(&["man"]);
    assert!(top.status.success());
    assert_man_page_renders(&top.stdout, "modoai");
    assert!(
        stdout(&top).contains("modoai\\-serve(1)"),
        "the top page lists the others"
    );
    for words in COMMANDS {
        let mut args = vec!["man"];
        args.extend_from_slice(words);
        let out = modoai(&args);
        assert!(out.status.success(), "{args:?}");
        assert_man_page_renders(&out.stdout, &format!("modoai-{}", words.join("-")));
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("man1");
    let out = modoai(&["man", "--out-dir", path(&folder)]);
    assert!(out.status.success());
    let mut written: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = COMMANDS
        .iter()
        .map(|w| format!("modoai-{}.1", w.join("-")))
        .chain(["modoai.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(
        stdout(&out).lines().count(),
        expected.len(),
        "one path printed per page"
    );
}

#[test]
fn plugins_check_json_gives_each_plugin_and_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plugins.toml");
    std::fs::write(
        &file,
        "[[plugin]]\nlabel = \"md5\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n\n\
         [[plugin]]\nlabel = \"file\"\nmime = \"*/*\"\ncommand = [\"file\", \"--brief\", \"{path}\"]\nversion-command = [\"file\", \"--version\"]\n\n\
         [[plugin]]\nlabel = \"gone\"\nmime = \"image/*\"\ncommand = [\"modoai-no-such-tool\", \"{path}\"]\nversion-command = [\"modoai-no-such-tool\", \"--version\"]\n",
    )
    .unwrap();
    let out = modoai(&["plugins", "check", "--json", "--plugins", path(&file)]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    assert_eq!(report["healthy"], false);
    assert_eq!(report["plugins_file"], path(&file));
    let plugins = report["plugins"].as_array().unwrap();
    let ids: Vec<&str> = plugins.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["md5", "file", "gone"]);
    let [md5, file, gone] = [&plugins[0], &plugins[1], &plugins[2]];
    assert_eq!(md5["status"], "ok");
    assert_eq!(
        md5["program"],
        serde_json::Value::Null,
        "a built-in has no program"
    );
    assert_eq!(file["status"], "ok");
    assert!(
        file["program"].as_str().unwrap().ends_with("/file"),
        "{file}"
    );
    assert!(
        file["version"].as_str().unwrap().contains("file-"),
        "{file}"
    );
    assert_eq!(file["line"], 6);
    assert_eq!(gone["status"], "missing");
    assert_eq!(gone["version"], serde_json::Value::Null);
    assert!(
        gone["message"]
            .as_str()
            .unwrap()
            .contains("modoai-no-such-tool is not on PATH"),
        "{gone}"
    );
}

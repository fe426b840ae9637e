//! The `modoai` command line: start-up output, configuration errors, help, exit codes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Output, Stdio};

use integration_tests::http::get_when_ready;
use integration_tests::process::{modoai, signal};
use rustix::process::Signal;

/// `modoai plugins check --plugins FILE`, run to its end.
fn plugins_check(plugins: &Path) -> Output {
    modoai()
        .args(["plugins", "check", "--plugins"])
        .arg(plugins)
        .output()
        .unwrap()
}

#[test]
fn serve_prints_the_urls_to_open_and_stops_on_sigterm() {
    // Run as the README says: from the repository root, with a relative --root.
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let site = "examples/site";
    let plugins = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins.toml");
    let cache = tempfile::tempdir().unwrap();
    let plugins_copy = cache.path().join("plugins.toml");
    std::fs::copy(plugins, &plugins_copy).unwrap();
    let mut child = modoai()
        .current_dir(repo)
        .args([
            "serve",
            "--root",
            site,
            "--listen",
            "127.0.0.1:0",
            "--plugins",
        ])
        .arg(&plugins_copy)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    assert!(
        first.starts_with("modoai is serving") && first.contains("http://127.0.0.1:"),
        "{first}"
    );
    assert!(
        second.starts_with("OAI-PMH base URL: http://127.0.0.1:")
            && second.contains("/modoai?verb=Identify"),
        "{second}"
    );
    // The README's command: with --plugins, oai_crate is offered.
    let base = second.trim_start_matches("OAI-PMH base URL: http://127.0.0.1:");
    let port: u16 = base.split('/').next().unwrap().parse().unwrap();
    let formats = get_when_ready(port, "/modoai?verb=ListMetadataFormats");
    assert!(
        formats.contains("<metadataPrefix>oai_crate</metadataPrefix>"),
        "{formats}"
    );
    // The tools see the file although the root was given relative to the working directory.
    let record = get_when_ready(
        port,
        &format!("/modoai?verb=GetRecord&metadataPrefix=oai_crate&identifier=http://127.0.0.1:{port}/about.html"),
    );
    let file_tool = record
        .split("<crate:plugin ")
        .find(|p| p.contains(r#"label="file""#))
        .expect("the file plugin ran");
    assert!(file_tool.contains(r#"status="ok""#), "{file_tool}");
    assert!(file_tool.contains("HTML document"), "{file_tool}");
    signal(child.id(), Signal::TERM);
    let status = child.wait().unwrap();
    assert!(status.success(), "SIGTERM is a clean shutdown: {status}");
}

/// Runs `modoai serve ARGS` on a free port, expects exit code 2 (bad usage or configuration:
/// nothing was done), returns what it printed on stderr.
fn refused(args: &[&std::ffi::OsStr]) -> String {
    let out = modoai()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn configuration_errors_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("modoai.toml");
    std::fs::write(&file, "[oai]\npage-size = 10\npage-sise = 3\n").unwrap();
    let err = refused(&[
        "--root".as_ref(),
        ".".as_ref(),
        "--config".as_ref(),
        file.as_os_str(),
    ]);
    assert!(
        err.contains("modoai.toml") && err.contains("line 3") && err.contains("page-sise"),
        "{err}"
    );
    let err = refused(&[
        "--root".as_ref(),
        ".".as_ref(),
        "--admin-email".as_ref(),
        "root@localhost".as_ref(),
    ]);
    assert!(err.contains("admin e-mail"), "{err}");
    let err = refused(&["--root".as_ref(), "/no/such/dir".as_ref()]);
    assert!(err.contains("/no/such/dir"), "{err}");
}

#[test]
fn help_lists_the_flags() {
    let out = modoai().args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--root",
        "--listen",
        "--base-url",
        "--config",
        "--page-size",
        "--page-bytes",
        "--inline-max",
        "--route",
        "--token-secret",
        "--no-watch",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn plugins_check_and_explain() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins.toml");
    // The default, with its switched-off FIDO entry switched on as its comment says: every "# "
    // removed from the lines of the commented [[plugin]].
    let default = std::fs::read_to_string(format!("{root}/plugins.toml")).unwrap();
    let mut in_fido = false;
    let with_fido: String = default
        .lines()
        .map(|line| {
            in_fido = line == "# [[plugin]]" || (in_fido && line.starts_with("# "));
            format!("{}\n", if in_fido { &line[2..] } else { line })
        })
        .collect();
    std::fs::write(&plugins, with_fido).unwrap();
    let out = plugins_check(&plugins);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "every default tool is installed (scripts/setup):\n{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for label in [
        "file",
        "md5",
        "jhove",
        "exiftool",
        "siegfried",
        "fido",
        "pdfinfo",
        "mediainfo",
    ] {
        assert!(
            report.contains(&format!("\n{label} "))
                || report.contains(&format!("){label} "))
                || report.lines().any(|l| l.starts_with(label)),
            "{label} missing from:\n{report}"
        );
    }
    let jpeg = format!("{root}/tests/fixtures/crate-site/photo.jpg");
    let out = modoai()
        .args(["plugins", "explain", &jpeg, "--plugins"])
        .arg(&plugins)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("type image/jpeg"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("yes") && l.contains("jhove") && l.contains("JPEG-hul")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("no") && l.contains("pdfinfo")),
        "{text}"
    );
    // Siegfried's version names its engine and signature files, in both reports.
    for (what, text) in [("check", report.as_ref()), ("explain", text.as_ref())] {
        assert!(
            text.contains("siegfried 1.") && text.contains("DROID_SignatureFile_V"),
            "{what}: {text}"
        );
    }

    std::fs::write(
        &plugins,
        "[[plugin]]\nlabel = \"x\"\nmime = \"image/jp*g\"\nbuiltin = \"md5\"\n",
    )
    .unwrap();
    let out = plugins_check(&plugins);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bad plugins file: nothing was done"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("plugins.toml:3: mime"), "{err}");

    std::fs::write(
        &plugins,
        "[[plugin]]\nlabel = \"gone\"\nmime = \"*/*\"\ncommand = [\"modoai-no-such-tool\", \"{path}\"]\nversion-command = [\"modoai-no-such-tool\", \"--version\"]\n",
    )
    .unwrap();
    let out = plugins_check(&plugins);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "checked, with problems:\n{report}"
    );
    assert!(report.contains("gone"), "{report}");
}

#[test]
fn exit_codes_follow_one_policy() {
    let help = modoai().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for code in [
        "0  done",
        "1  the command ran but failed",
        "2  bad usage",
        "3  done, with problems",
    ] {
        assert!(help.contains(code), "{code:?} missing from --help:\n{help}");
    }
    // A run-time failure: the address is in use.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = modoai()
        .args(["serve", "--root", ".", "--listen", &addr])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    // Bad arguments: clap's own usage errors and ours are both 2.
    let out = modoai().args(["serve", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = refused(&[
        "--root".as_ref(),
        ".".as_ref(),
        "--page-size".as_ref(),
        "0".as_ref(),
    ]);
    assert!(err.contains("page-size must be at least 1"), "{err}");
}

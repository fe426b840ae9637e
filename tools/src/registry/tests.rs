use super::*;

fn load(text: &str) -> Result<Registry, PluginsError> {
    Registry::from_text(Path::new("/etc/modoai/plugins.toml"), text)
}

fn error(text: &str) -> String {
    load(text).expect_err(text).to_string()
}

#[test]
fn patterns() {
    assert_eq!(MimePattern::parse("*/*"), Some(MimePattern::Any));
    assert!(MimePattern::parse("image/*").unwrap().matches("image/jpeg"));
    assert!(!MimePattern::parse("image/*")
        .unwrap()
        .matches("imagex/jpeg"));
    assert!(MimePattern::parse("image/svg+xml")
        .unwrap()
        .matches("image/svg+xml"));
    for bad in [
        "image",
        "*/jpeg",
        "image/jp*g",
        "Image/JPEG",
        "",
        "image/",
        "a/b/c",
    ] {
        assert_eq!(MimePattern::parse(bad), None, "{bad}");
    }
}

#[test]
fn a_valid_file() {
    let r = load(
        r#"
[settings]
max-processes = 3
cache-dir = "cache"

[[plugin]]
label = "md5"
builtin = "md5"
mime = "*/*"

[[plugin]]
label = "jhove"
mime = ["image/jpeg"]
command = ["jhove", "-h", "xml", "-m", "JPEG-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"

[[plugin]]
label = "jhove"
mime = ["application/pdf"]
command = ["jhove", "-h", "xml", "-m", "PDF-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
"#,
    )
    .unwrap();
    assert_eq!(r.max_processes, 3);
    assert_eq!(r.cache_dir, Path::new("/etc/modoai/cache"));
    assert_eq!(r.plugins.len(), 3);
    assert_eq!(r.plugins[0].kind, Kind::Builtin(Digest::Md5));
    assert_eq!(r.plugins[1].output, OutputKind::Xml);
    assert_eq!(r.plugins[1].line, 11, "the line of its [[plugin]] header");
    assert_eq!(
        r.plugins[2].command_line(),
        "jhove -h xml -m PDF-hul {paths}"
    );
}

#[test]
fn errors_name_file_line_and_key() {
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"image/jp*g\"\nbuiltin = \"md5\"\n");
    assert_eq!(e, "/etc/modoai/plugins.toml:3: mime: \"image/jp*g\" is not */*, TYPE/* or TYPE/SUBTYPE (lower case)");
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\ncommand = [\"file\", \"-b\"]\nversion-command = [\"file\", \"-v\"]\n");
    assert!(
        e.starts_with("/etc/modoai/plugins.toml:4: command: needs the placeholder {path}"),
        "{e}"
    );
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\ncommand = [\"file\", \"{path}\"]\n");
    assert!(e.contains(":2: version-command"), "{e}");
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\nbuiltin = \"md5\"\ncolour = 1\n");
    assert!(e.contains("line 5") && e.contains("colour"), "{e}");
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\nbuiltin = \"crc\"\n");
    assert!(e.contains(":4: builtin"), "{e}");
    let e = error("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\ncommand = [\"fido\", \"{path}\"]\nversion-command = [\"fido\", \"-v\"]\nrunner = \"fido-batch\"\n");
    assert!(e.contains("{paths}"), "{e}");
    let e = error("[settings]\nmax-processes = 0\n");
    assert!(e.contains(":2: max-processes"), "{e}");
    let e = error("[settings]\nmax-output-bytes = 0\n");
    assert!(
        e.contains(":2: max-output-bytes: must be at least 1"),
        "{e}"
    );
    for key in ["max-input-bytes", "max-output-bytes", "timeout-secs"] {
        let e = error(&format!(
            "[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n{key} = 0\n"
        ));
        assert!(e.contains(&format!(":5: {key}: must be at least 1")), "{e}");
    }
    let e = error("[[plugin]]\nlabel = \"x y\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n");
    assert!(e.contains(":2: label"), "{e}");
}

#[test]
fn missing_programs_are_kept_and_marked() {
    let r = load("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\ncommand = [\"no-such-tool-modoai\", \"{path}\"]\nversion-command = [\"no-such-tool-modoai\", \"-v\"]\n").unwrap();
    assert_eq!(r.plugins[0].program, None);
    assert!(find_program("sh").is_some());
    assert!(
        !r.plugins[0].opens_staged_files(),
        "a missing tool opens no file"
    );
    let r = load("[[plugin]]\nlabel = \"x\"\nmime = \"*/*\"\ncommand = [\"sh\", \"{path}\"]\nversion-command = [\"sh\", \"-c\", \"echo 1\"]\n\n[[plugin]]\nlabel = \"md5\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n").unwrap();
    assert!(r.plugins[0].opens_staged_files());
    assert!(
        !r.plugins[1].opens_staged_files(),
        "a digest reads the file itself"
    );
}

/// The repository's `plugins.toml` with its switched-off FIDO entry switched on, as its comment
/// tells an administrator to: every `# ` removed from the lines of the commented `[[plugin]]`.
pub(crate) fn default_with_fido() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins.toml"))
        .expect("the repository's plugins.toml");
    let mut out = String::new();
    let mut in_entry = false;
    for line in text.lines() {
        in_entry = line == "# [[plugin]]" || (in_entry && line.starts_with("# "));
        out.push_str(if in_entry { &line[2..] } else { line });
        out.push('\n');
    }
    out
}

#[test]
fn the_default_identifies_with_siegfried_and_fido_can_be_switched_on() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins.toml"));
    let default = Registry::load(path).unwrap();
    let runners: Vec<&str> = default.plugins.iter().map(|p| p.kind.runner()).collect();
    assert!(runners.contains(&"siegfried"), "{runners:?}");
    assert!(!runners.contains(&"fido-batch"), "{runners:?}");
    let both = Registry::from_text(path, &default_with_fido()).unwrap();
    assert_eq!(both.plugins.len(), default.plugins.len() + 1);
    let fido = both.plugins.iter().find(|p| p.label == "fido").unwrap();
    assert_eq!(fido.kind.runner(), "fido-batch");
    assert_eq!(fido.command_line(), "fido -q {paths}");
}

//! What a user reads about a program besides its output: the exit codes its `--help` and the
//! docs' tables list, its shell completions as bash loads them, and its manual pages as groff
//! and man render them.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::process::require_tool;

/// The codes of the `Exit codes:` block of a `--help` text: the lines that start with a number
/// after the block's heading, up to the first line that is neither such a line nor indented
/// continuation text.
pub fn help_exit_codes(help: &str) -> Vec<i32> {
    let mut lines = help.lines().skip_while(|l| !l.starts_with("Exit codes"));
    assert!(lines.next().is_some(), "no `Exit codes` block in:\n{help}");
    let mut codes = Vec::new();
    for line in lines {
        let trimmed = line.trim_start();
        let number: String = trimmed.chars().take_while(char::is_ascii_digit).collect();
        match number.parse() {
            Ok(code) if line.starts_with(' ') => codes.push(code),
            _ if line.starts_with("    ") => {} // a continuation of the previous code's text
            _ => break,
        }
    }
    codes
}

/// The codes listed in `column` of the first table under the heading `heading` of a Markdown
/// text: the first cell of each row whose cell in `column` is not empty or a dash.
pub fn doc_exit_codes(markdown: &str, heading: &str, column: &str) -> Vec<i32> {
    let section = markdown
        .split("\n#")
        .find(|s| s.trim_start_matches('#').trim_start().starts_with(heading))
        .unwrap_or_else(|| panic!("no heading {heading:?}"));
    let rows: Vec<Vec<&str>> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    let header = rows
        .first()
        .unwrap_or_else(|| panic!("no table under {heading:?}"));
    let at = header
        .iter()
        .position(|c| *c == column)
        .unwrap_or_else(|| panic!("the table under {heading:?} has no column {column}"));
    rows.iter()
        .skip(2)
        .filter(|r| {
            r.get(at)
                .is_some_and(|c| !c.is_empty() && *c != "–" && *c != "-")
        })
        .map(|r| {
            r[0].parse()
                .unwrap_or_else(|_| panic!("{:?} is no exit code", r[0]))
        })
        .collect()
}

/// `program ARGS`, run to its end with stdin closed.
pub fn run(program: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{} does not start: {e}", program.display()))
}

/// `program completions bash`, loaded into bash: `complete -p name` shows its function, and
/// completing `name PREFIX` offers `expected` (a command whose name starts with PREFIX).
pub fn assert_bash_completes(program: &Path, name: &str, prefix: &str, expected: &str) {
    let out = run(program, &["completions", "bash"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let script = dir.path().join(name);
    std::fs::write(&script, &out.stdout).expect("write the script");
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    // What bash does on TAB: the completion function with the words so far. The function is
    // named after the program, with `-` as `__`, as clap_complete writes it.
    let function = format!("_{}", name.replace('-', "__"));
    let session = format!(
        "source \"$1\" && complete -p {name} && COMP_WORDS=({name} {prefix}) && COMP_CWORD=1 && \
         COMP_LINE='{name} {prefix}' && COMP_POINT=${{#COMP_LINE}} && {function} {name} {prefix} {name} && \
         printf 'offered %s\\n' \"${{COMPREPLY[@]}}\""
    );
    let out = Command::new("bash")
        .args(["-c", &session, "bash"])
        .arg(&script)
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(&format!("-F {function} {name}")), "{text}");
    assert!(text.contains(&format!("offered {expected}\n")), "{text}");
}

/// A roff manual page renders without a warning (`groff -k -man -ww`: UTF-8 input through
/// preconv, as man reads it), and `man -l` shows its NAME section with `name`.
pub fn assert_man_page_renders(roff: &[u8], name: &str) {
    require_tool("groff", "apt-get install groff-base");
    require_tool("man", "apt-get install man-db");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let page = dir.path().join(format!("{name}.1"));
    std::fs::write(&page, roff).expect("write the page");
    let groff = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .arg(&page)
        .output()
        .expect("groff runs");
    let warnings = String::from_utf8_lossy(&groff.stderr);
    assert!(
        groff.status.success() && warnings.is_empty(),
        "{name}: {warnings}"
    );
    let man = Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .expect("man runs");
    let text = String::from_utf8_lossy(&man.stdout);
    assert!(
        man.status.success(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    let name_section = text.split("SYNOPSIS").next().unwrap_or("");
    assert!(
        name_section.contains("NAME") && name_section.contains(name),
        "{name}:\n{text}"
    );
}

/// `program completions SHELL` succeeds for every shell but bash (checked by
/// [`assert_bash_completes`]) and each script knows `flag`, a flag of the program's main command.
pub fn assert_completions_know(program: &Path, flag: &str) {
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = run(program, &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(flag), "{shell} lacks {flag}");
    }
}

/// `program man` renders; `program man --out-dir DIR` writes at least `at_least` pages, each of
/// which renders and is the page `program man COMMAND...` prints. Commands whose name has a
/// hyphen (`skip`: `man` cannot tell their words apart) are left to the caller, with the pages
/// in `man1/` of the folder returned.
pub fn assert_man_pages(
    program: &Path,
    name: &str,
    at_least: usize,
    skip: &[&str],
) -> tempfile::TempDir {
    let top = run(program, &["man"]);
    assert!(top.status.success());
    assert_man_page_renders(&top.stdout, name);
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("man1");
    let out = run(program, &["man", "--out-dir", folder.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pages: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(pages.len() >= at_least, "{pages:?}");
    for page in &pages {
        let stem = page.file_stem().unwrap().to_str().unwrap();
        assert_man_page_renders(&std::fs::read(page).unwrap(), stem);
        // The page of a command is also printed by `man COMMAND...`.
        let words = stem.strip_prefix(name).unwrap();
        if !words.is_empty() && skip.iter().any(|c| words.contains(c)) {
            continue;
        }
        let mut args = vec!["man"];
        args.extend(words.split('-').filter(|w| !w.is_empty()));
        let printed = run(program, &args);
        assert_eq!(printed.stdout, std::fs::read(page).unwrap(), "{args:?}");
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_codes_are_read_with_continuation_lines() {
        let help = "Usage: x\n\nExit codes:\n  0  done\n  1  stopped early (run\n     again)\n  2  bad\n\nMore text 3\n";
        assert_eq!(help_exit_codes(help), [0, 1, 2]);
    }

    #[test]
    fn doc_codes_skip_dashes_of_the_column() {
        let doc = "# T\n\n## Exit codes\n\n| code | `a` | `b` |\n|---|---|---|\n| 0 | done | done |\n| 3 | – | problems |\n\n## Next\n| 9 | x | x |\n";
        assert_eq!(doc_exit_codes(doc, "Exit codes", "`a`"), [0]);
        assert_eq!(doc_exit_codes(doc, "Exit codes", "`b`"), [0, 3]);
    }
}

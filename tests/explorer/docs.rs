//! The `serve` commands of README.md and docs/explorer.md, run as written (the docs test runs
//! their other commands): on an indexed copy of the harvested archive, with the configuration
//! file docs/explorer.md shows, answering the API with a key and the Memento routes without one.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use integration_tests::process::{free_port, modoai_explorer, signal, Running};
use integration_tests::repo_root;
use rustix::process::Signal;

use super::{add_key, copy_dir, enc, get, harvested, work_dir};

/// The `cargo run -p modoai-explorer -- serve` lines of a doc's ```` ```sh ```` blocks.
fn serve_lines(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo_root().join(doc)).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            l if in_sh && l.starts_with("cargo run -p modoai-explorer -- serve") => {
                out.push(l.to_owned())
            }
            _ => {}
        }
    }
    out
}

/// The ```` ```toml ```` block of docs/explorer.md with the `[access]` table.
fn config_block() -> String {
    let text = std::fs::read_to_string(repo_root().join("docs/explorer.md")).unwrap();
    let start = text
        .find("```toml\n[access]")
        .expect("docs/explorer.md shows its configuration")
        + 8;
    text[start..start + text[start..].find("```").unwrap()].to_owned()
}

#[test]
fn the_serve_commands_of_readme_and_explorer_md_work_as_written() {
    let work = work_dir("docs");
    copy_dir(&harvested().archive, &work.join("my-archive"));
    std::fs::write(work.join("explorer.toml"), config_block()).unwrap();
    // The configuration names no key file: `serve` reads the state folder's, where `keys add`
    // writes.
    let state = work.join("state");
    let key = add_key(&state.join("modoai-explorer/keys.toml"), "alice", &[]);
    let lines: Vec<String> = ["README.md", "docs/explorer.md"]
        .iter()
        .flat_map(|d| serve_lines(d))
        .collect();
    assert!(lines.len() >= 3, "{lines:?}");
    for line in lines {
        let port = free_port();
        let rest = line
            .strip_prefix("cargo run -p modoai-explorer --")
            .unwrap()
            .replace("127.0.0.1:8091", &format!("127.0.0.1:{port}"));
        let child = modoai_explorer()
            .args(rest.split_whitespace())
            .current_dir(&work)
            .env("XDG_STATE_HOME", &state)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = Running(child);
        let mut said = String::new();
        BufReader::new(server.0.stdout.take().unwrap())
            .read_line(&mut said)
            .unwrap();
        assert!(
            said.contains(&format!("http://127.0.0.1:{port}/")),
            "{line}: {said}"
        );
        let search = loop {
            let r = get(
                port,
                "/api/v1/search?q=report",
                &[("Authorization", &format!("Bearer {key}"))],
            );
            if r.status != 503 {
                break r;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        assert_eq!(search.status, 200, "{line}: {}", search.body);
        assert!(search.json()["total"].as_u64().unwrap() >= 1);
        assert_eq!(
            get(port, "/api/v1/search", &[]).status,
            401,
            "{line}: the API needs a key"
        );
        let pdf = format!("{}docs/report.pdf", harvested().base);
        let page = get(port, "/search?q=report", &[]);
        assert_eq!(page.status, 200, "{line}: the pages need no key");
        assert!(
            page.body.contains(&pdf),
            "{line}: a word finds its file: {}",
            page.body
        );
        assert_eq!(
            get(port, &format!("/timemap/link/{pdf}"), &[]).status,
            200,
            "{line}: Memento is public"
        );
        assert_eq!(
            get(
                port,
                &format!("/api/v1/captures?url={}", enc(&pdf)),
                &[("Authorization", &format!("Bearer {key}"))]
            )
            .status,
            200
        );
        signal(server.0.id(), Signal::TERM);
        assert!(
            server.0.wait().unwrap().success(),
            "{line}: exits 0 on SIGTERM"
        );
    }
}

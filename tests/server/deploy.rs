//! The deployment examples of `examples/deploy/` with the real programs: the systemd unit
//! (`systemd-analyze verify`, and its ExecStart, reload and stop with the `modoai` binary), the
//! nginx `location` in front of `modoai serve` (the site from nginx, the route through it, the
//! public URLs, the client's address through the trusted proxy), and the sample configuration
//! (it loads as shipped and with every key switched on, and it has every key the docs list).

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use integration_tests::http::{get, get_from, status_code, MARGIN};
use integration_tests::process::{
    free_port, modoai, program, require_tool, signal, start_modoai, Running,
};
use integration_tests::{repo_root, texts, xsd_validate, TestSite};
use rustix::process::Signal;

fn example(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("examples/deploy").join(name)).unwrap()
}

/// A plugins file with one built-in plugin: no tool to install, and its cache in `dir`.
fn light_plugins(dir: &Path) -> PathBuf {
    let file = dir.join("plugins.toml");
    std::fs::write(
        &file,
        "[[plugin]]\nlabel = \"md5\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n",
    )
    .unwrap();
    file
}

/// The body of an HTTP response.
fn body(response: &[u8]) -> &[u8] {
    let at = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    &response[at + 4..]
}

/// Sends `sig` to the server and waits for its exit code, within `within`.
fn stop(server: &mut Running, sig: Signal, within: Duration) -> Option<i32> {
    signal(server.0.id(), sig);
    let started = Instant::now();
    loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            return status.code();
        }
        assert!(
            started.elapsed() < within,
            "no exit within {within:?} of {sig:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- modoai.toml ------------------------------------------------------------------------------

/// Every `(section, key)` a TOML text sets; the entries of `[access.users]` and `[access.keys]`
/// (user names and key ids, not keys) count as `(section, "*")`. With `switched_on`, lines
/// written `#key = value` or `#[section]` count too.
fn keys(toml: &str, switched_on: bool) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut section = String::new();
    for line in toml.lines() {
        let line = match line.strip_prefix('#') {
            Some(rest)
                if switched_on
                    && rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '[') =>
            {
                rest
            }
            Some(_) => continue,
            None => line,
        };
        let line = line.split(" #").next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix('[') {
            section = name.trim_end_matches(']').to_owned();
        } else if let Some((key, _)) = line.split_once(" = ") {
            let key = if section.ends_with(".users") || section.ends_with(".keys") {
                "*"
            } else {
                key
            };
            out.insert((section.clone(), key.to_owned()));
        }
    }
    out
}

/// The sample with every `#key = value` and `#[section]` line switched on.
fn switched_on(sample: &str) -> String {
    sample
        .lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '[') => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_sample_configuration_has_every_documented_key_each_explained() {
    let sample = example("modoai.toml");
    let in_sample = keys(&sample, true);
    let guide = std::fs::read_to_string(repo_root().join("docs/webmasters.md")).unwrap();
    let mut documented = BTreeSet::new();
    for block in guide.split("```toml").skip(1) {
        let block = block.split("```").next().unwrap_or("");
        documented.extend(keys(block, false));
    }
    assert!(documented.len() > 30, "{documented:?}");
    let missing: Vec<_> = documented.difference(&in_sample).collect();
    assert!(
        missing.is_empty(),
        "keys of docs/webmasters.md missing from the sample: {missing:?}"
    );
    // Each key of the sample's main sections is explained right above it, with its default.
    let lines: Vec<&str> = sample.lines().collect();
    let mut section = "";
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with('[') || line.starts_with("#[") {
            section = line.trim_start_matches('#');
        }
        let is_key = line.contains(" = ") && !line.starts_with("# ");
        let explained = |c: &str| c.contains("default") || c.contains("required");
        if !is_key || !["[server]", "[oai]", "[access]", "[flow]"].contains(&section) {
            continue;
        }
        let comment: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("# "))
            .copied()
            .collect();
        let comment = comment.join(" ").to_lowercase();
        assert!(
            explained(&comment),
            "{section} {line}: no comment with its default"
        );
    }
    // The sections say whether a change needs a restart.
    for section in ["# [server]:", "# [oai]:"] {
        let at = sample.find(section).unwrap_or_else(|| panic!("{section}"));
        assert!(
            sample[at..].lines().next().unwrap().contains("Restart"),
            "{section}"
        );
    }
    for section in ["# [access]:", "# [flow]:"] {
        let at = sample.find(section).unwrap_or_else(|| panic!("{section}"));
        assert!(
            sample[at..at + 300].contains("Reloaded without a restart"),
            "{section}"
        );
    }
}

#[test]
fn the_sample_configuration_serves_as_shipped_and_with_every_key_on() {
    let sample = example("modoai.toml");
    for (name, config) in [
        ("shipped", sample.clone()),
        ("every key on", switched_on(&sample)),
    ] {
        let site = TestSite::example();
        let work = tempfile::tempdir().unwrap();
        let plugins = light_plugins(work.path());
        // The log folder of a deployment is made by its package; here it is the work folder.
        let log = work.path().join("access.log");
        let config = config.replace("/var/log/modoai/access.log", log.to_str().unwrap());
        // So is its state folder.
        let state = work.path().join("state");
        let config = config.replace("/var/lib/modoai", state.to_str().unwrap());
        // The deployment's paths and address are replaced by the flags, which override the file.
        let (mut server, port) = start_modoai(
            site.path(),
            work.path(),
            &config,
            &["--plugins", plugins.to_str().unwrap()],
        );
        let identify = get(port, "/modoai?verb=Identify");
        assert_eq!(status_code(&identify), 200, "{name}");
        assert_eq!(
            texts(body(&identify), "repositoryName"),
            ["Example site"],
            "{name}"
        );
        assert_eq!(
            texts(body(&identify), "baseURL"),
            ["https://www.example.org/modoai"],
            "{name}"
        );
        assert_eq!(stop(&mut server, Signal::TERM, MARGIN), Some(0), "{name}");
        if name == "every key on" {
            assert!(state.is_dir(), "state-dir is used");
            let lines = std::fs::read_to_string(&log).unwrap();
            assert!(
                lines.contains("\"GET /modoai?verb=Identify HTTP/1.0\" 200"),
                "{lines}"
            );
        }
    }
}

// ---- modoai.service ---------------------------------------------------------------------------

/// The value of `key=` in a unit file (the last one, as systemd reads it).
fn unit_value<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .next_back()
        .unwrap_or_else(|| panic!("the unit has no {key}="))
}

#[test]
fn the_systemd_unit_verifies_and_is_hardened() {
    require_tool("systemd-analyze", "apt-get install systemd");
    let unit = example("modoai.service");
    let work = tempfile::tempdir().unwrap();
    // As installed: the binary where ExecStart names it, the man page Documentation= names.
    let installed = unit.replace("/usr/local/bin/modoai", program("modoai").to_str().unwrap());
    let file = work.path().join("modoai.service");
    std::fs::write(&file, installed).unwrap();
    let man = work.path().join("man");
    let out = modoai()
        .args(["man", "--out-dir"])
        .arg(man.join("man1"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let verify = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&file)
        .env("MANPATH", &man)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&verify.stderr);
    let about_unit: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("modoai.service"))
        .collect();
    assert!(
        verify.status.success() && about_unit.is_empty(),
        "systemd-analyze verify:\n{stderr}"
    );
    let security = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--no-pager"])
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&security.stdout);
    let exposure: f64 = report
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for modoai.service: ")
                .nth(1)
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level in:\n{report}"));
    // systemd rates 0 (confined) to 10 (exposed); "OK" is under 2.
    assert!(exposure < 2.0, "exposure {exposure}:\n{report}");
}

#[test]
fn the_systemd_unit_starts_reloads_and_stops_the_real_binary() {
    let unit = example("modoai.service");
    let exec: Vec<&str> = unit_value(&unit, "ExecStart").split_whitespace().collect();
    assert_eq!(exec[0], "/usr/local/bin/modoai");
    assert_eq!(unit_value(&unit, "ExecReload"), "/bin/kill -HUP $MAINPID");
    assert_eq!(unit_value(&unit, "KillSignal"), "SIGTERM");
    let stop_secs: u64 = unit_value(&unit, "TimeoutStopSec").parse().unwrap();
    let config_at = exec
        .iter()
        .position(|a| *a == "--config")
        .expect("--config")
        + 1;
    assert_eq!(exec[config_at], "/etc/modoai/modoai.toml");
    // The sample configuration as installed there, with this machine's root, port and plugins.
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let port = free_port();
    let plugins = light_plugins(work.path());
    let config = example("modoai.toml")
        .replace("/var/www/html", site.path().to_str().unwrap())
        .replace("127.0.0.1:8081", &format!("127.0.0.1:{port}"))
        .replace("/etc/modoai/plugins.toml", plugins.to_str().unwrap());
    let config_file = work.path().join("modoai.toml");
    std::fs::write(&config_file, config).unwrap();
    let mut args: Vec<&str> = exec[1..].to_vec();
    args[config_at - 1] = config_file.to_str().unwrap();
    // StateDirectory=modoai: systemd makes the folder and names it in $STATE_DIRECTORY.
    assert_eq!(unit_value(&unit, "StateDirectory"), "modoai");
    let state = work.path().join("state");
    let mut server = Running(
        modoai()
            .args(&args)
            .env("STATE_DIRECTORY", &state)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let answers = |what: &str| {
        let started = Instant::now();
        while status_code(&get(port, "/modoai?verb=Identify")) != 200 {
            assert!(started.elapsed() < MARGIN, "no Identify {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    answers("after the start");
    // ExecReload: SIGHUP re-reads [access] and [flow] and the server goes on.
    signal(server.0.id(), Signal::HUP);
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "SIGHUP ended the server"
    );
    answers("after SIGHUP");
    let code = stop(&mut server, Signal::TERM, Duration::from_secs(stop_secs));
    assert_eq!(code, Some(0), "KillSignal is a clean stop");
    assert!(state.is_dir(), "the index lives in $STATE_DIRECTORY");
}

// ---- nginx-modoai.conf ------------------------------------------------------------------------

/// nginx on `port`, serving `root` itself with the snippet's `location` proxying to `upstream`;
/// everything in `dir`, the error log on stderr.
fn start_nginx(dir: &Path, root: &Path, port: u16, upstream: u16) -> Running {
    require_tool("nginx", "scripts/setup installs nginx-light");
    let snippet =
        example("nginx-modoai.conf").replace("127.0.0.1:8081", &format!("127.0.0.1:{upstream}"));
    let prefix = dir.display();
    // One process, which the test can stop: no workers left behind, none handed to `nobody`
    // (who could not read the test's folders) when the test runs as root.
    let conf = format!(
        "master_process off;\ndaemon off;\npid {prefix}/nginx.pid;\nerror_log stderr;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  include /etc/nginx/mime.types;\n  access_log off;\n\
         client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy;\n\
         fastcgi_temp_path {prefix}/fastcgi; uwsgi_temp_path {prefix}/uwsgi; scgi_temp_path {prefix}/scgi;\n\
         server {{\n    listen 127.0.0.1:{port};\n    root {root};\n{snippet}\n  }}\n}}\n",
        root = root.display(),
    );
    let file = dir.join("nginx.conf");
    std::fs::write(&file, conf).unwrap();
    let test = Command::new("nginx")
        .arg("-t")
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&file)
        .args(["-e", "stderr"])
        .output()
        .unwrap();
    assert!(
        test.status.success(),
        "nginx -t:\n{}",
        String::from_utf8_lossy(&test.stderr)
    );
    let nginx = Running(
        Command::new("nginx")
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&file)
            .args(["-e", "stderr"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while status_code(&get(port, "/index.html")) != 200 {
        assert!(started.elapsed() < MARGIN, "nginx did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    nginx
}

#[test]
fn nginx_serves_the_site_and_proxies_the_route_with_public_urls_and_client_addresses() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let public = free_port();
    let base = format!("http://127.0.0.1:{public}/");
    // modoai behind nginx: its identifiers are nginx's URLs, nginx is its trusted proxy, and
    // oai_didl is for the client at 127.0.0.2 only.
    let config =
        "[access]\ntrusted-proxies = [\"127.0.0.1\"]\nforwarded-header = \"x-forwarded-for\"\n\
                  [access.oai_didl]\naddresses = [\"127.0.0.2/32\"]\n";
    let (_modoai, upstream) =
        start_modoai(site.path(), work.path(), config, &["--base-url", &base]);
    let _nginx = start_nginx(work.path(), site.path(), public, upstream);

    // The site comes from nginx itself.
    let page = get(public, "/about.html");
    assert_eq!(status_code(&page), 200);
    assert!(String::from_utf8_lossy(&page).contains("Server: nginx"));
    assert_eq!(
        body(&page),
        std::fs::read(site.path().join("about.html")).unwrap()
    );

    // The route goes through to modoai, whose answers name the public URLs.
    let identify = get(public, "/modoai?verb=Identify");
    assert_eq!(status_code(&identify), 200);
    xsd_validate(body(&identify)).unwrap();
    assert_eq!(texts(body(&identify), "baseURL"), [format!("{base}modoai")]);
    let list = get(public, "/modoai?verb=ListRecords&metadataPrefix=oai_dc");
    assert_eq!(status_code(&list), 200);
    xsd_validate(body(&list)).unwrap();
    let ids = texts(body(&list), "identifier");
    assert_eq!(
        ids.len(),
        2 * super::EXAMPLE_FILES.len(),
        "header and dc:identifier"
    );
    for id in &ids {
        let path = id
            .strip_prefix(&base)
            .unwrap_or_else(|| panic!("{id} is not under {base}"));
        // Every identifier is a URL that nginx serves.
        assert_eq!(status_code(&get(public, &format!("/{path}"))), 200, "{id}");
    }

    // The access rule sees the client behind nginx, and a client cannot forge its address.
    let didl = "/modoai?verb=ListRecords&metadataPrefix=oai_didl";
    let admitted = get_from(Ipv4Addr::new(127, 0, 0, 2), public, didl, &[]);
    assert_eq!(
        status_code(&admitted),
        200,
        "{}",
        String::from_utf8_lossy(&admitted[..200.min(admitted.len())])
    );
    xsd_validate(body(&admitted)).unwrap();
    assert_eq!(
        texts(body(&admitted), "identifier").len(),
        super::EXAMPLE_FILES.len()
    );
    let other = Ipv4Addr::new(127, 0, 0, 3);
    assert_eq!(status_code(&get_from(other, public, didl, &[])), 403);
    let forged = get_from(other, public, didl, &[("X-Forwarded-For", "127.0.0.2")]);
    assert_eq!(
        status_code(&forged),
        403,
        "a forged X-Forwarded-For is not believed"
    );
}

//! The explorer's pages as a person sees them, in headless Chromium: a word finds its file with
//! the word marked, facet counts narrow the results, the calendar drills down from years to
//! days, the word cloud and the MIME chart describe the results, a capture page shows its CRATE
//! and its image, a URL's timeline, the API page's sandbox with a key; and bad input as a
//! readable error page. Screenshots of these pages are in docs/screenshots/ (made with
//! `MODOAI_SCREENSHOTS=docs/screenshots`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use integration_tests::browser::Browser;
use integration_tests::process::{free_port, Running};
use integration_tests::python::venv_tool;
use modoai_explorer::synthetic::{write, Spec, HOT_URL};

use super::{add_key, enc, harvested, shared_explorer, work_dir, Explorer};

/// Captures of the synthetic archive, and of them captures of [`HOT_URL`].
const SYNTHETIC: u64 = 400;
const HOT: u64 = 24;

/// A synthetic archive whose captures spread over eleven years (made on first use).
fn synthetic() -> &'static Path {
    static ONCE: OnceLock<PathBuf> = OnceLock::new();
    ONCE.get_or_init(|| {
        let archive = work_dir("ui-synthetic").join("archive");
        let spec = Spec {
            captures: SYNTHETIC,
            hot: HOT,
            first: 0,
            text: (200, 600),
            seed: 11,
        };
        write(&archive, &spec).unwrap();
        archive
    })
}

/// An explorer over the synthetic archive, its index built and searchable.
fn synthetic_explorer(name: &str) -> Explorer {
    let e = Explorer::start(&[synthetic()], &work_dir(name), "");
    e.get_ready("/search", None);
    e
}

/// The whole number in a text (`"1,234 captures"` → 1234).
fn number(text: &str) -> u64 {
    let digits: String = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no number in {text:?}"))
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// The captures the page says it found.
async fn found(b: &Browser) -> u64 {
    number(&b.text("h1.found").await)
}

/// The counts of the elements `css` selects, each a number in its text.
async fn counts(b: &Browser, css: &str) -> Vec<u64> {
    b.texts(css).await.iter().map(|t| number(t)).collect()
}

fn page(e: &Explorer, path: &str) -> String {
    format!("http://127.0.0.1:{}{path}", e.port)
}

#[tokio::test]
async fn a_word_finds_its_file_and_facets_count_and_narrow_the_results() {
    let e = shared_explorer("ui-search", false);
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/")).await;
    let all = found(&b).await;
    assert!(all >= 16, "every file of the site: {all}");
    // Each capture has one MIME type: the facet's counts add up to the whole.
    let mimes = counts(&b, "section.facet[data-facet=mime] li .count").await;
    assert_eq!(mimes.iter().sum::<u64>(), all, "{mimes:?}");

    // A word, typed into the search box.
    b.fill("header form.find input[name=q]", "report").await;
    b.click("header form.find button").await;
    assert!(b.client().current_url().await.unwrap().as_str().ends_with("/search?q=report"));
    let urls = b.texts("li.hit .url").await;
    assert!(urls.iter().any(|u| u.ends_with("docs/report.pdf")), "{urls:?}");
    let marked = b.texts("li.hit .snippet mark").await;
    assert!(
        marked.iter().any(|m| m.eq_ignore_ascii_case("report")),
        "the word is marked in the snippets: {marked:?}"
    );
    b.screenshot("explorer-search").await;

    // A facet value narrows to its count; its chip widens again.
    b.open(&page(&e, "/")).await;
    let facet = "section.facet[data-facet=mime] li";
    let (name, n) = (b.text(&format!("{facet} .value")).await, number(&b.text(&format!("{facet} .count")).await));
    b.click(&format!("{facet} a")).await;
    assert_eq!(found(&b).await, n, "{name}");
    assert_eq!(b.count("li.hit").await as u64, n.min(10));
    assert!(b.texts("li.hit .meta .mime").await.iter().all(|m| *m == name));
    let chips = b.texts("ul.chips li").await;
    assert!(chips.iter().any(|c| c.contains(&format!("MIME type: {name}"))), "{chips:?}");
    b.click("ul.chips li a").await;
    assert_eq!(found(&b).await, all, "the chip removes its filter");

    // JHOVE and PRONOM are facets too: the site's valid JPEG is one of them.
    let jhove = b.texts("section.facet[data-facet=jhove] li .value").await;
    assert!(jhove.iter().any(|j| j == "valid"), "{jhove:?}");
    let puids = b.texts("section.facet[data-facet=puid] li .value").await;
    assert!(puids.iter().any(|p| p == "fmt/43"), "{puids:?}");
    // Paging: 10 a page, the next page goes on where the first stopped.
    let first = b.texts("li.hit h2").await;
    b.click("nav.paging a.next").await;
    let second = b.texts("li.hit h2").await;
    assert!(!second.is_empty() && second.iter().all(|t| !first.contains(t)), "{second:?}");
    b.close().await;
}

#[tokio::test]
async fn the_word_cloud_and_the_mime_chart_describe_the_results() {
    let e = shared_explorer("ui-cloud", false);
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/search")).await;
    let all = found(&b).await;
    let words = b.texts("svg.cloud a text").await;
    assert!(words.len() >= 10, "{words:?}");
    assert!(words.iter().any(|w| w == "example"), "{words:?}");
    // As drawn by the browser, no two words overlap.
    let overlaps = b
        .script(
            "const r = [...document.querySelectorAll('svg.cloud text')].map(t => t.getBBox());
             let n = 0;
             for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
               const a = r[i], b = r[j];
               if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) n++;
             }
             return n;",
        )
        .await;
    assert_eq!(overlaps, 0, "overlapping words");

    // The MIME chart: a slice and a legend entry per type; the legend adds up to the results.
    let pie = "figure.pie[data-facet=mime]";
    let slices = b.count(&format!("{pie} svg path")).await + b.count(&format!("{pie} svg circle")).await;
    let legend = counts(&b, &format!("{pie} .legend .count")).await;
    assert_eq!(slices, legend.len());
    assert_eq!(legend.iter().sum::<u64>(), all);
    let shares: Vec<String> = b.attrs(&format!("{pie} svg path"), "d").await;
    assert_eq!(shares.len(), slices, "no type is the whole");
    // A legend entry narrows to its type.
    let n = legend[0];
    b.click(&format!("{pie} .legend a")).await;
    assert_eq!(found(&b).await, n);

    // A word of the cloud searches it.
    b.open(&page(&e, "/search")).await;
    let word = b.text("svg.cloud a text").await;
    b.click("svg.cloud a").await;
    let url = b.client().current_url().await.unwrap();
    assert!(url.query().unwrap().contains(&format!("q={}", enc(&word))), "{url}");
    assert!(found(&b).await >= 1, "{word} finds what it came from");
    b.close().await;
}

#[tokio::test]
async fn the_calendar_drills_down_from_years_to_months_to_days() {
    let e = synthetic_explorer("ui-calendar");
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/search")).await;
    assert_eq!(found(&b).await, SYNTHETIC);
    let cal = "section.calendar";
    assert_eq!(b.attrs(cal, "data-level").await, ["years"]);
    let years = counts(&b, &format!("{cal} ol.bars li .count")).await;
    assert!(years.len() >= 10, "eleven years of captures: {years:?}");
    assert_eq!(years.iter().sum::<u64>(), SYNTHETIC);

    // The busiest year, then its busiest month, then a day: each narrows to its count.
    let busiest = |v: &[u64]| (0..v.len()).max_by_key(|&i| (v[i], usize::MAX - i)).unwrap();
    let y = busiest(&years);
    b.click(&format!("{cal} ol.bars li:nth-child({}) a", y + 1)).await;
    assert_eq!(b.attrs(cal, "data-level").await, ["months"]);
    assert_eq!(found(&b).await, years[y]);
    let months = counts(&b, &format!("{cal} ol.bars li .count")).await;
    assert_eq!(months.len(), 12);
    assert_eq!(months.iter().sum::<u64>(), years[y]);
    let m = busiest(&months);
    b.click(&format!("{cal} ol.bars li:nth-child({}) a", m + 1)).await;
    assert_eq!(b.attrs(cal, "data-level").await, ["days"]);
    assert_eq!(found(&b).await, months[m]);
    let days = counts(&b, &format!("{cal} table.month td a .count")).await;
    assert_eq!(days.iter().sum::<u64>(), months[m]);
    // The word cloud follows the calendar: it is drawn for the month's captures.
    assert!(b.count("svg.cloud a text").await >= 5);
    b.screenshot("explorer-calendar").await;
    let day = b.attrs(&format!("{cal} table.month td:has(a)"), "data-day").await[0].clone();
    b.click(&format!("{cal} table.month td[data-day='{day}'] a")).await;
    assert_eq!(found(&b).await, days[0]);
    assert_eq!(b.attrs(&format!("{cal} td.chosen"), "data-day").await, [day.clone()]);
    for when in b.attrs("li.hit time", "datetime").await {
        assert!(when.starts_with(&day), "{when} on {day}");
    }
    // The path above leads back to every year.
    b.click(&format!("{cal} nav.crumbs a")).await;
    assert_eq!(b.attrs(cal, "data-level").await, ["years"]);
    assert_eq!(found(&b).await, SYNTHETIC);
    b.close().await;
}

#[tokio::test]
async fn a_url_s_captures_are_on_its_timeline() {
    let e = synthetic_explorer("ui-timeline");
    let b = Browser::start(1400, 900).await;
    b.open(&page(&e, &format!("/timeline?url={}", enc(HOT_URL)))).await;
    assert_eq!(b.count("svg.timeline circle.capture").await as u64, HOT);
    assert_eq!(b.count("table.captures tbody tr").await as u64, HOT);
    let ticks = b.texts("svg.timeline text.tick").await;
    assert!(ticks.len() >= 2 && ticks.iter().all(|t| t.ends_with(":00")), "hourly captures: {ticks:?}");
    let bytes = b.texts("table.captures tbody td:nth-child(4)").await;
    assert_eq!(bytes[0], "first capture");
    assert!(bytes[1..].iter().all(|s| s == "changed"), "each made with new words: {bytes:?}");
    b.screenshot("explorer-timeline").await;
    // A dot is a link to its capture's page.
    b.click("svg.timeline a").await;
    assert_eq!(b.text("article.capture p.url").await, HOT_URL);
    b.close().await;
}

#[tokio::test]
async fn a_capture_page_shows_its_crate_findings_and_its_image() {
    let e = shared_explorer("ui-capture", false);
    e.get_ready("/search", None);
    let b = Browser::start(1300, 1300).await;
    // From the results, as a person gets there.
    b.open(&page(&e, &format!("/search?mime={}", enc("image/jpeg")))).await;
    b.click("li.hit h2 a").await;
    let url = format!("{}images/sunset.jpg", harvested().base);
    assert_eq!(b.text("article.capture p.url").await, url);
    let tools = b.texts("table.crate tbody td.tool").await;
    for tool in ["file", "md5", "jhove", "exiftool", "fido"] {
        assert!(tools.iter().any(|t| t == tool), "{tool} in {tools:?}");
    }
    let jhove = b.text("table.crate tr[data-tool=jhove]").await;
    assert!(jhove.contains("ok") && jhove.contains("status: Well-Formed and valid"), "{jhove}");
    let fido = b.text("table.crate tr[data-tool=fido]").await;
    assert!(fido.contains("fmt/43"), "{fido}");
    // The image itself, drawn from the memento.
    let drawn = b
        .script("const i = document.querySelector('figure.memento img'); return i.complete ? i.naturalWidth : 0;")
        .await;
    assert!(drawn.as_u64().unwrap() > 0, "the image is shown");
    let src = b.attrs("figure.memento img", "src").await;
    assert!(src[0].contains("/memento/") && src[0].ends_with("images/sunset.jpg"), "{src:?}");
    let pwid = b.text("a.pwid").await;
    assert!(pwid.starts_with("urn:pwid:") && pwid.ends_with("images/sunset.jpg"), "{pwid}");
    b.screenshot("explorer-capture").await;

    // Identical bytes at two URLs: each page names the other.
    let logo = format!("{}images/logo.png", harvested().base);
    let id = e.get_ready(&format!("/api/v1/captures?url={}", enc(&logo)), None);
    assert_eq!(id.status, 401, "the API needs a key; the pages do not");
    b.open(&page(&e, &format!("/timeline?url={}", enc(&logo)))).await;
    assert_eq!(b.count("svg.timeline circle.capture").await, 1);
    b.click("table.captures tbody a").await;
    let same = b.texts("ul.same li").await;
    assert!(same.iter().any(|s| s.contains("data/logo-copy")), "{same:?}");
    // A PDF is linked, not shown.
    b.open(&page(&e, "/search?q=report")).await;
    b.click("li.hit h2 a").await;
    assert_eq!(b.count("figure.memento img").await, 0);
    assert!(b.text("a.memento").await.contains("Open the file"));
    b.close().await;
}

#[tokio::test]
async fn the_api_page_tries_calls_with_a_key_and_shows_curl_commands() {
    let e = shared_explorer("ui-api", false);
    e.get_ready("/search", None);
    let key = add_key(&e.keys, "sandbox", &["--quota", "100/hour"]);
    let b = Browser::start(1300, 1100).await;
    b.open(&page(&e, "/api")).await;
    let calls = b.texts("table.calls tbody td:first-child").await;
    for call in ["GET /api/v1/search", "GET /api/v1/terms", "GET /api/v1/me"] {
        assert!(calls.iter().any(|c| c == call), "{call} in {calls:?}");
    }
    // Without a key: the API's 401.
    b.select("form#sandbox select[name=call]", "me").await;
    b.fill("form#sandbox input[name=params]", "").await;
    b.press("form#sandbox button").await;
    b.wait_text("#status", "401").await;
    // With the key: the caller's limits, with the RateLimit fields.
    b.fill("#key", &key).await;
    b.press("form#sandbox button").await;
    let status = b.wait_text("#status", "200").await;
    assert!(status.contains("ratelimit: \"hour\";r=99"), "{status}");
    let me: serde_json::Value = serde_json::from_str(&b.text("#response").await).unwrap();
    assert_eq!(me["name"], "sandbox");
    assert_eq!(me["quota_per_hour"], 100);
    b.screenshot("explorer-api").await;

    // The curl command beside it, as a shell runs it with the key.
    b.select("form#sandbox select[name=call]", "search").await;
    b.fill("form#sandbox input[name=params]", "q=report&size=3").await;
    let command = b.wait_text("#curl", "q=report&size=3").await;
    let out = Command::new("sh")
        .args(["-c", &command])
        .env("KEY", &key)
        .output()
        .expect("sh runs curl (scripts/setup installs curl)");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{command}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(answer["total"].as_u64().unwrap() >= 1, "{answer}");
    b.close().await;
}

#[test]
fn bad_input_on_a_page_is_a_readable_error_page_never_a_500() {
    let e = shared_explorer("ui-bad", false);
    e.get_ready("/search", None);
    for (target, status, says) in [
        ("/search?q=title%3A", 400, "q="),
        ("/search?q=%28unclosed", 400, "q="),
        ("/search?colour=red", 400, "unknown parameter"),
        ("/search?from=yesterday", 400, "not a date"),
        ("/search?q=%FF", 400, "form encoding"),
        ("/search?page=100000", 400, "narrow"),
        ("/timeline", 400, "/timeline?url=URL"),
        ("/timeline?url=http%3A%2F%2Fnowhere.example%2F", 404, "no capture"),
        ("/capture/0000000000000000", 404, "no capture"),
        ("/no/such/page", 404, "there is no page"),
    ] {
        let r = e.get(target, None);
        assert_eq!(r.status, status, "{target}: {}", r.body);
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"), "{target}");
        assert!(r.body.contains("<h1>") && r.body.contains(says), "{target}: {}", r.body);
    }
    // The API keeps its JSON errors.
    let r = e.get("/api/v1/nothing-here", None);
    assert_eq!((r.status, r.json()["error"]["status"].as_u64()), (404, Some(404)));
}

#[test]
fn a_page_of_an_archive_being_indexed_is_503_with_retry_after() {
    let work = work_dir("ui-503");
    let (archive, _) = super::crash::many_files(&work);
    let e = Explorer::start(&[&archive], &work, "[index]\ncommit-every = 5\n");
    let r = e.get("/search?q=harbour", None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert!(r.body.contains("The archive is being indexed"), "{}", r.body);
    let done = e.get_ready("/search?q=harbour", None);
    assert_eq!(done.status, 200);
    assert!(done.body.contains("300 captures"), "{}", done.body);
}

#[tokio::test]
async fn a_capture_page_links_to_its_replay_in_pywb() {
    let work = work_dir("ui-pywb");
    let port = free_port();
    let _wayback = wayback(&work, &harvested().archive, port);
    let e = Explorer::start(
        &[&harvested().archive],
        &work,
        &format!("[ui]\nreplay = \"http://127.0.0.1:{port}/c\"\n"),
    );
    e.get_ready("/search", None);
    let about = format!("{}about.html", harvested().base);
    let b = Browser::start(1200, 900).await;
    b.open(&page(&e, &format!("/timeline?url={}", enc(&about)))).await;
    b.click("table.captures tbody a").await;
    let href = b.attrs("a.replay", "href").await[0].clone();
    let collection = format!("http://127.0.0.1:{port}/c/");
    let (ts, url) = href
        .strip_prefix(&collection)
        .and_then(|rest| rest.split_once('/'))
        .unwrap_or_else(|| panic!("{href}"));
    assert_eq!((ts.len(), url), (14, about.as_str()), "{href}");
    // pywb replays the capture the link names: in its identity mode, the bytes as archived.
    let file = std::fs::read(integration_tests::repo_root().join("examples/site/about.html")).unwrap();
    let started = Instant::now();
    loop {
        let r = super::get(port, &format!("/c/{ts}id_/{url}"), &[]);
        if r.status == 200 {
            assert_eq!(r.bytes, file);
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "pywb does not replay {url}: {}", r.status);
        std::thread::sleep(Duration::from_millis(200));
    }
    // And a person who follows the link sees the page in pywb's frame.
    b.click("a.replay").await;
    b.enter_frame("iframe").await;
    b.wait_text("body", "This site exists to show modoai at work").await;
    b.close().await;
}

/// pywb's `wayback` on `port` over a collection `c` of `archive`'s WARC files, set up as the
/// README does (`wb-manager init`, `wb-manager add`).
fn wayback(work: &Path, archive: &Path, port: u16) -> Running {
    let run = |args: &[String]| {
        let out = Command::new(venv_tool("wb-manager"))
            .args(args)
            .current_dir(work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "wb-manager {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["init".into(), "c".into()]);
    let mut add = vec!["add".to_owned(), "c".to_owned()];
    for f in std::fs::read_dir(archive.join("warcs")).unwrap() {
        add.push(f.unwrap().path().to_string_lossy().into_owned());
    }
    run(&add);
    let child = Command::new(venv_tool("wayback"))
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("wayback starts");
    Running(child)
}

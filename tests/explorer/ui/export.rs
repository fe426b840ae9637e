//! The search page's "Export" menu: the capture count and sizes before an export starts,
//! links that download the page's own search, and a key holder's download through a ticket,
//! with its progress.

use integration_tests::browser::Browser;

use super::{found, number, page, synthetic, synthetic_explorer};
use crate::{add_key, work_dir, Explorer};

#[tokio::test]
async fn the_export_menu_counts_the_captures_and_downloads_the_pages_search() {
    let e = Explorer::start(
        &[synthetic()],
        &work_dir("ui-export"),
        "[access]\nanonymous-api = true\n",
    );
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/search?mime=text%2Fhtml&sort=oldest&page=2"))
        .await;
    let n = found(&b).await;
    assert!(n > 0);
    b.press("details.export summary").await;
    let said = b.text("details.export p.export-count").await;
    assert_eq!(number(&said), n, "{said}");
    assert_eq!(b.count("details.export a.export-format").await, 6);
    assert_eq!(b.count("details.export p.export-key").await, 0);
    assert_eq!(
        b.count("details.export p.export-large").await,
        0,
        "{n} is not large"
    );
    let hrefs = b.attrs("details.export a.export-format", "href").await;
    let csv = hrefs.iter().find(|h| h.contains("format=csv")).unwrap();
    assert!(
        !csv.contains("page="),
        "{csv}: the whole search, not its page"
    );
    let path = &csv[csv.find("/api/").unwrap()..];
    let r = e.get(path, None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body.lines().last().unwrap(),
        format!("# complete: {n} captures")
    );
    assert!(r
        .body
        .lines()
        .skip(1)
        .take(n as usize)
        .all(|l| l.contains(",text/html,")));
    b.close().await;

    // Without an open API, the menu says exports need a key.
    let e = synthetic_explorer("ui-export-key");
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/search")).await;
    assert_eq!(b.count("details.export p.export-key").await, 1);
    b.close().await;
}

#[tokio::test]
async fn a_key_holder_downloads_an_export_from_the_menu_and_sees_it_complete() {
    let e = synthetic_explorer("ui-export-ticket");
    let key = add_key(&e.keys, "reader", &["--allow", "mime:text/html"]);
    let downloads = work_dir("ui-export-ticket-downloads");
    let b = Browser::start_downloading(1400, 1100, &downloads).await;
    b.open(&page(&e, "/search?sort=oldest")).await;
    b.press("details.export summary").await;
    assert_eq!(b.count("details.export p.export-key").await, 1);

    // Without a key the API refuses the ticket, and the menu says what is missing.
    b.press("details.export a.export-format[data-format=csv]")
        .await;
    b.wait_text("details.export p.export-progress", "needs a key")
        .await;

    b.fill("details.export input.ticket-key-input", &key).await;
    b.press("details.export a.export-format[data-format=csv]")
        .await;
    let said = b
        .wait_text("details.export p.export-progress", "Complete")
        .await;
    let html = e
        .get_ready("/api/v1/search?size=1&mime=text%2Fhtml", Some(&key))
        .json()["total"]
        .as_u64()
        .unwrap();
    assert_eq!(number(&said), html, "the key's scope: {said}");
    let file = downloads.join("export.csv");
    let started = std::time::Instant::now();
    while !file.exists() {
        assert!(
            started.elapsed() < integration_tests::http::MARGIN,
            "no download in {}",
            downloads.display()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.lines().last().unwrap(),
        format!("# complete: {html} captures")
    );
    b.screenshot("explorer-export-progress").await;
    b.close().await;
}

//! The search page's "Export" menu: the capture count and sizes before an export starts, and
//! links that download the page's own search.

use integration_tests::browser::Browser;

use super::{found, number, page, synthetic, synthetic_explorer};
use crate::{work_dir, Explorer};

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

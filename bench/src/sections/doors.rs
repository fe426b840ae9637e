//! The front doors at scale, on the scale section's site and server: the whole ResourceSync
//! Resource List (its index and every part) and a Change List after `k` files changed, in
//! entries per second, next to ListIdentifiers over the same index.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crate::http::Http;
use crate::report::Figure;

/// The rates; `list_secs` is the time the scale section took to page through ListIdentifiers of
/// all `n` files.
pub(crate) async fn rates(
    http: &Http,
    base: &str,
    site: &Path,
    n: usize,
    k: usize,
    list_secs: f64,
) -> anyhow::Result<Vec<Figure>> {
    let oai_rate = n as f64 / list_secs;
    let lists = format!("{base}modoai/resourcesync");
    let t = Instant::now();
    let index = http.text(&format!("{lists}/resourcelist.xml")).await?;
    let mut listed = 0;
    for part in locs(&index) {
        listed += http.text(&part).await?.matches("<url>").count();
    }
    let resources = t.elapsed().as_secs_f64();
    anyhow::ensure!(listed == n, "the Resource List has {listed} files of {n}");

    let since = modoai::protocol::Datestamp::now().plus(-1);
    touch(site, n, k)?;
    let page = format!("{lists}/changelist.xml?from={since}");
    let deadline = Instant::now() + Duration::from_secs(900);
    while http.text(&page).await?.matches("<url>").count() < k {
        anyhow::ensure!(
            Instant::now() < deadline,
            "{k} changes never reached the Change List"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let t = Instant::now();
    let changed = http.text(&page).await?.matches("<url>").count();
    let changes = t.elapsed().as_secs_f64();
    Ok(vec![
        Figure::new(
            "scale",
            format!("ResourceSync Resource List of {n} files (index + parts)"),
            n as f64 / resources,
            "entries/s",
        )
        .peer("OAI-PMH ListIdentifiers, same index", oai_rate),
        Figure::new(
            "scale",
            format!("ResourceSync Change List page of {changed} changes ({n} files)"),
            changed as f64 / changes,
            "entries/s",
        )
        .peer("OAI-PMH ListIdentifiers, same index", oai_rate),
    ])
}

/// The `<loc>`s of a document.
fn locs(xml: &str) -> Vec<String> {
    xml.split("<loc>")
        .skip(1)
        .filter_map(|s| s.split("</loc>").next())
        .map(|s| s.replace("&amp;", "&"))
        .collect()
}

/// Gives `k` of the `n` files of `data::small_files` a new mtime, spread over the tree.
fn touch(site: &Path, n: usize, k: usize) -> anyhow::Result<()> {
    let now = SystemTime::now();
    for j in 0..k {
        let i = j * (n / k);
        let folder = i / crate::data::FILES_PER_FOLDER;
        let path = site.join(format!("d{folder:04}/f{i:07}.txt"));
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(now)?;
    }
    Ok(())
}

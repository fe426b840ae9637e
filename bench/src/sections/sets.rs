//! Sets over the scale section's tree (100 files in each of its folders): the first page of one
//! folder set next to the first page of the whole site (a set's page reads the set's keys only,
//! no scan of the index), and ListSets over every folder set to its end next to ListIdentifiers
//! over as many records.

use std::time::Instant;

use crate::http::{encode, Http};
use crate::report::{median, Figure};

/// The two figures. `first_page_ms`: the whole site's first ListIdentifiers page, timed the same
/// way; `pages`: the URLs of the whole site's ListIdentifiers pages, in order; `samples`: how
/// many times a page is timed.
pub(crate) async fn figures(
    http: &Http,
    oai: &str,
    folders: usize,
    first_page_ms: f64,
    pages: &[String],
    samples: usize,
) -> anyhow::Result<Vec<Figure>> {
    let set = format!("path:d{:04}", folders / 2);
    let url = format!("{oai}?verb=ListIdentifiers&metadataPrefix=oai_dc&set={set}");
    let listed = http.text(&url).await?.matches("<header>").count();
    anyhow::ensure!(listed > 0, "{url}: no records");
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        times.push(http.get(&url).await?.elapsed.as_secs_f64() * 1e3);
    }
    let set_ms = median(&times);
    let (sets, list_secs) = list_sets(http, oai).await?;
    // The peer: ListIdentifiers pages of the whole site, as many records as ListSets had sets.
    let wanted = sets.div_ceil(100).min(pages.len()).max(1);
    let started = Instant::now();
    for u in &pages[..wanted] {
        let p = http.get(u).await?;
        anyhow::ensure!(p.status == 200, "{u}: HTTP {}", p.status);
    }
    let ids_secs = started.elapsed().as_secs_f64();
    Ok(vec![
        Figure::new(
            "scale",
            format!("ListIdentifiers first page of the folder set {set} ({listed} files)"),
            set_ms,
            "ms",
        )
        .peer("first page of the whole site", first_page_ms)
        .note("target: at most 2x the whole site's page (no scan of the index)"),
        Figure::new(
            "scale",
            format!("ListSets over {sets} sets ({folders} folders), to the end"),
            list_secs,
            "s",
        )
        .peer(
            format!("ListIdentifiers over {} records", wanted * 100),
            ids_secs,
        )
        .note("target: at most 2x the ListIdentifiers time"),
    ])
}

/// Pages ListSets to its end: how many sets (counted on each page, untimed), and the time.
async fn list_sets(http: &Http, oai: &str) -> anyhow::Result<(usize, f64)> {
    let mut url = format!("{oai}?verb=ListSets");
    let mut urls = Vec::new();
    let started = Instant::now();
    loop {
        let page = http.get(&url).await?;
        anyhow::ensure!(page.status == 200, "{url}: HTTP {}", page.status);
        urls.push(url.clone());
        match page.token() {
            Some(t) => url = format!("{oai}?verb=ListSets&resumptionToken={}", encode(&t)),
            None => break,
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let mut sets = 0;
    for u in &urls {
        sets += http.text(u).await?.matches("<set>").count();
    }
    Ok((sets, secs))
}

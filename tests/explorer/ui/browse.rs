//! Search, facets, the word cloud, the MIME chart, the calendar and a URL's timeline.

use integration_tests::browser::Browser;
use modoai_explorer::synthetic::HOT_URL;

use super::{counts, found, number, page, synthetic_explorer, HOT, SYNTHETIC};
use crate::{enc, shared_explorer};

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
    assert!(b
        .client()
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("/search?q=report"));
    let urls = b.texts("li.hit .url").await;
    assert!(
        urls.iter().any(|u| u.ends_with("docs/report.pdf")),
        "{urls:?}"
    );
    let marked = b.texts("li.hit .snippet mark").await;
    assert!(
        marked.iter().any(|m| m.eq_ignore_ascii_case("report")),
        "the word is marked in the snippets: {marked:?}"
    );
    b.screenshot("explorer-search").await;

    // A facet value narrows to its count; its chip widens again.
    b.open(&page(&e, "/")).await;
    let facet = "section.facet[data-facet=mime] li";
    let (name, n) = (
        b.text(&format!("{facet} .value")).await,
        number(&b.text(&format!("{facet} .count")).await),
    );
    b.click(&format!("{facet} a")).await;
    assert_eq!(found(&b).await, n, "{name}");
    assert_eq!(b.count("li.hit").await as u64, n.min(10));
    assert!(b
        .texts("li.hit .meta .mime")
        .await
        .iter()
        .all(|m| *m == name));
    let chips = b.texts("ul.chips li").await;
    assert!(
        chips
            .iter()
            .any(|c| c.contains(&format!("MIME type: {name}"))),
        "{chips:?}"
    );
    b.click("ul.chips li a").await;
    assert_eq!(found(&b).await, all, "the chip removes its filter");

    // JHOVE and PRONOM are facets too: the site's valid JPEG is one of them.
    let jhove = b.texts("section.facet[data-facet=jhove] li .value").await;
    assert!(jhove.iter().any(|j| j == "valid"), "{jhove:?}");
    // The values past the first eight are folded under "N more": a person opens them.
    if b.count("section.facet[data-facet=puid] details").await > 0 {
        b.press("section.facet[data-facet=puid] details summary")
            .await;
    }
    let puids = b.texts("section.facet[data-facet=puid] li .value").await;
    assert!(puids.iter().any(|p| p.ends_with("(fmt/43)")), "{puids:?}");
    // Paging: 10 a page, the next page goes on where the first stopped.
    // (Captures, by their pages' links: two captures may share a title.)
    let first = b.attrs("li.hit h2 a", "href").await;
    assert_eq!(first.len(), 10);
    b.click("nav.paging a.next").await;
    let second = b.attrs("li.hit h2 a", "href").await;
    assert!(
        !second.is_empty() && second.iter().all(|t| !first.contains(t)),
        "{second:?}"
    );
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
    let slices =
        b.count(&format!("{pie} svg path")).await + b.count(&format!("{pie} svg circle")).await;
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
    assert!(
        url.query().unwrap().contains(&format!("q={}", enc(&word))),
        "{url}"
    );
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
    let busiest = |v: &[u64]| {
        (0..v.len())
            .max_by_key(|&i| (v[i], usize::MAX - i))
            .unwrap()
    };
    let y = busiest(&years);
    b.click(&format!("{cal} ol.bars li:nth-child({}) a", y + 1))
        .await;
    assert_eq!(b.attrs(cal, "data-level").await, ["months"]);
    assert_eq!(found(&b).await, years[y]);
    let months = counts(&b, &format!("{cal} ol.bars li .count")).await;
    assert_eq!(months.len(), 12);
    assert_eq!(months.iter().sum::<u64>(), years[y]);
    let m = busiest(&months);
    b.click(&format!("{cal} ol.bars li:nth-child({}) a", m + 1))
        .await;
    assert_eq!(b.attrs(cal, "data-level").await, ["days"]);
    assert_eq!(found(&b).await, months[m]);
    let days = counts(&b, &format!("{cal} table.month td a .count")).await;
    assert_eq!(days.iter().sum::<u64>(), months[m]);
    // The word cloud follows the calendar: it is drawn for the month's captures.
    assert!(b.count("svg.cloud a text").await >= 5);
    b.screenshot("explorer-calendar").await;
    let day = b
        .attrs(&format!("{cal} table.month td:has(a)"), "data-day")
        .await[0]
        .clone();
    b.click(&format!("{cal} table.month td[data-day='{day}'] a"))
        .await;
    assert_eq!(found(&b).await, days[0]);
    assert_eq!(
        b.attrs(&format!("{cal} td.chosen"), "data-day").await,
        [day.as_str()]
    );
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
    b.open(&page(&e, &format!("/timeline?url={}", enc(HOT_URL))))
        .await;
    assert_eq!(b.count("svg.timeline circle.capture").await as u64, HOT);
    assert_eq!(b.count("table.captures tbody tr").await as u64, HOT);
    let ticks = b.texts("svg.timeline text.tick").await;
    assert!(
        ticks.len() >= 2 && ticks.iter().all(|t| t.ends_with(":00")),
        "hourly captures: {ticks:?}"
    );
    let bytes = b.texts("table.captures tbody td:nth-child(4)").await;
    assert_eq!(bytes[0], "first capture");
    assert!(
        bytes[1..].iter().all(|s| s == "changed"),
        "each made with new words: {bytes:?}"
    );
    b.screenshot("explorer-timeline").await;
    // A dot is a link to its capture's page.
    b.click("svg.timeline a").await;
    assert_eq!(b.text("article.capture p.url").await, HOT_URL);
    b.close().await;
}

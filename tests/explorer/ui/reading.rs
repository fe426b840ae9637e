//! What a person reads on the search page: how to write a query, what a malformed one should
//! become, pages counted from 1 (and a page past the end said plainly), formats by name, and
//! the OAI sets without the MIME sets the MIME facet already counts.

use integration_tests::browser::Browser;

use super::{number, page};
use crate::shared_explorer;

#[tokio::test]
async fn the_search_page_explains_queries_and_a_malformed_one_says_what_to_change() {
    let e = shared_explorer("ui-queries", false);
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/")).await;
    assert_eq!(b.text("details.help dl").await, "", "closed until opened");
    b.press("details.help summary").await;
    let forms = b.texts("details.help dt code").await;
    for form in [
        "\"annual report\"",
        "report OR summary",
        "report -draft",
        "lic*",
        "title:report",
    ] {
        assert!(forms.iter().any(|f| f == form), "{form}: {forms:?}");
    }
    // The forms work as the help says.
    b.fill("header form.find input[name=q]", "exam* -report")
        .await;
    b.click("header form.find button").await;
    assert!(number(&b.text("h1.found").await) > 0);
    // A query that cannot be read: the page says what to change, not the parser's words.
    b.fill("header form.find input[name=q]", "\"example site")
        .await;
    b.click("header form.find button").await;
    let body = b.text("body").await;
    assert!(body.contains("quotation mark is not closed"), "{body}");
    assert!(!body.contains("Syntax Error"), "{body}");
    b.close().await;
}

#[tokio::test]
async fn pages_count_from_one_and_a_page_past_the_end_says_so() {
    let e = shared_explorer("ui-pages", false);
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/search?size=5")).await;
    let all = number(&b.text("h1.found").await);
    let last = all.div_ceil(5);
    assert_eq!(
        b.text("nav.paging .where").await,
        format!("page 1 of {last}")
    );
    assert_eq!(b.attrs("ol.hits", "start").await, ["1"]);
    b.click("nav.paging a.next").await;
    let url = b.client().current_url().await.unwrap();
    assert!(url.as_str().ends_with("size=5&page=2"), "{url}");
    assert_eq!(
        b.text("nav.paging .where").await,
        format!("page 2 of {last}")
    );
    assert_eq!(b.attrs("ol.hits", "start").await, ["6"]);
    // Links made when pages counted from 0: page=0 is the first page.
    b.open(&page(&e, "/search?size=5&page=0")).await;
    assert_eq!(
        b.text("nav.paging .where").await,
        format!("page 1 of {last}")
    );
    // Past the end: said plainly, with the way back.
    b.open(&page(&e, &format!("/search?size=5&page={}", last + 3)))
        .await;
    let none = b.text("p.none").await;
    assert_eq!(
        none,
        format!(
            "There is no page {}: the results end on page {last}. Go to the last page",
            last + 3
        )
    );
    assert_eq!(
        b.count("nav.paging .where").await,
        0,
        "no \"page {} of {last}\"",
        last + 3
    );
    b.click("p.none a").await;
    assert_eq!(
        b.text("nav.paging .where").await,
        format!("page {last} of {last}")
    );
    assert!(b.count("li.hit").await > 0);
    b.close().await;
}

#[tokio::test]
async fn formats_are_named_and_the_set_facet_does_not_repeat_the_mime_facet() {
    let e = shared_explorer("ui-labels", false);
    e.get_ready("/search", None);
    let b = Browser::start(1400, 1100).await;
    b.open(&page(&e, "/")).await;
    for facet in ["puid", "set"] {
        if b.count(&format!("section.facet[data-facet={facet}] details"))
            .await
            > 0
        {
            b.press(&format!(
                "section.facet[data-facet={facet}] details summary"
            ))
            .await;
        }
    }
    let puids = b.texts("section.facet[data-facet=puid] li .value").await;
    assert!(
        puids
            .iter()
            .any(|p| p == "JPEG File Interchange Format (fmt/43)"),
        "{puids:?}"
    );
    let sets = b.texts("section.facet[data-facet=set] li .value").await;
    assert!(
        sets.iter().any(|s| s.starts_with("path")),
        "folder sets: {sets:?}"
    );
    assert!(sets.iter().all(|s| !s.starts_with("mime")), "{sets:?}");
    let legend = b
        .texts("figure.pie[data-facet=puid] ul.legend .value")
        .await;
    let puid_entries: Vec<&String> = legend.iter().filter(|l| l.contains("fmt/")).collect();
    assert!(
        !puid_entries.is_empty()
            && puid_entries
                .iter()
                .all(|l| l.ends_with(')') && !l.starts_with('(') && l.contains(" (")),
        "the chart of formats names them too: {legend:?}"
    );
    b.close().await;
}

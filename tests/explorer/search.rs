//! Finding files by a word, narrowing by facets, the calendar, the word cloud, Chinese and
//! Japanese, and bad queries answered with 400.

use super::{each, enc};

#[test]
fn a_word_finds_its_file_with_a_highlighted_snippet() {
    let e = super::shared_explorer("search-word", true);
    let page = e.get_ready("/api/v1/search?q=report", None).json();
    let urls = each(&page, "data", "url");
    assert!(
        urls.iter().any(|u| u.ends_with("docs/report.pdf")),
        "the PDF's text is searchable: {urls:?}"
    );
    let pdf = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["url"].as_str().unwrap().ends_with("report.pdf"))
        .unwrap();
    assert!(
        pdf["snippet"].as_str().unwrap().contains("<b>report</b>")
            || pdf["snippet"].as_str().unwrap().contains("<b>Report</b>"),
        "{pdf}"
    );
    // English stemming: "measurement" finds measurements.csv's text? its title and path do.
    let page = e.get_ready("/api/v1/search?q=pictures", None).json();
    assert!(
        page["total"].as_u64().unwrap() >= 1,
        "stemmed: picture(s) on the front page: {page}"
    );
    for key in ["total", "count", "page", "totalpage", "data", "facets"] {
        assert!(page.get(key).is_some(), "PrEV's shape: {key}");
    }
}

#[test]
fn facets_count_and_narrow_the_results() {
    let e = super::shared_explorer("search-facets", true);
    let all = e
        .get_ready(
            "/api/v1/search?facets=mime,year,host,jhove,puid&size=100",
            None,
        )
        .json();
    let total = all["total"].as_u64().unwrap();
    assert!(total >= 16, "every file and the root page: {total}");
    let mimes = all["facets"]["mime"].as_array().unwrap();
    let sum: u64 = mimes.iter().map(|m| m["count"].as_u64().unwrap()).sum();
    assert_eq!(sum, total, "each capture has one MIME type");
    let jpeg = mimes.iter().find(|m| m["value"] == "image/jpeg").unwrap()["count"]
        .as_u64()
        .unwrap();
    let narrowed = e
        .get_ready(
            &format!("/api/v1/search?mime={}&facets=mime", enc("image/jpeg")),
            None,
        )
        .json();
    assert_eq!(narrowed["total"].as_u64().unwrap(), jpeg);
    assert_eq!(narrowed["facets"]["mime"].as_array().unwrap().len(), 1);
    // Two values of one facet are alternatives; two facets both apply.
    let two = e
        .get_ready(
            &format!(
                "/api/v1/search?mime={}&mime={}",
                enc("image/jpeg"),
                enc("image/png")
            ),
            None,
        )
        .json();
    assert!(two["total"].as_u64().unwrap() > jpeg);
    let puids = all["facets"]["puid"].as_array().unwrap();
    assert!(
        puids.iter().any(|p| p["value"] == "fmt/43"),
        "Siegfried's PUID of the JPEG: {puids:?}"
    );
    let jhove = all["facets"]["jhove"].as_array().unwrap();
    assert!(jhove.iter().any(|j| j["value"] == "valid"), "{jhove:?}");
}

#[test]
fn captures_are_counted_on_a_calendar_of_years_months_and_days() {
    let e = super::shared_explorer("search-calendar", true);
    let page = e
        .get_ready("/api/v1/search?facets=year,month,day", None)
        .json();
    let total = page["total"].as_u64().unwrap();
    let year = &page["facets"]["year"][0];
    assert_eq!(
        year["count"].as_u64().unwrap(),
        total,
        "one harvest, one year"
    );
    let y = year["value"].as_str().unwrap().to_owned();
    let month = page["facets"]["month"][0]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    let day = page["facets"]["day"][0]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        month.starts_with(&y) && day.starts_with(&month),
        "{y} {month} {day}"
    );
    for (facet, value) in [("year", &y), ("month", &month), ("day", &day)] {
        let narrowed = e
            .get_ready(&format!("/api/v1/search?{facet}={value}"), None)
            .json();
        assert_eq!(
            narrowed["total"].as_u64().unwrap(),
            total,
            "{facet}={value}"
        );
    }
    let before = e.get_ready("/api/v1/search?until=2000-01-01", None).json();
    assert_eq!(before["total"], 0);
}

#[test]
fn chinese_and_japanese_words_find_their_pages() {
    let e = super::shared_explorer("search-cjk", true);
    let zh = e
        .get_ready(&format!("/api/v1/search?q={}", enc("北京")), None)
        .json();
    let urls = each(&zh, "data", "url");
    assert_eq!(urls.len(), 1, "{zh}");
    assert!(urls[0].ends_with("zh/beijing.html"));
    assert_eq!(zh["data"][0]["lang"], "cmn");
    // 首都 (capital) is a word of both pages.
    let both = e
        .get_ready(&format!("/api/v1/search?q={}", enc("首都")), None)
        .json();
    let urls = each(&both, "data", "url");
    assert!(
        urls.iter().any(|u| u.ends_with("ja/tokyo.html"))
            && urls.iter().any(|u| u.ends_with("zh/beijing.html")),
        "{urls:?}"
    );
    let ja = e
        .get_ready(&format!("/api/v1/search?q={}&lang=jpn", enc("東京")), None)
        .json();
    assert_eq!(ja["total"], 1, "{ja}");
}

#[test]
fn accented_words_are_found_with_or_without_their_accents() {
    let e = super::shared_explorer("search-accents", true);
    for q in ["café", "Zürich", "zurich", "CAFE", "東京"] {
        let page = e
            .get_ready(&format!("/api/v1/search?q={}", enc(q)), None)
            .json();
        let urls = each(&page, "data", "url");
        assert!(
            urls.iter().any(|u| u.ends_with("docs/readme.txt")),
            "q={q}: {urls:?}"
        );
    }
    let terms = e
        .get_ready(&format!("/api/v1/terms?q={}", enc("café")), None)
        .json();
    let words = each(&terms, "terms", "term");
    assert!(words.iter().any(|w| w == "café"), "{words:?}");
    assert!(!words.iter().any(|w| w == "caf"), "{words:?}");
}

#[test]
fn kana_words_find_their_page() {
    let e = super::shared_explorer("search-kana", true);
    for q in ["カタカナ", "ひらがな", "コーヒー"] {
        let page = e
            .get_ready(&format!("/api/v1/search?q={}", enc(q)), None)
            .json();
        let urls = each(&page, "data", "url");
        assert_eq!(urls.len(), 1, "q={q}: {page}");
        assert!(urls[0].ends_with("ja/kana.html"), "q={q}: {urls:?}");
    }
}

#[test]
fn the_text_of_a_compressed_file_is_searchable() {
    let e = super::shared_explorer("search-gzip", true);
    let page = e.get_ready("/api/v1/search?q=zephyrine", None).json();
    let urls = each(&page, "data", "url");
    assert_eq!(urls.len(), 1, "{page}");
    assert!(urls[0].ends_with("docs/changelog.gz"), "{urls:?}");
    assert!(
        page["data"][0]["snippet"]
            .as_str()
            .unwrap_or_default()
            .contains("<b>zephyrine</b>"),
        "{page}"
    );
}

#[test]
fn boolean_queries_mean_what_they_say() {
    let e = super::shared_explorer("search-boolean", true);
    let total = |q: &str| {
        let page = e
            .get_ready(&format!("/api/v1/search?q={}", enc(q)), None)
            .json();
        page["total"]
            .as_u64()
            .unwrap_or_else(|| panic!("q={q}: {page}"))
    };
    let example = total("example");
    let both = total("example AND report");
    assert!(example > both && both > 0, "{example} {both}");
    for q in [
        "example AND NOT report",
        "example -report",
        "example NOT report",
    ] {
        assert_eq!(total(q), example - both, "q={q}");
    }
    assert_eq!(total("example OR report"), example + total("report") - both);
    assert_eq!(total("+example +report"), both);
    assert!(total("exam*") >= example, "a prefix");
    assert_eq!(
        total("\"example site\""),
        total("\"example site\" AND example")
    );
}

#[test]
fn the_word_cloud_lists_the_frequent_words_of_the_results() {
    let e = super::shared_explorer("search-terms", true);
    let terms = e.get_ready("/api/v1/terms?size=200", None).json();
    let words = each(&terms, "terms", "term");
    assert!(words.iter().any(|w| w == "example"), "{words:?}");
    assert!(!words.iter().any(|w| w == "the"), "stop words are left out");
    let zh = e
        .get_ready(&format!("/api/v1/terms?q={}", enc("北京")), None)
        .json();
    let words = each(&zh, "terms", "term");
    assert!(
        words.iter().any(|w| w == "北京") && words.iter().any(|w| w == "首都"),
        "{words:?}"
    );
}

#[test]
fn bad_queries_get_400_with_what_is_wrong_never_500() {
    let e = super::shared_explorer("search-bad", true);
    for (target, says) in [
        ("/api/v1/search?q=title%3A", "q="),
        ("/api/v1/search?q=%28unclosed", "q="),
        ("/api/v1/search?size=0", "size"),
        ("/api/v1/search?colour=red", "unknown parameter"),
        ("/api/v1/search?from=yesterday", "not a date"),
        ("/api/v1/search?sort=best", "sort"),
        ("/api/v1/search?q=%FF", "form encoding"),
        ("/api/v1/captures", "url="),
        ("/api/v1/terms?size=9999", "size"),
        (
            "/api/v1/search?q=%22gnu+general",
            "quotation mark is not closed",
        ),
        ("/api/v1/search?q=license+AND", "AND needs a word after it"),
        (
            "/api/v1/search?q=colour%3Ared",
            "there is no field \"colour\"",
        ),
        ("/api/v1/search?year=abcd", "year=\"abcd\" is not a date"),
        (
            "/api/v1/search?month=2026-13",
            "month=\"2026-13\" is not a date",
        ),
        (
            "/api/v1/search?day=2026-02-30",
            "day=\"2026-02-30\" is not a date",
        ),
        ("/api/v1/terms?day=2026-02-30", "not a date"),
    ] {
        let r = e.get_ready(target, None);
        assert_eq!(r.status, 400, "{target}: {}", r.body);
        let msg = r.json()["error"]["message"].as_str().unwrap().to_owned();
        assert!(msg.contains(says), "{target}: {msg}");
        assert!(!msg.contains("Syntax Error"), "no parser text: {msg}");
    }
    let r = e.get("/api/v1/nothing-here", None);
    assert_eq!(r.status, 404);
    assert!(r.json()["error"]["message"].is_string());
}

#[test]
fn a_search_cut_by_its_time_budget_says_it_is_partial() {
    let e = super::shared_explorer("search-budget", true);
    let full = e.get_ready("/api/v1/search", None).json();
    assert_eq!(full["partial"], false);
    let cut = e.get_ready("/api/v1/search?timeout_ms=0", None).json();
    assert_eq!(cut["partial"], true, "{cut}");
    assert!(cut["total"].as_u64().unwrap() < full["total"].as_u64().unwrap());
}

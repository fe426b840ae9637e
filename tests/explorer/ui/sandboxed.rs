//! An archived page is someone else's HTML and scripts: as a memento it runs in a sandbox of its
//! own, and its scripts can read nothing of the explorer's origin (docs/explorer.md, "Mementos
//! are sandboxed").

use integration_tests::browser::Browser;

use super::page;
use crate::memento::mementos;
use crate::{harvested, shared_explorer};

/// What a script of the page it runs in can reach of the explorer's origin: its origin, the
/// storage and cookie the explorer's own page set, and the API with the visitor's cookies.
const PROBE: &str = r#"
const tried = (f) => { try { return String(f()); } catch (e) { return 'denied'; } };
const seen = {
    origin: self.origin,
    storage: tried(() => localStorage.getItem('modoai-probe')),
    cookie: tried(() => document.cookie),
};
return fetch('/api/v1/me', { credentials: 'include' })
    .then((r) => 'status ' + r.status, () => 'blocked')
    .then((api) => Object.assign(seen, { api }));
"#;

#[tokio::test]
async fn an_archived_page_cannot_read_or_call_the_explorer() {
    let e = shared_explorer("ui-sandboxed", false);
    let url = format!("{}about.html", harvested().base);
    let tm = e.get_ready(&format!("/timemap/link/{url}"), None);
    let (uri_m, _, _) = mementos(&tm.body).remove(0);
    let path = &uri_m[uri_m.find("/memento/").unwrap()..];
    let m = e.get(path, None);
    assert_eq!(m.status, 200);
    assert_eq!(m.header("x-content-type-options"), Some("nosniff"));
    let csp = m.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.starts_with("sandbox") && !csp.contains("allow-same-origin"),
        "{csp}"
    );

    let b = Browser::start(1000, 800).await;
    // The explorer's own page: what a visitor's browser holds for the explorer's origin.
    b.open(&page(&e, "/search")).await;
    let own = b
        .script(&format!(
            "localStorage.setItem('modoai-probe', 'secret'); \
             document.cookie = 'modoai-probe=secret; path=/'; {PROBE}"
        ))
        .await;
    assert_eq!(own["storage"], "secret", "the control: {own}");
    assert!(
        own["cookie"]
            .as_str()
            .unwrap()
            .contains("modoai-probe=secret"),
        "{own}"
    );
    assert_eq!(own["api"], "status 401", "{own}");

    // The archived page, as a memento: the same script is the page's own.
    b.open(&page(&e, path)).await;
    let archived = b.script(PROBE).await;
    assert_eq!(archived["origin"], "null", "an opaque origin: {archived}");
    assert_eq!(archived["storage"], "denied", "{archived}");
    assert_eq!(archived["cookie"], "denied", "{archived}");
    assert_eq!(archived["api"], "blocked", "{archived}");
    b.close().await;
}

//! What a list's identifiers say about the endpoint's own site: whether its root page `/` should
//! be captured after the list ([`SiteRoot`]).

use std::cell::Cell;

use url::Url;

/// What a list's identifiers said about the endpoint's site, as its records arrive.
#[derive(Debug)]
pub(super) struct SiteRoot {
    /// `scheme://host[:port]/` of the endpoint, when it is an http(s) URL.
    root: Option<String>,
    /// The root's origin, parsed once.
    origin: Option<url::Origin>,
    /// An identifier was a URL of the endpoint's origin.
    same_origin: Cell<bool>,
    /// An identifier was the root URL itself: an OAI record holds it already.
    is_record: Cell<bool>,
}

impl SiteRoot {
    pub(super) fn new(endpoint: &str) -> Self {
        let root = Url::parse(endpoint)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .map(|u| u.join("/").map_or_else(|_| u.to_string(), String::from));
        let origin = root
            .as_deref()
            .and_then(|r| Url::parse(r).ok())
            .map(|u| u.origin());
        SiteRoot {
            root,
            origin,
            same_origin: Cell::new(false),
            is_record: Cell::new(false),
        }
    }

    /// Notes a record's identifier.
    pub(super) fn see(&self, identifier: &str) {
        if self.is_record.get() {
            return; // nothing left to learn
        }
        let (Some(root), Some(origin)) = (&self.root, &self.origin) else {
            return;
        };
        if plainly_below(root, identifier) {
            self.same_origin.set(true);
            return;
        }
        let Ok(url) = Url::parse(identifier) else {
            return;
        };
        if url.origin() == *origin {
            self.same_origin.set(true);
            self.is_record
                .set(self.is_record.get() || url.as_str() == root.as_str());
        }
    }

    /// The root URL to capture: the identifiers were URLs of the endpoint's origin, and none
    /// was the root itself.
    pub(super) fn to_capture(&self) -> Option<&str> {
        let wanted = self.same_origin.get() && !self.is_record.get();
        self.root.as_deref().filter(|_| wanted)
    }
}

/// Whether `identifier` is `root` (`scheme://host[:port]/`, as the URL parser writes it)
/// followed by a path that cannot come back to the root: not empty, no dot segment, no
/// percent sign, backslash, space or control character. Such an identifier has the root's
/// origin and is not the root, without parsing it.
fn plainly_below(root: &str, identifier: &str) -> bool {
    let Some(rest) = identifier.strip_prefix(root) else {
        return false;
    };
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    !path.is_empty()
        && rest
            .bytes()
            .all(|b| b > b' ' && b != 0x7f && !matches!(b, b'%' | b'\\'))
        && !path
            .split('/')
            .any(|segment| segment == "." || segment == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_captured_for_identifiers_of_the_endpoint_s_origin_only() {
        let site = SiteRoot::new("http://127.0.0.1:8080/modoai");
        assert_eq!(site.to_capture(), None, "no identifier seen yet");
        site.see("oai:example.org:1");
        site.see("http://127.0.0.1:9999/a.pdf");
        assert_eq!(site.to_capture(), None, "another origin");
        site.see("http://127.0.0.1:8080/docs/a.pdf");
        assert_eq!(site.to_capture(), Some("http://127.0.0.1:8080/"));
        site.see("http://127.0.0.1:8080/");
        assert_eq!(site.to_capture(), None, "an OAI record holds it already");
        assert_eq!(SiteRoot::new("urn:x:y").to_capture(), None);
    }

    #[test]
    fn the_shortcut_agrees_with_the_url_parser() {
        let root = "http://127.0.0.1:8080/";
        let origin = Url::parse(root).unwrap().origin();
        for id in [
            "http://127.0.0.1:8080/docs/a.pdf",
            "http://127.0.0.1:8080/a.b/c.txt?x=1#y",
            "http://127.0.0.1:8080/.",
            "http://127.0.0.1:8080/a/..",
            "http://127.0.0.1:8080/a/../",
            "http://127.0.0.1:8080/%2e",
            "http://127.0.0.1:8080/\\",
            "http://127.0.0.1:8080/\t",
            "http://127.0.0.1:8080/?",
            "http://127.0.0.1:8080/#",
            "http://127.0.0.1:8080/",
            "http://127.0.0.1:8080",
            "http://127.0.0.1:80800/x",
        ] {
            if plainly_below(root, id) {
                let url = Url::parse(id).unwrap();
                assert_eq!(url.origin(), origin, "{id}");
                assert_ne!(url.as_str(), root, "{id}");
            }
        }
        assert!(plainly_below(root, "http://127.0.0.1:8080/docs/a.pdf"));
        assert!(!plainly_below(root, "http://127.0.0.1:8080/a/.."));
        assert!(!plainly_below(root, "http://127.0.0.1:8080/"));
    }
}

//! The query string of a search page, kept as the pairs it came as (the API's parameters), and
//! the links that change one thing in it: narrow by a facet value, widen by dropping one, move
//! on the calendar, turn the page.

use crate::search::{Facet, SearchParams};
use crate::web::{links, AppError, FromPairs, Pairs};

/// A search page's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// The checked search, counting `facets`; a mistake is a 400 saying what is wrong.
    pub(super) fn params(&self, facets: Vec<Facet>) -> Result<SearchParams, AppError> {
        let pairs: Vec<(String, String)> = self
            .pairs
            .iter()
            .filter(|(k, _)| k != "facets")
            .cloned()
            .collect();
        let mut p = SearchParams::parse(&pairs).map_err(AppError::BadRequest)?;
        p.facets = facets;
        Ok(p)
    }

    /// The words searched.
    pub(super) fn q(&self) -> &str {
        self.first("q").unwrap_or_default()
    }

    /// The first value of `name`.
    pub(super) fn first(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `name=value` is among the pairs.
    pub(super) fn has(&self, name: &str, value: &str) -> bool {
        self.pairs.iter().any(|(k, v)| k == name && v == value)
    }

    /// The pairs, as given.
    pub(super) fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The facet filters, as given.
    pub(super) fn filters(&self) -> Vec<(Facet, &str)> {
        self.pairs
            .iter()
            .filter_map(|(k, v)| Some((k.parse::<Facet>().ok()?, v.as_str())))
            .collect()
    }

    /// Narrowed by `name=value` (kept once), from the first page.
    pub(super) fn with(&self, name: &str, value: &str) -> Query {
        let mut q = self.without_page();
        if !q.has(name, value) {
            q.pairs.push((name.to_owned(), value.to_owned()));
        }
        q
    }

    /// Without `name=value` (every value of `name` when `value` is `None`), from the first page.
    pub(super) fn without(&self, name: &str, value: Option<&str>) -> Query {
        let mut q = self.without_page();
        q.pairs
            .retain(|(k, v)| !(k == name && value.is_none_or(|value| v == value)));
        q
    }

    /// With `name=value` as the only value of `name`, from the first page.
    pub(super) fn set(&self, name: &str, value: &str) -> Query {
        self.without(name, None).with(name, value)
    }

    /// Page `n` (from 1, as the address and the page count) of the same search.
    pub(super) fn page(&self, n: usize) -> Query {
        let mut q = self.without_page();
        if n > 1 {
            q.pairs.push(("page".into(), n.to_string()));
        }
        q
    }

    fn without_page(&self) -> Query {
        let mut q = self.clone();
        q.pairs.retain(|(k, _)| k != "page");
        q
    }

    /// The search page's link for these pairs.
    pub(super) fn href(&self) -> String {
        links::search(
            self.pairs
                .iter()
                .filter(|(k, v)| k != "q" || !v.is_empty())
                .map(|(k, v)| (k.as_str(), v.as_str())),
        )
    }
}

/// The pairs as given; empty values are left out (a form's empty fields), except `q`.
impl FromPairs for Query {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        let pairs = pairs
            .into_iter()
            .filter(|(k, v)| k == "q" || !v.trim().is_empty())
            .collect();
        Ok(Query { pairs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Query {
        /// The query of a query string, as the pages read it.
        pub(in crate::ui) fn parse(raw: Option<String>) -> Result<Query, AppError> {
            Query::from_pairs(crate::web::pairs(raw.as_deref())?)
        }
    }

    fn q(s: &str) -> Query {
        Query::parse(Some(s.to_owned())).unwrap()
    }

    #[test]
    fn links_narrow_widen_and_page() {
        let base = q("q=old+maps&host=a.org&page=3&from=&sort=");
        assert_eq!(base.q(), "old maps");
        assert_eq!(base.first("from"), None, "empty fields are left out");
        assert_eq!(
            base.with("mime", "image/png").href(),
            "/search?q=old+maps&host=a.org&mime=image%2Fpng"
        );
        assert_eq!(
            base.with("host", "a.org").href(),
            "/search?q=old+maps&host=a.org"
        );
        assert_eq!(
            base.without("host", Some("a.org")).href(),
            "/search?q=old+maps"
        );
        assert_eq!(
            base.set("host", "b.org&c").href(),
            "/search?q=old+maps&host=b.org%26c"
        );
        assert_eq!(base.page(2).href(), "/search?q=old+maps&host=a.org&page=2");
        assert_eq!(base.page(1).href(), "/search?q=old+maps&host=a.org");
        assert_eq!(q("q=").href(), "/search");
        assert_eq!(base.filters(), vec![(Facet::Host, "a.org")]);
    }

    #[test]
    fn mistakes_are_400_with_the_api_s_message() {
        let e = q("colour=red").params(vec![]).unwrap_err();
        assert_eq!(e.status(), 400);
        assert!(e.to_string().contains("unknown parameter"), "{e}");
        assert_eq!(
            Query::parse(Some("q=%FF".into())).unwrap_err().status(),
            400
        );
        let p = q("q=x&facets=nonsense").params(vec![Facet::Year]).unwrap();
        assert_eq!(p.facets, [Facet::Year], "the page chooses its facets");
    }
}

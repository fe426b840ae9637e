//! What an API key may see: filters on facets (`host:example.org`, `mime:image/*`,
//! `archive:NAME`). A capture is in scope when, for every facet the scope names, one of its
//! values matches; an empty scope is everything.

use std::fmt;
use std::str::FromStr;

use super::facet::Facet;

/// One filter of a scope: a facet and a value, or a prefix when it ends with `*`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Filter {
    /// The facet.
    pub facet: Facet,
    /// The value, `*` at the end for a prefix.
    pub value: String,
}

impl Filter {
    /// The prefix, when the value ends with `*`.
    pub fn prefix(&self) -> Option<&str> {
        self.value.strip_suffix('*')
    }
}

impl FromStr for Filter {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (facet, value) = s.split_once(':').ok_or_else(|| {
            format!("{s:?} is not FACET:VALUE (e.g. host:example.org, mime:image/*)")
        })?;
        let facet: Facet = facet.parse()?;
        let body = value.strip_suffix('*').unwrap_or(value);
        if value.is_empty() || body.contains('*') {
            return Err(format!(
                "{s:?}: the value must not be empty, and may end with one * for a prefix"
            ));
        }
        Ok(Filter {
            facet,
            value: value.to_owned(),
        })
    }
}

impl TryFrom<String> for Filter {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Filter> for String {
    fn from(f: Filter) -> String {
        f.to_string()
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.facet, self.value)
    }
}

/// A set of filters; empty = no restriction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope(pub Vec<Filter>);

impl Scope {
    /// Everything.
    pub fn all() -> Scope {
        Scope(Vec::new())
    }

    /// Whether nothing is restricted.
    pub fn is_all(&self) -> bool {
        self.0.is_empty()
    }

    /// The filters grouped by facet, in order of first appearance.
    pub fn by_facet(&self) -> Vec<(Facet, Vec<&Filter>)> {
        let mut out: Vec<(Facet, Vec<&Filter>)> = Vec::new();
        for f in &self.0 {
            match out.iter_mut().find(|(k, _)| *k == f.facet) {
                Some((_, v)) => v.push(f),
                None => out.push((f.facet, vec![f])),
            }
        }
        out
    }

    /// Whether a capture's values of `facet` pass the scope's filters of that facet (for
    /// checks outside the index, such as an archive name).
    pub fn admits(&self, facet: Facet, value: &str) -> bool {
        let filters: Vec<&Filter> = self.0.iter().filter(|f| f.facet == facet).collect();
        filters.is_empty()
            || filters.iter().any(|f| match f.prefix() {
                Some(p) => value.starts_with(p),
                None => f.value == value,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters() {
        let f: Filter = "mime:image/*".parse().unwrap();
        assert_eq!((f.facet, f.prefix()), (Facet::Mime, Some("image/")));
        assert_eq!(f.to_string(), "mime:image/*");
        assert!("mime".parse::<Filter>().is_err());
        assert!("colour:red".parse::<Filter>().is_err());
        assert!("host:".parse::<Filter>().is_err());
        assert!("host:*a*".parse::<Filter>().is_err());
        // A value ending in a character of several bytes (found by fuzzing the key file).
        let f: Filter = "host:bücher.é".parse().unwrap();
        assert_eq!((f.value.as_str(), f.prefix()), ("bücher.é", None));
        assert!("host:é*ü*".parse::<Filter>().is_err());
        assert_eq!("host:é*".parse::<Filter>().unwrap().prefix(), Some("é"));
        let s = Scope(vec![
            "archive:a".parse().unwrap(),
            "archive:b".parse().unwrap(),
        ]);
        assert!(s.admits(Facet::Archive, "b") && !s.admits(Facet::Archive, "c"));
        assert!(s.admits(Facet::Host, "anything"));
        assert_eq!(s.by_facet().len(), 1);
    }
}

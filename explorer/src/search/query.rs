//! A search's tantivy query: the text, the facet filters, the time range and the caller's
//! scope, all required.

use std::ops::Bound;

use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, RangeQuery, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Index, Term};
use time::OffsetDateTime;

use super::facet::Facet;
use super::library::SearchError;
use super::params::SearchParams;
use super::scope::{Filter, Scope};
use super::text::{regex_escape, QueryText};
use crate::index::{date_value, Fields};

/// Builds the query of `params` within `scope`. A query text that cannot be searched is a
/// [`QueryError`](super::QueryError) saying what to change; a scope that cannot be, a bad
/// request.
pub fn build(
    index: &Index,
    fields: &Fields,
    params: &SearchParams,
    scope: &Scope,
) -> Result<Box<dyn Query>, SearchError> {
    let mut must: Vec<Box<dyn Query>> = Vec::new();
    if !params.q.trim().is_empty() {
        // The stemmed fields, and the accent-folded words of any language beside them.
        let defaults = vec![fields.title, fields.text, fields.path, fields.words];
        must.push(QueryText::new(index, defaults).parse(&params.q)?);
    }
    let mut by_facet: Vec<(Facet, Vec<Box<dyn Query>>)> = Vec::new();
    for (facet, value) in &params.filters {
        let q = term(fields, *facet, value);
        match by_facet.iter_mut().find(|(f, _)| f == facet) {
            Some((_, v)) => v.push(q),
            None => by_facet.push((*facet, vec![q])),
        }
    }
    for (_, alternatives) in by_facet {
        must.push(any(alternatives));
    }
    if params.from.is_some() || params.until.is_some() {
        let bound = |t: Option<OffsetDateTime>, incl: bool| match t {
            Some(t) => {
                let term = Term::from_field_date(fields.time, date_value(t));
                if incl {
                    Bound::Included(term)
                } else {
                    Bound::Excluded(term)
                }
            }
            None => Bound::Unbounded,
        };
        must.push(Box::new(RangeQuery::new(
            bound(params.from, true),
            bound(params.until, true),
        )));
    }
    if let Some(q) = scope_query(fields, scope).map_err(SearchError::BadRequest)? {
        must.push(q);
    }
    if params.parts_only {
        let any = RegexQuery::from_pattern(".+", fields.pwid).map_err(SearchError::Index)?;
        must.push(Box::new(any));
    }
    Ok(match must.len() {
        0 => Box::new(AllQuery),
        1 => must.pop().expect("one query"),
        _ => Box::new(BooleanQuery::new(
            must.into_iter().map(|q| (Occur::Must, q)).collect(),
        )),
    })
}

/// The query of a scope; `None` for everything.
pub fn scope_query(fields: &Fields, scope: &Scope) -> Result<Option<Box<dyn Query>>, String> {
    if scope.is_all() {
        return Ok(None);
    }
    let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (_, filters) in scope.by_facet() {
        let qs: Result<Vec<Box<dyn Query>>, String> =
            filters.iter().map(|f| filter(fields, f)).collect();
        must.push((Occur::Must, any(qs?)));
    }
    Ok(Some(Box::new(BooleanQuery::new(must))))
}

fn filter(fields: &Fields, f: &Filter) -> Result<Box<dyn Query>, String> {
    match f.prefix() {
        None => Ok(term(fields, f.facet, &f.value)),
        Some(prefix) => {
            let pattern = format!("{}.*", regex_escape(prefix));
            let q = RegexQuery::from_pattern(&pattern, field(fields, f.facet))
                .map_err(|e| e.to_string())?;
            Ok(Box::new(q))
        }
    }
}

/// An exact value of a facet.
pub fn term(fields: &Fields, facet: Facet, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field(fields, facet), value),
        IndexRecordOption::Basic,
    ))
}

fn any(mut qs: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    if qs.len() == 1 {
        return qs.pop().expect("one query");
    }
    Box::new(BooleanQuery::new(
        qs.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

/// The index field of a facet.
pub fn field(f: &Fields, facet: Facet) -> Field {
    match facet {
        Facet::Year => f.year,
        Facet::Month => f.month,
        Facet::Day => f.day,
        Facet::Host => f.host,
        Facet::Mime => f.mime,
        Facet::Set => f.set,
        Facet::Puid => f.puid,
        Facet::Jhove => f.jhove,
        Facet::Lang => f.lang,
        Facet::Endpoint => f.endpoint,
        Facet::Harvest => f.harvest,
        Facet::Archive => f.archive,
        Facet::Camera => f.camera,
        Facet::Kind => f.kind,
        Facet::Sha1 => f.sha1,
        Facet::Status => f.status,
        Facet::Flag => f.flag,
    }
}

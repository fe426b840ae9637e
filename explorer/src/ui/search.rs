//! The search page (`/` and `/search`): the results of a query with its facet filters, beside
//! the facet counts, the calendar, the share of MIME types and formats, and the word cloud of
//! the same captures. Its parameters are the API's (`/api/v1/search`), so a page's address is
//! also its API call.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use maud::{html, Markup};

use super::query::Query;
use super::{calendar, chart, cloud, error, facets, layout, results};
use crate::api::{run, AppState, Door};
use crate::search::{Facet, Page, Terms};

/// Words in the word cloud.
const CLOUD_WORDS: usize = 40;

/// `GET /` and `GET /search`.
pub(super) async fn page(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = match Query::parse(raw) {
        Ok(q) => q,
        Err(e) => return error::page(e),
    };
    let mut wanted: Vec<Facet> = calendar::facets(&query);
    wanted.extend(facets::SIDEBAR);
    let params = match query.params(wanted) {
        Ok(p) => p,
        Err(e) => return error::page(e),
    };
    let answer = run(state, &headers, Door::Public, move |s, caller| {
        let scope = caller.scope();
        let page = s.library.search(&params, &scope)?;
        let terms = s.library.terms(&params, &scope, CLOUD_WORDS)?;
        Ok(render(&query, &page, &terms))
    })
    .await;
    match answer {
        Ok((markup, fields)) => layout::answer(markup, fields),
        Err(e) => error::page(e),
    }
}

fn render(query: &Query, page: &Page, terms: &Terms) -> Markup {
    let title = match query.q() {
        "" => "Browse the archive".to_owned(),
        q => format!("{q} — search"),
    };
    layout::page(
        &title,
        query.q(),
        html! {
            div.layout {
                aside.sidebar { (facets::sidebar(query, page)) }
                section.results {
                    (results::summary(query, page))
                    (results::list(query, page))
                    (results::paging(query, page))
                }
                aside.overview {
                    (calendar::calendar(query, &page.facets))
                    (chart::shares(query, page))
                    (cloud::cloud(query, terms))
                }
            }
        },
    )
}

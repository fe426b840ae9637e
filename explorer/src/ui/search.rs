//! The search page (`/` and `/search`): the results of a query with its facet filters, beside
//! the facet counts, the calendar, the share of MIME types and formats, and the word cloud of
//! the same captures. Its parameters are the API's (`/api/v1/search`), so a page's address is
//! also its API call.

use axum::response::IntoResponse;
use maud::{html, Markup};

use super::query::Query;
use super::{calendar, chart, cloud, export, facets, help, layout, results};
use crate::search::{Facet, Page, SearchParams, Terms};
use crate::web::{AppError, Caller, FromPairs, Pairs, Params, Public};

/// Words in the word cloud.
const CLOUD_WORDS: usize = 40;

/// A page's query and the search it runs, counting the facets the page shows.
pub(super) struct Wanted {
    query: Query,
    params: SearchParams,
}

impl FromPairs for Wanted {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        let query = Query::from_pairs(pairs)?;
        let mut wanted: Vec<Facet> = calendar::facets(&query);
        wanted.extend(facets::SIDEBAR);
        let params = query.params(wanted)?;
        Ok(Wanted { query, params })
    }
}

/// `GET /` and `GET /search`.
pub(super) async fn page(
    Params(Wanted { query, params }): Params<Wanted>,
    caller: Caller<Public>,
) -> Result<impl IntoResponse, AppError> {
    let markup = caller
        .run(move |s, who| {
            let scope = who.scope();
            let page = s.library.search(&params, &scope)?;
            let terms = s.library.terms(&params, &scope, CLOUD_WORDS)?;
            Ok(render(&query, &page, &terms, s.access.anonymous_api))
        })
        .await?;
    Ok((caller.rate_limit(), layout::html(markup)))
}

fn render(query: &Query, page: &Page, terms: &Terms, open_api: bool) -> Markup {
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
                    (help::help())
                    (results::summary(query, page))
                    (export::menu(query, page, open_api))
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

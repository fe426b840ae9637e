//! The archives a server searches, each with its index once it has one.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock};
use std::time::{Duration, Instant};

use tantivy::query::Query;
use tantivy::{IndexReader, ReloadPolicy, Searcher, TantivyDocument};

use super::collect::{Gather, Gathered};
use super::cursor::{search_print, state_print, Cursor, CursorError};
use super::facet::Facet;
use super::item::Item;
use super::names::name_puids;
use super::page::{FacetValue, Page};
use super::params::{SearchParams, Sort};
use super::query::build;
use super::scope::Scope;
use super::snippet::Snippets;
use super::text::QueryError;
use crate::collection::{unique, Collection};
use crate::index::{ArchiveIndex, Fields};
use crate::ExplorerError;

/// Values listed per facet at most (calendar facets list all).
const FACET_VALUES: usize = 50;

/// Why a search has no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The request is wrong: the message says how.
    #[error("{0}")]
    BadRequest(String),
    /// The query text cannot be searched: the message says what to change.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Archives in the caller's scope have no index yet (being built).
    #[error("not indexed yet: {}", .0.join(", "))]
    NotReady(Vec<String>),
    /// The index failed.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// A file beside the index (its deletions) cannot be read.
    #[error("{0}")]
    Unreadable(String),
    /// The cursor (`after=`) cannot continue this search: the message says what to do.
    #[error(transparent)]
    Cursor(#[from] CursorError),
}

/// One archive (collection) served.
#[derive(Debug)]
pub struct Served {
    /// Its name (the folder's name, made unique, or the name given).
    pub name: String,
    /// Its folder (or file, for a WARC, ARC or WACZ file).
    pub dir: PathBuf,
    /// What it is, and where its index is.
    pub collection: Collection,
    opened: RwLock<Option<Opened>>,
}

#[derive(Clone)]
pub(super) struct Opened {
    pub(super) index: ArchiveIndex,
    pub(super) reader: IndexReader,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// Opens (again) the archive's index after a build; a missing or damaged one leaves it
    /// unready.
    pub fn reopen(&self) -> Result<(), ExplorerError> {
        let opened = match ArchiveIndex::open_for_search_at(&self.collection.index)? {
            None => None,
            Some(index) => {
                let reader = index
                    .index()
                    .reader_builder()
                    .reload_policy(ReloadPolicy::OnCommitWithDelay)
                    .try_into()
                    .map_err(ExplorerError::index(index.path()))?;
                Some(Opened { index, reader })
            }
        };
        *self.opened.write().unwrap_or_else(PoisonError::into_inner) = opened;
        Ok(())
    }

    /// Takes the index away (it is being rebuilt).
    pub fn close(&self) {
        *self.opened.write().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Whether it has an index to search.
    pub fn is_ready(&self) -> bool {
        self.opened
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    pub(super) fn opened(&self) -> Option<Opened> {
        self.opened
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Makes the searcher see the last commit now.
    pub fn reload(&self) {
        if let Some(o) = self.opened() {
            let _ = o.reader.reload();
        }
    }
}

/// The archives served.
#[derive(Debug)]
pub struct Library {
    pub(super) archives: Vec<Served>,
    pub(super) budget: Duration,
}

/// One archive's part of a search.
pub(super) struct Part {
    /// The archive's place among those served.
    pub(super) archive: u32,
    pub(super) searcher: Searcher,
    pub(super) fields: Fields,
    query: Box<dyn Query>,
    pub(super) gathered: Gathered,
}

impl Library {
    /// The archives at `dirs`, named by their folders (`name`, `name-2`, … when two folders
    /// have the same name); searches stop collecting after `budget`.
    pub fn new(dirs: &[PathBuf], budget: Duration) -> Library {
        let mut names: HashSet<String> = HashSet::new();
        let collections = dirs
            .iter()
            .map(|dir| Collection::archive(dir, unique(&mut names, &archive_name(dir))))
            .collect();
        Library::of(collections, budget)
    }

    /// The collections `collections` (named and placed by [`crate::collection::collections`]).
    pub fn of(collections: Vec<Collection>, budget: Duration) -> Library {
        let archives = collections
            .into_iter()
            .map(|c| Served {
                name: c.name.clone(),
                dir: c.input.path().to_owned(),
                collection: c,
                opened: RwLock::new(None),
            })
            .collect();
        Library { archives, budget }
    }

    /// The archives.
    pub fn archives(&self) -> &[Served] {
        &self.archives
    }

    /// The archives in `scope` without an index.
    pub fn not_ready(&self, scope: &Scope) -> Vec<String> {
        self.archives
            .iter()
            .filter(|a| scope.admits(Facet::Archive, &a.name) && !a.is_ready())
            .map(|a| a.name.clone())
            .collect()
    }

    /// Runs `params` in every archive of `scope`, gathering `top` hits (after `params.after`,
    /// which must have been made by the same search on the same index state). Also gives the
    /// fingerprint of the index state searched.
    pub(super) fn run(
        &self,
        params: &SearchParams,
        scope: &Scope,
        top: usize,
        facets: Vec<Facet>,
    ) -> Result<(Vec<Part>, u64), SearchError> {
        let budget = params.budget.map_or(self.budget, |b| b.min(self.budget));
        self.run_until(params, scope, top, facets, Instant::now() + budget)
    }

    /// [`Library::run`], collecting until `deadline`.
    pub(super) fn run_until(
        &self,
        params: &SearchParams,
        scope: &Scope,
        top: usize,
        facets: Vec<Facet>,
        deadline: Instant,
    ) -> Result<(Vec<Part>, u64), SearchError> {
        let waiting = self.not_ready(scope);
        if !waiting.is_empty() {
            return Err(SearchError::NotReady(waiting));
        }
        let mut opened = Vec::new();
        for (i, a) in self.archives.iter().enumerate() {
            if !scope.admits(Facet::Archive, &a.name) {
                continue;
            }
            let Some(o) = a.opened() else { continue };
            let searcher = o.reader.searcher();
            opened.push((i as u32, a.name.as_str(), o, searcher));
        }
        let state = state_print(opened.iter().map(|(_, n, _, s)| (*n, s)));
        if let Some(c) = &params.after {
            c.check(search_print(params, scope), state)?;
        }
        let mut parts = Vec::new();
        for (archive, _, o, searcher) in opened {
            let fields = o.index.fields();
            let query = build(o.index.index(), &fields, params, scope)?;
            let gather = Gather {
                top,
                sort: params.sort,
                facets: facets.clone(),
                deadline,
                after: params.after.map(|c| c.bound_for(archive)),
            };
            let gathered = searcher.search(&*query, &gather)?;
            parts.push(Part {
                archive,
                searcher,
                fields,
                query,
                gathered,
            });
        }
        Ok((parts, state))
    }

    /// A page of results.
    pub fn search(&self, params: &SearchParams, scope: &Scope) -> Result<Page, SearchError> {
        let started = Instant::now();
        let window = (params.page + 1) * params.size;
        let top = if params.group_sha1 {
            window * 4
        } else {
            window
        };
        let (parts, state) = self.run(params, scope, top, params.facets.clone())?;
        let mut all = Gathered::default();
        let mut hits: Vec<(f64, usize, tantivy::DocAddress)> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            hits.extend(part.gathered.hits.iter().map(|(k, a)| (*k, p, *a)));
            all.merge(
                Gathered {
                    hits: Vec::new(),
                    ..part.gathered.clone()
                },
                0,
            );
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut seen = HashSet::new();
        let mut data = Vec::new();
        let mut skipped = 0;
        // One pair of snippet generators per archive, made when its first hit needs them.
        let mut generators: Vec<Option<Snippets>> = parts.iter().map(|_| None).collect();
        let mut last = None;
        for (key, p, addr) in hits {
            let part = &parts[p];
            // Without grouping, the hits of earlier pages are skipped before their documents
            // are read.
            if !params.group_sha1 && skipped < params.page * params.size {
                skipped += 1;
                continue;
            }
            let doc: TantivyDocument = part.searcher.doc(addr)?;
            let mut item = Item::of(&doc, &part.fields);
            if params.group_sha1 && !seen.insert(item.sha1.clone()) {
                continue;
            }
            if params.group_sha1 && skipped < params.page * params.size {
                skipped += 1;
                continue;
            }
            if params.sort == Sort::Relevance {
                item.score = Some(key);
            }
            if !params.q.trim().is_empty() {
                let snippets = generators[p].get_or_insert_with(|| {
                    Snippets::new(&part.searcher, &*part.query, &part.fields)
                });
                item.snippet = snippets.of(&part.fields, &doc);
            }
            if params.group_sha1 {
                item.copies = Some(self.count_sha1(&item.sha1, scope)?);
            }
            data.push(item);
            last = Some((key, part.archive, addr));
            if data.len() == params.size {
                break;
            }
        }
        let page = params.after.map_or(params.page, |c| c.page as usize);
        let more = all.past > (skipped + data.len()) as u64;
        let next = match last {
            Some((key, part, addr)) if more && !all.partial && !params.group_sha1 => Some(Cursor {
                key,
                part,
                addr,
                page: page as u32 + 1,
                search: search_print(params, scope),
                state,
            }),
            _ => None,
        };
        let mut facets = facet_lists(all.facets);
        if let Some(puids) = facets.get_mut(Facet::Puid.name()) {
            let archives: Vec<_> = parts.iter().map(|p| (&p.searcher, &p.fields)).collect();
            name_puids(&archives, puids);
        }
        Ok(Page {
            total: all.count,
            count: data.len(),
            page: page + 1,
            totalpage: all.count.div_ceil(params.size as u64),
            partial: all.partial,
            took_ms: started.elapsed().as_millis() as u64,
            data,
            facets,
            next: next.map(|c| c.encode()),
        })
    }

    /// Captures in scope.
    pub fn count(&self, scope: &Scope) -> Result<u64, SearchError> {
        let params = SearchParams {
            size: 1,
            facets: Vec::new(),
            ..SearchParams::default()
        };
        Ok(self
            .run(&params, scope, 0, Vec::new())?
            .0
            .iter()
            .map(|p| p.gathered.count)
            .sum())
    }
}

/// Facet counts as lists: calendar facets by period, others most frequent first.
fn facet_lists(facets: HashMap<Facet, HashMap<String, u64>>) -> BTreeMap<String, Vec<FacetValue>> {
    facets
        .into_iter()
        .map(|(facet, values)| {
            let mut list: Vec<FacetValue> = values
                .into_iter()
                .filter(|(value, _)| facet != Facet::Set || !is_mime_set(value))
                .map(|(value, count)| FacetValue {
                    value,
                    count,
                    name: None,
                })
                .collect();
            if facet.is_calendar() {
                list.sort_by(|a, b| a.value.cmp(&b.value));
            } else {
                list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
                list.truncate(FACET_VALUES);
            }
            (facet.name().to_owned(), list)
        })
        .collect()
}

/// Whether `spec` is one of modoai's MIME sets (`mime`, `mime:image:jpeg`): the OAI set facet
/// leaves them out, since the MIME facet counts the same captures; a `set=` filter still takes
/// them.
fn is_mime_set(spec: &str) -> bool {
    spec == "mime" || spec.starts_with("mime:")
}

/// An archive's name: its folder's name.
fn archive_name(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    dir.file_name().map_or_else(
        || "archive".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    )
}

//! The OAI-PMH endpoint: a repository over the site index, and the handler of its six verbs.

mod guard;
mod handler;
mod list;
mod paging;
mod records;
mod repository;
pub(crate) mod response;
mod sets;
pub(crate) mod token;
mod verbs;

pub(crate) use handler::handle;
pub(crate) use repository::Repository;
pub(crate) use response::OaiBody;

/// The arguments of a request, in the order given.
type Pairs = Vec<(String, String)>;

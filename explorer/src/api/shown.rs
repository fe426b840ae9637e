//! A capture as the API shows it: its fields, and the path of its memento on this server.

use serde::Serialize;

use crate::search::Item;
use crate::web::links;

/// An [`Item`] with its `memento` path.
#[derive(Debug, Serialize)]
pub(super) struct Shown {
    #[serde(flatten)]
    item: Item,
    /// The memento's path on this server.
    memento: String,
}

impl From<Item> for Shown {
    fn from(item: Item) -> Shown {
        Shown {
            memento: links::memento(&item.timestamp, &item.url),
            item,
        }
    }
}

/// `items`, shown.
pub(super) fn all(items: Vec<Item>) -> Vec<Shown> {
    items.into_iter().map(Shown::from).collect()
}

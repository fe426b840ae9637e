//! The body type of every answer of the file service, streamed or whole.

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;

use crate::fetch::BoxError;

/// The body of [`super::SiteService`] responses.
pub type SiteBody = UnsyncBoxBody<Bytes, BoxError>;

//! [`Reply`]: a whole HTTP response as the in-process [`Server`]'s client reads it, with the
//! accessors and the schema check the tests use.
//!
//! [`Server`]: crate::Server

use std::collections::BTreeMap;

use bytes::Bytes;
use http::{HeaderMap, StatusCode};

use crate::xml::{attrs, element_attrs, texts};
use crate::xsd::xsd_validate;

/// A whole HTTP response.
pub struct Reply {
    /// Status.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Bytes,
}

impl Reply {
    /// The body as UTF-8.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("UTF-8 body")
    }

    /// Every `code` of the `<error>` elements.
    pub fn error_codes(&self) -> Vec<String> {
        attrs(&self.body, "error", "code")
    }

    /// Text of every element with this local name.
    pub fn texts(&self, local: &str) -> Vec<String> {
        texts(&self.body, local)
    }

    /// The attributes of the `request` element.
    pub fn request_attrs(&self) -> BTreeMap<String, String> {
        element_attrs(&self.body, "request")
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// The `resumptionToken` element: its text and attributes, if present.
    pub fn token(&self) -> Option<(String, BTreeMap<String, String>)> {
        let attrs = element_attrs(&self.body, "resumptionToken")
            .into_iter()
            .next()?;
        let text = texts(&self.body, "resumptionToken")
            .into_iter()
            .next()
            .unwrap_or_default();
        Some((text, attrs))
    }

    /// Asserts HTTP 200 and `text/xml; charset=UTF-8`, and validates against the schemas.
    pub fn assert_valid(&self) -> &Self {
        assert_eq!(
            self.status,
            StatusCode::OK,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.headers["content-type"], "text/xml; charset=UTF-8");
        if let Err(e) = xsd_validate(&self.body) {
            panic!(
                "response does not validate: {e}\n{}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(4000)])
            );
        }
        self
    }
}

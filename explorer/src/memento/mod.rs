//! Memento (RFC 7089) and PWID resolution over HTTP.

mod datetime;

pub use datetime::{http_date, parse_http_date, parse_timestamp14, timestamp14};

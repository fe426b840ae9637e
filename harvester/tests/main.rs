//! Integration tests of modoai-harvester, one module per area.

mod cdxj;
mod client;
mod parse;
mod profile;
mod support;
mod surt;
mod warc;

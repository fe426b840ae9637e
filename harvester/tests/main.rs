//! Integration tests of modoai-harvester, one module per area.

mod cdxj;
mod parse;
mod surt;
mod warc;

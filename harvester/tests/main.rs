//! Integration tests of modoai-harvester, one module per area.

mod parse;

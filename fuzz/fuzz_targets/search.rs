//! The explorer's search parameters and the queries they make, as `/api/v1/search` and the search
//! page receive them (see `modoai_explorer::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_explorer::fuzzing::search(data));

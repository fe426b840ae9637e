//! Memento's dates (`Accept-Datetime`) and URI-Ms (`/memento/TIMESTAMP/URI-R`) as the explorer
//! reads them (see `modoai_explorer::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_explorer::fuzzing::memento(data));

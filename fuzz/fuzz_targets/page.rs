//! The harvester's streaming page parser on arbitrary and mutated real pages, buffered and with a
//! metadata sink (see `modoai_harvester::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_harvester::fuzzing::page(data));

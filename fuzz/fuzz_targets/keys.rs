//! The explorer's key file, as an administrator may have edited it (see
//! `modoai_explorer::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_explorer::fuzzing::keys(data));

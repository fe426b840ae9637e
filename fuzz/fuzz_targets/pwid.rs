//! PWIDs as `/pwid/` receives them and corpus definitions hold them, in the URN and the historical
//! form (see `modoai_archive::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_archive::fuzzing::pwid(data));

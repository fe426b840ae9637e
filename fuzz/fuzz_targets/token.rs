//! Resumption tokens: arbitrary strings decoded, payloads signed with the fuzzing key and
//! decoded, structured tokens round-tripped (see `modoai::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai::fuzzing::token(data));

//! OAI-PMH arguments: query strings and form bodies of arbitrary bytes, parsed and re-encoded
//! (see `modoai_protocol::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_protocol::fuzzing::request(data));

//! The record reader of any web archive on arbitrary and mutated WARC/ARC files, plain and gzip
//! (see `modoai_archive::fuzzing`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modoai_archive::fuzzing::records(data));

//! Debug dump (scratch, not committed).
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let source = modoai_archive::any::Source::file(path);
    for f in modoai_archive::any::Records::open(&source, Default::default()).unwrap() {
        match f {
            modoai_archive::any::Found::Record(r) => println!(
                "{} {:?} {} {} {:?} {:?} {:?} {:?}",
                r.kind,
                r.location.framing,
                r.location.offset,
                r.location.length,
                r.block_digest,
                r.payload_digest,
                r.truncated,
                r.fields.target_uri
            ),
            modoai_archive::any::Found::Skipped(s) => {
                println!("SKIP {} {} {} {}", s.start, s.end, s.bytes, s.reason)
            }
        }
    }
}

//! `modoai-harvester harvest … --index` without `modoai-explorer` beside it: the harvest is
//! complete, and the message says what to install.

use integration_tests::process::{program, start_modoai};
use integration_tests::TestSite;

use super::{harvest_into, work_dir};

#[test]
fn harvest_index_without_the_explorer_beside_it_says_what_to_install() {
    let work = work_dir("harvest-alone");
    let site = TestSite::empty();
    site.write("a.txt", b"alone", Some(1_700_000_000));
    let (server, port) = start_modoai(site.path(), &work, "", &[]);
    // A harvester installed without the explorer beside it.
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(program("modoai-harvester"), bin.join("modoai-harvester")).unwrap();
    let archive = work.join("archive");
    let oai = format!("http://127.0.0.1:{port}/modoai");
    let out = harvest_into(&bin.join("modoai-harvester"), &oai, &archive, &["--index"]);
    drop(server);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("modoai-explorer") && said.contains("cargo build -p modoai-explorer"),
        "{said}"
    );
    let ledger = std::fs::read_to_string(archive.join("ledger.jsonl")).unwrap();
    assert!(ledger.contains("/a.txt"), "the harvest itself is complete");
}

//! The file watcher with the real `modoai` binary: reading files (visitors' GETs, the server's
//! own folder walks) is not a change. inotify reports every open; were opens changes, each GET
//! would rescan its folder, and each rescan would open the folder again: an idle server spinning
//! on a core.

use std::time::Duration;

use integration_tests::http::{get, MARGIN};
use integration_tests::process::start_modoai;

/// CPU time (user + system) the process has used, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name: state is field 3, utime 14 and stime 15.
    let rest = stat.rsplit_once(')').unwrap().1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn clock_ticks_per_second() -> u64 {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn reading_files_triggers_no_rescan() {
    let root = tempfile::tempdir().unwrap();
    for dir in 0..4 {
        let d = root.path().join(format!("d{dir}"));
        std::fs::create_dir(&d).unwrap();
        for i in 0..500 {
            std::fs::write(d.join(format!("f{i}.txt")), format!("line {i}\n")).unwrap();
        }
    }
    let work = tempfile::tempdir().unwrap();
    let (server, port) = start_modoai(root.path(), work.path(), "", &[]);
    for dir in 0..4 {
        let page = get(port, &format!("/d{dir}/f7.txt"));
        assert!(page.starts_with(b"HTTP/1.0 200"), "{page:?}");
    }
    // The server is idle from here: what it spends is what the GETs set off.
    std::thread::sleep(Duration::from_millis(500));
    let pid = server.0.id();
    let before = cpu_ticks(pid);
    let idle = Duration::from_secs(3);
    std::thread::sleep(idle);
    let used = cpu_ticks(pid) - before;
    let hz = clock_ticks_per_second();
    // An idle server uses next to nothing; a server rescanning in a loop uses a whole core
    // (3 s of CPU here). A fifth of the interval tells the two apart on any machine.
    assert!(
        used * 5 < idle.as_secs() * hz,
        "the idle server used {used} ticks of CPU ({hz}/s) in {idle:?}: rescanning on reads"
    );
    // Changes are still seen: a new file becomes a record.
    std::fs::write(root.path().join("d1/new.txt"), "new\n").unwrap();
    let id = format!("http://127.0.0.1:{port}/d1/new.txt");
    let query = format!("/modoai?verb=GetRecord&metadataPrefix=oai_dc&identifier={id}");
    let t = std::time::Instant::now();
    while !String::from_utf8_lossy(&get(port, &query)).contains("<record>") {
        assert!(t.elapsed() < MARGIN, "the new file never became a record");
        std::thread::sleep(Duration::from_millis(100));
    }
}

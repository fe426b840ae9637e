use super::*;

const PDF: &[u8] =
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";

fn payload(dir: &Path, name: &str, bytes: &[u8]) -> Payload {
    let file = dir.join(name);
    std::fs::write(&file, bytes).unwrap();
    Payload {
        file,
        name: name.to_owned(),
        mime: "application/pdf".to_owned(),
        size: bytes.len() as u64,
    }
}

#[test]
fn siegfried_identifies_once_per_digest() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let Ok(id) = Identifier::siegfried(state.path(), runtime.handle().clone()) else {
        panic!("modoai-siegfried is installed by scripts/setup");
    };
    let payloads = [
        payload(files.path(), "AAAA.pdf", PDF),
        payload(files.path(), "BBBB", b""),
    ];
    let found = id.identify(&payloads);
    let pdf = found[0].as_ref().expect("a PDF is identified");
    assert!(pdf.puid.starts_with("fmt/"), "{pdf:?}");
    assert!(pdf.format.contains("Portable Document Format"), "{pdf:?}");
    assert_eq!(pdf.tool, "siegfried");
    assert!(!pdf.version.is_empty());
    let date = time::macros::date!(2026 - 06 - 01);
    let source = pdf.source(date);
    assert!(
        source == format!("explorer, indexed 2026-06-01, {}", pdf.version)
            && source.contains("siegfried 1."),
        "{source}"
    );
    assert_eq!(found[1], None, "an empty payload has no format");
    assert_eq!(id.runner().counts(), Counts { cached: 0, run: 2 });
    id.runner().shutdown();
    // Another run (a new identifier, as a new `index` process) finds both in the cache.
    let again = Identifier::siegfried(state.path(), runtime.handle().clone()).unwrap();
    assert_eq!(again.identify(&payloads), found);
    assert_eq!(again.runner().counts(), Counts { cached: 2, run: 0 });
    assert_eq!(again.runner().processes_started(), 0);
    assert!(again.runner().cache_dir().starts_with(state.path()));
}

#[test]
fn known_payloads_are_answered_by_name_without_their_bytes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let state = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let id = Identifier::siegfried(state.path(), runtime.handle().clone()).unwrap();
    let pdf = payload(files.path(), "CCCC.pdf", PDF);
    let size = PDF.len() as u64;
    assert_eq!(id.known("CCCC.pdf", "application/pdf", size), None);
    let found = id.identify(std::slice::from_ref(&pdf));
    id.runner().shutdown();
    std::fs::remove_file(&pdf.file).unwrap();
    // A new process asks by name alone: the cache answers, no file is read, nothing runs.
    let again = Identifier::siegfried(state.path(), runtime.handle().clone()).unwrap();
    let known = again.known("CCCC.pdf", "application/pdf", size);
    assert_eq!(known, Some(found[0].clone()));
    assert_eq!(again.runner().counts(), Counts { cached: 1, run: 0 });
    assert_eq!(again.known("CCCC.pdf", "application/pdf", size + 1), None);
    assert_eq!(again.known("DDDD.pdf", "application/pdf", size), None);
    assert_eq!(
        again.runner().counts(),
        Counts { cached: 1, run: 0 },
        "misses count nothing"
    );
    assert_eq!(again.runner().processes_started(), 0);
}

//! The OpenAPI document: valid OpenAPI 3.1 (openapi-spec-validator), and true of the real
//! answers (schemathesis sends generated requests, valid and invalid, and checks every response
//! against the document: status codes, content types, headers, bodies, no server errors).

use std::process::Command;

use integration_tests::venv_tool;

use super::{add_key, harvested, work_dir, Explorer};

#[test]
fn the_openapi_document_is_valid_and_true_of_the_real_answers() {
    let work = work_dir("openapi");
    let key = add_key(&work.join("keys.toml"), "schemathesis", &[]);
    let e = Explorer::start(&[&harvested().archive], &work, "");
    assert_eq!(e.get_ready("/api/v1/search", Some(&key)).status, 200);
    let doc = e.get("/api/v1/openapi.json", None);
    let path = work.join("openapi.json");
    std::fs::write(&path, &doc.bytes).unwrap();
    let out = Command::new(venv_tool("openapi-spec-validator"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Every check but one: a request the schema allows may still be refused with 400 when its
    // query text does not parse or its page lies past the first 10,000 results, which a JSON
    // Schema cannot express.
    let out = Command::new(venv_tool("schemathesis"))
        .args([
            "run",
            &format!("http://127.0.0.1:{}/api/v1/openapi.json", e.port),
        ])
        .args(["-H", &format!("Authorization: Bearer {key}")])
        .args([
            "--max-examples",
            "25",
            "--exclude-checks",
            "positive_data_acceptance",
            "--seed",
            "1",
        ])
        .current_dir(&work)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

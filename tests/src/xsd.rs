//! XSD validation of our responses with xmllint (no XSD validator crate is mature enough).

use std::process::{Command, Stdio};

use crate::process::require_tool;
use crate::site::repo_root;

/// Validates a response with xmllint against `schemas/modoai-all.xsd` (OAI-PMH, oai_dc, DIDL, modoai).
pub fn xsd_validate(xml: &[u8]) -> Result<(), String> {
    require_tool("xmllint", "apt-get install libxml2-utils");
    let schema = repo_root().join("schemas/modoai-all.xsd");
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "--huge", "--schema"])
        .arg(&schema)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().expect("stdin");
    let data = xml.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

//! `datapackage.json` (a Frictionless Data Package with the WACZ 1.1.1 keys) and
//! `datapackage-digest.json`.

use std::collections::HashSet;

use serde::Serialize;

use super::digest::{sha256, Sum};
use super::pages::MainPage;

/// The WACZ version written, the one `wacz validate` requires.
pub const WACZ_VERSION: &str = "1.1.1";

/// One file of the package, as `resources` lists it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Resource {
    name: String,
    path: String,
    hash: String,
    bytes: u64,
}

/// `datapackage.json`.
#[derive(Debug, Serialize)]
pub(crate) struct DataPackage {
    profile: &'static str,
    wacz_version: &'static str,
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    created: String,
    software: String,
    #[serde(rename = "mainPageURL", skip_serializing_if = "Option::is_none")]
    main_page_url: Option<String>,
    #[serde(rename = "mainPageDate", skip_serializing_if = "Option::is_none")]
    main_page_date: Option<String>,
    resources: Vec<Resource>,
}

impl DataPackage {
    pub(crate) fn new(title: String, created: String) -> Self {
        DataPackage {
            profile: "data-package",
            wacz_version: WACZ_VERSION,
            title,
            description: None,
            created,
            software: format!("modoai-harvester {}", env!("CARGO_PKG_VERSION")),
            main_page_url: None,
            main_page_date: None,
            resources: Vec::new(),
        }
    }

    /// Lists a file of the package.
    pub(crate) fn add(&mut self, path: &str, sum: Sum) {
        let taken: HashSet<&str> = self.resources.iter().map(|r| r.name.as_str()).collect();
        let name = unique(resource_name(path), &taken);
        self.resources.push(Resource {
            name,
            path: path.to_owned(),
            hash: sum.hash,
            bytes: sum.bytes,
        });
    }

    /// Sets the software that wrote the package (default: the harvester).
    pub(crate) fn software(&mut self, software: &str) {
        self.software = software.to_owned();
    }

    /// Sets the package's `description`.
    pub(crate) fn describe(&mut self, description: Option<&str>) {
        self.description = description.map(str::to_owned);
    }

    pub(crate) fn main_page(&mut self, page: Option<MainPage>) {
        if let Some(p) = page {
            self.main_page_url = Some(p.url);
            self.main_page_date = Some(p.ts);
        }
    }

    /// The bytes of `datapackage.json` and of `datapackage-digest.json`, which holds their hash.
    pub(crate) fn to_bytes(&self) -> serde_json::Result<(Vec<u8>, Vec<u8>)> {
        let package = serde_json::to_vec_pretty(self)?;
        let digest = serde_json::json!({"path": "datapackage.json", "hash": sha256(&package)});
        Ok((package, serde_json::to_vec_pretty(&digest)?))
    }
}

/// A Frictionless resource name for a path: lowercase, with every character outside
/// `[-a-z0-9._/]` replaced by `-`.
pub(crate) fn resource_name(path: &str) -> String {
    path.chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '.' | '_' | '/' => c,
            _ => '-',
        })
        .collect()
}

fn unique(name: String, taken: &HashSet<&str>) -> String {
    if !taken.contains(name.as_str()) {
        return name;
    }
    (2..)
        .map(|n| format!("{name}-{n}"))
        .find(|n| !taken.contains(n.as_str()))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_frictionless_pattern_and_stay_unique() {
        assert_eq!(
            resource_name("archive/Site A+b.warc.gz"),
            "archive/site-a-b.warc.gz"
        );
        let mut p = DataPackage::new("t".into(), "2026-01-01T00:00:00Z".into());
        let sum = || Sum {
            bytes: 1,
            hash: "sha256:00".into(),
        };
        p.add("archive/A.warc.gz", sum());
        p.add("archive/a.warc.gz", sum());
        let names: Vec<&str> = p.resources.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["archive/a.warc.gz", "archive/a.warc.gz-2"]);
    }

    #[test]
    fn the_digest_file_holds_the_hash_of_the_package_bytes() {
        let p = DataPackage::new("t".into(), "2026-01-01T00:00:00Z".into());
        let (package, digest) = p.to_bytes().unwrap();
        let digest: serde_json::Value = serde_json::from_slice(&digest).unwrap();
        assert_eq!(digest["hash"], sha256(&package));
        let package: serde_json::Value = serde_json::from_slice(&package).unwrap();
        assert_eq!(package["wacz_version"], "1.1.1");
        assert_eq!(package["profile"], "data-package");
    }
}

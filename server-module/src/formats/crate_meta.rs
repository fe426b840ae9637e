//! The CRATE part of `oai_crate`: one DIDL descriptor per plugin, holding a `crate:plugin`
//! element with the tool's label, version, command, status and output (see `schemas/crate.xsd`).
//!
//! Tool output is embedded so that it can never break the document: tools' text output may hold
//! C0 controls, `]]>` and bytes that are not UTF-8 (`docs/plugins.md`, "Tool facts"), so:
//! - declared `xml` and really well-formed (UTF-8, one root, no DOCTYPE, only XML 1.0 characters,
//!   only predefined entities, every prefix declared, as `modoai_tools` checks once per result
//!   in [`PluginResult::xml_root`]): embedded as a subtree, declaration dropped;
//! - otherwise UTF-8 text: escaped, characters XML forbids replaced by U+FFFD;
//! - otherwise (bytes that are not UTF-8): Base64, with `encoding="base64"`.
//!
//! Never a raw CDATA section: tool outputs contain `]]>`.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use modoai_protocol::crate_vocab::{attr, qualified, OutputEncoding};
use modoai_protocol::{ns, Datestamp};
use modoai_tools::PluginResult;

use crate::xml::Xml;

/// The CRATE-UID statement: the resource URL plus the dissemination instant.
pub(crate) fn write_uid(x: &mut Xml, identifier: &str, now: Datestamp) {
    let uid = format!("{identifier}#crate-{now}");
    statement(x, |x| {
        x.empty(
            qualified::CRATE,
            &[
                (qualified::XMLNS, ns::CRATE),
                (attr::UID, &uid),
                (attr::CREATED, &now.to_string()),
            ],
        )
    });
}

/// One descriptor per plugin result.
pub(crate) fn write_plugins(x: &mut Xml, results: &[std::sync::Arc<PluginResult>]) {
    for r in results {
        statement(x, |x| write_plugin(x, r));
    }
}

fn statement(x: &mut Xml, body: impl FnOnce(&mut Xml)) {
    x.start("didl:Descriptor", &[]);
    x.start(
        "didl:Statement",
        &[("mimeType", "application/xml; charset=utf-8")],
    );
    body(x);
    x.end("didl:Statement");
    x.end("didl:Descriptor");
}

/// One plugin's `crate:plugin` element. A result is written the same way every time, so its
/// bytes are made once and kept with it (a warm page copies them).
fn write_plugin(x: &mut Xml, r: &PluginResult) {
    let bytes = r.element.get_or_init(|| {
        let mut own = Xml::new();
        plugin_element(&mut own, r);
        own.take()
    });
    x.raw(bytes);
}

fn plugin_element(x: &mut Xml, r: &PluginResult) {
    let run = &r.run;
    let exit = run.exit_code.map(|c| c.to_string());
    let ms = run.duration_ms.to_string();
    let mut attrs = vec![
        (qualified::XMLNS, ns::CRATE),
        (attr::LABEL, r.label.as_str()),
        (attr::VERSION, r.version.as_str()),
        (attr::COMMAND, r.command.as_str()),
        (attr::STATUS, run.status.as_str()),
        (attr::DURATION_MS, ms.as_str()),
        (attr::CACHED, if r.cached { "true" } else { "false" }),
    ];
    if let Some(e) = &exit {
        attrs.push((attr::EXIT_CODE, e));
    }
    if run.truncated {
        attrs.push((attr::TRUNCATED, "true"));
    }
    if let Some(n) = &run.note {
        attrs.push((attr::NOTE, n));
    }
    x.start(qualified::PLUGIN, &attrs);
    if let Some(root) = &r.xml_root {
        x.start(
            qualified::OUTPUT,
            &[(attr::ENCODING, OutputEncoding::Xml.as_str())],
        );
        x.raw(&run.stdout[root.clone()]);
        x.end(qualified::OUTPUT);
    } else if !run.stdout.is_empty() {
        write_output(x, qualified::OUTPUT, &run.stdout);
    }
    if !run.stderr.is_empty() {
        write_output(x, qualified::STDERR, &run.stderr);
    }
    x.end(qualified::PLUGIN);
}

/// Output that is not embedded as XML: escaped text, or Base64 when it is not UTF-8.
fn write_output(x: &mut Xml, name: &str, bytes: &[u8]) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        x.leaf(
            name,
            &[(attr::ENCODING, OutputEncoding::Text.as_str())],
            text,
        );
    } else {
        x.leaf(
            name,
            &[(attr::ENCODING, OutputEncoding::Base64.as_str())],
            &B64.encode(bytes),
        );
    }
}

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
use modoai_protocol::{ns, Datestamp};
use modoai_tools::PluginResult;

use crate::xml::Xml;

/// The CRATE-UID statement: the resource URL plus the dissemination instant.
pub(crate) fn write_uid(x: &mut Xml, identifier: &str, now: Datestamp) {
    let uid = format!("{identifier}#crate-{now}");
    statement(x, |x| {
        x.empty(
            "crate:crate",
            &[
                ("xmlns:crate", ns::CRATE),
                ("uid", &uid),
                ("created", &now.to_string()),
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
        ("xmlns:crate", ns::CRATE),
        ("label", r.label.as_str()),
        ("version", r.version.as_str()),
        ("command", r.command.as_str()),
        ("status", run.status.as_str()),
        ("durationMs", ms.as_str()),
        ("cached", if r.cached { "true" } else { "false" }),
    ];
    if let Some(e) = &exit {
        attrs.push(("exitCode", e));
    }
    if run.truncated {
        attrs.push(("truncated", "true"));
    }
    if let Some(n) = &run.note {
        attrs.push(("note", n));
    }
    x.start("crate:plugin", &attrs);
    if let Some(root) = &r.xml_root {
        x.start("crate:output", &[("encoding", "xml")]);
        x.raw(&run.stdout[root.clone()]);
        x.end("crate:output");
    } else if !run.stdout.is_empty() {
        write_output(x, "crate:output", &run.stdout);
    }
    if !run.stderr.is_empty() {
        write_output(x, "crate:stderr", &run.stderr);
    }
    x.end("crate:plugin");
}

/// Output that is not embedded as XML: escaped text, or Base64 when it is not UTF-8.
fn write_output(x: &mut Xml, name: &str, bytes: &[u8]) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        x.leaf(name, &[("encoding", "text")], text);
    } else {
        x.leaf(name, &[("encoding", "base64")], &B64.encode(bytes));
    }
}

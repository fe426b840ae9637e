//! Recognising a `didl:Resource` start tag and reading its attributes.

use modoai_protocol::ns;
use quick_xml::events::BytesStart;
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

use super::attributes;
use crate::parse::{ParseError, ResourceInfo};

/// True for a `didl:Resource` start tag, whatever its prefix.
pub(super) fn is_resource<R>(reader: &NsReader<R>, e: &BytesStart<'_>) -> bool {
    let (resolved, local) = reader.resolve_element(e.name());
    local.as_ref() == b"Resource"
        && matches!(resolved, ResolveResult::Bound(Namespace(uri)) if uri == ns::DIDL.as_bytes())
}

/// The attributes of the `index`th `didl:Resource`, whose start tag is at `position`.
pub(super) fn resource_info(
    e: &BytesStart<'_>,
    index: usize,
    position: u64,
) -> Result<ResourceInfo, ParseError> {
    let mut info = ResourceInfo {
        index,
        ..ResourceInfo::default()
    };
    for (name, value) in attributes(e, position)? {
        match name.as_str() {
            "mimeType" => info.mime_type = Some(value),
            "ref" => info.reference = Some(value),
            "encoding" => info.encoding = Some(value),
            _ => {}
        }
    }
    Ok(info)
}

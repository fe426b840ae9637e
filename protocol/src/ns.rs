//! Namespaces and schema locations of OAI-PMH and the formats modoai speaks.

/// The OAI-PMH envelope namespace.
pub const OAI_PMH: &str = "http://www.openarchives.org/OAI/2.0/";
/// The official envelope schema.
pub const OAI_PMH_XSD: &str = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd";
/// XML Schema instance namespace (`xsi:schemaLocation`).
pub const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
/// The `oai_dc` container namespace.
pub const OAI_DC: &str = "http://www.openarchives.org/OAI/2.0/oai_dc/";
/// The `oai_dc` schema.
pub const OAI_DC_XSD: &str = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd";
/// Dublin Core elements 1.1.
pub const DC: &str = "http://purl.org/dc/elements/1.1/";
/// MPEG-21 DIDL (ISO/IEC 21000-2).
pub const DIDL: &str = "urn:mpeg:mpeg21:2002:02-DIDL-NS";
/// The DIDL schema, 2nd edition (2005).
pub const DIDL_XSD: &str =
    "http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-21_schema_files/did/didl.xsd";
/// MPEG-21 Digital Item Identification.
pub const DII: &str = "urn:mpeg:mpeg21:2002:01-DII-NS";
/// The project's own namespace for HTTP headers and CRATE metadata inside DIDL statements.
pub const MODOAI: &str = "urn:modoai:ns:2026";

/// The project's CRATE namespace: tool outputs inside `oai_crate` records (`schemas/crate.xsd`).
pub const CRATE: &str = "urn:modoai:crate:2026";

/// The metadataPrefix of Dublin Core, which every item supports (§3.4).
pub const PREFIX_OAI_DC: &str = "oai_dc";
/// The metadataPrefix of the file as an MPEG-21 DIDL complex object.
pub const PREFIX_OAI_DIDL: &str = "oai_didl";
/// The metadataPrefix of a CRATE: the DIDL of `oai_didl` plus the output of metadata tools.
pub const PREFIX_OAI_CRATE: &str = "oai_crate";

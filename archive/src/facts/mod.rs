//! What a record's metadata says, read back from its spooled XML (without the Base64, so small):
//! for a DIDL document its identifiers, HTTP headers, resources and CRATE plugin results. The
//! harvester reads them to check fixity and name payloads; the explorer to show a capture's
//! CRATE findings.
//!
//! ```
//! use modoai_archive::facts::Facts;
//!
//! let xml = r#"<didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS"
//!     xmlns:crate="urn:modoai:crate:2026"><didl:Item><didl:Descriptor><didl:Statement>
//!   <crate:plugin label="md5" version="1" status="ok"><crate:output encoding="text">
//!     0cc175b9c0f1b6a831c399e269772661</crate:output></crate:plugin>
//! </didl:Statement></didl:Descriptor></didl:Item></didl:DIDL>"#;
//! let facts = Facts::read(xml.as_bytes());
//! assert!(facts.didl);
//! assert_eq!(facts.plugins[0].label, "md5");
//! assert_eq!(facts.plugins[0].text, "0cc175b9c0f1b6a831c399e269772661");
//! ```

mod leaves;
mod record;

pub use leaves::xml_fields;
pub use record::{Facts, PluginFacts, ResourceFacts};

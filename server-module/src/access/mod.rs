//! Access control per metadata format: who may receive `oai_dc`, `oai_didl` or `oai_crate`.
//!
//! A format is open, or limited to HTTP Basic users, Bearer API keys and client address ranges
//! ([`Rule`]). The rule of a format guards every request that names it: ListRecords,
//! ListIdentifiers and GetRecord with its `metadataPrefix`, and the resumption tokens of such
//! lists (a token carries its prefix). Identify, ListSets and ListMetadataFormats stay open, and
//! ListMetadataFormats lists every format the repository supports, whether or not this client may
//! use it: it says what the repository can disseminate (OAI-PMH §4.4), and a harvester that
//! learns the format exists learns whom to ask for access. A metadataPrefix the repository does
//! not disseminate gets `cannotDisseminateFormat` as before.
//!
//! Requests the rule refuses get, before any file is opened or tool started:
//! - **401** with one `WWW-Authenticate` challenge per scheme the rule takes (`Basic`, `Bearer`)
//!   when credentials could admit the request: none were sent, or the `Authorization` header is
//!   malformed;
//! - **403** when they could not: the address is refused by an address-only rule (or by
//!   `require = "all"`), or the credentials sent are wrong or not admitted to this format;
//! - **503** with `Retry-After` while too many password checks run at once.
//!
//! Passwords are stored as Argon2id PHC strings ([`hash_password`]) and checked off the async
//! runtime; a verified password is remembered for a minute, so a harvest pays for one Argon2 run
//! per minute, not per page. API keys are random strings of at least 32 characters stored as
//! SHA-256 digests ([`hash_api_key`]) and compared in constant time. Secrets are never logged.
//!
//! ```
//! use modoai::access::{hash_api_key, AccessRules, Rule};
//! let key = modoai::access::generate_api_key(); // give this to the harvester
//! let rules = AccessRules::new()
//!     .api_key("crawler", &hash_api_key(&key)?)?
//!     .format("oai_didl", Rule::restricted().keys(["crawler"]))?;
//! let config = modoai::Config::new("public", "http://www.example.org/")?.access(rules);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod cidr;
mod client;
mod config;
mod error;
mod rule;
mod rules;
mod secret;

pub use modoai_gate::{generate_api_key, hash_api_key, KeyDigest, KeyError, MIN_API_KEY_LEN};

pub use cidr::{Cidr, CidrError};
pub use client::{ClientAddr, ForwardedHeader};
pub use config::{AccessSection, Require, RuleSection};
pub use error::AccessError;
pub use rule::Rule;
pub use rules::AccessRules;
pub use secret::{hash_password, SecretError};

pub(crate) use check::Verdict;
pub(crate) use client::{client_ip, with_peer};
pub(crate) use modoai_gate::{challenge, Credentials};
pub(crate) use rules::FORMATS;

//! [`AccessError`]: access rules that cannot work.

use super::SecretError;

/// An `[access]` section (or [`super::AccessRules`] built in code) that cannot work; the message
/// names the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AccessError {
    /// A stored password hash or key digest is unusable.
    // The cause is part of the message, not a `source()`: a report of the chain would print it
    // twice.
    #[error("[access.{table}] {name}: {error}")]
    Secret {
        /// `users` or `keys`.
        table: &'static str,
        /// The user name or key id.
        name: String,
        /// Why.
        error: SecretError,
    },
    /// A rule for a format modoai does not disseminate.
    #[error("no metadata format {0:?} (rules exist for oai_dc, oai_didl, oai_crate and default)")]
    UnknownFormat(String),
    /// A rule names a user missing from `[access.users]`.
    #[error("[access.{format}] names user {user:?}, who is not in [access.users]")]
    UnknownUser {
        /// The rule's format.
        format: String,
        /// The user.
        user: String,
    },
    /// A rule names a key missing from `[access.keys]`.
    #[error("[access.{format}] names key {key:?}, which is not in [access.keys]")]
    UnknownKey {
        /// The rule's format.
        format: String,
        /// The key id.
        key: String,
    },
    /// A rule that neither opens the format nor names anyone.
    #[error("[access.{0}]: set open = true, or name users, keys or addresses (open = false alone refuses everyone)")]
    EmptyRule(String),
    /// `open = true` together with users, keys or addresses.
    #[error("[access.{0}]: open = true admits everyone; remove users, keys and addresses or set open = false")]
    OpenAndRestricted(String),
    /// `require = "all"` without both an address range and credentials to require.
    #[error("[access.{0}]: require = \"all\" needs addresses and users or keys")]
    RequireAll(String),
}

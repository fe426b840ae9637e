//! `modoai hash-secret`.

use crate::cli::{CliError, HashSecretArgs};

/// Reads one line from stdin (without its line ending; never echoed) and prints its Argon2 hash,
/// or with `--api-key` its `sha256:` digest.
pub fn hash_secret(args: &HashSecretArgs) -> Result<(), CliError> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(CliError::runtime("reading the secret from stdin"))?;
    let secret = line.trim_end_matches(['\n', '\r']);
    let hashed = if args.api_key {
        crate::access::hash_api_key(secret).map_err(crate::access::SecretError::from)?
    } else {
        crate::access::hash_password(secret)?
    };
    println!("{hashed}");
    Ok(())
}

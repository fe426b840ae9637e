//! Checks of the settings given as text: the base URL and the admin e-mail addresses.

use http::Uri;

use super::ConfigError;

pub(super) fn parse_base_url(url: &str) -> Result<Uri, ConfigError> {
    let bad = || ConfigError::BaseUrl(url.to_owned());
    let uri: Uri = url.parse().map_err(|_| bad())?;
    let http = matches!(uri.scheme_str(), Some("http" | "https"));
    if !http || uri.authority().is_none() || uri.query().is_some() || url.contains('#') {
        return Err(bad());
    }
    Ok(uri)
}

/// The official validator's pattern: `^\w[\w\-\.]+@[a-zA-Z0-9\-\.]+\.[a-z]{2,}$`, and no `@localhost`.
pub(super) fn is_admin_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let local_ok = local.chars().count() >= 2
        && local.chars().next().is_some_and(word)
        && local.chars().all(|c| word(c) || c == '-' || c == '.');
    let Some((host, tld)) = domain.rsplit_once('.') else {
        return false;
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    local_ok && host_ok && tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn admin_emails() {
        for ok in [
            "webmaster@example.org",
            "a.b-c@mail.example.co.uk",
            "ab@x.io",
        ] {
            assert!(is_admin_email(ok), "{ok}");
        }
        for bad in [
            "a@example.org",
            "root@localhost",
            "mailto:ab@example.org",
            "ab@example.ORG",
            "ab@.org",
            "ab example@x.org",
        ] {
            assert!(!is_admin_email(bad), "{bad}");
        }
    }

    #[test]
    fn base_urls() {
        assert!(Config::new("r", "http://h:8080/").is_ok());
        assert!(Config::new("r", "ftp://h/").is_err());
        assert!(Config::new("r", "/relative").is_err());
        assert!(Config::new("r", "http://h/?q=1").is_err());
        let c = Config::new("r", "https://h.example/site/")
            .unwrap()
            .route("/oai")
            .unwrap();
        assert_eq!(c.oai_base_url(), "https://h.example/oai");
    }
}

//! The IA canonicaliser's session-id patterns, stripped from paths and queries, and its query
//! argument order.

use std::sync::LazyLock;

use regex::bytes::Regex;

pub(super) static PATH_SESSION_IDS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        r"^(?i-u)(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$",
        r"^(?i-u)(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$",
    ]
    .map(|re| Regex::new(re).unwrap())
});

pub(super) static QUERY_SESSION_IDS: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        r"^(?i-u)(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$",
    ]
    .map(|re| Regex::new(re).unwrap())
});

/// Applies each pattern in turn, as `stripPathSessionID` / `stripQuerySessionID` do.
pub(super) fn strip_session_ids(
    patterns: &[Regex],
    input: &[u8],
    replace: fn(&regex::bytes::Captures<'_>) -> Vec<u8>,
) -> Vec<u8> {
    let mut current = input.to_vec();
    for pattern in patterns {
        if let Some(caps) = pattern.captures(&current) {
            current = replace(&caps);
        }
    }
    current
}

pub(super) fn group<'h>(caps: &regex::bytes::Captures<'h>, i: usize) -> &'h [u8] {
    caps.get(i).map_or(&[], |m| m.as_bytes())
}

pub(super) fn path_session_replace(caps: &regex::bytes::Captures<'_>) -> Vec<u8> {
    [group(caps, 1), group(caps, 3)].concat()
}

pub(super) fn query_session_replace(caps: &regex::bytes::Captures<'_>) -> Vec<u8> {
    [group(caps, 1), group(caps, 2)].concat()
}

/// `alphaReorderQuery`: sort the `&` arguments as Python sorts `(name,)` / `(name, value)`
/// tuples, so `a` < `a=` < `a=1`, and bare names compare by name only.
pub(super) fn alpha_reorder_query(query: &[u8]) -> Vec<u8> {
    if query.len() <= 1 {
        return query.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = query
        .split(|&b| b == b'&')
        .map(|arg| match arg.iter().position(|&b| b == b'=') {
            Some(eq) => (&arg[..eq], Some(&arg[eq + 1..])),
            None => (arg, None),
        })
        .collect();
    args.sort();
    let joined: Vec<Vec<u8>> = args
        .into_iter()
        .map(|(name, value)| match value {
            Some(value) => [name, b"=", value].concat(),
            None => name.to_vec(),
        })
        .collect();
    joined.join(&b'&')
}

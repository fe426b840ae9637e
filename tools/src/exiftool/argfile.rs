//! A request's arguments as `-@` argument-file lines, which is how the worker receives them.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// `args` as `-@` argument-file lines, or why one of them cannot be sent.
///
/// ExifTool reads each line of an argument file as one argument but skips empty lines and lines
/// starting with `#`, strips leading white space and ends a line at a line break (exiftool(1),
/// `-@`). A few options would break the protocol itself.
pub(super) fn argfile_lines(args: &[OsString]) -> Result<Vec<u8>, String> {
    let mut lines = Vec::new();
    for arg in args {
        let bytes = arg.as_bytes();
        if let Some(reason) = unsendable(bytes) {
            return Err(format!(
                "exiftool argument {:?} cannot be sent to the worker: {reason}",
                arg
            ));
        }
        lines.extend_from_slice(bytes);
        lines.push(b'\n');
    }
    Ok(lines)
}

/// Why `arg` cannot be sent as one `-@` line to the worker, if it cannot.
fn unsendable(arg: &[u8]) -> Option<&'static str> {
    let lower = arg.to_ascii_lowercase();
    if arg.contains(&b'\n') || arg.contains(&b'\r') {
        Some("it contains a line break")
    } else if arg.is_empty() {
        Some("exiftool skips empty lines")
    } else if arg[0].is_ascii_whitespace() {
        Some("exiftool strips leading white space")
    } else if arg[0] == b'#' {
        Some("exiftool reads lines starting with # as comments")
    } else if arg == b"--" {
        Some("after it exiftool would read -execute as a file name")
    } else if lower == b"-stay_open" || lower == b"-@" || lower.starts_with(b"-execute") {
        Some("it would break the worker's protocol")
    } else {
        None
    }
}

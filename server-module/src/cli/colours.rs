//! Whether log lines on standard error may carry ANSI colours.

use std::io::IsTerminal;

/// True when standard error is a terminal and `NO_COLOR` is unset or empty (no-color.org): a
/// log file, a pipe or journald gets plain text.
pub fn colours() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

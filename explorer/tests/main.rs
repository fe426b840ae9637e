//! The explorer library's integration tests.

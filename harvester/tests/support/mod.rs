//! Support for these tests: the fault server.

// The scripted HTTP server the client tests misbehave with. It is the one of the end-to-end
// tests' support library (tests/src/fault), included by path: this crate cannot depend on
// `integration-tests`, which depends on it. Each test module uses a part of it.
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../../../tests/src/fault/mod.rs"]
mod fault;

pub(crate) use fault::{generated_byte, FaultServer, Reply};

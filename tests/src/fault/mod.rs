//! [`FaultServer`]: an in-process HTTP/1.1 server on `127.0.0.1:0` that
//! answers each request from a script and can misbehave on purpose (drop the connection, cut
//! or stall the body, delay the head, stream a huge generated body).
//!
//! ```ignore
//! let server = FaultServer::start(|req: &RequestInfo| match req.n {
//!     0 => Reply::status(503).header("Retry-After", "1"),
//!     _ => Reply::ok("<OAI-PMH/>"),
//! });
//! let url = server.url("/oai?verb=Identify");
//! // ... request url ...
//! let requests = server.requests(); // with arrival and finish instants
//! ```
//!
//! The server runs on its own thread and runtime, so it serves whatever the test does with its
//! own (block on it, use a current-thread runtime, call from a blocking thread). It knows no
//! OAI-PMH: scripts build the bodies.
//!
//! The harvester's own client tests use it too: `harvester/tests/support/mod.rs` includes this
//! module by path, because that crate cannot depend on this one (this one depends on it).

mod reply;
mod server;
mod wire;

pub use reply::{generated_byte, Reply};
pub use server::{FaultServer, RequestInfo};

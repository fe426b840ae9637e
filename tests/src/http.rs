//! The one HTTP GET (and bodiless POST) of the tests that talk to a server process: a plain
//! socket, HTTP/1.0, the response read whole or as a stream.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpStream};
use std::time::Duration;

/// How long a test waits for a server to start, answer or exit before calling it hung; also the
/// read timeout of [`send_get`].
pub const MARGIN: Duration = Duration::from_secs(30);

/// Sends `GET target` to `127.0.0.1:port` with `headers` and returns the connection, ready for
/// the response to be read; `None` when nothing listens. The request is HTTP/1.0, so the body
/// comes unchunked and ends where the connection does. Reads time out after [`MARGIN`].
pub fn send_get(port: u16, target: &str, headers: &[(&str, &str)]) -> Option<TcpStream> {
    send_request(port, "GET", target, headers)
}

/// [`send_get`] with another `method` (a POST without a body: `Content-Length: 0` is sent).
pub fn send_request(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> Option<TcpStream> {
    let s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    Some(send_on(s, method, target, headers))
}

/// [`send_get`] from the source address `from` (another loopback address, such as 127.0.0.2):
/// a client that a server, or a proxy in front of it, sees at that address.
pub fn send_get_from(
    from: Ipv4Addr,
    port: u16,
    target: &str,
    headers: &[(&str, &str)],
) -> Option<TcpStream> {
    use rustix::net::{bind, connect, socket_with, AddressFamily, SocketFlags, SocketType};
    let fd = socket_with(
        AddressFamily::INET,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .expect("a TCP socket");
    bind(&fd, &SocketAddrV4::new(from, 0)).unwrap_or_else(|e| panic!("bind to {from}: {e}"));
    connect(&fd, &SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)).ok()?;
    Some(send_on(TcpStream::from(fd), "GET", target, headers))
}

/// A whole HTTP/1.0 response to `GET target` with `headers`, sent from `from` (see
/// [`send_get_from`]); empty when nothing listens.
pub fn get_from(from: Ipv4Addr, port: u16, target: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let Some(mut s) = send_get_from(from, port, target, headers) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

/// Sends the request head on the connection `s`.
fn send_on(mut s: TcpStream, method: &str, target: &str, headers: &[(&str, &str)]) -> TcpStream {
    s.set_read_timeout(Some(MARGIN)).expect("read timeout");
    let mut head = format!("{method} {target} HTTP/1.0\r\nHost: t\r\n");
    if method != "GET" {
        head.push_str("Content-Length: 0\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("send the request");
    s
}

/// A whole HTTP/1.0 response to `GET target`, head included; empty when nothing listens.
pub fn get(port: u16, target: &str) -> Vec<u8> {
    let Some(mut s) = send_get(port, target, &[]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

/// [`get`] as text, retried while the server answers 503 (it is still building its index).
pub fn get_when_ready(port: u16, target: &str) -> String {
    for _ in 0..200 {
        let out = String::from_utf8_lossy(&get(port, target)).into_owned();
        if !out.starts_with("HTTP/1.0 503") {
            return out;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("the index never became ready");
}

/// The status code of a response read with [`send_get`] or [`get`]; 0 when there is none.
pub fn status_code(response: &[u8]) -> u16 {
    let head = String::from_utf8_lossy(&response[..response.len().min(12)]).into_owned();
    head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0)
}

/// One `read` that is tried again when a signal interrupts it (`EINTR`): the test binary's other
/// tests run servers whose signal handlers (SIGCHLD, SIGTERM) interrupt blocking reads here.
pub fn read_some(stream: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match stream.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

//! HTTP/1.1 on the wire, just enough for the fault server: read a request, write a [`Reply`]
//! with its faults.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufStream};
use tokio::net::TcpStream;

use super::reply::Reply;

/// Body bytes per write.
const SLICE: u64 = 64 * 1024;
/// Longest request line or header line accepted.
const MAX_LINE: usize = 64 * 1024;

pub(crate) struct RequestHead {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// The next request on the connection; `None` when the client closed it or sent garbage.
pub(crate) async fn read_request(stream: &mut BufStream<TcpStream>) -> Option<RequestHead> {
    let line = read_line(stream).await?;
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let line = read_line(stream).await?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers.iter().find(|(n, _)| n == "content-length");
    let length: usize = length.map_or(Some(0), |(_, v)| v.parse().ok())?;
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some(RequestHead {
        method,
        target,
        headers,
        body,
    })
}

async fn read_line(stream: &mut BufStream<TcpStream>) -> Option<String> {
    let mut line = String::new();
    let read = (&mut *stream)
        .take(MAX_LINE as u64)
        .read_line(&mut line)
        .await
        .ok()?;
    if read == 0 || !line.ends_with('\n') {
        return None;
    }
    Some(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// Sends `reply`; whether the connection can carry another request.
pub(crate) async fn write_reply(
    stream: &mut BufStream<TcpStream>,
    reply: &Reply,
    sent: &AtomicU64,
) -> bool {
    if reply.drop_connection {
        return false;
    }
    tokio::time::sleep(reply.head_delay).await;
    let complete = async {
        stream.write_all(head(reply).as_bytes()).await?;
        write_body(stream, reply, sent).await
    };
    complete.await.unwrap_or(false)
}

fn head(reply: &Reply) -> String {
    let reason = http::StatusCode::from_u16(reply.status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("Status");
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let has = |wanted: &str| {
        reply
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(wanted))
    };
    if reply.chunked {
        head.push_str("Transfer-Encoding: chunked\r\n");
    } else if !has("content-length") {
        head.push_str(&format!("Content-Length: {}\r\n", reply.body_len()));
    }
    head.push_str("\r\n");
    head
}

/// Writes the body slice by slice, pausing at the stall point and stopping at the truncation
/// point; `Ok(false)` when truncated.
async fn write_body(
    stream: &mut BufStream<TcpStream>,
    reply: &Reply,
    sent: &AtomicU64,
) -> std::io::Result<bool> {
    let len = reply.body_len();
    let stop = reply.truncate_at.unwrap_or(len).min(len);
    let mut stall = reply.stall.filter(|(at, _)| *at <= stop);
    let (mut pos, mut slice) = (0, Vec::new());
    loop {
        if let Some((_, pause)) = stall.filter(|(at, _)| *at == pos) {
            stream.flush().await?;
            tokio::time::sleep(pause).await;
            stall = None;
        }
        if pos == stop {
            break;
        }
        let next_stop = stall.map_or(stop, |(at, _)| at);
        let end = (pos + SLICE).min(next_stop);
        reply.body_range(pos, end, &mut slice);
        write_slice(stream, &slice, reply.chunked).await?;
        sent.fetch_add(end - pos, SeqCst);
        pos = end;
    }
    if stop < len {
        stream.flush().await?;
        return Ok(false);
    }
    if reply.chunked {
        stream.write_all(b"0\r\n\r\n").await?;
    }
    stream.flush().await?;
    Ok(true)
}

async fn write_slice(
    stream: &mut BufStream<TcpStream>,
    slice: &[u8],
    chunked: bool,
) -> std::io::Result<()> {
    if chunked {
        stream
            .write_all(format!("{:x}\r\n", slice.len()).as_bytes())
            .await?;
        stream.write_all(slice).await?;
        stream.write_all(b"\r\n").await
    } else {
        stream.write_all(slice).await
    }
}

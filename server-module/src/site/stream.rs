//! The body of a plain GET of a file larger than [`super::small::SMALL`]: read chunk by chunk on
//! the blocking pool straight into the frame's buffer, a few chunks ahead of the connection.
//!
//! The general file service reads into a buffer of its own and copies each chunk into a new
//! frame; here the read is the only copy, and frames' buffers are reused once written
//! ([`Recycler`]). No thread waits on a slow client: a chunk is read only once the channel has
//! room for it.

use std::fs::File;
use std::io::Read;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use tokio::sync::mpsc;

use super::body::SiteBody;
use crate::fetch::BoxError;
use crate::recycle::Recycler;

/// Bytes per read and frame.
const CHUNK: usize = 256 * 1024;

/// Chunks read ahead of the connection.
const AHEAD: usize = 2;

/// The body sending the `len` bytes of `file` from its start. A file that is shorter than `len`
/// by the time it is read ends the body with an error (a broken transfer, never a short one
/// that looks complete); bytes past `len` are not sent.
pub(super) fn body(file: File, len: u64) -> SiteBody {
    let (tx, rx) = mpsc::channel(AHEAD);
    tokio::spawn(pump(file, len, tx));
    let frames = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|item| (item.map(http_body::Frame::data), rx))
    });
    StreamBody::new(frames).boxed_unsync()
}

type Tx = mpsc::Sender<Result<Bytes, BoxError>>;

/// Reads the file chunk by chunk while the receiver is there.
async fn pump(mut file: File, mut left: u64, tx: Tx) {
    // The chunks in the channel, the one being encoded or written, two done with.
    let mut buffers = Recycler::new(AHEAD + 3, CHUNK);
    while left > 0 {
        let Ok(slot) = tx.reserve().await else {
            return; // the client went away
        };
        let want = left.min(CHUNK as u64) as usize;
        let buf = buffers.buffer();
        let read = tokio::task::spawn_blocking(move || read_chunk(file, buf, want)).await;
        match read {
            Ok(Ok((f, buf))) => {
                file = f;
                left -= want as u64;
                slot.send(Ok(buffers.hand_out(buf)));
            }
            Ok(Err(err)) => return slot.send(Err(err.into())),
            Err(join) => return slot.send(Err(join.into())),
        }
    }
}

/// Exactly `want` bytes of `file` into `buf` (of at least that capacity; its old bytes are
/// overwritten, and zeroed first only where it was shorter).
fn read_chunk(mut file: File, mut buf: Vec<u8>, want: usize) -> std::io::Result<(File, Vec<u8>)> {
    buf.resize(want, 0);
    file.read_exact(&mut buf)?;
    Ok((file, buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(body: SiteBody) -> Result<Vec<u8>, BoxError> {
        Ok(body.collect().await?.to_bytes().to_vec())
    }

    #[tokio::test]
    async fn sends_the_file_in_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..CHUNK * 3 + 5).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let got = collect(body(File::open(&path).unwrap(), data.len() as u64)).await;
        assert_eq!(got.unwrap(), data);
        // Bytes past the length given are not sent.
        let got = collect(body(File::open(&path).unwrap(), 10)).await;
        assert_eq!(got.unwrap(), &data[..10]);
    }

    #[tokio::test]
    async fn a_file_shorter_than_announced_breaks_the_body() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; CHUNK + 1]).unwrap();
        let got = collect(body(File::open(&path).unwrap(), 2 * CHUNK as u64)).await;
        assert!(got.is_err());
    }
}

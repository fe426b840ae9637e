//! [`BodyReader`]: a blocking `BufRead` fed by a task that reads the body.

use std::io::{self, BufRead, Read};

use bytes::{Buf, Bytes};
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::body::BodyStream;
use super::host::HostPermit;

/// Chunks queued between the body task and the reader: the memory bound (hyper's chunks are at
/// most a few hundred KiB).
const QUEUE: usize = 8;

/// What the body task sends; an explicit `End` tells a finished body from a task that died.
#[derive(Debug)]
enum Message {
    Data(Bytes),
    End,
    Failed(io::Error),
}

/// A blocking reader over a response body, made by
/// [`Response::into_reader`](super::Response::into_reader).
///
/// Once a read fails, every later read fails with the same kind: a broken body never looks like
/// a short, complete one.
#[derive(Debug)]
pub struct BodyReader {
    queue: mpsc::Receiver<Message>,
    pump: AbortHandle,
    chunk: Bytes,
    state: State,
}

#[derive(Debug)]
enum State {
    Reading,
    Ended,
    Failed(io::ErrorKind, String),
}

impl BodyReader {
    pub(crate) fn spawn(body: BodyStream, permit: HostPermit, handle: &Handle) -> Self {
        let (sender, queue) = mpsc::channel(QUEUE);
        let pump = handle.spawn(pump(body, permit, sender)).abort_handle();
        Self {
            queue,
            pump,
            chunk: Bytes::new(),
            state: State::Reading,
        }
    }

    /// A handle that ends the body early from another thread: a read waiting for data then
    /// fails at once (with [`io::ErrorKind::Other`]), and the connection and the host slot are
    /// freed.
    pub fn stopper(&self) -> BodyStopper {
        BodyStopper(self.pump.clone())
    }

    fn receive(&mut self) -> io::Result<()> {
        match self.queue.blocking_recv() {
            Some(Message::Data(data)) => self.chunk = data,
            Some(Message::End) => self.state = State::Ended,
            Some(Message::Failed(error)) => return Err(self.fail(error)),
            None => {
                let error = io::Error::other("the task reading the body ended early");
                return Err(self.fail(error));
            }
        }
        Ok(())
    }

    fn fail(&mut self, error: io::Error) -> io::Error {
        self.state = State::Failed(error.kind(), error.to_string());
        error
    }
}

/// Ends a [`BodyReader`]'s body early: [`BodyReader::stopper`].
#[derive(Debug)]
pub struct BodyStopper(AbortHandle);

impl BodyStopper {
    /// Ends the body; the reader's waiting or next read fails.
    pub fn stop(&self) {
        self.0.abort();
    }
}

impl BufRead for BodyReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.chunk.is_empty() {
            match &self.state {
                State::Reading => self.receive()?,
                State::Ended => break,
                State::Failed(kind, message) => return Err(io::Error::new(*kind, message.clone())),
            }
        }
        Ok(&self.chunk)
    }

    fn consume(&mut self, amount: usize) {
        self.chunk.advance(amount);
    }
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Moves the body into the queue until it ends, fails, or the reader is dropped; then frees
/// the connection and the host slot, in that order.
async fn pump(mut body: BodyStream, permit: HostPermit, queue: mpsc::Sender<Message>) {
    loop {
        let next = tokio::select! {
            () = queue.closed() => break,
            next = body.next() => next,
        };
        let (message, last) = match next {
            Some(Ok(data)) => (Message::Data(data), false),
            Some(Err(error)) => (Message::Failed(error), true),
            None => (Message::End, true),
        };
        if queue.send(message).await.is_err() || last {
            break;
        }
    }
    drop(body);
    drop(permit);
}

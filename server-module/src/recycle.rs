//! [`Recycler`]: body frames whose buffers come back once the connection has written them.
//!
//! A streamed body hands its frames to hyper as [`Bytes`]. A fresh buffer for every frame costs
//! the kernel a page fault per 4 KiB written (and the allocator an `mmap` and `munmap` per frame
//! at these sizes); a frame's buffer reused once every copy of it is dropped costs neither.

use std::collections::VecDeque;

use bytes::Bytes;

/// The last frames handed out, kept so that their buffers can be written again once nobody else
/// holds them.
pub(crate) struct Recycler {
    out: VecDeque<Bytes>,
    keep: usize,
    capacity: usize,
}

impl Recycler {
    /// Buffers of at least `capacity` bytes, of which the last `keep` handed out are watched for
    /// reuse: memory held stays within `keep` buffers beyond the frames in flight.
    ///
    /// # Panics
    ///
    /// If `keep` is zero.
    pub(crate) fn new(keep: usize, capacity: usize) -> Self {
        assert!(keep > 0, "a recycler keeps at least one buffer");
        Recycler {
            out: VecDeque::with_capacity(keep),
            keep,
            capacity,
        }
    }

    /// A buffer of at least the capacity: one handed out before whose frame nobody holds any
    /// more, with its old bytes still in it (clear or overwrite them), else a new, empty one.
    pub(crate) fn buffer(&mut self) -> Vec<u8> {
        if let Some(at) = self.out.iter().position(Bytes::is_unique) {
            if let Some(Ok(reused)) = self.out.remove(at).map(Bytes::try_into_mut) {
                let reused = Vec::from(reused);
                if reused.capacity() >= self.capacity {
                    return reused;
                }
            }
        }
        Vec::with_capacity(self.capacity)
    }

    /// `filled` as a frame, its buffer watched for reuse.
    pub(crate) fn hand_out(&mut self, filled: Vec<u8>) -> Bytes {
        let frame = Bytes::from(filled);
        if self.out.len() >= self.keep {
            self.out.pop_front();
        }
        self.out.push_back(frame.clone());
        frame
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_comes_back_once_its_frame_is_dropped() {
        let mut r = Recycler::new(2, 1024);
        let mut first = r.buffer();
        first.extend_from_slice(b"frame one");
        let at = first.as_ptr();
        let frame = r.hand_out(first);
        // Still held by the connection: a new buffer.
        let other = r.buffer();
        assert_ne!(other.as_ptr(), at);
        assert!(other.is_empty());
        assert_eq!(&frame[..], b"frame one");
        drop(frame);
        let again = r.buffer();
        assert_eq!(again.as_ptr(), at);
        assert!(again.capacity() >= 1024);
    }

    #[test]
    fn keeps_at_most_keep_frames() {
        let mut r = Recycler::new(2, 16);
        let held: Vec<Bytes> = (0..5)
            .map(|_| {
                let b = r.buffer();
                r.hand_out(b)
            })
            .collect();
        assert_eq!(r.out.len(), 2);
        assert_eq!(held.len(), 5);
    }
}

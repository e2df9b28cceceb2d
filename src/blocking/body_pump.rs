//! A response body read through [`std::io::Read`]: a task on the runtime thread polls the
//! body and hands its chunks over a channel of one, and the reader takes them as it asks.
//!
//! The body is polled on the runtime thread, never on the reader's, because what it is
//! made of needs that runtime: the idle timeout between two reads of the connection is a
//! timer of the runtime it is polled in (none outside one), and the client's total timeout
//! and the request's signal are watched there. Pull, don't push: the task holds at most
//! one chunk besides the one in the channel, so a reader that stops stops the socket too;
//! one that is dropped closes the channel, and the task drops the body, which cancels it.

use std::fmt;
use std::io;
use std::panic::AssertUnwindSafe;

use bytes::Bytes;
use futures_util::{FutureExt, StreamExt};
use tokio::sync::mpsc;

use super::runtime_thread::{RuntimeThread, panicked, wait};
use crate::body::Body;
use crate::error::{Error, Result};

/// What the task sends: a chunk, the body's error, or `End` after the last chunk. A
/// channel closed without `End` is a task that stopped before the body's end.
enum Piece {
    Chunk(Bytes),
    Failed(Error),
    End,
}

/// The reading end of a body pumped by the runtime thread.
pub(super) struct BodyReader {
    pieces: mpsc::Receiver<Piece>,
    /// The rest of the chunk last received.
    current: Bytes,
    /// Set once the body has ended: `None` at its end, the error it ended in otherwise,
    /// given again to every read after.
    ended: Option<Option<Error>>,
}

impl BodyReader {
    /// Starts the task that reads `body` on `runtime`.
    ///
    /// # Errors
    /// A `TypeError` when the runtime thread has stopped.
    pub(super) fn start(runtime: &RuntimeThread, body: Body) -> Result<BodyReader> {
        // One chunk in the channel, and one in the task's hand while it waits for room.
        let (pieces, receiver) = mpsc::channel(1);
        runtime.spawn(async move {
            // A panic polling the body (a transport's stream) ends it with an error that
            // says so: uncaught, the reader would be told that the thread stopped.
            let pumped = AssertUnwindSafe(pump(body, &pieces)).catch_unwind().await;
            if let Err(panic) = pumped {
                let _ = pieces.send(Piece::Failed(panicked(&*panic))).await;
            }
        })?;
        Ok(BodyReader {
            pieces: receiver,
            current: Bytes::new(),
            ended: None,
        })
    }

    /// Reads into `buf` what the chunk in hand holds, waiting for the next chunk when it
    /// is used up: 0 only at the body's end (or for an empty `buf`).
    ///
    /// # Errors
    /// The body's error (a network error, a timeout, the signal's reason, a limit), as an
    /// [`io::Error`] whose inner error is the crate's [`Error`]: of kind
    /// [`TimedOut`](io::ErrorKind::TimedOut) for a timeout, [`Other`](io::ErrorKind::Other)
    /// otherwise.
    pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.current.is_empty() {
            match &self.ended {
                Some(None) => return Ok(0),
                Some(Some(error)) => return Err(into_io(error.clone())),
                None => {}
            }
            match wait(self.pieces.recv()) {
                Some(Piece::Chunk(chunk)) => self.current = chunk,
                Some(Piece::End) => self.ended = Some(None),
                Some(Piece::Failed(error)) => self.ended = Some(Some(error)),
                None => {
                    self.ended = Some(Some(Error::type_error(
                        "the body's reading stopped before its end: the blocking client's runtime thread has stopped",
                    )));
                }
            }
        }
        let n = buf.len().min(self.current.len());
        let taken = self.current.split_to(n);
        if let Some(into) = buf.get_mut(..n) {
            into.copy_from_slice(&taken);
        }
        Ok(n)
    }
}

/// Polls `body` and sends its pieces until its end, or until the reader is gone.
async fn pump(mut body: Body, pieces: &mpsc::Sender<Piece>) {
    loop {
        let next = tokio::select! {
            biased;
            // The reader is gone: dropping the body cancels it.
            () = pieces.closed() => return,
            next = body.next() => next,
        };
        let (piece, last) = match next {
            Some(Ok(chunk)) if chunk.is_empty() => continue,
            Some(Ok(chunk)) => (Piece::Chunk(chunk), false),
            Some(Err(error)) => (Piece::Failed(error), true),
            None => (Piece::End, true),
        };
        if pieces.send(piece).await.is_err() || last {
            return;
        }
    }
}

impl fmt::Debug for BodyReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BodyReader")
            .field("buffered", &self.current.len())
            .field("ended", &self.ended.is_some())
            .finish()
    }
}

/// `error` as an [`io::Error`] that carries it: of kind `TimedOut` for a timeout.
pub(super) fn into_io(error: Error) -> io::Error {
    let kind = if error.is_timeout() {
        io::ErrorKind::TimedOut
    } else {
        io::ErrorKind::Other
    };
    io::Error::new(kind, error)
}

/// The crate's [`Error`] an [`io::Error`] carries (one [`BodyReader::read`] gave), or a
/// `TypeError` whose source is the [`io::Error`] (a writer's).
pub(super) fn from_io(error: io::Error) -> Error {
    if !error.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        return Error::type_error(format!("writing the body out failed: {error}"))
            .with_source(error);
    }
    match error.into_inner().map(|inner| inner.downcast::<Error>()) {
        Some(Ok(error)) => *error,
        Some(Err(other)) => {
            Error::type_error(format!("writing the body out failed: {other}")).with_source(other)
        }
        None => Error::type_error("writing the body out failed"),
    }
}

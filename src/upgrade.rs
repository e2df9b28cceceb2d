//! A connection handed to the caller after `101 Switching Protocols`
//! ([RFC 9110 §7.8](https://www.rfc-editor.org/rfc/rfc9110#section-7.8)): the
//! [`Upgraded`] byte stream of [`Response::upgrade`](crate::Response::upgrade), and the
//! [`OnUpgrade`] handle a [`Transport`](crate::net::Transport) puts in a `101` response's
//! extensions to hand it over.
//!
//! What follows a `101` is not HTTP: the connection leaves the pool with the response
//! and belongs to whoever takes it, bytes the server sent right after the head included.
//!
//! ```
//! # async fn run() -> Result<(), whatwg_fetch::Error> {
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! // A server that switches to its own protocol after `101 Switching Protocols`.
//! let response = whatwg_fetch::Client::new()
//!     .get("http://127.0.0.1:8080/chat")
//!     .header("connection", "upgrade")
//!     .header("upgrade", "chat/1")
//!     .send()
//!     .await?;
//! let mut connection = response.upgrade().await?;
//! connection.write_all(b"hello").await.map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?;
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use sync_wrapper::SyncWrapper;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A byte stream both ways: what a connection is once HTTP is done with it.
trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// The connection of a `101 Switching Protocols` response, as
/// [`AsyncRead`] + [`AsyncWrite`]: reqwest's `Upgraded`, from
/// [`Response::upgrade`](crate::Response::upgrade).
///
/// Reads give first what the server sent after the `101`'s head in the same packets (the
/// new protocol's first bytes, read with the head), then the connection's. Writes go to
/// the connection. Dropping it closes the connection.
///
/// ```
/// # tokio_test::block_on(async {
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// use whatwg_fetch::Upgraded;
///
/// // Any byte stream can be handed over; a transport does it with a connection.
/// let (ours, mut theirs) = tokio::io::duplex(64);
/// let mut upgraded = Upgraded::new(ours, "early ");
/// theirs.write_all(b"bytes").await?;
/// drop(theirs);
/// let mut read = String::new();
/// upgraded.read_to_string(&mut read).await?;
/// assert_eq!(read, "early bytes");
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub struct Upgraded {
    /// What was read past the head and not yet taken.
    read_buf: Bytes,
    /// `Sync` for the response that holds it; only ever used through `&mut`.
    io: SyncWrapper<Box<dyn Io>>,
}

impl Upgraded {
    /// The stream `io`, with `read_buf` read from it already (the bytes past the `101`'s
    /// head): reads give those first.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// use whatwg_fetch::Upgraded;
    ///
    /// // A `Transport` of one's own hands over its stream, and the bytes it read past the head.
    /// let (ours, mut theirs) = tokio::io::duplex(64);
    /// let mut upgraded = Upgraded::new(ours, &b"early "[..]);
    /// theirs.write_all(b"bytes").await?;
    /// let mut read = [0u8; 11];
    /// upgraded.read_exact(&mut read).await?;
    /// assert_eq!(&read, b"early bytes");
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new(
        io: impl AsyncRead + AsyncWrite + Send + Unpin + 'static,
        read_buf: impl Into<Bytes>,
    ) -> Upgraded {
        Upgraded {
            read_buf: read_buf.into(),
            io: SyncWrapper::new(Box::new(io)),
        }
    }
}

impl fmt::Debug for Upgraded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upgraded")
            .field("buffered", &self.read_buf.len())
            .finish_non_exhaustive()
    }
}

impl AsyncRead for Upgraded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if !this.read_buf.is_empty() {
            let n = this.read_buf.len().min(buf.remaining());
            buf.put_slice(&this.read_buf[..n]);
            this.read_buf.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(this.io.get_mut()).poll_read(cx, buf)
    }
}

impl AsyncWrite for Upgraded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.io.get_mut()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.io.get_mut()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        // Only `&self`: no way to ask the stream without `&mut`; the default writes one
        // buffer at a time, which is always right.
        false
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.io.get_mut()).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.io.get_mut()).poll_shutdown(cx)
    }
}

/// The handle a [`Transport`](crate::net::Transport) puts in the extensions of a
/// `101 Switching Protocols` response to hand its connection over (as hyper's
/// `OnUpgrade`): [`Response::upgrade`](crate::Response::upgrade) takes it. Clones share
/// the one connection, which only the first [`take`](Self::take) gets.
///
/// ```
/// use whatwg_fetch::upgrade::OnUpgrade;
/// use whatwg_fetch::Upgraded;
///
/// let (ours, _theirs) = tokio::io::duplex(64);
/// let mut response = http::Response::builder().status(101).body(()).unwrap();
/// response.extensions_mut().insert(OnUpgrade::new(Upgraded::new(ours, "")));
///
/// let handle = response.extensions().get::<OnUpgrade>().unwrap();
/// assert!(handle.take().is_some());
/// assert!(handle.take().is_none(), "handed over once");
/// ```
#[derive(Clone)]
pub struct OnUpgrade(Arc<Mutex<Option<Upgraded>>>);

impl OnUpgrade {
    /// A handle to hand `upgraded` over.
    ///
    /// ```
    /// use whatwg_fetch::upgrade::OnUpgrade;
    /// use whatwg_fetch::Upgraded;
    ///
    /// let (ours, _theirs) = tokio::io::duplex(64);
    /// // Put in a `101` response's extensions by a `Transport`, for `Response::upgrade` to take.
    /// let mut response = http::Response::new(());
    /// response.extensions_mut().insert(OnUpgrade::new(Upgraded::new(ours, bytes::Bytes::new())));
    /// assert!(response.extensions().get::<OnUpgrade>().is_some());
    /// ```
    pub fn new(upgraded: Upgraded) -> OnUpgrade {
        OnUpgrade(Arc::new(Mutex::new(Some(upgraded))))
    }

    /// The connection, the first time; `None` after.
    ///
    /// ```
    /// use whatwg_fetch::upgrade::OnUpgrade;
    /// use whatwg_fetch::Upgraded;
    ///
    /// let (ours, _theirs) = tokio::io::duplex(64);
    /// let handle = OnUpgrade::new(Upgraded::new(ours, bytes::Bytes::new()));
    /// assert!(handle.take().is_some());
    /// // Handed over once.
    /// assert!(handle.take().is_none());
    /// ```
    pub fn take(&self) -> Option<Upgraded> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl fmt::Debug for OnUpgrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OnUpgrade").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn reads_give_the_buffered_bytes_first_even_into_a_small_buffer() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut upgraded = Upgraded::new(ours, "abcdef");
        let mut small = [0; 4];
        assert_eq!(upgraded.read(&mut small).await.unwrap(), 4);
        assert_eq!(&small, b"abcd");
        theirs.write_all(b"gh").await.unwrap();
        let mut rest = [0; 8];
        assert_eq!(upgraded.read(&mut rest).await.unwrap(), 2);
        assert_eq!(&rest[..2], b"ef");
        assert_eq!(upgraded.read(&mut rest).await.unwrap(), 2);
        assert_eq!(&rest[..2], b"gh");
        // Writes go to the stream.
        upgraded.write_all(b"out").await.unwrap();
        let mut out = [0; 3];
        theirs.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"out");
    }
}

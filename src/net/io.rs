//! An HTTP/1.1 connection's byte stream, with the one leniency browsers have that hyper
//! lacks: a response head that the server ends by closing the connection, with no empty
//! line after its last header, is still a response.
//!
//! Servers that write `HTTP/1.0 200 OK\nContent-Length: 0\n` and close exist (old CGI
//! scripts, embedded devices, hand-written test servers); browsers read the head up to the
//! close. hyper waits for the empty line and reports the close as an incomplete message.
//! [`HeadAtEof`] sits between the connection and hyper: while a response head is expected,
//! it watches for the head's end, and if the stream ends first after some bytes of a head
//! it hands hyper the missing line ending and empty line once, then the end of the stream.
//! Nothing else changes: the bytes are passed through untouched, and a head that has ended
//! turns the watch off until [`Http1::try_send_request`] sends the next request.
//!
//! The same watch tells the transport whether any byte of a response arrived after the
//! request was sent ([`Http1::response_started`]): a request that failed on a reused
//! connection before that may be sent again (see the retry rule in the
//! [`net` module documentation](super)).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use http::uri::Authority;
use http::{HeaderName, HeaderValue};
use hyper::client::conn::http1;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::body::RequestBody;
use super::timer::ReadTimer;

/// What a connection's [`HeadAtEof`] and its [`Http1`] handle share.
#[derive(Debug, Default)]
pub(crate) struct HeadWatch {
    /// Set when a request is sent; cleared when its response head has ended.
    head_expected: AtomicBool,
    /// Cleared when a request is sent; set when the first byte after it arrives.
    response_started: AtomicBool,
}

/// An HTTP/1.1 connection's request handle, with the watch its [`HeadAtEof`] keeps, and
/// what its requests reuse.
pub(crate) struct Http1 {
    sender: http1::SendRequest<RequestBody>,
    watch: Arc<HeadWatch>,
    /// Boxed, so that this handle stays small: it moves with every response body.
    pub(crate) reused: Box<Reused>,
}

/// What the requests on one HTTP/1.1 connection reuse, rather than make each anew.
#[derive(Default)]
pub(crate) struct Reused {
    /// The read timer, made by the first request that has a read timeout and set again
    /// by each later one and by their response bodies (see `net/timer.rs`).
    pub(crate) read_timer: Option<ReadTimer>,
    /// The `Host` header of the connection's origin, made by the first request that needs
    /// one, and the authority it was made from; later ones share its bytes.
    pub(crate) host: Option<(Authority, HeaderValue)>,
    /// Room for the copy of a request's headers kept to send it again (see `Replay` in
    /// `net/hyper_transport.rs`), empty between requests.
    pub(crate) replay_headers: Vec<(HeaderName, HeaderValue)>,
    /// Counts the connection closed in the pool's statistics when it is dropped.
    pub(crate) counted: Option<super::pool::Counted>,
}

impl Http1 {
    /// The handle of a connection whose stream is `HeadAtEof` with `watch`.
    pub(crate) fn new(sender: http1::SendRequest<RequestBody>, watch: Arc<HeadWatch>) -> Http1 {
        Http1 {
            sender,
            watch,
            reused: Box::default(),
        }
    }

    /// Waits until the connection can take a request; fails if it has closed.
    pub(crate) async fn ready(&mut self) -> hyper::Result<()> {
        self.sender.ready().await
    }

    /// Whether the connection has closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }

    /// Whether any byte arrived on the connection since the last request was sent: once
    /// one has, a failure of that request is a failure of its response, never retried.
    /// The connection task sets it before it hands hyper the bytes, so once the request's
    /// future has resolved this reads what the connection saw.
    pub(crate) fn response_started(&self) -> bool {
        self.watch.response_started.load(Ordering::Relaxed)
    }

    /// Sends `request`; from now on a response head is expected.
    pub(crate) fn try_send_request(
        &mut self,
        request: http::Request<RequestBody>,
    ) -> impl Future<
        Output = Result<
            http::Response<hyper::body::Incoming>,
            hyper::client::conn::TrySendError<http::Request<RequestBody>>,
        >,
    > + use<> {
        self.watch.response_started.store(false, Ordering::Relaxed);
        self.watch.head_expected.store(true, Ordering::Relaxed);
        self.sender.try_send_request(request)
    }
}

pin_project_lite::pin_project! {
    /// A connection's stream that ends a response head cut short by the end of the stream
    /// (see the [module documentation](self)).
    pub(crate) struct HeadAtEof<T> {
        #[pin]
        io: T,
        watch: Arc<HeadWatch>,
        // Bytes of the expected head read so far, and the last two of them.
        seen: usize,
        last: [u8; 2],
    }
}

impl<T> HeadAtEof<T> {
    /// Wraps `io`; `watch` is shared with the connection's [`Http1`].
    pub(crate) fn new(io: T, watch: Arc<HeadWatch>) -> HeadAtEof<T> {
        HeadAtEof {
            io,
            watch,
            seen: 0,
            last: [0; 2],
        }
    }
}

impl<T: AsyncRead> AsyncRead for HeadAtEof<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        if !this.watch.head_expected.load(Ordering::Relaxed) {
            return this.io.poll_read(cx, buf);
        }
        let before = buf.filled().len();
        ready!(this.io.poll_read(cx, buf))?;
        let new = buf.filled().get(before..).unwrap_or_default();
        if new.is_empty() {
            // The end of the stream. After part of a head, finish the head.
            if *this.seen > 0 {
                let ending = head_ending(*this.last);
                if buf.remaining() >= ending.len() {
                    buf.put_slice(ending);
                }
            }
            this.watch.head_expected.store(false, Ordering::Relaxed);
            *this.seen = 0;
            *this.last = [0; 2];
            return Poll::Ready(Ok(()));
        }
        if *this.seen == 0 {
            // The response's first bytes.
            this.watch.response_started.store(true, Ordering::Relaxed);
        }
        if head_ends(*this.last, new) {
            this.watch.head_expected.store(false, Ordering::Relaxed);
            *this.seen = 0;
            *this.last = [0; 2];
        } else {
            *this.seen += new.len();
            *this.last = match new {
                [.., a, b] => [*a, *b],
                [b] => [this.last[1], *b],
                [] => *this.last,
            };
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite> AsyncWrite for HeadAtEof<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().io.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().io.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_shutdown(cx)
    }
}

/// Whether `new`, read after bytes ending in `last`, holds the end of a head: an empty
/// line, `\n\n` or `\n\r\n` (RFC 9112 §2.2 lets a recipient take a bare LF as a line end).
fn head_ends(last: [u8; 2], new: &[u8]) -> bool {
    let byte_before = |i: usize, back: usize| -> u8 {
        match i.checked_sub(back) {
            Some(j) => new.get(j).copied().unwrap_or(0),
            // back - i bytes before `new`: last[1] is one before, last[0] two before.
            None => match back - i {
                1 => last[1],
                2 => last[0],
                _ => 0,
            },
        }
    };
    memchr::memchr_iter(b'\n', new).any(|i| {
        byte_before(i, 1) == b'\n' || (byte_before(i, 1) == b'\r' && byte_before(i, 2) == b'\n')
    })
}

/// What finishes a head whose bytes so far end in `last`: the current line's end, if it
/// is open, then the empty line.
fn head_ending(last: [u8; 2]) -> &'static [u8] {
    match last {
        [b'\r', b'\n'] => b"\r\n",
        [_, b'\n'] => b"\n",
        [_, b'\r'] => b"\n\r\n",
        _ => b"\r\n\r\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn head_ends_finds_empty_lines_across_reads() {
        assert!(head_ends([0, 0], b"HTTP/1.1 200 OK\r\n\r\nbody"));
        assert!(head_ends([0, 0], b"HTTP/1.1 200 OK\n\n"));
        assert!(!head_ends([0, 0], b"HTTP/1.1 200 OK\r\nA: b\r\n"));
        assert!(head_ends([b'\r', b'\n'], b"\r\n"));
        assert!(head_ends([b'\n', b'\r'], b"\n"));
        assert!(head_ends([0, b'\n'], b"\n"));
        assert!(!head_ends([0, b'\r'], b"\n"));
        assert!(!head_ends([0, 0], b""));
    }

    #[test]
    fn head_ending_closes_the_open_line_then_the_head() {
        assert_eq!(head_ending(*b"\r\n"), b"\r\n");
        assert_eq!(head_ending(*b"0\n"), b"\n");
        assert_eq!(head_ending(*b"0\r"), b"\n\r\n");
        assert_eq!(head_ending(*b"OK"), b"\r\n\r\n");
    }

    fn new_watch(head_expected: bool) -> Arc<HeadWatch> {
        Arc::new(HeadWatch {
            head_expected: AtomicBool::new(head_expected),
            response_started: AtomicBool::new(false),
        })
    }

    async fn read_through(input: &[u8], expected: bool) -> (Vec<u8>, bool) {
        let watch = new_watch(expected);
        let mut io = HeadAtEof::new(input, Arc::clone(&watch));
        let mut out = Vec::new();
        io.read_to_end(&mut out).await.unwrap();
        (out, watch.head_expected.load(Ordering::Relaxed))
    }

    #[tokio::test]
    async fn the_first_byte_of_a_response_is_noted() {
        // Nothing before the end of the stream: no response started.
        let watch = new_watch(true);
        let mut io = HeadAtEof::new(&b""[..], Arc::clone(&watch));
        io.read_to_end(&mut Vec::new()).await.unwrap();
        assert!(!watch.response_started.load(Ordering::Relaxed));
        // One byte of a head is enough.
        let watch = watch_started_by(b"H").await;
        assert!(watch.response_started.load(Ordering::Relaxed));
        let watch = watch_started_by(b"HTTP/1.1 200 OK\r\n\r\n").await;
        assert!(watch.response_started.load(Ordering::Relaxed));
        // Bytes while no response is expected (between requests) are not a response.
        let watch = new_watch(false);
        let mut io = HeadAtEof::new(&b"HTTP/1.1 200 OK\r\n\r\n"[..], Arc::clone(&watch));
        io.read_to_end(&mut Vec::new()).await.unwrap();
        assert!(!watch.response_started.load(Ordering::Relaxed));
    }

    async fn watch_started_by(input: &[u8]) -> Arc<HeadWatch> {
        let watch = new_watch(true);
        let mut io = HeadAtEof::new(input, Arc::clone(&watch));
        io.read_to_end(&mut Vec::new()).await.unwrap();
        watch
    }

    #[tokio::test]
    async fn a_head_cut_short_is_finished_once() {
        let (out, _) = read_through(b"HTTP/1.0 200 OK\nA: 1\n", true).await;
        assert_eq!(out, b"HTTP/1.0 200 OK\nA: 1\n\n");
        let (out, _) = read_through(b"HTTP/1.1 204 No Content", true).await;
        assert_eq!(out, b"HTTP/1.1 204 No Content\r\n\r\n");
    }

    /// A stream handing out `bytes` in pieces of the given sizes, then its end.
    struct Pieces {
        bytes: Vec<u8>,
        sizes: Vec<usize>,
    }

    impl AsyncRead for Pieces {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = &mut *self;
            let size = if this.sizes.is_empty() {
                this.bytes.len()
            } else {
                this.sizes.remove(0)
            };
            let n = size.max(1).min(this.bytes.len()).min(buf.remaining());
            buf.put_slice(&this.bytes[..n]);
            this.bytes.drain(..n);
            Poll::Ready(Ok(()))
        }
    }

    fn read_in_pieces(bytes: &[u8], sizes: Vec<usize>) -> Vec<u8> {
        let mut io = HeadAtEof::new(
            Pieces {
                bytes: bytes.to_vec(),
                sizes,
            },
            new_watch(true),
        );
        let mut out = Vec::new();
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(io.read_to_end(&mut out))
            .unwrap();
        out
    }

    proptest::proptest! {
        /// A response whose head ends, read in any pieces, comes through byte for byte,
        /// whether its body is whole or cut short.
        #[test]
        fn a_complete_head_is_never_touched(
            headers in proptest::collection::vec("[a-z]{1,8}: [ -~]{0,12}", 0..5),
            crlf in proptest::bool::ANY,
            body in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
            sizes in proptest::collection::vec(1usize..40, 0..20),
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut head = format!("HTTP/1.1 200 OK{eol}");
            for header in &headers {
                head.push_str(header);
                head.push_str(eol);
            }
            head.push_str(eol);
            let mut response = head.into_bytes();
            response.extend_from_slice(&body);
            proptest::prop_assert_eq!(read_in_pieces(&response, sizes), response);
        }

        /// A head cut short anywhere after its first byte gets exactly one ending, and
        /// the result is a head hyper can parse.
        #[test]
        fn a_head_cut_short_gets_one_ending(
            headers in proptest::collection::vec("[a-z]{1,8}: [!-~]{1,12}", 0..5),
            cut in proptest::num::usize::ANY,
            sizes in proptest::collection::vec(1usize..40, 0..20),
        ) {
            let mut head = "HTTP/1.1 204 No Content\r\n".to_owned();
            for header in &headers {
                head.push_str(header);
                head.push_str("\r\n");
            }
            let bytes = head.as_bytes();
            let cut = 1 + cut % bytes.len();
            let truncated = &bytes[..cut];
            let out = read_in_pieces(truncated, sizes);
            proptest::prop_assert!(out.starts_with(truncated));
            proptest::prop_assert!(out.len() - truncated.len() <= 4);
            // Parseable unless the cut fell inside the status code or a header name.
            let last_line = truncated.rsplit(|&b| b == b'\n').next().unwrap_or_default();
            let parseable = if truncated.contains(&b'\n') {
                last_line.is_empty() || last_line.windows(2).any(|w| w == b": ")
            } else {
                truncated.len() >= "HTTP/1.1 204".len()
            };
            if parseable {
                let mut parsed = [httparse::EMPTY_HEADER; 8];
                let mut response = httparse::Response::new(&mut parsed);
                let status = response.parse(&out);
                proptest::prop_assert!(
                    matches!(status, Ok(httparse::Status::Complete(n)) if n == out.len()),
                    "{:?} for {:?}", status, String::from_utf8_lossy(&out)
                );
            }
        }
    }

    #[tokio::test]
    async fn complete_heads_and_bodies_pass_untouched() {
        let whole = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        let (out, flag) = read_through(whole, true).await;
        assert_eq!(out, whole);
        assert!(!flag, "the watch ends with the head");
        // A body cut short is not a head: nothing is added.
        let (out, _) = read_through(b"abc", false).await;
        assert_eq!(out, b"abc");
        // Nothing read at all: the peer closed before answering, left to hyper.
        let (out, _) = read_through(b"", true).await;
        assert_eq!(out, b"");
    }
}

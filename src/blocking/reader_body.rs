//! [`Body`]: a request body read from a [`std::io::Read`] as it is sent, reqwest's
//! `blocking::Body`, for a file or any reader too large to hold whole.
//!
//! It becomes a stream body ([`BodyInit::Stream`]): its source is null, so it is sent once,
//! as any stream is (a 307 or 308 redirect that needs it again is a network error, and
//! nothing resends it). The reader is read on a blocking thread of the runtime that polls
//! the body (`spawn_blocking`: the client's, for a blocking client), never on the runtime's
//! own thread, whose other fetches a slow disk would stall. Pull, don't push: one read of
//! at most [`CHUNK`] bytes is made ahead of what the connection has taken, so at most two
//! chunks are held (the one being sent, the one being read), whatever the reader's size.

use std::fmt;
use std::future::Future;
use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use tokio::task::JoinHandle;

use crate::body::BodyInit;
use crate::error::{BoxError, Error};

/// The most bytes one read of the reader asks for: one chunk of the body.
const CHUNK: usize = 64 * 1024;

/// A reader as a body takes it.
type BoxReader = Box<dyn Read + Send>;

/// A request body read from a [`Read`] as the connection takes it, as reqwest's
/// `blocking::Body`: `RequestBuilder::body` takes it (it is a [`BodyInit`]).
///
/// [`Body::new`] sends the reader's bytes without a known length (chunked, over
/// HTTP/1.1); [`Body::sized`] declares its length in `Content-Length`, and holds the
/// reader to it. A read error fails the request, with the reader's [`io::Error`] among
/// its [sources](std::error::Error::source). Sent once: a redirect that needs the body again (307, 308) is a network error,
/// and the request cannot be [cloned](super::RequestBuilder::try_clone).
///
/// ```
/// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # let url = format!("http://{addr}/");
/// # std::thread::spawn(move || {
/// #     use std::io::{BufRead, BufReader, Read, Write};
/// #     // Answers with the request's content-length, then the body.
/// #     let (socket, _) = listener.accept().unwrap();
/// #     let mut reader = BufReader::new(socket);
/// #     let mut head = String::new();
/// #     while !head.ends_with("\r\n\r\n") {
/// #         if reader.read_line(&mut head).unwrap() == 0 { break; }
/// #     }
/// #     let length: usize = head.lines()
/// #         .find_map(|line| line.strip_prefix("content-length: "))
/// #         .and_then(|n| n.trim().parse().ok()).unwrap_or(0);
/// #     let mut body = vec![0; length];
/// #     reader.read_exact(&mut body).unwrap();
/// #     let answer = format!("{length} {}", String::from_utf8_lossy(&body));
/// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{answer}", answer.len());
/// #     let _ = reader.get_mut().write_all(reply.as_bytes());
/// # });
/// use whatwg_fetch::blocking::{Body, Client};
///
/// let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-upload-{}.csv", std::process::id()));
/// std::fs::write(&path, "id,name\n7,Ada\n")?;
///
/// // The file is read as it is sent, never whole in memory.
/// let file = std::fs::File::open(&path)?;
/// let length = file.metadata()?.len();
/// let client = Client::builder().build()?;
/// let response = client.put(format!("{url}uploads/people.csv")).body(Body::sized(file, length)).send()?;
/// assert_eq!(response.text()?, "14 id,name\n7,Ada\n");
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Body {
    reader: BoxReader,
    /// The length [`sized`](Body::sized) declared.
    length: Option<u64>,
}

impl Body {
    /// A body of what `reader` gives until its end, of no known length: sent chunked over
    /// HTTP/1.1.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers with the request as it came, head and chunked body.
    /// #     let (mut socket, _) = listener.accept().unwrap();
    /// #     let mut request = Vec::new();
    /// #     let mut buf = [0; 4096];
    /// #     while !request.ends_with(b"0\r\n\r\n") {
    /// #         let n = socket.read(&mut buf).unwrap();
    /// #         if n == 0 { break; }
    /// #         request.extend_from_slice(&buf[..n]);
    /// #     }
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", request.len());
    /// #     let _ = socket.write_all(reply.as_bytes());
    /// #     let _ = socket.write_all(&request);
    /// # });
    /// use whatwg_fetch::blocking::{Body, Client};
    ///
    /// // Any reader: here the output of a command, of a length not known ahead.
    /// let reader = std::io::Cursor::new(b"line one\nline two\n".to_vec());
    /// let client = Client::builder().build()?;
    /// let echoed = client.post(format!("{url}logs")).body(Body::new(reader)).send()?.text()?;
    /// assert!(echoed.contains("\r\ntransfer-encoding: chunked\r\n"), "{echoed}");
    /// assert!(echoed.contains("line one\nline two\n"), "{echoed}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new<R: Read + Send + 'static>(reader: R) -> Body {
        Body {
            reader: Box::new(reader),
            length: None,
        }
    }

    /// A body of the first `length` bytes `reader` gives, declared in `Content-Length`: a
    /// reader that ends before fails the request, rather than send a body its head does
    /// not describe. What the reader holds past `length` is left unread (a read past it
    /// could wait for ever, on a socket or a pipe).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # std::thread::spawn(move || {
    /// #     use std::io::Read;
    /// #     // Reads what comes, and never answers.
    /// #     for stream in listener.incoming() {
    /// #         let mut stream = stream.unwrap();
    /// #         std::thread::spawn(move || { let _ = std::io::copy(&mut stream, &mut std::io::sink()); });
    /// #     }
    /// # });
    /// use std::io::Read;
    /// use whatwg_fetch::blocking::{Body, Client};
    ///
    /// let client = Client::builder().build()?;
    /// // 10 bytes declared, 4 given: the request fails, and its causes say why.
    /// let reader = std::io::repeat(b'x').take(4);
    /// let error = client.put(&url).body(Body::sized(reader, 10)).send().unwrap_err();
    /// let causes = std::iter::successors(Some(&error as &dyn std::error::Error), |error| error.source());
    /// assert!(causes.map(|cause| cause.to_string()).any(|why| why.contains("fewer than the 10")));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn sized<R: Read + Send + 'static>(reader: R, length: u64) -> Body {
        Body {
            reader: Box::new(reader),
            length: Some(length),
        }
    }

    /// The length [`sized`](Self::sized) declared, `None` for [`new`](Self::new).
    ///
    /// ```
    /// use whatwg_fetch::blocking::Body;
    ///
    /// assert_eq!(Body::sized(std::io::empty(), 0).len(), Some(0));
    /// assert_eq!(Body::new(std::io::empty()).len(), None);
    /// ```
    #[expect(
        clippy::len_without_is_empty,
        reason = "reqwest's name; a reader of unknown length is neither empty nor not"
    )]
    pub fn len(&self) -> Option<u64> {
        self.length
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Body")
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

/// A stream body that reads the reader as it is polled.
impl From<Body> for BodyInit {
    fn from(body: Body) -> BodyInit {
        let mut stream = crate::body::Body::from_stream(ReaderStream {
            state: State::Idle(body.reader),
            length: body.length,
            read: 0,
        });
        stream.set_length(body.length);
        BodyInit::Stream(stream)
    }
}

/// The reader's chunks, read one ahead on a blocking thread.
struct ReaderStream {
    state: State,
    /// The length the body declared.
    length: Option<u64>,
    /// The bytes the reader has given so far.
    read: u64,
}

enum State {
    /// No read in flight: the next poll starts one.
    Idle(BoxReader),
    /// A read on a blocking thread, which hands the reader back with what it read.
    Reading(JoinHandle<(BoxReader, io::Result<Bytes>)>),
    /// The reader ended, failed or broke its length: nothing more is read.
    Done,
}

impl ReaderStream {
    /// Starts a read of at most `want` bytes of `reader` on a blocking thread of the
    /// current runtime.
    fn start_read(&mut self, mut reader: BoxReader) -> Result<(), Error> {
        let want = match self.length {
            // What is left of a declared length (never 0: the stream ends at the length
            // without asking the reader for more).
            Some(length) => length
                .saturating_sub(self.read)
                .clamp(1, CHUNK as u64)
                .try_into()
                .unwrap_or(CHUNK),
            None => CHUNK,
        };
        let runtime = tokio::runtime::Handle::try_current().map_err(|error| {
            Error::type_error(
                "a blocking::Body is read on a Tokio runtime's blocking threads, and was polled outside one",
            )
            .with_source(error)
        })?;
        self.state = State::Reading(runtime.spawn_blocking(move || {
            let read = read_chunk(&mut reader, want);
            (reader, read)
        }));
        Ok(())
    }

    /// The error of a reader that gave `read` bytes, fewer than its declared `length`.
    fn too_short(&self, length: u64) -> Error {
        Error::type_error(format!(
            "the body's reader ended after {} bytes, fewer than the {length} of its Content-Length (Body::sized)",
            self.read
        ))
    }
}

impl Stream for ReaderStream {
    type Item = Result<Bytes, BoxError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Idle(reader) => {
                    if let Err(error) = this.start_read(reader) {
                        return Poll::Ready(Some(Err(error.into())));
                    }
                }
                State::Reading(mut reading) => {
                    let polled = Pin::new(&mut reading).poll(cx);
                    let Poll::Ready(joined) = polled else {
                        this.state = State::Reading(reading);
                        return Poll::Pending;
                    };
                    let (reader, read) = match joined {
                        Ok(done) => done,
                        Err(error) => {
                            let error = Error::type_error(format!(
                                "the body's reader panicked or was cancelled: {error}"
                            ))
                            .with_source(error);
                            return Poll::Ready(Some(Err(error.into())));
                        }
                    };
                    let chunk = match read {
                        Ok(chunk) => chunk,
                        Err(error) => {
                            let error = Error::type_error(format!(
                                "reading the body's reader failed: {error}"
                            ))
                            .with_source(error);
                            return Poll::Ready(Some(Err(error.into())));
                        }
                    };
                    if chunk.is_empty() {
                        // The reader's end: the stream's, unless it is short.
                        return match this.length {
                            Some(length) if this.read < length => {
                                Poll::Ready(Some(Err(this.too_short(length).into())))
                            }
                            _ => Poll::Ready(None),
                        };
                    }
                    // A chunk is at most `CHUNK` bytes: the count cannot overflow before
                    // a reader has given 2^64 bytes, where it stops at the top.
                    this.read = this.read.saturating_add(chunk.len() as u64);
                    // A declared length read whole is the body's end: the reader is not
                    // asked for more, as a read past it may wait for ever (a socket, a
                    // pipe whose writer stays open, a terminal). Each read asks for at
                    // most what is left, so no chunk goes past it.
                    if this.length.is_some_and(|length| this.read >= length) {
                        return Poll::Ready(Some(Ok(chunk)));
                    }
                    // The next chunk is read while this one is sent.
                    if let Err(error) = this.start_read(reader) {
                        return Poll::Ready(Some(Err(error.into())));
                    }
                    return Poll::Ready(Some(Ok(chunk)));
                }
            }
        }
    }
}

/// One read of at most `want` bytes of `reader` (retried when interrupted): empty at its
/// end.
fn read_chunk(reader: &mut BoxReader, want: usize) -> io::Result<Bytes> {
    let mut buf = BytesMut::zeroed(want);
    loop {
        match reader.read(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf.freeze());
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}

//! Content decoding: [RFC 9110 §8.4.1](https://httpwg.org/specs/rfc9110.html#content.codings)
//! codings as a streaming body adapter.
//!
//! The Fetch Standard decodes in
//! [handle content codings](https://fetch.spec.whatwg.org/#handle-content-codings): the
//! codings of `Content-Encoding` are undone in reverse order, and a body whose codings
//! are not all supported is left as it is. Decoding is opt-in per request (see
//! [`SendOptions::decode_content`](super::SendOptions::decode_content)) so a caller that
//! must see the bytes as sent (a range request, a cache) can.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use async_compression::tokio::bufread::{
    BrotliDecoder, DeflateDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder,
};
use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use http::header::CONTENT_ENCODING;
use http::{HeaderMap, Response};
use tokio_util::io::{ReaderStream, StreamReader};

use super::body::ResponseBody;
use crate::error::NetworkError;

/// A content coding this crate can undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentCoding {
    /// `gzip` (also `x-gzip`): RFC 1952.
    Gzip,
    /// `deflate`: zlib-wrapped (RFC 1950) as specified, or raw RFC 1951 data as browsers
    /// also accept; the first two bytes tell which.
    Deflate,
    /// `br`: Brotli, RFC 7932.
    Brotli,
    /// `zstd`: Zstandard, RFC 8878.
    Zstd,
    /// `identity`: no coding.
    Identity,
}

impl ContentCoding {
    /// The coding a `Content-Encoding` token names, ASCII case-insensitively, or `None`
    /// for a coding this crate cannot undo.
    ///
    /// ```
    /// use whatwg_fetch::net::ContentCoding;
    /// assert_eq!(ContentCoding::from_token("GZip"), Some(ContentCoding::Gzip));
    /// assert_eq!(ContentCoding::from_token("compress"), None);
    /// ```
    pub fn from_token(token: &str) -> Option<ContentCoding> {
        let token = token.trim_matches([' ', '\t']);
        [
            ("gzip", ContentCoding::Gzip),
            ("x-gzip", ContentCoding::Gzip),
            ("deflate", ContentCoding::Deflate),
            ("br", ContentCoding::Brotli),
            ("zstd", ContentCoding::Zstd),
            ("identity", ContentCoding::Identity),
        ]
        .into_iter()
        .find(|(name, _)| token.eq_ignore_ascii_case(name))
        .map(|(_, coding)| coding)
    }

    /// The codings of every `Content-Encoding` header in `headers`, in the order they
    /// were applied; `None` if one of them is unknown or a value is not text. An absent
    /// header gives an empty list.
    ///
    /// ```
    /// use http::HeaderMap;
    /// use whatwg_fetch::net::ContentCoding;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("content-encoding", "gzip, br".parse().unwrap());
    /// assert_eq!(
    ///     ContentCoding::from_headers(&headers),
    ///     Some(vec![ContentCoding::Gzip, ContentCoding::Brotli])
    /// );
    /// ```
    pub fn from_headers(headers: &HeaderMap) -> Option<Vec<ContentCoding>> {
        let mut codings = Vec::new();
        for value in headers.get_all(CONTENT_ENCODING) {
            let value = value.to_str().ok()?;
            for token in value.split(',') {
                if token.trim_matches([' ', '\t']).is_empty() {
                    continue;
                }
                codings.push(ContentCoding::from_token(token)?);
            }
        }
        Some(codings)
    }
}

/// `body` with `codings` undone, last applied first.
///
/// Decoding is lazy and streaming: nothing is read until the result is polled. An empty
/// body stays empty whatever its codings (as for a `HEAD` or `304` response). A corrupt
/// coding ends the body with [`NetworkError::Decode`]; an error of `body` itself comes
/// through unchanged.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use http_body_util::BodyExt;
/// use whatwg_fetch::net::{decode, ContentCoding, ResponseBody};
///
/// // "hi", deflated without the zlib wrapper.
/// let raw = ResponseBody::full(vec![0xcb, 0xc8, 0x04, 0x00]);
/// let body = decode(raw, &[ContentCoding::Deflate]);
/// assert_eq!(body.collect().await.unwrap().to_bytes(), "hi");
/// # });
/// ```
pub fn decode(body: ResponseBody, codings: &[ContentCoding]) -> ResponseBody {
    let codings: Vec<ContentCoding> = codings
        .iter()
        .copied()
        .filter(|c| *c != ContentCoding::Identity)
        .collect();
    if codings.is_empty() {
        return body;
    }
    let mut stream: IoStream = Box::pin(ToIo { body });
    for coding in codings.into_iter().rev() {
        stream = Box::pin(Layer {
            coding,
            state: LayerState::Start {
                input: stream,
                prefix: BytesMut::new(),
            },
        });
    }
    ResponseBody::from_stream(FromIo { stream })
}

/// `response` with its body decoded per its `Content-Encoding` headers, when this crate
/// knows every coding named; otherwise `response` unchanged. The headers are left as
/// they are, as the Fetch Standard leaves them.
pub fn decode_response(response: Response<ResponseBody>) -> Response<ResponseBody> {
    let codings = match ContentCoding::from_headers(response.headers()) {
        Some(codings) if !codings.is_empty() => codings,
        _ => return response,
    };
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, decode(body, &codings))
}

type IoStream = Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

/// The largest zstd window accepted, as a power of two: 8 MiB ([RFC 9659 §3](https://www.rfc-editor.org/rfc/rfc9659#section-3)).
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// Size of the buffer each decoder writes into.
const CHUNK: usize = 16 * 1024;

/// A response body as an `io::Result` stream; its errors travel wrapped in `io::Error`.
struct ToIo {
    body: ResponseBody,
}

impl Stream for ToIo {
    type Item = io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.body)
            .poll_next(cx)
            .map(|item| item.map(|r| r.map_err(io::Error::other)))
    }
}

/// The end of the chain: unwraps a body error, and names any other one a decode error.
struct FromIo {
    stream: IoStream,
}

impl Stream for FromIo {
    type Item = Result<Bytes, NetworkError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream
            .as_mut()
            .poll_next(cx)
            .map(|item| item.map(|r| r.map_err(from_io)))
    }
}

fn from_io(error: io::Error) -> NetworkError {
    if error
        .get_ref()
        .is_some_and(|inner| inner.is::<NetworkError>())
    {
        if let Some(inner) = error.into_inner() {
            return match inner.downcast::<NetworkError>() {
                Ok(network) => *network,
                Err(other) => NetworkError::Decode(other),
            };
        }
        return NetworkError::Decode(Box::new(io::Error::from(io::ErrorKind::InvalidData)));
    }
    NetworkError::Decode(Box::new(error))
}

/// One coding undone. The decoder is made once the first bytes arrive, so that an empty
/// input stays empty and `deflate` can look at its first two bytes.
struct Layer {
    coding: ContentCoding,
    state: LayerState,
}

enum LayerState {
    Start { input: IoStream, prefix: BytesMut },
    Running(IoStream),
    Done,
}

/// A decoder of `coding` over `prefix` then the rest of `input`.
fn decoder(coding: ContentCoding, input: IoStream, prefix: Bytes) -> IoStream {
    let first = futures_util::stream::iter(std::iter::once(Ok::<Bytes, io::Error>(prefix)));
    let reader = StreamReader::new(futures_util::StreamExt::chain(first, input));
    match coding {
        ContentCoding::Gzip => {
            Box::pin(ReaderStream::with_capacity(GzipDecoder::new(reader), CHUNK))
        }
        ContentCoding::Deflate => Box::pin(ReaderStream::with_capacity(
            DeflateDecoder::new(reader),
            CHUNK,
        )),
        ContentCoding::Brotli => Box::pin(ReaderStream::with_capacity(
            BrotliDecoder::new(reader),
            CHUNK,
        )),
        ContentCoding::Zstd => {
            // RFC 9659 §3: a zstd content coding uses a window of at most 8 MiB, and a
            // decoder may refuse a larger one; browsers do, and so does this.
            let params = [async_compression::zstd::DParameter::window_log_max(
                ZSTD_WINDOW_LOG_MAX,
            )];
            Box::pin(ReaderStream::with_capacity(
                ZstdDecoder::with_params(reader, &params),
                CHUNK,
            ))
        }
        ContentCoding::Identity => Box::pin(ReaderStream::with_capacity(reader, CHUNK)),
    }
}

/// A zlib-wrapped `deflate` decoder over `prefix` then the rest of `input`.
fn zlib_decoder(input: IoStream, prefix: Bytes) -> IoStream {
    let first = futures_util::stream::iter(std::iter::once(Ok::<Bytes, io::Error>(prefix)));
    let reader = StreamReader::new(futures_util::StreamExt::chain(first, input));
    Box::pin(ReaderStream::with_capacity(ZlibDecoder::new(reader), CHUNK))
}

/// Whether `head` starts a zlib stream (RFC 1950 §2.2): compression method 8, a window
/// of at most 32 KiB, and a header check that is a multiple of 31.
fn is_zlib(head: &[u8; 2]) -> bool {
    let [cmf, flg] = *head;
    cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

impl Stream for Layer {
    type Item = io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                LayerState::Start { input, prefix } => {
                    match ready!(input.as_mut().poll_next(cx)) {
                        Some(Ok(chunk)) => {
                            prefix.extend_from_slice(&chunk);
                            if this.coding == ContentCoding::Deflate && prefix.len() < 2 {
                                continue;
                            }
                        }
                        Some(Err(error)) => {
                            this.state = LayerState::Done;
                            return Poll::Ready(Some(Err(error)));
                        }
                        None if prefix.is_empty() => {
                            this.state = LayerState::Done;
                            return Poll::Ready(None);
                        }
                        None => {}
                    }
                    let LayerState::Start { input, prefix } =
                        std::mem::replace(&mut this.state, LayerState::Done)
                    else {
                        continue;
                    };
                    let prefix = prefix.freeze();
                    let head = [
                        prefix.first().copied().unwrap_or(0),
                        prefix.get(1).copied().unwrap_or(0),
                    ];
                    this.state = LayerState::Running(
                        if this.coding == ContentCoding::Deflate && is_zlib(&head) {
                            zlib_decoder(input, prefix)
                        } else {
                            decoder(this.coding, input, prefix)
                        },
                    );
                }
                LayerState::Running(stream) => {
                    let item = ready!(stream.as_mut().poll_next(cx));
                    if !matches!(item, Some(Ok(_))) {
                        this.state = LayerState::Done;
                    }
                    return Poll::Ready(item);
                }
                LayerState::Done => return Poll::Ready(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_header_is_recognised() {
        assert!(is_zlib(&[0x78, 0x9c]));
        assert!(is_zlib(&[0x78, 0x01]));
        assert!(is_zlib(&[0x78, 0xda]));
        // Raw deflate of "hi".
        assert!(!is_zlib(&[0xcb, 0xc8]));
    }

    #[test]
    fn unknown_coding_is_none() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_ENCODING,
            http::HeaderValue::from_static("gzip, compress"),
        );
        assert_eq!(ContentCoding::from_headers(&headers), None);
        assert_eq!(ContentCoding::from_headers(&HeaderMap::new()), Some(vec![]));
    }
}

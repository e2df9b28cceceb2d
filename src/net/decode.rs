//! Content decoding: [RFC 9110 §8.4.1](https://httpwg.org/specs/rfc9110.html#content.codings)
//! codings as a streaming body adapter.
//!
//! The Fetch Standard decodes in
//! [handle content codings](https://fetch.spec.whatwg.org/#handle-content-codings): the
//! codings of `Content-Encoding` are undone in reverse order, and a body whose codings
//! are not all supported is left as it is. Decoding is opt-in per request (see
//! [`SendOptions::decode_content`](super::SendOptions::decode_content)) so a caller that
//! must see the bytes as sent (a range request, a cache) can.
//!
//! # How a body is decoded
//!
//! The codings become one flat pipeline: a `Vec` of push-style decoder stages (gzip,
//! zlib or raw deflate, Brotli, zstd, from the `compression-codecs` crate) with one
//! buffer between two stages, driven by a single loop. Nothing recurses, neither
//! decoding nor dropping, whatever the number of stages. The loop works from the last
//! stage back: a stage with output hands it to the next one; a stage that needs input
//! asks the one before it, and the first stage reads the body. So bytes leave the
//! connection only when the reader polls and the stages have used what they hold; each
//! stage holds at most one chunk of input and writes into a buffer of 16 KiB, and every
//! chunk the reader gets is at most 16 KiB.
//!
//! A stage's decoder is made once its first bytes arrive, so a body that is empty stays
//! empty whatever its codings (as for a `HEAD` or `304` response), and `deflate` can look
//! at its first two bytes to tell the zlib wrapper (RFC 1950, as specified) from raw
//! RFC 1951 data (which browsers also accept). A zstd frame may use a window of at most
//! 8 MiB ([RFC 9659 §3](https://www.rfc-editor.org/rfc/rfc9659#section-3)).
//!
//! # Decoded to the last byte
//!
//! gzip data is a series of members ([RFC 1952 §2.2](https://www.rfc-editor.org/rfc/rfc1952#section-2.2)),
//! and zstd data a series of frames ([RFC 8878 §3.1](https://www.rfc-editor.org/rfc/rfc8878#section-3.1)):
//! `cat a.gz b.gz`, `pigz`, `zstd -c a b` and many log shippers write several. Every
//! member and every frame is decoded, one after the other, with the same limits as the
//! first. `deflate` and `br` data is one stream.
//!
//! Every stage reads its input to its end, and the first one the body to the end of the
//! HTTP message, even when a coding's stream ends earlier (a chunked body whose last
//! chunk comes later): the message is read whole, so its connection is reused, and every
//! check is made (gzip's CRC and length, zlib's Adler-32, a stream cut short) however
//! the body's chunks fall.
//!
//! Bytes after the end of a coding's data that do not begin another member or frame (or
//! any byte after a `deflate` or `br` stream) end the body with
//! [`NetworkError::Decode`]. Browsers differ here: Chromium's `GzipSourceStream` ignores
//! whatever follows the first gzip member ("matches the behavior of other browsers"),
//! and Firefox's `nsHTTPCompressConv` throws away what follows the end of a stream as
//! "metadata or padding"; both decode only the first member of a multi-member gzip body,
//! so they lose its later members without a word. reqwest decodes every member and
//! frame and refuses "extra bytes after body has been decompressed". This crate does
//! what reqwest does: bytes it cannot decode are bytes the caller would not get, and an
//! error says so where silence would pass a damaged or spliced body off as whole.
//! Waiting for the message's end costs no more than any body does: the connection's read
//! timeout bounds it.
//!
//! One end of the message is forgiven: an HTTP/1.1 body delimited by the connection's close
//! whose TLS connection closed without a closure alert (`close_notify`), after the
//! outermost coding's data has ended. RFC 9112 §9.8 counts a close-delimited body complete
//! only with the alert, since a connection cut short looks the same, and without a coding
//! that stays an error; but a coding delimits its data itself and checks it (gzip's CRC,
//! a stream cut short), and any byte after its end would be an error, so the alert could
//! only confirm what the coding already says. Many servers close without it (Python's
//! `http.server` over TLS does), and browsers accept such bodies whatever their framing.
//!
//! Corrupt or truncated data ends the body with [`NetworkError::Decode`]; an error of the
//! body itself comes through unchanged.
//!
//! # At most [`MAX_CONTENT_CODINGS`] codings
//!
//! Every coding costs a decoder (Brotli's and zstd's keep windows of up to 16 and 8 MiB)
//! and a pass over every byte, so a response naming thousands of codings in a few
//! kilobytes of header would cost the client far more than it costs the server. curl
//! caps the chain at 5 since CVE-2022-32206 ("HTTP compression denial of service"), and
//! undici rejects more than 5 as well; this crate does the same (the Fetch Standard sets
//! no limit yet: [whatwg/fetch#1933](https://github.com/whatwg/fetch/issues/1933)).
//! Servers rarely stack more than two codings. More than [`MAX_CONTENT_CODINGS`] is a
//! network error, [`NetworkError::TooManyContentCodings`], found while reading the header
//! and before any decoder or buffer is made: counting the codings of a header of any
//! length allocates nothing.
//!
//! `identity` does not count: it means "no coding", is skipped before the pipeline is
//! built and costs nothing to undo, so a response that names it (however often, within
//! the header size limit) decodes as browsers decode it. An unknown coding anywhere in
//! the list leaves the body as it is, as the Fetch Standard says, however many codings
//! the list names: nothing is decoded, so nothing is at risk.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
#[cfg(feature = "brotli")]
use compression_codecs::BrotliDecoder;
use compression_codecs::DecodeV2;
#[cfg(feature = "gzip")]
use compression_codecs::GzipDecoder;
#[cfg(feature = "zstd")]
use compression_codecs::ZstdDecoder;
use compression_codecs::core::util::{PartialBuffer, WriteBuffer};
#[cfg(feature = "deflate")]
use compression_codecs::{DeflateDecoder, ZlibDecoder};
use futures_core::Stream;
use http::header::CONTENT_ENCODING;
use http::{HeaderMap, Response};

use super::h1::is_incomplete_close;
use super::response_body::{Decoding, ResponseBody};
use crate::error::NetworkError;

/// The most content codings a response may stack (`identity` aside): 5, as curl and
/// undici allow.
///
/// Every coding costs a decoder (Brotli's and zstd's keep windows of up to 16 and 8 MiB)
/// and a pass over every byte, so a response naming thousands of codings in a few
/// kilobytes of header would cost the client far more than the server. curl caps the
/// chain at 5 since CVE-2022-32206, and undici rejects more than 5; the Fetch Standard
/// sets no limit yet ([whatwg/fetch#1933](https://github.com/whatwg/fetch/issues/1933)).
/// More is [`NetworkError::TooManyContentCodings`], found by counting the header's
/// codings before any decoder is made. `identity` is not counted: it is no coding and is
/// skipped, so it costs nothing to undo. A list with a coding this crate does not know
/// leaves the body as sent, however long the list.
///
/// ```
/// use whatwg_fetch::NetworkError;
/// use whatwg_fetch::net::{MAX_CONTENT_CODINGS, ResponseBody, decode_response};
///
/// // One more `gzip` than the most a response may name.
/// let codings = vec!["gzip"; MAX_CONTENT_CODINGS + 1].join(", ");
/// let response = http::Response::builder()
///     .header("content-encoding", codings)
///     .body(ResponseBody::empty())
///     .map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?;
/// if cfg!(feature = "gzip") {
///     assert!(matches!(decode_response(response), Err(NetworkError::TooManyContentCodings { .. })));
/// }
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const MAX_CONTENT_CODINGS: usize = 5;

/// A content coding this crate can undo.
///
/// ```
/// use whatwg_fetch::net::{ContentCoding, ContentCodings};
///
/// let codings = ContentCodings::available().with(ContentCoding::Zstd, false);
/// assert!(!codings.contains(ContentCoding::Zstd));
/// // `identity` is always decoded: it is no coding at all.
/// assert!(codings.contains(ContentCoding::Identity));
/// ```
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

/// The `Accept-Encoding` a request gets unless it has its own: the codings this build
/// decodes (each a Cargo feature: `gzip`, `deflate`, `brotli`, `zstd`), or `identity`
/// when it decodes none.
///
/// ```
/// // The default features decode every coding.
/// assert_eq!(whatwg_fetch::net::ACCEPT_ENCODING, "gzip, deflate, br, zstd");
/// ```
pub const ACCEPT_ENCODING: &str = match (
    cfg!(feature = "gzip"),
    cfg!(feature = "deflate"),
    cfg!(feature = "brotli"),
    cfg!(feature = "zstd"),
) {
    (true, true, true, true) => "gzip, deflate, br, zstd",
    (true, true, true, false) => "gzip, deflate, br",
    (true, true, false, true) => "gzip, deflate, zstd",
    (true, true, false, false) => "gzip, deflate",
    (true, false, true, true) => "gzip, br, zstd",
    (true, false, true, false) => "gzip, br",
    (true, false, false, true) => "gzip, zstd",
    (true, false, false, false) => "gzip",
    (false, true, true, true) => "deflate, br, zstd",
    (false, true, true, false) => "deflate, br",
    (false, true, false, true) => "deflate, zstd",
    (false, true, false, false) => "deflate",
    (false, false, true, true) => "br, zstd",
    (false, false, true, false) => "br",
    (false, false, false, true) => "zstd",
    (false, false, false, false) => "identity",
};

/// A set of the content codings a client decodes and names in `Accept-Encoding`: every
/// coding this build has by default ([`ContentCodings::available`]), fewer when a client
/// turns some off ([`ClientBuilder::gzip`](crate::ClientBuilder::gzip) and its siblings).
/// A response in a coding outside the set comes as sent, as one in an unknown coding does.
///
/// ```
/// use whatwg_fetch::net::{ContentCoding, ContentCodings};
///
/// let codings = ContentCodings::available().with(ContentCoding::Brotli, false);
/// assert!(!codings.contains(ContentCoding::Brotli));
/// assert_eq!(codings.accept_encoding(), "gzip, deflate, zstd");
/// assert_eq!(ContentCodings::none().accept_encoding(), "identity");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContentCodings {
    /// One bit per coding: gzip 1, deflate 2, br 4, zstd 8.
    bits: u8,
}

impl ContentCodings {
    /// Every coding this build decodes.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCoding, ContentCodings};
    ///
    /// // The codings of this build's features (`gzip`, `deflate`, `brotli`, `zstd`).
    /// let codings = ContentCodings::available();
    /// assert_eq!(codings.contains(ContentCoding::Gzip), cfg!(feature = "gzip"));
    /// ```
    pub const fn available() -> ContentCodings {
        let mut bits = 0;
        if ContentCoding::Gzip.is_available() {
            bits |= 1;
        }
        if ContentCoding::Deflate.is_available() {
            bits |= 2;
        }
        if ContentCoding::Brotli.is_available() {
            bits |= 4;
        }
        if ContentCoding::Zstd.is_available() {
            bits |= 8;
        }
        ContentCodings { bits }
    }

    /// No coding: every body comes as sent, and requests ask for `identity`.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCoding, ContentCodings};
    ///
    /// let codings = ContentCodings::none();
    /// assert!(!codings.contains(ContentCoding::Gzip));
    /// assert!(codings.contains(ContentCoding::Identity));
    /// assert_eq!(codings.accept_encoding(), "identity");
    /// ```
    pub const fn none() -> ContentCodings {
        ContentCodings { bits: 0 }
    }

    /// The bit of `coding`; `identity`, always decoded, has none.
    const fn bit(coding: ContentCoding) -> u8 {
        match coding {
            ContentCoding::Gzip => 1,
            ContentCoding::Deflate => 2,
            ContentCoding::Brotli => 4,
            ContentCoding::Zstd => 8,
            ContentCoding::Identity => 0,
        }
    }

    /// This set with `coding` in it (`enabled`) or not. A coding this build does not
    /// decode is never in it.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCoding, ContentCodings};
    ///
    /// let gzip_only = ContentCodings::none().with(ContentCoding::Gzip, true);
    /// assert_eq!(gzip_only.contains(ContentCoding::Gzip), cfg!(feature = "gzip"));
    /// assert!(!gzip_only.contains(ContentCoding::Brotli));
    /// ```
    pub const fn with(self, coding: ContentCoding, enabled: bool) -> ContentCodings {
        let bit = ContentCodings::bit(coding);
        let bits = if enabled && coding.is_available() {
            self.bits | bit
        } else {
            self.bits & !bit
        };
        ContentCodings { bits }
    }

    /// Whether `coding` is decoded; `identity` always is.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCoding, ContentCodings};
    ///
    /// let codings = ContentCodings::available().with(ContentCoding::Deflate, false);
    /// assert!(!codings.contains(ContentCoding::Deflate));
    /// ```
    pub const fn contains(self, coding: ContentCoding) -> bool {
        matches!(coding, ContentCoding::Identity) || self.bits & ContentCodings::bit(coding) != 0
    }

    /// The `Accept-Encoding` value naming the set, in the order of [`ACCEPT_ENCODING`];
    /// `identity` for the empty set.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCoding, ContentCodings};
    ///
    /// let codings = ContentCodings::none().with(ContentCoding::Gzip, true);
    /// if cfg!(feature = "gzip") {
    ///     assert_eq!(codings.accept_encoding(), "gzip");
    /// }
    /// ```
    pub const fn accept_encoding(self) -> &'static str {
        match self.bits {
            0b1111 => "gzip, deflate, br, zstd",
            0b0111 => "gzip, deflate, br",
            0b1011 => "gzip, deflate, zstd",
            0b0011 => "gzip, deflate",
            0b1101 => "gzip, br, zstd",
            0b0101 => "gzip, br",
            0b1001 => "gzip, zstd",
            0b0001 => "gzip",
            0b1110 => "deflate, br, zstd",
            0b0110 => "deflate, br",
            0b1010 => "deflate, zstd",
            0b0010 => "deflate",
            0b1100 => "br, zstd",
            0b0100 => "br",
            0b1000 => "zstd",
            _ => "identity",
        }
    }
}

/// Every coding this build decodes.
impl Default for ContentCodings {
    fn default() -> ContentCodings {
        ContentCodings::available()
    }
}

impl ContentCoding {
    /// Whether this build decodes the coding: each is a Cargo feature (`gzip`,
    /// `deflate`, `brotli`, `zstd`, all on by default); `identity` always is.
    ///
    /// ```
    /// use whatwg_fetch::net::ContentCoding;
    ///
    /// // Each coding is a Cargo feature of its own; `identity` needs none.
    /// assert_eq!(ContentCoding::Brotli.is_available(), cfg!(feature = "brotli"));
    /// assert!(ContentCoding::Identity.is_available());
    /// ```
    pub const fn is_available(self) -> bool {
        match self {
            ContentCoding::Gzip => cfg!(feature = "gzip"),
            ContentCoding::Deflate => cfg!(feature = "deflate"),
            ContentCoding::Brotli => cfg!(feature = "brotli"),
            ContentCoding::Zstd => cfg!(feature = "zstd"),
            ContentCoding::Identity => true,
        }
    }

    /// The token `Content-Encoding` names the coding by.
    fn token(self) -> &'static str {
        match self {
            ContentCoding::Gzip => "gzip",
            ContentCoding::Deflate => "deflate",
            ContentCoding::Brotli => "br",
            ContentCoding::Zstd => "zstd",
            ContentCoding::Identity => "identity",
        }
    }

    /// What one of the coding's streams is called, for a coding whose data may be
    /// several in a row: a gzip "member" (RFC 1952 §2.2), a zstd "frame" (RFC 8878
    /// §3.1). `None` for `deflate` and `br`, whose data is one stream.
    fn stream_name(self) -> Option<&'static str> {
        match self {
            ContentCoding::Gzip => Some("member"),
            ContentCoding::Zstd => Some("frame"),
            _ => None,
        }
    }

    /// The coding a `Content-Encoding` token names, ASCII case-insensitively, or `None`
    /// for a coding this build cannot undo (see [`is_available`](Self::is_available)).
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
        .filter(|coding| coding.is_available())
    }

    /// The codings of every `Content-Encoding` header in `headers`, in the order they
    /// were applied; `None` if one of them is unknown or a value is not text. An absent
    /// header gives an empty list.
    ///
    /// This lists every coding, however many: [`decode_response`] counts them against
    /// [`MAX_CONTENT_CODINGS`] without making such a list.
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
        for token in tokens(headers) {
            codings.push(ContentCoding::from_token(token?)?);
        }
        Some(codings)
    }
}

/// The non-empty tokens of every `Content-Encoding` header, in order; `None` for a value
/// that is not text.
fn tokens(headers: &HeaderMap) -> impl Iterator<Item = Option<&str>> {
    headers
        .get_all(CONTENT_ENCODING)
        .into_iter()
        .flat_map(|value| {
            let (text, not_text) = match value.to_str() {
                Ok(text) => (text, None),
                Err(_) => ("", Some(None)),
            };
            text.split(',')
                .filter(|token| !token.trim_matches([' ', '\t']).is_empty())
                .map(Some)
                .chain(not_text)
        })
}

/// The codings to undo (`identity` left out), in the order they were applied: at most
/// [`MAX_CONTENT_CODINGS`], held without allocating.
#[derive(Clone, Copy, Debug)]
struct Chain {
    codings: [ContentCoding; MAX_CONTENT_CODINGS],
    len: usize,
}

impl Chain {
    /// The chain of `codings`; more than [`MAX_CONTENT_CODINGS`] of them (not counting
    /// `identity`) is [`NetworkError::TooManyContentCodings`].
    fn new(codings: impl IntoIterator<Item = ContentCoding>) -> Result<Chain, NetworkError> {
        let mut chain = Chain {
            codings: [ContentCoding::Identity; MAX_CONTENT_CODINGS],
            len: 0,
        };
        let mut count: usize = 0;
        for coding in codings {
            if coding == ContentCoding::Identity {
                continue;
            }
            if let Some(slot) = chain.codings.get_mut(count) {
                *slot = coding;
            }
            count = count.saturating_add(1);
        }
        if count > MAX_CONTENT_CODINGS {
            return Err(NetworkError::TooManyContentCodings {
                count,
                max: MAX_CONTENT_CODINGS,
            });
        }
        chain.len = count;
        Ok(chain)
    }

    fn as_slice(&self) -> &[ContentCoding] {
        self.codings.get(..self.len).unwrap_or_default()
    }
}

/// `body` with `codings` undone, last applied first.
///
/// Decoding is lazy and streaming: nothing is read until the result is polled. An empty
/// body stays empty whatever its codings (as for a `HEAD` or `304` response). A corrupt
/// or truncated coding ends the body with [`NetworkError::Decode`]; an error of `body`
/// itself comes through unchanged. `identity` is skipped.
///
/// The codings become one flat pipeline of decoders with a buffer between each two,
/// driven by a loop: nothing recurses, and the body is read only as the result is
/// polled, at most 16 KiB of output at a time.
///
/// # Errors
///
/// [`NetworkError::TooManyContentCodings`] for more than [`MAX_CONTENT_CODINGS`] codings
/// besides `identity`, before anything is read or allocated; [`NetworkError::Decode`]
/// for a coding this build does not decode (see [`ContentCoding::is_available`]).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use http_body_util::BodyExt;
/// use whatwg_fetch::net::{decode, ContentCoding, ResponseBody};
///
/// // "hi", deflated without the zlib wrapper.
/// let raw = ResponseBody::full(vec![0xcb, 0xc8, 0x04, 0x00]);
/// let body = decode(raw, &[ContentCoding::Deflate])?;
/// assert_eq!(body.collect().await?.to_bytes(), "hi");
///
/// // Six stacked codings are refused.
/// let six = [ContentCoding::Gzip; 6];
/// assert!(decode(ResponseBody::empty(), &six).is_err());
/// # Ok::<(), whatwg_fetch::NetworkError>(())
/// # }).unwrap();
/// ```
pub fn decode(body: ResponseBody, codings: &[ContentCoding]) -> Result<ResponseBody, NetworkError> {
    let chain = Chain::new(codings.iter().copied())?;
    if let Some(coding) = chain
        .as_slice()
        .iter()
        .find(|coding| !coding.is_available())
    {
        return Err(NetworkError::Decode(
            format!("{coding:?} decoding is not in this build: its Cargo feature is off").into(),
        ));
    }
    Ok(decode_chain(body, &chain))
}

fn decode_chain(body: ResponseBody, chain: &Chain) -> ResponseBody {
    if chain.len == 0 {
        return body;
    }
    // The first stage undoes the last coding applied.
    let stages = chain
        .as_slice()
        .iter()
        .rev()
        .map(|&coding| Stage::new(coding))
        .collect();
    ResponseBody::decoded(Pipeline {
        source: body,
        stages,
        done: false,
        trailers: None,
    })
}

/// `response` with its body decoded per its `Content-Encoding` headers, when this crate
/// knows every coding named; otherwise `response` unchanged. The headers are left as
/// they are, as the Fetch Standard leaves them.
///
/// # Errors
///
/// [`NetworkError::TooManyContentCodings`] when the headers name more than
/// [`MAX_CONTENT_CODINGS`] codings besides `identity` (and no unknown one, which would
/// leave the body as it is). The headers are read once and nothing is allocated for the
/// codings, however many there are.
///
/// ```
/// # tokio_test::block_on(async {
/// use http_body_util::BodyExt;
/// use whatwg_fetch::net::{ResponseBody, decode_response};
///
/// // A response of a transport that does not decode (`SendOptions::new()`), decoded after.
/// let plain = http::Response::builder().body(ResponseBody::full("as sent"))?;
/// let decoded = decode_response(plain)?;
/// assert_eq!(&decoded.into_body().collect().await?.to_bytes()[..], b"as sent");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub fn decode_response(
    response: Response<ResponseBody>,
) -> Result<Response<ResponseBody>, NetworkError> {
    decode_response_with(response, ContentCodings::available())
}

/// [`decode_response`] decoding only the codings in `codings`: a response in another one
/// comes as sent, as one in an unknown coding does.
///
/// # Errors
/// As [`decode_response`].
///
/// ```
/// use whatwg_fetch::net::{ContentCodings, ResponseBody, decode_response_with};
///
/// // Decoding none: a gzip body comes as sent, its `Content-Encoding` saying so.
/// let gzipped = http::Response::builder()
///     .header("content-encoding", "gzip")
///     .body(ResponseBody::full(&b"\x1f\x8b"[..]))?;
/// let response = decode_response_with(gzipped, ContentCodings::none())?;
/// assert_eq!(response.headers()["content-encoding"], "gzip");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_response_with(
    response: Response<ResponseBody>,
    codings: ContentCodings,
) -> Result<Response<ResponseBody>, NetworkError> {
    if !response.headers().contains_key(CONTENT_ENCODING) {
        return Ok(response);
    }
    // One pass over the tokens: an unknown coding (or a value that is not text) leaves
    // the body as it is, however many codings come before or after it.
    let mut unknown = false;
    let enabled = codings;
    let codings = tokens(response.headers()).map_while(|token| {
        let coding = token
            .and_then(ContentCoding::from_token)
            .filter(|coding| enabled.contains(*coding));
        unknown |= coding.is_none();
        coding
    });
    let chain = Chain::new(codings);
    if unknown {
        return Ok(response);
    }
    let chain = chain?;
    if chain.len == 0 {
        return Ok(response);
    }
    let (parts, body) = response.into_parts();
    Ok(Response::from_parts(parts, decode_chain(body, &chain)))
}

/// The largest zstd window accepted, as a power of two: 8 MiB ([RFC 9659 §3](https://www.rfc-editor.org/rfc/rfc9659#section-3)).
#[cfg(feature = "zstd")]
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// Size of the buffer each stage writes into, and so the largest chunk it hands on.
const CHUNK: usize = 16 * 1024;

/// A stage's output buffer shorter than this is replaced by a fresh one of [`CHUNK`]
/// bytes, so that chunks do not shrink to a few bytes.
const MIN_ROOM: usize = 4 * 1024;

/// The decoders, as one type so that a stage holds its decoder without a box of its own.
enum Codec {
    #[cfg(feature = "gzip")]
    Gzip(GzipDecoder),
    #[cfg(feature = "deflate")]
    Zlib(ZlibDecoder),
    #[cfg(feature = "deflate")]
    Deflate(DeflateDecoder),
    #[cfg(feature = "brotli")]
    Brotli(BrotliDecoder),
    #[cfg(feature = "zstd")]
    Zstd(ZstdDecoder),
}

impl Codec {
    /// A decoder of `coding`, whose data starts with `head`; `None` for `identity` and
    /// for a coding this build does not decode, which [`decode`] refuses up front and
    /// [`ContentCoding::from_token`] never names.
    // With no coding's feature on, every arm returns `None`.
    #[allow(unreachable_code)]
    fn new(coding: ContentCoding, head: &[u8]) -> Option<Codec> {
        // `head` tells raw deflate from zlib.
        let _ = head;
        Some(match coding {
            #[cfg(feature = "gzip")]
            ContentCoding::Gzip => Codec::Gzip(GzipDecoder::new()),
            #[cfg(feature = "deflate")]
            ContentCoding::Deflate if is_zlib(head) => Codec::Zlib(ZlibDecoder::new()),
            #[cfg(feature = "deflate")]
            ContentCoding::Deflate => Codec::Deflate(DeflateDecoder::new()),
            #[cfg(feature = "brotli")]
            ContentCoding::Brotli => Codec::Brotli(BrotliDecoder::new()),
            // RFC 9659 §3: a zstd content coding uses a window of at most 8 MiB, and a
            // decoder may refuse a larger one; browsers do, and so does this.
            #[cfg(feature = "zstd")]
            ContentCoding::Zstd => Codec::Zstd(ZstdDecoder::new_with_params(&[
                compression_codecs::zstd::params::DParameter::window_log_max(ZSTD_WINDOW_LOG_MAX),
            ])),
            #[allow(unreachable_patterns)] // with every coding's feature on
            _ => return None,
        })
    }

    fn get(&mut self) -> &mut dyn DecodeV2 {
        match *self {
            #[cfg(feature = "gzip")]
            Codec::Gzip(ref mut decoder) => decoder,
            #[cfg(feature = "deflate")]
            Codec::Zlib(ref mut decoder) => decoder,
            #[cfg(feature = "deflate")]
            Codec::Deflate(ref mut decoder) => decoder,
            #[cfg(feature = "brotli")]
            Codec::Brotli(ref mut decoder) => decoder,
            #[cfg(feature = "zstd")]
            Codec::Zstd(ref mut decoder) => decoder,
        }
    }
}

/// Whether `head` starts a zlib stream (RFC 1950 §2.2): compression method 8, a window
/// of at most 32 KiB, and a header check that is a multiple of 31.
#[cfg(feature = "deflate")]
fn is_zlib(head: &[u8]) -> bool {
    let (Some(&cmf), Some(&flg)) = (head.first(), head.get(1)) else {
        return false;
    };
    cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

/// Where a stage is in its coding's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Taking input.
    Decoding,
    /// The stream ended (or its input did): writing out what the decoder still holds.
    Finishing,
    /// A stream (one gzip member, one zstd frame) has ended and passed its checks. What
    /// follows must be another member or frame, for the codings that have them, or
    /// nothing: the stage ends only when its input does.
    Ended,
}

/// What one step of a stage gave.
enum Step {
    /// Decoded bytes for the next stage (or the reader).
    Output(Bytes),
    /// The stage has used all its input and needs more.
    NeedInput,
    /// The stage's input has ended, and every stream in it with it.
    End,
}

/// One coding undone: a decoder, the input it has not used yet, and the buffer it
/// writes into.
struct Stage {
    coding: ContentCoding,
    /// Made when the first bytes arrive.
    decoder: Option<Codec>,
    /// Input not yet used: one chunk of the body, or of the stage before.
    input: Bytes,
    /// No input will follow `input`.
    input_ended: bool,
    /// Zeroed room the decoder writes into; what it wrote is split off and handed on.
    output: BytesMut,
    /// The last call filled the output: the decoder may hold more without new input.
    more_output: bool,
    phase: Phase,
    /// The streams begun so far (gzip members, zstd frames), the current one included;
    /// errors name the one they are in.
    streams: u32,
}

impl Stage {
    fn new(coding: ContentCoding) -> Stage {
        Stage {
            coding,
            decoder: None,
            input: Bytes::new(),
            input_ended: false,
            output: BytesMut::new(),
            more_output: false,
            phase: Phase::Decoding,
            streams: 1,
        }
    }

    /// Takes `chunk` as input, after what is left (only `deflate`'s first byte waits for
    /// a second one).
    fn push_input(&mut self, chunk: Bytes) {
        if self.input.is_empty() {
            self.input = chunk;
        } else {
            let mut joined = BytesMut::with_capacity(self.input.len().saturating_add(chunk.len()));
            joined.extend_from_slice(&self.input);
            joined.extend_from_slice(&chunk);
            self.input = joined.freeze();
        }
    }

    /// Runs the decoder until it has output to hand on, needs input, or ends; an error
    /// says which coding (and which member or frame) it is in.
    fn step(&mut self) -> io::Result<Step> {
        self.step_inner().map_err(|error| {
            let coding = self.coding.token();
            let context = match self.coding.stream_name() {
                Some(stream) if self.streams > 1 => format!("{coding} {stream} {}", self.streams),
                _ => coding.to_owned(),
            };
            io::Error::new(error.kind(), format!("{context}: {error}"))
        })
    }

    fn step_inner(&mut self) -> io::Result<Step> {
        loop {
            match self.phase {
                Phase::Ended => {
                    if !self.input.is_empty() {
                        // RFC 1952 §2.2: "A gzip file consists of a series of
                        // "members""; RFC 8878 §3.1: a zstd stream is "one or more
                        // frames". What follows a member or frame is the next one, and
                        // bytes that do not start one are an error, never dropped.
                        if self.coding.stream_name().is_none() {
                            return Err(io::Error::new(
                                io::ErrorKind::InvalidData,
                                format!(
                                    "data follows the end of the stream ({} bytes or more)",
                                    self.input.len()
                                ),
                            ));
                        }
                        if let Some(decoder) = self.decoder.as_mut() {
                            decoder.get().reinit()?;
                        }
                        self.streams = self.streams.saturating_add(1);
                        self.more_output = false;
                        self.phase = Phase::Decoding;
                        continue;
                    }
                    if self.input_ended {
                        return Ok(Step::End);
                    }
                    return Ok(Step::NeedInput);
                }
                Phase::Decoding => {
                    if self.decoder.is_none() {
                        if self.input.is_empty() {
                            if self.input_ended {
                                // No bytes at all: an empty body stays empty.
                                self.phase = Phase::Ended;
                                return Ok(Step::End);
                            }
                            return Ok(Step::NeedInput);
                        }
                        if self.coding == ContentCoding::Deflate
                            && self.input.len() < 2
                            && !self.input_ended
                        {
                            return Ok(Step::NeedInput);
                        }
                        self.decoder = Codec::new(self.coding, &self.input);
                    }
                    let draining = self.input.is_empty();
                    if draining && !self.more_output {
                        if self.input_ended {
                            self.phase = Phase::Finishing;
                            continue;
                        }
                        return Ok(Step::NeedInput);
                    }
                    let (consumed, written, result) =
                        self.run(|decoder, input, output| decoder.decode(input, output));
                    self.input.advance(consumed.min(self.input.len()));
                    match result {
                        Ok(true) => self.phase = Phase::Finishing,
                        Ok(false) => {}
                        // With no input the decoder was only asked for what it still held;
                        // flate reports having nothing more as an error.
                        Err(_) if draining => self.more_output = false,
                        Err(error) => return Err(error),
                    }
                    if written > 0 {
                        return Ok(Step::Output(self.take_output(written)));
                    }
                    if consumed == 0 && !draining && self.phase == Phase::Decoding {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "the decoder made no progress",
                        ));
                    }
                }
                Phase::Finishing => {
                    let (_, written, result) =
                        self.run(|decoder, _input, output| decoder.finish(output));
                    match result {
                        Ok(true) => self.phase = Phase::Ended,
                        // Asked to finish with room to write, the decoder wrote nothing
                        // and is not done: its stream was cut short.
                        Ok(false) if written == 0 => {
                            return Err(io::Error::new(
                                io::ErrorKind::UnexpectedEof,
                                "the data ends before the stream does",
                            ));
                        }
                        Ok(false) => {}
                        Err(error) => return Err(error),
                    }
                    if written > 0 {
                        return Ok(Step::Output(self.take_output(written)));
                    }
                }
            }
        }
    }

    /// Calls `f` with the decoder, the unused input and the free output room; returns the
    /// bytes of input used, the bytes written and `f`'s result. Sets `more_output` when
    /// the room was filled.
    fn run(
        &mut self,
        f: impl FnOnce(
            &mut dyn DecodeV2,
            &mut PartialBuffer<&[u8]>,
            &mut WriteBuffer<'_>,
        ) -> io::Result<bool>,
    ) -> (usize, usize, io::Result<bool>) {
        let Some(decoder) = self.decoder.as_mut() else {
            return (0, 0, Ok(true));
        };
        if self.output.len() < MIN_ROOM {
            // Reuses the old buffer when every chunk split off it has been dropped.
            self.output.clear();
            self.output.resize(CHUNK, 0);
        }
        let mut input = PartialBuffer::new(&self.input[..]);
        let mut output = WriteBuffer::new_initialized(&mut self.output[..]);
        let result = f(decoder.get(), &mut input, &mut output);
        self.more_output = output.has_no_spare_space();
        (input.written_len(), output.written_len(), result)
    }

    fn take_output(&mut self, written: usize) -> Bytes {
        self.output
            .split_to(written.min(self.output.len()))
            .freeze()
    }
}

/// The decoded body: the stages in order, the first reading `source`.
///
/// Every stage reads its input to the end, the first one the body to its end, so that
/// every check of every coding is made (gzip's CRC and length, zlib's Adler-32, a stream
/// cut short) and the HTTP message is read whole, whichever coding's stream ends first.
struct Pipeline {
    source: ResponseBody,
    /// `stages[0]` undoes the last coding applied; the last stage's output is the body.
    stages: Vec<Stage>,
    /// Set after the end or an error: the body yields nothing more.
    done: bool,
    /// The trailer fields `source` ended with, given after the decoded bytes (boxed:
    /// rare, and kept out of every decoded body).
    trailers: Option<Box<http::HeaderMap>>,
}

impl Pipeline {
    /// Ends the body: the stages and the source (with its connection) are let go.
    fn finish(
        &mut self,
        item: Option<Result<Bytes, NetworkError>>,
    ) -> Poll<Option<Result<Bytes, NetworkError>>> {
        if matches!(item, Some(Err(_))) {
            // A body that failed has no trailer fields to give.
            self.trailers = None;
        }
        self.done = true;
        self.stages = Vec::new();
        self.source = ResponseBody::empty();
        Poll::Ready(item)
    }
}

impl Decoding for Pipeline {
    fn source_mut(self: Pin<&mut Self>) -> &mut ResponseBody {
        &mut self.get_mut().source
    }

    fn take_trailers(self: Pin<&mut Self>) -> Option<http::HeaderMap> {
        let this = self.get_mut();
        if !this.done {
            return None;
        }
        this.trailers.take().map(|trailers| *trailers)
    }
}

impl Stream for Pipeline {
    type Item = Result<Bytes, NetworkError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let last = this.stages.len().saturating_sub(1);
        // The stage being asked for output: start from the last one and walk back to
        // the first (and the body) while stages need input.
        let mut index = last;
        loop {
            let Some(stage) = this.stages.get_mut(index) else {
                return this.finish(None);
            };
            let step = match stage.step() {
                Ok(step) => step,
                Err(error) => return this.finish(Some(Err(NetworkError::Decode(Box::new(error))))),
            };
            match step {
                Step::Output(bytes) => match this.stages.get_mut(index + 1) {
                    Some(next) => {
                        next.push_input(bytes);
                        index += 1;
                    }
                    None => return Poll::Ready(Some(Ok(bytes))),
                },
                // This stage's input has ended, and so has what it gives the next one.
                Step::End => match this.stages.get_mut(index + 1) {
                    Some(next) => {
                        next.input_ended = true;
                        index += 1;
                    }
                    None => return this.finish(None),
                },
                Step::NeedInput if index > 0 => index -= 1,
                Step::NeedInput => {
                    match http_body::Body::poll_frame(Pin::new(&mut this.source), cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                            Ok(chunk) if chunk.is_empty() => {}
                            Ok(chunk) => stage.push_input(chunk),
                            // The body's trailer fields: kept for after the decoded bytes.
                            Err(frame) => {
                                if let Ok(trailers) = frame.into_trailers() {
                                    this.trailers = Some(Box::new(trailers));
                                }
                            }
                        },
                        Poll::Ready(None) => stage.input_ended = true,
                        // The outermost coding's data has ended, and the connection closed
                        // without a TLS closure alert: the coding delimits the body
                        // itself, and its checks have passed, so the close is its end.
                        Poll::Ready(Some(Err(error)))
                            if stage.phase == Phase::Ended
                                && stage.input.is_empty()
                                && is_incomplete_close(&error) =>
                        {
                            stage.input_ended = true;
                        }
                        // An error of the body itself, unchanged.
                        Poll::Ready(Some(Err(error))) => return this.finish(Some(Err(error))),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use proptest::prelude::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::AsyncWriteExt;

    const TEXT: &[u8] = b"The quick brown fox jumps over the lazy dog. \
                          The quick brown fox jumps over the lazy dog.";

    /// `data` encoded with `coding`; `Deflate` is zlib-wrapped, `None` is raw deflate.
    async fn encode(coding: Option<ContentCoding>, data: &[u8]) -> Vec<u8> {
        use async_compression::tokio::write::{
            BrotliEncoder, DeflateEncoder, GzipEncoder, ZlibEncoder, ZstdEncoder,
        };
        async fn run<W: tokio::io::AsyncWrite + Unpin>(mut writer: W, data: &[u8]) -> W {
            writer.write_all(data).await.unwrap();
            writer.shutdown().await.unwrap();
            writer
        }
        match coding {
            Some(ContentCoding::Gzip) => run(GzipEncoder::new(Vec::new()), data).await.into_inner(),
            Some(ContentCoding::Deflate) => {
                run(ZlibEncoder::new(Vec::new()), data).await.into_inner()
            }
            None => run(DeflateEncoder::new(Vec::new()), data)
                .await
                .into_inner(),
            Some(ContentCoding::Brotli) => {
                run(BrotliEncoder::new(Vec::new()), data).await.into_inner()
            }
            Some(ContentCoding::Zstd) => run(ZstdEncoder::new(Vec::new()), data).await.into_inner(),
            Some(ContentCoding::Identity) => data.to_vec(),
        }
    }

    /// `data` encoded with each of `codings` in turn.
    async fn encode_all(codings: &[ContentCoding], data: &[u8]) -> Vec<u8> {
        let mut encoded = data.to_vec();
        for &coding in codings {
            encoded = encode(Some(coding), &encoded).await;
        }
        encoded
    }

    /// A body delivering `data` in chunks of the given sizes (the rest in one last chunk).
    fn chunked(data: &[u8], sizes: &[usize]) -> ResponseBody {
        let mut chunks = Vec::new();
        let mut rest = data;
        for &size in sizes {
            let (chunk, tail) = rest.split_at(size.min(rest.len()));
            chunks.push(Ok(Bytes::copy_from_slice(chunk)));
            rest = tail;
        }
        chunks.push(Ok(Bytes::copy_from_slice(rest)));
        ResponseBody::from_stream(futures_util::stream::iter(chunks))
    }

    /// Every chunk of `body`, or its error.
    async fn chunks(mut body: ResponseBody) -> Result<Vec<Bytes>, NetworkError> {
        let mut chunks = Vec::new();
        while let Some(chunk) = body.next().await {
            chunks.push(chunk?);
        }
        Ok(chunks)
    }

    async fn read(body: ResponseBody) -> Result<Vec<u8>, NetworkError> {
        Ok(chunks(body).await?.concat())
    }

    fn response(content_encoding: &str, body: ResponseBody) -> Response<ResponseBody> {
        let mut response = Response::new(body);
        response.headers_mut().insert(
            CONTENT_ENCODING,
            http::HeaderValue::from_str(content_encoding).unwrap(),
        );
        response
    }

    #[tokio::test]
    async fn each_coding_is_undone() {
        for coding in [
            Some(ContentCoding::Gzip),
            Some(ContentCoding::Deflate),
            None,
            Some(ContentCoding::Brotli),
            Some(ContentCoding::Zstd),
        ] {
            let encoded = encode(coding, TEXT).await;
            let coding = coding.unwrap_or(ContentCoding::Deflate);
            let body = decode(ResponseBody::full(encoded), &[coding]).unwrap();
            assert_eq!(read(body).await.unwrap(), TEXT, "{coding:?}");
        }
    }

    #[tokio::test]
    async fn codings_stacked_up_to_the_limit_are_undone_last_first() {
        let codings = [
            ContentCoding::Gzip,
            ContentCoding::Brotli,
            ContentCoding::Zstd,
            ContentCoding::Deflate,
            ContentCoding::Gzip,
        ];
        assert_eq!(codings.len(), MAX_CONTENT_CODINGS);
        let data = TEXT.repeat(5000);
        let encoded = encode_all(&codings, &data).await;
        let body = decode(chunked(&encoded, &[1, 1, 7, 100]), &codings).unwrap();
        assert_eq!(read(body).await.unwrap(), data);
        // And through the headers, with spaces and two header lines.
        let mut response = response("gzip, br ,zstd", ResponseBody::full(encoded));
        response.headers_mut().append(
            CONTENT_ENCODING,
            http::HeaderValue::from_static("deflate,gzip"),
        );
        let decoded = decode_response(response).unwrap();
        assert_eq!(read(decoded.into_body()).await.unwrap(), data);
    }

    #[test]
    fn one_coding_over_the_limit_is_a_typed_error() {
        let six = [ContentCoding::Brotli; MAX_CONTENT_CODINGS + 1];
        let error = decode(ResponseBody::full("x"), &six).unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::TooManyContentCodings { count: 6, max: 5 }
            ),
            "{error:?}"
        );
        let header = ["gzip"; 6].join(",");
        let error = decode_response(response(&header, ResponseBody::empty())).unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::TooManyContentCodings { count: 6, max: 5 }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn sixty_thousand_codings_are_counted_not_built() {
        let header = vec!["br"; 60_000].join(",");
        let error = decode_response(response(&header, ResponseBody::full("x"))).unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::TooManyContentCodings {
                    count: 60_000,
                    max: 5
                }
            ),
            "{error:?}"
        );
    }

    #[tokio::test]
    async fn identity_is_not_counted_and_not_decoded() {
        let codings = [ContentCoding::Gzip; MAX_CONTENT_CODINGS];
        let encoded = encode_all(&codings, TEXT).await;
        let mut with_identity = vec![ContentCoding::Identity; 10];
        with_identity.extend(codings);
        with_identity.push(ContentCoding::Identity);
        let body = decode(ResponseBody::full(encoded.clone()), &with_identity).unwrap();
        assert_eq!(read(body).await.unwrap(), TEXT);
        let header = format!("identity, {}, IDENTITY", ["gzip"; 5].join(", "));
        let decoded = decode_response(response(&header, ResponseBody::full(encoded))).unwrap();
        assert_eq!(read(decoded.into_body()).await.unwrap(), TEXT);
        // Only identity: the body is left as it is.
        let body = decode(ResponseBody::full(TEXT), &[ContentCoding::Identity; 50]).unwrap();
        assert_eq!(read(body).await.unwrap(), TEXT);
    }

    #[tokio::test]
    async fn an_unknown_coding_leaves_even_a_long_list_as_sent() {
        for header in [
            format!("{},compress", vec!["br"; 3000].join(",")),
            format!("compress,{}", vec!["br"; 3000].join(",")),
        ] {
            let decoded =
                decode_response(response(&header, ResponseBody::full("as sent"))).unwrap();
            assert_eq!(read(decoded.into_body()).await.unwrap(), b"as sent");
        }
    }

    #[tokio::test]
    async fn an_empty_body_stays_empty_whatever_its_codings() {
        let codings = [
            ContentCoding::Deflate,
            ContentCoding::Gzip,
            ContentCoding::Brotli,
            ContentCoding::Zstd,
            ContentCoding::Deflate,
        ];
        for body in [ResponseBody::empty(), chunked(&[], &[0, 0])] {
            assert!(
                read(decode(body, &codings).unwrap())
                    .await
                    .unwrap()
                    .is_empty()
            );
        }
    }

    #[tokio::test]
    async fn truncated_data_is_a_decode_error_for_each_coding() {
        let data = TEXT.repeat(100);
        for coding in [
            Some(ContentCoding::Gzip),
            Some(ContentCoding::Deflate),
            None,
            Some(ContentCoding::Brotli),
            Some(ContentCoding::Zstd),
        ] {
            let encoded = encode(coding, &data).await;
            let coding = coding.unwrap_or(ContentCoding::Deflate);
            for cut in [1, encoded.len() / 2, encoded.len() - 1] {
                let body = ResponseBody::full(encoded[..cut].to_vec());
                let error = read(decode(body, &[coding]).unwrap()).await.unwrap_err();
                assert!(
                    matches!(error, NetworkError::Decode(_)),
                    "{coding:?} cut at {cut}"
                );
            }
        }
    }

    #[tokio::test]
    async fn corrupt_data_is_a_decode_error_in_any_stage() {
        let codings = [ContentCoding::Brotli, ContentCoding::Gzip];
        let inner = encode(Some(ContentCoding::Brotli), &TEXT.repeat(100)).await;
        let mut broken = inner.clone();
        for byte in broken.iter_mut().skip(3).take(20) {
            *byte ^= 0x5a;
        }
        // Corrupt in the outer coding (the first stage) and in the inner one.
        let mut outer = encode(Some(ContentCoding::Gzip), &inner).await;
        outer[12] ^= 0xff;
        let inner_broken = encode(Some(ContentCoding::Gzip), &broken).await;
        for encoded in [outer, inner_broken] {
            let error = read(decode(ResponseBody::full(encoded), &codings).unwrap())
                .await
                .unwrap_err();
            assert!(matches!(error, NetworkError::Decode(_)), "{error:?}");
        }
    }

    #[tokio::test]
    async fn an_outer_codings_check_fails_however_the_body_is_cut() {
        // `deflate` inside `gzip`, the gzip CRC broken: the deflate stream ends before
        // the gzip trailer is read, and the CRC must still be checked.
        let codings = [ContentCoding::Deflate, ContentCoding::Gzip];
        let mut encoded = encode_all(&codings, &TEXT.repeat(10)).await;
        let crc = encoded.len() - 8;
        encoded[crc] ^= 0xff;
        for size in [1, 2, 3, 7, 64, encoded.len()] {
            let body = chunked(&encoded, &[size]);
            let error = read(decode(body, &codings).unwrap()).await.unwrap_err();
            assert!(
                matches!(error, NetworkError::Decode(_)),
                "chunks of {size}: {error:?}"
            );
        }
    }

    #[tokio::test]
    async fn bytes_after_an_inner_codings_end_are_a_decode_error() {
        let codings = [ContentCoding::Deflate, ContentCoding::Gzip];
        let mut with_junk = encode(Some(ContentCoding::Deflate), TEXT).await;
        with_junk.extend_from_slice(b"junk");
        let encoded = encode(Some(ContentCoding::Gzip), &with_junk).await;
        for size in [1, 5, encoded.len()] {
            let body = decode(chunked(&encoded, &[size]), &codings).unwrap();
            let error = read(body).await.unwrap_err();
            assert!(
                crate::error::Chain(&error)
                    .to_string()
                    .contains("deflate: data follows the end of the stream"),
                "chunks of {size}: {error}"
            );
        }
    }

    #[tokio::test]
    async fn an_error_of_the_body_passes_through_stacked_stages_unchanged() {
        let codings = [ContentCoding::Zstd, ContentCoding::Gzip];
        let encoded = encode_all(&codings, &TEXT.repeat(1000)).await;
        let half = Bytes::copy_from_slice(&encoded[..encoded.len() / 2]);
        let body = ResponseBody::from_stream(futures_util::stream::iter([
            Ok(half),
            Err(NetworkError::LengthMismatch),
        ]));
        let error = read(decode(body, &codings).unwrap()).await.unwrap_err();
        assert!(matches!(error, NetworkError::LengthMismatch), "{error:?}");
    }

    #[tokio::test]
    async fn nothing_is_read_before_the_first_poll_and_chunks_stay_small() {
        let data = vec![0; 4 << 20];
        let encoded = encode(Some(ContentCoding::Gzip), &data).await;
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let source = futures_util::stream::iter(
            encoded
                .chunks(64)
                .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
                .collect::<Vec<_>>(),
        )
        .inspect(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        let mut body = decode(ResponseBody::from_stream(source), &[ContentCoding::Gzip]).unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 0);
        // The first chunk needs only the first few input chunks.
        let first = body.next().await.unwrap().unwrap();
        assert!(first.len() <= CHUNK);
        assert!(polls.load(Ordering::SeqCst) < 10, "{polls:?}");
        let mut total = first.len();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.unwrap();
            assert!(!chunk.is_empty() && chunk.len() <= CHUNK);
            total += chunk.len();
        }
        assert_eq!(total, data.len());
    }

    #[tokio::test]
    async fn every_gzip_member_and_every_zstd_frame_is_decoded() {
        for coding in [ContentCoding::Gzip, ContentCoding::Zstd] {
            let parts: [&[u8]; 4] = [b"some ", b"", b"mes", &TEXT.repeat(300)];
            let mut encoded = Vec::new();
            for part in parts {
                encoded.extend(encode(Some(coding), part).await);
            }
            let whole = parts.concat();
            for sizes in [&[][..], &[1; 200][..], &[7, 13, 1, 64][..]] {
                let body = decode(chunked(&encoded, sizes), &[coding]).unwrap();
                let decoded = read(body).await.unwrap();
                assert!(
                    decoded == whole,
                    "{coding:?} in chunks of {sizes:?}: {} bytes of {}",
                    decoded.len(),
                    whole.len()
                );
            }
        }
        // Members inside another coding, and a coding around members.
        let mut members = encode(Some(ContentCoding::Gzip), b"one, ").await;
        members.extend(encode(Some(ContentCoding::Gzip), b"two").await);
        let encoded = encode(Some(ContentCoding::Brotli), &members).await;
        let codings = [ContentCoding::Gzip, ContentCoding::Brotli];
        let body = decode(chunked(&encoded, &[3]), &codings).unwrap();
        assert_eq!(read(body).await.unwrap(), b"one, two");
    }

    #[tokio::test]
    async fn bytes_after_the_end_of_a_coding_are_a_decode_error_naming_it() {
        for (coding, raw, expected) in [
            (ContentCoding::Gzip, false, "gzip member 2: "),
            (ContentCoding::Zstd, false, "zstd frame 2: "),
            (
                ContentCoding::Deflate,
                false,
                "deflate: data follows the end of the stream",
            ),
            (
                ContentCoding::Deflate,
                true,
                "deflate: data follows the end of the stream",
            ),
            (
                ContentCoding::Brotli,
                false,
                "br: data follows the end of the stream",
            ),
        ] {
            let mut encoded = encode((!raw).then_some(coding), TEXT).await;
            encoded.extend_from_slice(b"trailing bytes");
            for sizes in [&[][..], &[1; 100][..]] {
                let body = decode(chunked(&encoded, sizes), &[coding]).unwrap();
                let error = read(body).await.unwrap_err();
                assert!(matches!(error, NetworkError::Decode(_)), "{error:?}");
                let said = crate::error::Chain(&error).to_string();
                assert!(said.contains(expected), "{coding:?}: {said}");
            }
        }
        // A second gzip member cut short is a truncated member, not the end.
        let mut encoded = encode(Some(ContentCoding::Gzip), TEXT).await;
        let second = encode(Some(ContentCoding::Gzip), TEXT).await;
        encoded.extend_from_slice(&second[..second.len() - 3]);
        let body = decode(ResponseBody::full(encoded), &[ContentCoding::Gzip]).unwrap();
        let error = read(body).await.unwrap_err();
        let said = crate::error::Chain(&error).to_string();
        assert!(said.contains("gzip member 2"), "{said}");
    }

    /// A body of `chunks`, then the end, recording whether it was polled to its end.
    fn watched(chunks: Vec<Result<Bytes, NetworkError>>) -> (ResponseBody, Arc<AtomicUsize>) {
        let ended = Arc::new(AtomicUsize::new(0));
        let seen = ended.clone();
        let stream =
            futures_util::stream::iter(chunks).chain(futures_util::stream::poll_fn(move |_| {
                seen.fetch_add(1, Ordering::SeqCst);
                std::task::Poll::Ready(None)
            }));
        (ResponseBody::from_stream(stream), ended)
    }

    #[tokio::test]
    async fn the_body_is_read_to_its_end_after_the_last_stream_ends() {
        for coding in [
            ContentCoding::Gzip,
            ContentCoding::Deflate,
            ContentCoding::Brotli,
            ContentCoding::Zstd,
        ] {
            let encoded = encode(Some(coding), TEXT).await;
            let (body, ended) = watched(vec![
                Ok(Bytes::from(encoded)),
                Ok(Bytes::new()),
                Ok(Bytes::new()),
            ]);
            let mut body = decode(body, &[coding]).unwrap();
            assert_eq!(body.next().await.unwrap().unwrap(), TEXT, "{coding:?}");
            assert!(body.next().await.is_none(), "{coding:?}");
            assert_eq!(ended.load(Ordering::SeqCst), 1, "{coding:?}");
        }
        // An error of the body after the coding's data has ended is not swallowed: the
        // message did not arrive whole.
        let encoded = encode(Some(ContentCoding::Gzip), TEXT).await;
        let (body, _) = watched(vec![
            Ok(Bytes::from(encoded)),
            Err(NetworkError::LengthMismatch),
        ]);
        let error = read(decode(body, &[ContentCoding::Gzip]).unwrap())
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::LengthMismatch), "{error:?}");
    }

    /// The data and its encoding by a stack of every coding, made once.
    fn stacked() -> &'static (Vec<u8>, Vec<u8>) {
        static STACKED: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
        STACKED.get_or_init(|| {
            let data: Vec<u8> = (0..60_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 & 0x1f)
                .collect();
            let encoded = tokio_test::block_on(encode_all(&STACK, &data));
            (data, encoded)
        })
    }

    const STACK: [ContentCoding; 4] = [
        ContentCoding::Deflate,
        ContentCoding::Zstd,
        ContentCoding::Brotli,
        ContentCoding::Gzip,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_split_of_a_stacked_body_decodes_to_the_original(
            sizes in proptest::collection::vec(0usize..300, 0..40)
        ) {
            let (data, encoded) = stacked();
            let body = decode(chunked(encoded, &sizes), &STACK).unwrap();
            let decoded = tokio_test::block_on(read(body)).unwrap();
            prop_assert_eq!(&decoded, data);
        }
    }

    #[test]
    fn zlib_header_is_recognised() {
        assert!(is_zlib(&[0x78, 0x9c]));
        assert!(is_zlib(&[0x78, 0x01]));
        assert!(is_zlib(&[0x78, 0xda]));
        // Raw deflate of "hi".
        assert!(!is_zlib(&[0xcb, 0xc8]));
        assert!(!is_zlib(&[0x78]));
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

//! `content_decode`: the content decoders alone, without a connection, many times faster
//! than `http1_response` for the bytes inside a coding.
//!
//! The first byte names up to three codings, two bits each after a count (see
//! [`codings`]); the rest is the body, cut into chunks at the positions the second byte
//! gives, so that decoders see their input split in odd places.

use bytes::Bytes;
use futures_util::StreamExt;
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{ContentCoding, ResponseBody, decode};

use crate::http1::MAX_DECODED;
use crate::{MAX_INPUT, Reader, block_on};

const CODINGS: [ContentCoding; 5] = [
    ContentCoding::Gzip,
    ContentCoding::Deflate,
    ContentCoding::Brotli,
    ContentCoding::Zstd,
    ContentCoding::Identity,
];

/// Bits 0–1: how many codings (0 to 3); then three base-5 digits of the rest, one per
/// coding, indexing [`CODINGS`].
fn codings(selector: u8) -> Vec<ContentCoding> {
    let count = usize::from(selector & 3);
    let mut digits = selector >> 2;
    let mut codings = Vec::with_capacity(count);
    for _ in 0..count {
        codings.extend(CODINGS.get(usize::from(digits % 5)).copied());
        digits /= 5;
    }
    codings
}

/// The `content_decode` target.
pub fn content_decode(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut reader = Reader::new(data);
    let codings = codings(reader.byte());
    let chunk = usize::from(reader.byte()).max(1);
    let body = reader.rest();
    let chunks: Vec<Result<Bytes, NetworkError>> = body
        .chunks(chunk)
        .map(|piece| Ok(Bytes::copy_from_slice(piece)))
        .collect();
    let whole = ResponseBody::full(Bytes::copy_from_slice(body));
    let split = ResponseBody::from_stream(futures_util::stream::iter(chunks));
    block_on(async {
        // At most three codings: never more than the decoder allows.
        let (whole, whole_failed) =
            drain(decode(whole, &codings).expect("three codings at most")).await;
        let (split, split_failed) =
            drain(decode(split, &codings).expect("three codings at most")).await;
        // Where the body is cut cannot change what it decodes to, nor whether it decodes
        // (what comes out before an error may differ with the decoders' buffering).
        assert_eq!(
            whole_failed, split_failed,
            "decoding fails depending on how the body is cut"
        );
        if !whole_failed && !split_failed {
            assert!(whole == split, "decoding depends on how the body is cut");
        }
    });
}

/// The decoded bytes (up to [`MAX_DECODED`]) and whether decoding ended in an error.
async fn drain(mut body: ResponseBody) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(chunk) => {
                out.extend_from_slice(&chunk);
                if out.len() > MAX_DECODED {
                    out.truncate(MAX_DECODED);
                    return (out, false);
                }
            }
            Err(_) => return (out, true),
        }
    }
    (out, false)
}

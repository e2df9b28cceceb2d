//! The `permessage-deflate` extension
//! ([RFC 7692](https://www.rfc-editor.org/rfc/rfc7692)): its offer, the server's
//! response checked against it, and each message's compression (DEFLATE, raw, on
//! flate2 with the zlib-rs backend, which honours a window size as zlib does).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use super::WebSocketError;

/// The `Sec-WebSocket-Extensions` offer: `permessage-deflate` with the client's window
/// size left to the server (§7.1.2.2), as Chrome and Firefox offer it.
pub(crate) const OFFER: &str = "permessage-deflate; client_max_window_bits";

/// The four bytes an empty stored block with `BFINAL` 0 ends in, which a sender removes
/// from each compressed message and a receiver appends (§7.2.1, §7.2.2).
const TAIL: [u8; 4] = [0x00, 0x00, 0xff, 0xff];

/// The parameters of an accepted `permessage-deflate` (§7.1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Params {
    /// `server_no_context_takeover`: the server resets its compressor after each message.
    pub(crate) server_no_context_takeover: bool,
    /// `client_no_context_takeover`: we reset ours after each message.
    pub(crate) client_no_context_takeover: bool,
    /// `server_max_window_bits`, when the server named one (8–15).
    pub(crate) server_max_window_bits: Option<u8>,
    /// `client_max_window_bits`, when the server named one (8–15): our window.
    pub(crate) client_max_window_bits: Option<u8>,
}

/// The extensions the server's `Sec-WebSocket-Extensions` selected, checked against our
/// offer: `None` for none, the `permessage-deflate` parameters when it accepted it. A
/// response that names an extension we did not offer (RFC 6455 §4.1, the last set's step
/// 5), or a `permessage-deflate` whose parameters break RFC 7692 §7.1, fails the
/// connection.
pub(crate) fn negotiate(value: &str, offered: bool) -> Result<Option<Params>, WebSocketError> {
    let mut accepted = None;
    for element in split_outside_quotes(value, ',') {
        let element = element.trim_matches([' ', '\t']);
        if element.is_empty() {
            continue;
        }
        let mut parts = split_outside_quotes(element, ';');
        let name = parts.next().unwrap_or_default().trim_matches([' ', '\t']);
        if !name.eq_ignore_ascii_case("permessage-deflate") || !offered {
            return Err(WebSocketError::ExtensionNotOffered(name.to_owned()));
        }
        // §7: "A client MUST _Fail the WebSocket Connection_ if [the response] has
        // multiple extension negotiation responses" for one offer.
        if accepted.is_some() {
            return Err(bad("permessage-deflate is accepted twice"));
        }
        let mut params = Params::default();
        let mut seen = Vec::new();
        for param in parts {
            let (key, value) = match param.split_once('=') {
                Some((key, value)) => (key.trim_matches([' ', '\t']), Some(unquote(value))),
                None => (param.trim_matches([' ', '\t']), None),
            };
            let key = key.to_ascii_lowercase();
            if seen.contains(&key) {
                return Err(bad(format!("parameter {key} appears twice")));
            }
            match (key.as_str(), value) {
                ("server_no_context_takeover", None) => params.server_no_context_takeover = true,
                ("client_no_context_takeover", None) => params.client_no_context_takeover = true,
                ("server_max_window_bits", Some(bits)) => {
                    params.server_max_window_bits = Some(window_bits(&key, bits)?);
                }
                // We offered `client_max_window_bits`, so the server may name our window
                // (§7.1.2.2), always with a value in a response.
                ("client_max_window_bits", Some(bits)) => {
                    params.client_max_window_bits = Some(window_bits(&key, bits)?);
                }
                (
                    "server_no_context_takeover"
                    | "client_no_context_takeover"
                    | "server_max_window_bits"
                    | "client_max_window_bits",
                    _,
                ) => return Err(bad(format!("parameter {key} has an invalid value"))),
                _ => return Err(bad(format!("unknown parameter {key}"))),
            }
            seen.push(key);
        }
        accepted = Some(params);
    }
    Ok(accepted)
}

/// A window size parameter's value: 8 to 15, decimal digits only (§7.1.2).
fn window_bits(key: &str, value: &str) -> Result<u8, WebSocketError> {
    match value {
        "8" | "9" | "10" | "11" | "12" | "13" | "14" | "15" => {
            value.parse().map_err(|_| bad(format!("{key}={value}")))
        }
        _ => Err(bad(format!("{key}={value:?} is not 8 to 15"))),
    }
}

fn bad(why: impl Into<String>) -> WebSocketError {
    WebSocketError::BadExtension(why.into())
}

/// A parameter value with its quotes removed (a quoted-string is allowed, §7.1).
fn unquote(value: &str) -> &str {
    let value = value.trim_matches([' ', '\t']);
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
}

/// `value` split at each `separator` that is not inside a quoted string.
fn split_outside_quotes(value: &str, separator: char) -> impl Iterator<Item = &str> {
    let mut rest = Some(value);
    std::iter::from_fn(move || {
        let current = rest?;
        let mut quoted = false;
        for (at, c) in current.char_indices() {
            match c {
                '"' => quoted = !quoted,
                c if c == separator && !quoted => {
                    rest = Some(&current[at + c.len_utf8()..]);
                    return Some(&current[..at]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(current)
    })
}

/// A connection's compressor and decompressor under the negotiated parameters.
pub(crate) struct Deflate {
    params: Params,
    /// `None` when our window must be 8 bits, which zlib cannot compress with for raw
    /// DEFLATE: messages then go out uncompressed, which §6 allows ("an endpoint MAY
    /// send messages uncompressed").
    compress: Option<Compress>,
    decompress: Decompress,
}

impl Deflate {
    pub(crate) fn new(params: Params) -> Deflate {
        let compress = match params.client_max_window_bits {
            Some(8) => None,
            Some(bits) => Some(Compress::new_with_window_bits(
                Compression::fast(),
                false,
                bits,
            )),
            None => Some(Compress::new(Compression::fast(), false)),
        };
        Deflate {
            params,
            compress,
            // A 32 KiB window inflates whatever window the server used (up to 15 bits).
            decompress: Decompress::new(false),
        }
    }

    /// The parameters it runs under.
    #[cfg(test)]
    pub(crate) fn params(&self) -> &Params {
        &self.params
    }

    /// `data` compressed as one message's payload (§7.2.1), or `None` to send it
    /// uncompressed (RSV1 clear).
    pub(crate) fn compress(&mut self, data: &[u8]) -> Result<Option<Vec<u8>>, WebSocketError> {
        let Some(compress) = self.compress.as_mut() else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(data.len() / 2 + 64);
        let start_in = compress.total_in();
        loop {
            let consumed = usize::try_from(compress.total_in() - start_in).unwrap_or(usize::MAX);
            let input = data.get(consumed..).unwrap_or_default();
            if out.capacity() - out.len() < 64 {
                out.reserve(out.len().max(1024));
            }
            compress
                .compress_vec(input, &mut out, FlushCompress::Sync)
                .map_err(|e| WebSocketError::Compression(e.to_string()))?;
            let consumed = usize::try_from(compress.total_in() - start_in).unwrap_or(usize::MAX);
            // Done when all input is in and the flush left room to spare (it had all
            // the output space it needed).
            if consumed >= data.len() && out.capacity() > out.len() {
                break;
            }
        }
        // Step 2 of §7.2.1: remove the tail the sync flush ends in. A flush with nothing
        // to flush (an empty message after another) emits nothing: step 1's empty stored
        // block appended then leaves the one byte 0x00 (§7.2.3.6's empty message).
        if out.ends_with(&TAIL) {
            out.truncate(out.len() - TAIL.len());
        } else if out.is_empty() {
            out.push(0x00);
        }
        if self.params.client_no_context_takeover {
            compress.reset();
        }
        Ok(Some(out))
    }

    /// A compressed message's payload inflated (§7.2.2), at most `limit` bytes of it: a
    /// message that inflates to more fails with [`WebSocketError::MessageTooLarge`]
    /// before more than `limit` bytes (and one chunk) are held, whatever its ratio.
    pub(crate) fn decompress(
        &mut self,
        payload: &[u8],
        limit: usize,
    ) -> Result<Vec<u8>, WebSocketError> {
        let mut out = Vec::with_capacity(payload.len().saturating_mul(2).min(limit) + 64);
        // Not a DEFLATE stream, but what some servers send for an empty message.
        if payload.is_empty() {
            return Ok(out);
        }
        // A final block (BFINAL 1, which §7.2.3.3 allows) ends the DEFLATE stream: the
        // next message starts a new one.
        let mut ended = false;
        for input in [payload, &TAIL[..]] {
            let mut at = 0;
            while !ended {
                if out.len() > limit {
                    return Err(WebSocketError::MessageTooLarge { limit });
                }
                // Room for the next chunk, never more than one past the limit.
                let room = limit
                    .saturating_add(1)
                    .saturating_sub(out.len())
                    .min(out.len().max(16 * 1024));
                out.reserve(room);
                let (in_before, out_before) = (self.decompress.total_in(), out.len());
                let status = self
                    .decompress
                    .decompress_vec(&input[at..], &mut out, FlushDecompress::Sync)
                    .map_err(|e| {
                        WebSocketError::Protocol(format!("a compressed message is corrupt: {e}"))
                    })?;
                let consumed =
                    usize::try_from(self.decompress.total_in() - in_before).unwrap_or(usize::MAX);
                at = at.saturating_add(consumed).min(input.len());
                ended = matches!(status, Status::StreamEnd);
                // Done with this input when it is all in and the output had room left
                // (the inflater stopped for want of input, not of space); stuck when a
                // call moved nothing.
                let stuck = consumed == 0 && out.len() == out_before;
                if (at == input.len() && out.len() < out.capacity()) || stuck {
                    break;
                }
            }
        }
        if out.len() > limit {
            return Err(WebSocketError::MessageTooLarge { limit });
        }
        if ended {
            self.decompress.reset(false);
        }
        if self.params.server_no_context_takeover {
            self.decompress.reset(false);
        }
        Ok(out)
    }
}

/// The `extensions` attribute's value for `params`: the extension as the server
/// accepted it.
pub(crate) fn describe(params: &Params) -> String {
    let mut value = String::from("permessage-deflate");
    if params.server_no_context_takeover {
        value.push_str("; server_no_context_takeover");
    }
    if params.client_no_context_takeover {
        value.push_str("; client_no_context_takeover");
    }
    if let Some(bits) = params.server_max_window_bits {
        value.push_str(&format!("; server_max_window_bits={bits}"));
    }
    if let Some(bits) = params.client_max_window_bits {
        value.push_str(&format!("; client_max_window_bits={bits}"));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_response_is_checked_against_the_offer() {
        assert_eq!(negotiate("", true).unwrap(), None);
        assert_eq!(
            negotiate("permessage-deflate", true).unwrap(),
            Some(Params::default())
        );
        let params = negotiate(
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=\"10\"",
            true,
        )
        .unwrap()
        .unwrap();
        assert!(params.server_no_context_takeover);
        assert_eq!(params.client_max_window_bits, Some(10));
        for bad in [
            "x-webkit-deflate-frame",
            "permessage-deflate, permessage-deflate",
            "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; server_max_window_bits=08",
            "permessage-deflate; server_max_window_bits",
            "permessage-deflate; client_max_window_bits",
            "permessage-deflate; server_no_context_takeover=1",
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; unknown",
        ] {
            assert!(negotiate(bad, true).is_err(), "{bad}");
        }
        assert!(
            negotiate("permessage-deflate", false).is_err(),
            "not offered"
        );
    }

    #[test]
    fn messages_round_trip_with_and_without_context_takeover() {
        for no_takeover in [false, true] {
            let params = Params {
                server_no_context_takeover: no_takeover,
                client_no_context_takeover: no_takeover,
                ..Params::default()
            };
            let mut ours = Deflate::new(params.clone());
            // The server's side: the same codec, reading what ours writes.
            let mut theirs = Deflate::new(params);
            for message in [&b"hello hello hello"[..], b"", b"", &[7u8; 100_000][..]] {
                let compressed = ours.compress(message).unwrap().unwrap();
                assert!(!compressed.ends_with(&TAIL));
                let inflated = theirs.decompress(&compressed, 1 << 20).unwrap();
                assert_eq!(inflated, message);
            }
        }
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        // 10 MiB of zeros at the best level: about 10 KiB.
        let mut best = Compress::new(Compression::best(), false);
        let mut compressed = Vec::with_capacity(1 << 20);
        best.compress_vec(&vec![0u8; 10 << 20], &mut compressed, FlushCompress::Sync)
            .unwrap();
        assert!(best.total_in() == 10 << 20 && compressed.ends_with(&TAIL));
        compressed.truncate(compressed.len() - TAIL.len());
        assert!(compressed.len() < 20_000, "{}", compressed.len());
        let mut theirs = Deflate::new(Params::default());
        let error = theirs.decompress(&compressed, 1 << 20).unwrap_err();
        assert!(matches!(error, WebSocketError::MessageTooLarge { limit } if limit == 1 << 20));
    }

    #[test]
    fn an_eight_bit_window_sends_uncompressed() {
        let mut ours = Deflate::new(Params {
            client_max_window_bits: Some(8),
            ..Params::default()
        });
        assert_eq!(ours.compress(b"abc").unwrap(), None);
        assert_eq!(
            describe(ours.params()),
            "permessage-deflate; client_max_window_bits=8"
        );
    }
}

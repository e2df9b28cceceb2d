//! Native operations behind `js/encoding.js`: UTF-8 encode and decode
//! (<https://encoding.spec.whatwg.org/#utf-8>).

use rquickjs::{Ctx, Function, IntoJs, Object, TypedArray};

/// <https://encoding.spec.whatwg.org/#utf-8-decoder> over `bytes`: returns the decoded text,
/// how many bytes were consumed (fewer than all only when `stream` leaves an incomplete
/// sequence at the end) and whether a `fatal` decoder hit an error.
pub fn utf8_decode(bytes: &[u8], fatal: bool, stream: bool) -> (String, usize, bool) {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return (out, bytes.len(), false);
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    None if stream => return (out, bytes.len() - after.len(), false),
                    None => {
                        if fatal {
                            return (String::new(), 0, true);
                        }
                        out.push('\u{FFFD}');
                        return (out, bytes.len(), false);
                    }
                    Some(n) => {
                        if fatal {
                            return (String::new(), 0, true);
                        }
                        out.push('\u{FFFD}');
                        rest = after.get(n..).unwrap_or_default();
                    }
                }
            }
        }
    }
}

/// <https://encoding.spec.whatwg.org/#dom-textencoder-encodeinto>: encodes whole scalar
/// values of `source` while they fit in `capacity` bytes; returns (UTF-16 code units read,
/// bytes written, the bytes).
pub fn utf8_encode_into(source: &str, capacity: usize) -> (usize, usize, Vec<u8>) {
    let mut bytes = Vec::with_capacity(capacity.min(source.len()));
    let mut read = 0;
    for c in source.chars() {
        if bytes.len() + c.len_utf8() > capacity {
            break;
        }
        let mut buf = [0u8; 4];
        bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        read += c.len_utf16();
    }
    let written = bytes.len();
    (read, written, bytes)
}

/// A copy of a `Uint8Array`'s bytes (empty if its buffer is detached).
pub(crate) fn copy_bytes(array: &TypedArray<'_, u8>) -> Vec<u8> {
    // SAFETY: the slice is copied at once; no JavaScript runs while it is borrowed.
    unsafe { array.as_bytes() }
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// Registers `utf8_encode`, `utf8_encode_into` and `utf8_decode`.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "utf8_encode",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, s: String| {
            TypedArray::<u8>::new(ctx, s.into_bytes())
        })?,
    )?;
    native.set(
        "utf8_encode_into",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, s: String, capacity: f64| {
            let capacity = if capacity.is_finite() && capacity > 0.0 {
                capacity as usize
            } else {
                0
            };
            let (read, written, bytes) = utf8_encode_into(&s, capacity);
            Ok::<_, rquickjs::Error>(vec![
                read.into_js(&ctx)?,
                written.into_js(&ctx)?,
                TypedArray::<u8>::new(ctx.clone(), bytes)?.into_value(),
            ])
        })?,
    )?;
    native.set(
        "utf8_decode",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, bytes: TypedArray<'js, u8>, fatal: bool, stream: bool| {
                let (text, consumed, error) = utf8_decode(&copy_bytes(&bytes), fatal, stream);
                Ok::<_, rquickjs::Error>(vec![
                    text.into_js(&ctx)?,
                    consumed.into_js(&ctx)?,
                    error.into_js(&ctx)?,
                ])
            },
        )?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_replaces_and_streams() {
        assert_eq!(
            utf8_decode(b"a\xffb", false, false),
            ("a\u{FFFD}b".to_owned(), 3, false)
        );
        assert!(utf8_decode(b"a\xffb", true, false).2);
        // An incomplete sequence at the end waits for more bytes when streaming.
        assert_eq!(
            utf8_decode(b"a\xe2\x82", false, true),
            ("a".to_owned(), 1, false)
        );
        assert_eq!(
            utf8_decode(b"a\xe2\x82", false, false),
            ("a\u{FFFD}".to_owned(), 3, false)
        );
    }

    #[test]
    fn encode_into_stops_at_whole_scalars() {
        assert_eq!(utf8_encode_into("a\u{20AC}", 3), (1, 1, b"a".to_vec()));
        assert_eq!(
            utf8_encode_into("\u{1F600}", 4),
            (2, 4, "\u{1F600}".as_bytes().to_vec())
        );
    }
}

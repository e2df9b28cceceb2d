//! Primitives of the [Infra Standard](https://infra.spec.whatwg.org/) that both layers use:
//! [forgiving-base64](https://infra.spec.whatwg.org/#forgiving-base64) encode and decode
//! (the spec layer for `data:` URLs and integrity metadata, the network layer for
//! `Proxy-Authorization`). They are public as [`crate::data_url`]'s.

/// [Forgiving-base64 decode](https://infra.spec.whatwg.org/#forgiving-base64-decode) `data`,
/// or `None` for the spec's failure.
///
/// Unlike strict RFC 4648 decoding, ASCII whitespace anywhere is ignored, padding is
/// optional, and the unused bits of the last code point need not be zero.
///
/// ```
/// use whatwg_fetch::data_url::forgiving_base64_decode;
///
/// assert_eq!(forgiving_base64_decode(" aGk= "), Some(b"hi".to_vec()));
/// assert_eq!(forgiving_base64_decode("aGk"), Some(b"hi".to_vec()));
/// assert_eq!(forgiving_base64_decode("YQ"), forgiving_base64_decode("YR"));
/// assert_eq!(forgiving_base64_decode("a"), None);
/// ```
pub fn forgiving_base64_decode(data: &str) -> Option<Vec<u8>> {
    // Step 1. Remove all ASCII whitespace from data.
    let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut data: &str = &data;

    // Step 2. If data's code point length divides by 4 leaving no remainder, then:
    if data.chars().count() % 4 == 0 {
        // Step 2.1. If data ends with one or two U+003D (=) code points, then remove them
        // from data.
        data = data
            .strip_suffix("==")
            .or_else(|| data.strip_suffix('='))
            .unwrap_or(data);
    }

    // Step 3. If data's code point length divides by 4 leaving a remainder of 1, then return
    // failure.
    if data.chars().count() % 4 == 1 {
        return None;
    }

    // Step 4. If data contains a code point that is not one of U+002B (+), U+002F (/), or an
    // ASCII alphanumeric, then return failure.
    // (So from here on data is ASCII and each byte is one code point.)
    if !data
        .chars()
        .all(|c| c == '+' || c == '/' || c.is_ascii_alphanumeric())
    {
        return None;
    }

    // Step 5. Let output be an empty byte sequence.
    let mut output = Vec::with_capacity(data.len() / 4 * 3 + 2);

    // Step 6. Let buffer be an empty buffer that can have bits appended to it.
    let mut buffer: u32 = 0;
    let mut buffer_bits: u32 = 0;

    // Step 7. Let position be a position variable for data, initially pointing at the start
    // of data.
    // Step 8. While position does not point past the end of data:
    for code_point in data.bytes() {
        // Step 8.1. Find the code point pointed to by position in the second column of Table
        // 1: The Base 64 Alphabet of RFC 4648. Let n be the number given in the first cell of
        // the same row.
        let n = base64_value(code_point)?;

        // Step 8.2. Append the six bits corresponding to n, most significant bit first, to
        // buffer.
        buffer = (buffer << 6) | u32::from(n);
        buffer_bits += 6;

        // Step 8.3. If buffer has accumulated 24 bits, interpret them as three 8-bit
        // big-endian numbers. Append three bytes with values equal to those numbers to
        // output, in the same order, and then empty buffer.
        if buffer_bits == 24 {
            let [_, first, second, third] = buffer.to_be_bytes();
            output.extend_from_slice(&[first, second, third]);
            buffer = 0;
            buffer_bits = 0;
        }

        // Step 8.4. Advance position by 1.
    }

    // Step 9. If buffer is not empty, it contains either 12 or 18 bits. If it contains 12
    // bits, then discard the last four and interpret the remaining eight as an 8-bit
    // big-endian number. If it contains 18 bits, then discard the last two and interpret the
    // remaining 16 as two 8-bit big-endian numbers. Append the one or two bytes with values
    // equal to those one or two numbers to output, in the same order.
    match buffer_bits {
        12 => {
            let [_, _, _, first] = (buffer >> 4).to_be_bytes();
            output.push(first);
        }
        18 => {
            let [_, _, first, second] = (buffer >> 2).to_be_bytes();
            output.extend_from_slice(&[first, second]);
        }
        _ => debug_assert_eq!(buffer_bits, 0),
    }

    Some(output)
}

/// [Forgiving-base64 encode](https://infra.spec.whatwg.org/#forgiving-base64-encode) `data`:
/// the base64 of RFC 4648 section 4, with `=` padding.
///
/// ```
/// use whatwg_fetch::data_url::{forgiving_base64_decode, forgiving_base64_encode};
///
/// assert_eq!(forgiving_base64_encode(b"hi"), "aGk=");
/// assert_eq!(forgiving_base64_decode(&forgiving_base64_encode(b"\xff\x00")).unwrap(), b"\xff\x00");
/// ```
pub fn forgiving_base64_encode(data: &[u8]) -> String {
    // Apply the base64 algorithm defined in section 4 of RFC 4648 to data and return the
    // result.
    let mut output = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let [first, second, third] = match *chunk {
            [a, b, c] => [a, b, c],
            [a, b] => [a, b, 0],
            [a] => [a, 0, 0],
            _ => continue,
        };
        let group = u32::from_be_bytes([0, first, second, third]);
        let sextets = [group >> 18, group >> 12, group >> 6, group];
        // A chunk of n bytes gives n + 1 alphabet code points, then padding up to 4.
        for (index, sextet) in sextets.into_iter().enumerate() {
            if index <= chunk.len() {
                output.push(char::from(BASE64_ALPHABET[(sextet & 0x3f) as usize]));
            } else {
                output.push('=');
            }
        }
    }
    output
}

/// Table 1: The Base 64 Alphabet of RFC 4648, indexed by value.
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The value of `code_point` in Table 1: The Base 64 Alphabet of RFC 4648.
fn base64_value(code_point: u8) -> Option<u8> {
    match code_point {
        b'A'..=b'Z' => Some(code_point - b'A'),
        b'a'..=b'z' => Some(code_point - b'a' + 26),
        b'0'..=b'9' => Some(code_point - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_matches_rfc_4648_test_vectors() {
        // RFC 4648 section 10.
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, output) in vectors {
            assert_eq!(forgiving_base64_encode(input.as_bytes()), output);
            assert_eq!(
                forgiving_base64_decode(output),
                Some(input.as_bytes().to_vec())
            );
        }
    }

    #[test]
    fn alphabet_and_values_agree() {
        for (value, &code_point) in BASE64_ALPHABET.iter().enumerate() {
            assert_eq!(base64_value(code_point), u8::try_from(value).ok());
        }
    }
}

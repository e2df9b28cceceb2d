//! Header fields whose values `http::HeaderValue` cannot hold.
//!
//! A [header value](https://fetch.spec.whatwg.org/#header-value) may hold any byte but NUL,
//! CR and LF, and browsers send and receive such values as they are. The `http` crate's
//! `HeaderValue` refuses the other control bytes, 0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F and 0x7F,
//! and every request and response crosses the [`Transport`](super::Transport) boundary as an
//! `http::Request` or `http::Response`. A field with such a value therefore travels beside
//! the header map, as [`RawFields`] in the message's extensions: the fetch layer puts the
//! request's there, the HTTP/1.1 connection writes them after the map's and reads a
//! response's into them.

use bytes::Bytes;
use http::HeaderName;

/// Header fields whose values hold bytes a Fetch [header
/// value](https://fetch.spec.whatwg.org/#header-value) may hold and an [`http::HeaderValue`]
/// may not (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F, 0x7F), carried in the extensions of an
/// `http::Request` or `http::Response` beside its header map.
///
/// Every value of a name one of whose values needs it is here, in order, and none of that
/// name is in the map, so that the fields of a name keep their order. The transport sends
/// a request holding them over HTTP/1.1, which writes them as they are, whatever ALPN,
/// prior knowledge or `Alt-Svc` would pick: the `h2` and `h3` crates take only
/// `HeaderValue`s. An HTTP/1.1 response's fields with such values come back here; over
/// HTTP/2 and HTTP/3 such a value is a malformed response, as the RFCs allow.
///
/// A value never holds NUL, CR or LF: [`push`](RawFields::push) refuses them, so no field
/// here can end the line it is written on.
///
/// ```
/// use whatwg_fetch::net::RawFields;
///
/// let mut fields = RawFields::new();
/// fields.push(http::HeaderName::from_static("x-id"), "a\u{1}b".into()).unwrap();
/// assert!(fields.push(http::HeaderName::from_static("x-id"), "a\r\nb".into()).is_err());
/// let mut request = http::Request::new(());
/// request.extensions_mut().insert(fields);
/// let fields = request.extensions().get::<RawFields>().unwrap();
/// assert_eq!(fields.iter().next().unwrap().1.as_ref(), b"a\x01b");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawFields {
    fields: Vec<(HeaderName, Bytes)>,
}

/// A value [`RawFields::push`] refused: it holds NUL, CR or LF, which no header value may.
///
/// ```
/// use whatwg_fetch::net::RawFields;
///
/// let error = RawFields::new()
///     .push(http::HeaderName::from_static("x-a"), "a\0b".into())
///     .unwrap_err();
/// assert_eq!(error.to_string(), "the value of header x-a holds NUL, CR or LF");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidRawField {
    name: HeaderName,
}

impl std::fmt::Display for InvalidRawField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the value of header {} holds NUL, CR or LF", self.name)
    }
}

impl std::error::Error for InvalidRawField {}

impl RawFields {
    /// No fields.
    ///
    /// ```
    /// assert!(whatwg_fetch::net::RawFields::new().is_empty());
    /// ```
    pub fn new() -> RawFields {
        RawFields::default()
    }

    /// Adds a field after the others.
    ///
    /// # Errors
    ///
    /// [`InvalidRawField`] when `value` holds NUL, CR or LF.
    ///
    /// ```
    /// use whatwg_fetch::net::RawFields;
    ///
    /// let mut fields = RawFields::new();
    /// fields.push(http::HeaderName::from_static("x-a"), "\u{7f}".into()).unwrap();
    /// assert_eq!(fields.len(), 1);
    /// ```
    pub fn push(&mut self, name: HeaderName, value: Bytes) -> Result<(), InvalidRawField> {
        if value
            .iter()
            .any(|&byte| matches!(byte, b'\0' | b'\r' | b'\n'))
        {
            return Err(InvalidRawField { name });
        }
        self.fields.push((name, value));
        Ok(())
    }

    /// The fields, in order.
    ///
    /// ```
    /// use whatwg_fetch::net::RawFields;
    ///
    /// let mut fields = RawFields::new();
    /// fields.push(http::HeaderName::from_static("x-a"), "1\u{1}".into()).unwrap();
    /// fields.push(http::HeaderName::from_static("x-a"), "2\u{1}".into()).unwrap();
    /// let values: Vec<&[u8]> = fields.iter().map(|(_, value)| value.as_ref()).collect();
    /// assert_eq!(values, [b"1\x01", b"2\x01"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&HeaderName, &Bytes)> {
        self.fields.iter().map(|(name, value)| (name, value))
    }

    /// Whether a field is named `name`.
    ///
    /// ```
    /// use whatwg_fetch::net::RawFields;
    ///
    /// let mut fields = RawFields::new();
    /// fields.push(http::HeaderName::from_static("x-a"), "\u{1}".into()).unwrap();
    /// assert!(fields.contains(&http::HeaderName::from_static("x-a")));
    /// assert!(!fields.contains(&http::header::HOST));
    /// ```
    pub fn contains(&self, name: &HeaderName) -> bool {
        self.fields.iter().any(|(own, _)| own == name)
    }

    /// How many fields there are.
    ///
    /// ```
    /// assert_eq!(whatwg_fetch::net::RawFields::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether there are none.
    ///
    /// ```
    /// assert!(whatwg_fetch::net::RawFields::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// Whether `byte` may be in a Fetch header value but not in an `http::HeaderValue`.
pub(crate) fn is_raw_only(byte: u8) -> bool {
    matches!(byte, 0x01..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F)
}

/// The error for `request`'s raw fields, if it has any, where `protocol` is to carry it:
/// the transport sends such a request over HTTP/1.1 (see `check_raw_fields`), so this
/// only keeps a request that reaches HTTP/2 or HTTP/3 anyway from going without them.
#[cfg(any(feature = "http2", feature = "http3"))]
pub(crate) fn refused_over<B>(
    request: &http::Request<B>,
    protocol: &str,
) -> Option<crate::error::NetworkError> {
    let fields = request.extensions().get::<RawFields>()?;
    let (name, _) = fields.iter().next()?;
    Some(crate::error::NetworkError::InvalidRequest(
        format!(
            "the value of header {name} holds a control byte, which {protocol} cannot carry \
             here: the request goes over HTTP/1.1 only"
        )
        .into(),
    ))
}

/// The names whose fields the connection frames the message by, or keeps it open by,
/// which a request may not carry as raw fields: the transport reads them from the header
/// map alone.
pub(crate) fn frames_the_message(name: &HeaderName) -> bool {
    use http::header::{CONNECTION, CONTENT_LENGTH, HOST, TE, TRANSFER_ENCODING, UPGRADE};
    [
        CONTENT_LENGTH,
        TRANSFER_ENCODING,
        HOST,
        CONNECTION,
        UPGRADE,
        TE,
    ]
    .contains(name)
        || name.as_str() == "keep-alive"
        || name.as_str() == "proxy-connection"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_only_bytes_are_those_fetch_allows_and_http_refuses() {
        for byte in 0..=u8::MAX {
            let by_fetch = !matches!(byte, b'\0' | b'\r' | b'\n');
            let by_http = http::HeaderValue::from_bytes(&[b'a', byte, b'b']).is_ok();
            assert_eq!(is_raw_only(byte), by_fetch && !by_http, "byte {byte:#04x}");
        }
    }

    #[test]
    fn a_value_with_nul_cr_or_lf_is_refused_and_names_its_header() {
        let mut fields = RawFields::new();
        for value in ["a\0", "\r", "a\nb"] {
            let error = fields
                .push(HeaderName::from_static("x-b"), Bytes::from(value))
                .unwrap_err();
            assert_eq!(
                error.to_string(),
                "the value of header x-b holds NUL, CR or LF"
            );
        }
        assert!(fields.is_empty());
    }
}

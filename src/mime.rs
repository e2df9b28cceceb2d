//! MIME types, as the [MIME Sniffing Standard](https://mimesniff.spec.whatwg.org/#understanding-mime-types)
//! defines them: the [`MimeType`] record, [parsing](MimeType::parse) and
//! [serializing](MimeType::serialize) it.
//!
//! The HTTP byte classes that MIME types, header names and header values share
//! ([HTTP whitespace](https://fetch.spec.whatwg.org/#http-whitespace-byte),
//! [HTTP token code points](https://mimesniff.spec.whatwg.org/#http-token-code-point),
//! [`is_token`]) are re-exported here from the crate's one copy of the Infra and HTTP lexical
//! primitives.
//!
//! Positions into a string are byte offsets that always sit on a `char` boundary; every
//! delimiter the parser advances past by 1 is ASCII, one byte.
//!
//! ```
//! use whatwg_fetch::MimeType;
//!
//! let mime = MimeType::parse("Text/HTML; Charset=\"utf-8\"").ok_or("not a MIME type")?;
//! assert_eq!((mime.essence(), mime.parameter("charset")), ("text/html".to_owned(), Some("utf-8")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::infra::{
    collect_a_sequence_of_code_points, collect_an_http_quoted_string_from_str,
    is_http_quoted_string_token_code_point, isomorphic_decode, isomorphic_encode, trim_code_points,
    trim_trailing_code_points,
};
pub use crate::infra::{
    is_http_newline_byte, is_http_tab_or_space_byte, is_http_token_byte, is_http_whitespace_byte,
    is_token,
};

/// A [MIME type](https://mimesniff.spec.whatwg.org/#mime-type): a type, a subtype and an
/// ordered map of parameters.
///
/// A value of this type is always one that [parse a MIME type](MimeType::parse) could
/// return: the type and subtype are non-empty [HTTP token code points] in ASCII lowercase,
/// parameter names are non-empty HTTP token code points in ASCII lowercase, and parameter
/// values are [HTTP quoted-string token code points] (U+0009, U+0020 to U+007E, U+0080 to
/// U+00FF). So serializing and parsing again gives back an equal value.
///
/// [HTTP token code points]: https://mimesniff.spec.whatwg.org/#http-token-code-point
/// [HTTP quoted-string token code points]: https://mimesniff.spec.whatwg.org/#http-quoted-string-token-code-point
///
/// ```
/// use whatwg_fetch::mime::MimeType;
///
/// let mime = MimeType::parse("Text/HTML; Charset=\"utf-8\"").unwrap();
/// assert_eq!(mime.essence(), "text/html");
/// assert_eq!(mime.parameter("charset"), Some("utf-8"));
/// assert_eq!(mime.to_string(), "text/html;charset=utf-8");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MimeType {
    /// <https://mimesniff.spec.whatwg.org/#type>, a non-empty ASCII string.
    type_: String,
    /// <https://mimesniff.spec.whatwg.org/#subtype>, a non-empty ASCII string.
    subtype: String,
    /// <https://mimesniff.spec.whatwg.org/#parameters>, an ordered map, initially empty.
    /// Names are unique.
    parameters: Vec<(String, String)>,
}

impl MimeType {
    /// A MIME type with `type_` and `subtype`, in ASCII lowercase, and no parameters.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `type_` or `subtype` is empty
    /// or holds anything but [HTTP token code points](https://mimesniff.spec.whatwg.org/#http-token-code-point).
    ///
    /// ```
    /// use whatwg_fetch::mime::MimeType;
    ///
    /// let mut mime = MimeType::new("Text", "Plain")?;
    /// mime.set_parameter("charset", "UTF-8")?;
    /// assert_eq!(mime.serialize(), "text/plain;charset=UTF-8");
    /// assert!(MimeType::new("text", "").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new(type_: &str, subtype: &str) -> crate::Result<MimeType> {
        if !is_http_token_string(type_) {
            return Err(Error::type_error(format!(
                "{type_:?} is not a valid MIME type's type"
            )));
        }
        if !is_http_token_string(subtype) {
            return Err(Error::type_error(format!(
                "{subtype:?} is not a valid MIME type's subtype"
            )));
        }
        Ok(MimeType {
            type_: type_.to_ascii_lowercase(),
            subtype: subtype.to_ascii_lowercase(),
            parameters: Vec::new(),
        })
    }

    /// A MIME type from parts the caller knows to be valid (for the spec's literal MIME types
    /// such as `text/plain;charset=UTF-8`). The parts must already be in the form
    /// [`MimeType`] documents; debug builds check it.
    pub(crate) fn new_unchecked(
        type_: &str,
        subtype: &str,
        parameters: &[(&str, &str)],
    ) -> MimeType {
        debug_assert!(is_http_token_string(type_) && !has_ascii_upper(type_));
        debug_assert!(is_http_token_string(subtype) && !has_ascii_upper(subtype));
        debug_assert!(parameters.iter().all(|(name, value)| {
            is_http_token_string(name)
                && !has_ascii_upper(name)
                && value.chars().all(is_http_quoted_string_token_code_point)
        }));
        MimeType {
            type_: type_.to_owned(),
            subtype: subtype.to_owned(),
            parameters: parameters
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
        }
    }

    /// [Parse a MIME type](https://mimesniff.spec.whatwg.org/#parse-a-mime-type) from
    /// `input`; `None` is the spec's failure.
    ///
    /// Parameters with an invalid name or value, or a name seen before, are dropped rather
    /// than failing the whole parse, as the spec says.
    ///
    /// ```
    /// use whatwg_fetch::mime::MimeType;
    ///
    /// let mime = MimeType::parse(" text/html;charset=gbk;charset=windows-1255 ").unwrap();
    /// assert_eq!(mime.serialize(), "text/html;charset=gbk");
    /// assert_eq!(MimeType::parse("text/"), None);
    /// ```
    pub fn parse(input: &str) -> Option<MimeType> {
        // Step 1. Remove any leading and trailing HTTP whitespace from input.
        let input = trim_code_points(input, is_http_whitespace_byte);

        // Step 2. Let position be a position variable for input, initially pointing at the
        // start of input.
        let mut position = 0;

        // Step 3. Let type be the result of collecting a sequence of code points that are not
        // U+002F (/) from input, given position.
        let type_ = collect_a_sequence_of_code_points(input, &mut position, |b| b != b'/');

        // Step 4. If type is the empty string or does not solely contain HTTP token code
        // points, then return failure.
        if !is_http_token_string(type_) {
            return None;
        }

        // Step 5. If position is past the end of input, then return failure.
        if position >= input.len() {
            return None;
        }

        // Step 6. Advance position by 1. (This skips past U+002F (/).)
        position += 1;

        // Step 7. Let subtype be the result of collecting a sequence of code points that are
        // not U+003B (;) from input, given position.
        let subtype = collect_a_sequence_of_code_points(input, &mut position, |b| b != b';');

        // Step 8. Remove any trailing HTTP whitespace from subtype.
        let subtype = trim_trailing_code_points(subtype, is_http_whitespace_byte);

        // Step 9. If subtype is the empty string or does not solely contain HTTP token code
        // points, then return failure.
        if !is_http_token_string(subtype) {
            return None;
        }

        // Step 10. Let mimeType be a new MIME type record whose type is type, in ASCII
        // lowercase, and subtype is subtype, in ASCII lowercase.
        let mut mime_type = MimeType {
            type_: type_.to_ascii_lowercase(),
            subtype: subtype.to_ascii_lowercase(),
            parameters: Vec::new(),
        };
        // Not in the spec: the names set so far, so that "does not exist" stays cheap on
        // inputs with very many parameters.
        let mut parameter_names: HashSet<String> = HashSet::new();

        // Step 11. While position is not past the end of input:
        while position < input.len() {
            // Step 11.1. Advance position by 1. (This skips past U+003B (;).)
            position += 1;

            // Step 11.2. Collect a sequence of code points that are HTTP whitespace from
            // input given position.
            collect_a_sequence_of_code_points(input, &mut position, is_http_whitespace_byte);

            // Step 11.3. Let parameterName be the result of collecting a sequence of code
            // points that are not U+003B (;) or U+003D (=) from input, given position.
            let parameter_name =
                collect_a_sequence_of_code_points(input, &mut position, |b| b != b';' && b != b'=');

            // Step 11.4. Set parameterName to parameterName, in ASCII lowercase.
            let parameter_name = parameter_name.to_ascii_lowercase();

            // Step 11.5. If position is not past the end of input, then:
            if position < input.len() {
                // Step 11.5.1. If the code point at position within input is U+003B (;), then
                // continue.
                if input.as_bytes().get(position) == Some(&b';') {
                    continue;
                }
                // Step 11.5.2. Advance position by 1. (This skips past U+003D (=).)
                position += 1;
            }

            // Step 11.6. If position is past the end of input, then break.
            if position >= input.len() {
                break;
            }

            // Step 11.7. Let parameterValue be null.
            let parameter_value: String;

            // Step 11.8. If the code point at position within input is U+0022 ("), then:
            if input.as_bytes().get(position) == Some(&b'"') {
                // Step 11.8.1. Set parameterValue to the result of collecting an HTTP quoted
                // string from input, given position and true.
                parameter_value =
                    collect_an_http_quoted_string_from_str(input, &mut position, true).into_owned();

                // Step 11.8.2. Collect a sequence of code points that are not U+003B (;) from
                // input, given position.
                collect_a_sequence_of_code_points(input, &mut position, |b| b != b';');
            }
            // Step 11.9. Otherwise:
            else {
                // Step 11.9.1. Set parameterValue to the result of collecting a sequence of
                // code points that are not U+003B (;) from input, given position.
                let value = collect_a_sequence_of_code_points(input, &mut position, |b| b != b';');

                // Step 11.9.2. Remove any trailing HTTP whitespace from parameterValue.
                let value = trim_trailing_code_points(value, is_http_whitespace_byte);

                // Step 11.9.3. If parameterValue is the empty string, then continue.
                if value.is_empty() {
                    continue;
                }
                parameter_value = value.to_owned();
            }

            // Step 11.10. If all of the following are true
            //   * parameterName is not the empty string
            //   * parameterName solely contains HTTP token code points
            //   * parameterValue solely contains HTTP quoted-string token code points
            //   * mimeType's parameters[parameterName] does not exist
            // then set mimeType's parameters[parameterName] to parameterValue.
            if is_http_token_string(&parameter_name)
                && parameter_value
                    .chars()
                    .all(is_http_quoted_string_token_code_point)
                && !parameter_names.contains(&parameter_name)
            {
                parameter_names.insert(parameter_name.clone());
                mime_type.parameters.push((parameter_name, parameter_value));
            }
        }

        // Step 12. Return mimeType.
        Some(mime_type)
    }

    /// [Parse a MIME type from bytes](https://mimesniff.spec.whatwg.org/#parse-a-mime-type-from-bytes),
    /// such as a `Content-Type` header value; `None` is the spec's failure.
    ///
    /// ```
    /// use whatwg_fetch::mime::MimeType;
    ///
    /// let mime = MimeType::parse_bytes(b"text/plain;x=\"\xE9\"").unwrap();
    /// assert_eq!(mime.parameter("x"), Some("\u{e9}"));
    /// assert_eq!(mime.serialize_to_bytes(), b"text/plain;x=\"\xE9\"");
    /// ```
    pub fn parse_bytes(input: &[u8]) -> Option<MimeType> {
        // Step 1. Let string be input, isomorphic decoded.
        let string = isomorphic_decode(input);

        // Step 2. Return the result of parse a MIME type with string.
        MimeType::parse(&string)
    }

    /// [Serialize a MIME type](https://mimesniff.spec.whatwg.org/#serialize-a-mime-type).
    ///
    /// [`Display`](fmt::Display) writes the same string.
    ///
    /// ```
    /// use whatwg_fetch::mime::MimeType;
    ///
    /// let mime = MimeType::parse("text/plain;a=\"b c\";d=e").unwrap();
    /// assert_eq!(mime.serialize(), "text/plain;a=\"b c\";d=e");
    /// ```
    pub fn serialize(&self) -> String {
        // Step 1. Let serialization be the concatenation of mimeType's type, U+002F (/), and
        // mimeType's subtype.
        let mut serialization = format!("{}/{}", self.type_, self.subtype);

        // Step 2. For each name → value of mimeType's parameters:
        for (name, value) in &self.parameters {
            // Step 2.1. Append U+003B (;) to serialization.
            serialization.push(';');

            // Step 2.2. Append name to serialization.
            serialization.push_str(name);

            // Step 2.3. Append U+003D (=) to serialization.
            serialization.push('=');

            // Step 2.4. If value does not solely contain HTTP token code points or value is
            // the empty string, then:
            if !is_http_token_string(value) {
                // Step 2.4.1. Precede each occurrence of U+0022 (") or U+005C (\) in value
                // with U+005C (\).
                // Step 2.4.2. Prepend U+0022 (") to value.
                // Step 2.4.3. Append U+0022 (") to value.
                // Step 2.5. Append value to serialization.
                serialization.push('"');
                for c in value.chars() {
                    if c == '"' || c == '\\' {
                        serialization.push('\\');
                    }
                    serialization.push(c);
                }
                serialization.push('"');
            } else {
                // Step 2.5. Append value to serialization.
                serialization.push_str(value);
            }
        }

        // Step 3. Return serialization.
        serialization
    }

    /// [Serialize a MIME type to bytes](https://mimesniff.spec.whatwg.org/#serialize-a-mime-type-to-bytes),
    /// for a `Content-Type` header value.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mime = MimeType::parse("Text/HTML; Charset=\"utf-8\"").ok_or("not a MIME type")?;
    /// // Lowercase type and names; a value is quoted only when it must be.
    /// assert_eq!(mime.serialize_to_bytes(), b"text/html;charset=utf-8");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn serialize_to_bytes(&self) -> Vec<u8> {
        // Step 1. Let stringSerialization be the result of serialize a MIME type with
        // mimeType.
        let string_serialization = self.serialize();

        // Step 2. Return stringSerialization, isomorphic encoded.
        isomorphic_encode(&string_serialization).into_owned()
    }

    /// The [essence](https://mimesniff.spec.whatwg.org/#mime-type-essence): type, U+002F (/),
    /// subtype, such as `"text/html"`.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mime = MimeType::parse("application/json; charset=utf-8").ok_or("not a MIME type")?;
    /// assert_eq!(mime.essence(), "application/json");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn essence(&self) -> String {
        format!("{}/{}", self.type_, self.subtype)
    }

    /// The [type](https://mimesniff.spec.whatwg.org/#type), in ASCII lowercase: `"text"` for
    /// `text/html`.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// assert_eq!(MimeType::parse("IMAGE/svg+xml").ok_or("not a MIME type")?.type_(), "image");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn type_(&self) -> &str {
        &self.type_
    }

    /// The [subtype](https://mimesniff.spec.whatwg.org/#subtype), in ASCII lowercase:
    /// `"html"` for `text/html`.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// assert_eq!(MimeType::parse("image/SVG+xml").ok_or("not a MIME type")?.subtype(), "svg+xml");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn subtype(&self) -> &str {
        &self.subtype
    }

    /// The [parameters](https://mimesniff.spec.whatwg.org/#parameters) as `(name, value)`
    /// pairs, in order. Names are in ASCII lowercase; values keep their case.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mime = MimeType::parse("multipart/form-data; Boundary=XyZ; charset=utf-8").ok_or("not a MIME type")?;
    /// assert_eq!(mime.parameters().collect::<Vec<_>>(), [("boundary", "XyZ"), ("charset", "utf-8")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parameters(&self) -> impl Iterator<Item = (&str, &str)> {
        self.parameters
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// The value of the parameter `name`, matched ASCII case-insensitively (stored names are
    /// lowercase), or `None`.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mime = MimeType::parse("text/plain; charset=ISO-8859-1").ok_or("not a MIME type")?;
    /// assert_eq!(mime.parameter("CHARSET"), Some("ISO-8859-1"));
    /// assert_eq!(mime.parameter("format"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// [Set](https://infra.spec.whatwg.org/#map-set) the parameter `name`, in ASCII
    /// lowercase, to `value`: an existing parameter keeps its place, a new one goes last.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mut mime = MimeType::parse("text/plain").ok_or("not a MIME type")?;
    /// mime.set_parameter("Charset", "utf-8")?;
    /// assert_eq!(mime.to_string(), "text/plain;charset=utf-8");
    /// // A name must be an HTTP token.
    /// assert!(mime.set_parameter("bad name", "x").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is empty or holds
    /// anything but [HTTP token code points](https://mimesniff.spec.whatwg.org/#http-token-code-point),
    /// or `value` holds anything but
    /// [HTTP quoted-string token code points](https://mimesniff.spec.whatwg.org/#http-quoted-string-token-code-point);
    /// the MIME type is unchanged then.
    pub fn set_parameter(&mut self, name: &str, value: &str) -> crate::Result<()> {
        if !is_http_token_string(name) {
            return Err(Error::type_error(format!(
                "{name:?} is not a valid MIME type parameter name"
            )));
        }
        if !value.chars().all(is_http_quoted_string_token_code_point) {
            return Err(Error::type_error(format!(
                "{value:?} is not a valid MIME type parameter value"
            )));
        }
        let name = name.to_ascii_lowercase();
        match self.parameters.iter_mut().find(|(n, _)| *n == name) {
            Some((_, existing)) => *existing = value.to_owned(),
            None => self.parameters.push((name, value.to_owned())),
        }
        Ok(())
    }

    /// [Remove](https://infra.spec.whatwg.org/#map-remove) the parameter `name`, matched
    /// ASCII case-insensitively, returning its value if it was there.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let mut mime = MimeType::parse("text/html; charset=utf-8").ok_or("not a MIME type")?;
    /// assert_eq!(mime.remove_parameter("charset").as_deref(), Some("utf-8"));
    /// assert_eq!(mime.to_string(), "text/html");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove_parameter(&mut self, name: &str) -> Option<String> {
        let index = self
            .parameters
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))?;
        Some(self.parameters.remove(index).1)
    }

    // MIME type groups: https://mimesniff.spec.whatwg.org/#mime-type-groups

    /// Whether this is an [image MIME type](https://mimesniff.spec.whatwg.org/#image-mime-type):
    /// its type is "`image`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("image/webp")?.is_image());
    /// assert!(!parse("application/pdf")?.is_image());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_image(&self) -> bool {
        self.type_ == "image"
    }

    /// Whether this is an
    /// [audio or video MIME type](https://mimesniff.spec.whatwg.org/#audio-or-video-mime-type):
    /// its type is "`audio`" or "`video`", or its essence is "`application/ogg`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("application/ogg")?.is_audio_or_video());
    /// assert!(!parse("image/png")?.is_audio_or_video());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_audio_or_video(&self) -> bool {
        self.type_ == "audio" || self.type_ == "video" || self.essence_is("application", "ogg")
    }

    /// Whether this is a [font MIME type](https://mimesniff.spec.whatwg.org/#font-mime-type):
    /// its type is "`font`", or its essence is one of the legacy `application/font-*` and
    /// `application/vnd.ms-*` font types.
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("font/woff2")?.is_font());
    /// assert!(!parse("text/css")?.is_font());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_font(&self) -> bool {
        self.type_ == "font"
            || (self.type_ == "application"
                && matches!(
                    self.subtype.as_str(),
                    "font-cff"
                        | "font-otf"
                        | "font-sfnt"
                        | "font-ttf"
                        | "font-woff"
                        | "vnd.ms-fontobject"
                        | "vnd.ms-opentype"
                ))
    }

    /// Whether this is a
    /// [ZIP-based MIME type](https://mimesniff.spec.whatwg.org/#zip-based-mime-type): its
    /// subtype ends in "`+zip`" or its essence is "`application/zip`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("application/epub+zip")?.is_zip_based());
    /// assert!(!parse("application/gzip")?.is_zip_based());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_zip_based(&self) -> bool {
        self.subtype.ends_with("+zip") || self.essence_is("application", "zip")
    }

    /// Whether this is an
    /// [archive MIME type](https://mimesniff.spec.whatwg.org/#archive-mime-type): its essence
    /// is "`application/x-rar-compressed`", "`application/zip`" or "`application/x-gzip`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("application/x-gzip")?.is_archive());
    /// assert!(!parse("application/epub+zip")?.is_archive());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_archive(&self) -> bool {
        self.type_ == "application"
            && matches!(self.subtype.as_str(), "x-rar-compressed" | "zip" | "x-gzip")
    }

    /// Whether this is an [XML MIME type](https://mimesniff.spec.whatwg.org/#xml-mime-type):
    /// its subtype ends in "`+xml`" or its essence is "`text/xml`" or "`application/xml`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("image/svg+xml")?.is_xml());
    /// assert!(!parse("text/html")?.is_xml());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_xml(&self) -> bool {
        self.subtype.ends_with("+xml")
            || self.essence_is("text", "xml")
            || self.essence_is("application", "xml")
    }

    /// Whether this is an [HTML MIME type](https://mimesniff.spec.whatwg.org/#html-mime-type):
    /// its essence is "`text/html`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("text/html; charset=utf-8")?.is_html());
    /// assert!(!parse("application/xhtml+xml")?.is_html());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_html(&self) -> bool {
        self.essence_is("text", "html")
    }

    /// Whether this is a
    /// [scriptable MIME type](https://mimesniff.spec.whatwg.org/#scriptable-mime-type): an XML
    /// MIME type, an HTML MIME type, or one whose essence is "`application/pdf`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("application/pdf")?.is_scriptable());
    /// assert!(!parse("image/png")?.is_scriptable());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_scriptable(&self) -> bool {
        self.is_xml() || self.is_html() || self.essence_is("application", "pdf")
    }

    /// Whether this is a
    /// [JavaScript MIME type](https://mimesniff.spec.whatwg.org/#javascript-mime-type): its
    /// essence is one of the spec's sixteen JavaScript essences, such as "`text/javascript`".
    ///
    /// ```
    /// use whatwg_fetch::mime::MimeType;
    ///
    /// assert!(MimeType::parse("text/javascript;charset=utf-8").unwrap().is_javascript());
    /// assert!(!MimeType::parse("text/plain").unwrap().is_javascript());
    /// ```
    pub fn is_javascript(&self) -> bool {
        JAVASCRIPT_MIME_TYPE_ESSENCES.contains(&self.essence().as_str())
    }

    /// Whether this is a [JSON MIME type](https://mimesniff.spec.whatwg.org/#json-mime-type):
    /// its subtype ends in "`+json`" or its essence is "`application/json`" or
    /// "`text/json`".
    ///
    /// ```
    /// use whatwg_fetch::MimeType;
    ///
    /// let parse = |text| MimeType::parse(text).ok_or("not a MIME type");
    /// assert!(parse("application/problem+json")?.is_json());
    /// assert!(!parse("text/plain")?.is_json());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_json(&self) -> bool {
        self.subtype.ends_with("+json")
            || self.essence_is("application", "json")
            || self.essence_is("text", "json")
    }

    fn essence_is(&self, type_: &str, subtype: &str) -> bool {
        self.type_ == type_ && self.subtype == subtype
    }
}

/// The essences of a [JavaScript MIME type](https://mimesniff.spec.whatwg.org/#javascript-mime-type).
const JAVASCRIPT_MIME_TYPE_ESSENCES: [&str; 16] = [
    "application/ecmascript",
    "application/javascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
];

/// Whether `string` is a
/// [JavaScript MIME type essence match](https://mimesniff.spec.whatwg.org/#javascript-mime-type-essence-match):
/// an ASCII case-insensitive match for one of the JavaScript MIME type essences. Unlike
/// [`MimeType::is_javascript`], parameters and surrounding whitespace make this false.
///
/// ```
/// use whatwg_fetch::mime::is_javascript_mime_type_essence_match;
///
/// assert!(is_javascript_mime_type_essence_match("Text/JavaScript"));
/// assert!(!is_javascript_mime_type_essence_match("text/javascript;charset=utf-8"));
/// ```
pub fn is_javascript_mime_type_essence_match(string: &str) -> bool {
    JAVASCRIPT_MIME_TYPE_ESSENCES
        .iter()
        .any(|essence| essence.eq_ignore_ascii_case(string))
}

impl fmt::Display for MimeType {
    /// Writes the [serialization](https://mimesniff.spec.whatwg.org/#serialize-a-mime-type).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.serialize())
    }
}

impl FromStr for MimeType {
    type Err = Error;

    /// [Parse a MIME type](https://mimesniff.spec.whatwg.org/#parse-a-mime-type).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) where the spec returns failure.
    fn from_str(input: &str) -> crate::Result<MimeType> {
        MimeType::parse(input)
            .ok_or_else(|| Error::type_error(format!("{input:?} is not a valid MIME type")))
    }
}

/// Whether `s` is non-empty and solely contains
/// [HTTP token code points](https://mimesniff.spec.whatwg.org/#http-token-code-point).
fn is_http_token_string(s: &str) -> bool {
    is_token(s.as_bytes())
}

fn has_ascii_upper(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_unchecked_builds_what_parse_builds() {
        let mime = MimeType::new_unchecked("text", "plain", &[("charset", "US-ASCII")]);
        assert_eq!(MimeType::parse("text/plain;charset=US-ASCII"), Some(mime));
    }
}

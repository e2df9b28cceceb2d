//! Why a [CORS check](https://fetch.spec.whatwg.org/#concept-cors-check) or the checks of a
//! [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch-0) failed:
//! the step that returned failure, what the response held there and what the request
//! needed, said as what the server must send instead. The fetch reports one as
//! [`NetworkError::Cors`], whose message is this module's `Display`.
//!
//! A message quotes a header value the server sent at most [`MAX_QUOTED_CHARS`] characters
//! long, escaped, so that a peer's value of any size or content makes a short, printable
//! message.

use std::borrow::Cow;
use std::fmt;

use crate::error::NetworkError;

/// The most characters of a header value a message quotes; a longer value is cut, with
/// `…` after it.
const MAX_QUOTED_CHARS: usize = 120;

/// `value` as a message quotes it: lossy UTF-8, at most [`MAX_QUOTED_CHARS`] characters,
/// in double quotes with control characters escaped.
fn quote(value: &[u8]) -> String {
    let text = String::from_utf8_lossy(value);
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!("{:?}…", text.get(..cut).unwrap_or_default()),
        None => format!("{text:?}"),
    }
}

/// `name` (a header name or method the request holds) as a message names it.
fn lossy(name: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(name)
}

/// Why a [CORS check](https://fetch.spec.whatwg.org/#concept-cors-check) returned failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CorsCheckFailure {
    /// Step 2: getting `Access-Control-Allow-Origin` from the response's header list
    /// returned null.
    NoAllowOrigin {
        /// The request's serialized origin.
        origin: String,
        /// Whether the request's credentials mode is `include`.
        credentials: bool,
    },
    /// Step 4 with `Access-Control-Allow-Origin: *`: step 3 did not return success for it,
    /// as the request's credentials mode is `include`.
    WildcardWithCredentials {
        /// The request's serialized origin.
        origin: String,
    },
    /// Step 4: byte-serializing the request's origin is not `Access-Control-Allow-Origin`.
    AllowOriginMismatch {
        /// The `Access-Control-Allow-Origin` value (several headers combined).
        allowed: Vec<u8>,
        /// The request's serialized origin.
        origin: String,
        /// Whether the request's redirect-taint is not `same-origin`, which serializes its
        /// origin as `null`.
        redirect_tainted: bool,
    },
    /// Steps 6 to 8: the credentials mode is `include` and `Access-Control-Allow-Credentials`
    /// is not `true`.
    AllowCredentialsNotTrue {
        /// The `Access-Control-Allow-Credentials` value, if any.
        credentials: Option<Vec<u8>>,
    },
}

impl fmt::Display for CorsCheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorsCheckFailure::NoAllowOrigin {
                origin,
                credentials: false,
            } => write!(
                f,
                "the response has no Access-Control-Allow-Origin header, so origin {origin} \
                 may not read it: the server must send \"Access-Control-Allow-Origin: \
                 {origin}\" (or \"*\")"
            ),
            CorsCheckFailure::NoAllowOrigin {
                origin,
                credentials: true,
            } => write!(
                f,
                "the response has no Access-Control-Allow-Origin header, so origin {origin} \
                 may not read it: the server must send \"Access-Control-Allow-Origin: \
                 {origin}\" and \"Access-Control-Allow-Credentials: true\", as the \
                 request's credentials mode is \"include\""
            ),
            CorsCheckFailure::WildcardWithCredentials { origin } => write!(
                f,
                "Access-Control-Allow-Origin is \"*\", which does not allow a request whose \
                 credentials mode is \"include\": the server must send the request's origin, \
                 \"Access-Control-Allow-Origin: {origin}\", and \
                 \"Access-Control-Allow-Credentials: true\""
            ),
            CorsCheckFailure::AllowOriginMismatch {
                allowed,
                origin,
                redirect_tainted,
            } => {
                write!(
                    f,
                    "Access-Control-Allow-Origin is {}, not the request's origin {origin}",
                    quote(allowed)
                )?;
                if allowed.contains(&b',') {
                    f.write_str(" (it must hold one origin, not a list)")?;
                } else if allowed.strip_suffix(b"/") == Some(origin.as_bytes()) {
                    f.write_str(" (an origin has no path, not even \"/\")")?;
                } else if allowed.eq_ignore_ascii_case(origin.as_bytes()) {
                    f.write_str(" (they are compared byte for byte, case included)")?;
                }
                if *redirect_tainted {
                    f.write_str(
                        "; after a redirect to another origin, the request's origin is sent \
                         and compared as \"null\"",
                    )?;
                }
                Ok(())
            }
            CorsCheckFailure::AllowCredentialsNotTrue { credentials: None } => f.write_str(
                "the request's credentials mode is \"include\" but the response has no \
                 Access-Control-Allow-Credentials header: the server must send \
                 \"Access-Control-Allow-Credentials: true\"",
            ),
            CorsCheckFailure::AllowCredentialsNotTrue {
                credentials: Some(value),
            } => {
                write!(
                    f,
                    "the request's credentials mode is \"include\" but \
                     Access-Control-Allow-Credentials is {}, not \"true\"",
                    quote(value)
                )?;
                if value.eq_ignore_ascii_case(b"true") {
                    f.write_str(" (the value is case-sensitive)")?;
                }
                Ok(())
            }
        }
    }
}

impl From<CorsCheckFailure> for NetworkError {
    fn from(failure: CorsCheckFailure) -> NetworkError {
        NetworkError::Cors(Cow::Owned(failure.to_string()))
    }
}

/// Why the response to a CORS-preflight request does not allow the request: steps 7 and 8
/// of [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch-0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PreflightFailure {
    /// The method of the request the preflight was for.
    pub(crate) method: String,
    /// Which step failed.
    pub(crate) reason: PreflightFailureReason,
}

/// The step of [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch-0)
/// that returned a network error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PreflightFailureReason {
    /// Step 8, as step 7's "response's status is an ok status" is false; `cors` says
    /// whether the CORS check failed as well.
    Status {
        /// The preflight response's status.
        status: u16,
        /// The CORS check's failure, if it failed too.
        cors: Option<CorsCheckFailure>,
    },
    /// Step 8, as step 7's "a CORS check for request and response returns success" is false.
    CorsCheck(CorsCheckFailure),
    /// Step 7.3: extracting `header`'s values returned failure.
    Unparsable {
        /// `Access-Control-Allow-Methods` or `Access-Control-Allow-Headers`.
        header: &'static str,
        /// Its value (several headers combined).
        value: Vec<u8>,
    },
    /// Step 7.5: the method is not in methods and is not CORS-safelisted, and the
    /// credentials mode is `include` or methods has no `*`.
    MethodNotAllowed {
        /// The `Access-Control-Allow-Methods` value, if any.
        allowed: Option<Vec<u8>>,
        /// Whether methods holds `*` (so the credentials mode is `include`).
        wildcard: bool,
    },
    /// Step 7.6: a CORS non-wildcard request-header name (`Authorization`) is not in
    /// headerNames.
    NonWildcardHeaderNotListed {
        /// The header's name, as the request holds it.
        name: Vec<u8>,
        /// The `Access-Control-Allow-Headers` value, if any.
        allowed: Option<Vec<u8>>,
    },
    /// Step 7.7: a CORS-unsafe request-header name is not in headerNames, and the
    /// credentials mode is `include` or headerNames has no `*`.
    HeaderNotAllowed {
        /// The header's name, lowercase.
        name: Vec<u8>,
        /// The `Access-Control-Allow-Headers` value, if any.
        allowed: Option<Vec<u8>>,
        /// Whether headerNames holds `*` (so the credentials mode is `include`).
        wildcard: bool,
    },
}

impl fmt::Display for PreflightFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = &self.method;
        write!(f, "the CORS-preflight response (OPTIONS for {method}) ")?;
        match &self.reason {
            PreflightFailureReason::Status { status, cors } => {
                write!(
                    f,
                    "has status {status}, not an ok status (200 to 299): the server must \
                     answer the OPTIONS request with a 2xx status"
                )?;
                if crate::response::is_redirect_status(*status) {
                    f.write_str(", as a preflight's redirect is not followed")?;
                }
                if let Some(cors) = cors {
                    write!(f, "; and {cors}")?;
                }
                Ok(())
            }
            PreflightFailureReason::CorsCheck(cors) => write!(f, "fails the CORS check: {cors}"),
            PreflightFailureReason::Unparsable { header, value } => {
                let items = if header.ends_with("Methods") {
                    "methods"
                } else {
                    "header names"
                };
                write!(
                    f,
                    "has an {header} header that does not parse as a comma-separated list of \
                     {items}: {}",
                    quote(value)
                )
            }
            PreflightFailureReason::MethodNotAllowed { allowed, wildcard } => {
                write!(f, "does not allow method {method}: ")?;
                let header = "Access-Control-Allow-Methods";
                match allowed {
                    None => missing_header(f, header, method),
                    Some(value) if *wildcard => write!(
                        f,
                        "{header} is {}, and \"*\" does not cover a request whose credentials \
                         mode is \"include\"; the server must list {method} by name",
                        quote(value)
                    ),
                    Some(value) => {
                        write!(
                            f,
                            "{header} is {}; the server must list {method}",
                            quote(value)
                        )?;
                        let lowercase = method.to_ascii_lowercase();
                        if String::from_utf8_lossy(value)
                            .split(',')
                            .any(|item| item.trim().eq_ignore_ascii_case(&lowercase))
                        {
                            f.write_str(" (methods are compared case-sensitively)")?;
                        }
                        Ok(())
                    }
                }
            }
            PreflightFailureReason::NonWildcardHeaderNotListed { name, allowed } => {
                let name = lossy(name);
                write!(f, "does not allow header {name}: ")?;
                let header = "Access-Control-Allow-Headers";
                match allowed {
                    None => missing_header(f, header, &name),
                    Some(value) => write!(
                        f,
                        "{header} is {}; the server must list {name} by name, as \"*\" never \
                         covers it",
                        quote(value)
                    ),
                }
            }
            PreflightFailureReason::HeaderNotAllowed {
                name,
                allowed,
                wildcard,
            } => {
                let name = lossy(name);
                write!(f, "does not allow header {name}: ")?;
                let header = "Access-Control-Allow-Headers";
                match allowed {
                    None => missing_header(f, header, &name),
                    Some(value) if *wildcard => write!(
                        f,
                        "{header} is {}, and \"*\" does not cover a request whose credentials \
                         mode is \"include\"; the server must list {name} by name",
                        quote(value)
                    ),
                    Some(value) => write!(
                        f,
                        "{header} is {}; the server must list {name}",
                        quote(value)
                    ),
                }
            }
        }
    }
}

impl From<PreflightFailure> for NetworkError {
    fn from(failure: PreflightFailure) -> NetworkError {
        NetworkError::Cors(Cow::Owned(failure.to_string()))
    }
}

/// `it has no Access-Control-Allow-Methods header; the server must send
/// "Access-Control-Allow-Methods: PUT"`: a preflight response without the `header` that
/// would allow `item`.
fn missing_header(f: &mut fmt::Formatter<'_>, header: &str, item: &str) -> fmt::Result {
    write!(
        f,
        "it has no {header} header; the server must send \"{header}: {item}\""
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_value_is_short_and_printable_whatever_the_peer_sent() {
        assert_eq!(quote(b"https://a.example"), "\"https://a.example\"");
        assert_eq!(quote(b"a\r\nb\x01"), "\"a\\r\\nb\\u{1}\"");
        assert_eq!(quote(b"\xff"), "\"\u{fffd}\"");
        let long = quote("\u{e9}".repeat(10_000).as_bytes());
        assert_eq!(long.chars().count(), MAX_QUOTED_CHARS + 3);
        assert!(long.ends_with("\"…"));
    }

    #[test]
    fn an_origin_mismatch_says_what_is_likely_wrong() {
        let mismatch = |allowed: &str, redirect_tainted| CorsCheckFailure::AllowOriginMismatch {
            allowed: allowed.as_bytes().to_vec(),
            origin: "https://a.example".to_owned(),
            redirect_tainted,
        };
        let said = |allowed, tainted| mismatch(allowed, tainted).to_string();
        assert!(said("https://a.example, https://b.example", false).ends_with("not a list)"));
        assert!(said("https://a.example/", false).ends_with("not even \"/\")"));
        assert!(said("HTTPS://A.EXAMPLE", false).ends_with("case included)"));
        assert_eq!(
            said("https://b.example", false),
            "Access-Control-Allow-Origin is \"https://b.example\", not the request's origin \
             https://a.example"
        );
        assert!(said("https://b.example", true).ends_with("compared as \"null\""));
    }
}

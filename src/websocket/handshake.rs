//! The opening handshake: the `WebSocket(url, protocols)` constructor's checks, and the
//! WebSockets Standard's
//! [establish a WebSocket connection](https://websockets.spec.whatwg.org/#concept-websocket-establish),
//! a fetch in "websocket" mode whose `101` response is validated as RFC 6455 §4.1 says.

use sha1::{Digest, Sha1};
use url::Url;

use super::{WebSocketError, deflate};
use crate::client::Client;
use crate::environment::Environment;
use crate::error::{Error, ErrorKind, Result};
use crate::headers::{Extracted, HeaderList, Headers};
use crate::infra::forgiving_base64_encode;
use crate::request::{
    Referrer, Request, RequestCache, RequestCredentials, RequestInfo, RequestInit, RequestMode,
    RequestRedirect,
};
use crate::upgrade::Upgraded;

/// The GUID RFC 6455 §1.3 appends to the key for `Sec-WebSocket-Accept`.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// Steps 1–7 of the [`WebSocket(url, protocols)`](https://websockets.spec.whatwg.org/#dom-websocket-websocket)
/// constructor: `url` parsed against the environment's base URL, `http`/`https` turned
/// into `ws`/`wss`, any other scheme and any fragment refused.
pub(crate) fn parse_websocket_url(environment: &Environment, url: &str) -> Result<Url> {
    let syntax =
        |why: &str| Error::new(ErrorKind::SyntaxError, format!("WebSocket: {url:?} {why}"));
    // Step 1. Let baseURL be this's relevant settings object's API base URL.
    // Step 2. Let urlRecord be the result of applying the URL parser to url with baseURL.
    // Step 3. If urlRecord is failure, then throw a "SyntaxError" DOMException.
    let mut url_record = environment
        .parse_url(url)
        .map_err(|_| syntax("is not a valid URL"))?;
    // Step 4. If urlRecord's scheme is "http", then set urlRecord's scheme to "ws".
    // Step 5. Otherwise, if urlRecord's scheme is "https", set urlRecord's scheme to "wss".
    let scheme = match url_record.scheme() {
        "http" => Some("ws"),
        "https" => Some("wss"),
        _ => None,
    };
    if let Some(scheme) = scheme {
        // Both are special schemes with the same default port handling: never refused.
        let _ = url_record.set_scheme(scheme);
    }
    // Step 6. If urlRecord's scheme is not "ws" or "wss", then throw a "SyntaxError"
    // DOMException.
    if !matches!(url_record.scheme(), "ws" | "wss") {
        return Err(syntax(
            "is not a WebSocket URL: its scheme must be ws, wss, http or https",
        ));
    }
    // Step 7. If urlRecord's fragment is non-null, then throw a "SyntaxError"
    // DOMException.
    if url_record.fragment().is_some() {
        return Err(syntax("has a fragment, which a WebSocket URL cannot have"));
    }
    Ok(url_record)
}

/// Step 9 of the constructor: each subprotocol a token (RFC 6455 §4.1: the elements of
/// `Sec-WebSocket-Protocol` are tokens, RFC 9110 §5.6.2), none twice.
pub(crate) fn check_protocols(protocols: &[String]) -> Result<()> {
    for (i, protocol) in protocols.iter().enumerate() {
        if protocol.is_empty() || !protocol.bytes().all(is_token_byte) {
            return Err(Error::new(
                ErrorKind::SyntaxError,
                format!(
                    "WebSocket: the subprotocol {protocol:?} is not a token (letters, digits \
                     and !#$%&'*+-.^_`|~ only)"
                ),
            ));
        }
        // DEVIATION: "occur more than once" compared ASCII case-insensitively, as every
        // browser does and WPT's Create-protocols-repeated-case-insensitive expects: a
        // server matching subprotocols without case could not tell the two apart.
        if let Some(earlier) = protocols[..i]
            .iter()
            .find(|earlier| earlier.eq_ignore_ascii_case(protocol))
        {
            return Err(Error::new(
                ErrorKind::SyntaxError,
                format!(
                    "WebSocket: the subprotocol {protocol:?} is given twice (as {earlier:?} \
                     before it; subprotocols are compared without case)"
                ),
            ));
        }
    }
    Ok(())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// What the handshake settled: the connection and what the server chose.
pub(crate) struct Established {
    pub(crate) upgraded: Upgraded,
    /// The subprotocol in use, or empty.
    pub(crate) protocol: String,
    /// `permessage-deflate`'s parameters, when the server accepted it.
    pub(crate) deflate: Option<deflate::Params>,
    /// The `101` response's headers (the `2xx`'s over HTTP/2).
    pub(crate) headers: Headers,
    /// The HTTP version the handshake ran over: HTTP/1.1, or HTTP/2 (RFC 8441).
    pub(crate) version: http::Version,
}

/// What the caller asks of the handshake beyond the standard's inputs.
pub(crate) struct Options {
    /// Offer `permessage-deflate` (the standard's user agent always does).
    pub(crate) permessage_deflate: bool,
    /// Headers of the caller's, added to the request's (a Rust client's handshake often
    /// carries an `Authorization`); the handshake's own are refused beforehand.
    pub(crate) headers: Vec<(String, String)>,
}

/// [Establish a WebSocket connection](https://websockets.spec.whatwg.org/#concept-websocket-establish)
/// given `url`, `protocols` and the client's environment.
pub(crate) async fn establish_a_websocket_connection(
    client: &Client,
    url: &Url,
    protocols: &[String],
    options: Options,
) -> Result<Established> {
    // Step 1. Let requestURL be a copy of url, with its scheme set to "http", if url's
    // scheme is "ws"; otherwise to "https".
    let mut request_url = url.clone();
    let scheme = if url.scheme() == "ws" {
        "http"
    } else {
        "https"
    };
    // Special to special: never refused.
    let _ = request_url.set_scheme(scheme);
    // Step 2. Let request be a new request, whose URL is requestURL, client is client,
    // service-workers mode is "none", referrer is "no-referrer", mode is "websocket",
    // credentials mode is "include", cache mode is "no-store", and redirect mode is
    // "error".
    let mut request = Request::new_in(
        client.environment(),
        RequestInfo::Parsed(request_url),
        RequestInit {
            credentials: Some(RequestCredentials::Include),
            cache: Some(RequestCache::NoStore),
            redirect: Some(RequestRedirect::Error),
            ..RequestInit::default()
        },
    )?;
    // The constructor refuses mode "websocket" (only this algorithm makes it).
    request.mode = RequestMode::WebSocket;
    request.referrer = Referrer::NoReferrer;
    // Not a `Request` object's: no CORS preflight for the headers below.
    request.unsafe_request = false;
    let list = request.headers.header_list_mut();
    for (name, value) in &options.headers {
        list.append(name, value);
    }
    // Step 3. Append (`Upgrade`, `websocket`) to request's header list.
    list.append("Upgrade", "websocket");
    // Step 4. Append (`Connection`, `Upgrade`) to request's header list.
    list.append("Connection", "Upgrade");
    // Step 5. Let keyValue be a nonce consisting of a randomly selected 16-byte value
    // that has been forgiving-base64-encoded and isomorphic encoded.
    let key_value = forgiving_base64_encode(&rand::random::<[u8; 16]>());
    // Step 6. Append (`Sec-WebSocket-Key`, keyValue) to request's header list.
    list.append("Sec-WebSocket-Key", &key_value);
    // Step 7. Append (`Sec-WebSocket-Version`, `13`) to request's header list.
    list.append("Sec-WebSocket-Version", "13");
    // Step 8. For each protocol in protocols, combine (`Sec-WebSocket-Protocol`,
    // protocol) in request's header list.
    for protocol in protocols {
        list.combine("Sec-WebSocket-Protocol", protocol);
    }
    // Step 9. Let permessageDeflate be a user-agent defined "permessage-deflate"
    // extension header value.
    // Step 10. Append (`Sec-WebSocket-Extensions`, permessageDeflate) to request's header
    // list.
    if options.permessage_deflate {
        list.append("Sec-WebSocket-Extensions", deflate::OFFER);
    }
    // Step 11. Fetch request with processResponse given response being these steps:
    let response = client.fetch_request(request).await?;
    // Step 11.1. If response is a network error or its status is not 101, fail the
    // WebSocket connection.
    // DEVIATION: over HTTP/2, where the fetch ran as an extended CONNECT on a stream of
    // an open connection (see `fetch/http.rs`, "obtain a WebSocket connection"), a `2xx`
    // establishes it: "If the server agrees to the WebSocket connection, it MUST respond
    // with a 200 (OK) status code" and the stream is the tunnel from then on (RFC 8441 §5,
    // §4; RFC 9113 §8.5: any `2xx`).
    let status = response.status();
    let version = response.version();
    let over_h2 = version == http::Version::HTTP_2 && (200..300).contains(&status);
    if status != 101 && !over_h2 {
        return Err(fail(WebSocketError::Status(status), url));
    }
    let headers = response.internal_response_or_self().headers.header_list();
    // Step 11.2. If protocols is not the empty list and extracting header list values
    // given `Sec-WebSocket-Protocol` and response's header list results in null,
    // failure, or the empty byte sequence, then fail the WebSocket connection.
    let chosen = match headers.extract_header_list_values("Sec-WebSocket-Protocol") {
        Extracted::Value(values) => match values.as_slice() {
            [one] => String::from_utf8_lossy(one).into_owned(),
            _ => {
                return Err(fail(
                    WebSocketError::ProtocolNotOffered(values_to_string(&values)),
                    url,
                ));
            }
        },
        Extracted::Null => String::new(),
        Extracted::Failure => {
            return Err(fail(
                WebSocketError::ProtocolNotOffered("(unparsable)".to_owned()),
                url,
            ));
        }
    };
    if !protocols.is_empty() && chosen.is_empty() {
        return Err(fail(WebSocketError::ProtocolNotAcknowledged, url));
    }
    // Step 11.3. Follow the requirements stated step 2 to step 6, inclusive, of the last
    // set of steps in section 4.1 of The WebSocket Protocol to validate response.
    let key = (!over_h2).then_some(key_value.as_str());
    let deflate = validate(headers, key, protocols, &chosen, options.permessage_deflate)
        .map_err(|e| fail(e, url))?;
    // The WebSocket connection is established.
    let headers = response.internal_response_or_self().headers.clone();
    let upgraded = response.upgrade().await?;
    Ok(Established {
        upgraded,
        protocol: chosen,
        deflate,
        headers,
        version,
    })
}

/// Steps 2–6 of the last set of steps in RFC 6455 §4.1: the `101`'s `Upgrade`,
/// `Connection`, `Sec-WebSocket-Accept`, `Sec-WebSocket-Extensions` and
/// `Sec-WebSocket-Protocol`. `key` is the `Sec-WebSocket-Key` sent, `None` over HTTP/2,
/// where the handshake has neither `Upgrade` and `Connection` (RFC 8441 §5: "not part of
/// HTTP/2") nor a key and its accept ("superseded by the :protocol pseudo-header
/// field"): steps 2–4 are then not taken, and 5–6 are, as RFC 8441 §5 says the
/// extensions and subprotocol headers "are used ... as defined in [RFC6455]".
fn validate(
    headers: &HeaderList,
    key: Option<&str>,
    protocols: &[String],
    chosen: &str,
    offered_deflate: bool,
) -> std::result::Result<Option<deflate::Params>, WebSocketError> {
    let joined = |name: &str| {
        headers
            .values(name.as_bytes())
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(key) = key {
        // Step 2. If the response lacks an |Upgrade| header field or the |Upgrade| header
        // field contains a value that is not an ASCII case-insensitive match for the value
        // "websocket", the client MUST _Fail the WebSocket Connection_.
        let upgrade = joined("Upgrade");
        if !upgrade.trim().eq_ignore_ascii_case("websocket") {
            return Err(WebSocketError::BadUpgrade(upgrade));
        }
        // Step 3. If the response lacks a |Connection| header field or the |Connection|
        // header field doesn't contain a token that is an ASCII case-insensitive match for
        // the value "Upgrade", the client MUST _Fail the WebSocket Connection_.
        let connection = joined("Connection");
        if !connection
            .split(',')
            .any(|token| token.trim().eq_ignore_ascii_case("upgrade"))
        {
            return Err(WebSocketError::BadConnection(connection));
        }
        // Step 4. If the response lacks a |Sec-WebSocket-Accept| header field or the
        // |Sec-WebSocket-Accept| contains a value other than the base64-encoded SHA-1 of the
        // concatenation of the |Sec-WebSocket-Key| (as a string, not base64-decoded) with the
        // string "258EAFA5-E914-47DA-95CA-C5AB0DC85B11" but ignoring any leading and trailing
        // whitespace, the client MUST _Fail the WebSocket Connection_.
        let accept = joined("Sec-WebSocket-Accept");
        if accept.trim_matches([' ', '\t']) != accept_key(key) {
            return Err(WebSocketError::BadAccept(accept));
        }
    }
    // Step 5. If the response includes a |Sec-WebSocket-Extensions| header field and this
    // header field indicates the use of an extension that was not present in the
    // client's handshake (the server has indicated an extension not requested by the
    // client), the client MUST _Fail the WebSocket Connection_.
    let deflate = deflate::negotiate(&joined("Sec-WebSocket-Extensions"), offered_deflate)?;
    // Step 6. If the response includes a |Sec-WebSocket-Protocol| header field and this
    // header field indicates the use of a subprotocol that was not present in the
    // client's handshake (the server has indicated a subprotocol not requested by the
    // client), the client MUST _Fail the WebSocket Connection_.
    if !chosen.is_empty() && !protocols.iter().any(|p| p == chosen) {
        return Err(WebSocketError::ProtocolNotOffered(chosen.to_owned()));
    }
    Ok(deflate)
}

/// `Sec-WebSocket-Accept` for `key`: base64(SHA-1(key + GUID)).
pub(crate) fn accept_key(key: &str) -> String {
    let mut sha1 = Sha1::new();
    sha1.update(key.as_bytes());
    sha1.update(GUID.as_bytes());
    forgiving_base64_encode(&sha1.finalize())
}

fn values_to_string(values: &[bytes::Bytes]) -> String {
    values
        .iter()
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error of a handshake that failed the WebSocket connection.
fn fail(error: WebSocketError, url: &Url) -> Error {
    Error::new(
        ErrorKind::WebSocket,
        format!("the WebSocket opening handshake failed: {error}"),
    )
    .with_source(error)
    .with_url(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_key_is_the_rfc_example() {
        // RFC 6455 §1.3.
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn the_constructor_checks_urls_and_protocols() {
        let env = Environment::server();
        for (input, parsed) in [
            ("ws://example.com/chat?x=1", "ws://example.com/chat?x=1"),
            ("http://example.com/", "ws://example.com/"),
            ("https://example.com:443/", "wss://example.com/"),
            ("WSS://example.com", "wss://example.com/"),
        ] {
            assert_eq!(parse_websocket_url(&env, input).unwrap().as_str(), parsed);
        }
        for input in ["ftp://example.com/", "ws://example.com/#x", "ws://", "nope"] {
            let error = parse_websocket_url(&env, input).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::SyntaxError, "{input}");
        }
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_protocols(&owned(&["chat", "superchat.v2"])).is_ok());
        for bad in [
            &["a b"][..],
            &[""],
            &["chat", "chat"],
            &["echo", "eCho"],
            &["a,b"],
            &["é"],
        ] {
            assert!(check_protocols(&owned(bad)).is_err(), "{bad:?}");
        }
    }
}

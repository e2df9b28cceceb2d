//! `request_init`: `new Request(input, init)` and `new Response(body, init)` with
//! arbitrary strings, the conversions to and from `http` types, and `Blob.slice`.
//!
//! The first line is the request's URL; each further line is `<key> <value>`:
//! `method`, `referrer`, `integrity`, `mode`, `credentials`, `cache`, `redirect`,
//! `policy`, `priority`, `keepalive` (any value), `header <name>:<value>`, `body`,
//! `base <url>` (a browser-like environment at that URL), `status <u16>` and `text
//! <status text>` (a response), `slice <start> <end> <type>` (a slice of a blob of the
//! body). Enumeration values that do not parse are skipped.
//!
//! Checked: a request converts to `http::Request` and back with the same method; a
//! response converts to `http::Response` and back with the same status; a blob slice
//! has the bytes the File API's clamping gives.

use std::sync::Arc;

use url::Url;
use whatwg_fetch::blob::Blob;
use whatwg_fetch::{
    BodyInit, Environment, HeadersInit, Request, RequestInit, Response, ResponseInit,
};

use crate::{MAX_INPUT, block_on, lines, word};

/// What the File API's `slice` takes from a blob of `size` bytes: the start and the
/// length.
fn clamp(size: i64, start: Option<i64>, end: Option<i64>) -> (i64, i64) {
    let relative = |index: i64| {
        if index < 0 {
            size.saturating_add(index).max(0)
        } else {
            index.min(size)
        }
    };
    let start = start.map_or(0, relative);
    let end = end.map_or(size, relative);
    (start, end.saturating_sub(start).max(0))
}

fn check_slice(body: &[u8], args: &str) {
    let mut parts = args.splitn(3, ' ');
    let start = parts.next().and_then(|s| s.parse::<i64>().ok());
    let end = parts.next().and_then(|s| s.parse::<i64>().ok());
    let content_type = parts.next();
    let blob = Blob::from_bytes(body.to_vec(), "");
    let slice = blob.slice(start, end, content_type);
    let size = i64::try_from(body.len()).unwrap_or(i64::MAX);
    let (from, len) = clamp(size, start, end);
    let from = usize::try_from(from).unwrap_or(0);
    let len = usize::try_from(len).unwrap_or(0);
    let expected = body.get(from..from + len).unwrap_or_default();
    assert_eq!(slice.as_bytes(), expected, "slice({start:?}, {end:?})");
    assert_eq!(slice.size(), len as u64);
    let again = slice.slice(Some(0), None, None);
    assert_eq!(again.as_bytes(), expected);
}

fn parse<T: std::str::FromStr>(value: &str) -> Option<T> {
    value.parse().ok()
}

/// The `request_init` target.
pub fn request_init(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut lines = lines(data);
    let url = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
    let mut init = RequestInit::default();
    let mut headers: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut environment = Arc::new(Environment::server());
    let mut response_init = ResponseInit::default();
    let mut body: Option<Vec<u8>> = None;
    for line in lines {
        let (key, value) = word(line);
        let text = String::from_utf8_lossy(value).into_owned();
        match key {
            b"method" => init.method = Some(text),
            b"referrer" => init.referrer = Some(text),
            b"integrity" => init.integrity = Some(text),
            b"mode" => init.mode = parse(&text),
            b"credentials" => init.credentials = parse(&text),
            b"cache" => init.cache = parse(&text),
            b"redirect" => init.redirect = parse(&text),
            b"policy" => init.referrer_policy = parse(&text),
            b"priority" => init.priority = parse(&text),
            b"keepalive" => init.keepalive = Some(true),
            b"header" => {
                let at = value.iter().position(|&b| b == b':').unwrap_or(value.len());
                let (name, rest) = value.split_at(at);
                let rest = rest.get(1..).unwrap_or_default();
                headers.push((name.to_vec(), rest.to_vec()));
            }
            b"body" => body = Some(value.to_vec()),
            b"base" => {
                if let Ok(base) = Url::parse(&text) {
                    environment = Arc::new(Environment::browser(base));
                }
            }
            b"status" => response_init.status = parse(&text).unwrap_or(200),
            b"text" => response_init.status_text = text,
            b"slice" => check_slice(body.as_deref().unwrap_or_default(), &text),
            _ => {}
        }
    }
    if !headers.is_empty() {
        init.headers = Some(HeadersInit::from(headers.clone()));
    }
    if let Some(body) = &body {
        init.body = Some(BodyInit::from(body.clone()));
    }

    if let Ok(mut request) = Request::new_in(&environment, url.as_str(), init) {
        let _ = (
            request.method(),
            request.url(),
            request.referrer(),
            request.mode(),
        );
        for (name, value) in request.headers() {
            let _ = (name, value);
        }
        if let Ok(mut clone) = request.try_clone() {
            let _ = block_on(clone.bytes());
        }
        let method = request.method().to_owned();
        if let Ok(http_request) = http::Request::try_from(request) {
            assert_eq!(http_request.method().as_str(), method);
            if let Ok(mut back) = Request::try_from(http_request) {
                assert_eq!(
                    back.method(),
                    method,
                    "the method changes through http::Request"
                );
                let _ = block_on(back.bytes());
            }
        }
    }

    let status = response_init.status;
    let response_body = body.map(BodyInit::from);
    response_init.headers = Some(HeadersInit::from(headers));
    if let Ok(response) = Response::new(response_body, response_init) {
        assert_eq!(response.status(), status);
        if let Ok(http_response) = http::Response::try_from(response) {
            if let Ok(mut back) = Response::try_from(http_response) {
                assert_eq!(
                    back.status(),
                    status,
                    "the status changes through http::Response"
                );
                let _ = block_on(back.bytes());
            }
        }
    }
}

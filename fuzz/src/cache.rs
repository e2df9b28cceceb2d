//! `http_cache`: `Cache-Control` and the HTTP cache (freshness, validation, `Vary`,
//! partial content), through a browser-like [`Client`] with `http_cache(true)` over a
//! scripted [`Transport`].
//!
//! The input is a script, one line each:
//!
//! - `F <cache mode> <path> [flags]`: a fetch of `http://fuzz.test<path>` in that
//!   [`RequestCache`] mode (its IDL string; anything else is `default`). Flags: a method
//!   in upper case (`POST`, `HEAD`, …), `drop` (the body is not read), `half` (one chunk
//!   is read), `clone` (the response is cloned and both read);
//! - `> <name>: <value>`: a request header of the last fetch;
//! - `R <status>`: a response for the network to give, in order, one per request that
//!   reaches it (when none is left, the network fails);
//! - `< <name>: <value>`: a header of the last response;
//! - `B <text>`: a line of the last response's body.
//!
//! A header value `@<seconds>` is an HTTP date that many seconds from now (the cache
//! reads the clock). The fetches run in order once the script is read.
//!
//! Checked: `only-if-cached` never reaches the network; `no-store` and `reload` always
//! do; a `206` served without the network holds as many bytes as its `Content-Range`
//! says.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use url::Url;
use whatwg_fetch::net::{
    RequestBody, ResponseBody, SendOptions, Transport, TransportFuture, decode_response,
};
use whatwg_fetch::{
    Client, Environment, HeadersInit, NetworkError, RequestCache, RequestInit, RequestMode,
    Response,
};

use crate::{MAX_INPUT, lines, word};

/// At most this many fetches and scripted responses per input.
const MAX_STEPS: usize = 24;

/// A response the network gives.
#[derive(Default)]
struct Scripted {
    status: u16,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
}

#[derive(Default)]
struct Fetch {
    cache: Option<RequestCache>,
    path: String,
    method: Option<String>,
    drop: bool,
    half: bool,
    clone: bool,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
}

/// The network: the scripted responses, in order, and a count of requests.
#[derive(Default)]
struct Network {
    responses: Mutex<VecDeque<Scripted>>,
    sent: AtomicUsize,
}

impl Transport for Network {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        self.sent.fetch_add(1, Ordering::SeqCst);
        let next = self
            .responses
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        let head = request.method() == http::Method::HEAD;
        Box::pin(async move {
            let Some(scripted) = next else {
                return Err(NetworkError::Connect("no response scripted".into()));
            };
            // As a connection would give it: a final status, and no body where HTTP has none.
            let status = match http::StatusCode::from_u16(scripted.status) {
                Ok(status) if !status.is_informational() => status,
                _ => http::StatusCode::OK,
            };
            let empty = head || matches!(status.as_u16(), 204 | 304);
            let mut builder = http::Response::builder().status(status);
            for (name, value) in &scripted.headers {
                let name = http::HeaderName::from_bytes(name);
                let value = http::HeaderValue::from_bytes(value);
                if let (Ok(name), Ok(value)) = (name, value) {
                    builder = builder.header(name, value);
                }
            }
            let body = if empty {
                ResponseBody::empty()
            } else {
                ResponseBody::full(scripted.body)
            };
            let response = builder
                .body(body)
                .map_err(|error| NetworkError::Protocol(error.into()))?;
            if options.decode_content {
                decode_response(response)
            } else {
                Ok(response)
            }
        })
    }
}

/// A header value, with `@<seconds>` turned into an HTTP date.
fn header_value(value: &[u8]) -> Vec<u8> {
    let Some(offset) = value
        .strip_prefix(b"@")
        .and_then(|offset| std::str::from_utf8(offset).ok())
        .and_then(|offset| offset.trim().parse::<i64>().ok())
    else {
        return value.to_vec();
    };
    // Within fifty years either way, so the date stays between 1970 and 9999.
    let offset = offset.clamp(-50 * 365 * 86400, 50 * 365 * 86400);
    let magnitude = Duration::from_secs(offset.unsigned_abs());
    let now = SystemTime::now();
    let date = if offset < 0 {
        now.checked_sub(magnitude)
    } else {
        now.checked_add(magnitude)
    };
    date.map_or_else(
        || value.to_vec(),
        |date| httpdate::fmt_http_date(date).into_bytes(),
    )
}

fn header(line: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let at = line.iter().position(|&b| b == b':').unwrap_or(line.len());
    let (name, value) = line.split_at(at);
    let value = value.get(1..).unwrap_or_default();
    let value = value.strip_prefix(b" ").unwrap_or(value);
    (name.to_vec(), header_value(value))
}

fn parse_script(data: &[u8]) -> (Vec<Fetch>, VecDeque<Scripted>) {
    let mut fetches: Vec<Fetch> = Vec::new();
    let mut responses: VecDeque<Scripted> = VecDeque::new();
    for line in lines(data) {
        let (op, rest) = word(line);
        match op {
            b"F" if fetches.len() < MAX_STEPS => {
                let text = String::from_utf8_lossy(rest);
                let mut words = text.split(' ');
                let mut fetch = Fetch {
                    cache: words.next().and_then(|mode| mode.parse().ok()),
                    path: words.next().unwrap_or("/").to_owned(),
                    ..Default::default()
                };
                for flag in words {
                    match flag {
                        "drop" => fetch.drop = true,
                        "half" => fetch.half = true,
                        "clone" => fetch.clone = true,
                        method if method.bytes().all(|b| b.is_ascii_uppercase()) => {
                            fetch.method = Some(method.to_owned());
                        }
                        _ => {}
                    }
                }
                fetches.push(fetch);
            }
            b">" => {
                if let Some(fetch) = fetches.last_mut() {
                    fetch.headers.push(header(rest));
                }
            }
            b"R" if responses.len() < MAX_STEPS => {
                let status = std::str::from_utf8(rest)
                    .ok()
                    .and_then(|status| status.trim().parse().ok())
                    .unwrap_or(200);
                responses.push_back(Scripted {
                    status,
                    ..Default::default()
                });
            }
            b"<" => {
                if let Some(response) = responses.back_mut() {
                    response.headers.push(header(rest));
                }
            }
            b"B" => {
                if let Some(response) = responses.back_mut() {
                    if !response.body.is_empty() {
                        response.body.push(b'\n');
                    }
                    response.body.extend_from_slice(rest);
                }
            }
            _ => {}
        }
    }
    (fetches, responses)
}

/// Reads the response's body as the fetch's flags say; the body's bytes if it was read
/// whole without an error.
async fn read(response: &mut Response, fetch: &Fetch) -> Option<Vec<u8>> {
    if fetch.drop {
        return None;
    }
    let mut body = response.take_body()?;
    if fetch.half {
        let _ = body.next().await;
        return None;
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        bytes.extend_from_slice(&chunk.ok()?);
    }
    Some(bytes)
}

/// The length a `Content-Range: bytes a-b/c` says, if it says one.
fn content_range_length(response: &Response) -> Option<u64> {
    let value = response.headers().get("content-range").ok()??;
    let range = value.trim().strip_prefix("bytes ")?;
    let (range, _) = range.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last): (u64, u64) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    last.checked_sub(first)?.checked_add(1)
}

async fn run(client: &Client, network: &Network, fetch: &Fetch) {
    let cache = fetch.cache.unwrap_or(RequestCache::Default);
    let init = RequestInit {
        cache: Some(cache),
        mode: (cache == RequestCache::OnlyIfCached).then_some(RequestMode::SameOrigin),
        method: fetch.method.clone(),
        body: matches!(fetch.method.as_deref(), Some("POST" | "PUT" | "PATCH")).then(|| "x".into()),
        headers: (!fetch.headers.is_empty()).then(|| HeadersInit::from(fetch.headers.clone())),
        ..Default::default()
    };
    let url = format!("http://fuzz.test{}", fetch.path);
    let before = network.sent.load(Ordering::SeqCst);
    let result = client.fetch(url.as_str(), init).await;
    let sent = network.sent.load(Ordering::SeqCst) - before;
    if cache == RequestCache::OnlyIfCached {
        assert_eq!(sent, 0, "an only-if-cached fetch reached the network");
    }
    let Ok(mut response) = result else {
        return;
    };
    if matches!(cache, RequestCache::NoStore | RequestCache::Reload) {
        assert!(sent > 0, "a {cache} fetch was answered from the cache");
    }
    let _ = (response.status(), response.headers().iter().count());
    if fetch.clone {
        if let Ok(mut branch) = response.try_clone() {
            let _ = read(&mut branch, fetch).await;
        }
    }
    let body = read(&mut response, fetch).await;
    let from_cache = network.sent.load(Ordering::SeqCst) == before;
    if let (true, 206, Some(body), Some(length)) = (
        from_cache,
        response.status(),
        &body,
        content_range_length(&response),
    ) {
        assert_eq!(
            body.len() as u64,
            length,
            "a 206 from the cache holds other than its Content-Range says"
        );
    }
}

/// The `http_cache` target.
pub fn http_cache(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let (fetches, responses) = parse_script(data);
    if fetches.is_empty() {
        return;
    }
    let network = Arc::new(Network {
        responses: Mutex::new(responses),
        sent: AtomicUsize::new(0),
    });
    // A runtime per input: background revalidations of one input end with it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let origin = Url::parse("http://fuzz.test/").expect("a URL");
        let client = Client::builder()
            .environment(Environment::browser(origin))
            .http_cache(true)
            .transport(Arc::clone(&network) as Arc<dyn Transport>)
            .build()
            .expect("a client");
        for fetch in &fetches {
            let step = run(&client, &network, fetch);
            if tokio::time::timeout(Duration::from_secs(5), step)
                .await
                .is_err()
            {
                panic!("a fetch from the cache took more than 5 seconds");
            }
            // Let background revalidations finish before the next fetch counts requests.
            for _ in 0..64 {
                tokio::task::yield_now().await;
            }
        }
    });
}

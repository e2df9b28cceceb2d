//! One request of each benchmark job, per client: the small JSON body read in full, parsed
//! (`serde_json::Value`; `fetch()` through `Response::json`) and its `items` counted, as
//! `load` does (`clients.rs` calls these); or a large body read chunk by chunk, keeping nothing, as
//! `stream` does. Each returns its check value (items, or bytes).

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::Connect;
use whatwg_fetch::{Client, RequestInfo, RequestInit};

/// `GET url` through `fetch()`: the number of `items` in the JSON body.
pub async fn fetch_items(client: &Client, url: &str) -> Result<u64, String> {
    fetch_items_of(client, url).await
}

/// [`fetch_items`] with any input `fetch()` takes: a string, or a parsed `Url`.
pub async fn fetch_items_of(client: &Client, input: impl Into<RequestInfo>) -> Result<u64, String> {
    let mut response = client
        .fetch(input, RequestInit::default())
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let value: serde_json::Value = response.json().await.map_err(|error| error.to_string())?;
    count_items(&value)
}

/// The fields `fetch()` adds to a request of the server-side client, in its order:
/// `Accept`, `Accept-Language` (HTTP-network-or-cache fetch), `User-Agent` and
/// `Accept-Encoding` (the codings this build decodes).
pub const FETCH_REQUEST_HEADERS: [(&str, &str); 4] = [
    ("accept", "*/*"),
    ("accept-language", "*"),
    ("user-agent", whatwg_fetch::client::DEFAULT_USER_AGENT),
    ("accept-encoding", "gzip, deflate, br, zstd"),
];

/// [`FETCH_REQUEST_HEADERS`] as a header map, for another client's requests to carry the
/// head `fetch()` sends.
pub fn fetch_request_head() -> http::HeaderMap {
    let mut head = http::HeaderMap::new();
    for (name, value) in FETCH_REQUEST_HEADERS {
        head.append(name, http::HeaderValue::from_static(value));
    }
    head
}

/// `GET uri` through hyper-util's legacy client: the number of `items` in the JSON body.
pub async fn hyper_items<C>(
    client: &HyperClient<C, Empty<Bytes>>,
    uri: &hyper::Uri,
) -> Result<u64, String>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    hyper_items_with(client, uri, None).await
}

/// [`hyper_items`] with the request carrying `head`'s fields, when there is one (the fields
/// `fetch()` sends, so that both clients send the same head).
pub async fn hyper_items_with<C>(
    client: &HyperClient<C, Empty<Bytes>>,
    uri: &hyper::Uri,
    head: Option<&http::HeaderMap>,
) -> Result<u64, String>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    let response = match head {
        None => client.get(uri.clone()).await,
        Some(head) => {
            let mut request = hyper::Request::new(Empty::new());
            *request.uri_mut() = uri.clone();
            *request.headers_mut() = head.clone();
            client.request(request).await
        }
    }
    .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|error| error.to_string())?;
    parse_and_count(&body.to_bytes())
}

/// `GET url` through reqwest: the number of `items` in the JSON body.
pub async fn reqwest_items(client: &reqwest::Client, url: &str) -> Result<u64, String> {
    reqwest_items_of(client, url).await
}

/// [`reqwest_items`] with any URL reqwest takes: a string, or a parsed `Url`.
pub async fn reqwest_items_of(
    client: &reqwest::Client,
    url: impl reqwest::IntoUrl,
) -> Result<u64, String> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let body = response.bytes().await.map_err(|error| error.to_string())?;
    parse_and_count(&body)
}

/// `GET url` through `fetch()`, its body read through `Response::body()`: the bytes read.
pub async fn fetch_bytes(client: &Client, url: &str) -> Result<u64, String> {
    let mut response = client
        .fetch(url, RequestInit::default())
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let body = response.body().ok_or("response has no body")?;
    let mut bytes = 0;
    while let Some(chunk) = body.next().await {
        bytes += chunk.map_err(|error| error.to_string())?.len() as u64;
    }
    Ok(bytes)
}

/// `GET uri` through hyper-util's legacy client, its body read frame by frame: the bytes
/// read.
pub async fn hyper_bytes<C>(
    client: &HyperClient<C, Empty<Bytes>>,
    uri: &hyper::Uri,
) -> Result<u64, String>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    let response = client
        .get(uri.clone())
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let mut body = response.into_body();
    let mut bytes = 0;
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.map_err(|error| error.to_string())?.into_data() {
            bytes += data.len() as u64;
        }
    }
    Ok(bytes)
}

/// `GET url` through reqwest, its body read chunk by chunk: the bytes read.
pub async fn reqwest_bytes(client: &reqwest::Client, url: &str) -> Result<u64, String> {
    let mut response = client
        .get(url)
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let mut bytes = 0;
    while let Some(chunk) = response.chunk().await.map_err(|error| error.to_string())? {
        bytes += chunk.len() as u64;
    }
    Ok(bytes)
}

fn parse_and_count(body: &[u8]) -> Result<u64, String> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|error| error.to_string())?;
    count_items(&value)
}

fn count_items(value: &serde_json::Value) -> Result<u64, String> {
    value
        .get("items")
        .and_then(|items| items.as_array())
        .map(|items| items.len() as u64)
        .ok_or_else(|| "body has no items array".to_owned())
}

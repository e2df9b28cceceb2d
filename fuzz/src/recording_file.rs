//! `recording_file`: a recording of the `record` feature (a test fixture, maybe edited by
//! hand, cut short or from another version) through `ReplayTransport::from_json`, then
//! replayed. The whole input is the file's text (not UTF-8: replaced lossily).
//!
//! Checked beyond "no panic": a file that does not load gives a `Json` or `Invalid`
//! [`RecordingFileError`] with a message that is not empty. One that loads is replayed
//! twice, within 5 seconds in all:
//!
//! - through [`Transport::send`] alone, each exchange asked for in order by its own method
//!   and URL (when the URL is one an `http::Uri` writes back as it is): the `i`th request
//!   gets the `i`th exchange, its status, version, headers and body byte for byte;
//! - through a [`Client`] whose transport is a [`RecordingTransport`] around a fresh
//!   replay, the first [`MAX_FETCHES`] exchanges fetched by method and URL (with the
//!   request body when the method may have one) and their bodies read (a stream of at
//!   most [`MAX_DECODED`] bytes: two layers of gzip turn a 64 KiB file into gigabytes).
//!   What the recorder then writes loads again, and each exchange in it is one of the
//!   file's: the same method, URL, status, version, response headers and body.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use whatwg_fetch::net::{RequestBody, SendOptions, Transport};
use whatwg_fetch::record::{Exchange, RecordingFileError, RecordingTransport, ReplayTransport};
use whatwg_fetch::{Client, Method};

use crate::MAX_INPUT;

/// How many exchanges are fetched through a `Client`.
pub const MAX_FETCHES: usize = 8;

/// How many bytes of a replayed body are read through a `Client`.
pub const MAX_DECODED: usize = 8 << 20;

/// How long the replays of one input may take before the target calls it a hang.
const HANG: Duration = Duration::from_secs(5);

/// What the replay of an exchange must give back: the response as recorded.
fn response_of(exchange: &Exchange) -> (http::StatusCode, http::Version, Vec<(String, Vec<u8>)>) {
    let headers = exchange
        .response_headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
        .collect();
    (exchange.status(), exchange.version(), headers)
}

/// Reads `body` as a stream, up to [`MAX_DECODED`] bytes.
async fn drain<S, E>(mut body: S) -> Result<Vec<u8>, ()>
where
    S: futures_util::Stream<Item = Result<bytes::Bytes, E>> + Unpin,
{
    let mut read = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|_| ())?;
        if read.len().saturating_add(chunk.len()) > MAX_DECODED {
            return Err(());
        }
        read.extend_from_slice(&chunk);
    }
    Ok(read)
}

/// Each exchange asked for through the replay alone, in order: the `i`th gets its own.
async fn replay_alone(replay: &ReplayTransport, exchanges: &[Exchange]) {
    for exchange in exchanges {
        let Ok(uri) = exchange.url().parse::<http::Uri>() else {
            continue;
        };
        // `Uri`'s own comparison with a string overlooks an empty path that it writes as
        // `/`; the replay matches what it writes.
        let written = uri.to_string();
        if written != exchange.url() {
            continue;
        }
        let request = http::Request::builder()
            .method(exchange.method().clone())
            .uri(uri)
            .body(RequestBody::full(exchange.request_body().clone()))
            .expect("a request of a parsed method and URI");
        let response = replay
            .send(request, SendOptions::new())
            .await
            .unwrap_or_else(|error| panic!("{exchange} not replayed: {error:#}"));
        let got = (
            response.status(),
            response.version(),
            response
                .headers()
                .iter()
                .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
                .collect::<Vec<_>>(),
        );
        assert_eq!(got, response_of(exchange), "{exchange}");
        let body = drain(response.into_body())
            .await
            .unwrap_or_else(|()| panic!("{exchange}: its body did not read back"));
        assert_eq!(body, exchange.response_body().as_ref(), "{exchange}");
    }
}

/// The first exchanges fetched through a `Client` over a recorder around a fresh replay;
/// what the recorder writes is checked against the file.
async fn replay_through_client(text: &str, exchanges: &[Exchange]) {
    let replay = ReplayTransport::from_json(text).expect("the file loaded once");
    let recorder = RecordingTransport::new(Arc::new(replay));
    recorder.keep_secrets();
    let client = Client::builder()
        .transport(Arc::new(recorder.clone()))
        .build()
        .expect("a client");
    for exchange in exchanges.iter().take(MAX_FETCHES) {
        let method = Method::from_bytes(exchange.method().as_str().as_bytes())
            .expect("a method the file loaded");
        let mut builder = client.request(method.clone(), exchange.url());
        if method != Method::GET && method != Method::HEAD && !exchange.request_body().is_empty() {
            builder = builder.body(exchange.request_body().clone());
        }
        if let Ok(mut response) = builder.send().await {
            if let Some(body) = response.take_body() {
                let _ = drain(body).await;
            }
        }
    }

    let written = recorder.to_json();
    let again = ReplayTransport::from_json(&written).unwrap_or_else(|error| {
        panic!("what the recorder wrote does not load: {error}\n{written}")
    });
    for recorded in again.exchanges() {
        let found = exchanges.iter().any(|exchange| {
            exchange.method() == recorded.method()
                && exchange.url() == recorded.url()
                && response_of(exchange) == response_of(&recorded)
                && exchange.response_body() == recorded.response_body()
        });
        assert!(found, "{recorded} is none of the file's\n{written}");
    }
}

/// The `recording_file` target: `data` is the recording's text.
pub fn recording_file(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let replay = match ReplayTransport::from_json(&text) {
        Ok(replay) => replay,
        Err(error) => {
            match &error {
                RecordingFileError::Json { line, column, .. } => {
                    assert!(*line >= 1 && *column >= 1, "{error:?}");
                }
                RecordingFileError::Invalid { field, message, .. } => {
                    assert!(!field.is_empty(), "no field named: {error}");
                    assert!(!message.is_empty(), "no message: {error}");
                }
                other => panic!("not a Json or Invalid error: {other:?}"),
            }
            assert!(!error.to_string().is_empty(), "{error:?}");
            return;
        }
    };
    let exchanges = replay.exchanges();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let replays = async {
            replay_alone(&replay, &exchanges).await;
            replay_through_client(&text, &exchanges).await;
        };
        if tokio::time::timeout(HANG, replays).await.is_err() {
            panic!("replaying the recording took more than 5 seconds");
        }
    });
}

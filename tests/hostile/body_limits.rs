//! Caps on the decoded bytes a response body may deliver.
//!
//! Servers that send without end (chunked, or delimited by the close), a small body that
//! decodes to a gigabyte, a `Content-Length` past the limit: the client's
//! `max_response_body_size` caps every way of reading, `max_buffered_body_size` (256 MiB
//! by default) caps reading a body whole, and `Response::set_max_body_size` replaces both
//! for one response. Memory is checked with a counting allocator that counts per thread
//! (each test runs on its own current-thread runtime), never with timing.

use crate::{bounded, next_request_works};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use whatwg_fetch::{AbortController, Client, Error, ErrorKind, NetworkError, RequestInit};

use crate::net_support::{Server, raw_server, read_head};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// The default of `max_buffered_body_size`.
const DEFAULT_BUFFERED: u64 = whatwg_fetch::client::DEFAULT_MAX_BUFFERED_BODY_SIZE;

// ---------------------------------------------------------------------------------------
// A counting allocator: the bytes allocated and not yet freed by the current thread, their
// peak since it was last reset, and all it ever allocated.
// ---------------------------------------------------------------------------------------

struct PerThreadCounting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
    static TOTAL: Cell<u64> = const { Cell::new(0) };
}

fn count(delta: i64) {
    if let Ok(grown) = u64::try_from(delta) {
        let _ = TOTAL.try_with(|total| total.set(total.get().saturating_add(grown)));
    }
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is passed on to the system allocator unchanged; only counted.
unsafe impl GlobalAlloc for PerThreadCounting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: as the caller promised for `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        // SAFETY: `ptr` came from `alloc` or `realloc` above with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64);
        // SAFETY: as the caller promised.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: PerThreadCounting = PerThreadCounting;

/// The peak of the bytes this thread had allocated while `future` ran, above what it
/// had when it started.
pub(crate) async fn peak_allocated<T>(future: impl Future<Output = T>) -> (T, u64) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let output = future.await;
    let peak = PEAK.with(Cell::get) - start;
    (output, u64::try_from(peak).unwrap_or(0))
}

/// The bytes this thread allocated while `future` ran, freed or not: the work of copies
/// that a peak does not see.
pub(crate) async fn allocated_during<T>(future: impl Future<Output = T>) -> (T, u64) {
    let start = TOTAL.with(Cell::get);
    let output = future.await;
    (output, TOTAL.with(Cell::get) - start)
}

// ---------------------------------------------------------------------------------------
// Servers and helpers
// ---------------------------------------------------------------------------------------

/// A zstd frame of `decoded` zero bytes (a multiple of 128 KiB) made of RLE blocks: four
/// bytes a block (RFC 8878 §3.1.1.2), so 1 GiB is 32 KiB on the wire.
fn zstd_bomb(decoded: u64) -> Vec<u8> {
    const BLOCK: u32 = 128 * 1024;
    // Magic number, then a frame header descriptor with no content size, no checksum
    // and no dictionary, and a window of 2^(10 + 7) = 128 KiB.
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3];
    let blocks = decoded / u64::from(BLOCK);
    for index in 0..blocks {
        let last = u32::from(index + 1 == blocks);
        // Last_Block, Block_Type 1 (RLE), Block_Size: the byte's repeat count.
        let header = last | (1 << 1) | (BLOCK << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(0);
    }
    frame
}

/// `data` compressed with Brotli at the fastest level.
async fn brotli(data: &[u8]) -> Vec<u8> {
    let mut encoder = async_compression::tokio::write::BrotliEncoder::with_quality(
        Vec::new(),
        async_compression::Level::Fastest,
    );
    encoder.write_all(data).await.unwrap();
    encoder.shutdown().await.unwrap();
    encoder.into_inner()
}

/// A test server and the bytes of body it has written.
struct LimitServer {
    server: Server,
    sent: Arc<AtomicU64>,
}

impl LimitServer {
    fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }
}

/// Writes `head` then `data` again and again (as chunks when `chunked`) until the client
/// goes away.
async fn write_forever(stream: &mut TcpStream, head: &str, chunked: bool, sent: &AtomicU64) {
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let data = vec![b'0'; 64 * 1024];
    let mut framed = Vec::new();
    if chunked {
        framed.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
        framed.extend_from_slice(&data);
        framed.extend_from_slice(b"\r\n");
    } else {
        framed.extend_from_slice(&data);
    }
    while stream.write_all(&framed).await.is_ok() {
        sent.fetch_add(data.len() as u64, Ordering::SeqCst);
    }
}

/// A server answering, request after request on a connection:
/// - `/ok`: "ok";
/// - `/chunked`, `/close`: an endless chunked, or close-delimited, body of `0` digits;
/// - `/json`: an endless chunked JSON array of zeros;
/// - `/length/<n>`, `/chunked/<n>`: `n` bytes with a `Content-Length`, or chunked;
/// - `/declared/<n>`: a `Content-Length` of `n`, then nothing (the connection is held);
/// - `/bomb/<n>`: `n` zero bytes as a zstd bomb;
/// - `/brotli`: the Brotli body given, `Content-Encoding: br`.
async fn limit_server(brotli_body: Vec<u8>) -> LimitServer {
    let sent = Arc::new(AtomicU64::new(0));
    let counter = sent.clone();
    let server = raw_server(move |mut stream| {
        let sent = counter.clone();
        let brotli_body = brotli_body.clone();
        async move {
            while let Some(head) = read_head(&mut stream).await {
                let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
                let mut parts = path.trim_start_matches('/').splitn(2, '/');
                let (kind, size) = (parts.next().unwrap_or(""), parts.next());
                let size: u64 = size.and_then(|size| size.parse().ok()).unwrap_or(0);
                let (headers, body): (String, Vec<u8>) = match kind {
                    "chunked" if size == 0 => {
                        let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
                        return write_forever(&mut stream, head, true, &sent).await;
                    }
                    "close" => {
                        let head = "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n";
                        return write_forever(&mut stream, head, false, &sent).await;
                    }
                    "json" => {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                                    transfer-encoding: chunked\r\n\r\n6\r\n[0,0,0\r\n";
                        return write_forever(&mut stream, head, true, &sent).await;
                    }
                    "declared" => {
                        let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {size}\r\n\r\n");
                        let _ = stream.write_all(head.as_bytes()).await;
                        // Holds the connection without sending a byte of body.
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        return;
                    }
                    "chunked" => {
                        let body = vec![b'x'; size as usize];
                        let mut chunked = Vec::new();
                        for chunk in body.chunks(16 * 1024) {
                            chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                            chunked.extend_from_slice(chunk);
                            chunked.extend_from_slice(b"\r\n");
                        }
                        chunked.extend_from_slice(b"0\r\n\r\n");
                        ("transfer-encoding: chunked\r\n".to_owned(), chunked)
                    }
                    "length" => (
                        format!("content-length: {size}\r\ncache-control: max-age=600\r\n"),
                        vec![b'x'; size as usize],
                    ),
                    "bomb" => {
                        let bomb = zstd_bomb(size);
                        (
                            format!(
                                "content-encoding: zstd\r\ncontent-length: {}\r\n",
                                bomb.len()
                            ),
                            bomb,
                        )
                    }
                    "brotli" => (
                        format!(
                            "content-encoding: br\r\ncontent-length: {}\r\n",
                            brotli_body.len()
                        ),
                        brotli_body.clone(),
                    ),
                    _ => ("content-length: 2\r\n".to_owned(), b"ok".to_vec()),
                };
                let mut response = format!("HTTP/1.1 200 OK\r\n{headers}\r\n").into_bytes();
                response.extend_from_slice(&body);
                if stream.write_all(&response).await.is_err() {
                    return;
                }
                sent.fetch_add(body.len() as u64, Ordering::SeqCst);
            }
        }
    })
    .await;
    LimitServer { server, sent }
}

/// The error is a `TypeError` caused by `BodyTooLarge` with `limit`.
fn assert_too_large(result: Result<impl std::fmt::Debug, Error>, limit: u64) {
    let error = result.expect_err("the body should be too large");
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    match error.network_error() {
        Some(NetworkError::BodyTooLarge { limit: got }) => assert_eq!(*got, limit),
        other => panic!("expected BodyTooLarge, got {other:?} in {error:?}"),
    }
}

async fn get(client: &Client, url: &str) -> whatwg_fetch::Response {
    client.fetch(url, RequestInit::default()).await.unwrap()
}

// ---------------------------------------------------------------------------------------
// Bombs
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_zstd_bomb_read_whole_stops_at_the_limit_with_bounded_memory() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder()
            .max_buffered_body_size(Some(8 * MIB))
            .build()
            .unwrap();
        // 32 KiB on the wire, 1 GiB decoded.
        let url = server.url(&format!("/bomb/{}", 1024 * MIB));
        let (result, peak) = peak_allocated(async {
            let mut response = get(&client, &url).await;
            response.bytes().await
        })
        .await;
        assert_too_large(result, 8 * MIB);
        // The buffer grows to the limit (doubling, so twice it at most while copying),
        // plus the decoder: nowhere near the gigabyte.
        assert!(peak < 48 * MIB, "peak allocation {} MiB", peak / MIB);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn a_brotli_bomb_read_whole_stops_at_the_limit_with_bounded_memory() {
    bounded(async {
        // 64 MiB of zeros in a few kilobytes of Brotli.
        let bomb = brotli(&vec![0; 64 * MIB as usize]).await;
        assert!(bomb.len() < 64 * KIB as usize, "{} bytes", bomb.len());
        let server = limit_server(bomb).await;
        for client in [
            Client::builder()
                .max_buffered_body_size(Some(4 * MIB))
                .build()
                .unwrap(),
            Client::builder()
                .max_response_body_size(Some(4 * MIB))
                .build()
                .unwrap(),
        ] {
            let (result, peak) = peak_allocated(async {
                let mut response = get(&client, &server.url("/brotli")).await;
                response.text().await
            })
            .await;
            assert_too_large(result, 4 * MIB);
            assert!(peak < 40 * MIB, "peak allocation {} MiB", peak / MIB);
            next_request_works(&client, &server.url("/ok")).await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_bomb_read_as_a_stream_delivers_at_most_the_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let limit = 3 * MIB + 100;
        let client = Client::builder()
            .max_response_body_size(Some(limit))
            .build()
            .unwrap();
        let mut response = get(&client, &server.url(&format!("/bomb/{}", 1024 * MIB))).await;
        let body = response.body().unwrap();
        let mut delivered = 0;
        let error = loop {
            match body.next().await {
                Some(Ok(chunk)) => delivered += chunk.len() as u64,
                Some(Err(error)) => break error,
                None => panic!("the bomb ended"),
            }
        };
        assert_too_large(Err::<(), _>(error), limit);
        // Chunks of decoded data are at most 16 KiB: all but the last that fit came.
        assert!(
            delivered <= limit && delivered > limit - 16 * KIB,
            "{delivered}"
        );
        // The body stays errored.
        assert_too_large(body.next().await.unwrap(), limit);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Endless bodies
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn endless_bodies_read_whole_stop_at_a_configured_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let limit = 2 * MIB;
        let client = Client::builder()
            .max_buffered_body_size(Some(limit))
            .build()
            .unwrap();
        for path in ["/chunked", "/close", "/json"] {
            let url = server.url(path);
            let (result, peak) = peak_allocated(async {
                let mut response = get(&client, &url).await;
                response.bytes().await
            })
            .await;
            assert_too_large(result, limit);
            assert!(peak < 16 * MIB, "{path}: peak {} MiB", peak / MIB);
            assert_too_large(get(&client, &url).await.text().await, limit);
            assert_too_large(
                get(&client, &url).await.json::<serde_json::Value>().await,
                limit,
            );
            assert_too_large(get(&client, &url).await.blob().await, limit);
        }
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn endless_bodies_read_whole_stop_at_the_default_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder().build().unwrap();
        let mut response = get(&client, &server.url("/chunked")).await;
        assert_too_large(response.bytes().await, DEFAULT_BUFFERED);
        let mut response = get(&client, &server.url("/close")).await;
        assert_too_large(response.text().await, DEFAULT_BUFFERED);
        // The client stopped reading: the server got no further than the limit and what
        // the sockets' buffers hold.
        assert!(
            server.sent() < 2 * DEFAULT_BUFFERED + 2 * 64 * MIB,
            "{} MiB sent",
            server.sent() / MIB
        );
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn an_endless_body_read_as_a_stream_is_not_held_to_the_buffered_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder()
            .max_buffered_body_size(Some(MIB))
            .build()
            .unwrap();
        let mut response = get(&client, &server.url("/chunked")).await;
        let body = response.body().unwrap();
        let mut delivered = 0;
        while delivered < 4 * MIB {
            delivered += body.next().await.unwrap().unwrap().len() as u64;
        }
        drop(response);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn a_stream_past_max_response_body_size_errors_after_at_most_the_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let limit = MIB + 1;
        let client = Client::builder()
            .max_response_body_size(Some(limit))
            .build()
            .unwrap();
        for path in ["/chunked", "/close"] {
            let mut response = get(&client, &server.url(path)).await;
            let body = response.body().unwrap();
            let mut delivered = 0;
            let error = loop {
                match body.next().await {
                    Some(Ok(chunk)) => delivered += chunk.len() as u64,
                    Some(Err(error)) => break error,
                    None => panic!("the endless body ended"),
                }
            };
            assert_too_large(Err::<(), _>(error), limit);
            assert!(delivered <= limit, "{path}: {delivered}");
        }
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Declared lengths, exact fits, overrides
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_content_length_past_the_limit_fails_before_reading() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        // The server sends a head and no body: a client that tried to read would wait.
        let client = Client::builder().build().unwrap();
        let mut response = get(&client, &server.url(&format!("/declared/{}", 1024 * MIB))).await;
        assert_too_large(response.bytes().await, DEFAULT_BUFFERED);
        let client = Client::builder()
            .max_response_body_size(Some(MIB))
            .build()
            .unwrap();
        let mut response = get(&client, &server.url(&format!("/declared/{}", 2 * MIB))).await;
        assert_too_large(response.body().unwrap().next().await.unwrap(), MIB);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn a_body_exactly_at_the_limit_is_read_whole() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let limit = MIB;
        let client = Client::builder()
            .max_response_body_size(Some(limit))
            .max_buffered_body_size(Some(limit))
            .build()
            .unwrap();
        for path in [format!("/length/{limit}"), format!("/chunked/{limit}")] {
            let mut response = get(&client, &server.url(&path)).await;
            assert_eq!(
                response.bytes().await.unwrap().len() as u64,
                limit,
                "{path}"
            );
            let mut response = get(&client, &server.url(&path)).await;
            let body = response.body().unwrap();
            let mut delivered = 0;
            while let Some(chunk) = body.next().await {
                delivered += chunk.unwrap().len() as u64;
            }
            assert_eq!(delivered, limit, "{path}");
            // One byte more is too many.
            let path = path.replace(&limit.to_string(), &(limit + 1).to_string());
            assert_too_large(get(&client, &server.url(&path)).await.bytes().await, limit);
        }
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn a_response_can_raise_lower_or_lift_its_limit_before_reading() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder()
            .max_response_body_size(Some(MIB))
            .max_buffered_body_size(Some(MIB))
            .build()
            .unwrap();
        let url = server.url(&format!("/length/{}", 2 * MIB));
        let mut response = get(&client, &url).await;
        response.set_max_body_size(Some(4 * MIB));
        assert_eq!(response.bytes().await.unwrap().len() as u64, 2 * MIB);
        let mut response = get(&client, &url).await;
        response.set_max_body_size(None);
        assert_eq!(response.text().await.unwrap().len() as u64, 2 * MIB);
        let mut response = get(&client, &server.url("/chunked")).await;
        response.set_max_body_size(Some(100 * KIB));
        assert_too_large(response.bytes().await, 100 * KIB);
        // On the default client, below the default.
        let client = Client::builder().build().unwrap();
        let mut response = get(&client, &url).await;
        response.set_max_body_size(Some(1000));
        assert_too_large(response.bytes().await, 1000);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn the_limit_holds_with_an_abort_signal_and_a_timeout() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder()
            .max_buffered_body_size(Some(MIB))
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let controller = AbortController::new();
        let init = RequestInit {
            signal: Some(controller.signal()),
            ..Default::default()
        };
        let mut response = client
            .fetch(server.url("/chunked").as_str(), init)
            .await
            .unwrap();
        assert_too_large(response.bytes().await, MIB);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn a_body_served_from_the_http_cache_is_held_to_the_limit() {
    bounded(async {
        let server = limit_server(Vec::new()).await;
        let client = Client::builder()
            .http_cache(true)
            .max_buffered_body_size(Some(MIB))
            .build()
            .unwrap();
        let url = server.url(&format!("/length/{}", 2 * MIB));
        // Streamed (not held to the buffered limit) to its end, it is stored.
        let mut response = get(&client, &url).await;
        let body = response.body().unwrap();
        while let Some(chunk) = body.next().await {
            chunk.unwrap();
        }
        let sent = server.sent();
        // The stored copy, read whole, is held to the limit too.
        let mut response = get(&client, &url).await;
        assert_too_large(response.bytes().await, MIB);
        assert_eq!(
            server.sent(),
            sent,
            "the second response came from the cache"
        );
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await;
}

#[tokio::test]
async fn bodies_not_from_the_network_are_not_limited() {
    bounded(async {
        let client = Client::builder()
            .max_response_body_size(Some(4))
            .max_buffered_body_size(Some(4))
            .build()
            .unwrap();
        let mut response = get(&client, "data:,more%20than%20four%20bytes").await;
        assert_eq!(response.text().await.unwrap(), "more than four bytes");
        let mut response =
            whatwg_fetch::Response::new(Some("more than four".into()), Default::default()).unwrap();
        assert_eq!(response.text().await.unwrap(), "more than four");
    })
    .await;
}

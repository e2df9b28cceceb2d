//! `http1_response`: the bytes a peer sends, through the real network layer (a TCP
//! connection on 127.0.0.1, the crate's HTTP/1.1 connection (`net/h1.rs`) under its pool, the
//! content decoders) and the fetch algorithm, up to the body a caller reads.
//!
//! One listener per process answers every connection with the current input, written
//! whole after the request head has been read, and then closes. Per input:
//!
//! 1. `GET` with the default `Accept-Encoding` (so the body is decoded) and redirects
//!    kept manual; the response is cloned (the body teed) and read with `bytes()` on one
//!    branch and as a stream on the other;
//! 2. `GET` with `Range: bytes=0-` (so `Accept-Encoding: identity`, still decoded),
//!    read with `text()`;
//! 3. `HEAD`, whose response has no body whatever the head says;
//! 4. `GET` with redirects followed, through a client whose every request goes to the
//!    listener as to a proxy, so that no `Location` reaches anywhere else (a `CONNECT`
//!    for an `https:` one gets the input as the proxy's answer);
//! 5. the transport alone ([`HyperTransport`]) with decoding off: the body as sent.
//!
//! A body with more than one content coding is only streamed, and only up to
//! [`MAX_DECODED`] bytes: two layers of gzip turn 64 KiB into gigabytes, which `bytes()`
//! would hold, as asked.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use whatwg_fetch::net::{HyperTransport, Proxy, RequestBody, SendOptions, Transport};
use whatwg_fetch::{Body, Client, HeadersInit, RequestInit, RequestRedirect, Response};

use crate::MAX_INPUT;

/// The most decoded bytes read from one body before it is dropped.
pub const MAX_DECODED: usize = 8 << 20;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// The process-wide runtime, listener and clients.
struct Peer {
    runtime: Runtime,
    /// What the listener writes on each connection: the current input.
    response: Arc<Mutex<Bytes>>,
    /// Resolves every name to the listener; redirects stay manual.
    client: Client,
    /// Every request through the listener as an HTTP proxy; redirects followed.
    proxied: Client,
    transport: HyperTransport,
    /// One input at a time (cargo test runs the replays on several threads).
    exclusive: Mutex<()>,
}

/// Locks `mutex`, poisoned or not: a panicking input must not stop the next.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        let (runtime, listener, addr) = crate::peer_listener();
        let response = Arc::new(Mutex::new(Bytes::new()));
        runtime.spawn(serve(listener, Arc::clone(&response)));
        let _entered = runtime.enter();
        let client = Client::builder()
            .resolve_with(move |_| Some(vec![addr]))
            .max_idle_per_origin(0)
            .connect_timeout(Duration::from_secs(2))
            .build()
            .expect("a client");
        let proxied = Client::builder()
            .proxy(Proxy::all(&format!("http://{addr}")).expect("a proxy URL"))
            .max_idle_per_origin(0)
            .connect_timeout(Duration::from_secs(2))
            .build()
            .expect("a proxied client");
        let transport = HyperTransport::builder()
            .resolve_with(move |_| Some(vec![addr]))
            .max_idle_per_origin(0)
            .connect_timeout(Some(Duration::from_secs(2)))
            .build()
            .expect("a transport");
        Peer {
            runtime,
            response,
            client,
            proxied,
            transport,
            exclusive: Mutex::new(()),
        }
    })
}

async fn serve(listener: TcpListener, response: Arc<Mutex<Bytes>>) {
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(answer(stream, Arc::clone(&response)));
        }
    }
}

/// Reads the request head (so that closing does not reset the connection under unread
/// bytes), writes the input and closes.
async fn answer(mut stream: TcpStream, response: Arc<Mutex<Bytes>>) {
    let mut head = Vec::new();
    let mut buf = [0; 4096];
    let reading = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(buf.get(..n).unwrap_or_default()),
            }
            // Not HTTP (a TLS client hello through a tunnel): answer at once.
            let http = head.first().is_some_and(u8::is_ascii_uppercase);
            if !http || head.windows(4).any(|w| w == b"\r\n\r\n") || head.len() > 65536 {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), reading).await;
    let bytes = lock(&response).clone();
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

/// The number of content codings the response's `Content-Encoding` names.
fn codings(response: &Response) -> usize {
    match response.headers().get("content-encoding") {
        Ok(Some(value)) => value.split(',').filter(|t| !t.trim().is_empty()).count(),
        _ => 0,
    }
}

/// Reads `body` as a stream, up to [`MAX_DECODED`] bytes.
async fn drain<S, E>(mut body: S) -> usize
where
    S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut read = 0usize;
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(chunk) => {
                read = read.saturating_add(chunk.len());
                if read > MAX_DECODED {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    read
}

/// Reads the body with `bytes()` (or `text()`) when it has at most one coding, else as
/// a bounded stream.
async fn read_whole(response: &mut Response, text: bool) {
    if codings(response) <= 1 {
        if text {
            let _ = response.text().await;
        } else {
            let _ = response.bytes().await;
        }
    } else if let Some(body) = response.take_body() {
        drain(body).await;
    }
}

/// Things every response must satisfy, whatever the peer sent.
fn check(response: &Response) {
    for (name, value) in response.headers() {
        assert!(
            whatwg_fetch::headers::is_header_name(name.as_bytes()),
            "a response header name that is not a header name: {name:?}"
        );
        let _ = value;
    }
    let _ = response.status_text();
    let _ = response.url();
}

fn init(redirect: RequestRedirect) -> RequestInit {
    RequestInit {
        redirect: Some(redirect),
        ..Default::default()
    }
}

async fn exchange(peer: &Peer) {
    // 1. Decoded, read both ways through a tee.
    if let Ok(mut response) = peer
        .client
        .fetch("http://fuzz.test/", init(RequestRedirect::Manual))
        .await
    {
        check(&response);
        match response.try_clone() {
            Ok(mut branch) => {
                let streamed = async {
                    if let Some(body) = branch.take_body() {
                        drain::<Body, _>(body).await;
                    }
                };
                tokio::join!(read_whole(&mut response, false), streamed);
            }
            Err(_) => read_whole(&mut response, false).await,
        }
    }

    // 2. A range request: `Accept-Encoding: identity`, read as text.
    let ranged = RequestInit {
        redirect: Some(RequestRedirect::Manual),
        headers: Some(HeadersInit::from(vec![("Range", "bytes=0-")])),
        ..Default::default()
    };
    if let Ok(mut response) = peer.client.fetch("http://fuzz.test/range", ranged).await {
        check(&response);
        read_whole(&mut response, true).await;
    }

    // 3. HEAD.
    let head = RequestInit {
        method: Some("HEAD".into()),
        redirect: Some(RequestRedirect::Manual),
        ..Default::default()
    };
    if let Ok(mut response) = peer.client.fetch("http://fuzz.test/head", head).await {
        check(&response);
        if let Some(body) = response.take_body() {
            assert_eq!(
                drain::<Body, _>(body).await,
                0,
                "a body in a response to HEAD"
            );
        }
    }

    // 4. Redirects followed, all through the listener.
    if let Ok(mut response) = peer
        .proxied
        .fetch("http://fuzz.test/follow", init(RequestRedirect::Follow))
        .await
    {
        check(&response);
        if let Some(body) = response.take_body() {
            drain::<Body, _>(body).await;
        }
    }

    // 5. The transport alone, without decoding.
    let request = http::Request::get("http://fuzz.test/raw")
        .body(RequestBody::empty())
        .expect("a request");
    if let Ok(response) = peer.transport.send(request, SendOptions::new()).await {
        let _ = whatwg_fetch::net::status_text(&response);
        drain(response.into_body()).await;
    }
}

/// The `http1_response` target: `data` is the whole of what the server sends on each
/// connection.
pub fn http1_response(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let peer = peer();
    let _exclusive = lock(&peer.exclusive);
    *lock(&peer.response) = Bytes::copy_from_slice(data);
    peer.runtime.block_on(async {
        if tokio::time::timeout(HANG, exchange(peer)).await.is_err() {
            panic!("one response took more than {HANG:?} to fetch and read");
        }
    });
}

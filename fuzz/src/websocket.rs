//! `websocket_frames`: the bytes a WebSocket server sends after its `101`, through a real
//! connection on 127.0.0.1 into the crate's frame and message layer (fragments, control
//! frames, the closing handshake, `permessage-deflate`, the limits).
//!
//! The input's first byte picks what the server's `101` accepts: bit 0
//! `permessage-deflate`, bit 1 with `server_no_context_takeover`, bit 2 with
//! `client_no_context_takeover`, bit 3 with `client_max_window_bits=9`. The rest is
//! written after the head, the server's side then shut down (so the stream always ends),
//! and the server reads until the client closes. The client
//! echoes each text and binary message it gets (so compression runs too) and reads until
//! the stream ends. Checked: the stream ends, within [`HANG`], after at most one error;
//! a text message is UTF-8 (by its type); no message passes `max_message_size`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tungstenite::handshake::derive_accept_key;
use whatwg_fetch::Client;
use whatwg_fetch::websocket::{Message, WebSocketLimits};

use crate::MAX_INPUT;
use crate::http1::lock;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// The limits the client runs under: small, so that inputs reach them.
const MAX_MESSAGE: usize = 256 * 1024;

struct Peer {
    runtime: Runtime,
    /// The `Sec-WebSocket-Extensions` value to accept, and the bytes after the head.
    input: Arc<Mutex<(Option<String>, Bytes)>>,
    url: String,
    client: Client,
    /// Server connections not yet ended.
    active: Arc<AtomicUsize>,
    exclusive: Mutex<()>,
}

fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        let (runtime, listener, addr) = crate::peer_listener();
        let input = Arc::new(Mutex::new((None, Bytes::new())));
        let active = Arc::new(AtomicUsize::new(0));
        runtime.spawn(serve(listener, Arc::clone(&input), Arc::clone(&active)));
        let _entered = runtime.enter();
        let client = Client::builder()
            .max_idle_per_origin(0)
            .connect_timeout(Duration::from_secs(2))
            .build()
            .expect("a client");
        Peer {
            runtime,
            input,
            url: format!("ws://{addr}/"),
            client,
            active,
            exclusive: Mutex::new(()),
        }
    })
}

async fn serve(
    listener: TcpListener,
    input: Arc<Mutex<(Option<String>, Bytes)>>,
    active: Arc<AtomicUsize>,
) {
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            let (input, active) = (Arc::clone(&input), Arc::clone(&active));
            active.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                answer(stream, input).await;
                active.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}

/// Answers the handshake `101` (with the input's extension), writes the input's bytes,
/// then reads until the client closes (so that closing does not reset the connection
/// under unread bytes).
async fn answer(mut stream: TcpStream, input: Arc<Mutex<(Option<String>, Bytes)>>) {
    let mut head = Vec::new();
    let mut buf = [0; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(buf.get(..n).unwrap_or_default()),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let Some(key) = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("sec-websocket-key")
            .then(|| value.trim().to_owned())
    }) else {
        return;
    };
    let (extension, bytes) = lock(&input).clone();
    let mut response = format!(
        "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\
         sec-websocket-accept: {}\r\n",
        derive_accept_key(key.as_bytes())
    );
    if let Some(extension) = extension {
        response.push_str(&format!("sec-websocket-extensions: {extension}\r\n"));
    }
    response.push_str("\r\n");
    if stream.write_all(response.as_bytes()).await.is_err()
        || stream.write_all(&bytes).await.is_err()
    {
        return;
    }
    let _ = stream.shutdown().await;
    let draining = async { while let Ok(1..) = stream.read(&mut buf).await {} };
    let _ = tokio::time::timeout(HANG, draining).await;
}

/// The extension the first byte accepts.
fn extension(flags: u8) -> Option<String> {
    if flags & 1 == 0 {
        return None;
    }
    let mut value = String::from("permessage-deflate");
    if flags & 2 != 0 {
        value.push_str("; server_no_context_takeover");
    }
    if flags & 4 != 0 {
        value.push_str("; client_no_context_takeover");
    }
    if flags & 8 != 0 {
        value.push_str("; client_max_window_bits=9");
    }
    Some(value)
}

pub fn websocket_frames(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let peer = peer();
    let _one = lock(&peer.exclusive);
    let (flags, rest) = data.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
    *lock(&peer.input) = (extension(flags), Bytes::copy_from_slice(rest));
    let limits = WebSocketLimits::default()
        .max_frame_size(64 * 1024)
        .max_message_size(MAX_MESSAGE)
        .max_fragments(64)
        .max_control_frames_per_second(50)
        .close_timeout(Duration::from_millis(200));
    let run = async {
        let mut socket = peer
            .client
            .websocket(&peer.url)
            .limits(limits)
            .connect()
            .await
            .expect("the handshake of a server that answers it right");
        let mut failed = false;
        while let Some(item) = socket.recv().await {
            assert!(!failed, "a message after the stream's error");
            match item {
                Ok(message @ (Message::Text(_) | Message::Binary(_))) => {
                    let len = message.clone().into_data().len();
                    assert!(
                        len <= MAX_MESSAGE,
                        "a message of {len} bytes passed the limit"
                    );
                    // The server may have closed: a failed echo is the connection's end.
                    let _ = socket.send(message).await;
                }
                Ok(_) => {}
                Err(error) => {
                    assert!(error.is_websocket(), "{error:#}");
                    failed = true;
                }
            }
        }
    };
    peer.runtime.block_on(async {
        tokio::time::timeout(HANG, run)
            .await
            .expect("the connection did not end: a hang");
        // The dropped socket's lingering close runs in a task of this runtime, which
        // only runs inside `block_on`: it ends once the server's side has, so that no
        // input's task is still pending when the next starts (or the process exits).
        let settled = async {
            while peer.active.load(Ordering::SeqCst) > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            for _ in 0..8 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(HANG, settled)
            .await
            .expect("the server's side of the connection did not end: a hang");
    });
}

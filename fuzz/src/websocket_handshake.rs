//! `websocket_handshake`: the WebSocket headers of a server's `101` (RFC 6455 §4.1, the
//! last set of steps), through a real handshake on 127.0.0.1: `Upgrade`, `Connection`,
//! `Sec-WebSocket-Accept`, `Sec-WebSocket-Protocol`, and the `Sec-WebSocket-Extensions`
//! whose `permessage-deflate` parameters (RFC 7692 §7.1) the crate parses itself; then
//! one message each way under what was negotiated.
//!
//! The input's first byte: bit 0 offers the subprotocols `chat` and `superchat.v2`, bit 1
//! turns the `permessage-deflate` offer off, bit 2 leaves out the `101`'s `Upgrade`,
//! `Connection` and `Sec-WebSocket-Accept` (which the input may then write itself). The
//! rest are header lines (one a line, `\n` ending each), written after those into the
//! `101`. The server echoes each frame it reads as it came (compressed or not: one
//! message on a fresh context inflates with any parameters), answers a Close with an
//! empty one, and reads until the client closes.
//!
//! Checked: the handshake ends within [`HANG`], in a socket or an error of kind
//! `WebSocket` or `TypeError`; an open socket's subprotocol is one offered (none when none
//! was), its extensions `""` or a `permessage-deflate` that was offered; a text message
//! comes back as it was sent, through the compression negotiated; the extensions as the
//! socket names them, answered back in a second handshake, are accepted as the same, and
//! a binary message goes through that connection too; the server's side of every
//! connection ends, so no input leaves a task behind.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tungstenite::handshake::derive_accept_key;
use whatwg_fetch::websocket::{CloseCode, Message};
use whatwg_fetch::{Client, ErrorKind};

use crate::MAX_INPUT;
use crate::http1::lock;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// The subprotocols offered when the input's bit 0 is set.
const PROTOCOLS: [&str; 2] = ["chat", "superchat.v2"];

/// What the server answers: whether to write the standard headers, and the header lines
/// after them.
#[derive(Clone, Default)]
struct Answer {
    standard: bool,
    lines: Bytes,
}

struct Peer {
    runtime: Runtime,
    answer: Arc<Mutex<Answer>>,
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
        let answer = Arc::new(Mutex::new(Answer::default()));
        let active = Arc::new(AtomicUsize::new(0));
        runtime.spawn(serve(listener, Arc::clone(&answer), Arc::clone(&active)));
        let _entered = runtime.enter();
        let client = Client::builder()
            .max_idle_per_origin(0)
            .connect_timeout(Duration::from_secs(2))
            .read_timeout(Some(Duration::from_secs(2)))
            .build()
            .expect("a client");
        Peer {
            runtime,
            answer,
            url: format!("ws://{addr}/"),
            client,
            active,
            exclusive: Mutex::new(()),
        }
    })
}

async fn serve(listener: TcpListener, answer: Arc<Mutex<Answer>>, active: Arc<AtomicUsize>) {
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            let answer = lock(&answer).clone();
            let active = Arc::clone(&active);
            active.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let _ = tokio::time::timeout(HANG, respond(stream, answer)).await;
                active.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}

/// Reads the handshake's head and answers `101` with `answer`; then echoes the first
/// frame it reads and reads until the client closes.
async fn respond(mut stream: TcpStream, answer: Answer) {
    let mut head = Vec::new();
    let mut buf = [0; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(buf.get(..n).unwrap_or_default()),
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let key = text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("sec-websocket-key")
            .then(|| value.trim().to_owned())
    });
    let mut response = b"HTTP/1.1 101 Switching Protocols\r\n".to_vec();
    if answer.standard {
        let accept = derive_accept_key(key.unwrap_or_default().as_bytes());
        response.extend_from_slice(
            format!(
                "upgrade: websocket\r\nconnection: upgrade\r\nsec-websocket-accept: {accept}\r\n"
            )
            .as_bytes(),
        );
    }
    for line in answer.lines.split(|&b| b == b'\n') {
        if !line.is_empty() {
            response.extend_from_slice(line);
            response.extend_from_slice(b"\r\n");
        }
    }
    response.extend_from_slice(b"\r\n");
    if stream.write_all(&response).await.is_err() {
        return;
    }
    let mut frames = Vec::new();
    loop {
        if let Some((frame, rest)) = client_frame(&frames) {
            // Echoed as it came, unmasked, with its RSV1 bit: one message back for each
            // the client sends.
            if stream.write_all(&frame).await.is_err() {
                return;
            }
            frames = rest;
            continue;
        }
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => frames.extend_from_slice(buf.get(..n).unwrap_or_default()),
        }
    }
}

/// The first whole client frame in `data`, unmasked, as a server would send it back (a
/// client's Close answered with an empty one); and the bytes after it.
fn client_frame(data: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let (&first, rest) = data.split_first()?;
    let (&second, rest) = rest.split_first()?;
    let (length, rest) = match second & 0x7f {
        126 => {
            let (bytes, rest) = rest.split_first_chunk::<2>()?;
            (u64::from(u16::from_be_bytes(*bytes)), rest)
        }
        127 => {
            let (bytes, rest) = rest.split_first_chunk::<8>()?;
            (u64::from_be_bytes(*bytes), rest)
        }
        short => (u64::from(short), rest),
    };
    let (mask, rest) = rest.split_first_chunk::<4>()?;
    let length = usize::try_from(length).ok()?;
    let payload = rest.get(..length)?;
    let after = rest.get(length..)?.to_vec();
    let unmasked: Vec<u8> = payload
        .iter()
        .zip(mask.iter().cycle())
        .map(|(byte, key)| byte ^ key)
        .collect();
    if first & 0x0f == 0x8 {
        return Some((vec![0x88, 0], after));
    }
    let mut frame = vec![first];
    match unmasked.len() {
        len @ 0..=125 => frame.push(u8::try_from(len).ok()?),
        len @ 126..=0xffff => {
            frame.push(126);
            frame.extend_from_slice(&u16::try_from(len).ok()?.to_be_bytes());
        }
        len => {
            frame.push(127);
            frame.extend_from_slice(&u64::try_from(len).ok()?.to_be_bytes());
        }
    }
    frame.extend_from_slice(&unmasked);
    Some((frame, after))
}

pub fn websocket_handshake(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let peer = peer();
    let _one = lock(&peer.exclusive);
    let (flags, rest) = data.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
    let protocols: &[&str] = if flags & 1 != 0 { &PROTOCOLS } else { &[] };
    let deflate = flags & 2 == 0;
    *lock(&peer.answer) = Answer {
        standard: flags & 4 == 0,
        lines: Bytes::copy_from_slice(rest),
    };
    let connect = || {
        peer.client
            .websocket(&peer.url)
            .protocols(protocols.iter().copied())
            .permessage_deflate(deflate)
            .connect()
    };
    let run = async {
        let mut socket = match connect().await {
            Ok(socket) => socket,
            Err(error) => {
                assert!(
                    matches!(error.kind(), ErrorKind::WebSocket | ErrorKind::TypeError),
                    "{error:#}"
                );
                return;
            }
        };
        let protocol = socket.protocol().to_owned();
        assert!(
            protocol.is_empty() && protocols.is_empty() || protocols.contains(&&*protocol),
            "the subprotocol {protocol:?} was not offered ({protocols:?})"
        );
        let extensions = socket.extensions().to_owned();
        assert!(
            extensions.is_empty() || deflate && extensions.starts_with("permessage-deflate"),
            "the extensions {extensions:?} were not offered (deflate: {deflate})"
        );
        let text = Message::text("hello hello hello hello hello");
        echo(&mut socket, text, &extensions).await;
        let _ = socket.close(CloseCode::NORMAL, "").await;
        // The extensions as the socket names them, answered back, are accepted as the same.
        if !extensions.is_empty() {
            let mut lines = format!("sec-websocket-extensions: {extensions}");
            if !protocol.is_empty() {
                lines.push_str(&format!("\nsec-websocket-protocol: {protocol}"));
            }
            *lock(&peer.answer) = Answer {
                standard: true,
                lines: Bytes::from(lines),
            };
            let mut again = connect()
                .await
                .expect("the extensions the socket named, accepted");
            assert_eq!(again.extensions(), extensions);
            let binary = Message::binary((0..1000u32).map(|i| (i % 7) as u8).collect::<Vec<_>>());
            echo(&mut again, binary, &extensions).await;
        }
    };
    peer.runtime.block_on(async {
        tokio::time::timeout(HANG, run)
            .await
            .expect("the handshake and the echo did not end: a hang");
        // A dropped socket's lingering close runs in a task of this runtime, which only
        // runs inside `block_on`: it ends once the server's side has, so that no input's
        // task is still pending when the next starts (or the process exits).
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

/// `message` sent on `socket` and read back from the echoing server, the same.
async fn echo(socket: &mut whatwg_fetch::WebSocket, message: Message, extensions: &str) {
    socket.send(message.clone()).await.expect("a send");
    let echoed = socket.recv().await.expect("an echo").expect("an echo");
    assert_eq!(echoed, message, "under {extensions:?}");
}

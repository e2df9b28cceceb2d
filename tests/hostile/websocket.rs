//! Hostile WebSocket servers: a frame header announcing terabytes, a ping announcing
//! megabytes, a message of endless fragments, a million one-byte fragments, a ping flood,
//! a small compressed message that inflates to 64 MiB, a server that never answers our
//! Close, and the protocol errors a server can make. Each limit of `WebSocketLimits`
//! fails the connection with the error that names it, sends the Close code RFC 6455 gives
//! it, and holds the memory it promises (counted by the per-thread allocator of
//! `body_limits`).
//!
//! Then servers that stop reading, so that what the client writes waits: `close()`,
//! `Sink::close`, the answer to the server's Close, the Close failing a flooded
//! connection and a plain send each end within their timeout; pings under the flood limit
//! queue one pong, not one each; a slow server that keeps reading is never cut off; and
//! `close()` after the server dropped the connection reports 1006.

use crate::body_limits::peak_allocated;
use crate::bounded;
use crate::net_support::{Server, raw_server};
use crate::websocket_support::*;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use whatwg_fetch::Client;
use whatwg_fetch::websocket::{
    CloseCode, CloseFrame, Message, WebSocket, WebSocketError, WebSocketLimits,
};

const MIB: u64 = 1024 * 1024;

/// The Close codes the client sent.
type Closes = Arc<Mutex<Vec<u16>>>;

/// A server that accepts the handshake (with `extra` headers), sends `start`, then
/// `repeat` again and again until `max` bytes or the client goes away, while recording
/// the client's Close codes.
async fn hostile(
    extra: &'static str,
    start: Vec<u8>,
    repeat: Vec<u8>,
    max: u64,
) -> (Server, Closes) {
    let closes = Closes::default();
    let recorded = closes.clone();
    let (start, repeat) = (Arc::new(start), Arc::new(repeat));
    let server = raw_server(move |mut stream: TcpStream| {
        let (closes, start, repeat) = (recorded.clone(), start.clone(), repeat.clone());
        async move {
            if accept(&mut stream, extra).await.is_none() {
                return;
            }
            let (mut read, mut write) = stream.into_split();
            tokio::spawn(async move {
                let mut reader = FrameReader::new();
                while let Some(frame) = reader.next(&mut read).await {
                    if let Some(code) = frame.close_code() {
                        closes.lock().unwrap().push(code);
                    }
                }
            });
            if write.write_all(&start).await.is_err() {
                return;
            }
            let mut sent = 0u64;
            while sent < max && !repeat.is_empty() {
                if write.write_all(&repeat).await.is_err() {
                    return;
                }
                sent += repeat.len() as u64;
            }
            // Held open until the client goes: the client ends it, never the server.
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    })
    .await;
    (server, closes)
}

async fn connect(server: &Server, limits: WebSocketLimits) -> WebSocket {
    Client::new()
        .websocket(&format!("ws://{}/", server.addr))
        .limits(limits)
        .connect()
        .await
        .unwrap()
}

/// The socket's first item, an error, its `WebSocketError` handed to `check`; then the
/// stream has ended. Gives the peak memory held meanwhile.
async fn fails(mut socket: WebSocket, check: impl FnOnce(&WebSocketError)) -> u64 {
    let (item, peak) = peak_allocated(socket.recv()).await;
    let error = item.unwrap().unwrap_err();
    assert!(error.is_websocket(), "{error:#}");
    check(WebSocketError::of(&error).unwrap());
    assert!(socket.recv().await.is_none(), "nothing after the failure");
    peak
}

/// The socket, limited to 1 MiB messages, fails with `MessageTooLarge` holding less than
/// 4 MiB, and says 1009 (message too big) to the server.
async fn fails_at_a_mebibyte(socket: WebSocket, closes: &Closes) {
    let peak = fails(socket, |error| {
        assert!(
            matches!(error, WebSocketError::MessageTooLarge { limit } if *limit == 1 << 20),
            "{error}"
        );
    })
    .await;
    assert!(peak < 4 * MIB, "held {peak} bytes for a 1 MiB limit");
    assert_eq!(close_sent(closes).await, 1009);
}

/// The Close code the client sent, once the server has read it.
async fn close_sent(closes: &Closes) -> u16 {
    for _ in 0..500 {
        if let Some(code) = closes.lock().unwrap().first() {
            return *code;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the client sent no Close");
}

/// A frame header announcing `length` bytes of binary payload.
fn header_only(length: u64) -> Vec<u8> {
    let mut header = vec![0x82, 127];
    header.extend_from_slice(&length.to_be_bytes());
    header
}

#[tokio::test]
async fn a_frame_announcing_a_terabyte_fails_before_any_of_it_is_held() {
    bounded(async {
        let (server, closes) =
            hostile("", header_only(1 << 40), vec![0; 64 * 1024], 64 * MIB).await;
        let socket = connect(&server, WebSocketLimits::default().max_frame_size(1 << 20)).await;
        let peak = fails(socket, |error| {
            assert!(
                matches!(error, WebSocketError::FrameTooLarge { limit } if *limit == 1 << 20),
                "{error}"
            );
        })
        .await;
        assert!(peak < MIB, "held {peak} bytes");
        assert_eq!(close_sent(&closes).await, 1009);
    })
    .await;
}

#[tokio::test]
async fn a_ping_announcing_megabytes_fails_before_its_payload_is_held() {
    bounded(async {
        // A final ping of 16 MiB less a byte (under `max_frame_size`), its payload sent.
        let mut ping = vec![0x89, 127];
        ping.extend_from_slice(&((16 * MIB) - 1).to_be_bytes());
        let (server, closes) = hostile("", ping, vec![0; 64 * 1024], 16 * MIB).await;
        let socket = connect(&server, WebSocketLimits::default()).await;
        let peak = fails(socket, |error| {
            assert!(
                matches!(error, WebSocketError::Protocol(why) if why.contains("control frame")),
                "{error}"
            );
        })
        .await;
        assert!(peak < MIB, "held {peak} bytes");
        assert_eq!(close_sent(&closes).await, 1002);
    })
    .await;
}

#[tokio::test]
async fn a_message_of_endless_fragments_fails_at_max_message_size() {
    bounded(async {
        let first = frame(false, false, BINARY, &[1; 64 * 1024]);
        let more = frame(false, false, CONTINUATION, &[2; 64 * 1024]);
        let (server, closes) = hostile("", first, more, 1024 * MIB).await;
        let socket = connect(
            &server,
            WebSocketLimits::default().max_message_size(1 << 20),
        )
        .await;
        fails_at_a_mebibyte(socket, &closes).await;
    })
    .await;
}

#[tokio::test]
async fn a_million_one_byte_fragments_fail_at_max_fragments() {
    bounded(async {
        let first = frame(false, false, TEXT, b"a");
        let more = frame(false, false, CONTINUATION, b"a").repeat(1024);
        let (server, closes) = hostile("", first, more, 64 * MIB).await;
        let socket = connect(&server, WebSocketLimits::default().max_fragments(1000)).await;
        let peak = fails(socket, |error| {
            assert!(
                matches!(error, WebSocketError::TooManyFragments { limit: 1000 }),
                "{error}"
            );
        })
        .await;
        assert!(peak < MIB, "held {peak} bytes");
        assert_eq!(close_sent(&closes).await, 1009);
    })
    .await;
}

#[tokio::test]
async fn a_ping_flood_fails_with_1008_holding_one_pong() {
    bounded(async {
        let ping = frame(true, false, PING, &[b'p'; 125]).repeat(512);
        let (server, closes) = hostile("", Vec::new(), ping, 256 * MIB).await;
        let mut socket = connect(
            &server,
            WebSocketLimits::default().max_control_frames_per_second(100),
        )
        .await;
        // The first hundred pings are yielded (and only the latest answered).
        for _ in 0..100 {
            assert!(matches!(socket.recv().await, Some(Ok(Message::Ping(_)))));
        }
        let peak = fails(socket, |error| {
            assert!(
                matches!(error, WebSocketError::ControlFlood { limit: 100 }),
                "{error}"
            );
        })
        .await;
        assert!(peak < MIB, "held {peak} bytes");
        assert_eq!(close_sent(&closes).await, 1008);
    })
    .await;
}

#[tokio::test]
async fn a_compressed_message_that_inflates_past_the_limit_is_a_bomb_defused() {
    bounded(async {
        // 64 MiB of zeros in one message: about 64 KiB on the wire.
        let bomb = deflate(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 128 * 1024, "{}", bomb.len());
        let start = frame(true, true, BINARY, &bomb);
        drop(bomb);
        let (server, closes) = hostile(
            "sec-websocket-extensions: permessage-deflate\r\n",
            start,
            Vec::new(),
            0,
        )
        .await;
        let socket = connect(
            &server,
            WebSocketLimits::default().max_message_size(1 << 20),
        )
        .await;
        assert_eq!(socket.extensions(), "permessage-deflate");
        fails_at_a_mebibyte(socket, &closes).await;
    })
    .await;
}

#[tokio::test]
async fn a_server_that_never_answers_the_close_is_left_after_close_timeout() {
    bounded(async {
        let (server, closes) = hostile("", Vec::new(), Vec::new(), 0).await;
        let socket = connect(
            &server,
            WebSocketLimits::default().close_timeout(Duration::from_millis(200)),
        )
        .await;
        let error = socket.close(CloseCode::NORMAL, "bye").await.unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::CloseTimeout(timeout)) if *timeout == Duration::from_millis(200)
            ),
            "{error:#}"
        );
        assert_eq!(close_sent(&closes).await, 1000);
    })
    .await;
}

/// A server whose first frame is `start`: the client fails with a `WebSocketError`
/// that `check` accepts, and sends `code`.
async fn protocol_error(start: Vec<u8>, code: u16, check: impl FnOnce(&WebSocketError)) {
    let (server, closes) = hostile("", start, Vec::new(), 0).await;
    let socket = connect(&server, WebSocketLimits::default()).await;
    fails(socket, check).await;
    assert_eq!(close_sent(&closes).await, code);
}

#[tokio::test]
async fn protocol_errors_fail_the_connection_with_their_codes() {
    bounded(async {
        protocol_error(frame(true, false, TEXT, b"\xff\xfe"), 1007, |error| {
            assert!(matches!(error, WebSocketError::InvalidUtf8), "{error}");
        })
        .await;
        // A masked frame from a server.
        let mut masked = frame(true, false, TEXT, b"");
        masked[1] |= 0x80;
        masked.extend_from_slice(&[1, 2, 3, 4]);
        protocol_error(masked, 1002, |error| {
            assert!(error.to_string().contains("masked"), "{error}");
        })
        .await;
        protocol_error(frame(true, true, TEXT, b"x"), 1002, |error| {
            assert!(error.to_string().contains("RSV1"), "{error}");
        })
        .await;
        protocol_error(frame(true, false, CONTINUATION, b"x"), 1002, |error| {
            assert!(error.to_string().contains("continuation"), "{error}");
        })
        .await;
        protocol_error(frame(false, false, PING, b""), 1002, |error| {
            assert!(error.to_string().contains("control frame"), "{error}");
        })
        .await;
        protocol_error(
            frame(true, false, CLOSE, &close_payload(1005, "")),
            1002,
            |error| {
                assert!(error.to_string().contains("1005"), "{error}");
            },
        )
        .await;
        let mut interleaved = frame(false, false, TEXT, b"a");
        interleaved.extend(frame(true, false, BINARY, b"b"));
        protocol_error(interleaved, 1002, |error| {
            assert!(error.to_string().contains("began before"), "{error}");
        })
        .await;
    })
    .await;
}

#[tokio::test]
async fn a_connection_that_ends_without_a_close_is_abnormal() {
    bounded(async {
        let server = raw_server(|mut stream: TcpStream| async move {
            if accept(&mut stream, "").await.is_some() {
                let _ = stream.write_all(&frame(true, false, TEXT, b"last")).await;
            }
        })
        .await;
        let mut socket = connect(&server, WebSocketLimits::default()).await;
        assert_eq!(socket.recv().await.unwrap().unwrap(), Message::text("last"));
        let error = socket.recv().await.unwrap().unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::ClosedAbnormally)
            ),
            "{error:#}"
        );
        assert!(socket.recv().await.is_none());
    })
    .await;
}

// A server that stops reading: whatever the client has to write waits in its buffers, and
// each wait is bounded by a limit of the client's, never by the server.

/// What the client queues before the server's misbehaviour: more than the socket buffers
/// of both ends hold (4 MiB of send buffer, and a receive buffer that only grows while its
/// reader reads), so that the rest waits in the client.
const QUEUED: usize = 16 << 20;

/// A server that accepts the handshake and writes `frames`, then reads nothing until
/// `read` is notified; from then on it reads the client's frames and records their Close
/// codes. It never closes the connection: the client ends it.
async fn not_reading(frames: Vec<u8>, read: Arc<tokio::sync::Notify>) -> (Server, Closes) {
    let closes = Closes::default();
    let recorded = closes.clone();
    let frames = Arc::new(frames);
    let server = raw_server(move |mut stream: TcpStream| {
        let (closes, frames, read) = (recorded.clone(), frames.clone(), read.clone());
        async move {
            if accept(&mut stream, "").await.is_none() || stream.write_all(&frames).await.is_err() {
                return;
            }
            read.notified().await;
            let mut reader = FrameReader::new();
            while let Some(frame) = reader.next(&mut stream).await {
                if let Some(code) = frame.close_code() {
                    closes.lock().unwrap().push(code);
                }
            }
        }
    })
    .await;
    (server, closes)
}

/// `bytes` of binary message queued on `socket` and not flushed (`Sink::feed`): a recv
/// writes what the connection takes, the rest stays queued.
async fn queue(socket: &mut WebSocket, bytes: usize) {
    use futures_util::SinkExt;
    socket
        .feed(Message::binary(vec![7u8; bytes]))
        .await
        .unwrap();
    assert!(socket.buffered_amount() >= bytes, "queued, not yet written");
}

/// `future`, which must end within five seconds (a close timeout of 200 ms and the
/// slowest machine's scheduling); gives what it gave and how long it took.
async fn within_seconds<T>(what: &str, future: impl Future<Output = T>) -> (T, Duration) {
    let started = std::time::Instant::now();
    match tokio::time::timeout(Duration::from_secs(5), future).await {
        Ok(output) => (output, started.elapsed()),
        Err(_) => panic!("{what} did not return within 5 s"),
    }
}

const CLOSE_TIMEOUT: Duration = Duration::from_millis(200);

#[tokio::test]
async fn close_returns_within_the_close_timeout_when_the_server_stops_reading() {
    bounded(async {
        let (server, _closes) = not_reading(Vec::new(), Default::default()).await;
        let limits = WebSocketLimits::default().close_timeout(CLOSE_TIMEOUT);
        let mut socket = connect(&server, limits).await;
        queue(&mut socket, QUEUED).await;
        let (closed, took) =
            within_seconds("close()", socket.close(CloseCode::NORMAL, "bye")).await;
        let error = closed.unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::CloseTimeout(timeout)) if *timeout == CLOSE_TIMEOUT
            ),
            "{error:#}"
        );
        assert!(took >= CLOSE_TIMEOUT, "{took:?}");
    })
    .await;
}

#[tokio::test]
async fn sink_close_returns_within_the_close_timeout_when_the_server_stops_reading() {
    use futures_util::SinkExt;
    bounded(async {
        let (server, _closes) = not_reading(Vec::new(), Default::default()).await;
        let limits = WebSocketLimits::default().close_timeout(CLOSE_TIMEOUT);
        let mut socket = connect(&server, limits).await;
        queue(&mut socket, QUEUED).await;
        let (closed, _) = within_seconds("Sink::close", SinkExt::close(&mut socket)).await;
        let error = closed.unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::CloseTimeout(_))
            ),
            "{error:#}"
        );
        // The connection is given up: the stream says why once, then ends.
        let (item, _) = within_seconds("recv()", socket.recv()).await;
        assert!(
            matches!(item, Some(Err(ref error)) if matches!(
                WebSocketError::of(error),
                Some(WebSocketError::CloseTimeout(_))
            )),
            "{item:?}"
        );
        assert!(socket.recv().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn the_servers_close_is_reported_within_the_close_timeout_when_it_stops_reading() {
    bounded(async {
        let close = frame(true, false, CLOSE, &close_payload(1001, "restart"));
        let (server, _closes) = not_reading(close, Default::default()).await;
        let limits = WebSocketLimits::default().close_timeout(CLOSE_TIMEOUT);
        let mut socket = connect(&server, limits).await;
        queue(&mut socket, QUEUED).await;
        // The answering Close waits behind what is queued, for the close timeout at most;
        // then the connection is dropped and the server's Close delivered.
        let (item, took) = within_seconds("recv()", socket.recv()).await;
        assert_eq!(
            item.unwrap().unwrap(),
            Message::Close(Some(CloseFrame {
                code: CloseCode::GOING_AWAY,
                reason: "restart".into()
            }))
        );
        assert!(took >= CLOSE_TIMEOUT, "{took:?}");
        assert!(socket.recv().await.is_none());
        // The close happened: close() reports the server's frame.
        let answer = socket.close(CloseCode::NORMAL, "").await.unwrap();
        assert_eq!(answer.map(|frame| frame.code), Some(CloseCode::GOING_AWAY));
    })
    .await;
}

#[tokio::test]
async fn pings_under_the_flood_limit_to_a_client_that_cannot_write_hold_one_pong() {
    bounded(async {
        // 20,000 pings of 125 bytes at once, under a limit of 100,000 a second: what a
        // server sending 900 a second for 22 seconds sends, without reading.
        const PINGS: usize = 20_000;
        let pings = frame(true, false, PING, &[b'p'; 125]).repeat(PINGS);
        let (server, _closes) = not_reading(pings, Default::default()).await;
        let limits = WebSocketLimits::default().max_control_frames_per_second(100_000);
        let mut socket = connect(&server, limits).await;
        queue(&mut socket, QUEUED).await;
        assert!(matches!(socket.recv().await, Some(Ok(Message::Ping(_)))));
        let before = socket.buffered_amount();
        let (_, peak) = peak_allocated(async {
            for _ in 1..PINGS {
                assert!(matches!(socket.recv().await, Some(Ok(Message::Ping(_)))));
            }
        })
        .await;
        let grown = socket.buffered_amount().saturating_sub(before);
        // One pong is 131 bytes; one per ping would be 2.6 MB.
        assert!(grown <= 131, "{grown} bytes queued for {PINGS} pings");
        assert!(peak < MIB, "held {peak} bytes for {PINGS} pings");
    })
    .await;
}

#[tokio::test]
async fn a_flood_close_reaches_a_server_that_reads_late_before_the_error_is_given() {
    bounded(async {
        // 200 pings where 100 a second are allowed; the server reads once the client has
        // taken the first hundred.
        let pings = frame(true, false, PING, b"p").repeat(200);
        let read = Arc::new(tokio::sync::Notify::new());
        let (server, closes) = not_reading(pings, read.clone()).await;
        let limits = WebSocketLimits::default()
            .max_control_frames_per_second(100)
            .close_timeout(Duration::from_secs(4));
        let mut socket = connect(&server, limits).await;
        queue(&mut socket, 2 * QUEUED).await;
        for _ in 0..100 {
            assert!(matches!(socket.recv().await, Some(Ok(Message::Ping(_)))));
        }
        read.notify_one();
        let (item, _) = within_seconds("recv()", socket.recv()).await;
        let error = item.unwrap().unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::ControlFlood { limit: 100 })
            ),
            "{error:#}"
        );
        // The socket is still held: the Close went out before the error came.
        let (code, _) = within_seconds("the 1008 Close", close_sent(&closes)).await;
        assert_eq!(code, 1008);
        drop(socket);
    })
    .await;
}

#[tokio::test]
async fn close_after_the_server_dropped_the_connection_reports_1006() {
    bounded(async {
        let abnormal = Some(CloseFrame {
            code: CloseCode::ABNORMAL,
            reason: String::new(),
        });
        let server = raw_server(|mut stream: TcpStream| async move {
            let _ = accept(&mut stream, "").await;
        })
        .await;
        // close() first: its Close meets a connection the server has ended.
        let socket = connect(&server, WebSocketLimits::default()).await;
        let answer = socket.close(CloseCode::NORMAL, "bye").await;
        assert_eq!(answer.unwrap(), abnormal);
        // The end read first, then close().
        let mut socket = connect(&server, WebSocketLimits::default()).await;
        let error = socket.recv().await.unwrap().unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::ClosedAbnormally)
            ),
            "{error:#}"
        );
        assert_eq!(
            socket.close(CloseCode::NORMAL, "bye").await.unwrap(),
            abnormal
        );
        // A close() that could not be sent as it is still says so.
        let socket = connect(&server, WebSocketLimits::default()).await;
        let error = socket.close(CloseCode(1005), "").await.unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::InvalidMessage(_))
            ),
            "{error:#}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_send_to_a_server_that_stops_reading_fails_after_the_send_timeout() {
    bounded(async {
        const SEND_TIMEOUT: Duration = Duration::from_millis(200);
        let (server, _closes) = not_reading(Vec::new(), Default::default()).await;
        let limits = WebSocketLimits::default().send_timeout(SEND_TIMEOUT);
        let mut socket = connect(&server, limits).await;
        let (sent, took) = within_seconds("send()", socket.send(vec![7u8; QUEUED])).await;
        let error = sent.unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::SendTimeout(timeout)) if *timeout == SEND_TIMEOUT
            ),
            "{error:#}"
        );
        assert!(took >= SEND_TIMEOUT, "{took:?}");
        // The connection is dropped, and nothing of it held: the stream says why, then
        // ends; close() reports the abnormal end.
        assert_eq!(socket.buffered_amount(), 0);
        let error = socket.recv().await.unwrap().unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::SendTimeout(_))
            ),
            "{error:#}"
        );
        assert!(socket.recv().await.is_none());
        let answer = socket.close(CloseCode::NORMAL, "").await.unwrap();
        assert_eq!(answer.map(|frame| frame.code), Some(CloseCode::ABNORMAL));
    })
    .await;
}

#[tokio::test]
async fn a_slow_server_that_keeps_reading_is_never_timed_out() {
    bounded(async {
        // The server takes 256 KiB every 25 ms: sending 16 MiB waits far longer than the
        // send timeout in all, and never that long without progress (the socket is
        // writable again once about half its send buffer has drained: 2 MiB, 200 ms).
        let server = raw_server(|mut stream: TcpStream| async move {
            use tokio::io::AsyncReadExt;
            if accept(&mut stream, "").await.is_none() {
                return;
            }
            let mut chunk = vec![0u8; 256 * 1024];
            let mut pace = tokio::time::interval(Duration::from_millis(25));
            loop {
                pace.tick().await;
                if matches!(stream.read(&mut chunk).await, Ok(0) | Err(_)) {
                    return;
                }
            }
        })
        .await;
        let send_timeout = Duration::from_millis(600);
        let limits = WebSocketLimits::default().send_timeout(send_timeout);
        let mut socket = connect(&server, limits).await;
        let (sent, took) = within_seconds("send()", socket.send(vec![7u8; 16 << 20])).await;
        sent.unwrap();
        assert!(took > send_timeout, "{took:?}");
    })
    .await;
}

#[tokio::test]
async fn a_split_sockets_reader_ends_at_the_close_timeout_after_the_writer_closes() {
    use futures_util::{SinkExt, StreamExt};
    bounded(async {
        // The server reads our Close and never answers it.
        let (server, closes) = hostile("", Vec::new(), Vec::new(), 0).await;
        let limits = WebSocketLimits::default().close_timeout(CLOSE_TIMEOUT);
        let (mut writer, mut reader) = connect(&server, limits).await.split();
        let reading = tokio::spawn(async move {
            let started = std::time::Instant::now();
            let item = reader.next().await;
            (item, started.elapsed(), reader)
        });
        // The reader waits first; then the writer's close, whose timer is the writer's.
        tokio::task::yield_now().await;
        writer.close().await.unwrap();
        assert_eq!(close_sent(&closes).await, 1000);
        let (joined, _) = within_seconds("the reader", reading).await;
        let (item, took, mut reader) = joined.unwrap();
        let error = item.unwrap().unwrap_err();
        assert!(
            matches!(
                WebSocketError::of(&error),
                Some(WebSocketError::CloseTimeout(_))
            ),
            "{error:#}"
        );
        assert!(took >= CLOSE_TIMEOUT, "{took:?}");
        assert!(reader.next().await.is_none());
    })
    .await;
}

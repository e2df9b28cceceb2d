//! WebSocket: the opening handshake through the client's fetch (subprotocols, cookies,
//! `Origin`, a caller's headers, TLS, no redirects), messages both ways against
//! tokio-tungstenite's server, `permessage-deflate` against a server written frame by
//! frame, and the closing handshake from either side.

mod net_support;
mod websocket_support;

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use net_support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::CloseFrame as TungsteniteClose;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode as TungsteniteCode;
use websocket_support::*;
use whatwg_fetch::websocket::{CloseCode, CloseFrame, Message, WebSocketError};
use whatwg_fetch::{Client, ErrorKind, NetworkError, RequestInit, WebSocket};

/// A handshake's request headers, as (name, value).
type Head = Vec<(String, String)>;

/// A Close's code and reason, `None` for an empty Close.
type Close = Option<(u16, String)>;

/// What an echo server saw: each handshake's request headers, and each Close it got.
#[derive(Clone, Default)]
struct Seen {
    heads: Arc<Mutex<Vec<Head>>>,
    closes: Arc<Mutex<Vec<Close>>>,
}

impl Seen {
    fn last_head(&self) -> Vec<(String, String)> {
        self.heads
            .lock()
            .unwrap()
            .last()
            .cloned()
            .unwrap_or_default()
    }

    fn header(&self, name: &str) -> Option<String> {
        self.last_head()
            .into_iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }
}

/// A tokio-tungstenite server on 127.0.0.1 that echoes text and binary messages, picks
/// `chat.v2` when it is offered, answers `close-me` with its own Close (1001,
/// `restart`) and `ping-me` with a Ping, and records what it saw. Plain HTTP requests
/// to `/set-cookie` get a cookie.
async fn echo_server() -> (Server, Seen) {
    let seen = Seen::default();
    let server_seen = seen.clone();
    let server = raw_server(move |stream: TcpStream| {
        let seen = server_seen.clone();
        async move {
            let mut peek = [0u8; 64];
            let Ok(n) = stream.peek(&mut peek).await else {
                return;
            };
            if peek[..n].starts_with(b"GET /set-cookie") {
                let mut stream = stream;
                let _ = read_head(&mut stream).await;
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nset-cookie: session=s3cret\r\n\
                          content-length: 2\r\n\r\nok",
                    )
                    .await;
                return;
            }
            serve_echo(stream, seen).await;
        }
    })
    .await;
    (server, seen)
}

async fn serve_echo<S>(stream: S, seen: Seen)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let heads = seen.heads.clone();
    // tungstenite's callback type, whose error is a whole response.
    #[allow(clippy::result_large_err)]
    let callback = move |request: &Request, mut response: Response| {
        let head = request
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect::<Vec<_>>();
        let offered = request
            .headers()
            .get("sec-websocket-protocol")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        heads.lock().unwrap().push(head);
        if offered.split(',').any(|p| p.trim() == "chat.v2") {
            response
                .headers_mut()
                .insert("sec-websocket-protocol", "chat.v2".parse().unwrap());
        }
        Ok(response)
    };
    let Ok(ws) = tokio_tungstenite::accept_hdr_async(stream, callback).await else {
        return;
    };
    echo(ws, seen).await;
}

/// Echoes text and binary messages on `ws`, answers `close-me` with a Close (1001,
/// `restart`) and `ping-me` with a Ping, and records the client's Close in `seen`.
async fn echo<S>(mut ws: tokio_tungstenite::WebSocketStream<S>, seen: Seen)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(Ok(message)) = ws.next().await {
        match message {
            tungstenite::Message::Text(text) if text.as_str() == "close-me" => {
                let frame = TungsteniteClose {
                    code: TungsteniteCode::Away,
                    reason: "restart".into(),
                };
                let _ = ws.close(Some(frame)).await;
            }
            tungstenite::Message::Text(text) if text.as_str() == "ping-me" => {
                let _ = ws.send(tungstenite::Message::Ping(Bytes::from("p"))).await;
            }
            tungstenite::Message::Pong(data) => {
                let reply = format!("pong {}", String::from_utf8_lossy(&data));
                let _ = ws.send(tungstenite::Message::text(reply)).await;
            }
            tungstenite::Message::Text(_) | tungstenite::Message::Binary(_) => {
                let sent = ws.send(message).await;
                if sent.is_err() {
                    return;
                }
            }
            tungstenite::Message::Close(frame) => {
                seen.closes
                    .lock()
                    .unwrap()
                    .push(frame.map(|f| (u16::from(f.code), f.reason.to_string())));
            }
            _ => {}
        }
    }
}

fn ws_url(server: &Server, path: &str) -> String {
    format!("ws://{}{}", server.addr, path)
}

/// A socket to `server`'s `/` with a default client.
async fn connect(server: &Server) -> WebSocket {
    Client::new()
        .websocket(&ws_url(server, "/"))
        .connect()
        .await
        .unwrap()
}

#[tokio::test]
async fn text_and_binary_messages_echo_and_the_close_is_answered() {
    let (server, seen) = echo_server().await;
    let mut socket = Client::new()
        .websocket(&ws_url(&server, "/echo"))
        .connect()
        .await
        .unwrap();
    assert_eq!(socket.url().as_str(), ws_url(&server, "/echo"));
    assert_eq!(socket.protocol(), "");
    // tungstenite's server takes no extension.
    assert_eq!(socket.extensions(), "");

    socket.send("hello").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("hello")
    );
    let large = vec![7u8; 3 << 20];
    socket.send(large.clone()).await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::Binary(large.into())
    );
    let unicode = "naïve — ☃ 𝄞".repeat(1000);
    socket.send(unicode.as_str()).await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap().as_text(),
        Some(&*unicode)
    );

    let answer = socket.close(CloseCode::NORMAL, "bye").await.unwrap();
    assert_eq!(
        answer,
        Some(CloseFrame {
            code: CloseCode::NORMAL,
            reason: "bye".into()
        })
    );
    assert!(eventually(|| seen.closes.lock().unwrap().len() == 1).await);
    assert_eq!(
        seen.closes.lock().unwrap()[0],
        Some((1000, "bye".to_owned()))
    );
}

#[tokio::test]
async fn the_handshake_sends_the_standard_headers_and_the_callers() {
    let (server, seen) = echo_server().await;
    let client = Client::builder().cookie_store(true).build().unwrap();
    // A cookie from a plain fetch to the same host goes with the handshake.
    client
        .fetch(&server.url("/set-cookie"), RequestInit::default())
        .await
        .unwrap();
    let socket = client
        .websocket(&server.url("/chat"))
        .protocols(["chat.v1", "chat.v2"])
        .header("Authorization", "Bearer t0ken")
        // A value is bytes, as in Fetch: UTF-8 past ASCII goes as given.
        .header("x-display-name", "Zoë")
        .connect()
        .await
        .unwrap();
    assert_eq!(socket.url().scheme(), "ws", "http: becomes ws:");
    assert_eq!(socket.protocol(), "chat.v2");
    assert_eq!(
        socket
            .headers()
            .get("sec-websocket-protocol")
            .unwrap()
            .unwrap(),
        "chat.v2"
    );
    assert_eq!(seen.header("upgrade").as_deref(), Some("websocket"));
    assert_eq!(seen.header("connection").as_deref(), Some("Upgrade"));
    assert_eq!(seen.header("sec-websocket-version").as_deref(), Some("13"));
    assert_eq!(
        seen.header("sec-websocket-protocol").as_deref(),
        Some("chat.v1, chat.v2")
    );
    assert_eq!(
        seen.header("sec-websocket-extensions").as_deref(),
        Some("permessage-deflate; client_max_window_bits")
    );
    assert_eq!(seen.header("cookie").as_deref(), Some("session=s3cret"));
    assert_eq!(
        seen.header("authorization").as_deref(),
        Some("Bearer t0ken")
    );
    assert_eq!(seen.header("x-display-name").as_deref(), Some("Zoë"));
    assert_eq!(seen.header("cache-control").as_deref(), Some("no-cache"));
    assert!(seen.header("referer").is_none());
    // A server-side client has no origin to send.
    assert!(seen.header("origin").is_none());
    let key = seen.header("sec-websocket-key").unwrap();
    assert_eq!(key.len(), 24, "16 random bytes, base64: {key}");
    drop(socket);

    // Without deflate, no extension is offered; a second key differs.
    let _socket = client
        .websocket(&ws_url(&server, "/"))
        .permessage_deflate(false)
        .connect()
        .await
        .unwrap();
    assert!(seen.header("sec-websocket-extensions").is_none());
    assert_ne!(seen.header("sec-websocket-key").unwrap(), key);

    // A client with an origin sends it, cross-origin as the handshake always is.
    let app = whatwg_fetch::Url::parse("https://app.example").unwrap();
    let _socket = Client::builder()
        .origin(app)
        .build()
        .unwrap()
        .websocket(&ws_url(&server, "/"))
        .connect()
        .await
        .unwrap();
    assert_eq!(
        seen.header("origin").as_deref(),
        Some("https://app.example")
    );
}

#[tokio::test]
async fn pings_are_answered_and_the_servers_close_ends_the_stream() {
    let (server, seen) = echo_server().await;
    let mut socket = connect(&server).await;
    socket.send("ping-me").await.unwrap();
    // The server's Ping is yielded, and answered: the server says so.
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::Ping("p".into())
    );
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("pong p")
    );
    // Our own ping is answered with a pong.
    socket.send(Message::Ping("mine".into())).await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::Pong("mine".into())
    );

    socket.send("close-me").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::Close(Some(CloseFrame {
            code: CloseCode::GOING_AWAY,
            reason: "restart".into()
        }))
    );
    assert!(socket.recv().await.is_none());
    // Our answer echoed the code.
    assert!(eventually(|| seen.closes.lock().unwrap().len() == 1).await);
    assert_eq!(seen.closes.lock().unwrap()[0], Some((1001, String::new())));
    let error = socket.send("late").await.unwrap_err();
    assert!(error.is_websocket());
    assert!(matches!(
        WebSocketError::of(&error),
        Some(WebSocketError::AlreadyClosing)
    ));
}

#[tokio::test]
async fn a_split_socket_streams_and_sinks() {
    let (server, _seen) = echo_server().await;
    let socket = connect(&server).await;
    let (mut writer, mut reader) = socket.split();
    let writing = tokio::spawn(async move {
        for i in 0..100 {
            writer.feed(Message::text(format!("m{i}"))).await.unwrap();
        }
        writer.flush().await.unwrap();
        writer
    });
    for i in 0..100 {
        let message = reader.next().await.unwrap().unwrap();
        assert_eq!(message.as_text(), Some(format!("m{i}").as_str()));
    }
    let mut writer = writing.await.unwrap();
    // Sink::close sends a Close (1000); the server's answer ends the stream.
    writer.close().await.unwrap();
    assert_eq!(
        reader.next().await.unwrap().unwrap(),
        Message::Close(Some(CloseFrame {
            code: CloseCode::NORMAL,
            reason: String::new()
        }))
    );
    assert!(reader.next().await.is_none());
}

#[tokio::test]
async fn a_dropped_socket_says_going_away() {
    let (server, seen) = echo_server().await;
    let mut socket = connect(&server).await;
    socket.send("hello").await.unwrap();
    drop(socket);
    assert!(eventually(|| seen.closes.lock().unwrap().len() == 1).await);
    assert_eq!(seen.closes.lock().unwrap()[0], Some((1001, String::new())));
}

#[tokio::test]
async fn wss_runs_over_the_clients_tls() {
    let pki = TestPki::new(&["localhost"]);
    let acceptor = pki.acceptor(&[b"http/1.1"]);
    let seen = Seen::default();
    let server = raw_server(move |tcp: TcpStream| {
        let (acceptor, seen) = (acceptor.clone(), seen.clone());
        async move {
            if let Ok(tls) = acceptor.accept(tcp).await {
                serve_echo(tls, seen).await;
            }
        }
    })
    .await;
    let client = Client::builder()
        .add_root_certificates_pem(pki.ca_pem.clone())
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = format!("wss://localhost:{}/secure", server.addr.port());
    let mut socket = client.websocket(&url).connect().await.unwrap();
    socket.send("over tls").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("over tls")
    );
    socket.close(CloseCode::NORMAL, "").await.unwrap();

    // A client that does not trust the CA fails the fetch, as any https fetch would.
    let error = Client::builder()
        .resolve("localhost", server.addr)
        .build()
        .unwrap()
        .websocket(&url)
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::Tls(_))),
        "{error:#}"
    );
}

/// A raw server answering each handshake with `answer` (a whole response head).
async fn answering(answer: &'static str) -> Server {
    raw_server(move |mut stream: TcpStream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = is_closed(&mut stream).await;
        }
    })
    .await
}

#[tokio::test]
async fn a_redirect_or_another_status_fails_the_handshake() {
    let redirect =
        answering("HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 0\r\n\r\n").await;
    let error = Client::new()
        .websocket(&ws_url(&redirect, "/"))
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::RedirectRefused)),
        "{error:#}"
    );

    let not_found = answering("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").await;
    let error = Client::new()
        .websocket(&ws_url(&not_found, "/"))
        .connect()
        .await
        .unwrap_err();
    assert!(error.is_websocket(), "{error:#}");
    assert!(matches!(
        WebSocketError::of(&error),
        Some(WebSocketError::Status(404))
    ));
    let message = error.to_string();
    assert!(
        message.contains("404") && message.contains("ws://"),
        "{message}"
    );
}

/// A server answering the handshake `101` with a correct accept and `extra` headers.
async fn answering_101(extra: &'static str) -> Server {
    raw_server(move |mut stream: TcpStream| async move {
        if accept(&mut stream, extra).await.is_some() {
            let _ = is_closed(&mut stream).await;
        }
    })
    .await
}

#[tokio::test]
async fn a_101_that_breaks_rfc_6455_fails_the_handshake() {
    async fn failure(server: &Server, protocols: &[&str]) -> WebSocketError {
        let error = Client::new()
            .websocket(&ws_url(server, "/"))
            .protocols(protocols.iter().copied())
            .connect()
            .await
            .unwrap_err();
        assert!(error.is_websocket(), "{error:#}");
        match WebSocketError::of(&error) {
            Some(WebSocketError::Status(s)) => WebSocketError::Status(*s),
            Some(WebSocketError::BadAccept(s)) => WebSocketError::BadAccept(s.clone()),
            Some(WebSocketError::ProtocolNotAcknowledged) => {
                WebSocketError::ProtocolNotAcknowledged
            }
            Some(WebSocketError::ProtocolNotOffered(s)) => {
                WebSocketError::ProtocolNotOffered(s.clone())
            }
            Some(WebSocketError::ExtensionNotOffered(s)) => {
                WebSocketError::ExtensionNotOffered(s.clone())
            }
            Some(WebSocketError::BadExtension(s)) => WebSocketError::BadExtension(s.clone()),
            other => panic!("{other:?}"),
        }
    }
    let bad_accept = answering(
        "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\
         sec-websocket-accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n",
    )
    .await;
    assert!(matches!(
        failure(&bad_accept, &[]).await,
        WebSocketError::BadAccept(_)
    ));
    let no_protocol = answering_101("").await;
    assert!(matches!(
        failure(&no_protocol, &["chat"]).await,
        WebSocketError::ProtocolNotAcknowledged
    ));
    let other_protocol = answering_101("sec-websocket-protocol: other\r\n").await;
    assert!(matches!(
        failure(&other_protocol, &["chat"]).await,
        WebSocketError::ProtocolNotOffered(p) if p == "other"
    ));
    let unasked_extension = answering_101("sec-websocket-extensions: x-custom\r\n").await;
    assert!(matches!(
        failure(&unasked_extension, &[]).await,
        WebSocketError::ExtensionNotOffered(e) if e == "x-custom"
    ));
    let bad_window =
        answering_101("sec-websocket-extensions: permessage-deflate; server_max_window_bits=7\r\n")
            .await;
    assert!(matches!(
        failure(&bad_window, &[]).await,
        WebSocketError::BadExtension(_)
    ));
}

#[tokio::test]
async fn the_constructor_checks_come_before_any_connection() {
    let client = Client::new();
    for (url, protocols) in [
        ("ftp://example.com/", vec![]),
        ("ws://example.com/#fragment", vec![]),
        ("not a url", vec![]),
        ("ws://example.com/", vec!["a b"]),
        ("ws://example.com/", vec!["chat", "chat"]),
    ] {
        let error = client
            .websocket(url)
            .protocols(protocols)
            .connect()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::SyntaxError, "{url}: {error}");
    }
    for name in ["Sec-WebSocket-Key", "upgrade", "Sec-WebSocket-Extensions"] {
        let error = client
            .websocket("ws://example.com/")
            .header(name, "x")
            .connect()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(error.to_string().contains("sets"), "{error}");
    }
    let error = client
        .websocket("ws://example.com/")
        .header("x-bad", "a\r\nb")
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

/// A server accepting `permessage-deflate` with `params`, echoing each message it
/// reads compressed as it came, and reporting each frame's RSV1 bit.
async fn deflate_echo(params: &'static str) -> (Server, Arc<Mutex<Vec<bool>>>) {
    let rsv1 = Arc::new(Mutex::new(Vec::new()));
    let seen = rsv1.clone();
    let server = raw_server(move |mut stream: TcpStream| {
        let seen = seen.clone();
        async move {
            let extra = format!("sec-websocket-extensions: {params}\r\n");
            if accept(&mut stream, &extra).await.is_none() {
                return;
            }
            let mut reader = FrameReader::new();
            let mut inflater = Inflater::new();
            while let Some(frame) = reader.next(&mut stream).await {
                seen.lock().unwrap().push(frame.rsv1);
                if frame.opcode == CLOSE {
                    let _ = stream
                        .write_all(&frame_of(CLOSE, false, &frame.payload))
                        .await;
                    return;
                }
                // Each message compressed again on its own: a client reads messages
                // compressed without context whatever the parameters.
                let data = if frame.rsv1 {
                    inflater.inflate(&frame.payload)
                } else {
                    frame.payload.clone()
                };
                let _ = stream
                    .write_all(&frame_of(frame.opcode, true, &deflate(&data)))
                    .await;
            }
        }
    })
    .await;
    (server, rsv1)
}

fn frame_of(opcode: u8, rsv1: bool, payload: &[u8]) -> Vec<u8> {
    frame(true, rsv1, opcode, payload)
}

#[tokio::test]
async fn permessage_deflate_compresses_both_ways() {
    for params in [
        "permessage-deflate",
        "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
        "permessage-deflate; client_max_window_bits=10",
    ] {
        let (server, rsv1) = deflate_echo(params).await;
        let mut socket = connect(&server).await;
        assert!(socket.extensions().starts_with("permessage-deflate"));
        let text = "compress me ".repeat(500);
        for _ in 0..3 {
            socket.send(text.as_str()).await.unwrap();
            assert_eq!(
                socket.recv().await.unwrap().unwrap().as_text(),
                Some(&*text)
            );
        }
        // An empty message, twice: the second compresses to nothing but its block.
        for _ in 0..2 {
            socket.send("").await.unwrap();
            assert_eq!(socket.recv().await.unwrap().unwrap(), Message::text(""));
        }
        let binary: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        socket.send(binary.clone()).await.unwrap();
        assert_eq!(
            socket.recv().await.unwrap().unwrap(),
            Message::Binary(binary.into())
        );
        socket.close(CloseCode::NORMAL, "").await.unwrap();
        let rsv1 = rsv1.lock().unwrap().clone();
        // Every data frame went compressed; the Close never is.
        assert_eq!(
            rsv1,
            [true, true, true, true, true, true, false],
            "{params}"
        );
    }
}

// WebSocket over HTTP/2 (RFC 8441): on a stream of the origin's open HTTP/2 connection when
// its server allows extended CONNECT, else over HTTP/1.1 on a connection of its own.

/// A TLS server for `localhost` offering `h2` and `http/1.1` by ALPN, and a client that
/// trusts it. Over HTTP/2 (with `SETTINGS_ENABLE_CONNECT_PROTOCOL` when
/// `extended_connect`) it answers a `GET` with `plain` and a cookie, an extended CONNECT
/// with `:protocol` `websocket` with `200` (picking `chat.v2` when offered; `403` for
/// `/forbidden`) and then echoes on the stream as [`echo`] does (on `/slow`, reads a
/// message every 5 ms and answers its size; on `/vanish`, drops the stream at once). Over HTTP/1.1 it is [`serve_echo`]. Each
/// handshake's headers are recorded, an HTTP/2 one's with `:method` and `:protocol` first.
async fn h2_websocket_server(extended_connect: bool) -> (Server, Seen, Client) {
    h2_websocket_server_with(move |builder| {
        if extended_connect {
            builder.enable_connect_protocol();
        }
    })
    .await
}

/// [`h2_websocket_server`] with the HTTP/2 settings `configure` gives hyper's builder.
async fn h2_websocket_server_with(
    configure: impl Fn(&mut hyper::server::conn::http2::Builder<hyper_util::rt::TokioExecutor>)
    + Send
    + Sync
    + 'static,
) -> (Server, Seen, Client) {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let configure = Arc::new(configure);
    let pki = TestPki::new(&["localhost"]);
    let acceptor = pki.acceptor(&[b"h2", b"http/1.1"]);
    let seen = Seen::default();
    let server_seen = seen.clone();
    let server = raw_server(move |tcp: TcpStream| {
        let (acceptor, seen) = (acceptor.clone(), server_seen.clone());
        let configure = Arc::clone(&configure);
        async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            if tls.get_ref().1.alpn_protocol() != Some(b"h2".as_slice()) {
                return serve_echo(tls, seen).await;
            }
            let service = hyper::service::service_fn(move |request| {
                let seen = seen.clone();
                async move { Ok::<_, std::convert::Infallible>(h2_handshake(request, seen)) }
            });
            let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
            configure(&mut builder);
            let _ = builder.serve_connection(TokioIo::new(tls), service).await;
        }
    })
    .await;
    let client = Client::builder()
        .add_root_certificates_pem(pki.ca_pem.clone())
        .resolve("localhost", server.addr)
        .cookie_store(true)
        .build()
        .unwrap();
    (server, seen, client)
}

/// The HTTP/2 half of [`h2_websocket_server`].
fn h2_handshake(
    mut request: http::Request<hyper::body::Incoming>,
    seen: Seen,
) -> http::Response<ServerBody> {
    use hyper_util::rt::TokioIo;
    use tokio_tungstenite::tungstenite::protocol::Role;
    if request.method() != http::Method::CONNECT {
        return http::Response::builder()
            .header("set-cookie", "h2=yes")
            .body(full("plain"))
            .unwrap();
    }
    let protocol = request
        .extensions()
        .get::<hyper::ext::Protocol>()
        .map(|protocol| protocol.as_str().to_owned())
        .unwrap_or_default();
    let mut head = vec![
        (":method".to_owned(), "CONNECT".to_owned()),
        (":protocol".to_owned(), protocol),
    ];
    head.extend(request.headers().iter().map(|(k, v)| {
        (
            k.to_string(),
            String::from_utf8_lossy(v.as_bytes()).into_owned(),
        )
    }));
    let offered = request
        .headers()
        .get("sec-websocket-protocol")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    seen.heads.lock().unwrap().push(head);
    if request.uri().path() == "/forbidden" {
        return http::Response::builder()
            .status(403)
            .body(full("no"))
            .unwrap();
    }
    let path = request.uri().path().to_owned();
    let upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let Ok(upgraded) = upgrade.await else { return };
        if path == "/vanish" {
            // Gone without a Close: the stream ends under the client.
            drop(upgraded);
            return;
        }
        let ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
            TokioIo::new(upgraded),
            Role::Server,
            None,
        )
        .await;
        match path.as_str() {
            "/slow" => answer_sizes_slowly(ws).await,
            _ => echo(ws, seen).await,
        }
    });
    let mut response = http::Response::builder();
    if offered.split(',').any(|p| p.trim() == "chat.v2") {
        response = response.header("sec-websocket-protocol", "chat.v2");
    }
    response.body(full("")).unwrap()
}

fn wss_url(server: &Server, path: &str) -> String {
    format!("wss://localhost:{}{}", server.addr.port(), path)
}

/// A request to `url` first, as a page's would be: the origin's connection is HTTP/2.
async fn page_over_http2(client: &Client, url: &str) {
    let mut response = client.get(url).send().await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.text().await.unwrap(), "plain");
}

/// The WebSocket `builder` opens, on a stream of an HTTP/2 connection.
async fn websocket_over_http2(builder: whatwg_fetch::websocket::WebSocketBuilder) -> WebSocket {
    let socket = builder.connect().await.unwrap();
    assert_eq!(socket.version(), http::Version::HTTP_2);
    socket
}

#[tokio::test]
async fn a_websocket_runs_on_a_stream_of_the_open_http2_connection() {
    let (server, seen, client) = h2_websocket_server(true).await;
    let page = format!("https://localhost:{}/", server.addr.port());
    page_over_http2(&client, &page).await;
    let mut socket = websocket_over_http2(
        client
            .websocket(&wss_url(&server, "/chat?room=1"))
            .protocols(["chat.v2", "chat.v1"]),
    )
    .await;
    assert_eq!(socket.protocol(), "chat.v2");
    assert_eq!(socket.url().as_str(), wss_url(&server, "/chat?room=1"));
    // RFC 8441 §5: a CONNECT with `:protocol` websocket, without the HTTP/1.1
    // handshake's Upgrade, Connection and key; the version, subprotocols, extensions,
    // Origin and the client's cookies as over HTTP/1.1.
    let head = seen.last_head();
    assert_eq!(head[0], (":method".to_owned(), "CONNECT".to_owned()));
    assert_eq!(head[1], (":protocol".to_owned(), "websocket".to_owned()));
    for absent in ["upgrade", "connection", "sec-websocket-key"] {
        assert_eq!(seen.header(absent), None, "{absent}");
    }
    assert_eq!(seen.header("sec-websocket-version").as_deref(), Some("13"));
    assert_eq!(
        seen.header("sec-websocket-protocol").as_deref(),
        Some("chat.v2, chat.v1")
    );
    assert!(
        seen.header("sec-websocket-extensions")
            .is_some_and(|offer| offer.starts_with("permessage-deflate")),
        "{head:?}"
    );
    assert_eq!(seen.header("cookie").as_deref(), Some("h2=yes"));

    // Messages both ways, one of 1 MiB: more than the stream's windows hold at once.
    socket.send("over h2").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("over h2")
    );
    let large = Bytes::from((0..=250u8).cycle().take(1 << 20).collect::<Vec<_>>());
    socket.send(Message::binary(large.clone())).await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::binary(large)
    );
    // The connection goes on carrying the client's requests beside it.
    page_over_http2(&client, &page).await;
    // And a second WebSocket shares it too.
    let mut second = websocket_over_http2(client.websocket(&wss_url(&server, "/second"))).await;
    second.send("two").await.unwrap();
    assert_eq!(second.recv().await.unwrap().unwrap(), Message::text("two"));
    assert_eq!(server.counts.accepts(), 1, "one connection for all of it");

    // The closing handshake is the same as over HTTP/1.1.
    let answer = socket.close(CloseCode::NORMAL, "bye").await.unwrap();
    assert_eq!(answer.map(|frame| frame.code), Some(CloseCode::NORMAL));
    second.close(CloseCode::NORMAL, "").await.unwrap();
    assert!(eventually(|| seen.closes.lock().unwrap().len() == 2).await);
    assert!(
        seen.closes
            .lock()
            .unwrap()
            .contains(&Some((1000, "bye".to_owned())))
    );
}

#[tokio::test]
async fn a_websocket_takes_http1_when_the_http2_server_does_not_allow_extended_connect() {
    let (server, seen, client) = h2_websocket_server(false).await;
    page_over_http2(
        &client,
        &format!("https://localhost:{}/", server.addr.port()),
    )
    .await;
    echoes_over_http1(&client, &server, &seen).await;
    // On a connection of its own, with the cookie the HTTP/2 response set.
    assert_eq!(seen.header("cookie").as_deref(), Some("h2=yes"));
    assert_eq!(server.counts.accepts(), 2);
}

/// A WebSocket to `server` that runs over HTTP/1.1: RFC 6455's handshake, then an echo.
async fn echoes_over_http1(client: &Client, server: &Server, seen: &Seen) {
    let mut socket = client
        .websocket(&wss_url(server, "/chat"))
        .connect()
        .await
        .unwrap();
    assert_eq!(socket.version(), http::Version::HTTP_11);
    assert_eq!(seen.header("upgrade").as_deref(), Some("websocket"));
    assert!(seen.header("sec-websocket-key").is_some());
    socket.send("over h1").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("over h1")
    );
    socket.close(CloseCode::NORMAL, "").await.unwrap();
}

#[tokio::test]
async fn a_websocket_opens_no_http2_connection_of_its_own() {
    // No connection to the origin yet: the server of a new one has not said whether it
    // allows extended CONNECT, so the WebSocket takes HTTP/1.1, as Chrome's does.
    let (server, seen, client) = h2_websocket_server(true).await;
    echoes_over_http1(&client, &server, &seen).await;
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn a_ws_url_runs_over_cleartext_http2_with_prior_knowledge() {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    // h2c: HTTP/2 on plain TCP, which a client speaks only when told to.
    let seen = Seen::default();
    let server_seen = seen.clone();
    let server = raw_server(move |tcp: TcpStream| {
        let seen = server_seen.clone();
        async move {
            let service = hyper::service::service_fn(move |request| {
                let seen = seen.clone();
                async move { Ok::<_, std::convert::Infallible>(h2_handshake(request, seen)) }
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .enable_connect_protocol()
                .serve_connection(TokioIo::new(tcp), service)
                .await;
        }
    })
    .await;
    let client = Client::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    page_over_http2(&client, &server.url("/")).await;
    let mut socket = websocket_over_http2(client.websocket(&ws_url(&server, "/chat"))).await;
    assert_eq!(seen.header(":protocol").as_deref(), Some("websocket"));
    socket.send("cleartext").await.unwrap();
    assert_eq!(
        socket.recv().await.unwrap().unwrap(),
        Message::text("cleartext")
    );
    socket.close(CloseCode::NORMAL, "").await.unwrap();
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn an_http2_stream_that_ends_without_a_close_is_an_abnormal_closure() {
    let (server, _, client) = h2_websocket_server(true).await;
    let url = format!("https://localhost:{}/", server.addr.port());
    page_over_http2(&client, &url).await;
    let mut socket = websocket_over_http2(client.websocket(&wss_url(&server, "/vanish"))).await;
    let ended = tokio::time::timeout(std::time::Duration::from_secs(10), socket.recv())
        .await
        .expect("the end of the stream is seen, not waited out");
    let error = ended.expect("an error before the end").unwrap_err();
    assert!(
        matches!(
            WebSocketError::of(&error),
            Some(WebSocketError::ClosedAbnormally)
        ),
        "{error:#}"
    );
    assert!(socket.recv().await.is_none());
    // The connection goes on for the client's other requests.
    page_over_http2(&client, &url).await;
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn an_http2_server_refusing_the_websocket_fails_the_handshake() {
    let (server, _, client) = h2_websocket_server(true).await;
    page_over_http2(
        &client,
        &format!("https://localhost:{}/", server.addr.port()),
    )
    .await;
    let error = client
        .websocket(&wss_url(&server, "/forbidden"))
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::WebSocket, "{error:#}");
    assert!(
        matches!(
            WebSocketError::of(&error),
            Some(WebSocketError::Status(403))
        ),
        "{error:#}"
    );
    // Refused, not fallen back: the server answered on the stream it was offered.
    assert_eq!(server.counts.accepts(), 1);
}

/// Reads a message every 5 ms and answers with its size, as text.
async fn answer_sizes_slowly<S>(mut ws: tokio_tungstenite::WebSocketStream<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let Some(Ok(tungstenite::Message::Binary(data))) = ws.next().await else {
            return;
        };
        let reply = tungstenite::Message::text(data.len().to_string());
        if ws.send(reply).await.is_err() {
            return;
        }
    }
}

#[tokio::test]
async fn messages_larger_than_the_http2_window_flow_through_a_slow_reader() {
    // The server's windows are the protocol's 64 KiB and it reads slowly: each message is
    // more than a window, so the client waits for WINDOW_UPDATEs mid-message, again and
    // again.
    let (server, _, client) = h2_websocket_server_with(|builder| {
        builder
            .enable_connect_protocol()
            .initial_stream_window_size(65_535)
            .initial_connection_window_size(65_535);
    })
    .await;
    page_over_http2(
        &client,
        &format!("https://localhost:{}/", server.addr.port()),
    )
    .await;
    let socket = websocket_over_http2(
        client
            .websocket(&wss_url(&server, "/slow"))
            .permessage_deflate(false),
    )
    .await;
    let (mut writer, mut reader) = socket.split();
    let writing = tokio::spawn(async move {
        for _ in 0..20 {
            writer
                .send(Message::binary(vec![7u8; 65_536]))
                .await
                .unwrap();
        }
        writer
    });
    for i in 0..20 {
        let reply = tokio::time::timeout(std::time::Duration::from_secs(10), reader.next())
            .await
            .unwrap_or_else(|_| panic!("reply {i} came"))
            .unwrap()
            .unwrap();
        assert_eq!(reply, Message::text("65536"));
    }
    drop(writing.await.unwrap());
}

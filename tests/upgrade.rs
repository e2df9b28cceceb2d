//! `Response::upgrade`: a `101 Switching Protocols` answering a request's `Upgrade` hands
//! its connection to the caller (bytes sent after the head first), out of the pool; any
//! other response says why it has none, with its status and URL.

mod net_support;

use std::time::Duration;

use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use whatwg_fetch::{Client, Error, ErrorKind, Response};

/// The head of a `101` switching to the `echo` protocol.
const SWITCHING: &[u8] =
    b"HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\n";

/// A server that answers an `Upgrade: echo` request with a `101` whose first bytes of the
/// new protocol (`hello `) come in the same write as the head, then echoes what it reads
/// until the client closes; any other request gets `200 ok`.
async fn echo_server() -> Server {
    raw_server(|mut stream: TcpStream| async move {
        loop {
            let Some(head) = read_head(&mut stream).await else {
                return;
            };
            if !head.to_ascii_lowercase().contains("upgrade: echo") {
                let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                if stream.write_all(ok).await.is_err() {
                    return;
                }
                continue;
            }
            let mut switching = SWITCHING.to_vec();
            switching.extend_from_slice(b"hello ");
            if stream.write_all(&switching).await.is_err() {
                return;
            }
            echo(stream).await;
            return;
        }
    })
    .await
}

/// Echoes what `stream` reads until it ends.
async fn echo<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(mut stream: S) {
    let mut buf = [0; 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if stream.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A `GET` of `url` asking to switch to `echo`.
async fn upgrade_request(client: &Client, url: &str) -> Response {
    client
        .get(url)
        .header("connection", "upgrade")
        .header("upgrade", "echo")
        .send()
        .await
        .unwrap()
}

/// Writes `ping` on `connection` and reads the echo back.
async fn ping<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(connection: &mut S) {
    connection.write_all(b"ping").await.unwrap();
    let mut echoed = [0; 4];
    connection.read_exact(&mut echoed).await.unwrap();
    assert_eq!(&echoed, b"ping");
}

#[tokio::test]
async fn a_101_hands_its_connection_over_with_the_bytes_read_past_its_head() {
    let server = echo_server().await;
    let client = Client::builder().build().unwrap();
    let response = upgrade_request(&client, &server.url("/chat")).await;
    assert_eq!(response.status(), 101);
    assert_eq!(
        response.headers().get("upgrade").unwrap().as_deref(),
        Some("echo")
    );
    assert!(
        response.remote_addr().is_some(),
        "a response from the network"
    );
    let mut connection = response.upgrade().await.unwrap();
    // The server's first bytes came with the head: they are read first.
    let mut early = [0; 6];
    connection.read_exact(&mut early).await.unwrap();
    assert_eq!(&early, b"hello ");
    ping(&mut connection).await;
    ping(&mut connection).await;
    // The connection is the caller's, not the pool's: the next request opens another.
    let stats = client.pool_stats().unwrap();
    let origin = stats
        .origin(&server.url(""))
        .map_or(0, |origin| origin.idle);
    assert_eq!(origin, 0, "{stats:?}");
    let mut next = client.get(server.url("/")).send().await.unwrap();
    assert_eq!(next.text().await.unwrap(), "ok");
    assert_eq!(server.counts.accepts(), 2);
    // Still open, and still ours, after the other request.
    ping(&mut connection).await;
    drop(connection);
    assert!(eventually(|| server.counts.max_live() >= 2).await);
}

#[tokio::test]
async fn the_upgraded_connection_is_the_tls_stream_of_an_https_origin() {
    let pki = TestPki::new(&["localhost"]);
    let acceptor = pki.acceptor(&[b"http/1.1"]);
    let server = raw_server(move |stream: TcpStream| {
        let acceptor = acceptor.clone();
        async move {
            let Ok(mut stream) = acceptor.accept(stream).await else {
                return;
            };
            if read_head(&mut stream).await.is_none() {
                return;
            }
            if stream.write_all(SWITCHING).await.is_err() {
                return;
            }
            echo(stream).await;
        }
    })
    .await;
    let (client, url) = tls_client(&pki, &server);
    let response = upgrade_request(&client, &url).await;
    assert_eq!(response.status(), 101);
    assert!(response.tls_info().is_some());
    let mut connection = response.upgrade().await.unwrap();
    ping(&mut connection).await;
}

/// A client trusting only `pki`'s CA, with `localhost` at `server`, and the server's URL.
fn tls_client(pki: &TestPki, server: &Server) -> (Client, String) {
    let client = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    (client, format!("https://localhost:{}/", server.addr.port()))
}

/// The message, kind, status and URL of `error`.
fn check_upgrade_error(error: &Error, status: u16, url: &str, says: &str) {
    assert!(error.is_upgrade(), "{error:#}");
    assert_eq!(error.kind(), ErrorKind::Upgrade);
    assert_eq!(error.status().map(|status| status.as_u16()), Some(status));
    assert_eq!(error.url(), Some(url));
    let shown = error.to_string();
    assert!(shown.contains(says), "{shown}");
    assert!(shown.contains(url), "{shown}");
}

#[tokio::test]
async fn a_response_that_is_not_a_101_says_what_it_is_instead() {
    let server = echo_server().await;
    let client = Client::builder().build().unwrap();
    // No `Upgrade` header: the server answers 200.
    let url = server.url("/");
    let response = client.get(&url).send().await.unwrap();
    let error = response.upgrade().await.unwrap_err();
    check_upgrade_error(
        &error,
        200,
        &url,
        "the response is 200 OK, not 101 Switching Protocols",
    );
    // A response made here, not fetched.
    let made = Response::new(None, Default::default()).unwrap();
    assert!(made.upgrade().await.unwrap_err().is_upgrade());
}

#[tokio::test]
async fn a_101_nobody_asked_for_hands_nothing_over() {
    // A server that switches protocols whatever the request said (RFC 9110 §15.2.2
    // forbids it): the response is the caller's to see, its connection is not.
    let server = raw_server(|mut stream: TcpStream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream.write_all(SWITCHING).await;
            let _ = stream.write_all(b"not http").await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    })
    .await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/");
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 101);
    let error = response.upgrade().await.unwrap_err();
    check_upgrade_error(&error, 101, &url, "sent no Upgrade header");
}

#[tokio::test]
async fn only_one_clone_of_a_101_gets_its_connection() {
    let server = echo_server().await;
    let client = Client::builder().build().unwrap();
    let mut response = upgrade_request(&client, &server.url("/")).await;
    let copy = response.try_clone().unwrap();
    let mut connection = copy.upgrade().await.unwrap();
    let error = response.upgrade().await.unwrap_err();
    assert!(error.is_upgrade(), "{error:#}");
    let mut early = [0; 6];
    connection.read_exact(&mut early).await.unwrap();
    ping(&mut connection).await;
}

#[tokio::test]
async fn over_http2_there_is_no_101_and_the_error_says_so() {
    let pki = TestPki::new(&["localhost"]);
    let server = tls_server(pki.acceptor(&[b"h2"]), |_| async {
        http::Response::new(full("ok"))
    })
    .await;
    let (client, url) = tls_client(&pki, &server);
    let response = upgrade_request(&client, &url).await;
    assert_eq!(response.status(), 200);
    let error = response.upgrade().await.unwrap_err();
    check_upgrade_error(&error, 200, &url, "HTTP/2, which has no 101");
    assert!(error.to_string().contains("http1_only"), "{error}");
}

/// A transport of the caller's own that answers every request with a `101` over an
/// in-memory stream, whose other end the test keeps.
struct Switching(std::sync::Mutex<Option<tokio::io::DuplexStream>>);

impl whatwg_fetch::net::Transport for Switching {
    fn send(
        &self,
        _request: http::Request<whatwg_fetch::net::RequestBody>,
        _options: whatwg_fetch::net::SendOptions,
    ) -> whatwg_fetch::net::TransportFuture {
        let io = self.0.lock().unwrap().take();
        Box::pin(async move {
            let mut response = http::Response::builder()
                .status(101)
                .body(whatwg_fetch::net::ResponseBody::empty())
                .unwrap();
            if let Some(io) = io {
                let upgraded = whatwg_fetch::Upgraded::new(io, "");
                response
                    .extensions_mut()
                    .insert(whatwg_fetch::upgrade::OnUpgrade::new(upgraded));
            }
            Ok(response)
        })
    }
}

#[tokio::test]
async fn a_transport_of_ones_own_hands_over_what_it_puts_in_the_extensions() {
    let (ours, theirs) = tokio::io::duplex(64);
    let transport = Switching(std::sync::Mutex::new(Some(ours)));
    let client = Client::builder()
        .transport(std::sync::Arc::new(transport))
        .build()
        .unwrap();
    tokio::spawn(echo(theirs));
    let response = upgrade_request(&client, "http://switching.test/").await;
    let mut connection = response.upgrade().await.unwrap();
    ping(&mut connection).await;
}

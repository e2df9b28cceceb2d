//! Making connections: Happy Eyeballs over a host's addresses, the errors that name every
//! address tried, a resolver of one's own, socket options (local address, keep-alive,
//! `TCP_NODELAY`) and Unix domain sockets — against servers on 127.0.0.1.

mod net_support;

use std::convert::Infallible;
use std::error::Error as _;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use net_support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};
use whatwg_fetch::net::{ConnectError, DnsError, Resolve, ResolveFuture};
use whatwg_fetch::{Client, Error, NetworkError, RequestInit, TimeoutKind};

/// How long any one test may take.
const LIMIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------------------
// Addresses and resolvers

/// A loopback address that never completes a TCP handshake.
///
/// Linux drops a SYN to a listening socket whose accept queue is full (`tcp_conn_request`
/// counts a `ListenOverflows` and sends nothing back), and the client's kernel retransmits
/// it for minutes. A listener with a backlog of 0 holds one connection in its queue; this
/// one is never accepted, so once one connection fills the queue, every later SYN is
/// dropped. Returns the address with the listener and the queued connection, to keep.
///
/// Checks that a plain connect really stalls, and panics if it does not: a test that
/// leans on this is then not testing what it claims.
async fn blackholed_address() -> (SocketAddr, (TcpListener, TcpStream)) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let filler = timeout(Duration::from_secs(5), TcpStream::connect(addr))
        .await
        .expect("the connection that fills the accept queue connects")
        .unwrap();
    let stalled = timeout(Duration::from_millis(600), TcpStream::connect(addr)).await;
    assert!(
        stalled.is_err(),
        "a connect to a listener with a full accept queue did not stall: {stalled:?}"
    );
    (addr, (listener, filler))
}

/// An address where nothing listens: connecting is refused at once.
async fn refusing_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    addr
}

/// A server answering every request with "live".
async fn live_server() -> Server {
    hyper_server(|_| async { http::Response::new(full("live")) }).await
}

/// A resolver with a fixed answer for every name, noting the names asked.
struct Fixed {
    addrs: Vec<SocketAddr>,
    asked: Mutex<Vec<String>>,
}

impl Fixed {
    fn new(addrs: Vec<SocketAddr>) -> Arc<Fixed> {
        Arc::new(Fixed {
            addrs,
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Resolve for Fixed {
    fn resolve(&self, name: &str) -> ResolveFuture {
        self.asked.lock().unwrap().push(name.to_owned());
        let addrs = self.addrs.clone();
        Box::pin(async move {
            // Answers later, as a resolver on the network does.
            tokio::task::yield_now().await;
            Ok(addrs)
        })
    }
}

/// A resolver that knows no name.
struct Failing;

impl Resolve for Failing {
    fn resolve(&self, name: &str) -> ResolveFuture {
        let message = format!("{name}: no such host");
        Box::pin(async move { Err(message.into()) })
    }
}

async fn fetch_text(client: &Client, url: &str) -> Result<String, Error> {
    let mut response = client.fetch(url, RequestInit::default()).await?;
    response.text().await
}

/// The [`ConnectError`] behind a failed fetch.
fn connect_error(error: &Error) -> &ConnectError {
    match error.network_error() {
        Some(NetworkError::Connect(source)) => source
            .downcast_ref::<ConnectError>()
            .unwrap_or_else(|| panic!("not a ConnectError: {source:?}")),
        other => panic!("not a connect error: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Happy Eyeballs

#[tokio::test]
async fn a_blackholed_first_address_does_not_hold_up_the_connection() {
    timeout(LIMIT, async {
        let (blackholed, _keep) = blackholed_address().await;
        let live = live_server().await;
        // Tried one after the other, the first would eat the whole connect timeout.
        let client = Client::builder()
            .resolver(Fixed::new(vec![blackholed, live.addr]))
            .connect_timeout(Duration::from_secs(3))
            .build()
            .unwrap();
        let started = Instant::now();
        let text = fetch_text(&client, "http://dual.test/").await.unwrap();
        eprintln!(
            "happy eyeballs: connected past a blackholed first address in {:?}",
            started.elapsed()
        );
        assert_eq!(text, "live");
        assert_eq!(live.counts.accepts(), 1);
    })
    .await
    .unwrap();
}

/// Whether `error` is a connect timeout.
fn is_connect_timeout(error: &Error) -> bool {
    matches!(
        error.network_error(),
        Some(NetworkError::Timeout {
            kind: TimeoutKind::Connect,
            ..
        })
    )
}

#[tokio::test]
async fn every_address_gets_a_try_within_a_connect_timeout_shorter_than_the_delay() {
    // 100 ms for two addresses: waiting the 250 ms delay for the first would leave the
    // second none, so the second starts once the first has had its half.
    timeout(LIMIT, async {
        let (blackholed, _keep) = blackholed_address().await;
        let live = live_server().await;
        let client = Client::builder()
            .resolver(Fixed::new(vec![blackholed, live.addr]))
            .connect_timeout(Duration::from_millis(100))
            .build()
            .unwrap();
        let started = Instant::now();
        let text = fetch_text(&client, "http://dual.test/").await.unwrap();
        eprintln!(
            "connect timeout of 100 ms over 2 addresses, the first blackholed: connected in {:?}",
            started.elapsed()
        );
        assert_eq!(text, "live");
        assert_eq!(live.counts.accepts(), 1);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn the_connect_timeout_is_shared_among_every_address_not_just_two() {
    // Two blackholed addresses before the live one, a delay (2 s) far past the connect
    // timeout (600 ms): the third is reached only if each gets its share.
    timeout(LIMIT, async {
        let (blackholed, _keep) = blackholed_address().await;
        let live = live_server().await;
        let client = Client::builder()
            .resolver(Fixed::new(vec![blackholed, blackholed, live.addr]))
            .happy_eyeballs_delay(Duration::from_secs(2))
            .connect_timeout(Duration::from_millis(600))
            .build()
            .unwrap();
        assert_eq!(
            fetch_text(&client, "http://triple.test/").await.unwrap(),
            "live"
        );
        assert_eq!(live.counts.accepts(), 1);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn addresses_that_all_stall_fail_with_the_connect_timeout_and_not_before() {
    // The last attempt is not cut off at its share: it runs to the connect timeout.
    timeout(LIMIT, async {
        let (blackholed, _keep) = blackholed_address().await;
        let client = Client::builder()
            .resolver(Fixed::new(vec![blackholed, blackholed]))
            .connect_timeout(Duration::from_millis(400))
            .build()
            .unwrap();
        let started = Instant::now();
        let error = fetch_text(&client, "http://stalled.test/")
            .await
            .unwrap_err();
        let elapsed = started.elapsed();
        assert!(is_connect_timeout(&error), "{error:?}");
        assert!(elapsed >= Duration::from_millis(400), "{elapsed:?}");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn extreme_connect_timeouts_and_delays_neither_panic_nor_misbehave() {
    timeout(LIMIT, async {
        let live = live_server().await;
        let refused = refusing_address().await;
        let extremes = [Duration::MAX, Duration::ZERO, Duration::from_nanos(1)];
        for connect_timeout in extremes {
            for delay in extremes {
                let client = Client::builder()
                    .resolver(Fixed::new(vec![refused, live.addr]))
                    .connect_timeout(connect_timeout)
                    .happy_eyeballs_delay(delay)
                    .build()
                    .unwrap();
                let result = fetch_text(&client, "http://extreme.test/").await;
                let case = format!("connect timeout {connect_timeout:?}, delay {delay:?}");
                match result {
                    Ok(text) => assert_eq!(text, "live", "{case}"),
                    // Too short to connect in: a connect timeout, nothing else.
                    Err(error) => {
                        assert!(
                            connect_timeout < Duration::from_millis(1)
                                && is_connect_timeout(&error),
                            "{case}: {error:?}"
                        );
                    }
                }
                // Time enough: it connects, by a literal address too.
                if connect_timeout == Duration::MAX {
                    let text = fetch_text(&client, &live.url("/")).await;
                    assert_eq!(text.unwrap(), "live", "{case}");
                }
            }
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_refused_address_is_followed_at_once_by_the_next() {
    // The delay is longer than the connect timeout: only starting the next attempt when
    // the first fails can connect in time.
    timeout(LIMIT, async {
        let refused = refusing_address().await;
        let live = live_server().await;
        let client = Client::builder()
            .resolver(Fixed::new(vec![refused, live.addr]))
            .happy_eyeballs_delay(Duration::from_secs(2))
            .connect_timeout(Duration::from_millis(1000))
            .build()
            .unwrap();
        assert_eq!(
            fetch_text(&client, "http://dual.test/").await.unwrap(),
            "live"
        );
    })
    .await
    .unwrap();
}

/// 1,000 addresses of port `port` for a resolver to give: loopback addresses nothing
/// listens on (127.1.x.y, refused at once), but 127.0.0.1 at `live_at`.
fn thousand_addresses(port: u16, live_at: usize) -> Vec<SocketAddr> {
    (0..1000u16)
        .map(|n| match usize::from(n) == live_at {
            true => SocketAddr::from(([127, 0, 0, 1], port)),
            false => SocketAddr::from(([127, 1, (n >> 8) as u8, n as u8], port)),
        })
        .collect()
}

#[tokio::test]
async fn of_a_resolvers_thousand_addresses_the_last_of_the_first_32_is_reached() {
    timeout(LIMIT, async {
        assert_eq!(whatwg_fetch::net::MAX_CONNECT_ADDRESSES, 32);
        let live = live_server().await;
        let client = Client::builder()
            .resolver(Fixed::new(thousand_addresses(live.addr.port(), 31)))
            .build()
            .unwrap();
        let url = format!("http://many.test:{}/", live.addr.port());
        assert_eq!(fetch_text(&client, &url).await.unwrap(), "live");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn of_a_resolvers_thousand_addresses_no_more_than_32_are_tried() {
    timeout(LIMIT, async {
        // The only address that would connect is the 33rd: a connect path that tried
        // them all would reach it (after 32 refusals, 10 ms apart).
        let live = live_server().await;
        let addrs = thousand_addresses(live.addr.port(), 32);
        let client = Client::builder()
            .resolver(Fixed::new(addrs.clone()))
            .build()
            .unwrap();
        let url = format!("http://many.test:{}/", live.addr.port());
        let error = fetch_text(&client, &url).await.unwrap_err();
        let connect = connect_error(&error);
        let tried: Vec<SocketAddr> = connect.attempts().map(|(addr, _)| addr).collect();
        assert_eq!(tried, addrs[..32]);
        assert_eq!(live.counts.accepts(), 0, "the 33rd address was not tried");

        // The same cap for `resolve_with`, which answers without a `Resolve`.
        let client = Client::builder()
            .resolve_with(move |_| Some(addrs.clone()))
            .build()
            .unwrap();
        let error = fetch_text(&client, &url).await.unwrap_err();
        assert_eq!(connect_error(&error).attempts().len(), 32);
        assert_eq!(live.counts.accepts(), 0);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn when_every_address_fails_the_error_names_each_with_its_error() {
    timeout(LIMIT, async {
        let (one, two) = (refusing_address().await, refusing_address().await);
        let client = Client::builder()
            .resolver(Fixed::new(vec![one, two]))
            .build()
            .unwrap();
        let error = fetch_text(&client, "http://dead.test/").await.unwrap_err();
        let connect = connect_error(&error);
        let tried: Vec<SocketAddr> = connect.attempts().map(|(addr, _)| addr).collect();
        assert_eq!(tried, vec![one, two]);
        assert!(
            connect
                .attempts()
                .all(|(_, error)| error.kind() == std::io::ErrorKind::ConnectionRefused)
        );
        let message = connect.to_string();
        assert!(message.contains(&format!("{one}: ")), "{message}");
        assert!(message.contains(&format!("{two}: ")), "{message}");
        eprintln!("every address failed: {message}");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn one_refused_address_is_named_in_the_error() {
    timeout(LIMIT, async {
        let dead = refusing_address().await;
        let client = Client::builder().build().unwrap();
        let error = fetch_text(&client, &format!("http://{dead}/"))
            .await
            .unwrap_err();
        let connect = connect_error(&error);
        assert!(
            said(connect).starts_with(&format!("connect to {dead} failed: ")),
            "{connect}"
        );
        let io = connect.source().unwrap();
        assert!(
            io.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        );
    })
    .await
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Resolvers

#[tokio::test]
async fn the_resolver_answers_the_names_the_overrides_leave() {
    timeout(LIMIT, async {
        let live = live_server().await;
        // Port 0: the URL's port.
        let resolver = Fixed::new(vec![SocketAddr::new([127, 0, 0, 1].into(), 0)]);
        let client = Client::builder()
            .resolver(resolver.clone())
            .resolve("pinned.test", live.addr)
            .build()
            .unwrap();
        let port = live.addr.port();
        let url = format!("http://Service.Test:{port}/");
        assert_eq!(fetch_text(&client, &url).await.unwrap(), "live");
        assert_eq!(
            fetch_text(&client, "http://pinned.test/").await.unwrap(),
            "live"
        );
        let literal = format!("http://127.0.0.1:{port}/");
        assert_eq!(fetch_text(&client, &literal).await.unwrap(), "live");
        assert_eq!(resolver.asked(), vec!["service.test".to_owned()]);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_resolver_error_is_a_dns_error_naming_the_host() {
    timeout(LIMIT, async {
        let client = Client::builder()
            .resolver(Arc::new(Failing))
            .build()
            .unwrap();
        let error = fetch_text(&client, "http://nonexistent.invalid/")
            .await
            .unwrap_err();
        let Some(NetworkError::Dns(source)) = error.network_error() else {
            panic!("not a DNS error: {error:?}");
        };
        let dns = source.downcast_ref::<DnsError>().unwrap();
        assert_eq!(dns.host(), "nonexistent.invalid");
        assert!(
            said(dns).starts_with("DNS lookup of nonexistent.invalid failed: "),
            "{dns}"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_resolver_with_no_addresses_is_a_dns_error() {
    timeout(LIMIT, async {
        let client = Client::builder()
            .resolver(Fixed::new(Vec::new()))
            .build()
            .unwrap();
        let error = fetch_text(&client, "http://empty.test/").await.unwrap_err();
        let Some(NetworkError::Dns(source)) = error.network_error() else {
            panic!("not a DNS error: {error:?}");
        };
        assert_eq!(
            source.downcast_ref::<DnsError>().unwrap().host(),
            "empty.test"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn the_system_resolver_names_the_host_it_could_not_find() {
    timeout(LIMIT, async {
        let client = Client::builder().build().unwrap();
        // `.invalid` never resolves (RFC 6761 §6.4).
        let error = fetch_text(&client, "http://nonexistent.invalid/")
            .await
            .unwrap_err();
        let Some(NetworkError::Dns(source)) = error.network_error() else {
            panic!("not a DNS error: {error:?}");
        };
        assert!(
            said(source.as_ref()).starts_with("DNS lookup of nonexistent.invalid failed: "),
            "{source}"
        );
    })
    .await
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Socket options

/// A keep-alive server answering "ok" to each request; sends each connection's peer
/// address (the client's local address) to the receiver.
async fn peer_server() -> (Server, mpsc::UnboundedReceiver<SocketAddr>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = raw_server(move |mut stream| {
        let tx = tx.clone();
        async move {
            let _ = tx.send(stream.peer_addr().unwrap());
            while read_head(&mut stream).await.is_some() {
                let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                if stream.write_all(answer).await.is_err() {
                    return;
                }
            }
        }
    })
    .await;
    (server, rx)
}

/// The options of this process's TCP socket whose local address is `local`: keep-alive,
/// its idle time, and `TCP_NODELAY`. Linux only: it walks `/proc/self/fd`.
#[cfg(target_os = "linux")]
fn socket_options(local: SocketAddr) -> (bool, Duration, bool) {
    use std::os::fd::BorrowedFd;
    for entry in std::fs::read_dir("/proc/self/fd").unwrap() {
        let entry = entry.unwrap();
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if !is_socket {
            continue;
        }
        // SAFETY: only getsockname and getsockopt are called on the descriptor, which
        // cannot harm it; one that another thread closed meanwhile fails them with EBADF.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let socket = socket2::SockRef::from(&fd);
        let Some(addr) = socket.local_addr().ok().and_then(|a| a.as_socket()) else {
            continue;
        };
        if addr == local && socket.peer_addr().is_ok() {
            return (
                socket.keepalive().unwrap(),
                socket.tcp_keepalive_time().unwrap(),
                socket.tcp_nodelay().unwrap(),
            );
        }
    }
    panic!("no socket of this process has the local address {local}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn connections_are_made_from_the_local_address() {
    // All of 127.0.0.0/8 is loopback on Linux.
    timeout(LIMIT, async {
        let (server, mut peers) = peer_server().await;
        let local: IpAddr = [127, 0, 0, 2].into();
        let client = Client::builder()
            .local_address(Some(local))
            .build()
            .unwrap();
        assert_eq!(fetch_text(&client, &server.url("/")).await.unwrap(), "ok");
        assert_eq!(peers.recv().await.unwrap().ip(), local);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_local_address_of_the_other_family_is_a_connect_error_saying_so() {
    timeout(LIMIT, async {
        let live = live_server().await;
        let client = Client::builder()
            .local_address(Some("::1".parse().unwrap()))
            .build()
            .unwrap();
        let error = fetch_text(&client, &live.url("/")).await.unwrap_err();
        let connect = connect_error(&error);
        assert_eq!(connect.attempts().len(), 1);
        let message = said(connect);
        assert!(
            message.contains(&live.addr.to_string())
                && message.contains("the local address ::1 is IPv6"),
            "{message}"
        );
        assert_eq!(live.counts.accepts(), 0);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_local_address_skips_only_the_addresses_of_the_other_family() {
    timeout(LIMIT, async {
        let live = live_server().await;
        let v6 = SocketAddr::new("::1".parse().unwrap(), live.addr.port());
        let client = Client::builder()
            .resolver(Fixed::new(vec![v6, live.addr]))
            .local_address(Some([127, 0, 0, 1].into()))
            .build()
            .unwrap();
        assert_eq!(
            fetch_text(&client, "http://dual.test/").await.unwrap(),
            "live"
        );
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn tcp_keepalive_turns_on_keepalive_probes_with_its_idle_time() {
    timeout(LIMIT, async {
        let (server, mut peers) = peer_server().await;
        let client = Client::builder()
            .tcp_keepalive(Some(Duration::from_secs(42)))
            .build()
            .unwrap();
        assert_eq!(fetch_text(&client, &server.url("/")).await.unwrap(), "ok");
        let local = peers.recv().await.unwrap();
        // The connection sits idle in the client's pool.
        #[cfg(target_os = "linux")]
        {
            let (keepalive, idle, _) = socket_options(local);
            assert!(keepalive);
            assert_eq!(idle, Duration::from_secs(42));
        }
        let _ = local;
        // And without it, none.
        let (server, mut peers) = peer_server().await;
        let client = Client::builder().build().unwrap();
        assert_eq!(fetch_text(&client, &server.url("/")).await.unwrap(), "ok");
        let local = peers.recv().await.unwrap();
        #[cfg(target_os = "linux")]
        assert!(!socket_options(local).0);
        let _ = local;
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn tcp_nodelay_is_on_by_default_and_can_be_turned_off() {
    timeout(LIMIT, async {
        for nodelay in [true, false] {
            let (server, mut peers) = peer_server().await;
            let mut builder = Client::builder();
            if !nodelay {
                builder = builder.tcp_nodelay(false);
            }
            let client = builder.build().unwrap();
            assert_eq!(fetch_text(&client, &server.url("/")).await.unwrap(), "ok");
            // A second request on the same connection.
            assert_eq!(fetch_text(&client, &server.url("/")).await.unwrap(), "ok");
            assert_eq!(server.counts.accepts(), 1);
            let local = peers.recv().await.unwrap();
            #[cfg(target_os = "linux")]
            assert_eq!(socket_options(local).2, nodelay);
            let _ = local;
        }
    })
    .await
    .unwrap();
}

// ---------------------------------------------------------------------------------------
// Unix domain sockets

#[cfg(unix)]
mod unix {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::net::UnixListener;
    use whatwg_fetch::net::{HyperTransport, SendOptions, Transport};

    /// A socket path in the temporary directory, removed when dropped.
    struct SocketPath(PathBuf);

    impl SocketPath {
        fn new(name: &str) -> SocketPath {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::SeqCst);
            let file = format!("whatwg-fetch-{}-{name}-{n}.sock", std::process::id());
            let path = std::env::temp_dir().join(file);
            let _ = std::fs::remove_file(&path);
            SocketPath(path)
        }
    }

    impl Drop for SocketPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// A server on the Unix socket at `path` answering each request with its method,
    /// target, `Host` and protocol version; TLS with `acceptor` if given. Returns its
    /// accept count.
    fn unix_server(path: &Path, acceptor: Option<tokio_rustls::TlsAcceptor>) -> Arc<AtomicUsize> {
        let listener = UnixListener::bind(path).unwrap();
        let accepts = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&accepts);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let service =
                        service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                            let host = req
                                .headers()
                                .get("host")
                                .map(|host| String::from_utf8_lossy(host.as_bytes()).into_owned())
                                .or_else(|| req.uri().host().map(str::to_owned))
                                .unwrap_or_default();
                            let text = format!(
                                "{} {} {host} {:?}",
                                req.method(),
                                req.uri().path(),
                                req.version()
                            );
                            Ok::<_, Infallible>(http::Response::new(full(text)))
                        });
                    match acceptor {
                        None => {
                            let _ = hyper::server::conn::http1::Builder::new()
                                .serve_connection(TokioIo::new(stream), service)
                                .await;
                        }
                        Some(acceptor) => {
                            let Ok(tls) = acceptor.accept(stream).await else {
                                return;
                            };
                            let _ = hyper::server::conn::http2::Builder::new(
                                hyper_util::rt::TokioExecutor::new(),
                            )
                            .serve_connection(TokioIo::new(tls), service)
                            .await;
                        }
                    }
                });
            }
        });
        accepts
    }

    #[tokio::test]
    async fn a_unix_socket_client_sends_every_request_to_the_socket() {
        timeout(LIMIT, async {
            let path = SocketPath::new("http");
            let accepts = unix_server(&path.0, None);
            let client = Client::builder().unix_socket(&path.0).build().unwrap();
            assert_eq!(
                fetch_text(&client, "http://localhost/x").await.unwrap(),
                "GET /x localhost HTTP/1.1"
            );
            // The same origin reuses its pooled connection; another origin gets its own,
            // to the same socket.
            assert_eq!(
                fetch_text(&client, "http://localhost/y").await.unwrap(),
                "GET /y localhost HTTP/1.1"
            );
            assert_eq!(accepts.load(Ordering::SeqCst), 1);
            assert_eq!(
                fetch_text(&client, "http://api.test:8080/z").await.unwrap(),
                "GET /z api.test:8080 HTTP/1.1"
            );
            assert_eq!(accepts.load(Ordering::SeqCst), 2);
        })
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn https_over_a_unix_socket_checks_the_url_host_and_negotiates_h2() {
        timeout(LIMIT, async {
            let pki = TestPki::new(&["localhost"]);
            let path = SocketPath::new("https");
            unix_server(&path.0, Some(pki.acceptor(&[b"h2"])));
            let transport = HyperTransport::builder()
                .tls_built_in_roots(false)
                .add_root_certificates_pem(pki.ca_pem.as_bytes())
                .unwrap()
                .unix_socket(&path.0)
                .build()
                .unwrap();
            let response = transport
                .send(get("https://localhost/secure"), SendOptions::new())
                .await
                .unwrap();
            assert_eq!(response.version(), http::Version::HTTP_2);
            let body = read_all(response.into_body()).await.unwrap();
            assert_eq!(body, "GET /secure localhost HTTP/2.0");
            // A host the certificate does not name fails the handshake.
            let error = transport
                .send(get("https://other.test/"), SendOptions::new())
                .await
                .unwrap_err();
            assert!(matches!(error, NetworkError::Tls(_)), "{error:?}");
        })
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn a_missing_unix_socket_is_a_connect_error_naming_the_path() {
        timeout(LIMIT, async {
            let path = SocketPath::new("missing");
            let client = Client::builder().unix_socket(&path.0).build().unwrap();
            let error = fetch_text(&client, "http://localhost/").await.unwrap_err();
            let connect = connect_error(&error);
            assert_eq!(connect.unix_socket(), Some(path.0.as_path()));
            assert_eq!(connect.attempts().len(), 0);
            let message = said(connect);
            let expected = format!("connect to unix socket {} failed: ", path.0.display());
            assert!(message.starts_with(&expected), "{message}");
            let io = connect.source().unwrap().downcast_ref::<std::io::Error>();
            assert_eq!(io.unwrap().kind(), std::io::ErrorKind::NotFound);
            eprintln!("missing socket: {message}");
        })
        .await
        .unwrap();
    }
}

//! `socks_reply`: what a SOCKS5 proxy answers (RFC 1928, RFC 1929), through the crate's
//! own SOCKS client (`net/socks.rs`): a `Client` whose proxy is a listener on 127.0.0.1
//! fetches `http://example.test/`, so nothing leaves the machine. After a successful
//! reply the same connection carries the HTTP/1.1 exchange.
//!
//! Byte 0 picks the client and how the proxy answers:
//!
//! - bit 0: `socks5h:` (the name goes to the proxy) rather than `socks5:` (the client
//!   resolves `example.test` itself, to 192.0.2.1, or with bit 4 to 2001:db8::1);
//! - bit 1: the proxy URL carries a username and password (`fuzz`, `pw`), so the client
//!   offers RFC 1929 authentication beside none;
//! - bit 2: the proxy writes the whole rest of the input at once after the client's
//!   greeting, rather than each reply after the message it answers;
//! - bit 3: the proxy writes in pieces of one to four bytes (bits 5–6, plus one);
//! - bit 7: after a reply that opens the tunnel, the proxy answers the HTTP request with
//!   a fixed `200` (`ok`) rather than with the rest of the input.
//!
//! The rest is what the proxy sends: the method selection, the authentication status if
//! that method was chosen, the `CONNECT` reply, and then the HTTP response.
//!
//! Checked beyond "no panic": the fetch ends within [`HANG`]; the client sends the
//! greeting, credentials, `CONNECT` request and origin-form request head RFC 1928 and
//! RFC 1929 say; and the outcome is the one the target's own reading of the reply
//! ([`expect`]) predicts: a refusal is an error whose source is a `SocksRefused` with the
//! reason the proxy gave, a malformed or cut reply is a protocol error, both naming
//! SOCKS5 in their message, and a reply that opens the tunnel leads to the response sent
//! after it.

use std::error::Error as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use whatwg_fetch::net::{Proxy, SocksRefusal, SocksRefused};
use whatwg_fetch::{Client, NetworkError, RequestInit};

use crate::MAX_INPUT;
use crate::http1::lock;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// How long the proxy waits for each message of the client's.
const READ_WAIT: Duration = Duration::from_secs(1);

/// The most body bytes read from one response.
const MAX_BODY: usize = 1 << 20;

/// The name fetched; `socks5:` clients resolve it to [`IPV4`] or [`IPV6`].
const HOST: &str = "example.test";
/// What a `socks5:` client resolves [`HOST`] to.
const IPV4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
/// What a `socks5:` client with byte 0's bit 4 resolves [`HOST`] to.
const IPV6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
/// The credentials in the proxy URL of a client with byte 0's bit 1.
const USERNAME: &[u8] = b"fuzz";
/// The password beside [`USERNAME`].
const PASSWORD: &[u8] = b"pw";

/// The response the proxy sends after the reply with byte 0's bit 7.
const FIXED_RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

/// What byte 0 of an input picks.
#[derive(Clone, Copy, Debug)]
struct Mode {
    /// `socks5h:`: the proxy resolves the name.
    remote_dns: bool,
    /// The proxy URL carries credentials.
    credentials: bool,
    /// Everything written after the greeting, at once.
    whole: bool,
    /// The size of the pieces the proxy writes in, if it cuts them.
    pieces: Option<usize>,
    /// A `socks5:` client resolves [`HOST`] to [`IPV6`].
    ipv6: bool,
    /// The HTTP response is [`FIXED_RESPONSE`].
    fixed_response: bool,
}

impl Mode {
    /// What byte 0 of an input picks.
    fn new(byte: u8) -> Mode {
        Mode {
            remote_dns: byte & 1 != 0,
            credentials: byte & 2 != 0,
            whole: byte & 4 != 0,
            pieces: (byte & 8 != 0).then_some(usize::from((byte >> 5) & 3) + 1),
            ipv6: byte & 16 != 0,
            fixed_response: byte & 128 != 0,
        }
    }

    /// Which of the [`Peer`]'s clients: bits 0, 1 and 4 of byte 0.
    fn client(self) -> usize {
        usize::from(self.remote_dns)
            | usize::from(self.credentials) << 1
            | usize::from(self.ipv6) << 2
    }

    /// The greeting the client sends (RFC 1928 §3).
    fn greeting(self) -> &'static [u8] {
        if self.credentials {
            &[5, 2, 0, 2]
        } else {
            &[5, 1, 0]
        }
    }

    /// The username/password request the client sends (RFC 1929 §2).
    fn authentication(self) -> Vec<u8> {
        let mut message = vec![1, USERNAME.len() as u8];
        message.extend_from_slice(USERNAME);
        message.push(PASSWORD.len() as u8);
        message.extend_from_slice(PASSWORD);
        message
    }

    /// The `CONNECT` request the client sends (RFC 1928 §4), to port 80.
    fn connect_request(self) -> Vec<u8> {
        let mut request = vec![5, 1, 0];
        if self.remote_dns {
            request.extend_from_slice(&[3, HOST.len() as u8]);
            request.extend_from_slice(HOST.as_bytes());
        } else if self.ipv6 {
            request.push(4);
            request.extend_from_slice(&IPV6.octets());
        } else {
            request.push(1);
            request.extend_from_slice(&IPV4.octets());
        }
        request.extend_from_slice(&80u16.to_be_bytes());
        request
    }
}

/// How the handshake must end, as RFC 1928 and RFC 1929 read the proxy's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// The tunnel is open; the HTTP response starts at this offset of the script.
    Open(usize),
    /// The proxy refused, for this reason.
    Refused(SocksRefusal),
    /// The proxy answered other than as the RFCs say, or stopped in the middle.
    Malformed,
}

/// The proxy's bytes cut into what it sends after each of the client's messages, and
/// the outcome the client must come to.
struct Plan<'a> {
    /// After the greeting: the method selection; after the credentials: their status;
    /// after the `CONNECT` request: the reply. Where the exchange goes wrong, the last
    /// holds all the rest.
    replies: Vec<&'a [u8]>,
    /// How the client must end the handshake.
    outcome: Outcome,
}

/// Reads `script` as a SOCKS5 proxy's answers to a client in `mode`.
fn expect(script: &[u8], mode: Mode) -> Plan<'_> {
    let mut replies = Vec::new();
    let mut at = 0;
    let outcome = 'read: {
        // RFC 1928 §3: VER | METHOD.
        let Some(&[version, method]) = script.get(at..at + 2) else {
            break 'read Outcome::Malformed;
        };
        if version != 5 {
            break 'read Outcome::Malformed;
        }
        match method {
            0 => {}
            2 if mode.credentials => {
                replies.push(&script[at..at + 2]);
                at += 2;
                // RFC 1929 §2: VER | STATUS.
                let Some(&[version, status]) = script.get(at..at + 2) else {
                    break 'read Outcome::Malformed;
                };
                if version != 1 {
                    break 'read Outcome::Malformed;
                }
                if status != 0 {
                    break 'read Outcome::Refused(SocksRefusal::AuthenticationFailed);
                }
            }
            0xFF => break 'read Outcome::Refused(SocksRefusal::NoAcceptableMethod),
            _ => break 'read Outcome::Malformed,
        }
        replies.push(&script[at..at + 2]);
        at += 2;
        // RFC 1928 §6: VER | REP | RSV | ATYP | BND.ADDR | BND.PORT.
        let Some(&[version, reply, _, address_type]) = script.get(at..at + 4) else {
            break 'read Outcome::Malformed;
        };
        if version != 5 {
            break 'read Outcome::Malformed;
        }
        if reply != 0 {
            break 'read Outcome::Refused(SocksRefusal::Reply(reply));
        }
        let address = match address_type {
            1 => 4,
            4 => 16,
            3 => match script.get(at + 4) {
                Some(&length) => 1 + usize::from(length),
                None => break 'read Outcome::Malformed,
            },
            _ => break 'read Outcome::Malformed,
        };
        let end = at + 4 + address + 2;
        if script.len() < end {
            break 'read Outcome::Malformed;
        }
        replies.push(&script[at..end]);
        at = end;
        Outcome::Open(at)
    };
    if outcome == Outcome::Open(at) {
        return Plan { replies, outcome };
    }
    // The reply that went wrong, and whatever follows it.
    replies.push(&script[at..]);
    Plan { replies, outcome }
}

/// The input the proxy answers with, and what it saw of the client.
struct Current {
    /// Counts the inputs, so that a connection of an earlier one does not report here.
    generation: u64,
    /// Byte 0 and the proxy's bytes.
    input: Bytes,
    /// What the client sent that it should not have, first of all.
    wrong: Option<String>,
}

/// The process-wide runtime, listener and clients.
struct Peer {
    /// Runs the listener, the connections it answers and the fetches.
    runtime: Runtime,
    /// The input and what the proxy saw of the client.
    current: Arc<Mutex<Current>>,
    /// The clients [`Mode::client`] picks.
    clients: Vec<Client>,
    /// The proxy's `host:port`.
    authority: String,
    /// One input at a time (cargo test runs the replays on several threads).
    exclusive: Mutex<()>,
}

/// The process's [`Peer`], made on first use.
fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        let (runtime, listener, addr) = crate::peer_listener();
        let current = Arc::new(Mutex::new(Current {
            generation: 0,
            input: Bytes::new(),
            wrong: None,
        }));
        runtime.spawn(serve(listener, Arc::clone(&current)));
        let _entered = runtime.enter();
        let clients = (0..8)
            .map(|index| {
                let scheme = if index & 1 != 0 { "socks5h" } else { "socks5" };
                let userinfo = if index & 2 != 0 { "fuzz:pw@" } else { "" };
                let ip = if index & 4 != 0 {
                    IpAddr::V6(IPV6)
                } else {
                    IpAddr::V4(IPV4)
                };
                let proxy =
                    Proxy::all(&format!("{scheme}://{userinfo}{addr}")).expect("a proxy URL");
                Client::builder()
                    .proxy(proxy)
                    .resolve_with(move |host| (host == HOST).then(|| vec![SocketAddr::new(ip, 0)]))
                    .max_idle_per_origin(0)
                    .connect_timeout(Duration::from_secs(2))
                    .build()
                    .expect("a client")
            })
            .collect();
        Peer {
            runtime,
            current,
            clients,
            authority: addr.to_string(),
            exclusive: Mutex::new(()),
        }
    })
}

/// Answers every connection to `listener` with the current input.
async fn serve(listener: TcpListener, current: Arc<Mutex<Current>>) {
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            let (generation, input) = {
                let current = lock(&current);
                (current.generation, current.input.clone())
            };
            let report = Report {
                current: Arc::clone(&current),
                generation,
            };
            tokio::spawn(answer(stream, input, report));
        }
    }
}

/// Where a connection notes what the client got wrong.
struct Report {
    /// The state the peer shares with the target.
    current: Arc<Mutex<Current>>,
    /// The input the connection answers with.
    generation: u64,
}

impl Report {
    /// Notes `what`, unless something was noted first or another input is on.
    fn wrong(&self, what: String) {
        let mut current = lock(&self.current);
        if current.generation == self.generation && current.wrong.is_none() {
            current.wrong = Some(what);
        }
    }
}

/// Plays the proxy on one connection: reads each of the client's messages, checks it,
/// and answers as the input says.
async fn answer(mut stream: TcpStream, input: Bytes, report: Report) {
    let _ = stream.set_nodelay(true);
    let Some((&mode, script)) = input.split_first() else {
        return;
    };
    let mode = Mode::new(mode);
    let plan = expect(script, mode);
    if !receive(&mut stream, mode.greeting(), "greeting", &report).await {
        return;
    }
    if mode.whole {
        // The whole script at once, the HTTP response with it; or, for the fixed
        // response, the handshake's part at once, and the response to the request.
        let handshake = match (plan.outcome, mode.fixed_response) {
            (Outcome::Open(at), true) => script.get(..at).unwrap_or_default(),
            _ => script,
        };
        if send(&mut stream, handshake, mode).await.is_err() {
            return;
        }
        if let (Outcome::Open(_), true) = (plan.outcome, mode.fixed_response) {
            // The client's messages, unread so far, come before its request head.
            for (message, what) in messages(mode, script) {
                if !receive(&mut stream, &message, what, &report).await {
                    return;
                }
            }
            if !receive_head(&mut stream, &report).await {
                return;
            }
            let _ = send(&mut stream, FIXED_RESPONSE, mode).await;
        }
        finish(stream).await;
        return;
    }
    // What the client sends after each reply but the last, while the exchange goes on.
    let messages = messages(mode, script);
    let last = plan.replies.len().saturating_sub(1);
    for (index, reply) in plan.replies.iter().enumerate() {
        if send(&mut stream, reply, mode).await.is_err() {
            return;
        }
        if index == last {
            break;
        }
        let Some((message, what)) = messages.get(index) else {
            break;
        };
        if !receive(&mut stream, message, what, &report).await {
            return;
        }
    }
    if let Outcome::Open(at) = plan.outcome {
        if !receive_head(&mut stream, &report).await {
            return;
        }
        let response = if mode.fixed_response {
            FIXED_RESPONSE
        } else {
            script.get(at..).unwrap_or_default()
        };
        let _ = send(&mut stream, response, mode).await;
    }
    finish(stream).await;
}

/// What the client sends after the greeting, in order, as far as the exchange goes on:
/// its credentials if the proxy chose username/password, then its `CONNECT` request.
fn messages(mode: Mode, script: &[u8]) -> Vec<(Vec<u8>, &'static str)> {
    let mut messages = Vec::new();
    if mode.credentials && script.get(..2) == Some(&[5, 2][..]) {
        messages.push((mode.authentication(), "username/password request"));
    }
    messages.push((mode.connect_request(), "CONNECT request"));
    messages
}

/// Reads the client's next message, which must be `message`; notes it if not.
async fn receive(stream: &mut TcpStream, message: &[u8], what: &str, report: &Report) -> bool {
    let mut got = vec![0u8; message.len()];
    match tokio::time::timeout(READ_WAIT, stream.read_exact(&mut got)).await {
        Ok(Ok(_)) if got == message => true,
        Ok(Ok(_)) => {
            report.wrong(format!("the client's {what} was {got:?}, not {message:?}"));
            false
        }
        Ok(Err(error)) => {
            report.wrong(format!("the client sent no {what}: {error}"));
            false
        }
        Err(_) => {
            report.wrong(format!("the client sent no {what} within {READ_WAIT:?}"));
            false
        }
    }
}

/// Reads the client's HTTP request head, which must be in origin-form for [`HOST`].
async fn receive_head(stream: &mut TcpStream, report: &Report) -> bool {
    let mut head = Vec::new();
    let mut buf = [0; 4096];
    let reading = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() <= 65536 {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(buf.get(..n).unwrap_or_default()),
            }
        }
    };
    let _ = tokio::time::timeout(READ_WAIT, reading).await;
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    if !text.starts_with("get / http/1.1\r\n") || !text.contains("\r\nhost: example.test\r\n") {
        report.wrong(format!("the request head through the tunnel was {text:?}"));
        return false;
    }
    true
}

/// Writes `bytes`, whole or in the mode's pieces.
async fn send(stream: &mut TcpStream, bytes: &[u8], mode: Mode) -> std::io::Result<()> {
    match mode.pieces {
        None => stream.write_all(bytes).await,
        Some(size) => {
            for piece in bytes.chunks(size) {
                stream.write_all(piece).await?;
                stream.flush().await?;
                tokio::task::yield_now().await;
            }
            Ok(())
        }
    }
}

/// Closes the proxy's side, then reads what the client still sends until it closes its
/// own, so that nothing unread turns the close into a reset.
async fn finish(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let mut buf = [0; 4096];
    let draining = async { while let Ok(1..) = stream.read(&mut buf).await {} };
    let _ = tokio::time::timeout(Duration::from_secs(2), draining).await;
}

/// The error and its sources, one line.
fn chain(error: &whatwg_fetch::Error) -> String {
    format!("{error:#}")
}

/// The `SocksRefused` among the error's sources.
fn refusal(error: &whatwg_fetch::Error) -> Option<&SocksRefused> {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<SocksRefused>() {
            return Some(refused);
        }
        source = cause.source();
    }
    None
}

/// `Err(what)` unless `holds`.
fn ensure(holds: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(what()) }
}

/// Fetches [`HOST`] through the proxy and checks the outcome against `outcome`; `Err`
/// says how they differ.
async fn fetch(peer: &Peer, mode: Mode, outcome: Outcome) -> Result<(), String> {
    let client = peer.clients.get(mode.client()).expect("a client per mode");
    let result = client
        .fetch(&*format!("http://{HOST}/"), RequestInit::default())
        .await;
    match (outcome, result) {
        (Outcome::Open(_), Ok(mut response)) => {
            let mut read = Vec::new();
            if let Some(mut body) = response.take_body() {
                while let Some(Ok(chunk)) = body.next().await {
                    read.extend_from_slice(&chunk);
                    if read.len() > MAX_BODY {
                        break;
                    }
                }
            }
            if mode.fixed_response {
                let status = response.status();
                ensure(status == 200 && read == b"ok", || {
                    format!("the fixed response came as {status} {read:?}")
                })?;
            }
            Ok(())
        }
        (Outcome::Open(_), Err(error)) => {
            let message = chain(&error);
            ensure(!mode.fixed_response, || {
                format!("the tunnel opened and a valid response came, yet: {message}")
            })?;
            ensure(refusal(&error).is_none(), || {
                format!("a refusal after the tunnel opened: {message}")
            })
        }
        (Outcome::Refused(reason), Err(error)) => {
            let message = chain(&error);
            ensure(message.contains("SOCKS5"), || {
                format!("a refusal not naming SOCKS5: {message}")
            })?;
            ensure(
                matches!(error.network_error(), Some(NetworkError::Connect(_))),
                || format!("a refusal that is not a connect error: {message}"),
            )?;
            let Some(refused) = refusal(&error) else {
                return Err(format!(
                    "expected {reason:?}, got no SocksRefused: {message}"
                ));
            };
            ensure(refused.reason() == reason, || {
                format!("expected {reason:?}, got {:?}: {message}", refused.reason())
            })?;
            let shown = refused.to_string();
            ensure(shown.contains(&peer.authority), || {
                format!("a refusal not naming the proxy: {shown}")
            })?;
            let named =
                !matches!(reason, SocksRefusal::Reply(_)) || shown.contains("example.test:80");
            ensure(named, || {
                format!("a refusal not naming the target: {shown}")
            })
        }
        (Outcome::Malformed, Err(error)) => {
            let message = chain(&error);
            ensure(
                message.contains("SOCKS5") && message.contains(&peer.authority),
                || format!("a malformed reply's error not naming the SOCKS5 proxy: {message}"),
            )?;
            ensure(
                matches!(error.network_error(), Some(NetworkError::Protocol(_))),
                || format!("a malformed reply that is not a protocol error: {message}"),
            )?;
            ensure(refusal(&error).is_none(), || {
                format!("a malformed reply taken for a refusal: {message}")
            })
        }
        (outcome, Ok(response)) => Err(format!(
            "expected {outcome:?}, got a response: {}",
            response.status()
        )),
    }
}

/// The `socks_reply` target: byte 0 picks the client and how the proxy answers, the rest
/// is what the proxy sends (see the module's documentation).
pub fn socks_reply(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some((&mode, script)) = data.split_first() else {
        return;
    };
    let mode = Mode::new(mode);
    let outcome = expect(script, mode).outcome;
    let peer = peer();
    let _exclusive = lock(&peer.exclusive);
    let generation = {
        let mut current = lock(&peer.current);
        current.generation += 1;
        current.input = Bytes::copy_from_slice(data);
        current.wrong = None;
        current.generation
    };
    let checked = peer
        .runtime
        .block_on(async { tokio::time::timeout(HANG, fetch(peer, mode, outcome)).await });
    let current = lock(&peer.current);
    assert_eq!(current.generation, generation);
    // What the proxy saw first: a client that sent the wrong message fails after it.
    if let Some(wrong) = &current.wrong {
        panic!("{wrong}");
    }
    match checked {
        Err(_) => panic!("the fetch through the SOCKS5 proxy took more than {HANG:?}"),
        Ok(Err(what)) => panic!("{what}"),
        Ok(Ok(())) => {}
    }
}

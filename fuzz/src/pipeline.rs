//! `http1_pipelined`: the responses a peer sends to HTTP/1.1 requests pipelined on one
//! connection (`ClientBuilder::http1_pipelining`, `net/pipeline.rs`), through the real
//! network layer and the fetch algorithm, up to the bodies the callers read.
//!
//! Per input, a client of its own (pipelining 2 to 4 deep, one connection per origin, no
//! idle connection kept) fetches 2 to 5 `GET`s at once; every request goes to one
//! listener per process, which tells the inputs' requests apart by their paths
//! (`/<round>/<request>`). The first connection of an input gets the input's bytes once it
//! has read the request heads it expects (as many as are written without waiting, or
//! what came in [`HEADS_WAIT`]); a later one (a request sent again, or a late one on a
//! pipeline of its own) gets the input again or, as byte 0 says, a fixed `200` whose
//! body is its request's path, for each of its requests. Either way, what the listener
//! writes does not depend on what the client does, so no input loops.
//!
//! Byte 0 says how: bits 0–1 the depth (2, 3, 4, 2), bits 2–3 the requests (2 to 5),
//! bit 4 writes the bytes in pieces (of byte 1's low six bits plus one, a yield between
//! two), bit 5 keeps the write side open for [`LINGER`] after writing (reading on; else
//! it shuts at once), bit 6 answers later connections with the input again (else the
//! fixed `200`), bit 7 builds the bytes from records (else they are the rest of the
//! input, as they are). The records are in [`Kind`]: each builds one response the target
//! knows the outcome of (its status and body, or an error, and whether the connection goes
//! on after it), but a raw one and a body cut short, after which nothing is predicted.
//!
//! What is checked, beyond no panic: every fetch and its body end within [`HANG`]; a body
//! is read whole or fails; each request is written at most twice (sent again once); a
//! request answered on a connection is not written again; a request left unanswered is
//! written again or fails; and the request that was the `i`th on a connection whose
//! first `i` responses are known and keep it open gets the `i`th response, its status and
//! its body, or fails when that response cannot be framed (order kept, nothing skipped
//! or answered twice). A request answered with the fixed `200` gets its own path.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use whatwg_fetch::{Client, RequestInit, RequestRedirect};

use crate::MAX_INPUT;
use crate::http1::lock;

/// How long one input's fetches may take, bodies read, before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// How long the listener waits for the request heads it expects before it writes.
const HEADS_WAIT: Duration = Duration::from_millis(200);

/// How long the listener keeps its write side open after writing, when byte 0 says so.
const LINGER: Duration = Duration::from_millis(100);

/// How long the listener reads a connection, at most, after writing.
const DRAIN: Duration = Duration::from_secs(2);

/// The statuses of the responses the records build: none that a fetch follows or
/// treats apart (redirects, 1xx, 204, 206, 304, 401, 407, 408).
const STATUSES: [u16; 10] = [200, 201, 202, 203, 400, 404, 410, 500, 502, 503];

/// The process-wide runtime and listener.
struct Peer {
    runtime: Runtime,
    addr: std::net::SocketAddr,
    /// The input being run, which the listener answers.
    current: Arc<Mutex<Option<Arc<Round>>>>,
    /// Connections accepted and not done with.
    open: Arc<AtomicUsize>,
    /// The number of the next round.
    rounds: AtomicU64,
    /// One input at a time (cargo test runs the replays on several threads).
    exclusive: Mutex<()>,
}

/// One input's run: what the listener writes, and what it saw.
struct Round {
    id: u64,
    plan: Plan,
    /// The paths of the request heads read on each connection, in the order they came,
    /// the connections in the order their first heads came.
    connections: Mutex<Vec<Vec<String>>>,
}

/// What a request ends with: its status and whole body, or an error.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Ok(u16, Bytes),
    Err,
}

/// What the request in one place of a connection that gets the input must end with.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expect {
    /// This, from the response in that place.
    Exact(Outcome),
    /// No response for it: the connection ended before; it goes again, or fails.
    Unanswered,
    /// Not predicted (a raw response, or one after it).
    Unknown,
}

/// An input, read.
struct Plan {
    depth: usize,
    requests: usize,
    /// The size of the pieces written, if in pieces.
    pieces: Option<usize>,
    /// Whether the write side stays open for [`LINGER`] after writing.
    linger: bool,
    /// Whether later connections get the input again (else the fixed `200`).
    resend_input: bool,
    /// What a connection that gets the input is sent.
    bytes: Bytes,
    /// What the request in each place of such a connection ends with; past the end,
    /// `after`.
    expected: Vec<Expect>,
    after: Expect,
}

impl Plan {
    fn expect(&self, index: usize) -> &Expect {
        self.expected.get(index).unwrap_or(&self.after)
    }
}

/// The kinds of the records, each a response (the kind byte's low four bits, modulo
/// their count; its high four bits are the kind's variant). Most are followed by a status
/// byte (an index into [`STATUSES`]) and a length byte (the filler after the body's
/// `[<index>]`, which makes each body its own).
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// `Content-Length`; variant bits: the name in lower case, the length twice
    /// (`n, n`), an `X-Index` field, `Connection: keep-alive`.
    Length,
    /// `Transfer-Encoding: chunked`; variant bits 0–1 the chunk size (1, 3, 7, 64),
    /// bit 2 a chunk extension, bit 3 a trailer field.
    Chunked,
    /// `Content-Length` and `Connection: close` (bit 0: `keep-alive, close`): the
    /// connection ends after it.
    Close,
    /// `HTTP/1.0` with `Content-Length`: the connection ends after it, unless bit 0
    /// adds `Connection: keep-alive`.
    Http10,
    /// One (bit 1: two) interim responses, `100` or (bit 0) `103` with a `Link`, then a
    /// `Content-Length` one.
    Interim,
    /// `204` or (bit 0) `304`, no body; bit 1 adds `Content-Length: 0`. No length byte.
    NoBody,
    /// No length: the body is every byte after the head; the connection ends.
    UntilClose,
    /// A response that cannot be framed (variant modulo 5: two `Content-Length`s, one
    /// not a number, a status of four digits, a chunk size not in hex, chunked in
    /// `HTTP/1.0`): its request fails, the connection ends. No status or length byte.
    Unframed,
    /// `Content-Length` past the body by variant + 1 bytes: what follows is read as
    /// the rest of it, or it is cut by the end. Nothing after it is predicted.
    Short,
    /// A length byte and that many bytes, as they are. Nothing after it is predicted.
    Raw,
}

const KINDS: [Kind; 10] = [
    Kind::Length,
    Kind::Chunked,
    Kind::Close,
    Kind::Http10,
    Kind::Interim,
    Kind::NoBody,
    Kind::UntilClose,
    Kind::Unframed,
    Kind::Short,
    Kind::Raw,
];

/// What the records built so far leave the connection in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Ended,
    Unknown,
}

/// Reads `data` into a [`Plan`].
fn plan(data: &[u8]) -> Plan {
    let mut input = crate::Reader::new(data);
    let flags = input.byte();
    let piece = input.byte();
    let mut plan = Plan {
        depth: [2, 3, 4, 2][usize::from(flags & 3)],
        requests: 2 + usize::from((flags >> 2) & 3),
        pieces: (flags & 0x10 != 0).then_some(1 + usize::from(piece & 0x3f)),
        linger: flags & 0x20 != 0,
        resend_input: flags & 0x40 != 0,
        bytes: Bytes::new(),
        expected: Vec::new(),
        after: Expect::Unknown,
    };
    if flags & 0x80 == 0 {
        plan.bytes = Bytes::copy_from_slice(input.rest());
        return plan;
    }
    let mut bytes = Vec::new();
    let mut state = State::Open;
    // Responses whose body is known only once every byte is: (index, status, offset of
    // the body, its length if bounded).
    let mut pending: Vec<(usize, u16, usize, Option<usize>)> = Vec::new();
    let mut index = 0;
    while !input.is_empty() {
        let byte = input.byte();
        let kind = KINDS[usize::from(byte & 0x0f) % KINDS.len()];
        let variant = byte >> 4;
        let expect = match kind {
            Kind::Length
            | Kind::Chunked
            | Kind::Close
            | Kind::Http10
            | Kind::Interim
            | Kind::UntilClose
            | Kind::Short => {
                let status = STATUSES[usize::from(input.byte()) % STATUSES.len()];
                let mut body = format!("[{index}]").into_bytes();
                let fill = b'a' + (index % 26) as u8;
                body.resize(body.len() + usize::from(input.byte()), fill);
                build(
                    kind,
                    variant,
                    status,
                    &body,
                    &mut bytes,
                    &mut pending,
                    index,
                )
            }
            Kind::NoBody => {
                let status = if variant & 1 == 0 { 204 } else { 304 };
                bytes.extend_from_slice(format!("HTTP/1.1 {status} X\r\n").as_bytes());
                if variant & 2 != 0 {
                    bytes.extend_from_slice(b"Content-Length: 0\r\n");
                }
                bytes.extend_from_slice(b"\r\n");
                (
                    Expect::Exact(Outcome::Ok(status, Bytes::new())),
                    State::Open,
                )
            }
            Kind::Unframed => {
                let head: &[u8] = match variant % 5 {
                    0 => b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
                    1 => b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n",
                    2 => b"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
                    3 => {
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nx\r\n0\r\n\r\n"
                    }
                    _ => b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                };
                bytes.extend_from_slice(head);
                (Expect::Exact(Outcome::Err), State::Ended)
            }
            Kind::Raw => {
                bytes.extend_from_slice(input.string());
                (Expect::Unknown, State::Unknown)
            }
        };
        if state == State::Open {
            plan.expected.push(expect.0);
            state = expect.1;
        }
        index += 1;
    }
    // The bodies read up to the close, or whose length reaches past their own.
    for (at, status, offset, length) in pending {
        let Some(Expect::Exact(outcome)) = plan.expected.get_mut(at) else {
            continue;
        };
        let end = length.map_or(Some(bytes.len()), |length| offset.checked_add(length));
        *outcome = match end.and_then(|end| bytes.get(offset..end)) {
            Some(body) => Outcome::Ok(status, Bytes::copy_from_slice(body)),
            None => Outcome::Err,
        };
    }
    plan.after = match state {
        State::Open | State::Ended => Expect::Unanswered,
        State::Unknown => Expect::Unknown,
    };
    plan.bytes = Bytes::from(bytes);
    plan
}

/// Writes one response of `kind` into `bytes`: what its request ends with, and what the
/// connection is left in.
fn build(
    kind: Kind,
    variant: u8,
    status: u16,
    body: &[u8],
    bytes: &mut Vec<u8>,
    pending: &mut Vec<(usize, u16, usize, Option<usize>)>,
    index: usize,
) -> (Expect, State) {
    let whole = Expect::Exact(Outcome::Ok(status, Bytes::copy_from_slice(body)));
    let len = body.len();
    let head = |bytes: &mut Vec<u8>, version: &str, fields: &str| {
        bytes.extend_from_slice(format!("{version} {status} X\r\n{fields}\r\n").as_bytes());
    };
    match kind {
        Kind::Length => {
            let name = if variant & 1 != 0 {
                "content-length"
            } else {
                "Content-Length"
            };
            let mut fields = match variant & 2 != 0 {
                true => format!("{name}: {len}, {len}\r\n"),
                false => format!("{name}: {len}\r\n"),
            };
            if variant & 4 != 0 {
                fields.push_str(&format!("X-Index: {index}\r\n"));
            }
            if variant & 8 != 0 {
                fields.push_str("Connection: keep-alive\r\n");
            }
            head(bytes, "HTTP/1.1", &fields);
            bytes.extend_from_slice(body);
            (whole, State::Open)
        }
        Kind::Chunked => {
            head(bytes, "HTTP/1.1", "Transfer-Encoding: chunked\r\n");
            let size = [1, 3, 7, 64][usize::from(variant & 3)];
            for chunk in body.chunks(size) {
                let extension = if variant & 4 != 0 { ";a=b" } else { "" };
                bytes.extend_from_slice(format!("{:X}{extension}\r\n", chunk.len()).as_bytes());
                bytes.extend_from_slice(chunk);
                bytes.extend_from_slice(b"\r\n");
            }
            bytes.extend_from_slice(b"0\r\n");
            if variant & 8 != 0 {
                bytes.extend_from_slice(b"X-Trailer: 1\r\n");
            }
            bytes.extend_from_slice(b"\r\n");
            (whole, State::Open)
        }
        Kind::Close => {
            let connection = if variant & 1 != 0 {
                "keep-alive, close"
            } else {
                "close"
            };
            head(
                bytes,
                "HTTP/1.1",
                &format!("Connection: {connection}\r\nContent-Length: {len}\r\n"),
            );
            bytes.extend_from_slice(body);
            (whole, State::Ended)
        }
        Kind::Http10 => {
            let keep_alive = variant & 1 != 0;
            let connection = if keep_alive {
                "Connection: keep-alive\r\n"
            } else {
                ""
            };
            head(
                bytes,
                "HTTP/1.0",
                &format!("{connection}Content-Length: {len}\r\n"),
            );
            bytes.extend_from_slice(body);
            (
                whole,
                if keep_alive {
                    State::Open
                } else {
                    State::Ended
                },
            )
        }
        Kind::Interim => {
            for _ in 0..1 + usize::from(variant >> 1 & 1) {
                bytes.extend_from_slice(match variant & 1 {
                    0 => b"HTTP/1.1 100 Continue\r\n\r\n".as_slice(),
                    _ => b"HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n",
                });
            }
            head(bytes, "HTTP/1.1", &format!("Content-Length: {len}\r\n"));
            bytes.extend_from_slice(body);
            (whole, State::Open)
        }
        Kind::UntilClose => {
            head(bytes, "HTTP/1.1", "");
            pending.push((index, status, bytes.len(), None));
            bytes.extend_from_slice(body);
            (whole, State::Ended)
        }
        Kind::Short => {
            let declared = len + 1 + usize::from(variant);
            head(
                bytes,
                "HTTP/1.1",
                &format!("Content-Length: {declared}\r\n"),
            );
            pending.push((index, status, bytes.len(), Some(declared)));
            bytes.extend_from_slice(body);
            (whole, State::Unknown)
        }
        Kind::NoBody | Kind::Unframed | Kind::Raw => (Expect::Unknown, State::Unknown),
    }
}

fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        let (runtime, listener, addr) = crate::peer_listener();
        let current = Arc::new(Mutex::new(None));
        let open = Arc::new(AtomicUsize::new(0));
        runtime.spawn(serve(listener, Arc::clone(&current), Arc::clone(&open)));
        Peer {
            runtime,
            addr,
            current,
            open,
            rounds: AtomicU64::new(0),
            exclusive: Mutex::new(()),
        }
    })
}

async fn serve(
    listener: TcpListener,
    current: Arc<Mutex<Option<Arc<Round>>>>,
    open: Arc<AtomicUsize>,
) {
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            open.fetch_add(1, Ordering::AcqRel);
            let current = Arc::clone(&current);
            let open = Arc::clone(&open);
            tokio::spawn(async move {
                answer(stream, current).await;
                open.fetch_sub(1, Ordering::AcqRel);
            });
        }
    }
}

/// One connection, as the listener reads it: request heads, each without a body.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    /// The path of the next request head, or `None` at the end.
    async fn head(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head: Vec<u8> = self.buf.drain(..end + 4).collect();
                let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
                let path = line.split(|&b| b == b' ').nth(1).unwrap_or_default();
                return Some(String::from_utf8_lossy(path).into_owned());
            }
            let mut chunk = [0; 4096];
            match self.stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => self
                    .buf
                    .extend_from_slice(chunk.get(..n).unwrap_or_default()),
            }
        }
    }

    /// Reads heads until the end, noting each in `round`'s connection `at`.
    async fn read_on(&mut self, round: &Round, at: usize) {
        while let Some(path) = self.head().await {
            note(round, at, path);
        }
    }

    /// Writes `bytes`, whole or in pieces of `pieces` with a yield between two, so that
    /// the client reads them apart.
    async fn write(&mut self, bytes: &[u8], pieces: Option<usize>) {
        let _ = self.stream.set_nodelay(true);
        for piece in bytes.chunks(pieces.unwrap_or(bytes.len()).max(1)) {
            if self.stream.write_all(piece).await.is_err() {
                return;
            }
            if pieces.is_some() {
                tokio::task::yield_now().await;
            }
        }
    }
}

/// Notes the head of `path` on `round`'s connection `at`.
fn note(round: &Round, at: usize, path: String) {
    if let Some(seen) = lock(&round.connections).get_mut(at) {
        seen.push(path);
    }
}

/// The round a request's path names: `/<round>/<request>`.
fn round_of(path: &str) -> Option<u64> {
    path.strip_prefix('/')?.split('/').next()?.parse().ok()
}

/// Answers one connection of the round its first request names (none: it closes).
async fn answer(stream: TcpStream, current: Arc<Mutex<Option<Arc<Round>>>>) {
    let mut conn = Conn {
        stream,
        buf: Vec::new(),
    };
    let Ok(Some(first)) = tokio::time::timeout(DRAIN, conn.head()).await else {
        return;
    };
    let round = lock(&current).clone();
    let Some(round) = round.filter(|round| round_of(&first) == Some(round.id)) else {
        return;
    };
    let at = {
        let mut connections = lock(&round.connections);
        connections.push(vec![first.clone()]);
        connections.len() - 1
    };
    let plan = &round.plan;
    if at > 0 && !plan.resend_input {
        // Each request gets `200` with its path, in turn.
        let fixed = async {
            let mut path = first;
            loop {
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{path}",
                    path.len()
                );
                conn.write(reply.as_bytes(), None).await;
                match conn.head().await {
                    Some(next) => {
                        note(&round, at, next.clone());
                        path = next;
                    }
                    None => return,
                }
            }
        };
        let _ = tokio::time::timeout(DRAIN, fixed).await;
        return;
    }
    // The heads the client writes without waiting: as deep as its pipeline on the first
    // connection, one on the others.
    let expected = if at == 0 {
        plan.requests.min(plan.depth)
    } else {
        1
    };
    let heads = async {
        for _ in 1..expected {
            match conn.head().await {
                Some(path) => note(&round, at, path),
                None => return,
            }
        }
    };
    let _ = tokio::time::timeout(HEADS_WAIT, heads).await;
    conn.write(&plan.bytes, plan.pieces).await;
    if plan.linger {
        let _ = tokio::time::timeout(LINGER, conn.read_on(&round, at)).await;
    }
    let _ = conn.stream.shutdown().await;
    let _ = tokio::time::timeout(DRAIN, conn.read_on(&round, at)).await;
}

/// Fetches the round's requests at once, each body read whole: what each ends with.
async fn exchange(addr: std::net::SocketAddr, round: &Round) -> Vec<Outcome> {
    let client = Client::builder()
        .resolve_with(move |_| Some(vec![addr]))
        .http1_pipelining(round.plan.depth)
        .max_connections_per_origin(1)
        .max_idle_per_origin(0)
        .connect_timeout(Duration::from_secs(2))
        .build()
        .expect("a client");
    let fetches = (0..round.plan.requests).map(|k| {
        let client = &client;
        let url = format!("http://fuzz.test/{}/{k}", round.id);
        async move {
            let init = RequestInit {
                redirect: Some(RequestRedirect::Manual),
                ..Default::default()
            };
            let Ok(mut response) = client.fetch(url.as_str(), init).await else {
                return Outcome::Err;
            };
            let status = response.status();
            match response.bytes().await {
                Ok(body) => Outcome::Ok(status, body),
                Err(_) => Outcome::Err,
            }
        }
    });
    futures_util::future::join_all(fetches).await
}

/// Checks what each request ended with against what the listener saw and sent.
fn check(round: &Round, outcomes: &[Outcome]) {
    let connections = lock(&round.connections);
    for (k, outcome) in outcomes.iter().enumerate() {
        let path = format!("/{}/{k}", round.id);
        // Where it was written: (connection, place on it), in order.
        let sightings: Vec<(usize, usize)> = connections
            .iter()
            .enumerate()
            .flat_map(|(c, paths)| {
                paths
                    .iter()
                    .enumerate()
                    .filter(|(_, seen)| **seen == path)
                    .map(move |(i, _)| (c, i))
            })
            .collect();
        let report = || format!("request {path}: {outcome:?}; connections {connections:?}");
        assert!(!sightings.is_empty(), "never written: {}", report());
        assert!(
            sightings.len() <= 2,
            "written more than twice (sent again more than once): {}",
            report()
        );
        let expect = |(c, i): (usize, usize)| match c > 0 && !round.plan.resend_input {
            true => Expect::Exact(Outcome::Ok(200, Bytes::from(path.clone()))),
            false => round.plan.expect(i).clone(),
        };
        let (last, earlier) = sightings.split_last().expect("one sighting at least");
        for &sighting in earlier {
            assert!(
                !matches!(expect(sighting), Expect::Exact(_)),
                "written again after it was answered at {sighting:?}: {}",
                report()
            );
        }
        match expect(*last) {
            Expect::Exact(expected) => assert_eq!(
                *outcome,
                expected,
                "the response at {last:?} is not the one expected: {}",
                report()
            ),
            // Its first time there, it would have been sent again: this was the second.
            Expect::Unanswered => assert_eq!(
                *outcome,
                Outcome::Err,
                "left unanswered at {last:?}, and not failed: {}",
                report()
            ),
            Expect::Unknown => {}
        }
    }
}

/// The `http1_pipelined` target: see the module's documentation for the input.
pub fn http1_pipelined(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let peer = peer();
    let _exclusive = lock(&peer.exclusive);
    let round = Arc::new(Round {
        id: peer.rounds.fetch_add(1, Ordering::Relaxed),
        plan: plan(data),
        connections: Mutex::new(Vec::new()),
    });
    *lock(&peer.current) = Some(Arc::clone(&round));
    let outcomes = peer.runtime.block_on(async {
        let Ok(outcomes) = tokio::time::timeout(HANG, exchange(peer.addr, &round)).await else {
            panic!("the pipelined requests took more than {HANG:?} to fetch and read");
        };
        // The client is gone: its connections close, and the listener reads them to
        // their ends.
        let settled = async {
            while peer.open.load(Ordering::Acquire) > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        };
        let _ = tokio::time::timeout(DRAIN + Duration::from_secs(1), settled).await;
        outcomes
    });
    *lock(&peer.current) = None;
    check(&round, &outcomes);
}

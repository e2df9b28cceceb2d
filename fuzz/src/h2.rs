//! `h2_response`: what an HTTP/2 server sends, through the real network layer (a TCP
//! connection on 127.0.0.1 spoken with prior knowledge, hyper's and h2's HTTP/2 client under
//! the crate's pool, the content decoders) and the fetch algorithm, up to the body a caller
//! reads.
//!
//! One listener per process answers every connection the same way: it reads the client's
//! connection preface and frames until it has seen the `HEADERS` of the requests it waits
//! for (so that frames for their streams do not arrive before the streams are open), then
//! writes the script the input makes, closes its side and reads whatever else the client
//! sends. Each input gets a client of its own, and its tasks are run to their ends before
//! the next input: nothing of one input (a connection in a pool, a task, an allocation)
//! meets the next.
//!
//! # Input
//!
//! Byte 0 sets up the exchange:
//!
//! - bit 0: raw mode, the rest of the input is written as it is; else the rest is records;
//! - bit 1: no server preface from the target (an empty `SETTINGS` and the `SETTINGS` ack);
//!   the script's first frame is the preface then;
//! - bits 2–3: the requests: `0` a `GET` (stream 1) and a `POST` with a small body
//!   (stream 3) at once, on one connection, through [`Client`]; `1` the `GET` alone; `2`
//!   the `POST` alone (stream 1); `3` a `GET` through [`HyperTransport`] alone, decoding off.
//!
//! A record is a kind byte, whose bit 7 makes the payload strings in it long (a 2-byte
//! big-endian length instead of 1 byte), and whose low four bits say what it is:
//!
//! | Kind | Frames | Then |
//! |---|---|---|
//! | 0–9 | one frame of that type (`DATA` … `CONTINUATION`) | flags, stream, payload |
//! | 10 | one frame of any type | type, flags, stream, payload |
//! | 11 | `HEADERS` and `CONTINUATION`s of a header list encoded here | flags, stream, fragment size, \[pad length\], \[5 priority bytes\], header list |
//! | 12 | `DATA` frames of one repeated byte | flags, stream, count − 1, length (2 bytes), byte, \[pad length\] |
//! | 13 | a header block too large: `HEADERS` and `CONTINUATION`s | stream, mode, count, size |
//! | 14 | `PUSH_PROMISE` of a header list | flags, stream, promised stream, \[pad length\], header list |
//! | 15 | `GOAWAY` | last stream, error code, debug data |
//!
//! A stream byte mostly names a request's stream: mod 8, `0`–`2` stream 1, `3` stream 3,
//! `4` stream 0, `5` stream 2, `6` stream 5, `7` the next 4 bytes as they are. A header
//! list is a count byte and as many fields: a byte whose bits 0–1 are the representation
//! (literal with incremental indexing, without indexing, never indexed, indexed), bits 2–6 a
//! name from [`NAMES`] (`0`: the name is a string in the input) and bit 7 a literal name even
//! where the static table has one, then the value string. An indexed field is the index byte
//! instead (with bit 7, a dynamic table size update of that byte × 32). Kind 13's mode: bit
//! 0 one field repeated by index rather than literal fields, bit 1 `:status: 200` first, bit
//! 2 no `END_HEADERS` ever, bit 3 `END_STREAM`. Strings are HPACK literals without Huffman
//! coding; a raw frame's payload can carry any encoding.
//!
//! # What it checks
//!
//! Beyond no panic and no hang (an input taking more than 5 seconds panics):
//!
//! - a response head holds less than the 256 KiB (`SETTINGS_MAX_HEADER_LIST_SIZE`) the
//!   client allows, counted as HPACK counts it (name, value and 32 per field);
//! - a body read whole is at most [`MAX_DECODED`] bytes (the client's buffered-body limit);
//! - a body without a content coding that was read to its end is exactly what the `DATA`
//!   frames of one stream carried up to its `END_STREAM` (empty for a null body status),
//!   and as long as a `Content-Length` says; through the teed `GET` both branches agree.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
use whatwg_fetch::response::{ResponseType, is_null_body_status};
use whatwg_fetch::{Client, RequestInit, RequestRedirect, Response};

use crate::http1::{MAX_DECODED, lock};
use crate::{MAX_INPUT, Reader};

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// How long the peer waits for the requests' `HEADERS` before it writes anyway.
const WAIT_FOR_REQUESTS: Duration = Duration::from_secs(1);

/// The client's `SETTINGS_MAX_HEADER_LIST_SIZE`: the crate's default, 256 KiB.
const MAX_HEADER_LIST: usize = 256 * 1024;

/// The largest script written: DATA beyond the client's windows is refused anyway.
const MAX_SCRIPT: usize = 4 << 20;

/// The client's `SETTINGS_MAX_FRAME_SIZE` (the protocol's default), the fragment size of
/// the header blocks kind 13 makes.
const MAX_FRAME: usize = 16_384;

/// The body of the `POST`.
const POST_BODY: &[u8] = b"name=fuzz&body=small";

/// Frame types (RFC 9113 §6).
pub(crate) mod frame {
    pub(crate) const DATA: u8 = 0x0;
    pub(crate) const HEADERS: u8 = 0x1;
    pub(crate) const RST_STREAM: u8 = 0x3;
    pub(crate) const SETTINGS: u8 = 0x4;
    pub(crate) const PUSH_PROMISE: u8 = 0x5;
    pub(crate) const GOAWAY: u8 = 0x7;
    pub(crate) const CONTINUATION: u8 = 0x9;

    /// `END_STREAM` (`DATA`, `HEADERS`), and `ACK` (`SETTINGS`, `PING`).
    pub(crate) const END_STREAM: u8 = 0x1;
    pub(crate) const ACK: u8 = 0x1;
    pub(crate) const END_HEADERS: u8 = 0x4;
    pub(crate) const PADDED: u8 = 0x8;
    pub(crate) const PRIORITY: u8 = 0x20;
}

/// The names a header list field can pick, each with its index in the HPACK static table
/// (RFC 7541 Appendix A) or 0. Index 0 of the list is a name given in the input.
pub(crate) const NAMES: [(&str, u8); 32] = [
    ("", 0),
    (":status", 8),
    ("content-length", 28),
    ("content-encoding", 26),
    ("content-type", 31),
    ("set-cookie", 55),
    ("location", 46),
    ("transfer-encoding", 57),
    ("connection", 0),
    ("te", 0),
    ("trailer", 0),
    ("cache-control", 24),
    ("date", 33),
    ("etag", 34),
    ("vary", 59),
    ("content-range", 30),
    ("access-control-allow-origin", 20),
    ("alt-svc", 0),
    ("retry-after", 53),
    ("www-authenticate", 61),
    (":path", 4),
    (":method", 2),
    (":authority", 1),
    (":scheme", 6),
    (":protocol", 0),
    ("X-Upper-Case", 0),
    ("keep-alive", 0),
    ("server", 54),
    ("strict-transport-security", 56),
    ("link", 45),
    ("expires", 36),
    ("x-fuzz", 0),
];

/// HPACK encoding (RFC 7541), without Huffman coding.
pub(crate) mod hpack {
    /// An integer with an `n`-bit prefix after the bits `first` (§5.1).
    pub(crate) fn integer(out: &mut Vec<u8>, n: u32, first: u8, value: usize) {
        let max = (1usize << n) - 1;
        if value < max {
            out.push(first | u8::try_from(value).unwrap_or(0));
            return;
        }
        out.push(first | u8::try_from(max).unwrap_or(0));
        let mut rest = value - max;
        while rest >= 128 {
            out.push(u8::try_from(rest % 128).unwrap_or(0) | 0x80);
            rest /= 128;
        }
        out.push(u8::try_from(rest).unwrap_or(0));
    }

    /// A string literal, not Huffman-coded (§5.2).
    pub(crate) fn string(out: &mut Vec<u8>, bytes: &[u8]) {
        integer(out, 7, 0, bytes.len());
        out.extend_from_slice(bytes);
    }

    /// How a literal field is kept in the dynamic table (§6.2).
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Literal {
        Incremental,
        WithoutIndexing,
        NeverIndexed,
    }

    /// A literal field: its name by static index when `name_index` is not 0.
    pub(crate) fn literal(
        out: &mut Vec<u8>,
        kind: Literal,
        name_index: u8,
        name: &[u8],
        value: &[u8],
    ) {
        let (n, first) = match kind {
            Literal::Incremental => (6, 0x40),
            Literal::WithoutIndexing => (4, 0x00),
            Literal::NeverIndexed => (4, 0x10),
        };
        integer(out, n, first, usize::from(name_index));
        if name_index == 0 {
            string(out, name);
        }
        string(out, value);
    }

    /// An indexed field (§6.1).
    pub(crate) fn indexed(out: &mut Vec<u8>, index: usize) {
        integer(out, 7, 0x80, index);
    }

    /// A dynamic table size update (§6.3).
    pub(crate) fn size_update(out: &mut Vec<u8>, size: usize) {
        integer(out, 5, 0x20, size);
    }
}

/// The frames the server sends, serialized.
#[derive(Default)]
pub(crate) struct Script {
    pub(crate) bytes: Vec<u8>,
}

impl Script {
    /// Appends one frame (RFC 9113 §4.1), unless it would take the script past
    /// [`MAX_SCRIPT`]. Returns whether it did.
    pub(crate) fn frame(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) -> bool {
        let Ok(len) = u32::try_from(payload.len()) else {
            return false;
        };
        if len >= 1 << 24 || self.bytes.len().saturating_add(9 + payload.len()) > MAX_SCRIPT {
            return false;
        }
        self.bytes.extend_from_slice(&len.to_be_bytes()[1..]);
        self.bytes.push(kind);
        self.bytes.push(flags);
        self.bytes.extend_from_slice(&stream.to_be_bytes());
        self.bytes.extend_from_slice(payload);
        true
    }

    /// A header block as `HEADERS` (with `prefix` before its first fragment and `padding`
    /// after it) and `CONTINUATION`s of `fragment` bytes each (one frame when 0), with
    /// `END_HEADERS` on the last when `flags` has it.
    fn header_block(
        &mut self,
        flags: u8,
        stream: u32,
        fragment: usize,
        prefix: &[u8],
        padding: usize,
        block: &[u8],
    ) {
        let fragment = if fragment == 0 {
            block.len().max(1)
        } else {
            fragment
        };
        let mut chunks = block.chunks(fragment).peekable();
        let first = chunks.next().unwrap_or_default();
        let last = chunks.peek().is_none();
        let end_headers = flags & frame::END_HEADERS;
        let mut payload = prefix.to_vec();
        payload.extend_from_slice(first);
        payload.resize(payload.len().saturating_add(padding), 0);
        let head_flags = if last { flags } else { flags & !end_headers };
        if !self.frame(frame::HEADERS, head_flags, stream, &payload) {
            return;
        }
        while let Some(chunk) = chunks.next() {
            let flags = if chunks.peek().is_none() {
                end_headers
            } else {
                0
            };
            if !self.frame(frame::CONTINUATION, flags, stream, chunk) {
                return;
            }
        }
    }
}

/// The requests an input makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Requests {
    /// `GET` and `POST` at once through the client.
    Both,
    Get,
    Post,
    /// A `GET` through the transport alone, not decoded.
    Transport,
}

impl Requests {
    fn get(self) -> bool {
        matches!(self, Requests::Both | Requests::Get)
    }

    fn post(self) -> bool {
        matches!(self, Requests::Both | Requests::Post)
    }

    /// How many requests the first connection carries.
    fn on_first_connection(self) -> usize {
        match self {
            Requests::Both => 2,
            _ => 1,
        }
    }
}

/// An input made into what the peer sends and what the target checks against.
struct Exchange {
    requests: Requests,
    /// Everything the server writes on each connection.
    script: Bytes,
    /// What a body read to its end without a coding can be.
    sent: Sent,
    counts: Counts,
}

impl Exchange {
    fn parse(data: &[u8]) -> Exchange {
        let mut reader = Reader::new(data);
        let setup = reader.byte();
        let requests = match (setup >> 2) & 3 {
            0 => Requests::Both,
            1 => Requests::Get,
            2 => Requests::Post,
            _ => Requests::Transport,
        };
        let mut script = Script::default();
        if setup & 2 == 0 {
            script.frame(frame::SETTINGS, 0, 0, &[]);
            script.frame(frame::SETTINGS, frame::ACK, 0, &[]);
        }
        if setup & 1 == 1 {
            script.bytes.extend_from_slice(reader.rest());
        } else {
            while !reader.is_empty() && records(&mut reader, &mut script) {}
        }
        let sent = sent(&script.bytes);
        Exchange {
            requests,
            script: Bytes::from(script.bytes),
            sent,
            counts: Counts::default(),
        }
    }
}

/// A stream identifier from a stream byte (see the module's documentation).
fn stream(reader: &mut Reader<'_>) -> u32 {
    match reader.byte() % 8 {
        0..=2 => 1,
        3 => 3,
        4 => 0,
        5 => 2,
        6 => 5,
        _ => u32::from_be_bytes([reader.byte(), reader.byte(), reader.byte(), reader.byte()]),
    }
}

/// A payload string: a length byte (two, big-endian, when `long`), then the bytes.
fn payload<'a>(reader: &mut Reader<'a>, long: bool) -> &'a [u8] {
    if !long {
        return reader.string();
    }
    let len = usize::from(u16::from_be_bytes([reader.byte(), reader.byte()]));
    reader.take(len)
}

/// A header list (see the module's documentation), HPACK-encoded.
fn header_list(reader: &mut Reader<'_>, long: bool) -> Vec<u8> {
    let mut block = Vec::new();
    for _ in 0..reader.byte() {
        if reader.is_empty() {
            break;
        }
        let field = reader.byte();
        let kind = match field & 3 {
            0 => hpack::Literal::Incremental,
            1 => hpack::Literal::WithoutIndexing,
            2 => hpack::Literal::NeverIndexed,
            _ => {
                let index = usize::from(reader.byte());
                if field & 0x80 != 0 {
                    hpack::size_update(&mut block, index * 32);
                } else {
                    hpack::indexed(&mut block, index);
                }
                continue;
            }
        };
        let (name, index) = NAMES
            .get(usize::from((field >> 2) & 0x1f))
            .copied()
            .unwrap_or_default();
        let name = match name {
            "" => payload(reader, long),
            name => name.as_bytes(),
        };
        let index = if field & 0x80 != 0 { 0 } else { index };
        let value = payload(reader, long);
        hpack::literal(&mut block, kind, index, name, value);
    }
    block
}

/// The pad length byte of a frame whose flags have `PADDED`, and the padding's length.
fn padding(reader: &mut Reader<'_>, flags: u8) -> (Vec<u8>, usize) {
    if flags & frame::PADDED == 0 {
        return (Vec::new(), 0);
    }
    let pad = reader.byte();
    (vec![pad], usize::from(pad))
}

/// Reads one record and appends its frames. Returns false once the script is full.
fn records(reader: &mut Reader<'_>, script: &mut Script) -> bool {
    let kind = reader.byte();
    let long = kind & 0x80 != 0;
    match kind & 0x0f {
        kind @ 0..=9 => {
            let flags = reader.byte();
            let stream = stream(reader);
            script.frame(kind, flags, stream, payload(reader, long))
        }
        10 => {
            let kind = reader.byte();
            let flags = reader.byte();
            let stream = stream(reader);
            script.frame(kind, flags, stream, payload(reader, long))
        }
        11 => {
            let flags = reader.byte();
            let stream = stream(reader);
            let fragment = usize::from(reader.byte());
            let (mut prefix, padding) = padding(reader, flags);
            if flags & frame::PRIORITY != 0 {
                prefix.extend_from_slice(reader.take(5));
            }
            let block = header_list(reader, long);
            script.header_block(flags, stream, fragment, &prefix, padding, &block);
            script.bytes.len() < MAX_SCRIPT
        }
        12 => {
            let flags = reader.byte();
            let stream = stream(reader);
            let count = usize::from(reader.byte()) + 1;
            let len = usize::from(u16::from_be_bytes([reader.byte(), reader.byte()]));
            let fill = reader.byte();
            let (mut payload, padding) = padding(reader, flags);
            payload.resize(payload.len() + len, fill);
            payload.resize(payload.len() + padding, 0);
            for index in 1..=count {
                let flags = if index == count {
                    flags
                } else {
                    flags & !frame::END_STREAM
                };
                if !script.frame(frame::DATA, flags, stream, &payload) {
                    return false;
                }
            }
            true
        }
        13 => {
            let stream = stream(reader);
            let mode = reader.byte();
            let count = usize::from(reader.byte()) + 1;
            let size = (usize::from(reader.byte()) + 1) * 64;
            let mut block = Vec::new();
            if mode & 2 != 0 {
                hpack::indexed(&mut block, 8);
            }
            if mode & 1 != 0 {
                // One field in the dynamic table (4 KiB by default), then referred to by
                // index, one byte each: a block of a few KiB decodes to megabytes.
                let value = vec![b'v'; size.min(4000)];
                hpack::literal(&mut block, hpack::Literal::Incremental, 0, b"x-big", &value);
                for _ in 0..count * 64 {
                    hpack::indexed(&mut block, 62);
                }
            } else {
                let value = vec![b'v'; size];
                for _ in 0..count * 4 {
                    if block.len() > MAX_SCRIPT / 2 {
                        break;
                    }
                    hpack::literal(
                        &mut block,
                        hpack::Literal::WithoutIndexing,
                        0,
                        b"x-big",
                        &value,
                    );
                }
            }
            let mut flags = frame::END_HEADERS;
            if mode & 4 != 0 {
                flags = 0;
            }
            if mode & 8 != 0 {
                flags |= frame::END_STREAM;
            }
            script.header_block(flags, stream, MAX_FRAME, &[], 0, &block);
            script.bytes.len() < MAX_SCRIPT
        }
        14 => {
            let flags = reader.byte();
            let stream = stream(reader);
            let promised = self::stream(reader);
            let (mut payload, padding) = padding(reader, flags);
            payload.extend_from_slice(&promised.to_be_bytes());
            payload.extend_from_slice(&header_list(reader, long));
            payload.resize(payload.len() + padding, 0);
            script.frame(frame::PUSH_PROMISE, flags, stream, &payload)
        }
        _ => {
            let last = stream(reader);
            let code = u32::from(reader.byte());
            let mut payload = last.to_be_bytes().to_vec();
            payload.extend_from_slice(&code.to_be_bytes());
            payload.extend_from_slice(self::payload(reader, long));
            script.frame(frame::GOAWAY, 0, 0, &payload)
        }
    }
}

/// What the `DATA` frames of a script's streams carried.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sent {
    /// For each stream that ends (`END_STREAM` on a `DATA` or `HEADERS` frame), the bytes
    /// its `DATA` frames carried, padding taken off, up to its end.
    ended: Vec<Vec<u8>>,
    /// For each stream reset with `NO_ERROR` before its end (by `RST_STREAM`, or by a
    /// `GOAWAY` whose last stream is below it), the bytes up to the reset: never a whole
    /// body.
    reset: Vec<Vec<u8>>,
}

/// A stream of the script, as [`sent`] follows it.
struct SentStream {
    id: u32,
    data: Vec<u8>,
    ended: bool,
    reset: bool,
    /// A `DATA` frame whose padding does not fit, or a reset with an error: no body.
    failed: bool,
}

/// What the `DATA` frames of `script`'s streams carried.
fn sent(mut script: &[u8]) -> Sent {
    let mut streams: Vec<SentStream> = Vec::new();
    while let Some((head, rest)) = script.split_first_chunk::<9>() {
        let len = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
        let Some(payload) = rest.get(..len) else {
            break;
        };
        script = rest.get(len..).unwrap_or_default();
        let (kind, flags) = (head[3], head[4]);
        let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
        if kind == frame::GOAWAY && id == 0 {
            // `GOAWAY(NO_ERROR)` ends the streams above its last stream as
            // `RST_STREAM(NO_ERROR)` ends one.
            let last = payload
                .first_chunk::<4>()
                .map(|last| u32::from_be_bytes(*last) & 0x7fff_ffff);
            let code = payload.get(4..8);
            if let (Some(last), Some([0, 0, 0, 0])) = (last, code) {
                for stream in &mut streams {
                    if stream.id > last && !stream.ended && !stream.failed {
                        stream.reset = true;
                    }
                }
            }
            continue;
        }
        if kind != frame::DATA && kind != frame::HEADERS && kind != frame::RST_STREAM {
            continue;
        }
        let at = match streams.iter().position(|stream| stream.id == id) {
            Some(at) => at,
            None => {
                streams.push(SentStream {
                    id,
                    data: Vec::new(),
                    ended: false,
                    reset: false,
                    failed: false,
                });
                streams.len() - 1
            }
        };
        let Some(stream) = streams.get_mut(at) else {
            continue;
        };
        if stream.ended || stream.reset || stream.failed {
            continue;
        }
        match kind {
            frame::RST_STREAM => {
                stream.reset = payload == [0, 0, 0, 0];
                stream.failed = !stream.reset;
                continue;
            }
            frame::DATA => {
                let data = if flags & frame::PADDED != 0 {
                    payload.split_first().and_then(|(&pad, rest)| {
                        rest.len()
                            .checked_sub(usize::from(pad))
                            .and_then(|end| rest.get(..end))
                    })
                } else {
                    Some(payload)
                };
                match data {
                    Some(data) => stream.data.extend_from_slice(data),
                    None => stream.failed = true,
                }
            }
            _ => {}
        }
        if flags & frame::END_STREAM != 0 {
            stream.ended = true;
        }
    }
    let mut sent = Sent::default();
    for stream in streams.into_iter().filter(|stream| !stream.failed) {
        if stream.ended {
            sent.ended.push(stream.data);
        } else if stream.reset {
            sent.reset.push(stream.data);
        }
    }
    sent
}

/// What the listener answers with during the current input.
#[derive(Default)]
struct Current {
    script: Bytes,
    /// How many requests' `HEADERS` the first connection waits for (later ones: 1).
    first_expects: usize,
    /// Connections accepted during this input.
    connections: usize,
    /// Their tasks, ended after the input.
    tasks: Vec<JoinHandle<()>>,
}

/// The process-wide runtime and listener.
struct Peer {
    runtime: Runtime,
    addr: SocketAddr,
    current: Arc<Mutex<Current>>,
    /// One input at a time (cargo test runs the replays on several threads).
    exclusive: Mutex<()>,
}

fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        let (runtime, listener, addr) = crate::peer_listener();
        let current = Arc::new(Mutex::new(Current::default()));
        runtime.spawn(serve(listener, Arc::clone(&current)));
        Peer {
            runtime,
            addr,
            current,
            exclusive: Mutex::new(()),
        }
    })
}

/// The client and the transport of one input, made for it and dropped after it, pool and
/// all, so that no connection or allocation outlives the input: libFuzzer checks for leaks
/// after every input whose allocations and frees do not balance, and one input's
/// connections never meet the next's.
struct Clients {
    client: Client,
    transport: HyperTransport,
}

impl Clients {
    fn new(addr: SocketAddr) -> Clients {
        let client = Client::builder()
            .resolve_with(move |_| Some(vec![addr]))
            .http2_prior_knowledge(true)
            .max_buffered_body_size(Some(MAX_DECODED as u64))
            .pool_idle_timeout(None)
            .connect_timeout(Duration::from_secs(2))
            .tls_built_in_roots(false)
            .tls_system_roots(false)
            .build()
            .expect("a client");
        let transport = HyperTransport::builder()
            .resolve_with(move |_| Some(vec![addr]))
            .http2_prior_knowledge(true)
            .pool_idle_timeout(None)
            .connect_timeout(Some(Duration::from_secs(2)))
            .tls_built_in_roots(false)
            .tls_system_roots(false)
            .build()
            .expect("a transport");
        Clients { client, transport }
    }
}

async fn serve(listener: TcpListener, current: Arc<Mutex<Current>>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let mut current = lock(&current);
        current.connections += 1;
        let expects = match current.connections {
            1 => current.first_expects,
            _ => 1,
        };
        let task = tokio::spawn(answer(stream, current.script.clone(), expects));
        current.tasks.push(task);
    }
}

/// Counts the client's `HEADERS` frames, after its connection preface.
#[derive(Default)]
struct ClientFrames {
    buffer: Vec<u8>,
    preface_read: bool,
    headers: usize,
}

impl ClientFrames {
    fn feed(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        let mut at = 0;
        if !self.preface_read {
            // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (RFC 9113 §3.4).
            if self.buffer.len() < 24 {
                return;
            }
            self.preface_read = true;
            at = 24;
        }
        while let Some(head) = self.buffer.get(at..at + 9) {
            let len = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
            if self.buffer.len() < at + 9 + len {
                break;
            }
            if head[3] == frame::HEADERS {
                self.headers += 1;
            }
            at += 9 + len;
        }
        self.buffer.drain(..at);
    }
}

/// Waits for the requests' `HEADERS`, writes the script, closes the server's side and
/// reads on until the client closes.
async fn answer(stream: TcpStream, script: Bytes, expects: usize) {
    let (mut reader, mut writer) = stream.into_split();
    let mut buf = vec![0; 16 * 1024];
    let mut client = ClientFrames::default();
    let waiting = async {
        while client.headers < expects {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => client.feed(buf.get(..n).unwrap_or_default()),
            }
        }
        true
    };
    let open = tokio::time::timeout(WAIT_FOR_REQUESTS, waiting)
        .await
        .unwrap_or(true);
    let writing = async {
        let _ = writer.write_all(&script).await;
        let _ = writer.shutdown().await;
    };
    let draining = async {
        if !open {
            return;
        }
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    };
    tokio::join!(writing, draining);
}

/// The size of a header list as HPACK counts it (RFC 7541 §4.1), `:status` included.
fn header_list_size<'a>(fields: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> usize {
    fields.fold(":status".len() + 3 + 32, |size, (name, value)| {
        size.saturating_add(name.len() + value.len() + 32)
    })
}

/// The one length every `Content-Length` value gives, if any.
fn content_length<'a>(values: impl Iterator<Item = &'a [u8]>) -> Option<usize> {
    let mut length = None;
    for item in values.flat_map(|value| value.split(|&b| b == b',')) {
        let item = std::str::from_utf8(item.trim_ascii()).ok()?;
        if item.is_empty() || !item.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let item: usize = item.parse().ok()?;
        if length.is_some_and(|length| length != item) {
            return None;
        }
        length = Some(item);
    }
    length
}

/// Reads `body` as a stream to its end, up to [`MAX_DECODED`] bytes: the bytes, or `None`
/// when it failed or ran longer.
async fn collect<S, E>(mut body: S) -> Option<Vec<u8>>
where
    S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut read = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.ok()?;
        if read.len().saturating_add(chunk.len()) > MAX_DECODED {
            return None;
        }
        read.extend_from_slice(&chunk);
    }
    Some(read)
}

/// Checks `body`, read to its end, against what the script sent.
fn check_body(
    what: &str,
    exchange: &Exchange,
    status: u16,
    declared: Option<usize>,
    decoded: bool,
    body: &[u8],
) {
    exchange.counts.bodies_read.fetch_add(1, Ordering::Relaxed);
    assert!(
        body.len() <= MAX_DECODED,
        "{what}: a body of {} bytes read whole, over the client's limit of {MAX_DECODED}",
        body.len()
    );
    if decoded {
        return;
    }
    if is_null_body_status(status) && body.is_empty() {
        return;
    }
    assert!(
        exchange.sent.ended.iter().any(|sent| sent == body)
            || !exchange.sent.reset.iter().any(|sent| sent == body),
        "{what}: a body of {} bytes cut short by a NO_ERROR reset read as whole",
        body.len()
    );
    exchange
        .counts
        .bodies_compared
        .fetch_add(1, Ordering::Relaxed);
    assert!(
        exchange.sent.ended.iter().any(|sent| sent == body),
        "{what}: a body of {} bytes that is no stream's DATA up to its END_STREAM \
         (streams that ended carried {:?} bytes)",
        body.len(),
        exchange.sent.ended.iter().map(Vec::len).collect::<Vec<_>>()
    );
    if let Some(declared) = declared.filter(|_| !is_null_body_status(status)) {
        assert_eq!(
            declared,
            body.len(),
            "{what}: a body of {} bytes under Content-Length: {declared}",
            body.len()
        );
    }
}

/// Checks a fetched response's head; returns its status, `Content-Length` and whether its
/// body is decoded (or hidden), for [`check_body`].
fn check_head(what: &str, response: &Response) -> (u16, Option<usize>, bool) {
    // Values of one name come combined, which only makes the head look smaller.
    let fields: Vec<(String, String)> = response.headers().into_iter().collect();
    for (name, _) in &fields {
        assert!(
            whatwg_fetch::headers::is_header_name(name.as_bytes()),
            "{what}: a response header name that is not a header name: {name:?}"
        );
    }
    let size = header_list_size(
        fields
            .iter()
            .map(|(name, value)| (name.as_bytes(), value.as_bytes())),
    );
    assert!(
        size <= MAX_HEADER_LIST,
        "{what}: a response head of {size} bytes accepted, over the limit of {MAX_HEADER_LIST}"
    );
    let _ = response.status_text();
    let _ = response.url();
    let coded = fields.iter().any(|(name, _)| name == "content-encoding");
    // Only a response whose headers are all visible says whether its body was decoded.
    let hidden = !matches!(
        response.r#type(),
        ResponseType::Basic | ResponseType::Default
    );
    let declared = content_length(
        fields
            .iter()
            .filter(|(name, _)| name == "content-length")
            .map(|(_, value)| value.as_bytes()),
    );
    (response.status(), declared, coded || hidden)
}

/// Counts a response fetched.
fn fetched(exchange: &Exchange) {
    exchange.counts.responses.fetch_add(1, Ordering::Relaxed);
}

fn init(method: &str, body: Option<&'static [u8]>) -> RequestInit {
    RequestInit {
        method: Some(method.into()),
        body: body.map(Into::into),
        redirect: Some(RequestRedirect::Manual),
        ..Default::default()
    }
}

/// The `GET` through the client, its body teed: read whole on one branch, streamed on the
/// other.
async fn client_get(clients: &Clients, exchange: &Exchange, host: &str) {
    let url = format!("http://{host}/get");
    let Ok(mut response) = clients.client.fetch(&url, init("GET", None)).await else {
        return;
    };
    fetched(exchange);
    let (status, declared, decoded) = check_head("GET", &response);
    let Ok(mut branch) = response.try_clone() else {
        return;
    };
    let streamed = async {
        match branch.take_body() {
            Some(body) => collect(body).await,
            None => Some(Vec::new()),
        }
    };
    let (whole, streamed) = tokio::join!(response.bytes(), streamed);
    if let Ok(whole) = &whole {
        check_body("GET", exchange, status, declared, decoded, whole);
    }
    if let Some(streamed) = &streamed {
        check_body(
            "GET, streamed",
            exchange,
            status,
            declared,
            decoded,
            streamed,
        );
    }
    if let (Ok(whole), Some(streamed)) = (whole, streamed) {
        assert!(
            whole == streamed,
            "GET: the branches of a tee read {} and {} bytes",
            whole.len(),
            streamed.len()
        );
    }
}

/// The `POST` through the client, its body read whole.
async fn client_post(clients: &Clients, exchange: &Exchange, host: &str) {
    let url = format!("http://{host}/post");
    let Ok(mut response) = clients
        .client
        .fetch(&url, init("POST", Some(POST_BODY)))
        .await
    else {
        return;
    };
    fetched(exchange);
    let (status, declared, decoded) = check_head("POST", &response);
    if let Ok(body) = response.bytes().await {
        check_body("POST", exchange, status, declared, decoded, &body);
    }
}

/// A `GET` through the transport alone, not decoded.
async fn transport_get(clients: &Clients, exchange: &Exchange, host: &str) {
    let Ok(request) = http::Request::get(format!("http://{host}/raw")).body(RequestBody::empty())
    else {
        return;
    };
    let options = SendOptions::new().with_new_connection(true);
    let Ok(response) = clients.transport.send(request, options).await else {
        return;
    };
    fetched(exchange);
    let _ = whatwg_fetch::net::status_text(&response);
    let headers = response.headers();
    let size = header_list_size(
        headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes())),
    );
    assert!(
        size <= MAX_HEADER_LIST,
        "transport: a response head of {size} bytes accepted, over the limit of {MAX_HEADER_LIST}"
    );
    let declared = content_length(
        headers
            .get_all(http::header::CONTENT_LENGTH)
            .iter()
            .map(|value| value.as_bytes()),
    );
    let status = response.status().as_u16();
    if let Some(body) = collect(response.into_body()).await {
        check_body("transport", exchange, status, declared, false, &body);
    }
}

async fn exchange(clients: &Clients, exchange: &Exchange, host: &str) {
    let get = async {
        match exchange.requests {
            Requests::Transport => transport_get(clients, exchange, host).await,
            requests if requests.get() => client_get(clients, exchange, host).await,
            _ => {}
        }
    };
    let post = async {
        if exchange.requests.post() {
            client_post(clients, exchange, host).await;
        }
    };
    tokio::join!(get, post);
}

/// Runs the runtime until the tasks of the input that ended are gone (the connections'
/// on both sides, their reads and writes), or for a bounded while: the listener's task is
/// the one that stays.
/// Returns how many are left.
fn settle(runtime: &Runtime) -> usize {
    let metrics = runtime.metrics();
    runtime.block_on(async {
        for _ in 0..10_000 {
            if metrics.num_alive_tasks() <= 1 {
                break;
            }
            tokio::task::yield_now().await;
        }
    });
    metrics.num_alive_tasks().saturating_sub(1)
}

/// The `h2_response` target: see the module's documentation for the input.
pub fn h2_response(data: &[u8]) {
    run(data);
}

/// What an input came to: how many responses were fetched, how many of their bodies
/// were read to the end, how many of those were compared with the script's, and how many
/// of its tasks outlived it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Outcome {
    responses: usize,
    bodies_read: usize,
    bodies_compared: usize,
    /// Tasks still alive after [`settle`].
    tasks_left: usize,
}

/// Counts what [`check_body`] and the requests saw during one input.
#[derive(Default)]
struct Counts {
    responses: AtomicUsize,
    bodies_read: AtomicUsize,
    bodies_compared: AtomicUsize,
}

fn run(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Outcome::default();
    }
    let exchange = Exchange::parse(data);
    let peer = peer();
    let _exclusive = lock(&peer.exclusive);
    {
        let mut current = lock(&peer.current);
        current.script = exchange.script.clone();
        current.first_expects = exchange.requests.on_first_connection();
        current.connections = 0;
    }
    let host = "fuzz.test";
    peer.runtime.block_on(async {
        let clients = Clients::new(peer.addr);
        if tokio::time::timeout(HANG, self::exchange(&clients, &exchange, host))
            .await
            .is_err()
        {
            panic!("one exchange took more than {HANG:?}");
        }
    });
    for task in lock(&peer.current).tasks.drain(..) {
        task.abort();
    }
    let tasks_left = settle(&peer.runtime);
    Outcome {
        responses: exchange.counts.responses.load(Ordering::Relaxed),
        bodies_read: exchange.counts.bodies_read.load(Ordering::Relaxed),
        bodies_compared: exchange.counts.bodies_compared.load(Ordering::Relaxed),
        tasks_left,
    }
}

#[cfg(test)]
mod tests {
    //! The seeds under `fuzz/seeds/h2_response/` are made here, by [`seeds`]; a test holds
    //! the committed files to them (`H2_WRITE_SEEDS=1 cargo test -p whatwg-fetch-fuzz
    //! h2_seeds` writes them).

    use super::*;

    /// Stream bytes (see the module's documentation).
    const S1: u8 = 0;
    const S3: u8 = 3;
    const S0: u8 = 4;
    const S5: u8 = 6;

    /// Setup bytes.
    const BOTH: u8 = 0;
    const GET: u8 = 1 << 2;
    const TRANSPORT: u8 = 3 << 2;
    const RAW: u8 = 1;
    const NO_PREFACE: u8 = 2;

    /// A field of a header list record.
    enum Field<'a> {
        /// A literal: representation (0–2), name (an index into [`NAMES`], or a string).
        Literal(u8, Result<usize, &'a str>, &'a str),
        Indexed(u8),
        SizeUpdate(u8),
    }
    use Field::*;

    fn status(code: &str) -> Field<'_> {
        Literal(1, Ok(1), code)
    }

    fn named<'a>(name: &str, value: &'a str) -> Field<'a> {
        let index = NAMES
            .iter()
            .position(|(known, _)| *known == name)
            .expect("a name in NAMES");
        Literal(1, Ok(index), value)
    }

    /// An input, written record by record.
    struct Input(Vec<u8>);

    impl Input {
        fn new(setup: u8) -> Input {
            Input(vec![setup])
        }

        fn string(&mut self, bytes: &[u8]) {
            self.0
                .push(u8::try_from(bytes.len()).expect("a short string"));
            self.0.extend_from_slice(bytes);
        }

        /// A frame of type `kind` (0–9), its payload as it is.
        fn frame(mut self, kind: u8, flags: u8, stream: u8, payload: &[u8]) -> Input {
            let long = payload.len() > 255;
            self.0
                .extend([kind | if long { 0x80 } else { 0 }, flags, stream]);
            if long {
                let len = u16::try_from(payload.len()).expect("a payload under 64 KiB");
                self.0.extend_from_slice(&len.to_be_bytes());
                self.0.extend_from_slice(payload);
            } else {
                self.string(payload);
            }
            self
        }

        fn data(self, flags: u8, stream: u8, payload: &[u8]) -> Input {
            self.frame(frame::DATA, flags, stream, payload)
        }

        fn unknown(mut self, kind: u8, flags: u8, stream: u8, payload: &[u8]) -> Input {
            self.0.extend([10, kind, flags, stream]);
            self.string(payload);
            self
        }

        fn fields(&mut self, fields: &[Field<'_>]) {
            self.0
                .push(u8::try_from(fields.len()).expect("a short list"));
            for field in fields {
                match *field {
                    Literal(kind, Ok(name), value) => {
                        self.0.push(kind | u8::try_from(name).unwrap_or(0) << 2);
                        self.string(value.as_bytes());
                    }
                    Literal(kind, Err(name), value) => {
                        self.0.push(kind);
                        self.string(name.as_bytes());
                        self.string(value.as_bytes());
                    }
                    Indexed(index) => self.0.extend([3, index]),
                    SizeUpdate(size) => self.0.extend([0x83, size]),
                }
            }
        }

        /// A header list record: `pad` with `PADDED`, `priority` with `PRIORITY`.
        fn headers(
            mut self,
            flags: u8,
            stream: u8,
            fragment: u8,
            extra: &[u8],
            fields: &[Field<'_>],
        ) -> Input {
            self.0.extend([11, flags, stream, fragment]);
            self.0.extend_from_slice(extra);
            self.fields(fields);
            self
        }

        fn fill(mut self, flags: u8, stream: u8, count: u8, len: u16, byte: u8) -> Input {
            self.0.extend([12, flags, stream, count - 1]);
            self.0.extend_from_slice(&len.to_be_bytes());
            self.0.push(byte);
            self
        }

        fn big_head(mut self, stream: u8, mode: u8, count: u8, size: u8) -> Input {
            self.0.extend([13, stream, mode, count, size]);
            self
        }

        fn push_promise(mut self, stream: u8, promised: u8, fields: &[Field<'_>]) -> Input {
            self.0.extend([14, frame::END_HEADERS, stream, promised]);
            self.fields(fields);
            self
        }

        fn goaway(mut self, last: u8, code: u8, debug: &[u8]) -> Input {
            self.0.extend([15, last, code]);
            self.string(debug);
            self
        }
    }

    const END_STREAM: u8 = frame::END_STREAM;
    const END_HEADERS: u8 = frame::END_HEADERS;
    const ACK: u8 = frame::ACK;

    /// CRC-32 (ISO-HDLC), for gzip's trailer.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    /// `text` in gzip (RFC 1952) over one stored deflate block (RFC 1951 §3.2.4).
    fn gzip(text: &[u8]) -> Vec<u8> {
        let len = u16::try_from(text.len()).expect("a short text");
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        out.push(1);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(text);
        out.extend_from_slice(&crc32(text).to_le_bytes());
        out.extend_from_slice(&u32::try_from(text.len()).unwrap_or(0).to_le_bytes());
        out
    }

    /// A whole exchange as the server writes it, for the raw mode.
    fn raw_exchange() -> Vec<u8> {
        let mut script = Script::default();
        script.frame(frame::SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 10]);
        script.frame(frame::SETTINGS, ACK, 0, &[]);
        let mut block = Vec::new();
        hpack::indexed(&mut block, 8);
        hpack::literal(
            &mut block,
            hpack::Literal::Incremental,
            31,
            b"",
            b"text/plain",
        );
        hpack::literal(&mut block, hpack::Literal::NeverIndexed, 28, b"", b"4");
        script.frame(frame::HEADERS, END_HEADERS, 1, &block);
        script.frame(frame::DATA, 0, 1, b"ra");
        script.frame(frame::DATA, END_STREAM, 1, b"w!");
        let block = [0x88, 0xbe];
        script.frame(frame::HEADERS, END_HEADERS | END_STREAM, 3, &block);
        script.bytes
    }

    /// Every seed: its name and its bytes.
    fn seeds() -> Vec<(&'static str, Vec<u8>)> {
        let gzipped = gzip(b"hello, gzip over HTTP/2");
        let gzipped_length = gzipped.len().to_string();
        vec![
            (
                "get-and-post",
                Input::new(BOTH)
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[
                            status("200"),
                            named("content-length", "5"),
                            named("content-type", "text/plain"),
                        ],
                    )
                    .data(END_STREAM, S1, b"hello")
                    .headers(
                        END_HEADERS,
                        S3,
                        0,
                        &[],
                        &[status("201"), Literal(2, Err("x-request"), "post")],
                    )
                    .data(0, S3, b"crea")
                    .data(END_STREAM, S3, b"ted")
                    .0,
            ),
            (
                "gzip",
                Input::new(GET)
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[status("200"), named("content-encoding", "gzip")],
                    )
                    .data(END_STREAM, S1, &gzipped)
                    .0,
            ),
            (
                "transport-gzip",
                Input::new(TRANSPORT)
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[
                            status("200"),
                            named("content-encoding", "gzip"),
                            named("content-length", &gzipped_length),
                        ],
                    )
                    .data(END_STREAM, S1, &gzipped)
                    .0,
            ),
            (
                "continuation-padding-priority",
                Input::new(GET)
                    .headers(
                        END_HEADERS | frame::PADDED | frame::PRIORITY,
                        S1,
                        4,
                        &[7, 0, 0, 0, 0, 15],
                        &[
                            status("200"),
                            named("cache-control", "no-store"),
                            named("trailer", "x-trailer"),
                        ],
                    )
                    .data(frame::PADDED, S1, b"\x03abc\0\0\0")
                    .data(0, S1, b"def")
                    .headers(
                        END_HEADERS | END_STREAM,
                        S1,
                        0,
                        &[],
                        &[Literal(1, Err("x-trailer"), "done")],
                    )
                    .0,
            ),
            (
                "informational-and-control-frames",
                Input::new(BOTH)
                    .frame(6, 0, S0, b"pingping")
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[status("103"), named("link", "</style.css>; rel=preload")],
                    )
                    .frame(8, 0, S0, &[0, 0, 0x10, 0])
                    .frame(2, 0, S1, &[0, 0, 0, 0, 200])
                    .unknown(0xfa, 0xff, S1, b"unknown frame type")
                    .headers(END_HEADERS, S1, 0, &[], &[status("200")])
                    .fill(END_STREAM, S1, 3, 1000, b'x')
                    .headers(END_HEADERS | END_STREAM, S3, 0, &[], &[status("500")])
                    .0,
            ),
            (
                "settings-goaway-retry",
                Input::new(BOTH | NO_PREFACE)
                    .frame(4, 0, S0, &[0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0])
                    .frame(4, ACK, S0, &[])
                    .headers(END_HEADERS | END_STREAM, S1, 0, &[], &[status("204")])
                    .goaway(S1, 0, b"one stream only")
                    .0,
            ),
            (
                "rst-stream",
                Input::new(BOTH)
                    .headers(END_HEADERS, S1, 0, &[], &[status("200")])
                    .data(0, S1, b"partial")
                    .frame(3, 0, S1, &[0, 0, 0, 8])
                    .frame(3, 0, S3, &[0, 0, 0, 7])
                    .0,
            ),
            (
                "content-length-mismatch",
                Input::new(GET)
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[status("200"), named("content-length", "10")],
                    )
                    .data(END_STREAM, S1, b"short")
                    .0,
            ),
            (
                "dynamic-table",
                Input::new(BOTH)
                    .headers(
                        END_HEADERS,
                        S1,
                        0,
                        &[],
                        &[
                            SizeUpdate(64),
                            Indexed(8),
                            Literal(0, Ok(4), "text/html"),
                            Literal(0, Err("x-fuzz-name"), "one"),
                        ],
                    )
                    .data(END_STREAM, S1, b"<p>")
                    .headers(
                        END_HEADERS | END_STREAM,
                        S3,
                        0,
                        &[],
                        &[Indexed(8), Indexed(62), Indexed(63)],
                    )
                    .0,
            ),
            (
                "head-under-the-limit",
                // 24 fields of 8 KiB: 197 KB.
                Input::new(GET)
                    .big_head(S1, 2, 5, 127)
                    .data(END_STREAM, S1, b"ok")
                    .0,
            ),
            (
                "head-over-the-limit",
                // 36 fields of 8 KiB: 296 KB.
                Input::new(GET)
                    .big_head(S1, 2, 8, 127)
                    .data(END_STREAM, S1, b"ok")
                    .0,
            ),
            (
                "endless-continuation",
                Input::new(GET).big_head(S1, 2 | 4, 255, 255).0,
            ),
            (
                "indexed-header-bomb",
                Input::new(GET).big_head(S1, 1 | 2, 255, 255).0,
            ),
            (
                "push-promise",
                Input::new(GET)
                    .push_promise(
                        S1,
                        S5,
                        &[
                            Indexed(2),
                            Indexed(4),
                            Indexed(6),
                            Literal(1, Ok(22), "fuzz.test"),
                        ],
                    )
                    .headers(END_HEADERS | END_STREAM, S1, 0, &[], &[status("200")])
                    .0,
            ),
            ("large-body", {
                let mut input = Input::new(GET).headers(
                    END_HEADERS,
                    S1,
                    0,
                    &[],
                    &[status("200"), named("content-length", "655360")],
                );
                input = input.fill(END_STREAM, S1, 40, 16_384, b'b');
                input.0
            }),
            ("raw", {
                let mut input = vec![GET | RAW | NO_PREFACE];
                input.extend_from_slice(&raw_exchange());
                input
            }),
        ]
    }

    fn seed(name: &str) -> Vec<u8> {
        seeds()
            .into_iter()
            .find(|(seed, _)| *seed == name)
            .map(|(_, bytes)| bytes)
            .expect("a seed of that name")
    }

    #[test]
    fn h2_seeds_are_the_generated_ones() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/h2_response");
        let write = std::env::var_os("H2_WRITE_SEEDS").is_some();
        for (name, bytes) in seeds() {
            assert!(bytes.len() <= MAX_INPUT, "{name}: longer than an input");
            let path = dir.join(name);
            if write {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &bytes).unwrap();
            }
            let committed = std::fs::read(&path).unwrap_or_default();
            assert!(
                committed == bytes,
                "{}: not the generated seed (H2_WRITE_SEEDS=1 writes it)",
                path.display()
            );
        }
    }

    #[test]
    fn hpack_integers_are_encoded_as_rfc_7541_shows() {
        // Appendix C.1.
        let mut out = Vec::new();
        hpack::integer(&mut out, 5, 0, 10);
        assert_eq!(out, [0x0a]);
        out.clear();
        hpack::integer(&mut out, 5, 0, 1337);
        assert_eq!(out, [0x1f, 0x9a, 0x0a]);
        out.clear();
        hpack::integer(&mut out, 8, 0, 42);
        assert_eq!(out, [0x2a]);
        // C.2.1: a literal with incremental indexing and a new name.
        out.clear();
        hpack::literal(
            &mut out,
            hpack::Literal::Incremental,
            0,
            b"custom-key",
            b"custom-header",
        );
        assert_eq!(out, b"\x40\x0acustom-key\x0dcustom-header");
    }

    #[test]
    fn the_data_sent_is_what_data_frames_carried_up_to_end_stream() {
        let mut script = Script::default();
        script.frame(frame::HEADERS, END_HEADERS, 1, &[0x88]);
        script.frame(frame::DATA, frame::PADDED, 1, b"\x02ab\0\0");
        script.frame(frame::DATA, END_STREAM, 1, b"cd");
        script.frame(frame::DATA, END_STREAM, 1, b"after the end");
        script.frame(frame::DATA, frame::PADDED | END_STREAM, 3, b"\x09short");
        script.frame(frame::DATA, 0, 5, b"never ends");
        script.frame(frame::HEADERS, END_HEADERS | END_STREAM, 7, &[0x89]);
        script.frame(frame::DATA, 0, 9, b"cut");
        script.frame(frame::RST_STREAM, 0, 9, &[0, 0, 0, 0]);
        script.frame(frame::DATA, END_STREAM, 9, b" after the reset");
        script.frame(frame::DATA, 0, 11, b"cancelled");
        script.frame(frame::RST_STREAM, 0, 11, &[0, 0, 0, 8]);
        script.frame(frame::DATA, 0, 13, b"below the last stream");
        script.frame(frame::DATA, 0, 15, b"above");
        script.frame(frame::GOAWAY, 0, 0, &[0, 0, 0, 13, 0, 0, 0, 0]);
        assert_eq!(
            sent(&script.bytes),
            Sent {
                ended: vec![b"abcd".to_vec(), Vec::new()],
                reset: vec![b"cut".to_vec(), b"above".to_vec()],
            }
        );
    }

    #[test]
    fn a_fetched_body_is_compared_with_the_data_of_its_stream() {
        let outcome = run(&seed("get-and-post"));
        // The GET's two branches and the POST.
        assert_eq!(
            outcome,
            Outcome {
                responses: 2,
                bodies_read: 3,
                bodies_compared: 3,
                tasks_left: 0
            }
        );
        let outcome = run(&seed("transport-gzip"));
        assert_eq!(
            outcome,
            Outcome {
                responses: 1,
                bodies_read: 1,
                bodies_compared: 1,
                tasks_left: 0
            }
        );
        // Decoded, so compared with nothing.
        let outcome = run(&seed("gzip"));
        assert_eq!(
            outcome,
            Outcome {
                responses: 1,
                bodies_read: 2,
                bodies_compared: 0,
                tasks_left: 0
            }
        );
    }

    #[test]
    fn a_head_under_the_limit_is_read_and_one_over_it_refused() {
        let under = run(&seed("head-under-the-limit"));
        assert_eq!(
            under,
            Outcome {
                responses: 1,
                bodies_read: 2,
                bodies_compared: 2,
                tasks_left: 0
            }
        );
        for name in [
            "head-over-the-limit",
            "endless-continuation",
            "indexed-header-bomb",
        ] {
            assert_eq!(run(&seed(name)), Outcome::default(), "{name}");
        }
    }

    #[test]
    fn a_body_shorter_than_its_content_length_is_an_error() {
        assert_eq!(
            run(&seed("content-length-mismatch")),
            Outcome {
                responses: 1,
                bodies_read: 0,
                bodies_compared: 0,
                tasks_left: 0
            }
        );
    }
}

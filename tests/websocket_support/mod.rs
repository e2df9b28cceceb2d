//! A WebSocket server's side, frame by frame, for tests that need a server to do what
//! a real one would not: the handshake answered by hand, frames written as they come.
//! Mounted beside `net_support`, whose `read_head` it uses.
// Each test crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::io::Cursor;

use bytes::{Buf, BytesMut};
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::net_support::read_head;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode;

pub const TEXT: u8 = 0x1;
pub const BINARY: u8 = 0x2;
pub const CONTINUATION: u8 = 0x0;
pub const CLOSE: u8 = 0x8;
pub const PING: u8 = 0x9;
pub const PONG: u8 = 0xA;

/// The value of header `name` in a request head, if there.
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// Reads a handshake's request head from `stream` and answers `101` with `extra` header
/// lines (each ending in CRLF) after the required ones. Gives the request head.
pub async fn accept<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    extra: &str,
) -> Option<String> {
    let head = read_head(stream).await?;
    let key = header(&head, "sec-websocket-key")?;
    let response = format!(
        "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\
         sec-websocket-accept: {}\r\n{extra}\r\n",
        derive_accept_key(key.as_bytes())
    );
    stream.write_all(response.as_bytes()).await.ok()?;
    Some(head)
}

/// A server's frame: unmasked, `opcode`, FIN and RSV1 as given.
pub fn frame(fin: bool, rsv1: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    let header = FrameHeader {
        is_final: fin,
        rsv1,
        rsv2: false,
        rsv3: false,
        opcode: OpCode::from(opcode),
        mask: None,
    };
    let mut out = Vec::new();
    header.format(payload.len() as u64, &mut out).unwrap();
    out.extend_from_slice(payload);
    out
}

/// A Close frame's payload: `code` then `reason`.
pub fn close_payload(code: u16, reason: &str) -> Vec<u8> {
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(reason.as_bytes());
    payload
}

/// A frame the client sent, unmasked.
#[derive(Debug)]
pub struct ClientFrame {
    pub fin: bool,
    pub rsv1: bool,
    pub opcode: u8,
    pub masked: bool,
    pub payload: Vec<u8>,
}

impl ClientFrame {
    /// A Close frame's code.
    pub fn close_code(&self) -> Option<u16> {
        (self.opcode == CLOSE && self.payload.len() >= 2)
            .then(|| u16::from_be_bytes([self.payload[0], self.payload[1]]))
    }
}

/// Reads client frames from a stream, whatever was read past the head included.
pub struct FrameReader {
    buf: BytesMut,
}

impl FrameReader {
    pub fn new() -> FrameReader {
        FrameReader {
            buf: BytesMut::new(),
        }
    }

    /// The next frame; `None` at EOF or on a malformed one.
    pub async fn next<S: AsyncRead + Unpin>(&mut self, stream: &mut S) -> Option<ClientFrame> {
        loop {
            let mut cursor = Cursor::new(&self.buf[..]);
            if let Ok(Some((header, length))) = FrameHeader::parse(&mut cursor) {
                let at = cursor.position() as usize;
                let length = length as usize;
                if self.buf.len() >= at + length {
                    self.buf.advance(at);
                    let mut payload = self.buf.split_to(length).to_vec();
                    if let Some(mask) = header.mask {
                        for (i, byte) in payload.iter_mut().enumerate() {
                            *byte ^= mask[i % 4];
                        }
                    }
                    return Some(ClientFrame {
                        fin: header.is_final,
                        rsv1: header.rsv1,
                        opcode: u8::from(header.opcode),
                        masked: header.mask.is_some(),
                        payload,
                    });
                }
            }
            let mut chunk = [0u8; 16 * 1024];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }
}

/// `data` compressed as a permessage-deflate message (RFC 7692 §7.2.1): raw DEFLATE,
/// sync-flushed, the trailing `00 00 ff ff` removed.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut compress = Compress::new(Compression::default(), false);
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    loop {
        let consumed = compress.total_in() as usize;
        out.reserve(64 * 1024);
        compress
            .compress_vec(&data[consumed..], &mut out, FlushCompress::Sync)
            .unwrap();
        if compress.total_in() as usize == data.len() && out.len() < out.capacity() {
            break;
        }
    }
    assert!(out.ends_with(&[0, 0, 0xff, 0xff]));
    out.truncate(out.len() - 4);
    out
}

/// A permessage-deflate message inflated (no context kept between messages).
pub fn inflate(data: &[u8]) -> Vec<u8> {
    let mut input = data.to_vec();
    input.extend_from_slice(&[0, 0, 0xff, 0xff]);
    let mut decompress = Decompress::new(false);
    let mut out = Vec::with_capacity(data.len() * 4 + 1024);
    loop {
        let consumed = decompress.total_in() as usize;
        out.reserve(64 * 1024);
        decompress
            .decompress_vec(&input[consumed..], &mut out, FlushDecompress::Sync)
            .unwrap();
        if decompress.total_in() as usize == input.len() && out.len() < out.capacity() {
            return out;
        }
    }
}

/// A server's inflater for a connection's messages, its context kept between them (so
/// it reads a client's whether or not that client keeps its own).
pub struct Inflater(Decompress);

impl Inflater {
    pub fn new() -> Inflater {
        Inflater(Decompress::new(false))
    }

    /// One message inflated.
    pub fn inflate(&mut self, data: &[u8]) -> Vec<u8> {
        let mut input = data.to_vec();
        input.extend_from_slice(&[0, 0, 0xff, 0xff]);
        let start = self.0.total_in();
        let mut out = Vec::with_capacity(data.len() * 4 + 1024);
        loop {
            let consumed = (self.0.total_in() - start) as usize;
            out.reserve(64 * 1024);
            self.0
                .decompress_vec(&input[consumed..], &mut out, FlushDecompress::Sync)
                .unwrap();
            if (self.0.total_in() - start) as usize == input.len() && out.len() < out.capacity() {
                return out;
            }
        }
    }
}

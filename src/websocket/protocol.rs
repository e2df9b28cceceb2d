//! The WebSocket protocol after the handshake (RFC 6455 §5–§7): frames read and
//! written on the connection, messages assembled from fragments, pings answered, the
//! closing handshake, `permessage-deflate`, and the limits on what a server controls.
//!
//! Frame headers are coded by tungstenite's frame layer (`FrameHeader::parse` and
//! `format`); the message layer is ours because tungstenite's refuses the RSV1 bit that
//! `permessage-deflate` needs, and has no bound on fragments, control frames or
//! inflated size.
//!
//! What a server controls is bounded (see [`WebSocketLimits`]). In memory: the read buffer
//! by a frame ([`WebSocketLimits::max_frame_size`]), a message being assembled or inflated
//! by [`WebSocketLimits::max_message_size`], and the write buffer by what the caller
//! sends: [`WRITE_HIGH_WATER`] and one message through the `Sink`, plus one pong and one
//! Close of our own, however many pings the server sends and however long it does not
//! read. In time: a write that waits for the server to take bytes by
//! [`WebSocketLimits::send_timeout`] without progress, and everything after a Close is
//! queued (written, sent or answered) by [`WebSocketLimits::close_timeout`]; past either,
//! the connection is dropped. Only the wait for the server's next message is unbounded:
//! an idle WebSocket is a WebSocket.

use std::future::Future;
use std::io::{self, Cursor};
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};
use std::time::{Duration, Instant};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::time::Sleep;
use tungstenite::protocol::frame::FrameHeader;
use tungstenite::protocol::frame::coding::{Control, Data, OpCode};

use super::deflate::Deflate;
use super::{CloseCode, CloseFrame, Message, WebSocketError, WebSocketLimits};

/// How a connection ended, for a `close()` called after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The server's Close was received (its frame, `None` when it carried no code).
    Clean(Option<CloseFrame>),
    /// Without the server's Close: the connection was failed, lost, or given up (its
    /// close code is 1006, RFC 6455 §7.1.5).
    Abnormal,
}

/// Why the connection was dropped before its end, for what either side asks after.
#[derive(Clone, Copy, Debug)]
enum Dropped {
    /// The close deadline passed ([`WebSocketLimits::close_timeout`]).
    CloseTimeout,
    /// A send saw no progress for [`WebSocketLimits::send_timeout`].
    SendTimeout,
    /// Writing failed.
    Io(io::ErrorKind),
}

/// Encoded frames past this many bytes make [`Connection::poll_ready`] write before it
/// takes another message.
const WRITE_HIGH_WATER: usize = 64 * 1024;

/// The most a control frame's payload holds (§5.5).
const MAX_CONTROL_PAYLOAD: usize = 125;

/// The most a Close frame's reason holds: 125 less the two bytes of its code.
pub(crate) const MAX_CLOSE_REASON: usize = 123;

/// How long a dropped connection lingers (see [`Connection::linger`]).
pub(crate) const LINGER: Duration = Duration::from_secs(1);

/// A message being assembled from its fragments.
struct Partial {
    text: bool,
    compressed: bool,
    data: BytesMut,
    fragments: usize,
}

/// The client side of a WebSocket connection over `S`.
pub(crate) struct Connection<S> {
    /// The connection; `None` once [`Connection::linger`] took it.
    io: Option<S>,
    read_buf: BytesMut,
    /// Frames encoded and not yet written.
    write_buf: BytesMut,
    limits: WebSocketLimits,
    deflate: Option<Deflate>,
    partial: Option<Partial>,
    /// The payload of the latest Ping not yet answered: only the latest is (§5.5.3
    /// allows it), so a ping flood holds one pong, not one per ping. It is encoded into
    /// the write buffer only once that buffer is empty: a server that does not read
    /// makes later pings replace it, never queue behind it.
    pending_pong: Option<Bytes>,
    /// Control frames received in the current one-second window.
    control_window: (Instant, u32),
    /// We sent a Close frame: the closing handshake is started.
    close_sent: bool,
    /// When the closing handshake is given up, from the moment a Close of ours is
    /// queued (ours, our answer to the server's, or the one failing the connection): by
    /// then ours is written and, when we closed first, the server's read.
    close_deadline: Option<tokio::time::Instant>,
    /// The reading side's timer for `close_deadline`, polled by `poll_next` alone (a
    /// timer wakes the last task that polled it).
    close_timer: Option<Pin<Box<Sleep>>>,
    /// The server's Close, received and not yet delivered (once our answer is written).
    close_received: Option<Option<CloseFrame>>,
    /// The error that failed the connection, delivered once the Close saying so is
    /// written (§7.1.7), or at the close deadline.
    failure: Option<WebSocketError>,
    /// How the connection ended, once it has.
    ended: Option<Ended>,
    /// While a send waits for the connection to take bytes: when it last took some (or
    /// the wait began). `None` when no send waits, or the write buffer is empty.
    stalled_since: Option<tokio::time::Instant>,
    /// The sending side's timer, polled by sends alone: at the earlier of
    /// `stalled_since` and [`WebSocketLimits::send_timeout`], and the close deadline.
    send_timer: Option<Pin<Box<Sleep>>>,
    /// Why the connection was dropped, once it has been (then `io` is `None`).
    dropped: Option<Dropped>,
    /// The task of the last read that returned `Pending`, woken when the connection is
    /// dropped (dropping it wakes no task waiting on it).
    parked_reader: Option<Waker>,
    /// Nothing more to read: closed, or failed.
    done: bool,
    /// The server ended the TCP connection (or it failed): nothing to linger for.
    eof: bool,
    /// The task of a send waiting for the write buffer to be written (`poll_ready`,
    /// `poll_flush`). A connection wakes one task for writing, the last that tried: when
    /// reading writes too (a pong, or what a send queued) it takes that place, so the
    /// sender is woken to take it back, or because the reader wrote its data out.
    writer: Option<Waker>,
    /// The task of a read waiting for its answering Close to be written, woken when a
    /// send writes the buffer out.
    reader: Option<Waker>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// A connection on `io`, `read` being what was read past the handshake already.
    pub(crate) fn new(
        io: S,
        read: Bytes,
        limits: WebSocketLimits,
        deflate: Option<Deflate>,
    ) -> Connection<S> {
        let mut read_buf = BytesMut::with_capacity(8 * 1024);
        read_buf.extend_from_slice(&read);
        Connection {
            io: Some(io),
            read_buf,
            write_buf: BytesMut::new(),
            limits,
            deflate,
            partial: None,
            pending_pong: None,
            control_window: (Instant::now(), 0),
            close_sent: false,
            close_deadline: None,
            close_timer: None,
            close_received: None,
            failure: None,
            ended: None,
            stalled_since: None,
            send_timer: None,
            dropped: None,
            parked_reader: None,
            done: false,
            eof: false,
            writer: None,
            reader: None,
        }
    }

    /// Whether the closing handshake has started on our side.
    pub(crate) fn close_sent(&self) -> bool {
        self.close_sent
    }

    /// Bytes of encoded frames not yet written.
    pub(crate) fn buffered(&self) -> usize {
        self.write_buf.len()
    }

    /// How the connection ended, once it has.
    pub(crate) fn ended(&self) -> Option<&Ended> {
        self.ended.as_ref()
    }

    /// The next message, `None` once the connection is closed.
    ///
    /// Never waits on the server but for its next frame, except after a Close of ours is
    /// queued: then for that Close to be written (and, when we closed first, for the
    /// server's), at most until the close deadline, when the connection is dropped.
    pub(crate) fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Message, WebSocketError>>> {
        loop {
            if self.done {
                return Poll::Ready(None);
            }
            // The closing handshake's bound comes first, so that no wait below outlasts
            // it (and its timer wakes this task); then a connection the sending side
            // dropped.
            if self.close_deadline_passed(cx) {
                self.drop_io(Dropped::CloseTimeout);
            }
            if self.io.is_none() {
                return Poll::Ready(Some(self.after_drop()));
            }
            // Answers and echoes go out while reading: a server waiting for its pong is
            // not kept waiting by a caller that only reads. Written as far as the
            // connection takes them, never waited for here.
            let mut written = Poll::Ready(Ok(()));
            if !self.write_buf.is_empty() || self.pending_pong.is_some() {
                written = self.poll_write_buf(cx);
                self.wake_writer();
            }
            if let Poll::Ready(Err(e)) = written {
                // The connection is gone under us: what is due is delivered as it stands.
                self.drop_io(Dropped::Io(e.kind()));
                if let Some(message) = self.deliver_close_or_failure() {
                    return Poll::Ready(Some(message));
                }
                self.done = true;
                self.ended = Some(Ended::Abnormal);
                return Poll::Ready(Some(Err(WebSocketError::Io(e))));
            }
            if self.failure.is_some() || self.close_received.is_some() {
                // Our Close (failing the connection, or answering the server's) goes out
                // before the error or the server's Close is delivered, until the close
                // deadline; nothing is read meanwhile, nor after.
                if written.is_pending() && self.close_deadline.is_some() {
                    self.reader = Some(cx.waker().clone());
                    self.park_reader(cx);
                    return Poll::Pending;
                }
                if let Some(message) = self.deliver_close_or_failure() {
                    return Poll::Ready(Some(message));
                }
            }
            let frame = match self.next_frame() {
                Ok(frame) => frame,
                Err(e) => {
                    self.fail(e);
                    continue;
                }
            };
            if let Some((header, payload)) = frame {
                match self.on_frame(header, payload) {
                    Ok(Some(message)) => return Poll::Ready(Some(Ok(message))),
                    Ok(None) => {}
                    Err(e) => self.fail(e),
                }
                continue;
            }
            // More bytes needed.
            if self.read_buf.capacity() - self.read_buf.len() < 4096 {
                self.read_buf.reserve(8 * 1024);
            }
            let Some(io) = self.io.as_mut() else {
                self.done = true;
                return Poll::Ready(None);
            };
            let read = tokio_util::io::poll_read_buf(Pin::new(io), cx, &mut self.read_buf);
            let Poll::Ready(read) = read else {
                self.park_reader(cx);
                return Poll::Pending;
            };
            match read {
                Ok(0) => {
                    self.done = true;
                    self.eof = true;
                    self.ended = Some(Ended::Abnormal);
                    // The connection ended without the server's Close: closed abnormally
                    // (1006, §7.1.5).
                    return Poll::Ready(Some(Err(WebSocketError::ClosedAbnormally)));
                }
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    self.eof = true;
                    self.ended = Some(Ended::Abnormal);
                    return Poll::Ready(Some(Err(WebSocketError::Io(e))));
                }
            }
        }
    }

    /// The failure or the server's Close waiting to be delivered, if any, as the
    /// stream's last item.
    fn deliver_close_or_failure(&mut self) -> Option<Result<Message, WebSocketError>> {
        if let Some(error) = self.failure.take() {
            self.done = true;
            return Some(Err(error));
        }
        let frame = self.close_received.take()?;
        // The server closed: its frame delivered; nothing is read after it.
        self.done = true;
        self.ended = Some(Ended::Clean(frame.clone()));
        Some(Ok(Message::Close(frame)))
    }

    /// Whether the closing handshake's deadline has passed (its timer registered with
    /// the reading task's `cx` when it has not).
    fn close_deadline_passed(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(deadline) = self.close_deadline else {
            return false;
        };
        let timer = self
            .close_timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        timer.as_mut().poll(cx).is_ready()
    }

    /// The stream's last item once the connection was dropped: what was due (the
    /// server's Close, whose answer could not be written; the failure, whose Close could
    /// not be), or else why it was dropped.
    fn after_drop(&mut self) -> Result<Message, WebSocketError> {
        if let Some(message) = self.deliver_close_or_failure() {
            return message;
        }
        self.done = true;
        self.ended = Some(Ended::Abnormal);
        Err(self.drop_error())
    }

    /// The error of a dropped connection, for the side that did not drop it.
    fn drop_error(&self) -> WebSocketError {
        match self.dropped {
            Some(Dropped::CloseTimeout) => WebSocketError::CloseTimeout(self.limits.close_timeout),
            Some(Dropped::SendTimeout) => WebSocketError::SendTimeout(self.limits.send_timeout),
            Some(Dropped::Io(kind)) => WebSocketError::Io(kind.into()),
            None => WebSocketError::ClosedAbnormally,
        }
    }

    /// Drops the connection (which closes it) and what was queued for it, and wakes the
    /// tasks that waited on it: they find why in `dropped`. The first reason stays.
    fn drop_io(&mut self, why: Dropped) {
        self.io = None;
        self.eof = true;
        self.dropped.get_or_insert(why);
        self.write_buf = BytesMut::new();
        self.pending_pong = None;
        self.stalled_since = None;
        self.wake_writer();
        self.wake_reader();
        if let Some(reader) = self.parked_reader.take() {
            reader.wake();
        }
    }

    /// Keeps the reading task to wake if the connection is dropped.
    fn park_reader(&mut self, cx: &mut Context<'_>) {
        match &self.parked_reader {
            Some(parked) if parked.will_wake(cx.waker()) => {}
            _ => self.parked_reader = Some(cx.waker().clone()),
        }
    }

    /// A whole frame from the read buffer, when one is there.
    fn next_frame(&mut self) -> Result<Option<(FrameHeader, BytesMut)>, WebSocketError> {
        let mut cursor = Cursor::new(&self.read_buf[..]);
        let Some((header, length)) = FrameHeader::parse(&mut cursor)
            .map_err(|e| WebSocketError::Protocol(format!("a frame header is invalid: {e}")))?
        else {
            return Ok(None);
        };
        let max = self.limits.max_frame_size;
        let length = usize::try_from(length)
            .ok()
            .filter(|&length| length <= max)
            .ok_or(WebSocketError::FrameTooLarge { limit: max })?;
        // §5.5: "All control frames MUST have a payload length of 125 bytes or less": known
        // from the header, before the payload is read in (up to `max_frame_size`).
        if matches!(header.opcode, OpCode::Control(_)) && length > MAX_CONTROL_PAYLOAD {
            return Err(WebSocketError::Protocol(format!(
                "the server sent a control frame of {length} bytes (at most \
                 {MAX_CONTROL_PAYLOAD})"
            )));
        }
        // At most 14 bytes: the cursor read no further.
        let header_len = usize::try_from(cursor.position()).unwrap_or(usize::MAX);
        let whole = header_len.saturating_add(length);
        if self.read_buf.len() < whole {
            // Room for the rest of the frame, read in as it comes.
            self.read_buf.reserve(whole - self.read_buf.len());
            return Ok(None);
        }
        self.read_buf.advance(header_len);
        Ok(Some((header, self.read_buf.split_to(length))))
    }

    /// What a frame means: a message when it completes one, `None` otherwise.
    fn on_frame(
        &mut self,
        header: FrameHeader,
        payload: BytesMut,
    ) -> Result<Option<Message>, WebSocketError> {
        let protocol = |why: &str| Err(WebSocketError::Protocol(why.to_owned()));
        // §5.1: "A client MUST close a connection if it detects a masked frame."
        if header.mask.is_some() {
            return protocol("the server sent a masked frame");
        }
        // §5.2: RSV2 and RSV3 belong to no extension we negotiate; RSV1 only to the
        // first frame of a data message under permessage-deflate (RFC 7692 §6).
        if header.rsv2 || header.rsv3 {
            return protocol("the server set a reserved bit (RSV2 or RSV3)");
        }
        let compressible = matches!(header.opcode, OpCode::Data(Data::Text | Data::Binary));
        if header.rsv1 && (self.deflate.is_none() || !compressible) {
            return protocol("the server set RSV1 where no extension allows it");
        }
        match header.opcode {
            OpCode::Control(control) => {
                // §5.5: control frames are never fragmented and carry at most 125 bytes.
                if !header.is_final || payload.len() > MAX_CONTROL_PAYLOAD {
                    return protocol("the server sent a fragmented or oversized control frame");
                }
                self.count_control_frame()?;
                match control {
                    Control::Ping => {
                        let payload = payload.freeze();
                        if !self.close_sent {
                            self.pending_pong = Some(payload.clone());
                        }
                        Ok(Some(Message::Ping(payload)))
                    }
                    Control::Pong => Ok(Some(Message::Pong(payload.freeze()))),
                    Control::Close => {
                        let frame = parse_close(&payload)?;
                        // §5.5.1: answer with a Close, echoing the code, unless ours is
                        // out already.
                        if !self.close_sent {
                            let code = frame.as_ref().map(|f| f.code);
                            self.encode_close(code, "");
                        }
                        self.pending_pong = None;
                        self.close_received = Some(frame);
                        Ok(None)
                    }
                    Control::Reserved(op) => protocol(&format!("unknown control opcode {op}")),
                }
            }
            OpCode::Data(Data::Continue) => {
                let Some(partial) = self.partial.as_mut() else {
                    return protocol("a continuation frame with no message to continue");
                };
                partial.fragments += 1;
                if partial.fragments > self.limits.max_fragments {
                    return Err(WebSocketError::TooManyFragments {
                        limit: self.limits.max_fragments,
                    });
                }
                let limit = self.limits.max_message_size;
                if partial.data.len().saturating_add(payload.len()) > limit {
                    return Err(WebSocketError::MessageTooLarge { limit });
                }
                partial.data.extend_from_slice(&payload);
                if !header.is_final {
                    return Ok(None);
                }
                let Some(partial) = self.partial.take() else {
                    return Ok(None);
                };
                self.complete(partial.text, partial.compressed, partial.data)
                    .map(Some)
            }
            OpCode::Data(data @ (Data::Text | Data::Binary)) => {
                if self.partial.is_some() {
                    return protocol("a new message began before the last one ended");
                }
                let text = data == Data::Text;
                if header.is_final {
                    return self.complete(text, header.rsv1, payload).map(Some);
                }
                let limit = self.limits.max_message_size;
                if payload.len() > limit {
                    return Err(WebSocketError::MessageTooLarge { limit });
                }
                self.partial = Some(Partial {
                    text,
                    compressed: header.rsv1,
                    data: payload,
                    fragments: 1,
                });
                Ok(None)
            }
            OpCode::Data(Data::Reserved(op)) => protocol(&format!("unknown data opcode {op}")),
        }
    }

    /// A whole message's payload as the message: inflated if compressed, UTF-8 checked
    /// if text.
    fn complete(
        &mut self,
        text: bool,
        compressed: bool,
        payload: BytesMut,
    ) -> Result<Message, WebSocketError> {
        let limit = self.limits.max_message_size;
        if payload.len() > limit {
            return Err(WebSocketError::MessageTooLarge { limit });
        }
        let data = match (compressed, self.deflate.as_mut()) {
            (true, Some(deflate)) => Bytes::from(deflate.decompress(&payload, limit)?),
            _ => payload.freeze(),
        };
        if !text {
            return Ok(Message::Binary(data));
        }
        // §8.1: a text message that is not UTF-8 fails the connection (1007).
        match String::from_utf8(Vec::from(data)) {
            Ok(text) => Ok(Message::Text(text)),
            Err(_) => Err(WebSocketError::InvalidUtf8),
        }
    }

    /// Counts a control frame against the flood limit.
    fn count_control_frame(&mut self) -> Result<(), WebSocketError> {
        let limit = self.limits.max_control_frames_per_second;
        let (started, count) = &mut self.control_window;
        if started.elapsed() >= Duration::from_secs(1) {
            *started = Instant::now();
            *count = 0;
        }
        *count += 1;
        if *count > limit {
            return Err(WebSocketError::ControlFlood { limit });
        }
        Ok(())
    }

    /// _Fail the WebSocket Connection_ (§7.1.7): a Close with the error's code queued
    /// (unless one of ours is out already), the error kept to be delivered once that
    /// Close is written or at the close deadline, and nothing read after.
    fn fail(&mut self, error: WebSocketError) {
        self.partial = None;
        self.ended = Some(Ended::Abnormal);
        if let Some(code) = error.close_code() {
            if !self.close_sent {
                self.encode_close(Some(code), "");
            }
        }
        self.failure = Some(error);
    }

    /// Whether another message can be queued now: writes when the queue is full, as
    /// long as [`WebSocketLimits::send_timeout`] allows.
    pub(crate) fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), WebSocketError>> {
        if self.write_buf.len() >= WRITE_HIGH_WATER {
            ready!(self.poll_send_write(cx))?;
        }
        Poll::Ready(Ok(()))
    }

    /// Starts the closing handshake with a Close of `frame` (checked first), unless it
    /// has started already or the connection has ended: then nothing is sent.
    pub(crate) fn start_close(&mut self, frame: Option<CloseFrame>) -> Result<(), WebSocketError> {
        if let Some(frame) = &frame {
            check_close(frame)?;
        }
        if self.is_over() {
            return Ok(());
        }
        self.send(Message::Close(frame))
    }

    /// Whether the closing handshake has started or the connection has ended: no
    /// message can be sent.
    pub(crate) fn is_over(&self) -> bool {
        self.close_sent || self.done || self.io.is_none() || self.failure.is_some()
    }

    /// `message` encoded for sending (written by the next flush).
    pub(crate) fn send(&mut self, message: Message) -> Result<(), WebSocketError> {
        if self.is_over() {
            return Err(WebSocketError::AlreadyClosing);
        }
        match message {
            Message::Text(text) => self.encode_data(Data::Text, text.as_bytes()),
            Message::Binary(data) => self.encode_data(Data::Binary, &data),
            Message::Ping(data) => {
                check_control_payload(&data)?;
                self.encode(OpCode::Control(Control::Ping), false, &data);
                Ok(())
            }
            Message::Pong(data) => {
                check_control_payload(&data)?;
                self.encode(OpCode::Control(Control::Pong), false, &data);
                Ok(())
            }
            Message::Close(frame) => {
                if let Some(frame) = &frame {
                    check_close(frame)?;
                }
                let (code, reason) = match &frame {
                    Some(frame) => (Some(frame.code), frame.reason.as_str()),
                    None => (None, ""),
                };
                self.encode_close(code, reason);
                Ok(())
            }
        }
    }

    fn encode_data(&mut self, data: Data, payload: &[u8]) -> Result<(), WebSocketError> {
        if let Some(deflate) = self.deflate.as_mut() {
            if let Some(compressed) = deflate.compress(payload)? {
                self.encode(OpCode::Data(data), true, &compressed);
                return Ok(());
            }
        }
        self.encode(OpCode::Data(data), false, payload);
        Ok(())
    }

    /// A Close frame queued, and the close deadline set.
    fn encode_close(&mut self, code: Option<CloseCode>, reason: &str) {
        let mut payload = Vec::with_capacity(2 + reason.len());
        if let Some(code) = code {
            payload.extend_from_slice(&code.0.to_be_bytes());
            payload.extend_from_slice(reason.as_bytes());
        }
        self.encode(OpCode::Control(Control::Close), false, &payload);
        self.close_sent = true;
        self.pending_pong = None;
        self.close_deadline = Some(deadline_after(self.limits.close_timeout));
        // A read parked before the deadline was set has no timer for it: it polls again
        // and takes one.
        if let Some(reader) = &self.parked_reader {
            reader.wake_by_ref();
        }
    }

    /// One frame appended to the write buffer (see [`encode_frame`]). Never a pong of the
    /// server's asking: that goes through `pending_pong`, so that the buffer holds at
    /// most one.
    fn encode(&mut self, opcode: OpCode, rsv1: bool, payload: &[u8]) {
        encode_frame(&mut self.write_buf, opcode, rsv1, payload);
    }

    /// Writes the write buffer out, then the pending pong (encoded only once the buffer
    /// is empty: at most one pong is ever queued), and flushes the connection.
    fn poll_write_buf(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(io) = self.io.as_mut() else {
            if self.write_buf.is_empty() && self.pending_pong.is_none() {
                return Poll::Ready(Ok(()));
            }
            return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
        };
        loop {
            while !self.write_buf.is_empty() {
                let n = ready!(Pin::new(&mut *io).poll_write(cx, &self.write_buf))?;
                if n == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                self.write_buf.advance(n);
                // Progress: a stalled send waits anew from here.
                if self.stalled_since.is_some() {
                    self.stalled_since = Some(tokio::time::Instant::now());
                }
            }
            self.stalled_since = None;
            match self.pending_pong.take() {
                Some(payload) => encode_frame(
                    &mut self.write_buf,
                    OpCode::Control(Control::Pong),
                    false,
                    &payload,
                ),
                None => break,
            }
        }
        Pin::new(io).poll_flush(cx)
    }

    /// Everything queued written, a pending pong included.
    pub(crate) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), WebSocketError>> {
        self.poll_send_write(cx)
    }

    /// [`poll_write_buf`](Connection::poll_write_buf) for a send, bounded: by
    /// [`WebSocketLimits::send_timeout`] without progress and, after a Close of ours, by
    /// the close deadline; past either the connection is dropped. The sender's task kept
    /// while it waits, and a read waiting for the buffer to be written woken once it is.
    fn poll_send_write(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), WebSocketError>> {
        if self.dropped.is_some() {
            return Poll::Ready(Err(self.drop_error()));
        }
        match self.poll_write_buf(cx) {
            Poll::Pending => {
                self.writer = Some(cx.waker().clone());
                match self.send_deadline_passed(cx) {
                    None => Poll::Pending,
                    Some(why) => {
                        self.drop_io(why);
                        self.ended = Some(Ended::Abnormal);
                        Poll::Ready(Err(self.drop_error()))
                    }
                }
            }
            Poll::Ready(written) => {
                self.writer = None;
                self.wake_reader();
                Poll::Ready(written.map_err(WebSocketError::Io))
            }
        }
    }

    /// Which bound a send waiting for the connection to take bytes has passed, if any:
    /// the close deadline (unless the stream has ended), or
    /// [`WebSocketLimits::send_timeout`] since the last progress. The sending side's
    /// timer is set to the earlier, and registered with `cx`.
    fn send_deadline_passed(&mut self, cx: &mut Context<'_>) -> Option<Dropped> {
        let now = tokio::time::Instant::now();
        let since = *self.stalled_since.get_or_insert(now);
        let stall = since
            .checked_add(self.limits.send_timeout)
            .unwrap_or_else(|| deadline_after(self.limits.send_timeout));
        let close = self.close_deadline.filter(|_| !self.done);
        if close.is_some_and(|close| close <= now) {
            return Some(Dropped::CloseTimeout);
        }
        if stall <= now {
            return Some(Dropped::SendTimeout);
        }
        let at = close.map_or(stall, |close| close.min(stall));
        let timer = match &mut self.send_timer {
            Some(timer) => {
                if timer.deadline() != at {
                    timer.as_mut().reset(at);
                }
                timer
            }
            slot @ None => slot.insert(Box::pin(tokio::time::sleep_until(at))),
        };
        // Ready at `at`, which is still ahead: the next poll finds it passed.
        if timer.as_mut().poll(cx).is_ready() {
            cx.waker().wake_by_ref();
        }
        None
    }

    /// A read waiting for the write buffer woken.
    fn wake_reader(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.wake();
        }
    }

    /// After a read wrote (or tried to): a waiting sender woken, to find its data
    /// written or to be the task the connection wakes for writing again.
    fn wake_writer(&mut self) {
        if let Some(writer) = self.writer.take() {
            writer.wake();
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Send + Unpin + 'static> Connection<S> {
    /// The lingering close of a connection being dropped: a Close (1001, going away)
    /// queued if none is out, then, for at most [`LINGER`], what is queued written, our
    /// side shut down, and what the server still sends read and dropped until it closes.
    /// `None` when the server has closed the connection already.
    ///
    /// RFC 6455 §7.1.1 has the server close the TCP connection first; and a socket closed
    /// with unread data resets the connection, which makes the server's TCP drop what it
    /// had not read yet: our Close, the code saying why a connection was failed.
    pub(crate) fn linger(&mut self) -> Option<impl Future<Output = ()> + Send + 'static> {
        if self.eof {
            return None;
        }
        if !self.close_sent {
            self.encode_close(Some(CloseCode::GOING_AWAY), "");
        }
        let mut io = self.io.take()?;
        let write_buf = std::mem::take(&mut self.write_buf);
        Some(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let _ = tokio::time::timeout(LINGER, async move {
                if io.write_all(&write_buf).await.is_err() || io.shutdown().await.is_err() {
                    return;
                }
                let mut discard = [0u8; 8 * 1024];
                while let Ok(1..) = io.read(&mut discard).await {}
            })
            .await;
        })
    }
}

/// One frame, final, masked with a fresh key (§5.3), appended to `buf`.
fn encode_frame(buf: &mut BytesMut, opcode: OpCode, rsv1: bool, payload: &[u8]) {
    let mask: [u8; 4] = rand::random();
    let header = FrameHeader {
        is_final: true,
        rsv1,
        rsv2: false,
        rsv3: false,
        opcode,
        mask: Some(mask),
    };
    let length = payload.len() as u64;
    buf.reserve(header.len(length) + payload.len());
    // Writing to memory cannot fail.
    let _ = header.format(length, &mut (&mut *buf).writer());
    let start = buf.len();
    buf.extend_from_slice(payload);
    apply_mask(&mut buf[start..], mask);
}

/// The instant `timeout` from now; for a timeout too long to add, thirty years from now,
/// as `tokio::time::sleep` takes it.
fn deadline_after(timeout: Duration) -> tokio::time::Instant {
    const FAR: Duration = Duration::from_secs(30 * 365 * 24 * 3600);
    let now = tokio::time::Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(FAR))
        .unwrap_or(now)
}

/// A Close frame's payload (§5.5.1): empty, or a code and a UTF-8 reason.
fn parse_close(payload: &[u8]) -> Result<Option<CloseFrame>, WebSocketError> {
    match payload {
        [] => Ok(None),
        [_] => Err(WebSocketError::Protocol(
            "a Close frame with a one-byte body".to_owned(),
        )),
        [high, low, reason @ ..] => {
            let code = CloseCode(u16::from_be_bytes([*high, *low]));
            if !code.is_sendable() {
                return Err(WebSocketError::Protocol(format!(
                    "a Close frame with the code {}, which no endpoint may send",
                    code.0
                )));
            }
            let reason = std::str::from_utf8(reason).map_err(|_| WebSocketError::InvalidUtf8)?;
            Ok(Some(CloseFrame {
                code,
                reason: reason.to_owned(),
            }))
        }
    }
}

fn check_control_payload(data: &[u8]) -> Result<(), WebSocketError> {
    if data.len() > MAX_CONTROL_PAYLOAD {
        return Err(WebSocketError::InvalidMessage(format!(
            "a ping or pong carries at most {MAX_CONTROL_PAYLOAD} bytes, not {}",
            data.len()
        )));
    }
    Ok(())
}

fn check_close(frame: &CloseFrame) -> Result<(), WebSocketError> {
    if !frame.code.is_sendable() {
        return Err(WebSocketError::InvalidMessage(format!(
            "the close code {} cannot be sent (1000–1003, 1007–1011, 1012–1014 or \
             3000–4999)",
            frame.code.0
        )));
    }
    if frame.reason.len() > MAX_CLOSE_REASON {
        return Err(WebSocketError::InvalidMessage(format!(
            "a close reason is at most {MAX_CLOSE_REASON} bytes of UTF-8, not {}",
            frame.reason.len()
        )));
    }
    Ok(())
}

/// XORs `data` with `mask` repeated (§5.3).
fn apply_mask(data: &mut [u8], mask: [u8; 4]) {
    let word = u32::from_ne_bytes(mask);
    let mut chunks = data.chunks_exact_mut(4);
    for chunk in &mut chunks {
        let value = u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]) ^ word;
        chunk.copy_from_slice(&value.to_ne_bytes());
    }
    for (byte, key) in chunks.into_remainder().iter_mut().zip(mask) {
        *byte ^= key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_twice_is_the_identity() {
        let data: Vec<u8> = (0..=255).collect();
        for len in [0, 1, 3, 4, 5, 255, 256] {
            let mut masked = data[..len].to_vec();
            apply_mask(&mut masked, [1, 2, 3, 4]);
            for (i, (m, d)) in masked.iter().zip(&data[..len]).enumerate() {
                assert_eq!(*m, d ^ [1, 2, 3, 4][i % 4]);
            }
            apply_mask(&mut masked, [1, 2, 3, 4]);
            assert_eq!(masked, data[..len]);
        }
    }

    #[test]
    fn close_payloads_are_checked() {
        assert_eq!(parse_close(b"").unwrap(), None);
        let frame = parse_close(b"\x03\xe8bye").unwrap().unwrap();
        assert_eq!(
            (frame.code, frame.reason.as_str()),
            (CloseCode::NORMAL, "bye")
        );
        assert!(parse_close(b"\x03").is_err());
        assert!(parse_close(b"\x03\xed").is_err(), "1005 is never sent");
        assert!(parse_close(b"\x03\xe8\xff").is_err(), "not UTF-8");
    }
}

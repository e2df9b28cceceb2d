//! HTTP/1.1 pipelining ([RFC 9112 §9.3.2](https://httpwg.org/specs/rfc9112.html#pipelining)),
//! opt in ([`HyperTransportBuilder::http1_pipelining`](super::HyperTransportBuilder::http1_pipelining)):
//! several requests in flight on one connection, each written as soon as it is handed over,
//! their responses read in the order the requests went out.
//!
//! A pipelined connection has a task of its own ([`Task`]), unlike the one-request-at-a-time
//! connections of `net/h1.rs`: it takes requests from a queue ([`Pipeline::send`]), writes
//! them without waiting for the responses before, reads the responses in turn, and hands
//! each body over through a slot of one chunk ([`PipeBody`]), so that a body read slowly
//! holds back the connection, never the memory: at most one chunk per body and one read
//! buffer per connection.
//!
//! What goes into a pipeline: requests the transport may send again (`net/transport.rs`
//! picks them: an idempotent method, a body that is empty or one small buffer, no
//! `Connection`, `Upgrade` or `Expect` of their own), since a pipeline that ends early
//! leaves requests written and never answered. Those, and the ones queued behind them, are
//! given back as [`PipeError::NotAnswered`], and the transport sends each once more, on a
//! connection of its own.
//!
//! How a pipeline ends: a response that keeps no connection (`Connection: close`, HTTP/1.0
//! without `keep-alive`, a body delimited by the close) ends it after its body; a response
//! that cannot be read, or a body cut short, fails its own request and ends it; the read
//! timeout passing while a response is awaited fails that one request; a body dropped
//! before its end is read on and discarded, up to [`DRAIN_LIMIT`] bytes, and the pipeline
//! ends if more was left. A server whose first response on a connection ends it with other
//! requests queued behind (an HTTP/1.0 server, one that answers every request with
//! `Connection: close`) is not sent pipelined requests again ([`Held::refuse_pipelining`]).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http::HeaderValue;
use http::uri::Authority;
use http_body::{Frame, SizeHint};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, Sleep};

use super::h1::{BodyReader, H1Error, Http1, Sent};
use crate::error::NetworkError;

/// The most bytes of a body whose reader went away that are read and discarded to reach
/// the next response; past it the connection closes, and the requests behind it go again
/// on connections of their own.
const DRAIN_LIMIT: u64 = 256 * 1024;

/// A pipelined HTTP/1.1 connection: what the pool keeps and hands out, cheap to clone.
#[derive(Clone)]
pub(crate) struct Pipeline {
    shared: Arc<Shared>,
    jobs: mpsc::UnboundedSender<Job>,
}

/// What the handles and the task of a pipeline share.
struct Shared {
    /// Requests handed to the connection and not done with: queued, written, or whose
    /// response is being read. Counted by [`Ticket`]s.
    load: AtomicUsize,
    /// The most requests in flight at once.
    depth: usize,
    /// Set once the connection takes no more requests.
    closed: AtomicBool,
    /// The `Host` of the connection's origin (`None` if its authority is no header
    /// value), and the authority it was made from.
    host: (Authority, Option<HeaderValue>),
    /// Header names in title case (see `h1::Options`).
    title_case: bool,
    /// What is known of the other end, once connected.
    peer: std::sync::OnceLock<Arc<crate::peer::Peer>>,
}

/// A pipelined connection as its task holds it: the connection, and its place in the
/// pool (the pool's own type, which stands above this room).
pub(crate) trait Held: Send + Unpin + 'static {
    /// The connection.
    fn tx(&mut self) -> &mut Http1;
    /// Notes that the server ended a pipeline after its first response: the origin's
    /// requests are no longer pipelined.
    fn refuse_pipelining(&self);
}

/// What starts a [`Pipeline`] once its connection is made; dropped unstarted, it closes
/// the pipeline.
pub(crate) struct Starter {
    shared: Arc<Shared>,
    jobs: Option<mpsc::UnboundedReceiver<Job>>,
    config: PipelineConfig,
}

impl Starter {
    /// Starts the pipeline's task over `conn`, the new connection.
    pub(crate) fn start(mut self, mut conn: impl Held) {
        let Some(jobs) = self.jobs.take() else {
            return;
        };
        if let Some(peer) = conn.tx().peer() {
            self.shared.peer.set(peer).ok();
        }
        let task = Task {
            conn,
            jobs,
            shared: Arc::clone(&self.shared),
            in_flight: VecDeque::new(),
            reading: Reading::Head,
            closing: false,
            handles_gone: false,
            write_failed: false,
            answered: 0,
            read_timeout: self.config.read_timeout,
            idle_timeout: self.config.idle_timeout,
            timer: None,
            last_progress: Instant::now(),
        };
        tokio::spawn(task);
    }
}

impl Drop for Starter {
    fn drop(&mut self) {
        if self.jobs.is_some() {
            // Never started (the connection failed, or speaks HTTP/2): the requests that
            // joined it get `NotAnswered` as their jobs are dropped with the queue.
            self.shared.closed.store(true, Ordering::Release);
        }
    }
}

/// One request's place in a pipeline's [`load`](Shared::load): taken by the pool under
/// its lock ([`Pipeline::reserve`]), given back when dropped.
pub(crate) struct Ticket(Arc<Shared>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.load.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A request for the task.
struct Job {
    message: Vec<u8>,
    method: Sent,
    reply: oneshot::Sender<Result<Answer, PipeError>>,
    ticket: Ticket,
}

/// A response head read from a pipeline, and its body.
pub(crate) struct Answer {
    pub(crate) parts: http::response::Parts,
    pub(crate) body: PipeBody,
    /// When the first byte of the response arrived.
    pub(crate) response_start: std::time::Instant,
}

/// Why a pipelined request has no response.
#[derive(Debug)]
pub(crate) enum PipeError {
    /// The connection ended before a byte of the response arrived (the request may or
    /// may not have been written, or seen): the request may go again, on another
    /// connection. What ended it, when it failed.
    NotAnswered(Option<H1Error>),
    /// The response failed: its head could not be read, or did not come in time.
    Failed(H1Error),
    /// The request cannot be sent as it is.
    Invalid(NetworkError),
}

impl Pipeline {
    /// A pipeline for a connection to `key`'s origin about to be made, with a place in it
    /// for the request that makes it: requests may join its queue at once, to be written
    /// when [`Starter::start`] has the connection. If it is never started, they come
    /// back [`PipeError::NotAnswered`].
    pub(crate) fn new(
        config: PipelineConfig,
        authority: &Authority,
    ) -> (Pipeline, Starter, Ticket) {
        let bare = authority.as_str().rsplit('@').next().unwrap_or_default();
        let shared = Arc::new(Shared {
            load: AtomicUsize::new(1),
            depth: config.depth.max(1),
            closed: AtomicBool::new(false),
            host: (authority.clone(), HeaderValue::from_str(bare).ok()),
            title_case: config.title_case,
            peer: std::sync::OnceLock::new(),
        });
        let (jobs, receiver) = mpsc::unbounded_channel();
        let starter = Starter {
            shared: Arc::clone(&shared),
            jobs: Some(receiver),
            config,
        };
        let ticket = Ticket(Arc::clone(&shared));
        (Pipeline { shared, jobs }, starter, ticket)
    }

    /// Whether the connection takes no more requests.
    pub(crate) fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// The requests handed to it and not done with.
    pub(crate) fn load(&self) -> usize {
        self.shared.load.load(Ordering::Acquire)
    }

    /// Whether another request would be written at once, not queued behind `depth`.
    pub(crate) fn has_room(&self) -> bool {
        self.load() < self.shared.depth
    }

    /// A place for one more request (the pool takes it under its lock, so that two
    /// requests never take the last place).
    pub(crate) fn reserve(&self) -> Ticket {
        self.shared.load.fetch_add(1, Ordering::AcqRel);
        Ticket(Arc::clone(&self.shared))
    }

    /// The `Host` of a request to `to` on it: the connection's, made once, unless the
    /// request's authority is spelled otherwise (the pool compares them without case);
    /// `None` only if that one is no header value.
    pub(crate) fn host(&self, to: &Authority) -> Option<HeaderValue> {
        let (authority, host) = &self.shared.host;
        if authority.as_str() == to.as_str() {
            return host.clone();
        }
        let bare = to.as_str().rsplit('@').next().unwrap_or_default();
        HeaderValue::from_str(bare).ok()
    }

    /// Whether header names are written in title case.
    pub(crate) fn title_case(&self) -> bool {
        self.shared.title_case
    }

    /// What is known of the other end, for a response on the connection.
    pub(crate) fn peer(&self) -> Option<Arc<crate::peer::Peer>> {
        self.shared.peer.get().cloned()
    }

    /// Sends `message`, a whole request whose method is `method`, after those before it,
    /// and waits for its response head.
    pub(crate) async fn send(
        &self,
        message: Vec<u8>,
        method: Sent,
        ticket: Ticket,
    ) -> Result<Answer, PipeError> {
        let (reply, answer) = oneshot::channel();
        let job = Job {
            message,
            method,
            reply,
            ticket,
        };
        if self.jobs.send(job).is_err() {
            // The task has ended: the request never reached the connection.
            return Err(PipeError::NotAnswered(None));
        }
        answer.await.unwrap_or(Err(PipeError::NotAnswered(None)))
    }
}

/// A pipeline's settings, from the transport's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PipelineConfig {
    /// The most requests in flight on one connection.
    pub(crate) depth: usize,
    /// How long a response is waited for without a byte arriving.
    pub(crate) read_timeout: Option<Duration>,
    /// How long the connection stays open with no request in flight.
    pub(crate) idle_timeout: Option<Duration>,
    /// Header names in title case (see `h1::Options`).
    pub(crate) title_case: bool,
}

/// A request written and not yet answered in full.
struct InFlight {
    method: Sent,
    /// Taken when the head is handed over.
    reply: Option<oneshot::Sender<Result<Answer, PipeError>>>,
    _ticket: Ticket,
}

/// What the task reads for the first request in flight.
enum Reading {
    /// Its response head.
    Head,
    /// Its body, into `slot`, or (`slot` `None`, nobody reading) discarded.
    Body {
        reader: BodyReader,
        slot: Option<Arc<Slot>>,
        declared_length: bool,
        discarded: u64,
    },
}

/// The task of a pipelined connection: it owns the connection.
struct Task<C> {
    conn: C,
    jobs: mpsc::UnboundedReceiver<Job>,
    shared: Arc<Shared>,
    /// The requests written (or being written), oldest first.
    in_flight: VecDeque<InFlight>,
    reading: Reading,
    /// Set once no more requests are taken: the connection ends after those in flight.
    closing: bool,
    /// Set once every handle is gone: the task ends when nothing is in flight.
    handles_gone: bool,
    /// Set once a write failed: nothing more is written.
    write_failed: bool,
    /// Responses read on the connection.
    answered: u64,
    read_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    /// The read or idle timeout's timer, set lazily (see [`Task::timed_out`]).
    timer: Option<Pin<Box<Sleep>>>,
    /// When the connection last moved: a byte read or a request taken.
    last_progress: Instant,
}

/// What one step of the task did.
enum Step {
    /// Something moved: step again.
    Moved,
    /// Nothing can move until a waker is called.
    Wait,
    /// The connection is done with.
    End,
}

impl<C: Held> Future for Task<C> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        loop {
            match this.step(cx) {
                Step::Moved => {
                    this.last_progress = Instant::now();
                    continue;
                }
                Step::End => {
                    this.end();
                    return Poll::Ready(());
                }
                Step::Wait => {}
            }
            if this.timed_out(cx) {
                if this.in_flight.is_empty() {
                    // Idle past the pool's idle timeout.
                    this.end();
                } else {
                    this.fail_front(H1Error::timeout());
                }
                return Poll::Ready(());
            }
            return Poll::Pending;
        }
    }
}

impl<C: Held> Task<C> {
    /// Takes new requests, writes, and reads, as far as each can go without waiting.
    fn step(&mut self, cx: &mut Context<'_>) -> Step {
        let mut moved = false;
        // New requests, up to the depth.
        while !self.closing && self.in_flight.len() < self.shared.depth {
            match self.jobs.poll_recv(cx) {
                Poll::Ready(Some(job)) => {
                    if job.reply.is_closed() {
                        // Its caller went away before it was written.
                        continue;
                    }
                    self.conn.tx().queue(&job.message);
                    if self.in_flight.is_empty() {
                        self.conn.tx().start_response();
                        self.reading = Reading::Head;
                    }
                    self.in_flight.push_back(InFlight {
                        method: job.method,
                        reply: Some(job.reply),
                        _ticket: job.ticket,
                    });
                    moved = true;
                }
                Poll::Ready(None) => {
                    self.handles_gone = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        // Out with what is written.
        if self.conn.tx().has_queued() && !self.write_failed {
            match self.conn.tx().poll_write_queued(cx) {
                Poll::Ready(Ok(())) => moved = true,
                Poll::Ready(Err(_)) => {
                    // The responses to what got through may still come: read on, take
                    // and write nothing more.
                    self.write_failed = true;
                    self.closing = true;
                    moved = true;
                }
                Poll::Pending => {}
            }
        }
        if self.in_flight.is_empty() {
            if self.handles_gone || self.closing {
                return Step::End;
            }
            // Idle: a byte or the close from the peer ends the connection.
            return match self.conn.tx().poll_idle(cx) {
                Poll::Ready(()) => Step::End,
                Poll::Pending if moved => Step::Moved,
                Poll::Pending => Step::Wait,
            };
        }
        match self.read(cx) {
            Step::Wait if moved => Step::Moved,
            step => step,
        }
    }

    /// Reads for the first request in flight: its head, then its body.
    fn read(&mut self, cx: &mut Context<'_>) -> Step {
        let Some(front) = self.in_flight.front_mut() else {
            return Step::Wait;
        };
        match &mut self.reading {
            Reading::Head => {
                let before = self.conn.tx().buffered();
                match self.conn.tx().poll_response_head(cx, front.method) {
                    Poll::Pending if self.conn.tx().buffered() != before => Step::Moved,
                    Poll::Pending => Step::Wait,
                    Poll::Ready(Err(error)) => {
                        self.fail_front(error);
                        Step::End
                    }
                    Poll::Ready(Ok((parts, mut reader))) => {
                        self.answered += 1;
                        let declared_length = reader.is_sized();
                        // A body whose bytes have all arrived with its head (a small
                        // one, usually) goes with the head, and the next response is
                        // read at once.
                        let whole = match reader.remaining() {
                            Some(length @ 1..) if length <= self.conn.tx().buffered() as u64 => {
                                match reader.poll_data(self.conn.tx(), cx) {
                                    Poll::Ready(Some(Ok(data))) if reader.is_end() => Some(data),
                                    _ => None,
                                }
                            }
                            _ => None,
                        };
                        let slot = (!reader.is_end()).then(|| Arc::new(Slot::default()));
                        let body = PipeBody {
                            slot: slot.clone(),
                            remaining: reader.remaining(),
                            whole,
                            done: slot.is_none(),
                        };
                        let answer = Answer {
                            parts,
                            body,
                            response_start: self
                                .conn
                                .tx()
                                .response_start()
                                .unwrap_or_else(std::time::Instant::now),
                        };
                        let delivered = front
                            .reply
                            .take()
                            .is_some_and(|reply| reply.send(Ok(answer)).is_ok());
                        if reader.is_end() {
                            return self.next_response(&reader);
                        }
                        self.reading = Reading::Body {
                            reader,
                            slot: slot.filter(|_| delivered),
                            declared_length,
                            discarded: 0,
                        };
                        Step::Moved
                    }
                }
            }
            Reading::Body {
                reader,
                slot,
                discarded,
                ..
            } => {
                if let Some(open) = slot {
                    let mut state = open.lock();
                    if state.gone {
                        drop(state);
                        *slot = None;
                    } else if state.chunk.is_some() {
                        // The reader has not taken the last chunk: wait for it.
                        state.writer = Some(cx.waker().clone());
                        return Step::Wait;
                    }
                }
                match reader.poll_data(self.conn.tx(), cx) {
                    Poll::Pending => Step::Wait,
                    Poll::Ready(Some(Ok(data))) => {
                        let end = reader.is_end();
                        match slot {
                            Some(open) => {
                                if end {
                                    open.put_trailers(reader.take_trailers());
                                }
                                open.put(Some(data), end.then_some(Ok(())));
                            }
                            None => {
                                *discarded = discarded.saturating_add(data.len() as u64);
                                if *discarded > DRAIN_LIMIT && !end {
                                    // Too much to read for nobody: the requests behind
                                    // go again elsewhere.
                                    self.conn.tx().close();
                                    return Step::End;
                                }
                            }
                        }
                        if end {
                            let reader = std::mem::replace(&mut self.reading, Reading::Head);
                            if let Reading::Body { reader, .. } = reader {
                                return self.next_response(&reader);
                            }
                        }
                        Step::Moved
                    }
                    Poll::Ready(None) => {
                        if let Some(open) = slot {
                            open.put_trailers(reader.take_trailers());
                            open.put(None, Some(Ok(())));
                        }
                        let reader = std::mem::replace(&mut self.reading, Reading::Head);
                        match reader {
                            Reading::Body { reader, .. } => self.next_response(&reader),
                            Reading::Head => Step::End,
                        }
                    }
                    Poll::Ready(Some(Err(error))) => {
                        self.fail_front(error);
                        Step::End
                    }
                }
            }
        }
    }

    /// The first request in flight is answered in full: on to the next, if the
    /// connection goes on after `reader`'s response.
    fn next_response(&mut self, reader: &BodyReader) -> Step {
        self.in_flight.pop_front();
        self.reading = Reading::Head;
        if !reader.keeps_alive() {
            if self.answered == 1 && (!self.in_flight.is_empty() || !self.jobs.is_empty()) {
                // The server ends the connection after its first response with requests
                // waiting behind: one that does not keep connections (HTTP/1.0) or does
                // not take pipelined requests. They go one at a time from now on.
                self.conn.refuse_pipelining();
            }
            self.conn.tx().close();
            return Step::End;
        }
        if !self.in_flight.is_empty() {
            self.conn.tx().start_response();
        }
        Step::Moved
    }

    /// The first request in flight failed with `error`: before its head, it fails, unless
    /// not a byte of its response came and the connection was lost, when it may go again
    /// like those behind it; in its body, the body fails. The connection ends.
    fn fail_front(&mut self, error: H1Error) {
        self.conn.tx().close();
        match std::mem::replace(&mut self.reading, Reading::Head) {
            Reading::Head => {
                let reply = self
                    .in_flight
                    .pop_front()
                    .and_then(|mut front| front.reply.take());
                if let Some(reply) = reply {
                    let lost = !self.conn.tx().response_started() && error.is_connection_lost();
                    let result = match lost {
                        true => PipeError::NotAnswered(Some(error)),
                        false => PipeError::Failed(error),
                    };
                    reply.send(Err(result)).ok();
                }
            }
            Reading::Body {
                slot,
                declared_length,
                ..
            } => {
                self.in_flight.pop_front();
                if let Some(open) = slot {
                    open.put(None, Some(Err(self.body_error(error, declared_length))));
                }
            }
        }
        self.end();
    }

    /// What a body's reader gets for `error`.
    fn body_error(&self, error: H1Error, declared_length: bool) -> NetworkError {
        if error.is_timeout() {
            NetworkError::Timeout {
                kind: crate::error::TimeoutKind::Idle,
                after: self.read_timeout.unwrap_or_default(),
            }
        } else if declared_length && error.is_body_cut() {
            NetworkError::LengthMismatch
        } else {
            NetworkError::Protocol(Box::new(error))
        }
    }

    /// Ends the connection: every request not answered is given back to go again.
    fn end(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.conn.tx().close();
        self.jobs.close();
        if let Reading::Body { slot, .. } = std::mem::replace(&mut self.reading, Reading::Head) {
            // Its head was handed over: the body is cut short.
            self.in_flight.pop_front();
            if let Some(open) = slot {
                let cut = NetworkError::Protocol(Box::new(H1Error::closed()));
                open.put(None, Some(Err(cut)));
            }
        }
        for mut waiting in self.in_flight.drain(..) {
            if let Some(reply) = waiting.reply.take() {
                reply.send(Err(PipeError::NotAnswered(None))).ok();
            }
        }
        while let Ok(job) = self.jobs.try_recv() {
            job.reply.send(Err(PipeError::NotAnswered(None))).ok();
        }
    }

    /// Whether the read timeout passed while a response is awaited, or the idle timeout
    /// while none is. The timer is set to the deadline when first needed and moved only
    /// when it fires early, not at every byte.
    fn timed_out(&mut self, cx: &mut Context<'_>) -> bool {
        let waiting_for_bytes = match &self.reading {
            _ if self.in_flight.is_empty() => false,
            Reading::Head => true,
            Reading::Body { slot, .. } => {
                slot.as_ref().is_none_or(|open| open.lock().chunk.is_none())
            }
        };
        let timeout = match (self.in_flight.is_empty(), waiting_for_bytes) {
            (true, _) => self.idle_timeout,
            (false, true) => self.read_timeout,
            (false, false) => None,
        };
        let Some(deadline) = timeout.and_then(|timeout| self.last_progress.checked_add(timeout))
        else {
            return false;
        };
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.deadline() > deadline {
            timer.as_mut().reset(deadline);
        }
        while timer.as_mut().poll(cx).is_ready() {
            if Instant::now() >= deadline {
                return true;
            }
            timer.as_mut().reset(deadline);
        }
        false
    }
}

/// The hand-over of one response body from the task to its reader: one chunk at a time.
#[derive(Default)]
struct Slot {
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    chunk: Option<Bytes>,
    /// The body's end: `Ok` at its end, or the error that ended it.
    end: Option<Result<(), NetworkError>>,
    /// The trailer fields the body ended with, handed over before its end.
    trailers: Option<http::HeaderMap>,
    /// The reader, waiting for a chunk.
    reader: Option<Waker>,
    /// The task, waiting for the reader to take the chunk.
    writer: Option<Waker>,
    /// Whether the reader is gone.
    gone: bool,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        // Plain data, consistent between statements: a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Puts the trailer fields a body ended with, if any, for the reader (before its end,
    /// which wakes it).
    fn put_trailers(&self, trailers: Option<http::HeaderMap>) {
        if trailers.is_some() {
            self.lock().trailers = trailers;
        }
    }

    /// Puts `chunk` and `end` for the reader, and wakes it.
    fn put(&self, chunk: Option<Bytes>, end: Option<Result<(), NetworkError>>) {
        let waker = {
            let mut state = self.lock();
            if chunk.is_some() {
                state.chunk = chunk;
            }
            if end.is_some() {
                state.end = end;
            }
            state.reader.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The body of a pipelined response, handed over chunk by chunk by the connection's
/// task.
pub(crate) struct PipeBody {
    /// `None` for a body that ended with its head, or came whole with it.
    slot: Option<Arc<Slot>>,
    /// The body, when it came whole with its head.
    whole: Option<Bytes>,
    /// The bytes left, if known.
    remaining: Option<u64>,
    done: bool,
}

impl PipeBody {
    pub(crate) fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        if let Some(whole) = self.whole.take() {
            return Poll::Ready(Some(Ok(Frame::data(whole))));
        }
        if self.done {
            return Poll::Ready(None);
        }
        let Some(slot) = &self.slot else {
            self.done = true;
            return Poll::Ready(None);
        };
        let (polled, writer) = {
            let mut state = slot.lock();
            if let Some(chunk) = state.chunk.take() {
                if let Some(left) = &mut self.remaining {
                    *left = left.saturating_sub(chunk.len() as u64);
                    self.done = *left == 0;
                }
                (
                    Poll::Ready(Some(Ok(Frame::data(chunk)))),
                    state.writer.take(),
                )
            } else if let Some(trailers) =
                state.end.is_some().then(|| state.trailers.take()).flatten()
            {
                (Poll::Ready(Some(Ok(Frame::trailers(trailers)))), None)
            } else if let Some(end) = state.end.take() {
                self.done = true;
                (Poll::Ready(end.err().map(Err)), None)
            } else {
                if !state
                    .reader
                    .as_ref()
                    .is_some_and(|waker| waker.will_wake(cx.waker()))
                {
                    state.reader = Some(cx.waker().clone());
                }
                (Poll::Pending, None)
            }
        };
        if let Some(writer) = writer {
            writer.wake();
        }
        polled
    }

    pub(crate) fn is_end_stream(&self) -> bool {
        self.whole.is_none() && (self.done || self.remaining == Some(0))
    }

    pub(crate) fn size_hint(&self) -> SizeHint {
        if let Some(whole) = &self.whole {
            return SizeHint::with_exact(whole.len() as u64);
        }
        match self.remaining {
            Some(left) => SizeHint::with_exact(left),
            None => SizeHint::default(),
        }
    }
}

impl Drop for PipeBody {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Some(slot) = &self.slot else {
            return;
        };
        let writer = {
            let mut state = slot.lock();
            state.gone = true;
            state.chunk = None;
            state.writer.take()
        };
        // The task reads on past what is left of the body, or closes the connection.
        if let Some(writer) = writer {
            writer.wake();
        }
    }
}

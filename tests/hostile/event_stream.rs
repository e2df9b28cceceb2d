//! Hostile event streams: a line that never ends, an event that never ends, a flood of
//! events, a server that closes every stream at once with `retry: 0`. The limits of
//! `EventStreamLimits` fail the connection with the memory held bounded (counted by the
//! per-thread allocator of `body_limits`), and reconnections back off.

use crate::body_limits::{allocated_during, peak_allocated};
use crate::bounded;
use crate::net_support::{raw_server, read_head};

use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use whatwg_fetch::Client;
use whatwg_fetch::event_source::{Event, EventSource};
use whatwg_fetch::event_stream::EventStreamLimits;

const MIB: u64 = 1024 * 1024;

const HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// A server that answers each request with `HEAD`, `start`, then `repeat` again and again
/// until the client goes away or `max` bytes were sent, then closes.
async fn endless(start: &'static [u8], repeat: &'static [u8], max: u64) -> String {
    let server = raw_server(move |mut stream: TcpStream| async move {
        if read_head(&mut stream).await.is_none() {
            return;
        }
        if stream.write_all(HEAD).await.is_err() || stream.write_all(start).await.is_err() {
            return;
        }
        let mut sent = 0u64;
        while sent < max {
            if stream.write_all(repeat).await.is_err() {
                return;
            }
            sent += repeat.len() as u64;
        }
    })
    .await;
    server.url("/events")
}

/// The first item of `source` that is not `Open`.
async fn first_after_open(source: &mut EventSource) -> Option<whatwg_fetch::Result<Event>> {
    loop {
        match source.next().await {
            Some(Ok(Event::Open)) => continue,
            other => return other,
        }
    }
}

/// An event source on a server that sends `start` then `repeat` without end, held to
/// `limits`: it fails with an error naming `limit`, holding less than 4 MiB for a 1 MiB
/// limit, and does not reconnect.
async fn fails_at_its_limit(
    start: &'static [u8],
    repeat: &'static [u8],
    limits: EventStreamLimits,
    limit: &str,
) {
    let url = endless(start, repeat, 1024 * MIB).await;
    let mut source = Client::new()
        .event_source(&url, Default::default())
        .unwrap()
        .limits(limits);
    let (item, peak) = peak_allocated(first_after_open(&mut source)).await;
    let error = item.unwrap().unwrap_err();
    assert!(error.to_string().contains(limit), "{error}");
    assert!(peak < 4 * MIB, "held {peak} bytes for a 1 MiB {limit}");
    // Failed, not reconnected.
    assert!(source.next().await.is_none());
}

#[tokio::test]
async fn a_line_that_never_ends_fails_at_max_line_length_holding_about_that() {
    static CHUNK: [u8; 64 * 1024] = [b'x'; 64 * 1024];
    let limits = EventStreamLimits::default().max_line_length(MIB as usize);
    bounded(fails_at_its_limit(
        b"data: ",
        &CHUNK,
        limits,
        "max_line_length",
    ))
    .await;
}

#[tokio::test]
async fn an_event_that_never_ends_fails_at_max_event_size_holding_about_that() {
    // "data:yyy…y" and a line feed, 1 KiB a line.
    static LINE: [u8; 1024] = {
        let mut line = [b'y'; 1024];
        line[0] = b'd';
        line[1] = b'a';
        line[2] = b't';
        line[3] = b'a';
        line[4] = b':';
        line[1023] = b'\n';
        line
    };
    let limits = EventStreamLimits::default().max_event_size(MIB as usize);
    bounded(fails_at_its_limit(b"", &LINE, limits, "max_event_size")).await;
}

#[tokio::test]
async fn a_flood_of_small_events_is_read_one_at_a_time() {
    bounded(async {
        // "data: x" and a blank line, again and again: 4 MiB of 466,033 events.
        static EVENTS: [u8; 9 * 7282] = {
            let mut events = [0u8; 9 * 7282];
            let mut i = 0;
            while i < events.len() {
                events[i] = b"data: x\n\n"[i % 9];
                i += 1;
            }
            events
        };
        let url = endless(b"", &EVENTS, 4 * MIB).await;
        let mut source = Client::new()
            .event_source(&url, Default::default())
            .unwrap();
        let ((events, ended), peak) = peak_allocated(async {
            let mut events = 0u64;
            loop {
                match source.next().await {
                    Some(Ok(Event::Open)) => {}
                    Some(Ok(Event::Message(_))) => events += 1,
                    Some(Ok(Event::Reconnecting { cause, .. })) => return (events, cause),
                    other => panic!("{other:?}"),
                }
            }
        })
        .await;
        assert!(ended.is_none(), "{ended:?}");
        assert_eq!(events, (4 * MIB).div_ceil(EVENTS.len() as u64) * 7282);
        // The connection's buffers and a chunk or two, not the events (as `MessageEvent`s
        // they would take tens of MiB).
        assert!(peak < 2 * MIB, "held {peak} bytes reading {events} events");
        source.close();
    })
    .await;
}

#[tokio::test]
async fn a_long_id_then_blank_lines_and_events_is_not_copied_for_each() {
    bounded(async {
        // An `id` of 1 MiB, then 4,096 blank lines (each one dispatches, setting the last
        // event ID string to the buffer) and 1,000 events under that ID.
        static START: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
            let mut start = b"id: ".to_vec();
            start.resize(4 + MIB as usize, b'i');
            start.extend_from_slice(&[b'\n'; 4097]);
            start.extend(b"data: x\n\n".repeat(1000));
            start
        });
        let url = endless(&START, b"", 0).await;
        let mut source = Client::new()
            .event_source(&url, Default::default())
            .unwrap();
        let (events, allocated) = allocated_during(async {
            let mut events = 0;
            while events < 1000 {
                match source.next().await {
                    Some(Ok(Event::Open)) => {}
                    Some(Ok(Event::Message(message))) => {
                        assert_eq!(message.last_event_id().len(), MIB as usize);
                        events += 1;
                    }
                    other => panic!("{other:?}"),
                }
            }
            events
        })
        .await;
        source.close();
        assert_eq!(events, 1000);
        // The line read and the ID made of it once (a few MiB with the connection's
        // buffers), not a copy of the ID per blank line and per event (5 GiB).
        assert!(allocated < 32 * MIB, "allocated {allocated} bytes");
    })
    .await;
}

#[tokio::test]
async fn a_server_that_closes_every_stream_at_once_is_asked_again_less_and_less() {
    bounded(async {
        let url = endless(b"retry: 0\n", b"", 0).await;
        let floor = Duration::from_millis(10);
        let mut source = Client::new()
            .event_source(&url, Default::default())
            .unwrap()
            .min_reconnection_time(floor);
        let mut waits = Vec::new();
        while waits.len() < 2 {
            match source.next().await {
                Some(Ok(Event::Open)) => {}
                Some(Ok(Event::Reconnecting { after, cause: None })) => waits.push(after),
                other => panic!("{other:?}"),
            }
        }
        source.close();
        // `retry: 0` raised to the floor (1 s by default), then the back-off doubling
        // from it (the unit tests of `event_source`).
        assert_eq!(waits[0], floor, "{waits:?}");
        assert!(waits[1] >= floor * 2, "{waits:?}");
    })
    .await;
}

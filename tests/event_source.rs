//! `EventSource`: HTML's server-sent events over the client's fetch, against servers on
//! 127.0.0.1: the request it sends, the events in order, reconnecting with `Last-Event-ID`
//! after the `retry` delay, failing the connection (status, type, scheme, signal) without
//! reconnecting, the back-off, `close()`, and a request of the caller's own.

mod net_support;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use net_support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use whatwg_fetch::event_source::{Event, EventSource, ReadyState};
use whatwg_fetch::{AbortController, Client, ErrorKind, EventSourceInit};

/// `test`, failing if it takes longer than a minute: every case ends well within that.
async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("the test took too long")
}

/// A server that answers the `n`th request (from 0) with `responses[n]` (the last one for
/// every request after), written as is before closing, and records each request head.
async fn scripted(responses: Vec<&'static str>) -> (Server, Arc<Mutex<Vec<String>>>) {
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    let server = raw_server(move |mut stream: TcpStream| {
        let heads = seen.clone();
        let responses = responses.clone();
        async move {
            let Some(head) = read_head(&mut stream).await else {
                return;
            };
            let n = {
                let mut heads = heads.lock().unwrap();
                heads.push(head);
                heads.len() - 1
            };
            let response = responses[n.min(responses.len() - 1)];
            let _ = stream.write_all(response.as_bytes()).await;
        }
    })
    .await;
    (server, heads)
}

const STREAM_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

fn client() -> Client {
    Client::new()
}

/// The next item, which must be an event.
async fn next(source: &mut EventSource) -> Event {
    source
        .next()
        .await
        .expect("the stream ended")
        .expect("an error")
}

fn message(event: Event) -> whatwg_fetch::event_stream::MessageEvent {
    match event {
        Event::Message(message) => message,
        other => panic!("expected a message, got {other:?}"),
    }
}

#[tokio::test]
async fn the_request_is_a_get_for_an_event_stream_without_the_cache() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: x\n\n",
        ])
        .await;
        let mut source = client()
            .event_source(&server.url("/s"), Default::default())
            .unwrap();
        assert_eq!(source.url(), server.url("/s"));
        assert!(!source.with_credentials());
        assert!(matches!(next(&mut source).await, Event::Open));
        assert_eq!(source.ready_state(), ReadyState::Open);
        assert_eq!(message(next(&mut source).await).data(), "x");
        let head = heads.lock().unwrap()[0].to_ascii_lowercase();
        assert!(head.starts_with("get /s http/1.1\r\n"), "{head}");
        assert!(head.contains("\r\naccept: text/event-stream\r\n"), "{head}");
        // Cache mode no-store: HTTP-network-or-cache fetch adds `Cache-Control: no-cache`.
        assert!(head.contains("\r\ncache-control: no-cache\r\n"), "{head}");
        assert!(!head.contains("last-event-id"), "{head}");
    })
    .await;
}

#[tokio::test]
async fn a_stream_that_ends_is_reestablished_after_retry_with_the_last_event_id() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
             retry: 20\nid: 7\nevent: tick\ndata: one\ndata: two\n\ndata: lost",
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\nconnection: close\r\n\r\n\
             data: again\n\n",
        ])
        .await;
        let mut source = client()
            .event_source(&server.url("/s"), Default::default())
            .unwrap()
            .min_reconnection_time(Duration::ZERO);
        assert!(matches!(next(&mut source).await, Event::Open));
        let first = message(next(&mut source).await);
        assert_eq!(
            (first.r#type(), first.data(), first.last_event_id()),
            ("tick", "one\ntwo", "7")
        );
        assert_eq!(first.origin(), format!("http://{}", server.addr));
        // The end of the stream: the incomplete event is discarded, and the event source
        // reconnects after the `retry` delay.
        match next(&mut source).await {
            Event::Reconnecting { after, cause } => {
                assert_eq!(after, Duration::from_millis(20));
                assert!(cause.is_none(), "{cause:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(source.ready_state(), ReadyState::Connecting);
        assert!(matches!(next(&mut source).await, Event::Open));
        let again = message(next(&mut source).await);
        // The last event ID carries over to the new stream (browsers, WPT).
        assert_eq!((again.data(), again.last_event_id()), ("again", "7"));
        let head = heads.lock().unwrap()[1].to_ascii_lowercase();
        assert!(head.contains("\r\nlast-event-id: 7\r\n"), "{head}");
        source.close();
        assert_eq!(source.ready_state(), ReadyState::Closed);
        assert!(source.next().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn a_status_other_than_200_or_another_type_fails_without_reconnecting() {
    bounded(async {
        for (response, says) in [
            ("HTTP/1.1 204 No Content\r\ncontent-type: text/event-stream\r\n\r\n", "204"),
            ("HTTP/1.1 404 Not Found\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n", "404"),
            ("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\ndata: x\n\n", "text/plain"),
            ("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\ndata: x\n\n", "missing"),
        ] {
            let (server, heads) = scripted(vec![response]).await;
            let mut source = client()
                .event_source(&server.url("/"), Default::default())
                .unwrap();
            let error = source.next().await.unwrap().unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError);
            assert!(error.to_string().contains(says), "{error}");
            assert_eq!(source.ready_state(), ReadyState::Closed);
            assert!(source.next().await.is_none());
            assert_eq!(heads.lock().unwrap().len(), 1);
        }
    })
    .await;
}

#[tokio::test]
async fn a_url_that_cannot_be_fetched_fails_and_one_that_does_not_parse_throws() {
    bounded(async {
        let client = client();
        for url in [
            "ftp://example.invalid/",
            "about:blank",
            "mailto:a@example.invalid",
        ] {
            let mut source = client.event_source(url, Default::default()).unwrap();
            assert!(source.next().await.unwrap().is_err(), "{url}");
            assert_eq!(source.ready_state(), ReadyState::Closed, "{url}");
            assert!(source.next().await.is_none());
        }
        let error = client
            .event_source("http://[bad", Default::default())
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::SyntaxError);
        assert!(EventSource::new("no base URL").is_err());
    })
    .await;
}

#[tokio::test]
async fn a_refused_connection_reconnects_with_a_growing_back_off() {
    bounded(async {
        // A port with nothing listening on it.
        let addr = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap()
        };
        let mut source = client()
            .event_source(&format!("http://{addr}/"), Default::default())
            .unwrap()
            .reconnection_time(Duration::from_millis(5))
            .min_reconnection_time(Duration::from_millis(5));
        let mut waits = Vec::new();
        for _ in 0..2 {
            match next(&mut source).await {
                Event::Reconnecting { after, cause } => {
                    assert!(cause.unwrap().is_connect());
                    waits.push(after);
                }
                other => panic!("{other:?}"),
            }
        }
        // The reconnection time first, then twice that, and more, as attempts keep failing.
        assert_eq!(waits[0], Duration::from_millis(5));
        assert!(
            waits[1] >= Duration::from_millis(10) && waits[1] <= Duration::from_micros(12_500),
            "{waits:?}"
        );
        source.close();
        assert!(source.next().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn a_signal_aborted_elsewhere_fails_the_connection_while_it_waits() {
    bounded(async {
        let (server, _) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nretry: 60000\ndata: x\n\n",
        ])
        .await;
        let controller = AbortController::new();
        let init = EventSourceInit {
            signal: Some(controller.signal()),
            ..Default::default()
        };
        let mut source = client().event_source(&server.url("/"), init).unwrap();
        assert!(matches!(next(&mut source).await, Event::Open));
        message(next(&mut source).await);
        assert!(matches!(
            next(&mut source).await,
            Event::Reconnecting { after, .. } if after == Duration::from_secs(60)
        ));
        tokio::spawn(async move { controller.abort(None) });
        let error = source.next().await.unwrap().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::AbortError);
        assert_eq!(source.ready_state(), ReadyState::Closed);
        assert!(source.next().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn close_ends_a_stream_that_is_still_open() {
    bounded(async {
        let server = raw_server(|mut stream: TcpStream| async move {
            if read_head(&mut stream).await.is_some() {
                let _ = stream.write_all(STREAM_HEAD.as_bytes()).await;
                let _ = stream.write_all(b"data: first\n\n").await;
                // Then nothing, with the connection open.
                std::future::pending::<()>().await;
            }
        })
        .await;
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap();
        assert!(matches!(next(&mut source).await, Event::Open));
        assert_eq!(message(next(&mut source).await).data(), "first");
        source.close();
        assert!(source.next().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn a_request_of_the_callers_own_is_sent_again_with_its_body() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nretry: 1\nid: a\ndata: 1\n\n",
        ])
        .await;
        let mut source = client()
            .post(server.url("/chat"))
            .bearer_auth("secret")
            .json(&serde_json::json!({ "stream": true }))
            .event_source()
            .unwrap()
            .min_reconnection_time(Duration::ZERO);
        for _ in 0..2 {
            assert!(matches!(next(&mut source).await, Event::Open));
            assert_eq!(message(next(&mut source).await).data(), "1");
            assert!(matches!(next(&mut source).await, Event::Reconnecting { .. }));
        }
        source.close();
        let heads = heads.lock().unwrap();
        for head in heads.iter().take(2) {
            let head = head.to_ascii_lowercase();
            assert!(head.starts_with("post /chat "), "{head}");
            assert!(head.contains("\r\nauthorization: bearer secret\r\n"), "{head}");
            assert!(head.contains("\r\naccept: text/event-stream\r\n"), "{head}");
            assert!(head.contains("\r\ncontent-length: 15\r\n"), "{head}");
        }
        assert!(heads[1].to_ascii_lowercase().contains("last-event-id: a"));
        // A stream body cannot be sent twice.
        let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from("x"))]);
        let error = client()
            .post(server.url("/"))
            .body(whatwg_fetch::BodyInit::stream(stream))
            .event_source()
            .unwrap_err();
        assert!(error.to_string().contains("cannot be a stream"), "{error}");
    })
    .await;
}

#[tokio::test]
async fn the_events_origin_is_the_final_urls_after_a_redirect() {
    bounded(async {
        let (target, _) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: moved\n\n",
        ])
        .await;
        let location = target.url("/here");
        let redirect: &'static str = Box::leak(
            format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\n\r\n")
                .into_boxed_str(),
        );
        let (server, _) = scripted(vec![redirect]).await;
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap();
        assert!(matches!(next(&mut source).await, Event::Open));
        let moved = message(next(&mut source).await);
        assert_eq!(moved.origin(), format!("http://{}", target.addr));
        assert_eq!(source.url(), server.url("/"));
    })
    .await;
}

#[tokio::test]
async fn a_retry_past_any_clock_waits_without_overflowing() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nretry: 999999999999999999999999\ndata: x\n\n",
        ])
        .await;
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap();
        assert!(matches!(next(&mut source).await, Event::Open));
        message(next(&mut source).await);
        assert!(matches!(
            next(&mut source).await,
            Event::Reconnecting { after, .. } if after == Duration::from_millis(u64::MAX)
        ));
        // It waits (for ever, in effect) rather than panicking on the deadline.
        let waited = tokio::time::timeout(Duration::from_millis(50), source.next()).await;
        assert!(waited.is_err());
        assert_eq!(heads.lock().unwrap().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_cross_origin_reconnection_sends_last_event_id_without_a_preflight() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\naccess-control-allow-origin: http://page.example\r\nconnection: close\r\n\r\nretry: 1\nid: 9\ndata: a\n\n",
        ])
        .await;
        let client = Client::builder()
            .origin(url::Url::parse("http://page.example/").unwrap())
            .build()
            .unwrap();
        let mut source = client
            .event_source(&server.url("/"), Default::default())
            .unwrap()
            .min_reconnection_time(Duration::ZERO);
        for _ in 0..2 {
            assert!(matches!(next(&mut source).await, Event::Open));
            message(next(&mut source).await);
            assert!(matches!(next(&mut source).await, Event::Reconnecting { .. }));
        }
        source.close();
        let heads = heads.lock().unwrap();
        // GET, GET: no OPTIONS before the request that carries the ID.
        assert!(heads.iter().all(|head| head.starts_with("GET ")), "{heads:?}");
        let second = heads[1].to_ascii_lowercase();
        assert!(second.contains("\r\nlast-event-id: 9\r\n"), "{second}");
        assert!(second.contains("\r\norigin: http://page.example\r\n"), "{second}");
    })
    .await;
}

#[tokio::test]
async fn an_id_with_a_control_character_is_sent_back_as_it_is() {
    bounded(async {
        // U+0001 is allowed in an ID (only NUL, CR and LF are not) and in a Fetch header
        // value (which forbids only NUL, CR and LF), though not in an `http` header value:
        // the reconnection sends it as it is.
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
             retry: 1\nid: a\u{1}b\ndata: one\n\n",
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
             id: 2\ndata: two\n\n",
        ])
        .await;
        let mut source = client()
            .event_source(&server.url("/s"), Default::default())
            .unwrap()
            .min_reconnection_time(Duration::ZERO);
        assert!(matches!(next(&mut source).await, Event::Open));
        let one = message(next(&mut source).await);
        assert_eq!((one.data(), one.last_event_id()), ("one", "a\u{1}b"));
        assert!(matches!(
            next(&mut source).await,
            Event::Reconnecting { cause: None, .. }
        ));
        // The stream goes on: reconnected, and the next event arrives.
        assert!(matches!(next(&mut source).await, Event::Open));
        let two = message(next(&mut source).await);
        assert_eq!((two.data(), two.last_event_id()), ("two", "2"));
        // With the ID, byte for byte.
        let heads = heads.lock().unwrap();
        assert_eq!(heads.len(), 2, "{heads:?}");
        assert!(
            heads[1]
                .to_ascii_lowercase()
                .contains("\r\nlast-event-id: a\u{1}b\r\n"),
            "{:?}",
            heads[1]
        );
        source.close();
    })
    .await;
}

/// Drives `source` for `window`, taking every event it gives.
async fn drive_for(source: &mut EventSource, window: Duration) {
    let _ = tokio::time::timeout(window, async {
        while let Some(item) = source.next().await {
            item.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn a_server_that_sends_retry_0_and_an_event_then_closes_is_not_asked_again_at_once() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
             retry: 0\ndata: x\n\n",
        ])
        .await;
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap();
        let window = Duration::from_millis(300);
        drive_for(&mut source, window).await;
        let connections = heads.lock().unwrap().len();
        eprintln!("{connections} connections in {window:?}");
        // The first, and no other within the floor of a second.
        assert_eq!(connections, 1, "{connections} connections in {window:?}");
    })
    .await;
}

#[tokio::test]
async fn connections_that_end_at_once_wait_longer_each_time_until_one_stays_up() {
    bounded(async {
        // Connections 0 to 3 and 5 on: `retry: 0`, an event, and closed at once. Connection
        // 4: the same, kept open for longer than the stable connection time.
        let stable = Duration::from_millis(50);
        let accepted = Arc::new(AtomicUsize::new(0));
        let server = raw_server(move |mut stream: TcpStream| {
            let n = accepted.fetch_add(1, Ordering::SeqCst);
            async move {
                if read_head(&mut stream).await.is_none() {
                    return;
                }
                let _ = stream.write_all(STREAM_HEAD.as_bytes()).await;
                let _ = stream.write_all(b"retry: 0\ndata: x\n\n").await;
                if n == 4 {
                    // The server's own timing: the connection stays up past `stable`.
                    tokio::time::sleep(stable * 2).await;
                }
            }
        })
        .await;
        let floor = Duration::from_millis(10);
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap()
            .min_reconnection_time(floor)
            .stable_connection_time(stable);
        let mut waits = Vec::new();
        while waits.len() < 7 {
            match next(&mut source).await {
                Event::Open | Event::Message(_) => {}
                Event::Reconnecting { after, cause } => {
                    assert!(cause.is_none(), "{cause:?}");
                    waits.push(after);
                }
                other => panic!("{other:?}"),
            }
        }
        source.close();
        // `retry: 0` raised to the floor; doubling (with up to a quarter more) while
        // connections end at once; the floor again after the one that stayed up.
        let within = |wait: Duration, least: Duration| wait >= least && wait <= least * 5 / 4;
        assert_eq!(waits[0], floor, "{waits:?}");
        assert!(within(waits[1], floor * 2), "{waits:?}");
        assert!(within(waits[2], floor * 4), "{waits:?}");
        assert!(within(waits[3], floor * 8), "{waits:?}");
        assert_eq!(waits[4], floor, "{waits:?}");
        assert_eq!(waits[5], floor, "{waits:?}");
        assert!(within(waits[6], floor * 2), "{waits:?}");
    })
    .await;
}

#[tokio::test]
async fn a_server_that_closes_at_once_gets_a_handful_of_connections_in_a_window_of_30_floors() {
    bounded(async {
        let (server, heads) = scripted(vec![
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
             retry: 0\ndata: x\n\n",
        ])
        .await;
        let floor = Duration::from_millis(10);
        let mut source = client()
            .event_source(&server.url("/"), Default::default())
            .unwrap()
            .min_reconnection_time(floor);
        let window = floor * 30;
        drive_for(&mut source, window).await;
        let connections = heads.lock().unwrap().len();
        eprintln!("{connections} connections in {window:?} with a floor of {floor:?}");
        // At 0, 10, 30, 70 and 150 ms (and a quarter more at random from the third on):
        // the next would be at 310 ms at the soonest.
        assert!(
            (2..=5).contains(&connections),
            "{connections} in {window:?}"
        );
    })
    .await;
}

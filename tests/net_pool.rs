//! The connection pool's rules: idle eviction, idle cap, FIFO waiting, and that an
//! abandoned request or body never keeps a place under the cap.

mod net_support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use net_support::*;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};

async fn slow_server(delay: Duration) -> Server {
    hyper_server(move |req| async move {
        tokio::time::sleep(delay).await;
        http::Response::new(full(req.uri().path().to_owned()))
    })
    .await
}

#[tokio::test]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let transport = HyperTransport::builder()
        .pool_idle_timeout(Some(Duration::from_millis(100)))
        .build()
        .unwrap();
    get_text(&transport, &server.url("/")).await;
    assert_eq!(server.counts.live.load(Ordering::SeqCst), 1);
    // The pool closes the idle connection on its own, without another request.
    assert!(eventually(|| server.counts.live.load(Ordering::SeqCst) == 0).await);
    get_text(&transport, &server.url("/")).await;
    assert_eq!(server.counts.accepts(), 2);
}

#[tokio::test]
async fn no_idle_connections_are_kept_with_an_idle_cap_of_zero() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let transport = HyperTransport::builder()
        .max_idle_per_origin(0)
        .build()
        .unwrap();
    for _ in 0..3 {
        get_text(&transport, &server.url("/")).await;
    }
    assert_eq!(server.counts.accepts(), 3);
}

#[tokio::test]
async fn waiting_requests_are_served_first_come_first_served() {
    let (order_tx, mut order_rx) = mpsc::unbounded_channel::<String>();
    let server = hyper_server(move |req| {
        let order_tx = order_tx.clone();
        async move {
            order_tx.send(req.uri().path().to_owned()).unwrap();
            tokio::time::sleep(Duration::from_millis(30)).await;
            http::Response::new(full("ok"))
        }
    })
    .await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let mut tasks = Vec::new();
    for i in 0..6 {
        let transport = transport.clone();
        let url = server.url(&format!("/{i}"));
        tasks.push(tokio::spawn(
            async move { get_text(&transport, &url).await },
        ));
        // Let each request reach the queue before the next one.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for task in tasks {
        task.await.unwrap();
    }
    let mut order = Vec::new();
    while let Ok(path) = order_rx.try_recv() {
        order.push(path);
    }
    assert_eq!(order, ["/0", "/1", "/2", "/3", "/4", "/5"]);
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn a_cancelled_waiter_gives_up_its_place() {
    let server = slow_server(Duration::from_millis(100)).await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let first = {
        let transport = transport.clone();
        let url = server.url("/first");
        tokio::spawn(async move { get_text(&transport, &url).await })
    };
    tokio::time::sleep(Duration::from_millis(10)).await;
    // Queued behind the first, then abandoned.
    let abandoned = tokio::time::timeout(
        Duration::from_millis(20),
        transport.send(get(&server.url("/abandoned")), SendOptions::new()),
    )
    .await;
    assert!(abandoned.is_err());
    assert_eq!(first.await.unwrap().1, "/first");
    let (_, body) = tokio::time::timeout(
        Duration::from_secs(5),
        get_text(&transport, &server.url("/next")),
    )
    .await
    .unwrap();
    assert_eq!(body, "/next");
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn unread_bodies_never_hold_places_under_the_cap() {
    let server =
        hyper_server(|_req| async { http::Response::new(full(vec![b'x'; 512 * 1024])) }).await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(2)
        .build()
        .unwrap();
    for _ in 0..10 {
        let response = tokio::time::timeout(
            Duration::from_secs(5),
            transport.send(get(&server.url("/")), SendOptions::new()),
        )
        .await
        .expect("a dropped body kept its connection's place")
        .unwrap();
        drop(response);
    }
    assert_eq!(server.counts.accepts(), 10);
}

#[tokio::test]
async fn an_abandoned_request_frees_its_connection() {
    // The server answers the first request only after a long time.
    let server = raw_server(|mut stream| async move {
        while let Some(head) = read_head(&mut stream).await {
            if head.starts_with("GET /slow") {
                tokio::time::sleep(Duration::from_secs(10)).await;
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
    })
    .await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let slow = tokio::time::timeout(
        Duration::from_millis(50),
        transport.send(get(&server.url("/slow")), SendOptions::new()),
    )
    .await;
    assert!(slow.is_err());
    let (_, body) = tokio::time::timeout(
        Duration::from_secs(5),
        get_text(&transport, &server.url("/fast")),
    )
    .await
    .unwrap();
    assert_eq!(body, "ok");
    // The abandoned request's connection could not be reused: it was mid-response.
    assert_eq!(server.counts.accepts(), 2);
}

#[tokio::test]
async fn a_full_body_is_sent_with_its_content_length() {
    let (server, mut heads) =
        recording_server(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
    let request = http::Request::post(server.url("/"))
        .body(RequestBody::from("hello"))
        .unwrap();
    let transport = HyperTransport::new().unwrap();
    transport.send(request, SendOptions::new()).await.unwrap();
    let head = heads.recv().await.unwrap();
    assert!(head.contains("content-length: 5\r\n"), "{head}");
    assert!(!head.contains("transfer-encoding"), "{head}");
}

#[tokio::test]
async fn separate_origins_get_separate_connections() {
    let a = hyper_server(|_req| async { http::Response::new(full("a")) }).await;
    let b = hyper_server(|_req| async { http::Response::new(full("b")) }).await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    for _ in 0..3 {
        assert_eq!(get_text(&transport, &a.url("/")).await.1, "a");
        assert_eq!(get_text(&transport, &b.url("/")).await.1, "b");
    }
    assert_eq!(a.counts.accepts(), 1);
    assert_eq!(b.counts.accepts(), 1);
}

#[tokio::test]
async fn the_longest_durations_are_accepted_without_overflow() {
    // A body in two pieces, so the read timer is re-armed between them.
    let server = raw_server(|mut stream| async move {
        while read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\no")
                .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = stream.write_all(b"k").await;
        }
    })
    .await;
    let transport = HyperTransport::builder()
        .pool_idle_timeout(Some(Duration::MAX))
        .read_timeout(Some(Duration::MAX))
        .connect_timeout(Some(Duration::MAX))
        .build()
        .unwrap();
    for _ in 0..2 {
        assert_eq!(get_text(&transport, &server.url("/")).await.1, "ok");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_requests_from_fifty_tasks_all_complete() {
    let server = hyper_server(|_req| async { http::Response::new(full("{\"id\":1}")) }).await;
    let transport = HyperTransport::new().unwrap();
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let transport = transport.clone();
        let url = server.url("/json");
        tasks.push(tokio::spawn(async move {
            for _ in 0..40 {
                let (status, body) = get_text(&transport, &url).await;
                assert_eq!((status.as_u16(), body.as_str()), (200, "{\"id\":1}"));
            }
        }));
    }
    for task in tasks {
        tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .unwrap()
            .unwrap();
    }
    // Every task found a connection of its own and kept reusing it.
    assert!(server.counts.accepts() <= 50, "{}", server.counts.accepts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiters_handed_connections_the_peer_closes_never_hang() {
    // Each connection serves one response and closes without saying so; the waiters
    // behind the cap receive such connections. Each request ends, as a success or (when
    // it was written before the close arrived) a protocol error.
    let server = raw_server(|mut stream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
    })
    .await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let transport = transport.clone();
        let url = server.url("/");
        tasks.push(tokio::spawn(async move {
            match transport.send(get(&url), SendOptions::new()).await {
                Ok(response) => read_all(response.into_body()).await.map(|_| true),
                Err(error) => Err(error),
            }
        }));
    }
    let mut succeeded = 0;
    for task in tasks {
        let result = tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .unwrap()
            .unwrap();
        match result {
            Ok(_) => succeeded += 1,
            Err(error) => assert!(
                matches!(error, whatwg_fetch::NetworkError::Protocol(_)),
                "{error:?}"
            ),
        }
    }
    assert!(succeeded >= 15, "{succeeded} of 30 succeeded");
}

#[tokio::test]
async fn a_new_connection_request_never_reuses_a_pooled_one() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let transport = HyperTransport::builder().build().unwrap();
    let url = server.url("/");
    get_text(&transport, &url).await;
    get_text(&transport, &url).await;
    assert_eq!(server.counts.accepts(), 1, "the idle connection is reused");
    let fresh = SendOptions::new().with_new_connection(true);
    let response = transport.send(get(&url), fresh.clone()).await.unwrap();
    assert_eq!(read_all(response.into_body()).await.unwrap(), "ok");
    assert_eq!(server.counts.accepts(), 2, "a new connection was made");
    // Both connections are now idle; at a cap of one, a new-connection request closes
    // the idle one to make room instead of waiting forever.
    let capped = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    get_text(&capped, &url).await;
    let accepts = server.counts.accepts();
    let response = capped.send(get(&url), fresh).await.unwrap();
    assert_eq!(read_all(response.into_body()).await.unwrap(), "ok");
    assert_eq!(server.counts.accepts(), accepts + 1);
}

#[tokio::test]
async fn a_new_connection_request_under_the_cap_leaves_idle_connections_alone() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let transport = HyperTransport::builder().build().unwrap();
    let url = server.url("/");
    get_text(&transport, &url).await;
    let fresh = SendOptions::new().with_new_connection(true);
    let response = transport.send(get(&url), fresh).await.unwrap();
    read_all(response.into_body()).await.unwrap();
    assert_eq!(server.counts.accepts(), 2);
    // Both connections are idle and open: the next two requests reuse them.
    let (a, b) = tokio::join!(
        transport.send(get(&url), SendOptions::new()),
        transport.send(get(&url), SendOptions::new())
    );
    read_all(a.unwrap().into_body()).await.unwrap();
    read_all(b.unwrap().into_body()).await.unwrap();
    assert_eq!(server.counts.accepts(), 2, "no connection was lost");
}

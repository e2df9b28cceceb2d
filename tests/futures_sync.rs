//! The futures a caller holds are `Send + Sync`, as reqwest's `Pending` is: a caller may keep
//! one where `Sync` is asked (a field of a `Sync` type, across an `.await` of a future that
//! must be `Sync`). Compile-time checks: nothing here is polled.

use whatwg_fetch::websocket::WebSocket;
use whatwg_fetch::{Blob, Client, EventSourceInit, Request, RequestInit, Response};

fn assert_send_sync<T: Send + Sync + 'static>(_: &T) {}

#[test]
fn the_futures_of_a_fetch_are_send_and_sync() {
    let client = Client::new();
    assert_send_sync(&client.get("http://127.0.0.1:1/").send());
    let fetching = {
        let client = client.clone();
        async move {
            client
                .fetch("http://127.0.0.1:1/", RequestInit::default())
                .await
        }
    };
    assert_send_sync(&fetching);
    let fetching = {
        let client = client.clone();
        async move {
            let request = Request::new("http://127.0.0.1:1/", RequestInit::default())?;
            client.fetch_request(request).await
        }
    };
    assert_send_sync(&fetching);
    assert_send_sync(&whatwg_fetch::fetch(
        "http://127.0.0.1:1/",
        RequestInit::default(),
    ));
    assert_send_sync(&whatwg_fetch::get("http://127.0.0.1:1/"));
    // The fetches of a WebSocket handshake and of an event source.
    assert_send_sync(&client.websocket("ws://127.0.0.1:1/").connect());
    assert_send_sync(&async { WebSocket::connect("ws://127.0.0.1:1/").await });
    assert_send_sync(&client.event_source("http://127.0.0.1:1/", EventSourceInit::default()));
}

#[test]
fn the_futures_that_read_a_body_are_send_and_sync() {
    let mut response = Response::new(Some("{}".into()), Default::default()).unwrap();
    assert_send_sync(&response.try_clone().unwrap().bytes());
    assert_send_sync(&response.try_clone().unwrap().text());
    assert_send_sync(&response.try_clone().unwrap().blob());
    assert_send_sync(&response.try_clone().unwrap().form_data());
    assert_send_sync(&response.try_clone().unwrap().json::<serde_json::Value>());
    assert_send_sync(&async move {
        let mut response = response;
        response.chunk().await
    });
    let response = Response::new(Some("{}".into()), Default::default()).unwrap();
    assert_send_sync(&response.upgrade());
    let body = Response::new(Some("{}".into()), Default::default())
        .unwrap()
        .bytes_stream();
    assert_send_sync(&body);
    assert_send_sync(&async move { body.text().await });
    let blob = Blob::new(["blob"], Default::default());
    assert_send_sync(&async move { blob.read_text().await });
}

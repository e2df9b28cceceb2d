//! Cookies: a client with a cookie store sends `Cookie` and stores `Set-Cookie` on
//! credentialed fetches, as a browser does; a server-side client keeps none by default.

mod net_support;

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use whatwg_fetch::cookie::CookieStore;
use whatwg_fetch::{Client, HeadersInit, RequestCredentials, RequestInit, RequestMode};

/// Answers with the request's `Cookie` header as the body; every `set=VALUE` in the query
/// becomes a `Set-Cookie: VALUE`. CORS allows the request's origin with credentials.
async fn routes(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let query = request.uri().query().unwrap_or_default().to_owned();
    let mut builder = HyperResponse::builder()
        .header("content-type", "text/plain")
        .header("access-control-allow-credentials", "true");
    if let Some(origin) = request.headers().get("origin") {
        builder = builder.header("access-control-allow-origin", origin);
    }
    for value in query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("set="))
    {
        let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        builder = builder.header("set-cookie", value.as_ref());
    }
    let cookie = request
        .headers()
        .get_all("cookie")
        .iter()
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .collect::<Vec<_>>()
        .join(" | ");
    builder.body(full(cookie)).unwrap()
}

async fn server() -> Server {
    hyper_server(routes).await
}

fn browser_client(page: &Server) -> Client {
    Client::builder()
        .origin(page.url("/index.html").parse().unwrap())
        .build()
        .unwrap()
}

fn with(credentials: RequestCredentials) -> RequestInit {
    RequestInit {
        credentials: Some(credentials),
        ..Default::default()
    }
}

async fn sent_cookie(client: &Client, url: &str, init: RequestInit) -> String {
    let mut response = client.fetch(url, init).await.unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[tokio::test]
async fn browser_like_client_stores_and_sends_same_origin_cookies() {
    let page = server().await;
    let client = browser_client(&page);
    assert!(client.cookie_store().is_some());
    let set = "/set?set=a%3D1&set=b%3D2%3B%20Path%3D%2Fdeep";
    // The response that sets the cookies is sent none.
    assert_eq!(sent_cookie(&client, set, RequestInit::default()).await, "");
    // The next same-origin request sends them (credentials default to "same-origin"),
    // `Path` respected.
    assert_eq!(
        sent_cookie(&client, "/echo", RequestInit::default()).await,
        "a=1"
    );
    assert_eq!(
        sent_cookie(&client, "/deep/x", RequestInit::default()).await,
        "b=2; a=1"
    );
    // The filtered response hides Set-Cookie; the client's store has them.
    let response = client.fetch(set, RequestInit::default()).await.unwrap();
    assert!(response.headers().get_set_cookie().is_empty());
    assert_eq!(client.cookie_store().unwrap().len(), 2);
    // Max-Age=0 deletes.
    sent_cookie(
        &client,
        "/set?set=a%3Dx%3B%20Max-Age%3D0",
        RequestInit::default(),
    )
    .await;
    assert_eq!(
        sent_cookie(&client, "/echo", RequestInit::default()).await,
        ""
    );
}

#[tokio::test]
async fn credentials_omit_neither_stores_nor_sends() {
    let page = server().await;
    let client = browser_client(&page);
    sent_cookie(&client, "/set?set=a%3D1", with(RequestCredentials::Omit)).await;
    assert!(client.cookie_store().unwrap().is_empty());
    sent_cookie(&client, "/set?set=b%3D2", RequestInit::default()).await;
    assert_eq!(
        sent_cookie(&client, "/echo", with(RequestCredentials::Omit)).await,
        ""
    );
    assert_eq!(
        sent_cookie(&client, "/echo", with(RequestCredentials::Include)).await,
        "b=2"
    );
}

#[tokio::test]
async fn cross_origin_cors_request_sends_cookies_only_with_include() {
    let page = server().await;
    let other = server().await;
    let client = browser_client(&page);
    // Cookies are per host, not per origin: the other server (same host, another port)
    // could receive them, but a CORS request only sends them with "include".
    sent_cookie(&client, "/set?set=a%3D1", RequestInit::default()).await;
    let cors = |credentials| RequestInit {
        mode: Some(RequestMode::Cors),
        credentials: Some(credentials),
        ..Default::default()
    };
    assert_eq!(
        sent_cookie(
            &client,
            &other.url("/echo"),
            cors(RequestCredentials::SameOrigin)
        )
        .await,
        ""
    );
    assert_eq!(
        sent_cookie(
            &client,
            &other.url("/echo"),
            cors(RequestCredentials::Include)
        )
        .await,
        "a=1"
    );
    // A cross-origin response without credentials does not store its cookies either.
    sent_cookie(
        &client,
        &other.url("/set?set=c%3D3"),
        cors(RequestCredentials::SameOrigin),
    )
    .await;
    assert_eq!(client.cookie_store().unwrap().len(), 1);
}

#[tokio::test]
async fn server_side_client_keeps_no_cookies_unless_asked() {
    let page = server().await;
    let plain = Client::builder().build().unwrap();
    assert!(plain.cookie_store().is_none());
    let set = page.url("/set?set=a%3D1");
    let response = plain
        .fetch(set.as_str(), RequestInit::default())
        .await
        .unwrap();
    // Server-side: Set-Cookie is visible, and nothing is stored.
    assert_eq!(response.headers().get_set_cookie(), ["a=1"]);
    assert_eq!(
        sent_cookie(&plain, &page.url("/echo"), RequestInit::default()).await,
        ""
    );

    let with_store = Client::builder().cookie_store(true).build().unwrap();
    sent_cookie(&with_store, &set, RequestInit::default()).await;
    assert_eq!(
        sent_cookie(&with_store, &page.url("/echo"), RequestInit::default()).await,
        "a=1"
    );
    // A request's own Cookie header is joined with the stored cookies in one header.
    let init = RequestInit {
        headers: Some(HeadersInit::from(vec![("cookie", "mine=0")])),
        ..Default::default()
    };
    assert_eq!(
        sent_cookie(&with_store, &page.url("/echo"), init).await,
        "mine=0; a=1"
    );
    // A browser-like client can opt out.
    let no_store = Client::builder()
        .origin(page.url("/").parse().unwrap())
        .cookie_store(false)
        .build()
        .unwrap();
    assert!(no_store.cookie_store().is_none());
}

#[tokio::test]
async fn clients_can_share_a_store() {
    let page = server().await;
    let store = Arc::new(CookieStore::default());
    let one = Client::builder()
        .cookie_store_with(store.clone())
        .build()
        .unwrap();
    let two = Client::builder()
        .cookie_store_with(store.clone())
        .build()
        .unwrap();
    sent_cookie(&one, &page.url("/set?set=a%3D1"), RequestInit::default()).await;
    assert_eq!(
        sent_cookie(&two, &page.url("/echo"), RequestInit::default()).await,
        "a=1"
    );
    store.clear();
    assert_eq!(
        sent_cookie(&two, &page.url("/echo"), RequestInit::default()).await,
        ""
    );
}

#[tokio::test]
async fn cookies_follow_redirects() {
    // Each hop stores its Set-Cookie and the next hop sends the cookies for its URL.
    let page = hyper_server(|request: HyperRequest<Incoming>| async move {
        if request.uri().path() == "/start" {
            return HyperResponse::builder()
                .status(302)
                .header("location", "/end")
                .header("set-cookie", "hop=1")
                .body(full(""))
                .unwrap();
        }
        routes(request).await
    })
    .await;
    let client = Client::builder().cookie_store(true).build().unwrap();
    assert_eq!(
        sent_cookie(&client, &page.url("/start"), RequestInit::default()).await,
        "hop=1"
    );
}

/// A provider that records what fetch asks of it and answers with a fixed cookie.
#[derive(Debug, Default)]
struct Recorder {
    asked: std::sync::Mutex<Vec<String>>,
    stored: std::sync::Mutex<Vec<(String, Vec<String>)>>,
}

impl whatwg_fetch::cookie::CookieProvider for Recorder {
    fn cookie_header_for<'a>(
        &'a self,
        url: &'a url::Url,
    ) -> whatwg_fetch::cookie::CookieFuture<'a, Option<Vec<u8>>> {
        self.asked.lock().unwrap().push(url.path().to_owned());
        Box::pin(async {
            // Answers later than at once, as a store across the network does.
            tokio::task::yield_now().await;
            Some(b"fixed=1".to_vec())
        })
    }

    fn set_cookies_from_headers<'a>(
        &'a self,
        url: &'a url::Url,
        headers: &'a [&'a [u8]],
    ) -> whatwg_fetch::cookie::CookieFuture<'a, ()> {
        let headers = headers
            .iter()
            .map(|header| String::from_utf8_lossy(header).into_owned())
            .collect();
        self.stored
            .lock()
            .unwrap()
            .push((url.path().to_owned(), headers));
        Box::pin(async {})
    }
}

#[tokio::test]
async fn a_cookie_provider_is_asked_and_told_on_credentialed_fetches_only() {
    let server = server().await;
    let recorder = Arc::new(Recorder::default());
    let client = Client::builder()
        .cookie_provider(recorder.clone())
        .build()
        .unwrap();
    assert!(client.cookie_store().is_none(), "not the in-memory store");
    let set = server.url("/set?set=a%3D1&set=b%3D2%3B%20Max-Age%3D60");
    assert_eq!(
        sent_cookie(&client, &set, RequestInit::default()).await,
        "fixed=1"
    );
    assert_eq!(
        sent_cookie(
            &client,
            &server.url("/omit"),
            with(RequestCredentials::Omit)
        )
        .await,
        ""
    );
    assert_eq!(
        sent_cookie(&client, &server.url("/plain"), RequestInit::default()).await,
        "fixed=1"
    );
    assert_eq!(*recorder.asked.lock().unwrap(), ["/set", "/plain"]);
    assert_eq!(
        *recorder.stored.lock().unwrap(),
        [(
            "/set".to_owned(),
            vec!["a=1".to_owned(), "b=2; Max-Age=60".to_owned()]
        )],
        "told once, with every Set-Cookie in order; not for responses without one"
    );
}

#[tokio::test]
async fn each_hop_of_a_redirect_sends_its_own_cookies_once() {
    // The `Cookie` field a hop is sent with is that hop's alone: the next hop neither sends
    // it again beside its own nor, on another host, at all.
    let other = server().await;
    let elsewhere = other.url("/end").replace("127.0.0.1", "localhost");
    let page = hyper_server(move |request: HyperRequest<Incoming>| {
        let elsewhere = elsewhere.clone();
        async move {
            let location = match request.uri().path() {
                "/start" => "/middle".to_owned(),
                "/middle" => "/end".to_owned(),
                "/away" => elsewhere,
                _ => return routes(request).await,
            };
            HyperResponse::builder()
                .status(302)
                .header("location", location)
                .body(full(""))
                .unwrap()
        }
    })
    .await;
    let client = Client::builder().cookie_store(true).build().unwrap();
    assert_eq!(
        sent_cookie(&client, &page.url("/set?set=a%3D1"), RequestInit::default()).await,
        ""
    );
    assert_eq!(
        sent_cookie(&client, &page.url("/start"), RequestInit::default()).await,
        "a=1",
        "two hops on the same host, then the end: one field, one cookie"
    );
    assert_eq!(
        sent_cookie(&client, &page.url("/away"), RequestInit::default()).await,
        "",
        "the host redirected to gets none of the first host's cookies"
    );
    // A request's own `Cookie` is joined by the stored ones on each hop, once; it does not
    // go to another host either.
    let own = || RequestInit {
        headers: Some(HeadersInit::from(vec![("Cookie", "mine=1")])),
        ..Default::default()
    };
    assert_eq!(
        sent_cookie(&client, &page.url("/start"), own()).await,
        "mine=1; a=1"
    );
    assert_eq!(sent_cookie(&client, &page.url("/away"), own()).await, "");
}

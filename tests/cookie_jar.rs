//! A client's cookie jar listed and edited: `CookieStore::cookies` shows what servers on
//! 127.0.0.1 set, field by field; `CookieStore::remove` takes one out, and the next
//! request no longer sends it.

mod net_support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use whatwg_fetch::cookie::{CookieStore, SameSite};
use whatwg_fetch::{Client, RequestInit};

/// Answers with the request's `Cookie` header as the body; every `set=VALUE` in the query
/// becomes a `Set-Cookie: VALUE`.
async fn routes(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let query = request.uri().query().unwrap_or_default().to_owned();
    let mut builder = HyperResponse::builder().header("content-type", "text/plain");
    for value in query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("set="))
    {
        let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        builder = builder.header("set-cookie", value.as_ref());
    }
    let cookie = request
        .headers()
        .get("cookie")
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default();
    builder.body(full(cookie)).unwrap()
}

async fn sent_cookie(client: &Client, server: &Server, path: &str) -> String {
    let mut response = client
        .fetch(server.url(path), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

fn encoded(set_cookie: &str) -> String {
    percent_encoding::utf8_percent_encode(set_cookie, percent_encoding::NON_ALPHANUMERIC)
        .to_string()
}

#[tokio::test]
async fn the_jar_lists_what_a_server_set_and_forgets_a_removed_cookie() {
    let server = hyper_server(routes).await;
    let host = server.addr.ip().to_string();
    let store = Arc::new(CookieStore::default());
    let client = Client::builder()
        .cookie_store_with(store.clone())
        .build()
        .unwrap();
    let set = [
        "sid=s3cr3t; HttpOnly; SameSite=Strict",
        "theme=dark; Max-Age=3600; Path=/",
        "cart=2; Path=/shop",
        // Ignored: Secure over http, and already expired.
        "secure=1; Secure",
        "gone=1; Max-Age=0",
    ];
    let query: Vec<String> = set.iter().map(|c| format!("set={}", encoded(c))).collect();
    let before = SystemTime::now();
    sent_cookie(&client, &server, &format!("/app/login?{}", query.join("&"))).await;

    let cookies = store.cookies();
    assert_eq!(cookies.len(), store.len());
    let listed: Vec<(&str, &str)> = cookies
        .iter()
        .map(|c| (c.path().unwrap(), c.name().unwrap()))
        .collect();
    // One domain; by path, then creation: sid's default path is /app.
    assert_eq!(listed, [("/", "theme"), ("/app", "sid"), ("/shop", "cart")]);
    for cookie in &cookies {
        assert_eq!(cookie.domain(), host);
        assert!(cookie.host_only(), "no Domain attribute");
        assert!(!cookie.secure());
    }
    let (theme, sid, cart) = (&cookies[0], &cookies[1], &cookies[2]);
    assert_eq!(sid.value(), Some("s3cr3t"));
    assert!(sid.is_session() && sid.expires().is_none());
    assert!(sid.http_only());
    assert_eq!(sid.same_site(), SameSite::Strict);
    assert_eq!(theme.value_bytes(), b"dark");
    assert!(!theme.is_session());
    let expires = theme.expires().unwrap();
    assert!(expires >= before + Duration::from_secs(3599), "{expires:?}");
    assert!(
        expires <= SystemTime::now() + Duration::from_secs(3601),
        "{expires:?}"
    );
    assert_eq!(theme.same_site(), SameSite::Default);
    assert!(!cart.http_only() && cart.is_session());

    assert_eq!(
        sent_cookie(&client, &server, "/app/page").await,
        "sid=s3cr3t; theme=dark"
    );
    assert!(store.remove(&host, "/app", "sid"));
    assert!(!store.remove(&host, "/app", "sid"), "removed once");
    assert_eq!(store.len(), 2);
    assert_eq!(
        sent_cookie(&client, &server, "/app/page").await,
        "theme=dark"
    );
    assert_eq!(
        sent_cookie(&client, &server, "/shop/item").await,
        "cart=2; theme=dark"
    );
}

#[test]
fn an_empty_jar_lists_nothing_and_removes_nothing() {
    let store = CookieStore::default();
    assert!(store.cookies().is_empty());
    assert!(!store.remove("example.com", "/", "sid"));
}

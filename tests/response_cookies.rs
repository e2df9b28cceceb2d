//! `Response::cookies`: a response's `Set-Cookie` headers parsed as RFC 6265 §5.2 says,
//! from a server on 127.0.0.1 that sends several, malformed ones among them. A server-side
//! client lists them; a browser-like one hides `Set-Cookie`, as the Fetch Standard's
//! filtered responses do, so it lists none while its cookie store still gets them.

mod net_support;

use std::time::{Duration, SystemTime};

use net_support::{Server, recording_server};
use whatwg_fetch::cookie::SameSite;
use whatwg_fetch::{Client, RequestInit};

/// Three cookies and two values the RFC says to ignore: one without `=`, one with an
/// empty name.
const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\n\
    Set-Cookie: sid=abc; Path=/; HttpOnly; SameSite=Lax\r\n\
    Set-Cookie: malformed-without-an-equals-sign\r\n\
    Set-Cookie: =no-name\r\n\
    Set-Cookie: lang=en; Max-Age=3600; Domain=.Example.COM; Secure\r\n\
    Set-Cookie: old=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=soon\r\n\
    Content-Length: 2\r\n\
    Connection: close\r\n\
    \r\n\
    ok";

async fn server() -> Server {
    recording_server(RESPONSE).await.0
}

#[tokio::test]
async fn a_server_side_client_lists_the_well_formed_set_cookie_headers_in_order() {
    let server = server().await;
    let mut response = Client::new()
        .fetch(server.url("/"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.headers().get_set_cookie().len(), 5);
    let cookies: Vec<_> = response.cookies().collect();
    let names: Vec<_> = cookies.iter().map(|c| c.name().unwrap()).collect();
    assert_eq!(
        names,
        ["sid", "lang", "old"],
        "the two malformed ones skipped"
    );

    let sid = &cookies[0];
    assert_eq!(sid.value(), Some("abc"));
    assert_eq!(sid.path(), Some("/"));
    assert!(sid.http_only() && !sid.secure());
    assert_eq!(sid.same_site(), SameSite::Lax);
    assert_eq!(
        (sid.expires(), sid.max_age(), sid.domain()),
        (None, None, None)
    );

    let lang = &cookies[1];
    assert_eq!(lang.value_bytes(), b"en");
    assert_eq!(lang.max_age(), Some(Duration::from_secs(3600)));
    assert_eq!(lang.domain(), Some("example.com"));
    assert!(lang.secure() && !lang.http_only());
    assert_eq!(lang.same_site(), SameSite::Default);
    assert_eq!(lang.path(), None);

    // An unparsable Max-Age is skipped, the rest of the cookie kept.
    let old = &cookies[2];
    assert_eq!(old.max_age(), None);
    assert_eq!(
        old.expires(),
        Some(SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777))
    );
    // The iterator can be made again, and the body is untouched by it.
    assert_eq!(response.cookies().count(), 3);
    assert_eq!(response.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_browser_like_client_lists_none_but_its_store_keeps_what_it_may() {
    let server = server().await;
    let client = Client::builder()
        .origin(server.url("/index.html").parse().unwrap())
        .build()
        .unwrap();
    let response = client
        .fetch(server.url("/"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.r#type(), whatwg_fetch::ResponseType::Basic);
    assert!(!response.headers().has("set-cookie").unwrap());
    assert_eq!(response.cookies().count(), 0);
    // The store saw the headers all the same: it kept sid, and refused lang (its Domain is
    // not the host, and it is Secure over http:) and old (expired).
    let stored = client.cookie_store().unwrap().cookies();
    let names: Vec<_> = stored.iter().map(|c| c.name().unwrap()).collect();
    assert_eq!(names, ["sid"]);
}

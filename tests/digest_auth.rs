//! HTTP Digest authentication (`RequestBuilder::digest_auth`, RFC 7616) against servers on
//! 127.0.0.1 that check the answers with a computation of their own: the algorithms and
//! qualities of protection, `nc` counting, `stale=true`, the bound on retries, hostile
//! challenges, redirects to another origin, and `Basic`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;

const USER: &str = "Mufasa";
const PASSWORD: &str = "Circle of Life";

/// A request as the server read it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    authorization: Option<String>,
    proxy_authorization: Option<String>,
    body: Vec<u8>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// A server answering each request with what `answer` makes of it and of the requests
/// before it (the log, this request last); its base URL and its log.
async fn serve(answer: impl Fn(&[Seen]) -> String + Send + Sync + 'static) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let answer = Arc::new(answer);
    let kept = Arc::clone(&log);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (log, answer) = (Arc::clone(&kept), Arc::clone(&answer));
            tokio::spawn(connection(stream, log, answer));
        }
    });
    (base, log)
}

async fn connection(
    mut stream: TcpStream,
    log: Log,
    answer: Arc<impl Fn(&[Seen]) -> String + Send + Sync + 'static>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0; 4096];
    loop {
        let end = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let mut lines = head.lines();
        let mut request_line = lines.next().unwrap().split(' ');
        let method = request_line.next().unwrap().to_owned();
        let target = request_line.next().unwrap().to_owned();
        let mut fields = HashMap::new();
        for line in lines {
            let (name, value) = line.split_once(':').unwrap();
            fields.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
        let length: usize = fields
            .get("content-length")
            .map_or(0, |value| value.parse().unwrap());
        while buf.len() < length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body: Vec<u8> = buf.drain(..length).collect();
        let tunnel = method == "CONNECT";
        let response = {
            let mut log = log.lock().unwrap();
            log.push(Seen {
                method,
                target,
                authorization: fields.get("authorization").cloned(),
                proxy_authorization: fields.get("proxy-authorization").cloned(),
                body,
            });
            answer(&log)
        };
        if stream.write_all(response.as_bytes()).await.is_err() {
            return;
        }
        // A tunnel opened: this server speaks no TLS, and closes it.
        if tunnel && response.starts_with("HTTP/1.1 200") {
            return;
        }
    }
}

fn unauthorized(challenges: &[&str]) -> String {
    let mut response = String::from("HTTP/1.1 401 Unauthorized\r\n");
    for challenge in challenges {
        response.push_str(&format!("WWW-Authenticate: {challenge}\r\n"));
    }
    response.push_str("Content-Length: 6\r\n\r\ndenied");
    response
}

fn ok(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// `H(data)` of the algorithm named, as the server computes it.
fn hash(algorithm: &str, data: &[u8]) -> String {
    use sha2::Digest as _;
    let bytes: Vec<u8> = match algorithm.trim_end_matches("-sess") {
        "MD5" => <md5::Md5 as md5::Digest>::digest(data).to_vec(),
        "SHA-256" => sha2::Sha256::digest(data).to_vec(),
        "SHA-512-256" => sha2::Sha512_256::digest(data).to_vec(),
        other => panic!("unknown algorithm {other}"),
    };
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The parameters of a `Digest` credentials value (no escapes in these tests).
fn params(authorization: &str) -> HashMap<String, String> {
    let rest = authorization
        .strip_prefix("Digest ")
        .expect("a Digest answer");
    let mut params = HashMap::new();
    let mut rest = rest;
    while !rest.is_empty() {
        let (name, after) = rest.split_once('=').unwrap();
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').unwrap();
                (&quoted[..end], &quoted[end + 1..])
            }
            None => after.split_once(',').map_or((after, ""), |(v, a)| (v, a)),
        };
        params.insert(name.trim().to_owned(), value.to_owned());
        rest = after.trim_start_matches([',', ' ']);
    }
    params
}

/// Whether `seen` answers the challenge of `realm` and `nonce` rightly, for `Mufasa`.
fn verifies(seen: &Seen, realm: &str, nonce: &str) -> bool {
    verifies_value(seen, seen.authorization.as_deref(), realm, nonce)
}

/// Whether `value`, an `Authorization` or `Proxy-Authorization` of `seen`, answers the
/// challenge of `realm` and `nonce` rightly, for `Mufasa`.
fn verifies_value(seen: &Seen, value: Option<&str>, realm: &str, nonce: &str) -> bool {
    let Some(authorization) = value else {
        return false;
    };
    let p = params(authorization);
    let algorithm = p.get("algorithm").map_or("MD5", String::as_str);
    let username = match p.get("userhash").map(String::as_str) {
        Some("true") => hash(algorithm, format!("{USER}:{realm}").as_bytes()),
        _ => USER.to_owned(),
    };
    if p["username"] != username || p["realm"] != realm || p["nonce"] != nonce {
        return false;
    }
    if p["uri"] != seen.target {
        return false;
    }
    let mut ha1 = hash(algorithm, format!("{USER}:{realm}:{PASSWORD}").as_bytes());
    if algorithm.ends_with("-sess") {
        ha1 = hash(
            algorithm,
            format!("{ha1}:{nonce}:{}", p["cnonce"]).as_bytes(),
        );
    }
    let a2 = match p.get("qop").map(String::as_str) {
        Some("auth-int") => format!(
            "{}:{}:{}",
            seen.method,
            seen.target,
            hash(algorithm, &seen.body)
        ),
        _ => format!("{}:{}", seen.method, seen.target),
    };
    let ha2 = hash(algorithm, a2.as_bytes());
    let expected = match p.get("qop") {
        Some(qop) => hash(
            algorithm,
            format!("{ha1}:{nonce}:{}:{}:{qop}:{ha2}", p["nc"], p["cnonce"]).as_bytes(),
        ),
        None => hash(algorithm, format!("{ha1}:{nonce}:{ha2}").as_bytes()),
    };
    p["response"] == expected
}

/// A server with one realm and nonce: a request that answers them gets a 200, any other
/// the challenges.
async fn protected(challenges: &'static [&'static str], nonce: &'static str) -> (String, Log) {
    serve(move |log| {
        let seen = log.last().unwrap();
        match verifies(seen, "testrealm@host.com", nonce) {
            true => ok("welcome"),
            false => unauthorized(challenges),
        }
    })
    .await
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

/// A client whose requests go through `proxy`, answering its Digest challenges as
/// `Mufasa` with `password`.
fn proxied(proxy: whatwg_fetch::Proxy, password: &str) -> Client {
    Client::builder()
        .proxy(proxy.digest_auth(USER, password))
        .build()
        .unwrap()
}

fn log_of(log: &Log) -> Vec<Seen> {
    log.lock().unwrap().clone()
}

#[tokio::test]
async fn a_sha_256_challenge_is_answered_and_the_next_request_counts_nc() {
    let (base, log) = protected(
        &[r#"Digest realm="testrealm@host.com", qop="auth", algorithm=SHA-256, nonce="abc123", opaque="xyz""#],
        "abc123",
    )
    .await;
    let client = client();
    let mut response = client
        .get(format!("{base}/dir/index.html?q=1"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "welcome");
    let seen = log_of(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].authorization, None);
    let first = params(seen[1].authorization.as_ref().unwrap());
    assert_eq!(first["nc"], "00000001");
    assert_eq!(first["qop"], "auth");
    assert_eq!(first["opaque"], "xyz");
    assert_eq!(first["uri"], "/dir/index.html?q=1");
    // The same protection space again: answered before being asked, the next nc.
    let response = client
        .get(format!("{base}/dir/other"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 3, "{seen:?}");
    let second = params(seen[2].authorization.as_ref().unwrap());
    assert_eq!(second["nc"], "00000002");
    assert_eq!(second["cnonce"], first["cnonce"]);
    // Other credentials are not answered for from the entry.
    let response = client
        .get(format!("{base}/dir/other"))
        .digest_auth("someone", "else")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 5);
    assert_eq!(seen[3].authorization, None);
}

#[tokio::test]
async fn the_strongest_challenge_is_chosen_sha_512_256_sess_with_userhash() {
    let (base, log) = protected(
        &[
            r#"Digest realm="testrealm@host.com", qop="auth", algorithm=MD5, nonce="n1""#,
            r#"Basic realm="testrealm@host.com", DIGEST realm="testrealm@host.com", qop="auth", algorithm=SHA-512-256-sess, nonce="n1", userhash=true"#,
        ],
        "n1",
    )
    .await;
    let response = client()
        .get(format!("{base}/"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    let answer = params(seen[1].authorization.as_ref().unwrap());
    assert_eq!(answer["algorithm"], "SHA-512-256-sess");
    assert_eq!(answer["userhash"], "true");
    assert_ne!(answer["username"], USER);
}

#[tokio::test]
async fn md5_without_qop_is_answered_for_old_devices() {
    let (base, _log) = protected(
        &[r#"Digest realm="testrealm@host.com", nonce="old""#],
        "old",
    )
    .await;
    let response = client()
        .get(format!("{base}/cgi-bin/status"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn auth_int_hashes_the_post_body() {
    let (base, log) = protected(
        &[r#"Digest realm="testrealm@host.com", qop="auth-int", algorithm=SHA-256, nonce="int""#],
        "int",
    )
    .await;
    let response = client()
        .post(format!("{base}/upload"))
        .body("the body")
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].body, b"the body", "the body is sent again");
    assert_eq!(
        params(seen[1].authorization.as_ref().unwrap())["qop"],
        "auth-int"
    );
}

#[tokio::test]
async fn stale_true_is_answered_once_with_the_new_nonce() {
    let (base, log) = serve(|log| match log.len() {
        1 => unauthorized(&[r#"Digest realm="r", qop=auth, nonce="first""#]),
        2 => unauthorized(&[r#"Digest realm="r", qop=auth, nonce="second", stale=true"#]),
        _ if verifies(log.last().unwrap(), "r", "second") => ok("fresh"),
        _ => unauthorized(&[r#"Digest realm="r", qop=auth, nonce="third""#]),
    })
    .await;
    let response = client()
        .get(format!("{base}/"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 3);
    assert!(verifies(&seen[1], "r", "first"));
    assert_eq!(
        params(seen[2].authorization.as_ref().unwrap())["nc"],
        "00000001"
    );
}

#[tokio::test]
async fn a_server_that_always_answers_401_gets_one_retry_and_one_for_stale() {
    let (base, log) = serve(|log| {
        let nonce = format!("nonce{}", log.len());
        unauthorized(&[&format!(r#"Digest realm="r", qop=auth, nonce="{nonce}""#)])
    })
    .await;
    let mut response = client()
        .get(format!("{base}/"))
        .digest_auth(USER, "wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(response.text().await.unwrap(), "denied");
    assert_eq!(log_of(&log).len(), 2);
    // Always stale: the one stale retry, and no more.
    let (base, log) = serve(|log| {
        let nonce = format!("nonce{}", log.len());
        unauthorized(&[&format!(
            r#"Digest realm="r", qop=auth, nonce="{nonce}", stale=true"#
        )])
    })
    .await;
    let response = client()
        .get(format!("{base}/"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(log_of(&log).len(), 3);
}

#[tokio::test]
async fn garbled_or_oversized_challenges_leave_the_401() {
    let huge_nonce = format!(r#"Digest realm="r", nonce="{}""#, "n".repeat(2000));
    let many = vec!["Digest realm=r, nonce=n"; 40].join(", ");
    let long_field = format!("Digest realm=r, nonce=n, x=\"{}\"", "y".repeat(7000));
    for challenge in [
        r#"Digest realm="r, nonce="n""#.to_owned(),
        "Digest realm=r nonce=n".to_owned(),
        "Digest ,,,=,,".to_owned(),
        "Digest realm=r, algorithm=SHA-1, nonce=n".to_owned(),
        "Digest realm=r".to_owned(),
        huge_nonce,
        many,
        format!("{long_field}\r\nWWW-Authenticate: {long_field}"),
    ] {
        let (base, log) = serve(move |_| unauthorized(&[&challenge])).await;
        let response = client()
            .get(format!("{base}/"))
            .digest_auth(USER, PASSWORD)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401);
        let seen = log_of(&log);
        assert_eq!(seen.len(), 1, "{seen:?}");
    }
}

#[tokio::test]
async fn a_basic_only_challenge_gets_no_credentials() {
    let (base, log) = serve(|_| unauthorized(&[r#"Basic realm="r", charset="UTF-8""#])).await;
    let response = client()
        .get(format!("{base}/"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].authorization, None);
}

#[tokio::test]
async fn no_credentials_reach_another_origin_after_a_redirect() {
    let (other, other_log) =
        serve(|_| unauthorized(&[r#"Digest realm="r", qop=auth, nonce="elsewhere""#])).await;
    let location = format!("{other}/landing");
    let (base, log) = serve(move |log| {
        let seen = log.last().unwrap();
        match verifies(seen, "r", "here") {
            true => {
                format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n")
            }
            false => unauthorized(&[r#"Digest realm="r", qop=auth, nonce="here""#]),
        }
    })
    .await;
    let response = client()
        .get(format!("{base}/start"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(log_of(&log).len(), 2);
    let seen = log_of(&other_log);
    assert_eq!(
        seen.len(),
        1,
        "the other origin's challenge is not answered"
    );
    assert_eq!(seen[0].authorization, None);
}

#[tokio::test]
async fn without_digest_auth_a_401_is_returned_untouched() {
    let (base, log) = serve(|_| unauthorized(&[r#"Digest realm="r", nonce="n""#])).await;
    let response = client().get(format!("{base}/")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(log_of(&log).len(), 1);
}

#[tokio::test]
async fn a_forwarding_proxys_407_is_answered_with_proxy_authorization() {
    let (proxy, log) = serve(|log| {
        let seen = log.last().unwrap();
        match verifies_value(seen, seen.proxy_authorization.as_deref(), "proxy", "p1") {
            true => ok("through"),
            false => String::from(
                "HTTP/1.1 407 Proxy Authentication Required\r\n\
                 Proxy-Authenticate: Basic realm=\"proxy\"\r\n\
                 Proxy-Authenticate: Digest realm=\"proxy\", qop=\"auth\", algorithm=SHA-256, nonce=\"p1\"\r\n\
                 Content-Length: 0\r\n\r\n",
            ),
        }
    })
    .await;
    let client = proxied(whatwg_fetch::Proxy::http(&proxy).unwrap(), PASSWORD);
    let mut response = client
        .post("http://origin.test/form?x=1")
        .body("a=b")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "through");
    let seen = log_of(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].target, "http://origin.test/form?x=1");
    assert_eq!(seen[0].proxy_authorization, None);
    assert_eq!(seen[1].body, b"a=b");
    assert_eq!(seen[1].authorization, None, "nothing for the origin");
    // The next request answers before being asked, with the next nc.
    let response = client.get("http://origin.test/other").send().await.unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 3);
    assert_eq!(
        params(seen[2].proxy_authorization.as_ref().unwrap())["nc"],
        "00000002"
    );
}

/// A realm is a quoted string, whose bytes past ASCII (obs-text, RFC 9110 §5.6.4) a server
/// may send as UTF-8; the answer echoes it, byte for byte, to an origin and to a proxy.
#[tokio::test]
async fn a_realm_past_ascii_is_answered_to_an_origin_and_to_a_proxy() {
    const REALM: &str = "Büro Zürich";
    let (origin, log) = serve(|log| {
        let seen = log.last().unwrap();
        match verifies(seen, REALM, "o1") {
            true => ok("in"),
            false => unauthorized(&[&format!("Digest realm=\"{REALM}\", qop=auth, nonce=\"o1\"")]),
        }
    })
    .await;
    let response = client()
        .get(format!("{origin}/desk"))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(log_of(&log).len(), 2);

    let (proxy, log) = serve(|log| {
        let seen = log.last().unwrap();
        match verifies_value(seen, seen.proxy_authorization.as_deref(), REALM, "p1") {
            true => ok("through"),
            false => format!(
                "HTTP/1.1 407 Proxy Authentication Required\r\n\
                 Proxy-Authenticate: Digest realm=\"{REALM}\", qop=auth, nonce=\"p1\"\r\n\
                 Content-Length: 0\r\n\r\n"
            ),
        }
    })
    .await;
    let client = proxied(whatwg_fetch::Proxy::http(&proxy).unwrap(), PASSWORD);
    let response = client.get("http://origin.test/desk").send().await.unwrap();
    assert_eq!(response.status(), 200, "{:?}", log_of(&log));
    assert_eq!(log_of(&log).len(), 2);
}

#[tokio::test]
async fn a_proxy_that_always_answers_407_fails_the_fetch_after_one_retry() {
    let (proxy, log) = serve(|log| {
        format!(
            "HTTP/1.1 407 Proxy Authentication Required\r\n\
             Proxy-Authenticate: Digest realm=\"proxy\", qop=auth, nonce=\"n{}\"\r\n\
             Content-Length: 0\r\n\r\n",
            log.len()
        )
    })
    .await;
    let client = proxied(whatwg_fetch::Proxy::http(&proxy).unwrap(), "wrong");
    let error = client.get("http://origin.test/").send().await.unwrap_err();
    assert!(
        error.to_string().contains("proxy authentication required"),
        "{error}"
    );
    assert_eq!(log_of(&log).len(), 2);
}

#[tokio::test]
async fn a_connect_tunnels_407_is_answered_on_a_new_connection() {
    let (proxy, log) = serve(|log| {
        let seen = log.last().unwrap();
        match verifies_value(seen, seen.proxy_authorization.as_deref(), "proxy", "t1") {
            true => String::from("HTTP/1.1 200 Connection established\r\n\r\n"),
            false => String::from(
                "HTTP/1.1 407 Proxy Authentication Required\r\n\
                 Proxy-Authenticate: Digest realm=\"proxy\", qop=auth, algorithm=MD5-sess, nonce=\"t1\"\r\n\
                 Content-Length: 0\r\n\r\n",
            ),
        }
    })
    .await;
    let client = proxied(whatwg_fetch::Proxy::all(&proxy).unwrap(), PASSWORD);
    // The tunnel opens; the TLS to the origin inside it fails, as the test proxy closes it.
    let error = client.get("https://origin.test/").send().await.unwrap_err();
    assert!(!error.to_string().contains("407"), "{error}");
    let seen = log_of(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(seen[0].proxy_authorization, None);
    let answer = params(seen[1].proxy_authorization.as_ref().unwrap());
    assert_eq!(answer["uri"], "origin.test:443");
    assert_eq!(answer["algorithm"], "MD5-sess");
    // Refused again: a ProxyRefused with the 407, after one answer.
    let (proxy, log) = serve(|log| {
        format!(
            "HTTP/1.1 407 Proxy Authentication Required\r\n\
             Proxy-Authenticate: Digest realm=\"proxy\", qop=auth, nonce=\"n{}\"\r\n\
             Content-Length: 0\r\n\r\n",
            log.len()
        )
    })
    .await;
    let client = proxied(whatwg_fetch::Proxy::all(&proxy).unwrap(), "wrong");
    let error = client.get("https://origin.test/").send().await.unwrap_err();
    let refused = std::error::Error::source(error.network_error().unwrap())
        .and_then(|source| source.downcast_ref::<whatwg_fetch::net::ProxyRefused>())
        .expect("a ProxyRefused");
    assert_eq!(refused.status(), 407);
    assert_eq!(log_of(&log).len(), 2);
}

#[tokio::test]
async fn a_urls_credentials_answer_digest_when_the_client_opts_in() {
    let (base, log) = protected(
        &[r#"Digest realm="testrealm@host.com", qop=auth, algorithm=SHA-256, nonce="u1""#],
        "u1",
    )
    .await;
    let with_credentials = base.replacen("http://", "http://Mufasa:Circle%20of%20Life@", 1);
    let client = Client::builder()
        .digest_auth_from_url(true)
        .build()
        .unwrap();
    let response = client
        .get(format!("{with_credentials}/dir/"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].authorization, None, "never Basic");
    // Without opting in, such a URL is a TypeError, as the Request constructor throws.
    let error = Client::new()
        .get(with_credentials)
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
}

#[tokio::test]
async fn a_stream_body_is_not_sent_again_and_the_401_is_returned() {
    let (base, log) = protected(
        &[r#"Digest realm="testrealm@host.com", qop=auth, nonce="s1""#],
        "s1",
    )
    .await;
    let chunks =
        futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from("streamed"))]);
    let response = client()
        .put(format!("{base}/upload"))
        .body(whatwg_fetch::BodyInit::stream(chunks))
        .digest_auth(USER, PASSWORD)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let seen = log_of(&log);
    assert_eq!(seen.len(), 1);
}

//! HTTP Digest authentication (RFC 7616) with `RequestBuilder::digest_auth`, against a
//! server of its own on 127.0.0.1.
//!
//! ```text
//! cargo run -p examples --example digest_auth
//! ```
//!
//! The server protects `/private` with a SHA-256 `Digest` challenge (and offers `Basic`
//! beside it), checks each answer, and prints what it was sent. The client fetches
//! `/private` twice (the second request answers before being asked, with the next `nc`),
//! then with a wrong password (one answer, then the `401`). Last, a new client fetches
//! `/basic`, which offers only `Basic`, and so gets no credentials. (The first client
//! would send `/basic` its answer to the origin's last challenge before being asked: with
//! no `domain` in it, the challenge covers the whole origin, RFC 7616 §3.3.)

use std::collections::HashMap;

use sha2::{Digest as _, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;

const REALM: &str = "example@127.0.0.1";
const NONCE: &str = "dcd98b7102dd2f0e8b11d0f600bfb0c093";
const USER: &str = "Mufasa";
const PASSWORD: &str = "Circle of Life";

fn sha256(data: &str) -> String {
    Sha256::digest(data.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The parameters of a `Digest` answer (this server's values need no escapes).
fn params(value: &str) -> HashMap<&str, &str> {
    let mut params = HashMap::new();
    let mut rest = value.trim_start_matches("Digest ");
    while let Some((name, after)) = rest.split_once('=') {
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => after.split_once(',').unwrap_or((after, "")),
        };
        params.insert(name.trim(), value);
        rest = after.trim_start_matches([',', ' ']);
    }
    params
}

/// Whether `authorization` answers this server's challenge for `method` and `target`.
fn verifies(method: &str, target: &str, authorization: &str) -> bool {
    let p = params(authorization);
    let field = |name| p.get(name).copied().unwrap_or_default();
    let ha1 = sha256(&format!("{USER}:{REALM}:{PASSWORD}"));
    let ha2 = sha256(&format!("{method}:{target}"));
    let expected = sha256(&format!(
        "{ha1}:{NONCE}:{}:{}:auth:{ha2}",
        field("nc"),
        field("cnonce")
    ));
    field("username") == USER
        && field("nonce") == NONCE
        && field("uri") == target
        && field("response") == expected
}

async fn serve(mut stream: TcpStream) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0; 4096];
    loop {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let mut words = head.split(' ');
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let authorization = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("authorization")
                .then(|| value.trim())
        });
        let shown = match authorization {
            Some(value) => {
                let p = params(value);
                let field = |name| p.get(name).copied().unwrap_or_default();
                format!(
                    "{} nc={} response={}…",
                    field("algorithm"),
                    field("nc"),
                    &field("response")[..8.min(field("response").len())]
                )
            }
            None => "no Authorization".to_owned(),
        };
        println!("  server: {method} {target}, {shown}");
        let answer = match (target, authorization) {
            ("/private", Some(value)) if verifies(method, target, value) => {
                "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nwelcome".to_owned()
            }
            ("/private", _) => format!(
                "HTTP/1.1 401 Unauthorized\r\n\
                 WWW-Authenticate: Basic realm=\"{REALM}\"\r\n\
                 WWW-Authenticate: Digest realm=\"{REALM}\", qop=\"auth\", \
                 algorithm=SHA-256, nonce=\"{NONCE}\"\r\n\
                 Content-Length: 6\r\n\r\ndenied"
            ),
            _ => format!(
                "HTTP/1.1 401 Unauthorized\r\n\
                 WWW-Authenticate: Basic realm=\"{REALM}\"\r\n\
                 Content-Length: 6\r\n\r\ndenied"
            ),
        };
        stream.write_all(answer.as_bytes()).await?;
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream));
        }
    });
    let client = Client::builder().build()?;
    let other = Client::builder().build()?;
    for (what, client, path, password) in [
        ("first request", &client, "/private", PASSWORD),
        ("second request", &client, "/private", PASSWORD),
        ("wrong password", &client, "/private", "Circle of Death"),
        ("Basic only, a new client", &other, "/basic", PASSWORD),
    ] {
        println!("{what}: GET {path}");
        let mut response = client
            .get(format!("{base}{path}"))
            .digest_auth(USER, password)
            .send()
            .await?;
        let status = response.status();
        println!("  client: {status} {:?}", response.text().await?);
    }
    Ok(())
}

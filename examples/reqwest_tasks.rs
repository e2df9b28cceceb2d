//! The tasks a reqwest program does, in reqwest's call shapes: `cargo run -p examples --example
//! reqwest_tasks` (against a server of its own on 127.0.0.1), or `-- URL` for another
//! server with the same paths.
//!
//! Default headers and a redirect policy on the client; a GET of JSON into a struct through
//! a redirect; a POST of JSON with a bearer token and a query; a multipart upload of a file
//! from disk; a status that is an error; a per-request timeout; the blocking client. The
//! same program written against reqwest 0.13 differs in its `use` lines, the multipart
//! form's three lines and the blocking client's constructor (see the `coming_from_reqwest`
//! module).

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use whatwg_fetch::header::{HeaderMap, HeaderValue};
use whatwg_fetch::{Client, redirect};

#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
struct Item {
    id: u64,
    name: String,
    client: Option<String>,
}

async fn run(base: String) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut headers = HeaderMap::new();
    headers.insert("x-client", HeaderValue::from_static("port-demo"));
    let client = Client::builder()
        .default_headers(headers)
        .redirect(redirect::Policy::limited(5))
        .build()?;

    // GET JSON into a struct, through a redirect.
    let item: Item = client
        .get(format!("{base}/old"))
        .send()
        .await?
        .json()
        .await?;
    println!("{item:?}");

    // POST JSON with a bearer token and a query.
    let created: serde_json::Value = client
        .post(format!("{base}/items"))
        .bearer_auth("secret")
        .query(&[("dry_run", "true")])
        .json(&serde_json::json!({ "name": "second" }))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    println!("{created}");

    // Multipart with a file from disk, streamed as it is sent.
    let path = std::env::temp_dir().join(format!("photo-{}.png", std::process::id()));
    std::fs::write(&path, b"\x89PNG\r\n\x1a\n... the picture ...")?;
    let mut form = whatwg_fetch::FormData::new();
    form.append("title", "holiday");
    form.append_file("photo", &path).await?;
    let uploaded = client
        .post(format!("{base}/upload"))
        .multipart(form)
        .send()
        .await?
        .text()
        .await?;
    std::fs::remove_file(&path)?;
    println!("{uploaded}");

    // A status that is an error.
    let error = client
        .get(format!("{base}/missing"))
        .send()
        .await?
        .error_for_status()
        .expect_err("a 404 is an error");
    println!("status error: {:?}", error.status());

    // A per-request timeout.
    let error = client
        .get(format!("{base}/slow"))
        .timeout(Duration::from_millis(300))
        .send()
        .await
        .expect_err("the server answers after 2 s");
    println!("timed out: {}", error.is_timeout());

    // The blocking client, on a thread of its own.
    let blocking = tokio::task::spawn_blocking(move || -> Result<String, whatwg_fetch::Error> {
        let client = whatwg_fetch::blocking::Client::new();
        client.get(format!("{base}/items/1")).send()?.text()
    });
    println!("blocking: {}", blocking.await??);
    Ok(())
}

/// What the local server answers to `method` `path` with `body`.
async fn answer(
    method: &hyper::Method,
    path: &str,
    headers: &http::HeaderMap,
    body: &[u8],
) -> (u16, String) {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    match (method.as_str(), path) {
        ("GET", "/items/1") => (
            200,
            serde_json::json!({ "id": 1, "name": "first", "client": header("x-client") })
                .to_string(),
        ),
        ("GET", "/slow") => {
            tokio::time::sleep(Duration::from_secs(2)).await;
            (200, "late".into())
        }
        ("POST", "/upload") => {
            let text = String::from_utf8_lossy(body);
            let file = text
                .split("filename=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next());
            let kind = text
                .split("Content-Type: ")
                .nth(1)
                .and_then(|rest| rest.split("\r\n").next());
            (
                200,
                format!(
                    "{} {}",
                    file.unwrap_or("no file"),
                    kind.unwrap_or("no type")
                ),
            )
        }
        ("POST", _) if path.starts_with("/items") => {
            let sent: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
            (
                201,
                serde_json::json!({ "auth": header("authorization"), "path": path, "body": sent })
                    .to_string(),
            )
        }
        _ => (404, "not here".into()),
    }
}

/// A server on 127.0.0.1 with the paths `run` uses; its base URL.
async fn serve() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(
                    |request: hyper::Request<hyper::body::Incoming>| async move {
                        let (parts, body) = request.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(|body| body.to_bytes())
                            .unwrap_or_default();
                        let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
                        let mut response = if path == "/old" {
                            let mut response = hyper::Response::new(Full::new(Bytes::new()));
                            *response.status_mut() = hyper::StatusCode::MOVED_PERMANENTLY;
                            response
                                .headers_mut()
                                .insert("location", HeaderValue::from_static("/items/1"));
                            response
                        } else {
                            let (status, text) =
                                answer(&parts.method, path, &parts.headers, &body).await;
                            let mut response = hyper::Response::new(Full::new(Bytes::from(text)));
                            *response.status_mut() =
                                hyper::StatusCode::from_u16(status).unwrap_or_default();
                            response
                        };
                        response
                            .headers_mut()
                            .insert("content-type", HeaderValue::from_static("application/json"));
                        Ok::<_, Infallible>(response)
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(base)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let base = match std::env::args().nth(1) {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => serve().await?,
    };
    run(base).await
}

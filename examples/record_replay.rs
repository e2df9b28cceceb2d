//! Record and replay (the `record` feature): `cargo run -p examples --example record_replay`.
//!
//! Two requests to a server of its own on 127.0.0.1 are recorded and saved to a file (its
//! `Authorization` header redacted); the server is stopped, and the same requests are
//! answered from the file, byte for byte, while one that was not recorded fails, naming
//! itself and what was recorded.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use whatwg_fetch::Client;
use whatwg_fetch::net::HyperTransport;
use whatwg_fetch::record::{Match, RecordingTransport, ReplayTransport};

/// The requests of the program, through `client`: what each answered.
async fn requests(client: &Client, base: &str) -> Result<(), whatwg_fetch::Error> {
    let mut user = client
        .get(format!("{base}/users/1"))
        .bearer_auth("s3cret-token")
        .send()
        .await?;
    println!("GET /users/1 → {} {}", user.status(), user.text().await?);
    let mut created = client
        .post(format!("{base}/users"))
        .header("content-type", "application/json")
        .body(r#"{"name":"Grace"}"#)
        .send()
        .await?;
    println!(
        "POST /users → {} {}",
        created.status(),
        created.text().await?
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (base, server) = serve().await?;
    let file = std::env::temp_dir().join(format!("record_replay-{}.json", std::process::id()));

    println!("-- live, recorded");
    let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    let client = Client::builder()
        .transport(Arc::new(recorder.clone()))
        .build()?;
    requests(&client, &base).await?;
    recorder.save(&file)?;
    println!(
        "-- {}:\n{}",
        file.display(),
        std::fs::read_to_string(&file)?
    );

    server.abort();
    println!("-- replayed, the server stopped");
    let replay = ReplayTransport::open(&file)?;
    replay.match_on(Match::new().body());
    let client = Client::builder()
        .transport(Arc::new(replay.clone()))
        .build()?;
    requests(&client, &base).await?;
    let error = client
        .get(format!("{base}/users/2"))
        .send()
        .await
        .unwrap_err();
    println!("GET /users/2 → {error:#}");
    replay.assert_all_used();
    std::fs::remove_file(&file)?;
    Ok(())
}

/// A server on 127.0.0.1 answering `/users/1` and `POST /users`: its base URL, and the task
/// that accepts its connections.
async fn serve() -> std::io::Result<(String, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(
                    |request: hyper::Request<hyper::body::Incoming>| async move {
                        let (parts, body) = request.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        let (status, text) = match (parts.method.as_str(), parts.uri.path()) {
                            ("GET", "/users/1") => (200, r#"{"id":1,"name":"Ada"}"#.to_owned()),
                            ("POST", "/users") => (
                                201,
                                format!(
                                    r#"{{"id":2,"created":{}}}"#,
                                    String::from_utf8_lossy(&body)
                                ),
                            ),
                            _ => (404, "{}".to_owned()),
                        };
                        let mut response = hyper::Response::new(Full::new(Bytes::from(text)));
                        *response.status_mut() =
                            hyper::StatusCode::from_u16(status).unwrap_or_default();
                        response.headers_mut().insert(
                            "content-type",
                            hyper::header::HeaderValue::from_static("application/json"),
                        );
                        Ok::<_, Infallible>(response)
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok((base, task))
}

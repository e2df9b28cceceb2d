//! Builds a request and answers it with a `data:` URL and the spec types, without a network.
//!
//! `cargo run -p examples --example data_url -- 'data:text/plain;base64,aGVsbG8='`

use whatwg_fetch::data_url::data_url_processor;
use whatwg_fetch::{Headers, Request, RequestInit, Response, ResponseInit};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "data:text/plain;charset=utf-8,Hello%2C%20fetch!".to_owned());
    let request = Request::new(input.as_str(), RequestInit::default())?;
    let url: whatwg_fetch::Url = request.url().parse()?;
    let Some(data) = data_url_processor(&url) else {
        return Err(format!("not a valid data: URL: {input}").into());
    };
    let mut headers = Headers::new();
    headers.append("Content-Type", data.mime_type.to_string())?;
    let mut response = Response::new(
        Some(data.body.into()),
        ResponseInit {
            headers: Some(headers.into()),
            ..Default::default()
        },
    )?;
    println!("{} {}", request.method(), request.url());
    println!("status: {} ok: {}", response.status(), response.ok());
    for (name, value) in response.headers() {
        println!("{name}: {value}");
    }
    println!();
    println!("{}", response.text().await?);
    Ok(())
}

//! The blocking client: a GET, then a POST of JSON, with no async runtime in sight.
//!
//! ```text
//! cargo run -p examples --example blocking -- URL
//! ```
//!
//! GETs URL and prints its status, type and the first 200 characters of its body (the
//! body is streamed through `std::io::Read`, and only its start kept), then POSTs
//! `{"name":"whatwg-fetch","blocking":true}` to the same URL and prints the answer's
//! status and body. An echoing server such as `https://httpbin.org/anything` shows what
//! was sent.

use std::io::Read;
use std::time::Duration;

use whatwg_fetch::blocking::Client;

fn run(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::builder()
        .timeout(Duration::from_secs(30))
        .user_agent("whatwg-fetch-blocking-example")
        .build()?;

    let response = client.get(url).send()?;
    println!(
        "GET {url}: {} {}",
        response.status(),
        response.status_text()
    );
    if let Some(content_type) = response.headers().get("content-type")? {
        println!("content-type: {content_type}");
    }
    // The first 200 bytes, read as they arrive; the rest is never read.
    let mut start = Vec::new();
    response.take(200).read_to_end(&mut start)?;
    println!("{}\n", String::from_utf8_lossy(&start));

    let response = client
        .post(url)
        .json(&serde_json::json!({ "name": "whatwg-fetch", "blocking": true }))
        .send()?;
    println!("POST {url}: {}", response.status());
    println!("{}", response.text()?);
    Ok(())
}

fn main() {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: blocking URL");
        std::process::exit(2);
    };
    if let Err(error) = run(&url) {
        eprintln!("blocking: {error}");
        std::process::exit(1);
    }
}

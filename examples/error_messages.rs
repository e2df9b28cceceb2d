//! Prints what a failed fetch says: `cargo run -p examples --example error_messages [URL...]`.
//!
//! Each failure prints the error's `Display` (which names the URL and what failed), its
//! chain of causes one per line, and `{:#}`: all of it on one line.

use whatwg_fetch::{RequestInit, fetch};

#[tokio::main]
async fn main() {
    let mut urls: Vec<String> = std::env::args().skip(1).collect();
    if urls.is_empty() {
        urls = vec![
            "http://127.0.0.1:59999/".into(),
            "http://nonexistent.invalid/".into(),
            "https://localhost:59999/".into(),
        ];
    }
    for url in urls {
        match fetch(url.as_str(), RequestInit::default()).await {
            Ok(response) => println!("{url}: {} {}", response.status(), response.status_text()),
            Err(error) => {
                println!("{error}");
                let mut source = std::error::Error::source(&error);
                while let Some(cause) = source {
                    println!("  caused by: {cause}");
                    source = cause.source();
                }
                println!("  in one line: {error:#}");
            }
        }
    }
}

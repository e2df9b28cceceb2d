//! Sequential `fetch()` GETs against an in-process hyper server, all on one current-thread
//! runtime: a workload whose instruction count is the same from run to run, for measuring
//! the cost of one request under callgrind (see `benches/README.md`). `--client hyper` runs
//! the same requests through hyper-util's legacy `Client` instead, the raw transport to
//! compare with; `--parsed-url` hands `fetch()` a `url::Url` parsed once, as hyper-util is
//! handed a `Uri`, rather than the string; `--distinct-urls` gives each `fetch()` a URL string
//! of its own (`http://127.0.0.1:PORT/?N`), so that none is the last URL its thread parsed.
//! `--h2` speaks HTTP/2 with prior knowledge instead (h2c, one connection, one stream at a
//! time): `fetch()` with `http2_prior_knowledge(true)`, hyper-util with `http2_only(true)`.
//! `--builder` makes each request with `client.get(url).send()` (the `RequestBuilder`)
//! rather than `client.fetch(url, RequestInit::default())`, to measure what the builder
//! adds. `--typical-headers` has each response carry the dozen fields an API's response
//! typically does (`Cache-Control`, `ETag`, `Vary`, …) rather than three, to measure what
//! a response's header list costs. `--concurrency C` runs the requests as C tasks at once
//! (one connection, so C streams in flight over `--h2`), the shape of `cargo bench -p benches --bench h2`
//! on one thread. `--server-thread` runs the server on a thread and runtime of its own, as the
//! benchmarks do, so that `valgrind --separate-threads=yes` counts the client's instructions
//! apart from the server's. `--fetch-headers` has hyper-util's requests carry the four fields
//! `fetch()` adds to each (`Accept`, `Accept-Language`, `User-Agent`, `Accept-Encoding`), so
//! that both clients send the same head: over HTTP/2 their HPACK encoding is a large part of
//! a request's cost. `--pipelining D` has `fetch()` pipeline HTTP/1.1 requests D deep, over
//! `C / D` connections (with `--concurrency C`).
//!
//! ```text
//! cargo build --release -p benches --example callgrind_fetch
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/callgrind_fetch 1000 [--no-read-timeout] [--parsed-url] \
//!     [--distinct-urls] [--h2] [--builder] [--typical-headers] [--concurrency C] \
//!     [--server-thread] [--client hyper] [--fetch-headers] [--pipelining D]
//! ```
//!
//! Run it for two counts (say 1,000 and 3,000) and divide the difference of the totals by
//! the difference of the counts: start-up, the first connection and the runtime cancel out.

#[allow(dead_code)]
#[path = "support/jobs.rs"]
mod jobs;

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::server::conn::http2;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use whatwg_fetch::{Client, RequestInit};

/// A small JSON body, about the size of the load benchmark's.
const BODY: &str = concat!(
    r#"{"items":["#,
    r#""alpha","bravo","charlie","delta","echo","foxtrot","golf","hotel","india","juliett","#,
    r#""kilo","lima","mike","november","oscar","papa","quebec","romeo","sierra","tango""#,
    r#"]}"#
);

fn main() {
    let mut count = 1000usize;
    let mut read_timeout = true;
    let mut hyper_client = false;
    let mut parsed_url = false;
    let mut distinct_urls = false;
    let mut h2 = false;
    let mut builder = false;
    let mut typical_headers = false;
    let mut concurrency = 1usize;
    let mut server_thread = false;
    let mut fetch_headers = false;
    let mut pipelining = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-read-timeout" => read_timeout = false,
            "--parsed-url" => parsed_url = true,
            "--distinct-urls" => distinct_urls = true,
            "--h2" => h2 = true,
            "--builder" => builder = true,
            "--typical-headers" => typical_headers = true,
            "--server-thread" => server_thread = true,
            "--fetch-headers" => fetch_headers = true,
            "--pipelining" => match args.next().and_then(|d| d.parse().ok()) {
                Some(d) if d > 0 => pipelining = d,
                _ => usage(),
            },
            "--concurrency" => match args.next().and_then(|c| c.parse().ok()) {
                Some(c) if c > 0 => concurrency = c,
                _ => usage(),
            },
            "--client" => match args.next().as_deref() {
                Some("hyper") => hyper_client = true,
                Some("fetch") => hyper_client = false,
                _ => usage(),
            },
            number => match number.parse() {
                Ok(n) => count = n,
                Err(_) => usage(),
            },
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start a runtime: {error}");
            std::process::exit(1);
        }
    };
    let urls = match (parsed_url, distinct_urls) {
        (true, _) => Urls::Parsed,
        (false, true) => Urls::Distinct,
        (false, false) => Urls::Same,
    };
    let options = Options {
        read_timeout,
        urls,
        h2,
        builder,
        typical_headers,
        concurrency,
        server_thread,
        fetch_headers,
        pipelining,
    };
    if let Err(error) = runtime.block_on(run(count, options, hyper_client)) {
        eprintln!("{error}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: callgrind_fetch [COUNT] [--no-read-timeout] [--parsed-url] [--distinct-urls] \
         [--h2] [--builder] [--typical-headers] [--concurrency C] [--server-thread] [--client fetch|hyper] \
         [--fetch-headers] [--pipelining D]"
    );
    std::process::exit(2);
}

/// What the requests are made with.
#[derive(Clone, Copy)]
struct Options {
    /// The client's default read timeout, or none (`fetch()` only).
    read_timeout: bool,
    /// How `fetch()` is handed its URL.
    urls: Urls,
    /// HTTP/2 with prior knowledge rather than HTTP/1.1.
    h2: bool,
    /// Requests through `client.get(url).send()` rather than `client.fetch(url, init)`.
    builder: bool,
    /// Responses carrying [`TYPICAL_HEADERS`] too.
    typical_headers: bool,
    /// How many requests are in flight at once, each task making its share in turn.
    concurrency: usize,
    /// The server on a thread and runtime of its own, as in `cargo bench`.
    server_thread: bool,
    /// hyper-util's requests carry the four fields `fetch()` adds to each request
    /// (`jobs::FETCH_REQUEST_HEADERS`), so that both send the same head.
    fetch_headers: bool,
    /// `fetch()`'s HTTP/1.1 pipelining depth (1: none); with more, its connections are
    /// capped at `concurrency / pipelining`.
    pipelining: usize,
}

/// The fields an API's response typically carries besides `Content-Type`,
/// `Content-Length` and `Date`.
const TYPICAL_HEADERS: [(&str, &str); 9] = [
    ("server", "nginx/1.27.4"),
    ("cache-control", "private, max-age=0, must-revalidate"),
    ("etag", "W/\"5d-8d3c4a1f\""),
    ("vary", "Accept-Encoding, Origin"),
    ("x-request-id", "6f1d3c2a-94b7-4e51-a0c8-2b7e9d4f1a63"),
    ("access-control-allow-origin", "*"),
    ("x-content-type-options", "nosniff"),
    (
        "strict-transport-security",
        "max-age=31536000; includeSubDomains",
    ),
    ("x-ratelimit-remaining", "4999"),
];

/// How `fetch()` is handed its URL.
#[derive(Clone, Copy)]
enum Urls {
    /// The same string every time.
    Same,
    /// A clone of the URL parsed once.
    Parsed,
    /// A string of its own each time: the URL with the request's number as its query.
    Distinct,
}

async fn run(
    count: usize,
    options: Options,
    hyper_client: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let server = async move {
        let Ok(listener) = TcpListener::from_std(listener) else {
            return;
        };
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service =
                    service_fn(move |_request: Request<hyper::body::Incoming>| async move {
                        let mut response =
                            Response::new(Full::new(Bytes::from_static(BODY.as_bytes())));
                        response.headers_mut().insert(
                            hyper::header::CONTENT_TYPE,
                            hyper::header::HeaderValue::from_static("application/json"),
                        );
                        if options.typical_headers {
                            for (name, value) in TYPICAL_HEADERS {
                                response.headers_mut().insert(
                                    hyper::header::HeaderName::from_static(name),
                                    hyper::header::HeaderValue::from_static(value),
                                );
                            }
                        }
                        Ok::<_, Infallible>(response)
                    });
                let io = TokioIo::new(stream);
                if options.h2 {
                    let _ = http2::Builder::new(TokioExecutor::new())
                        .serve_connection(io, service)
                        .await;
                } else {
                    let _ = http1::Builder::new().serve_connection(io, service).await;
                }
            });
        }
    };
    if options.server_thread {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("server".into())
            .spawn(move || runtime.block_on(server))?;
    } else {
        tokio::spawn(server);
    }
    let url = format!("http://{addr}/");
    let bytes = if hyper_client {
        run_hyper(&url, count, options).await?
    } else {
        run_fetch(&url, count, options).await?
    };
    if bytes != count * BODY.len() {
        return Err(format!("read {bytes} bytes, expected {}", count * BODY.len()).into());
    }
    Ok(())
}

/// `count` GETs of `url` through `fetch()`, each body read in full, by `options.concurrency`
/// tasks at once; the bytes read.
async fn run_fetch(
    url: &str,
    count: usize,
    options: Options,
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut builder = Client::builder().http2_prior_knowledge(options.h2);
    if options.pipelining > 1 {
        builder = builder
            .http1_pipelining(options.pipelining)
            .max_connections_per_origin(options.concurrency.div_ceil(options.pipelining));
    }
    if !options.read_timeout {
        builder = builder.read_timeout(None);
    }
    let client = builder.build()?;
    let parsed = url::Url::parse(url)?;
    let tasks = shares(count, options.concurrency).map(|(first, share)| {
        let (client, url, parsed) = (client.clone(), url.to_owned(), parsed.clone());
        tokio::spawn(async move {
            let mut bytes = 0;
            let mut distinct = String::with_capacity(url.len() + 24);
            for i in first..first + share {
                let mut response = match options.urls {
                    Urls::Parsed if options.builder => client.get(parsed.clone()).send().await,
                    Urls::Parsed => client.fetch(parsed.clone(), RequestInit::default()).await,
                    Urls::Same if options.builder => client.get(url.as_str()).send().await,
                    Urls::Same => client.fetch(url.as_str(), RequestInit::default()).await,
                    Urls::Distinct => {
                        use std::fmt::Write as _;
                        distinct.clear();
                        let _ = write!(distinct, "{url}?{i}");
                        client
                            .fetch(distinct.as_str(), RequestInit::default())
                            .await
                    }
                }
                .map_err(|error| error.to_string())?;
                bytes += response
                    .bytes()
                    .await
                    .map_err(|error| error.to_string())?
                    .len();
            }
            Ok::<_, String>(bytes)
        })
    });
    total(tasks.collect()).await
}

/// `count` GETs of `url` through hyper-util's legacy `Client` (pooled HTTP/1.1,
/// `TCP_NODELAY`, as in the load benchmark; or HTTP/2 only), each body collected, by
/// `concurrency` tasks at once; the bytes read.
async fn run_hyper(
    url: &str,
    count: usize,
    options: Options,
) -> Result<usize, Box<dyn std::error::Error>> {
    use http_body_util::{BodyExt, Empty};
    use hyper_util::client::legacy::Client as HyperClient;
    use hyper_util::client::legacy::connect::HttpConnector;

    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client = HyperClient::builder(TokioExecutor::new())
        .http2_only(options.h2)
        .build::<_, Empty<Bytes>>(connector);
    let uri: hyper::Uri = url.parse()?;
    let head = match options.fetch_headers {
        true => jobs::fetch_request_head(),
        false => http::HeaderMap::new(),
    };
    let tasks = shares(count, options.concurrency).map(|(_, share)| {
        let (client, uri, head) = (client.clone(), uri.clone(), head.clone());
        tokio::spawn(async move {
            let mut bytes = 0;
            for _ in 0..share {
                let mut request = hyper::Request::new(Empty::new());
                *request.uri_mut() = uri.clone();
                if !head.is_empty() {
                    *request.headers_mut() = head.clone();
                }
                let response = client
                    .request(request)
                    .await
                    .map_err(|error| error.to_string())?;
                bytes += response
                    .into_body()
                    .collect()
                    .await
                    .map_err(|error| error.to_string())?
                    .to_bytes()
                    .len();
            }
            Ok::<_, String>(bytes)
        })
    });
    total(tasks.collect()).await
}

/// `count` split into `tasks` shares as even as can be: each share's first request number
/// and its size.
fn shares(count: usize, tasks: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..tasks).map(move |task| {
        let (first, end) = (count * task / tasks, count * (task + 1) / tasks);
        (first, end - first)
    })
}

/// The bytes all `tasks` read, or the first error.
async fn total(
    tasks: Vec<tokio::task::JoinHandle<Result<usize, String>>>,
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut bytes = 0;
    for task in tasks {
        bytes += task.await??;
    }
    Ok(bytes)
}

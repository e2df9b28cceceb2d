//! WebSocket echo throughput: messages a second, and the client's CPU per message, of
//! this crate's `WebSocket` against tokio-tungstenite's client, on the same
//! tokio-tungstenite echo server, in the same run, both orders.
//!
//! ```text
//! cargo bench -p benches --bench websocket -- [--messages 200000] [--window 64] [--rounds 5]
//!                                  [--order both|forward|reverse]
//!                                  [--only fetch|tokio-tungstenite]
//! ```
//!
//! The server runs on a current-thread runtime in its own thread; each client runs on a
//! current-thread runtime on the main thread, so the main thread's CPU time is the
//! client's. One connection per round; the client keeps `window` messages in flight and
//! checks every echo. Two workloads: 64-byte text messages, and 64 KiB binary ones (a
//! tenth as many). The server takes no extension, so neither client compresses.

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite;

const FETCH: &str = "fetch";
const TUNGSTENITE: &str = "tokio-tungstenite";

struct Options {
    messages: usize,
    window: usize,
    rounds: usize,
    forward: bool,
    reverse: bool,
    /// Only this client, when given (for profiling one of them).
    only: Option<&'static str>,
}

const USAGE: &str = "usage: websocket [--messages N] [--window W] [--rounds R] \
                     [--order both|forward|reverse] [--only fetch|tokio-tungstenite]";

fn parse_args() -> Options {
    let mut options = Options {
        messages: 200_000,
        window: 64,
        rounds: 5,
        forward: true,
        reverse: true,
        only: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--bench" {
            continue;
        }
        let Some(value) = args.next() else {
            eprintln!("{arg} needs a value\n{USAGE}");
            std::process::exit(2);
        };
        let number = || {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or_else(|| {
                    eprintln!("{value:?} is not a positive number\n{USAGE}");
                    std::process::exit(2);
                })
        };
        match arg.as_str() {
            "--messages" => options.messages = number(),
            "--window" => options.window = number(),
            "--rounds" => options.rounds = number(),
            "--order" => {
                (options.forward, options.reverse) = match value.as_str() {
                    "both" => (true, true),
                    "forward" => (true, false),
                    "reverse" => (false, true),
                    _ => {
                        eprintln!("{USAGE}");
                        std::process::exit(2);
                    }
                }
            }
            "--only" => {
                options.only = match value.as_str() {
                    FETCH => Some(FETCH),
                    TUNGSTENITE => Some(TUNGSTENITE),
                    _ => {
                        eprintln!("{USAGE}");
                        std::process::exit(2);
                    }
                }
            }
            _ => {
                eprintln!("{USAGE}");
                std::process::exit(2);
            }
        }
    }
    options
}

/// The calling thread's CPU time, in seconds.
fn thread_cpu() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 / 1e9
}

/// A tokio-tungstenite echo server in a thread of its own; gives its address.
fn start_server() -> std::net::SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    let server = std::thread::Builder::new().name("echo-server".into());
    let spawned = server.spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        runtime.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("a listener");
            tx.send(listener.local_addr().expect("its address"))
                .expect("the main thread");
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                tokio::spawn(async move {
                    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    let (write, read) = ws.split();
                    // `forward` feeds each echo and flushes when nothing more is ready.
                    let echoes = futures_util::TryStreamExt::try_filter(read, |message| {
                        std::future::ready(message.is_text() || message.is_binary())
                    });
                    let _ = echoes.forward(write).await;
                });
            }
        });
    });
    spawned.expect("the server's thread");
    rx.recv().expect("the server's address")
}

/// What one round gives: messages a second, and client CPU microseconds a message.
type Round = (f64, f64);

/// `n` echoes of `message` over `write` and `read`, `window` in flight, each checked; the
/// round's figures.
async fn echo<W, R, M, E>(mut write: W, mut read: R, message: M, n: usize, window: usize) -> Round
where
    W: futures_util::Sink<M> + Unpin,
    W::Error: std::fmt::Debug,
    R: futures_util::Stream<Item = Result<M, E>> + Unpin,
    E: std::fmt::Debug,
    M: Clone + PartialEq + std::fmt::Debug,
{
    let (started, cpu) = (Instant::now(), thread_cpu());
    let (mut sent, mut received) = (0, 0);
    while received < n {
        while sent < n && sent - received < window {
            write.feed(message.clone()).await.expect("send");
            sent += 1;
        }
        write.flush().await.expect("flush");
        let echo = read.next().await.expect("an echo").expect("an echo");
        assert_eq!(echo, message, "the echo differs");
        received += 1;
    }
    let (seconds, cpu) = (started.elapsed().as_secs_f64(), thread_cpu() - cpu);
    let _ = write.close().await;
    (n as f64 / seconds, cpu * 1e6 / n as f64)
}

/// A round of this crate's client: `n` messages of `payload`, `window` in flight.
async fn fetch_round(url: &str, payload: &Message, n: usize, window: usize) -> Round {
    use whatwg_fetch::websocket::Message as Ours;
    let client = whatwg_fetch::Client::new();
    let socket = client.websocket(url).connect().await.expect("connect");
    let (write, read) = socket.split();
    let message = match payload {
        Message::Text(text) => Ours::Text(text.clone()),
        Message::Binary(data) => Ours::Binary(data.clone()),
    };
    echo(write, read, message, n, window).await
}

/// A round of tokio-tungstenite's client, the same way.
async fn tungstenite_round(url: &str, payload: &Message, n: usize, window: usize) -> Round {
    // With TCP_NODELAY, as this crate's connections (and browsers') have it: Nagle's
    // algorithm would batch the small echoes and measure the kernel, not the client.
    let (socket, _) = tokio_tungstenite::connect_async_with_config(url, None, true)
        .await
        .expect("connect");
    let (write, read) = socket.split();
    let message = match payload {
        Message::Text(text) => tungstenite::Message::text(text.clone()),
        Message::Binary(data) => tungstenite::Message::Binary(data.clone()),
    };
    echo(write, read, message, n, window).await
}

enum Message {
    Text(String),
    Binary(Bytes),
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let options = parse_args();
    let addr = start_server();
    let url = format!("ws://{addr}/");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    eprintln!(
        "websocket: tokio-tungstenite echo server on {addr} (current-thread runtime, own \
         thread); clients on a current-thread runtime on the main thread; rounds={} after \
         a warm-up round each",
        options.rounds
    );
    let workloads = [
        ("text 64 B", Message::Text("x".repeat(64)), options.messages),
        (
            "binary 64 KiB",
            Message::Binary(Bytes::from(vec![7u8; 64 * 1024])),
            (options.messages / 10).max(1),
        ),
    ];
    for (name, payload, n) in &workloads {
        let window = if matches!(payload, Message::Text(_)) {
            options.window
        } else {
            options.window.min(8)
        };
        eprintln!("\n{name}: {n} messages, {window} in flight");
        let mut orders = Vec::new();
        if options.forward {
            orders.push(("forward", [FETCH, TUNGSTENITE]));
        }
        if options.reverse {
            orders.push(("reverse", [TUNGSTENITE, FETCH]));
        }
        for (order, clients) in orders {
            let mut results: Vec<(&str, Vec<f64>, Vec<f64>)> = clients
                .iter()
                .filter(|c| options.only.is_none_or(|only| only == **c))
                .map(|c| (*c, Vec::new(), Vec::new()))
                .collect();
            for round in 0..=options.rounds {
                // Each round runs every client once, in the order's order.
                for (client, rates, cpus) in &mut results {
                    let (rate, cpu) = runtime.block_on(async {
                        if *client == FETCH {
                            fetch_round(&url, payload, *n, window).await
                        } else {
                            tungstenite_round(&url, payload, *n, window).await
                        }
                    });
                    // Round 0 warms up.
                    if round > 0 {
                        rates.push(rate);
                        cpus.push(cpu);
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let mut medians = Vec::new();
            for (client, rates, cpus) in &mut results {
                let (rate, cpu) = (median(rates), median(cpus));
                eprintln!(
                    "  {order:7} {client:17} {rate:>10.0} msg/s  {cpu:>7.2} µs CPU/msg  \
                     (rounds msg/s: {})",
                    rates
                        .iter()
                        .map(|r| format!("{r:.0}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                medians.push((*client, rate, cpu));
            }
            let of = |name: &str| medians.iter().find(|m| m.0 == name).copied();
            if let (Some(ours), Some(theirs)) = (of(FETCH), of(TUNGSTENITE)) {
                eprintln!(
                    "  {order:7} {name}: fetch / tokio-tungstenite: {:.3}x msg/s, {:.3}x \
                     CPU efficiency (their CPU per message / ours)",
                    ours.1 / theirs.1,
                    theirs.2 / ours.2
                );
            }
        }
    }
}

//! A small curl-like command over `whatwg_fetch::Client`.
//!
//! ```text
//! cargo run -p examples --example fetch -- [OPTIONS] URL
//! ```
//!
//! `--help` lists the options ([`OPTIONS`]).

use std::io::Write;
use std::time::Duration;

use futures_util::StreamExt;
use whatwg_fetch::{BodyInit, Client, Headers, HeadersInit, RequestInit, RequestRedirect};

struct Options {
    url: String,
    method: Option<String>,
    headers: Vec<(String, String)>,
    body: Option<BodyInit>,
    redirect: Option<RequestRedirect>,
    timeout: Option<Duration>,
    include: bool,
    output: Option<String>,
    origin: Option<String>,
    proxy: Option<String>,
    env_proxy: bool,
}

const USAGE: &str = "usage: fetch [-X METHOD] [-H 'Name: value']... [-d TEXT | --data-file PATH] \
[--redirect follow|error|manual] [-m SECONDS] [-i] [-o PATH] [--origin URL] [-x PROXY] \
[--env-proxy] URL";

/// What `--help` prints after [`USAGE`].
const OPTIONS: &str = "options:
  -X, --method METHOD      request method (default GET, or POST with a body)
  -H, --header 'N: V'      add a request header (repeatable)
  -d, --data TEXT          send TEXT as the body
      --data-file PATH     send the file's bytes as the body
      --redirect MODE      follow (default), error or manual
  -m, --timeout SECONDS    give up after this long, body included
  -i, --include            print the status line and headers first
  -o, --output PATH        write the body to PATH, with a progress line on stderr
      --origin URL         fetch as a page at URL would (CORS, Origin, Referer)
  -x, --proxy URL          send every request through the proxy at URL (http, https, socks5, socks5h)
      --env-proxy          use the proxies of http_proxy, https_proxy, no_proxy, ...
  -h, --help               print this and exit";

/// The options of the command line, or `None` when it asks for `--help`.
fn parse_args() -> Result<Option<Options>, String> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        url: String::new(),
        method: None,
        headers: Vec::new(),
        body: None,
        redirect: None,
        timeout: None,
        include: false,
        output: None,
        origin: None,
        proxy: None,
        env_proxy: false,
    };
    let mut url = None;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "-X" | "--method" => options.method = Some(value(&arg)?),
            "-H" | "--header" => {
                let header = value(&arg)?;
                let (name, header_value) = header
                    .split_once(':')
                    .ok_or_else(|| format!("header {header:?} is not 'Name: value'"))?;
                options
                    .headers
                    .push((name.trim().to_owned(), header_value.trim().to_owned()));
            }
            "-d" | "--data" => options.body = Some(BodyInit::from(value(&arg)?)),
            "--data-file" => {
                let path = value(&arg)?;
                let bytes =
                    std::fs::read(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
                options.body = Some(BodyInit::from(bytes));
            }
            "--redirect" => {
                let mode = value(&arg)?;
                options.redirect = Some(mode.parse().map_err(|error| format!("{error}"))?);
            }
            "-m" | "--timeout" => {
                let seconds: f64 = value(&arg)?
                    .parse()
                    .map_err(|_| "timeout must be a number of seconds".to_owned())?;
                if !(seconds.is_finite() && seconds > 0.0) {
                    return Err("timeout must be positive".to_owned());
                }
                options.timeout = Some(Duration::from_secs_f64(seconds));
            }
            "-i" | "--include" => options.include = true,
            "-o" | "--output" => options.output = Some(value(&arg)?),
            "--origin" => options.origin = Some(value(&arg)?),
            "-x" | "--proxy" => options.proxy = Some(value(&arg)?),
            "--env-proxy" => options.env_proxy = true,
            "-h" | "--help" => return Ok(None),
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(format!("unknown option {arg}\n{USAGE}"));
            }
            _ => url = Some(arg),
        }
    }
    options.url = url.ok_or_else(|| USAGE.to_owned())?;
    Ok(Some(options))
}

async fn run(options: Options) -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Client::builder();
    if let Some(timeout) = options.timeout {
        builder = builder.timeout(timeout);
    }
    if let Some(origin) = &options.origin {
        builder = builder.origin(origin.parse()?);
    }
    if let Some(proxy) = &options.proxy {
        builder = builder.proxy(whatwg_fetch::net::Proxy::all(proxy)?);
    }
    builder = builder.proxy_from_env(options.env_proxy);
    let client = builder.build()?;
    let mut headers = Headers::new();
    for (name, value) in &options.headers {
        headers.append(name, value)?;
    }
    let method = match (&options.method, &options.body) {
        (Some(method), _) => Some(method.clone()),
        (None, Some(_)) => Some("POST".to_owned()),
        (None, None) => None,
    };
    let init = RequestInit {
        method,
        headers: Some(HeadersInit::Headers(headers)),
        body: options.body,
        redirect: options.redirect,
        ..Default::default()
    };
    let mut response = client.fetch(options.url.as_str(), init).await?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if options.include {
        writeln!(out, "{} {}", response.status(), response.status_text())?;
        for (name, value) in response.headers() {
            writeln!(out, "{name}: {value}")?;
        }
        writeln!(out)?;
    }
    let total = response
        .headers()
        .get("content-length")?
        .and_then(|length| length.parse::<u64>().ok());
    let Some(body) = response.body() else {
        return Ok(());
    };
    match &options.output {
        None => {
            while let Some(chunk) = body.next().await {
                out.write_all(&chunk?)?;
            }
            out.flush()?;
        }
        Some(path) => {
            let mut file = std::fs::File::create(path)?;
            let mut received: u64 = 0;
            while let Some(chunk) = body.next().await {
                let chunk = chunk?;
                file.write_all(&chunk)?;
                received += chunk.len() as u64;
                print_progress(received, total);
            }
            eprintln!();
        }
    }
    Ok(())
}

fn print_progress(received: u64, total: Option<u64>) {
    const WIDTH: u64 = 40;
    match total.filter(|total| *total > 0) {
        Some(total) => {
            let filled = (received.min(total) * WIDTH / total) as usize;
            let bar = format!(
                "{}{}",
                "#".repeat(filled),
                " ".repeat(WIDTH as usize - filled)
            );
            eprint!("\r[{bar}] {received}/{total} bytes");
        }
        None => eprint!("\r{received} bytes"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let options = match parse_args() {
        Ok(Some(options)) => options,
        Ok(None) => {
            // Ignored: a closed pipe (`fetch --help | head -1`) is no error of the command's.
            let _ = writeln!(std::io::stdout(), "{USAGE}\n\n{OPTIONS}");
            return;
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    if let Err(error) = run(options).await {
        // This crate's errors say their whole chain with `{:#}`; others are followed here.
        match error.downcast_ref::<whatwg_fetch::Error>() {
            Some(error) => eprint!("fetch: {error:#}"),
            None => {
                eprint!("fetch: {error}");
                let mut source = error.source();
                while let Some(cause) = source {
                    eprint!(": {cause}");
                    source = cause.source();
                }
            }
        }
        eprintln!();
        std::process::exit(1);
    }
}

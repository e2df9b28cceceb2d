//! Loading scripts from the WPT server: a small blocking HTTP/1.1 GET.
//!
//! Scripts are always loaded over HTTP so that the server applies `.sub.` substitution and
//! its rewrites. The suite's host names resolve to 127.0.0.1; the `Host` header keeps the
//! name, which `{{host}}` substitution reads.
//!
//! DEVIATION: a script of an `https:` (or HTTP/2) test is loaded from the same host over
//! plain HTTP on the matching HTTP port. The bytes are the same except for substitutions
//! naming the scheme or port of the request itself; `self.location` stays `https:`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use url::Url;

use crate::server::{H2_PORT, HTTP_PORTS, HTTPS_PORTS, resolves_to_server};

/// The URL a script at `url` is loaded from (see the module's DEVIATION note).
pub fn load_url(url: &Url) -> Url {
    let mut u = url.clone();
    if u.scheme() == "https" {
        let port = match u.port() {
            Some(p) if p == HTTPS_PORTS[1] => HTTP_PORTS[1],
            Some(p) if p == HTTPS_PORTS[0] || p == H2_PORT => HTTP_PORTS[0],
            _ => HTTP_PORTS[0],
        };
        let _ = u.set_scheme("http");
        let _ = u.set_port(Some(port));
    }
    u
}

/// GETs `url` and returns the body of a 200 response, following up to 5 redirects.
///
/// # Errors
/// A host outside the suite's names, a connection or protocol failure, or a status other
/// than 200.
pub fn get(url: &str) -> Result<Vec<u8>, String> {
    let mut url = Url::parse(url).map_err(|e| format!("{url}: {e}"))?;
    for _ in 0..6 {
        let u = load_url(&url);
        let host = u.host_str().unwrap_or_default().to_owned();
        if u.scheme() != "http" || !resolves_to_server(&host) {
            return Err(format!("{u}: not a URL of the WPT server"));
        }
        let port = u.port_or_known_default().unwrap_or(80);
        let (status, headers, body) =
            request(&host, port, &path_and_query(&u)).map_err(|e| format!("GET {u}: {e}"))?;
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            let location = header(&headers, "location")
                .ok_or(format!("GET {u}: {status} without Location"))?;
            url = url
                .join(&location)
                .map_err(|e| format!("GET {u}: bad Location: {e}"))?;
            continue;
        }
        if status != 200 {
            return Err(format!("GET {u}: HTTP {status}"));
        }
        return Ok(body);
    }
    Err(format!("GET {url}: too many redirects"))
}

fn path_and_query(u: &Url) -> String {
    match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    }
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
}

type Head = (u16, Vec<(String, String)>, Vec<u8>);

fn request(host: &str, port: u16, target: &str) -> Result<Head, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    let req = format!(
        "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(req.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    parse_response(&raw)
}

/// Parses a whole HTTP/1.1 response read until the connection closed.
pub fn parse_response(raw: &[u8]) -> Result<Head, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of response head")?;
    let (head, rest) = raw.split_at(end);
    let body = rest.get(4..).unwrap_or_default();
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked =
        header(&headers, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(body)?
    } else if let Some(len) =
        header(&headers, "content-length").and_then(|v| v.parse::<usize>().ok())
    {
        body.get(..len)
            .ok_or("body shorter than Content-Length")?
            .to_vec()
    } else {
        body.to_vec()
    };
    Ok((status, headers, body))
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("bad chunk")?;
        let size_line = String::from_utf8_lossy(data.get(..eol).unwrap_or_default()).into_owned();
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("bad chunk size {size_line:?}"))?;
        data = data.get(eol + 2..).unwrap_or_default();
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(data.get(..size).ok_or("truncated chunk")?);
        data = data.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_scripts_load_from_the_http_port() {
        let u = Url::parse("https://www1.web-platform.test:8444/a.js?x").unwrap();
        assert_eq!(
            load_url(&u).as_str(),
            "http://www1.web-platform.test:8001/a.js?x"
        );
        let u = Url::parse("https://web-platform.test:9000/a.js").unwrap();
        assert_eq!(load_url(&u).as_str(), "http://web-platform.test:8000/a.js");
    }

    #[test]
    fn parses_length_and_chunked_bodies() {
        let (s, h, b) =
            parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef").unwrap();
        assert_eq!((s, b.as_slice()), (200, &b"abc"[..]));
        assert_eq!(h[0].0, "Content-Length");
        let (_, _, b) = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap();
        assert_eq!(b, b"abcde");
        assert!(parse_response(b"garbage").is_err());
    }
}

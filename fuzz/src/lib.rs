//! Fuzz targets for whatwg-fetch, as plain functions of the input bytes.
//!
//! Each `fuzz_targets/<name>.rs` wraps one of these for libFuzzer (`cargo +nightly fuzz
//! run <name>`); the tests at the bottom replay every committed seed and regression input
//! through the same functions, so `cargo test --workspace` keeps them building and
//! running. The targets use the crate's public API only, but `alt_svc` and
//! `digest_challenge`, which compile the crate-private parser's file itself; `redis_cache` and `redis_cookies` also need a
//! `redis-server` (started once per process, see `redis_server.rs`). A target panics when the crate
//! breaks a property it checks; that is what libFuzzer reports as a crash.
//!
//! See `fuzz/README.md` for each target's input format.

use std::future::Future;

mod alt_svc;
mod alt_svc_file;
mod cache;
mod cookie_jar_file;
mod cookies;
mod data_url;
mod decode;
mod digest;
mod event_stream;
mod form;
mod h2;
mod h3;
mod headers;
mod http1;
mod mime;
mod pipeline;
mod recording_file;
mod redis_cache;
mod redis_cookies;
mod redis_server;
mod request;
mod socks;
mod websocket;
mod websocket_handshake;

pub use alt_svc::alt_svc;
pub use alt_svc_file::alt_svc_file;
pub use cache::http_cache;
pub use cookie_jar_file::cookie_jar_file;
pub use cookies::cookie_store;
pub use data_url::data_url;
pub use decode::content_decode;
pub use digest::digest_challenge;
pub use event_stream::event_stream;
pub use form::form_data;
pub use h2::h2_response;
pub use h3::h3_response;
pub use headers::headers;
pub use http1::http1_response;
pub use mime::mime_type;
pub use pipeline::http1_pipelined;
pub use recording_file::recording_file;
pub use redis_cache::redis_cache;
pub use redis_cookies::redis_cookies;
pub use request::request_init;
pub use socks::socks_reply;
pub use websocket::websocket_frames;
pub use websocket_handshake::websocket_handshake;

/// Inputs longer than this are skipped: every target is about parsing, and 64 KiB holds
/// every structure they parse many times over.
pub const MAX_INPUT: usize = 64 * 1024;

/// Ignores `SIGPIPE`, as a Rust `main` does before it runs, and libFuzzer's C `main`
/// does not: a write to a connection the peer has closed must fail with `EPIPE`, not kill
/// the process. (The standard library's `write` passes `MSG_NOSIGNAL`; its `writev`,
/// which hyper's HTTP/2 writes go through, does not.)
pub(crate) fn ignore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: `SIG_IGN` is a valid disposition for `SIGPIPE`, and setting it has no other
    // effect; a signal handler that another thread is running is not touched.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// What a target's in-process peer runs on: a current-thread runtime (with `SIGPIPE`
/// ignored, see [`ignore_sigpipe`]) and a listener on 127.0.0.1, with its address.
pub(crate) fn peer_listener() -> (
    tokio::runtime::Runtime,
    tokio::net::TcpListener,
    std::net::SocketAddr,
) {
    ignore_sigpipe();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a listener on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener's address");
    (runtime, listener, addr)
}

/// Runs `future` to completion on this thread's current-thread runtime.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
    }
    RUNTIME.with(|runtime| runtime.block_on(future))
}

/// A current-thread runtime for one input: the tasks the input's stores and clients
/// spawn end with it, rather than piling up on a runtime of the thread's.
pub(crate) fn input_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The lines of `data`, split on `\n`, with a `\r` before it removed.
pub(crate) fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    data.split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
}

/// `line` split at its first space: the word before it and the bytes after it.
pub(crate) fn word(line: &[u8]) -> (&[u8], &[u8]) {
    match line.iter().position(|&b| b == b' ') {
        Some(at) => (
            line.get(..at).unwrap_or_default(),
            line.get(at + 1..).unwrap_or_default(),
        ),
        None => (line, &[]),
    }
}

/// A cursor over binary input: bytes and length-prefixed byte strings, empty once the
/// input runs out.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte, or 0 at the end.
    pub(crate) fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// Everything not read yet.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    /// The next `len` bytes (fewer at the end).
    pub(crate) fn take(&mut self, len: usize) -> &'a [u8] {
        let (taken, rest) = self.data.split_at(len.min(self.data.len()));
        self.data = rest;
        taken
    }

    /// A byte string: one length byte, then that many bytes (fewer at the end).
    pub(crate) fn string(&mut self) -> &'a [u8] {
        let len = usize::from(self.byte()).min(self.data.len());
        let (string, rest) = self.data.split_at(len);
        self.data = rest;
        string
    }
}

#[cfg(test)]
mod tests {
    //! Replays every committed seed (`fuzz/seeds/<target>/`) and regression input
    //! (`fuzz/regressions/<target>/`) through its target. A regression input whose name
    //! starts with `open-` shows a bug not fixed yet: it must still crash its target; once
    //! the bug is fixed, the replay fails until the `open-` is taken off the name, and the
    //! input replays as the others do.

    use std::path::Path;

    fn replay(target: &str, run: fn(&[u8])) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut replayed = 0;
        for dir in ["seeds", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
                continue;
            };
            let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
            paths.sort();
            for path in paths {
                let data = std::fs::read(&path).unwrap();
                if is_open(&path) {
                    eprintln!("replaying {} (expected to crash)", path.display());
                    let crashed = std::panic::catch_unwind(|| run(&data)).is_err();
                    assert!(
                        crashed,
                        "{} no longer crashes {target}: the bug is fixed, take `open-` off its name",
                        path.display()
                    );
                    continue;
                }
                eprintln!("replaying {}", path.display());
                run(&data);
                replayed += 1;
            }
        }
        assert!(
            replayed > 0,
            "no seeds for {target} in fuzz/seeds/{target}/"
        );
    }

    /// Whether `path` is the input of a bug not fixed yet.
    fn is_open(path: &Path) -> bool {
        path.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("open-"))
    }

    #[test]
    fn alt_svc_replays_its_seeds_and_regressions() {
        replay("alt_svc", super::alt_svc);
    }

    #[test]
    fn digest_challenge_replays_its_seeds_and_regressions() {
        replay("digest_challenge", super::digest_challenge);
    }

    #[test]
    fn alt_svc_file_replays_its_seeds_and_regressions() {
        replay("alt_svc_file", super::alt_svc_file);
    }

    #[test]
    fn recording_file_replays_its_seeds_and_regressions() {
        replay("recording_file", super::recording_file);
    }

    #[test]
    fn http1_response_replays_its_seeds_and_regressions() {
        replay("http1_response", super::http1_response);
    }

    #[test]
    fn http1_pipelined_replays_its_seeds_and_regressions() {
        replay("http1_pipelined", super::http1_pipelined);
    }

    #[test]
    fn h2_response_replays_its_seeds_and_regressions() {
        replay("h2_response", super::h2_response);
    }

    #[test]
    fn content_decode_replays_its_seeds_and_regressions() {
        replay("content_decode", super::content_decode);
    }

    #[test]
    fn form_data_replays_its_seeds_and_regressions() {
        replay("form_data", super::form_data);
    }

    #[test]
    fn cookie_jar_file_replays_its_seeds_and_regressions() {
        replay("cookie_jar_file", super::cookie_jar_file);
    }

    #[test]
    fn cookie_store_replays_its_seeds_and_regressions() {
        replay("cookie_store", super::cookie_store);
    }

    #[test]
    fn socks_reply_replays_its_seeds_and_regressions() {
        replay("socks_reply", super::socks_reply);
    }

    #[test]
    fn websocket_frames_replays_its_seeds_and_regressions() {
        replay("websocket_frames", super::websocket_frames);
    }

    #[test]
    fn websocket_handshake_replays_its_seeds_and_regressions() {
        replay("websocket_handshake", super::websocket_handshake);
    }

    #[test]
    fn h3_response_replays_its_seeds_and_regressions() {
        replay("h3_response", super::h3_response);
    }

    #[test]
    fn event_stream_replays_its_seeds_and_regressions() {
        replay("event_stream", super::event_stream);
    }

    #[test]
    fn mime_type_replays_its_seeds_and_regressions() {
        replay("mime_type", super::mime_type);
    }

    #[test]
    fn http_cache_replays_its_seeds_and_regressions() {
        replay("http_cache", super::http_cache);
    }

    #[test]
    fn data_url_replays_its_seeds_and_regressions() {
        replay("data_url", super::data_url);
    }

    #[test]
    fn headers_replays_its_seeds_and_regressions() {
        replay("headers", super::headers);
    }

    #[test]
    fn request_init_replays_its_seeds_and_regressions() {
        replay("request_init", super::request_init);
    }

    #[test]
    fn redis_cache_replays_its_seeds_and_regressions() {
        replay("redis_cache", super::redis_cache);
    }

    #[test]
    fn redis_cookies_replays_its_seeds_and_regressions() {
        replay("redis_cookies", super::redis_cookies);
    }
}

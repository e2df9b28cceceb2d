//! `multipart/form-data` bodies with files read from disk (`File::from_path`,
//! `FormData::append_file`) and from readers (`StreamedFile`), sent to a server on
//! 127.0.0.1: the bytes and part headers it receives, `Content-Length` or chunked, a file
//! that changed or a reader that failed failing the fetch with an error naming it (never a
//! short body taken for a whole one), redirects, and reading as the body is sent.

mod net_support;

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;
use whatwg_fetch::blob::{FailureReason, File, FileReadError};
use whatwg_fetch::form_data::{FormData, FormDataEntryValue, StreamedFile};
use whatwg_fetch::{Client, Error, ErrorKind, NetworkError, RequestDuplex, RequestInit};

/// How long any one fetch here may take before the test fails rather than hang.
const LIMIT: Duration = Duration::from_secs(60);

/// A directory of its own under the system's temporary one, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "whatwg-fetch-multipart-{test}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// Writes `contents` to the file `name` in the directory.
    fn file(&self, name: &str, contents: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `len` bytes that no run of repeats would hide a misplaced chunk in.
fn pattern(len: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect()
}

/// What the server saw of one request: its head, and its whole body or the error that
/// cut it.
#[derive(Debug)]
struct Received {
    path: String,
    headers: http::HeaderMap,
    body: Result<Bytes, String>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body parsed back as a form, by the boundary of its `Content-Type`.
    fn form(&self) -> FormData {
        let content_type = self.header("content-type").unwrap();
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        FormData::from_multipart(self.body.as_ref().unwrap(), boundary).unwrap()
    }
}

/// A server that reads each request's body whole (or to the error that cuts it), sends
/// what it saw to the receiver, and answers `ok`; `/redirect307` answers with a 307 to
/// `/after`.
async fn recording_server() -> (Server, mpsc::UnboundedReceiver<Received>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let tx = tx.clone();
        async move {
            let path = request.uri().path().to_owned();
            let headers = request.headers().clone();
            let body = match request.into_body().collect().await {
                Ok(body) => Ok(body.to_bytes()),
                Err(error) => Err(error.to_string()),
            };
            let _ = tx.send(Received {
                path: path.clone(),
                headers,
                body,
            });
            if path == "/redirect307" {
                return HyperResponse::builder()
                    .status(307)
                    .header("location", "/after")
                    .body::<ServerBody>(full(""))
                    .unwrap();
            }
            HyperResponse::new(full("ok"))
        }
    })
    .await;
    (server, rx)
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

/// Posts `form` to `url` with the request builder, within [`LIMIT`].
async fn post(url: String, form: FormData) -> Result<String, Error> {
    let mut response = tokio::time::timeout(LIMIT, client().post(url).multipart(form).send())
        .await
        .expect("the upload hung")?;
    response.text().await
}

/// The [`FileReadError`] in the source chain of `error`.
fn file_read_error(error: &Error) -> &FileReadError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if let Some(found) = error.downcast_ref::<FileReadError>() {
            return found;
        }
        cause = error.source();
    }
    panic!("no FileReadError behind {error:?}")
}

/// The bytes of the file entry `name` of `form`, with its file name and type.
fn file_entry(form: &FormData, name: &str) -> (String, String, Bytes) {
    let file = form
        .get(name)
        .and_then(FormDataEntryValue::as_file)
        .unwrap();
    (
        file.name().to_owned(),
        file.r#type().to_owned(),
        file.bytes(),
    )
}

#[tokio::test]
async fn a_file_from_disk_arrives_whole_with_its_part_headers_and_a_content_length() {
    let dir = TempDir::new("whole");
    let photo = pattern(5 << 20);
    let photo_path = dir.file("photo.png", &photo);
    let other_path = dir.file("notes.unknown-extension", b"plain bytes");
    let (server, mut received) = recording_server().await;

    let mut form = FormData::new();
    form.append("title", "a holiday");
    form.append_file("photo", &photo_path).await.unwrap();
    form.append_file("other", &other_path).await.unwrap();
    // The bytes stay on disk until the body is read.
    let file = form
        .get("photo")
        .and_then(FormDataEntryValue::as_file)
        .unwrap();
    assert!(!file.is_in_memory());
    assert_eq!(file.size(), 5 << 20);

    assert_eq!(post(server.url("/upload"), form).await.unwrap(), "ok");
    let request = received.recv().await.unwrap();
    let body = request.body.as_ref().unwrap();
    assert_eq!(
        request.header("content-length"),
        Some(body.len().to_string().as_str())
    );
    assert_eq!(request.header("transfer-encoding"), None);

    let form = request.form();
    assert_eq!(
        form.get("title").and_then(FormDataEntryValue::as_str),
        Some("a holiday")
    );
    let (name, r#type, bytes) = file_entry(&form, "photo");
    assert_eq!((name.as_str(), r#type.as_str()), ("photo.png", "image/png"));
    assert!(bytes == photo, "the photo's bytes differ");
    let (name, r#type, bytes) = file_entry(&form, "other");
    assert_eq!(
        (name.as_str(), r#type.as_str(), &bytes[..]),
        (
            "notes.unknown-extension",
            "application/octet-stream",
            &b"plain bytes"[..]
        )
    );
}

#[tokio::test]
async fn an_explicit_type_wins_over_the_guessed_one() {
    let dir = TempDir::new("typed");
    let path = dir.file("data.png", b"not really a png");
    let (server, mut received) = recording_server().await;

    let mut form = FormData::new();
    let file = File::from_path(&path)
        .await
        .unwrap()
        .with_type("text/plain");
    form.append_blob("file", file, None);
    form.append_streamed_file(
        "streamed",
        StreamedFile::reader(&b"{}"[..], "data.png").with_type("application/json"),
    );
    post(server.url("/upload"), form).await.unwrap();

    let form = received.recv().await.unwrap().form();
    assert_eq!(file_entry(&form, "file").1, "text/plain");
    assert_eq!(file_entry(&form, "streamed").1, "application/json");
}

#[tokio::test]
async fn a_reader_without_a_length_is_sent_chunked_and_with_one_under_a_content_length() {
    let (server, mut received) = recording_server().await;
    let contents = pattern(300_000);

    let mut form = FormData::new();
    form.append("a", "1");
    form.append_streamed_file(
        "log",
        StreamedFile::reader(io::Cursor::new(contents.clone()), "app.log"),
    );
    post(server.url("/chunked"), form).await.unwrap();
    let request = received.recv().await.unwrap();
    assert_eq!(request.header("content-length"), None);
    assert_eq!(request.header("transfer-encoding"), Some("chunked"));
    let (name, r#type, bytes) = file_entry(&request.form(), "log");
    assert_eq!((name.as_str(), r#type.as_str()), ("app.log", "text/plain"));
    assert!(bytes == contents);

    let mut form = FormData::new();
    form.append_streamed_file(
        "blob",
        StreamedFile::reader_with_length(io::Cursor::new(contents.clone()), 300_000, "x.bin"),
    );
    post(server.url("/sized"), form).await.unwrap();
    let request = received.recv().await.unwrap();
    let body = request.body.as_ref().unwrap();
    assert_eq!(
        request.header("content-length"),
        Some(body.len().to_string().as_str())
    );
    assert_eq!(request.header("transfer-encoding"), None);
    let (_, r#type, bytes) = file_entry(&request.form(), "blob");
    assert_eq!(r#type, "application/octet-stream");
    assert!(bytes == contents);
}

/// A reader that gives `good` bytes, then fails.
struct FailingReader {
    good: usize,
}

impl AsyncRead for FailingReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.good == 0 {
            return Poll::Ready(Err(io::Error::other("the tape snapped")));
        }
        let n = self.good.min(buf.remaining()).min(10_000);
        buf.put_slice(&vec![b'x'; n]);
        self.good -= n;
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_reader_that_fails_midway_fails_the_fetch_with_an_error_naming_the_part() {
    let (server, mut received) = recording_server().await;
    for length in [None, Some(100_000)] {
        let reader = FailingReader { good: 50_000 };
        let part = match length {
            None => StreamedFile::reader(reader, "tape.bin"),
            Some(length) => StreamedFile::reader_with_length(reader, length, "tape.bin"),
        };
        let mut form = FormData::new();
        form.append_streamed_file("tape", part);

        let error = post(server.url("/upload"), form).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
        assert!(error.network_error().is_some(), "{error:?}");
        let cause = file_read_error(&error);
        assert_eq!(cause.reason(), FailureReason::FileLock);
        assert_eq!((cause.name(), cause.path()), ("tape.bin".to_owned(), None));
        assert!(format!("{error:#}").contains("tape.bin"), "{error:#}");
        assert!(
            format!("{error:#}").contains("the tape snapped"),
            "{error:#}"
        );
        // The server never takes the cut body for a whole one.
        let request = received.recv().await.unwrap();
        assert!(request.body.is_err(), "{length:?}: {request:?}");
    }
}

#[tokio::test]
async fn a_reader_shorter_or_longer_than_its_length_fails_the_fetch() {
    let (server, mut received) = recording_server().await;
    for (given, said) in [(1_000_usize, 5_000_u64), (5_000, 1_000)] {
        let mut form = FormData::new();
        form.append_streamed_file(
            "part",
            StreamedFile::reader_with_length(io::Cursor::new(vec![7_u8; given]), said, "p.bin"),
        );
        let error = post(server.url("/upload"), form).await.unwrap_err();
        let cause = file_read_error(&error);
        assert_eq!(cause.reason(), FailureReason::Length, "{error:#}");
        assert_eq!(cause.name(), "p.bin");
        let request = received.recv().await.unwrap();
        assert!(request.body.is_err(), "{given} of {said}: {request:?}");
    }
}

#[tokio::test]
async fn a_file_changed_after_the_part_was_made_fails_instead_of_sending_other_bytes() {
    let dir = TempDir::new("changed");
    let (server, mut received) = recording_server().await;
    let shrink = |path: &Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(100_000)
            .unwrap();
    };
    let grow = |path: &Path| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(b"more").unwrap();
    };
    let remove = |path: &Path| std::fs::remove_file(path).unwrap();
    type Change<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, Change, FailureReason); 3] = [
        ("truncated", &shrink, FailureReason::SnapshotState),
        ("grown", &grow, FailureReason::SnapshotState),
        ("removed", &remove, FailureReason::NotFound),
    ];
    for (what, change, reason) in cases {
        let path = dir.file(&format!("{what}.bin"), &pattern(1 << 20));
        let mut form = FormData::new();
        form.append("before", "a field sent before the file");
        form.append_file("file", &path).await.unwrap();
        change(&path);

        let error = post(server.url("/upload"), form).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{what}: {error:?}");
        let cause = file_read_error(&error);
        assert_eq!(cause.reason(), reason, "{what}: {error}");
        assert_eq!(cause.path(), Some(path.as_path()), "{what}");
        assert!(
            format!("{error:#}").contains(&format!("{what}.bin")),
            "{error:#}"
        );
        let request = received.recv().await.unwrap();
        assert!(request.body.is_err(), "{what}: {request:?}");
    }
}

#[tokio::test]
async fn a_reader_body_cannot_follow_a_307_but_a_file_body_is_read_again() {
    let dir = TempDir::new("redirect");
    let (server, mut received) = recording_server().await;

    let mut form = FormData::new();
    form.append_streamed_file("part", StreamedFile::reader(&b"once"[..], "once.txt"));
    let error = post(server.url("/redirect307"), form).await.unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::StreamBodyOnRedirect)
        ),
        "{error:?}"
    );
    assert!(received.recv().await.unwrap().body.is_ok());

    // A file on disk is the body's source: the redirect reads it again.
    let contents = pattern(1 << 20);
    let path = dir.file("again.bin", &contents);
    let mut form = FormData::new();
    form.append_file("file", &path).await.unwrap();
    assert_eq!(post(server.url("/redirect307"), form).await.unwrap(), "ok");
    let first = received.recv().await.unwrap();
    let second = received.recv().await.unwrap();
    assert_eq!(
        (first.path.as_str(), second.path.as_str()),
        ("/redirect307", "/after")
    );
    assert_eq!(first.body.as_ref().unwrap(), second.body.as_ref().unwrap());
    assert!(file_entry(&second.form(), "file").2 == contents);
}

#[tokio::test]
async fn a_form_with_a_reader_is_read_once_and_needs_duplex_in_a_request_init() {
    let mut form = FormData::new();
    form.append_streamed_file("part", StreamedFile::reader(&b"once"[..], "once.txt"));
    let builder = client().post("http://127.0.0.1:1/").multipart(form.clone());
    assert!(builder.try_clone().is_none());

    // The request init of a stream body needs duplex, as a ReadableStream's does.
    let init = |form: &FormData, duplex| RequestInit {
        method: Some("POST".into()),
        body: Some(form.clone().into()),
        duplex,
        ..Default::default()
    };
    let error = whatwg_fetch::Request::new("http://127.0.0.1:1/", init(&form, None)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    let mut request = whatwg_fetch::Request::new(
        "http://127.0.0.1:1/",
        init(&form, Some(RequestDuplex::Half)),
    )
    .unwrap();
    let body = request.body().unwrap();
    assert_eq!(body.length(), None);
    // Another body of a clone errors once the first was read: the reader is read once.
    let mut second = whatwg_fetch::Request::new(
        "http://127.0.0.1:1/",
        init(&form, Some(RequestDuplex::Half)),
    )
    .unwrap();
    assert!(request.text().await.unwrap().contains("once"));
    let error = second.text().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    // Nor can a keepalive request carry it.
    let mut fresh = FormData::new();
    fresh.append_streamed_file("part", StreamedFile::reader(&b"once"[..], "once.txt"));
    let keepalive = RequestInit {
        keepalive: Some(true),
        ..init(&fresh, Some(RequestDuplex::Half))
    };
    let error = whatwg_fetch::Request::new("http://127.0.0.1:1/", keepalive).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

/// A reader of `chunks` chunks of 64 KiB that gives each chunk after the first only once
/// the server has received as many body bytes as the reader gave before it: a client that
/// read the reader whole before sending would wait forever.
struct GatedReader {
    chunks: usize,
    given: usize,
    gate: Arc<Gate>,
}

/// The body bytes the server has received, and the reader waiting for more.
#[derive(Default)]
struct Gate {
    received: AtomicU64,
    waiting: Mutex<Option<Waker>>,
}

impl Gate {
    fn add(&self, bytes: u64) {
        self.received.fetch_add(bytes, Ordering::SeqCst);
        if let Some(waker) = self.waiting.lock().unwrap().take() {
            waker.wake();
        }
    }
}

const CHUNK: usize = 64 * 1024;

impl AsyncRead for GatedReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.given == self.chunks * CHUNK {
            return Poll::Ready(Ok(()));
        }
        let before = self.given as u64;
        if before > 0 {
            *self.gate.waiting.lock().unwrap() = Some(cx.waker().clone());
            if self.gate.received.load(Ordering::SeqCst) < before {
                return Poll::Pending;
            }
        }
        let n = (CHUNK - self.given % CHUNK).min(buf.remaining());
        buf.put_slice(&vec![(self.given / CHUNK) as u8; n]);
        self.given += n;
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_reader_is_read_as_the_server_receives_the_body_not_before() {
    let gate = Arc::new(Gate::default());
    let server_gate = gate.clone();
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let gate = server_gate.clone();
        async move {
            let mut body = request.into_body();
            let mut total = 0_usize;
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame.unwrap().into_data() {
                    total += data.len();
                    gate.add(data.len() as u64);
                }
            }
            HyperResponse::new(full(total.to_string()))
        }
    })
    .await;
    let chunks = 64;
    for length in [None, Some((chunks * CHUNK) as u64)] {
        gate.received.store(0, Ordering::SeqCst);
        let reader = GatedReader {
            chunks,
            given: 0,
            gate: gate.clone(),
        };
        let part = match length {
            None => StreamedFile::reader(reader, "gated.bin"),
            Some(length) => StreamedFile::reader_with_length(reader, length, "gated.bin"),
        };
        let mut form = FormData::new();
        form.append_streamed_file("gated", part);
        // The reader gives its second chunk only once the server has the first: a client
        // that read it whole before sending would wait until `post` gives up.
        let total: usize = post(server.url("/"), form).await.unwrap().parse().unwrap();
        assert!(total > chunks * CHUNK, "{length:?}: {total}");
    }
}

#[tokio::test]
async fn a_file_is_read_as_it_is_sent_so_a_change_midway_is_seen() {
    // The server takes the first MiB, then waits while the file grows; a client that had
    // read the file whole before sending would send the old bytes as if nothing changed.
    let dir = TempDir::new("midway");
    let path = dir.file("big.bin", &pattern(32 << 20));
    let (paused_tx, mut paused_rx) = mpsc::unbounded_channel::<()>();
    let resume = Arc::new(tokio::sync::Notify::new());
    let outcome = Arc::new(Mutex::new(None::<Result<usize, String>>));
    let paused = Arc::new(AtomicBool::new(false));
    let (server_resume, server_outcome) = (resume.clone(), outcome.clone());
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let (paused_tx, resume, outcome, paused) = (
            paused_tx.clone(),
            server_resume.clone(),
            server_outcome.clone(),
            paused.clone(),
        );
        async move {
            let mut body = request.into_body();
            let mut total = 0_usize;
            let result = loop {
                match body.frame().await {
                    None => break Ok(total),
                    Some(Err(error)) => break Err(error.to_string()),
                    Some(Ok(frame)) => {
                        total += frame.into_data().map_or(0, |data| data.len());
                        if total > 1 << 20 && !paused.swap(true, Ordering::SeqCst) {
                            let _ = paused_tx.send(());
                            resume.notified().await;
                        }
                    }
                }
            };
            *outcome.lock().unwrap() = Some(result);
            HyperResponse::new(full("ok"))
        }
    })
    .await;

    let mut form = FormData::new();
    form.append_file("big", &path).await.unwrap();
    let upload = tokio::spawn(post(server.url("/"), form));
    paused_rx.recv().await.unwrap();
    {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"appended while the upload waits").unwrap();
    }
    resume.notify_one();

    let error = upload.await.unwrap().unwrap_err();
    let cause = file_read_error(&error);
    assert_eq!(cause.reason(), FailureReason::SnapshotState, "{error:#}");
    assert!(net_support::eventually(|| outcome.lock().unwrap().is_some()).await);
    let outcome = outcome.lock().unwrap().take().unwrap();
    assert!(
        outcome.is_err(),
        "the server took {outcome:?} as a whole body"
    );
}

#[tokio::test]
async fn a_blob_from_disk_reads_and_slices_without_loading_it() {
    let dir = TempDir::new("blob");
    let contents = pattern(300_000);
    let path = dir.file("data.bin", &contents);
    let file = File::from_path(&path).await.unwrap();
    assert_eq!(
        (file.name(), file.r#type(), file.size()),
        ("data.bin", "application/octet-stream", 300_000)
    );
    // The synchronous accessors are for blobs in memory.
    assert!(file.bytes().is_empty() && file.text().is_empty());
    assert!(file.read_bytes().await.unwrap() == contents);
    let slice = file.slice(Some(100_000), Some(-100), None);
    assert!(!slice.is_in_memory());
    assert!(slice.read_bytes().await.unwrap() == contents[100_000..299_900]);
    // A blob of a file and other parts reads as one.
    let joined = whatwg_fetch::Blob::new(
        [
            whatwg_fetch::blob::BlobPart::from("<"),
            whatwg_fetch::blob::BlobPart::from(file.slice(Some(0), Some(3), None)),
            whatwg_fetch::blob::BlobPart::from(">"),
        ],
        Default::default(),
    );
    assert_eq!(joined.size(), 5);
    let mut expected = b"<".to_vec();
    expected.extend_from_slice(&contents[..3]);
    expected.push(b'>');
    assert_eq!(joined.read_bytes().await.unwrap(), expected);
    // As a stream, 64 KiB at a time.
    let mut stream = file.stream();
    let mut sizes = Vec::new();
    while let Some(chunk) = futures_util::StreamExt::next(&mut stream).await {
        sizes.push(chunk.unwrap().len());
    }
    assert_eq!(sizes.iter().sum::<usize>(), 300_000);
    assert!(sizes.iter().all(|&size| size <= 64 * 1024), "{sizes:?}");
    // A directory is not a file.
    let error = File::from_path(&dir.0).await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotReadableError);
    assert_eq!(file_read_error(&error).reason(), FailureReason::FileLock);
}

//! [`FormData`], from the [XMLHttpRequest Standard](https://xhr.spec.whatwg.org/#interface-formdata),
//! and the two form encodings a body can carry.
//!
//! - `multipart/form-data`: serialized by HTML's [`multipart/form-data` encoding
//!   algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
//!   ([`FormData::to_multipart`]) and parsed, for `Body`'s `formData()`, by the
//!   [`multipart/form-data` parser](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-parser)
//!   proposed for the Fetch Standard ([`FormData::from_multipart`]). Fetch itself only
//!   points at RFC 7578 ("a more detailed parsing specification is to be written"); the
//!   proposal is what undici follows.
//! - `application/x-www-form-urlencoded`: parsed with the URL Standard's
//!   [urlencoded parser](https://url.spec.whatwg.org/#concept-urlencoded-parser)
//!   ([`FormData::from_urlencoded`]).
//!
//! An [entry list](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#entry-list)
//! is a list of name/value pairs; a value is a string or a [`File`]. Names and string values
//! are scalar value strings, which Rust strings always are.
//!
//! ## Uploading files
//!
//! A form sent as a body streams its parts in order, so a file's bytes are never all in
//! memory at once:
//!
//! - a [`File`] from disk ([`File::from_path`], [`FormData::append_file`]) is read in
//!   chunks as the body is sent, and again if a redirect needs the body again; a file that
//!   changed since the `File` was made fails the body rather than send other bytes;
//! - a [`StreamedFile`] is read once from any [`AsyncRead`], as reqwest's
//!   `multipart::Part::reader` is: a form holding one is a stream body, sent once.
//!
//! The body's `Content-Length` is known when every part's length is (a file's size, a
//! reader's given length); without it the body goes `Transfer-Encoding: chunked` over
//! HTTP/1.1.
//!
//! ```
//! use whatwg_fetch::{FormData, Request, RequestInit};
//!
//! let mut form = FormData::new();
//! form.append("title", "Q3");
//! let request = Request::new("https://api.example/upload", RequestInit {
//!     method: Some("POST".into()),
//!     body: Some(form.into()),
//!     ..RequestInit::default()
//! })?;
//! let content_type = request.headers().get("content-type")?.unwrap_or_default();
//! assert!(content_type.starts_with("multipart/form-data; boundary="));
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use bytes::{BufMut, Bytes, BytesMut};
use futures_core::Stream;
use tokio::io::AsyncRead;
use tokio_util::io::ReaderStream;

use crate::blob::{
    Blob, BlobBytes, CHUNK_SIZE, ChunkStream, File, FileReadError, chain, guess_type,
    normalize_type, now_millis, utf8_decode_without_bom,
};
use crate::error::{Error, Result};
use crate::infra::{
    collect_a_sequence_of_bytes, is_http_tab_or_space_byte, is_token, isomorphic_decode,
    isomorphic_encode, trim_http_tab_or_space, trim_trailing_bytes,
};

/// A [`FormDataEntryValue`](https://xhr.spec.whatwg.org/#formdataentryvalue):
/// `(File or USVString)`.
///
/// Non-exhaustive: a kind of value may be added (as [`StreamedFile`](Self::StreamedFile)
/// was) without a major version, so a `match` outside this crate needs a wildcard arm,
/// which must treat a value it does not know as neither a string nor a [`File`] (skip it
/// or fail, saying so). [`as_str`](Self::as_str) and [`as_file`](Self::as_file) read
/// the two kinds of the spec without a `match`.
///
/// ```
/// use whatwg_fetch::{FormData, FormDataEntryValue};
///
/// let mut form = FormData::new();
/// form.append("title", "holiday");
/// for (name, value) in form.iter() {
///     match value {
///         FormDataEntryValue::String(text) => println!("{name}: {text}"),
///         FormDataEntryValue::File(file) => println!("{name}: file {}", file.name()),
///         FormDataEntryValue::StreamedFile(file) => println!("{name}: streamed {}", file.name()),
///         // A kind of value added after this code was written.
///         other => println!("{name}: {other:?}"),
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormDataEntryValue {
    /// A string value.
    String(String),
    /// A file value. A [`Blob`] given to [`FormData::append_blob`] is stored as a `File`
    /// named `"blob"`.
    File(File),
    /// Not in the spec: a file value whose bytes come once from a reader, given to
    /// [`FormData::append_streamed_file`]. It is sent as a `File` is; it has no `Blob`, as
    /// it cannot be read more than once or may not know its size.
    StreamedFile(StreamedFile),
}

impl FormDataEntryValue {
    /// The string value, or `None` for a file.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("name", "Ada");
    /// assert_eq!(form.get("name").and_then(|value| value.as_str()), Some("Ada"));
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            FormDataEntryValue::String(value) => Some(value),
            FormDataEntryValue::File(_) | FormDataEntryValue::StreamedFile(_) => None,
        }
    }

    /// The file value, or `None` for a string or a [`StreamedFile`].
    ///
    /// ```
    /// use whatwg_fetch::{Blob, FormData};
    ///
    /// let mut form = FormData::new();
    /// form.append_blob("doc", Blob::from_bytes(&b"%PDF"[..], "application/pdf"), Some("a.pdf"));
    /// let value = form.get("doc").expect("an entry");
    /// assert!(value.as_str().is_none());
    /// assert_eq!(value.as_file().map(|file| file.size()), Some(4));
    /// ```
    pub fn as_file(&self) -> Option<&File> {
        match self {
            FormDataEntryValue::File(file) => Some(file),
            FormDataEntryValue::String(_) | FormDataEntryValue::StreamedFile(_) => None,
        }
    }

    /// The [`StreamedFile`] value, or `None` for a string or a [`File`].
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// let mut form = FormData::new();
    /// form.append_streamed_file("upload", StreamedFile::reader(&b"..."[..], "data.bin"));
    /// let value = form.get("upload").expect("an entry");
    /// assert!(value.as_file().is_none());
    /// assert_eq!(value.as_streamed_file().map(|file| file.length()), Some(None));
    /// ```
    pub fn as_streamed_file(&self) -> Option<&StreamedFile> {
        match self {
            FormDataEntryValue::StreamedFile(file) => Some(file),
            FormDataEntryValue::String(_) | FormDataEntryValue::File(_) => None,
        }
    }
}

impl From<&str> for FormDataEntryValue {
    fn from(value: &str) -> FormDataEntryValue {
        FormDataEntryValue::String(value.to_owned())
    }
}

impl From<String> for FormDataEntryValue {
    fn from(value: String) -> FormDataEntryValue {
        FormDataEntryValue::String(value)
    }
}

impl From<File> for FormDataEntryValue {
    fn from(value: File) -> FormDataEntryValue {
        FormDataEntryValue::File(value)
    }
}

impl From<StreamedFile> for FormDataEntryValue {
    fn from(value: StreamedFile) -> FormDataEntryValue {
        FormDataEntryValue::StreamedFile(value)
    }
}

/// A reader, boxed, as a [`StreamedFile`] holds it until the body that sends it takes it.
type BoxReader = Pin<Box<dyn AsyncRead + Send + 'static>>;

/// Not in the spec: a file part of a form whose bytes are read once, as the body is sent,
/// from any [`AsyncRead`] (a pipe, a socket, a decompressor, a file opened elsewhere): what
/// reqwest's `multipart::Part::reader` and `Part::reader_with_length` are.
///
/// It is not a [`Blob`]: a blob can be read again and always has a size; a reader can be
/// read once and may not know its length. So a form holding one, once made into a body,
/// is a stream body, as a `ReadableStream` is in the spec: its source is null, so it
/// cannot follow a redirect that needs the body again (307, 308) nor be retried, it needs
/// `duplex: "half"` in a [`RequestInit`](crate::RequestInit) (which
/// [`RequestBuilder::multipart`](crate::RequestBuilder::multipart) sets), and it cannot be
/// a keepalive request's body. The body's `Content-Length` is known when every part's
/// length is: given with [`StreamedFile::reader_with_length`], which the reader is then held
/// to (fewer or more bytes fail the body). Without it the body is sent chunked.
///
/// Clones share the one reader: the first body made from any of them to be read takes
/// it, and another body errors with a `TypeError` when read.
///
/// The part is sent with a `filename` of [`name`](Self::name) and a `Content-Type` of
/// [`type`](Self::type), guessed from the name's extension unless
/// [`with_type`](Self::with_type) sets it, and `application/octet-stream` when neither says.
///
/// ```
/// use whatwg_fetch::form_data::{FormData, StreamedFile};
///
/// let log: &[u8] = b"line 1\nline 2\n";
/// let mut form = FormData::new();
/// form.append_streamed_file("log", StreamedFile::reader(log, "app.log"));
/// form.append_streamed_file(
///     "image",
///     StreamedFile::reader_with_length(&b"\x89PNG"[..], 4, "pixel.png"),
/// );
///
/// let image = form.get("image").and_then(|v| v.as_streamed_file()).unwrap();
/// assert_eq!((image.name(), image.r#type(), image.length()), ("pixel.png", "image/png", Some(4)));
/// ```
#[derive(Clone)]
pub struct StreamedFile {
    /// The part's `filename`.
    name: String,
    /// The part's `Content-Type`; the empty string is sent as `application/octet-stream`.
    r#type: String,
    /// The number of bytes the reader gives, if known.
    length: Option<u64>,
    /// The reader, until a body takes it.
    reader: Arc<Mutex<Option<BoxReader>>>,
}

impl StreamedFile {
    /// A file part named `name` read from `reader` to its end, of a length not known before
    /// (what reqwest's `Part::reader` is): a body holding it is sent chunked.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::form_data::StreamedFile;
    /// use whatwg_fetch::{FormData, Request, RequestInit};
    ///
    /// let mut form = FormData::new();
    /// form.append_streamed_file("log", StreamedFile::reader(&b"line 1\nline 2\n"[..], "app.log"));
    /// // A body of it is a stream: no length before it is read, sent once.
    /// let request = Request::new("https://logs.example/", RequestInit {
    ///     method: Some("POST".into()),
    ///     body: Some(form.into()),
    ///     duplex: Some(whatwg_fetch::RequestDuplex::Half),
    ///     ..RequestInit::default()
    /// })?;
    /// assert_eq!(request.headers().get("content-type")?.map(|t| t.starts_with("multipart/form-data")), Some(true));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reader(reader: impl AsyncRead + Send + 'static, name: impl Into<String>) -> Self {
        let name = name.into();
        StreamedFile {
            r#type: guess_type(&name),
            name,
            length: None,
            reader: Arc::new(Mutex::new(Some(Box::pin(reader)))),
        }
    }

    /// A file part named `name` of `length` bytes read from `reader` (what reqwest's
    /// `Part::reader_with_length` is), so that a body holding it can have a
    /// `Content-Length`. The reader is held to it: one that ends sooner or gives more fails
    /// the body with a [`FileReadError`] of reason
    /// [`FailureReason::Length`](crate::blob::FailureReason::Length); the peer never takes
    /// a shorter body for a whole one.
    ///
    /// ```
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// // A reader whose length is known (a file's size, an object store's header): the body can
    /// // have a `Content-Length`.
    /// let part = StreamedFile::reader_with_length(&b"0123456789"[..], 10, "digits.txt");
    /// assert_eq!((part.length(), part.r#type()), (Some(10), "text/plain"));
    /// ```
    pub fn reader_with_length(
        reader: impl AsyncRead + Send + 'static,
        length: u64,
        name: impl Into<String>,
    ) -> Self {
        StreamedFile {
            length: Some(length),
            ..StreamedFile::reader(reader, name)
        }
    }

    /// This part with its type set to `type`, normalized as a [`Blob`]'s is (parsed as a
    /// MIME type and serialized; the empty string, sent as `application/octet-stream`, if it
    /// does not parse), in place of the type guessed from its name.
    ///
    /// ```
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// let part = StreamedFile::reader(&b"{}"[..], "data.bin").with_type("Application/JSON");
    /// assert_eq!(part.r#type(), "application/json");
    /// ```
    pub fn with_type(self, r#type: &str) -> Self {
        StreamedFile {
            r#type: normalize_type(r#type),
            ..self
        }
    }

    /// The part's file name.
    ///
    /// ```
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// assert_eq!(StreamedFile::reader(&b""[..], "empty.bin").name(), "empty.bin");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The part's type: the one given with [`with_type`](Self::with_type), or guessed from
    /// the name's extension, or the empty string.
    ///
    /// ```
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// assert_eq!(StreamedFile::reader(&b""[..], "photo.jpeg").r#type(), "image/jpeg");
    /// assert_eq!(StreamedFile::reader(&b""[..], "blob.unknown-extension").r#type(), "");
    /// ```
    pub fn r#type(&self) -> &str {
        &self.r#type
    }

    /// The number of bytes the reader was said to give, if known.
    ///
    /// ```
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// assert_eq!(StreamedFile::reader(&b"abc"[..], "a.txt").length(), None);
    /// assert_eq!(StreamedFile::reader_with_length(&b"abc"[..], 3, "a.txt").length(), Some(3));
    /// ```
    pub fn length(&self) -> Option<u64> {
        self.length
    }

    /// The reader's chunks, held to the length if one was given. The reader is taken when
    /// the stream is first polled, so that a body made but never read (a request whose
    /// constructor threw) leaves it to another; a stream polled after another took it
    /// errors with a `TypeError`.
    fn chunks(&self) -> ChunkStream {
        Box::pin(ReaderChunks {
            name: self.name.clone(),
            reader: self.reader.clone(),
            stream: None,
            length: self.length,
            read: 0,
            done: false,
        })
    }
}

impl fmt::Debug for StreamedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let taken = self.reader.lock().map_or(true, |reader| reader.is_none());
        f.debug_struct("StreamedFile")
            .field("name", &self.name)
            .field("type", &self.r#type)
            .field("length", &self.length)
            .field("taken", &taken)
            .finish()
    }
}

impl PartialEq for StreamedFile {
    /// The same part: clones of one `StreamedFile`, which share its reader.
    fn eq(&self, other: &StreamedFile) -> bool {
        Arc::ptr_eq(&self.reader, &other.reader)
            && self.name == other.name
            && self.r#type == other.r#type
            && self.length == other.length
    }
}

impl Eq for StreamedFile {}

/// The chunks of a [`StreamedFile`]'s reader, as its part in a body.
struct ReaderChunks {
    /// The part's file name, for the errors.
    name: String,
    /// The reader, shared with the part's clones until the first poll takes it.
    reader: Arc<Mutex<Option<BoxReader>>>,
    /// The reader's chunks, once it is taken.
    stream: Option<ReaderStream<BoxReader>>,
    /// The length the reader is held to, if any.
    length: Option<u64>,
    /// Bytes read so far.
    read: u64,
    /// Set once the reader ended or failed.
    done: bool,
}

impl Stream for ReaderChunks {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let stream = match &mut this.stream {
            Some(stream) => stream,
            None => {
                let reader = this
                    .reader
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take();
                let Some(reader) = reader else {
                    this.done = true;
                    return Poll::Ready(Some(Err(Error::type_error(format!(
                        "the reader of file part {:?} was already read by another body: a \
                         StreamedFile is read once",
                        this.name
                    )))));
                };
                this.stream
                    .insert(ReaderStream::with_capacity(reader, CHUNK_SIZE))
            }
        };
        let polled = ready!(Pin::new(stream).poll_next(cx));
        match polled {
            Some(Ok(chunk)) => {
                let read = this.read.saturating_add(chunk.len() as u64);
                if let Some(length) = this.length.filter(|&length| read > length) {
                    this.done = true;
                    let detail = format!("it gave more than {length} bytes");
                    return Poll::Ready(Some(Err(
                        FileReadError::length(&this.name, detail).into_error()
                    )));
                }
                this.read = read;
                Poll::Ready(Some(Ok(chunk)))
            }
            Some(Err(error)) => {
                this.done = true;
                Poll::Ready(Some(Err(
                    FileReadError::reader(&this.name, error).into_error()
                )))
            }
            None => {
                this.done = true;
                match this.length.filter(|&length| this.read < length) {
                    Some(length) => {
                        let detail = format!("it ended after {} of {length} bytes", this.read);
                        Poll::Ready(Some(Err(
                            FileReadError::length(&this.name, detail).into_error()
                        )))
                    }
                    None => Poll::Ready(None),
                }
            }
        }
    }
}

/// The `Blob blobValue` argument of [`FormData::append_blob`] and [`FormData::set_blob`]: a
/// plain [`Blob`] or a [`File`] (a `File` is a `Blob` in the IDL, and keeps its name and
/// last-modified time when stored).
///
/// ```
/// use whatwg_fetch::{Blob, File, FilePropertyBag, FormData};
///
/// let mut form = FormData::new();
/// // A blob is stored as a file named "blob"; a file keeps its name.
/// form.append_blob("a", Blob::from_bytes(&b"1"[..], ""), None);
/// form.append_blob("b", File::new(["2"], "two.txt", FilePropertyBag::default()), None);
/// let names: Vec<_> = form.values().filter_map(|v| v.as_file()).map(|f| f.name().to_owned()).collect();
/// assert_eq!(names, ["blob", "two.txt"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlobValue {
    /// A blob that is not a file: stored as a `File` named `"blob"`, last modified now.
    Blob(Blob),
    /// A file: stored as it is, renamed if a filename is given.
    File(File),
}

impl From<Blob> for BlobValue {
    fn from(blob: Blob) -> BlobValue {
        BlobValue::Blob(blob)
    }
}

impl From<&Blob> for BlobValue {
    fn from(blob: &Blob) -> BlobValue {
        BlobValue::Blob(blob.clone())
    }
}

impl From<File> for BlobValue {
    fn from(file: File) -> BlobValue {
        BlobValue::File(file)
    }
}

impl From<&File> for BlobValue {
    fn from(file: &File) -> BlobValue {
        BlobValue::File(file.clone())
    }
}

/// The value handed to [create an entry]: a string, or a `Blob` that may be a `File`.
///
/// [create an entry]: https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#create-an-entry
enum EntryInput<'a> {
    String(Cow<'a, str>),
    Blob(BlobValue),
}

/// A [`FormData`](https://xhr.spec.whatwg.org/#interface-formdata): an ordered list of
/// name/value entries, where a name may repeat.
///
/// ```
/// use whatwg_fetch::blob::Blob;
/// use whatwg_fetch::form_data::{FormData, FormDataEntryValue};
///
/// let mut form = FormData::new();
/// form.append("tag", "a");
/// form.append("tag", "b");
/// form.append_blob("upload", Blob::from_bytes(&b"%PDF"[..], "application/pdf"), Some("doc.pdf"));
///
/// assert_eq!(form.get("tag").and_then(FormDataEntryValue::as_str), Some("a"));
/// assert_eq!(form.get_all("tag").len(), 2);
/// let file = form.get("upload").and_then(FormDataEntryValue::as_file).unwrap();
/// assert_eq!((file.name(), file.r#type()), ("doc.pdf", "application/pdf"));
///
/// form.set("tag", "c");
/// let names: Vec<&str> = form.keys().collect();
/// assert_eq!(names, ["tag", "upload"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormData {
    /// <https://xhr.spec.whatwg.org/#concept-formdata-entry-list>, initially empty.
    entry_list: Vec<(String, FormDataEntryValue)>,
}

impl FormData {
    /// The [`new FormData()`](https://xhr.spec.whatwg.org/#dom-formdata) constructor, without
    /// a form: an empty entry list.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let form = FormData::new();
    /// assert!(form.is_empty());
    /// ```
    pub fn new() -> FormData {
        FormData::default()
    }

    /// The [`append(name, value)`](https://xhr.spec.whatwg.org/#dom-formdata-append) method:
    /// add a string entry at the end.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("tag", "red");
    /// form.append("tag", "blue");
    /// // Entries of one name are kept apart, in order.
    /// assert_eq!(form.get_all("tag").iter().filter_map(|value| value.as_str()).collect::<Vec<_>>(), ["red", "blue"]);
    /// ```
    pub fn append(&mut self, name: &str, value: &str) {
        // Step 1. Let value be value if given; otherwise blobValue.
        // Step 2. Let entry be the result of creating an entry with name, value, and
        // filename if given.
        let entry = create_an_entry(name, EntryInput::String(Cow::Borrowed(value)), None);
        // Step 3. Append entry to this's entry list.
        self.entry_list.push(entry);
    }

    /// The [`append(name, blobValue, filename)`](https://xhr.spec.whatwg.org/#dom-formdata-append-blob)
    /// method: add a file entry at the end.
    ///
    /// A [`Blob`] that is not a [`File`] is stored as a `File` named `"blob"` (last modified
    /// now); `filename`, if given, replaces the name. Type and last-modified time of a `File`
    /// are kept.
    ///
    /// ```
    /// use whatwg_fetch::blob::{Blob, File, FilePropertyBag};
    /// use whatwg_fetch::form_data::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append_blob("a", Blob::from_bytes(&b"1"[..], ""), None);
    /// let photo = File::new(["..."], "IMG_1.jpg", FilePropertyBag::default());
    /// form.append_blob("b", &photo, None);
    /// form.append_blob("c", &photo, Some("holiday.jpg"));
    ///
    /// let name = |key| form.get(key).and_then(|v| v.as_file()).map(|f| f.name().to_owned());
    /// assert_eq!(name("a").as_deref(), Some("blob"));
    /// assert_eq!(name("b").as_deref(), Some("IMG_1.jpg"));
    /// assert_eq!(name("c").as_deref(), Some("holiday.jpg"));
    /// ```
    pub fn append_blob(
        &mut self,
        name: &str,
        blob_value: impl Into<BlobValue>,
        filename: Option<&str>,
    ) {
        // Step 1. Let value be value if given; otherwise blobValue.
        // Step 2. Let entry be the result of creating an entry with name, value, and
        // filename if given.
        let entry = create_an_entry(name, EntryInput::Blob(blob_value.into()), filename);
        // Step 3. Append entry to this's entry list.
        self.entry_list.push(entry);
    }

    /// Appends the file on disk at `path` as a file entry named `name`: what
    /// [`append_blob`](Self::append_blob) does with [`File::from_path`] (named after the
    /// path's last component, typed by its extension), and what reqwest's
    /// `multipart::Form::file` is. Only the file's metadata is read here; its bytes are
    /// read in chunks when the form is sent.
    ///
    /// # Errors
    /// As [`File::from_path`]: a `NotFoundError` or `NotReadableError` naming the path.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{FormData, Request, RequestInit};
    ///
    /// let path = std::env::temp_dir().join(format!("report-{}.csv", std::process::id()));
    /// std::fs::write(&path, "a,b\n1,2\n").unwrap();
    ///
    /// let mut form = FormData::new();
    /// form.append("title", "Q3");
    /// form.append_file("report", &path).await?;
    /// let file = form.get("report").and_then(|v| v.as_file()).unwrap();
    /// assert_eq!(file.r#type(), "text/csv");
    ///
    /// let mut request = Request::new("https://example.com/upload", RequestInit {
    ///     method: Some("POST".into()),
    ///     body: Some(form.into()),
    ///     ..Default::default()
    /// })?;
    /// // The parts' lengths are known: the body's is.
    /// assert!(request.body().and_then(|body| body.length()).is_some());
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn append_file(&mut self, name: &str, path: impl AsRef<Path>) -> Result<()> {
        let file = File::from_path(path).await?;
        self.append_blob(name, file, None);
        Ok(())
    }

    /// Appends a file entry named `name` whose bytes are read once from a reader, as the
    /// body is sent: see [`StreamedFile`], and its constructors
    /// [`reader`](StreamedFile::reader) and
    /// [`reader_with_length`](StreamedFile::reader_with_length).
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    /// use whatwg_fetch::form_data::StreamedFile;
    ///
    /// // A part read from any reader as the body is sent: a socket, a pipe, a decompressor.
    /// let reader: &[u8] = b"2026-12-07 12:00 started\n";
    /// let mut form = FormData::new();
    /// form.append_streamed_file("log", StreamedFile::reader_with_length(reader, 25, "run.log"));
    /// assert_eq!(form.get("log").and_then(|value| value.as_streamed_file()).map(|file| file.name()), Some("run.log"));
    /// ```
    pub fn append_streamed_file(&mut self, name: &str, file: StreamedFile) {
        self.entry_list
            .push((name.to_owned(), FormDataEntryValue::StreamedFile(file)));
    }

    /// Whether an entry is a [`StreamedFile`], which makes a body made of this form a
    /// stream body, sent once.
    pub(crate) fn has_streamed_file(&self) -> bool {
        self.entry_list
            .iter()
            .any(|(_, value)| matches!(value, FormDataEntryValue::StreamedFile(_)))
    }

    /// The [`delete(name)`](https://xhr.spec.whatwg.org/#dom-formdata-delete) method: remove
    /// every entry named `name`.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("a", "1");
    /// form.append("a", "2");
    /// form.append("b", "3");
    /// form.delete("a");
    /// assert_eq!(form.keys().collect::<Vec<_>>(), ["b"]);
    /// ```
    pub fn delete(&mut self, name: &str) {
        // The delete(name) method steps are to remove all entries whose name is name from
        // this's entry list.
        self.entry_list.retain(|(entry_name, _)| entry_name != name);
    }

    /// The [`get(name)`](https://xhr.spec.whatwg.org/#dom-formdata-get) method: the value of
    /// the first entry named `name`.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("q", "first");
    /// form.append("q", "second");
    /// assert_eq!(form.get("q").and_then(|value| value.as_str()), Some("first"));
    /// assert!(form.get("missing").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&FormDataEntryValue> {
        // Step 1. If there is no entry whose name is name in this's entry list, then return
        // null.
        // Step 2. Return the value of the first entry whose name is name from this's entry
        // list.
        self.entry_list
            .iter()
            .find(|(entry_name, _)| entry_name == name)
            .map(|(_, value)| value)
    }

    /// The [`getAll(name)`](https://xhr.spec.whatwg.org/#dom-formdata-getall) method: the
    /// values of every entry named `name`, in order.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("id", "1");
    /// form.append("id", "2");
    /// assert_eq!(form.get_all("id").len(), 2);
    /// assert!(form.get_all("missing").is_empty());
    /// ```
    pub fn get_all(&self, name: &str) -> Vec<&FormDataEntryValue> {
        // Step 1. If there is no entry whose name is name in this's entry list, then return
        // the empty list.
        // Step 2. Return the values of all entries whose name is name, in order, from this's
        // entry list.
        self.entry_list
            .iter()
            .filter(|(entry_name, _)| entry_name == name)
            .map(|(_, value)| value)
            .collect()
    }

    /// The [`has(name)`](https://xhr.spec.whatwg.org/#dom-formdata-has) method: whether an
    /// entry is named `name`.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("agree", "on");
    /// assert!(form.has("agree") && !form.has("newsletter"));
    /// ```
    pub fn has(&self, name: &str) -> bool {
        self.entry_list
            .iter()
            .any(|(entry_name, _)| entry_name == name)
    }

    /// The [`set(name, value)`](https://xhr.spec.whatwg.org/#dom-formdata-set) method:
    /// replace the first entry named `name` with a string entry and remove the others, or
    /// append one if there is none.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("page", "1");
    /// form.append("sort", "name");
    /// form.append("page", "7");
    /// form.set("page", "2");
    /// // The first `page` replaced in its place, the other removed.
    /// let entries: Vec<_> = form.iter().map(|(name, value)| (name, value.as_str())).collect();
    /// assert_eq!(entries, [("page", Some("2")), ("sort", Some("name"))]);
    /// ```
    pub fn set(&mut self, name: &str, value: &str) {
        // Step 1. Let value be value if given; otherwise blobValue.
        // Step 2. Let entry be the result of creating an entry with name, value, and
        // filename if given.
        let entry = create_an_entry(name, EntryInput::String(Cow::Borrowed(value)), None);
        self.set_entry(entry);
    }

    /// The [`set(name, blobValue, filename)`](https://xhr.spec.whatwg.org/#dom-formdata-set-blob)
    /// method: as [`FormData::set`], with a file entry made as [`FormData::append_blob`]
    /// makes it.
    ///
    /// ```
    /// use whatwg_fetch::{Blob, FormData};
    ///
    /// let mut form = FormData::new();
    /// form.append("avatar", "none");
    /// form.set_blob("avatar", Blob::from_bytes(&b"\x89PNG"[..], "image/png"), Some("me.png"));
    /// let file = form.get("avatar").and_then(|value| value.as_file()).expect("a file now");
    /// assert_eq!((file.name(), file.r#type()), ("me.png", "image/png"));
    /// ```
    pub fn set_blob(
        &mut self,
        name: &str,
        blob_value: impl Into<BlobValue>,
        filename: Option<&str>,
    ) {
        // Step 1. Let value be value if given; otherwise blobValue.
        // Step 2. Let entry be the result of creating an entry with name, value, and
        // filename if given.
        let entry = create_an_entry(name, EntryInput::Blob(blob_value.into()), filename);
        self.set_entry(entry);
    }

    /// Steps 3 and 4 of [`set()`](https://xhr.spec.whatwg.org/#dom-formdata-set).
    fn set_entry(&mut self, entry: (String, FormDataEntryValue)) {
        // Step 3. If there are entries in this's entry list whose name is name, then replace
        // the first such entry with entry and remove the others.
        match self
            .entry_list
            .iter()
            .position(|(name, _)| *name == entry.0)
        {
            Some(first) => {
                let mut index = 0_usize;
                self.entry_list.retain(|(name, _)| {
                    let keep = index <= first || *name != entry.0;
                    index += 1;
                    keep
                });
                if let Some(slot) = self.entry_list.get_mut(first) {
                    *slot = entry;
                }
            }
            // Step 4. Otherwise, append entry to this's entry list.
            None => self.entry_list.push(entry),
        }
    }

    /// The entries in order, as the [iterable
    /// declaration](https://xhr.spec.whatwg.org/#interface-formdata) (`entries()`) yields
    /// them.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("a", "1");
    /// form.append("b", "2");
    /// for (name, value) in form.iter() {
    ///     println!("{name} = {:?}", value.as_str());
    /// }
    /// assert_eq!(form.iter().len(), 2);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &FormDataEntryValue)> {
        self.entry_list
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// The entries' names in order, with repeats (`keys()`).
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("x", "1");
    /// form.append("x", "2");
    /// assert_eq!(form.keys().collect::<Vec<_>>(), ["x", "x"]);
    /// ```
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entry_list.iter().map(|(name, _)| name.as_str())
    }

    /// The entries' values in order (`values()`).
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("x", "1");
    /// form.append("y", "2");
    /// assert_eq!(form.values().filter_map(|value| value.as_str()).collect::<String>(), "12");
    /// ```
    pub fn values(&self) -> impl ExactSizeIterator<Item = &FormDataEntryValue> {
        self.entry_list.iter().map(|(_, value)| value)
    }

    /// The number of entries.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("x", "1");
    /// assert_eq!(form.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entry_list.len()
    }

    /// Whether there are no entries.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// assert!(FormData::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entry_list.is_empty()
    }

    /// This form as a `multipart/form-data` payload and the boundary it uses, by HTML's
    /// [`multipart/form-data` encoding
    /// algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
    /// with a freshly [generated boundary](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-boundary-generate).
    ///
    /// The `Content-Type` of the payload is `multipart/form-data; boundary=` followed by the
    /// boundary. Newlines in names and string values are normalized to CRLF; CR, LF and `"`
    /// in names and filenames are escaped as `%0D`, `%0A` and `%22`.
    ///
    /// This is synchronous, so it writes the bytes in memory only: a file from disk
    /// ([`File::from_path`]) and a [`StreamedFile`] are written with their headers and no
    /// content. To have them, make a body of the form
    /// ([`extract_body`](crate::body::extract_body), or send it), which reads them as it is
    /// read.
    ///
    /// ```
    /// use whatwg_fetch::form_data::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("greeting", "hi");
    /// let (payload, boundary) = form.to_multipart();
    /// let expected = format!(
    ///     "--{boundary}\r\nContent-Disposition: form-data; name=\"greeting\"\r\n\r\nhi\r\n--{boundary}--\r\n"
    /// );
    /// assert_eq!(payload, expected.as_bytes());
    /// assert_eq!(FormData::from_multipart(&payload, &boundary).unwrap(), form);
    /// ```
    pub fn to_multipart(&self) -> (Bytes, String) {
        let boundary = generate_boundary();
        (multipart_form_data_encode(self, &boundary), boundary)
    }

    /// This form as a `multipart/form-data` payload, as [`FormData::to_multipart`] makes it
    /// but with a boundary of the caller's choosing, for reproducible payloads.
    ///
    /// The payload is only well-formed if `boundary` is a valid boundary (1 to 70 of ASCII
    /// alphanumerics, `'`, `-` and `_`; browsers use at least 27) and `CR LF --` followed by
    /// it occurs nowhere in the entries. Prefer [`FormData::to_multipart`], whose random
    /// boundary makes a collision vanishingly unlikely.
    ///
    /// ```
    /// use whatwg_fetch::blob::{File, FilePropertyBag};
    /// use whatwg_fetch::form_data::FormData;
    ///
    /// let mut form = FormData::new();
    /// form.append("a", "1");
    /// form.append_blob("f", File::new(["x"], "x.txt", FilePropertyBag::default()), None);
    /// assert_eq!(
    ///     form.to_multipart_with_boundary("B"),
    ///     &b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n\
    ///        --B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\
    ///        Content-Type: application/octet-stream\r\n\r\nx\r\n\
    ///        --B--\r\n"[..]
    /// );
    /// ```
    pub fn to_multipart_with_boundary(&self, boundary: &str) -> Bytes {
        multipart_form_data_encode(self, boundary)
    }

    /// Parse a `multipart/form-data` payload whose boundary is `boundary` (the `boundary`
    /// parameter of its `Content-Type`), by the
    /// [`multipart/form-data` parser](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-parser),
    /// as `Body`'s [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata) does.
    ///
    /// A part with a `filename` becomes a [`File`] (typed by its `Content-Type`, or
    /// `text/plain` without one, last modified now); any other part becomes a string,
    /// UTF-8 decoded.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    ///
    /// let payload = b"--B\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nQ3\r\n\
    ///     --B\r\nContent-Disposition: form-data; name=\"report\"; filename=\"q3.csv\"\r\n\
    ///     Content-Type: text/csv\r\n\r\na,b\r\n--B--\r\n";
    /// let form = FormData::from_multipart(payload, "B")?;
    /// assert_eq!(form.get("title").and_then(|value| value.as_str()), Some("Q3"));
    /// let file = form.get("report").and_then(|value| value.as_file()).expect("a file part");
    /// assert_eq!((file.name(), file.r#type(), file.text().as_str()), ("q3.csv", "text/csv", "a,b"));
    /// // No closing boundary: not a form.
    /// assert!(FormData::from_multipart(b"--B\r\n", "B").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if the payload is not
    /// well-formed: a missing or wrong boundary, a part without a `Content-Disposition:
    /// form-data; name="…"` header, a malformed header line, or no closing boundary. A
    /// preamble before the first boundary and an epilogue after the closing one are
    /// ignored, as RFC 2046 §5.1.1 says.
    pub fn from_multipart(body: &[u8], boundary: &str) -> Result<FormData> {
        multipart_form_data_parse(body, boundary.as_bytes())
    }

    /// Parse an `application/x-www-form-urlencoded` payload with the [urlencoded
    /// parser](https://url.spec.whatwg.org/#concept-urlencoded-parser): every pair becomes a
    /// string entry.
    ///
    /// ```
    /// use whatwg_fetch::form_data::FormData;
    ///
    /// let form = FormData::from_urlencoded(b"a=1&b=x+y%21&a=%F0%9F%A6%80");
    /// let pairs: Vec<(&str, &str)> =
    ///     form.iter().map(|(name, value)| (name, value.as_str().unwrap())).collect();
    /// assert_eq!(pairs, [("a", "1"), ("b", "x y!"), ("a", "🦀")]);
    /// ```
    pub fn from_urlencoded(body: &[u8]) -> FormData {
        urlencoded_parse(body)
    }
}

impl IntoIterator for FormData {
    type Item = (String, FormDataEntryValue);
    type IntoIter = std::vec::IntoIter<(String, FormDataEntryValue)>;

    /// The entries in order, by value.
    fn into_iter(self) -> Self::IntoIter {
        self.entry_list.into_iter()
    }
}

impl<N: Into<String>, V: Into<FormDataEntryValue>> FromIterator<(N, V)> for FormData {
    /// A form holding the given entries in order, as they are (no entry is renamed).
    fn from_iter<I: IntoIterator<Item = (N, V)>>(entries: I) -> FormData {
        FormData {
            entry_list: entries
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }
}

/// [Create an entry](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#create-an-entry)
/// given `name`, `value` and optionally `filename`.
fn create_an_entry(
    name: &str,
    value: EntryInput<'_>,
    filename: Option<&str>,
) -> (String, FormDataEntryValue) {
    // Step 1. Set name to the result of converting name into a scalar value string.
    // (A Rust string is a scalar value string.)
    let name = name.to_owned();
    let value = match value {
        // Step 2. If value is a string, then set value to the result of converting value into
        // a scalar value string.
        EntryInput::String(value) => FormDataEntryValue::String(value.into_owned()),
        // Step 3. Otherwise:
        EntryInput::Blob(blob_value) => {
            // Step 3.1. If value is not a File object, then set value to a new File object,
            // representing the same bytes, whose name attribute value is "blob".
            let file = match blob_value {
                BlobValue::Blob(blob) => File::from_blob(blob, "blob", now_millis()),
                BlobValue::File(file) => file,
            };
            // Step 3.2. If filename is given, then set value to a new File object,
            // representing the same bytes, whose name attribute is filename.
            // (Its type and lastModified are those of the file it copies.)
            let file = match filename {
                Some(filename) => {
                    let last_modified = file.last_modified();
                    File::from_blob(file.into_blob(), filename, last_modified)
                }
                None => file,
            };
            FormDataEntryValue::File(file)
        }
    };
    // Step 4. Return an entry whose name is name and whose value is value.
    (name, value)
}

/// Generate a [`multipart/form-data`
/// boundary](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-boundary):
/// `----formdata-` and 24 random ASCII alphanumerics (about 143 bits of entropy; the proposal
/// asks for at least 95), 37 bytes in all, within the 27 to 70 the definition allows.
pub(crate) fn generate_boundary() -> String {
    let mut boundary = String::with_capacity(37);
    boundary.push_str("----formdata-");
    boundary.extend(std::iter::repeat_with(fastrand::alphanumeric).take(24));
    boundary
}

/// The payload of the [`multipart/form-data` encoding
/// algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
/// for `form`'s entry list with UTF-8 and `boundary`, as one buffer, with the bytes in
/// memory only: a file from disk and a [`StreamedFile`] have no content here (see
/// [`FormData::to_multipart`]); [`multipart_form_data_body`] has them.
///
/// File contents are copied once; to send them without copying, use
/// [`multipart_form_data_chunks`].
pub(crate) fn multipart_form_data_encode(form: &FormData, boundary: &str) -> Bytes {
    let chunks = multipart_form_data_chunks(form, boundary);
    let mut payload = BytesMut::new();
    for chunk in chunks {
        match chunk {
            Chunk::Bytes(bytes) => payload.put(bytes),
            Chunk::File(file) => payload.put_slice(file.as_bytes()),
            Chunk::Streamed(_) => {}
        }
    }
    payload.freeze()
}

/// A `multipart/form-data` payload as a body's source, or as a stream when it holds a
/// reader: what [`multipart_form_data_body`] returns.
pub(crate) enum MultipartBody {
    /// The payload, in memory or in part in files on disk: it can be read again.
    Bytes(BlobBytes),
    /// The payload of a form holding a [`StreamedFile`], read once; its length is known
    /// when every part's is.
    Stream {
        stream: ChunkStream,
        length: Option<u64>,
    },
}

/// The payload of the [`multipart/form-data` encoding
/// algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
/// for `form`'s entry list with UTF-8 and `boundary`, as a body reads it: the parts in
/// order, a file's bytes shared if in memory and read in chunks from disk as the body is
/// pulled, a [`StreamedFile`]'s from its reader, which the first read of the body takes.
///
/// The payload's length is known when every part's is, which resolves the spec's "Set
/// length to unclear" ([whatwg/html#6424](https://github.com/whatwg/html/issues/6424)) as
/// browsers do.
pub(crate) fn multipart_form_data_body(form: &FormData, boundary: &str) -> MultipartBody {
    let chunks = multipart_form_data_chunks(form, boundary);
    // The segments since the last reader, and the streams of the payload so far.
    let mut segments = Vec::with_capacity(chunks.len());
    let mut streams: VecDeque<ChunkStream> = VecDeque::new();
    let mut length = Some(0_u64);
    for chunk in chunks {
        match chunk {
            Chunk::Bytes(bytes) => segments.push(BlobBytes::Memory(bytes)),
            Chunk::File(file) => segments.push(file.blob_bytes().clone()),
            Chunk::Streamed(part) => {
                let before = joined(std::mem::take(&mut segments));
                length = length.and_then(|length| length.checked_add(before.len()));
                streams.push_back(before.stream());
                length = length
                    .zip(part.length())
                    .and_then(|(length, part)| length.checked_add(part));
                streams.push_back(part.chunks());
            }
        }
    }
    let rest = joined(segments);
    if streams.is_empty() {
        return MultipartBody::Bytes(rest);
    }
    length = length.and_then(|length| length.checked_add(rest.len()));
    streams.push_back(rest.stream());
    MultipartBody::Stream {
        stream: chain(streams),
        length,
    }
}

/// The byte sequences `parts` one after the other: one buffer if all are in memory.
fn joined(parts: Vec<BlobBytes>) -> BlobBytes {
    BlobBytes::from_segments(
        parts
            .into_iter()
            .flat_map(BlobBytes::into_segments)
            .collect(),
    )
}

/// One chunk of a `multipart/form-data` payload.
pub(crate) enum Chunk<'a> {
    /// Boundaries, headers and string values.
    Bytes(Bytes),
    /// A file's bytes, wherever they are.
    File(&'a File),
    /// A [`StreamedFile`]'s bytes, from its reader.
    Streamed(&'a StreamedFile),
}

/// The [`multipart/form-data` encoding
/// algorithm](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-encoding-algorithm)
/// given `form`'s entry list and UTF-8, with `boundary` as the [`multipart/form-data`
/// boundary string](https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#multipart/form-data-boundary-string),
/// as a list of chunks whose concatenation is the payload. A file's bytes are one chunk,
/// the file itself, not a copy of its bytes.
///
/// HTML defers the byte layout to RFC 7578; it follows the [`multipart/form-data` chunk
/// serializer](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-chunk-serializer),
/// which matches every major browser.
pub(crate) fn multipart_form_data_chunks<'a>(form: &'a FormData, boundary: &str) -> Vec<Chunk<'a>> {
    // HTML, step 1. Set encoding to the result of getting an output encoding from encoding.
    // (UTF-8, the only encoding here.)
    // Chunk serializer, step 3. Let output chunks be an empty list.
    let mut output_chunks = Vec::with_capacity(form.len() * 2 + 1);
    // Chunk serializer, step 4. For each entry in entries:
    for (name, value) in &form.entry_list {
        // Step 4.1. Let chunk be a byte sequence containing `--`, followed by boundary,
        // followed by 0x0D 0x0A (CR LF).
        let mut chunk = BytesMut::new();
        chunk.put_slice(b"--");
        chunk.put_slice(boundary.as_bytes());
        chunk.put_slice(b"\r\n");
        // Step 4.2. Append `Content-Disposition: form-data; name="`, followed by the result
        // of escaping a multipart/form-data name given entry's name and encoding, followed by
        // 0x22 ("), to chunk.
        chunk.put_slice(b"Content-Disposition: form-data; name=\"");
        chunk.put_slice(&escape_a_multipart_form_data_name(name, false));
        chunk.put_u8(b'"');
        // Step 4.3. Let value be entry's value.
        let (file_name, file_type, contents) = match value {
            // Step 4.4. If value is a string:
            FormDataEntryValue::String(value) => {
                // Step 4.4.1. Append 0x0D 0x0A 0x0D 0x0A (CR LF CR LF) to chunk.
                chunk.put_slice(b"\r\n\r\n");
                // Step 4.4.2. Replace every occurrence of U+000D (CR) not followed by U+000A
                // (LF), and every occurrence of U+000A (LF) not preceded by U+000D (CR), in
                // value, by a string consisting of U+000D (CR) and U+000A (LF).
                let value = normalize_newlines(value);
                // Step 4.4.3. Append the result of encoding value with encoding to chunk.
                chunk.put_slice(value.as_bytes());
                // Step 4.4.4. Append 0x0D 0x0A (CR LF) to chunk.
                chunk.put_slice(b"\r\n");
                // Step 4.4.5. Append chunk to output chunks.
                output_chunks.push(Chunk::Bytes(chunk.freeze()));
                continue;
            }
            // Step 4.5. Otherwise:
            // Step 4.5.1. Assert: value is a File.
            FormDataEntryValue::File(value) => (value.name(), value.r#type(), Chunk::File(value)),
            // Not in the spec: a part read from a reader is written as a File is.
            FormDataEntryValue::StreamedFile(value) => {
                (value.name(), value.r#type(), Chunk::Streamed(value))
            }
        };
        // Step 4.5.2. Append `; filename="`, followed by the result of escaping a
        // multipart/form-data name given value's name with encoding and isFilename set to
        // true, followed by 0x22 0x0D 0x0A (" CR LF), to chunk.
        chunk.put_slice(b"; filename=\"");
        chunk.put_slice(&escape_a_multipart_form_data_name(file_name, true));
        chunk.put_slice(b"\"\r\n");
        // Step 4.5.3. Let type be value's type, if it is not the empty string, or
        // "application/octet-stream" otherwise.
        let r#type = match file_type {
            "" => "application/octet-stream",
            r#type => r#type,
        };
        // Step 4.5.4. Append `Content-Type: `, followed by the result of isomorphic
        // encoding type, to chunk.
        chunk.put_slice(b"Content-Type: ");
        // (A `Blob`'s type has no code point above U+00FF: it is a serialized MIME type, or
        // ASCII.)
        chunk.put_slice(&isomorphic_encode(r#type));
        // Step 4.5.5. Append 0x0D 0x0A 0x0D 0x0A (CR LF CR LF) to chunk.
        chunk.put_slice(b"\r\n\r\n");
        // Step 4.5.6. Append chunk, followed by value, followed by the byte sequence 0x0D
        // 0x0A (CR LF), to output chunks.
        output_chunks.push(Chunk::Bytes(chunk.freeze()));
        output_chunks.push(contents);
        output_chunks.push(Chunk::Bytes(Bytes::from_static(b"\r\n")));
    }
    // Step 5. Append the byte sequence containing `--`, followed by boundary, followed by
    // `--`, followed by 0x0D 0x0A (CR LF), to output chunks.
    let mut last = BytesMut::with_capacity(boundary.len() + 6);
    last.put_slice(b"--");
    last.put_slice(boundary.as_bytes());
    last.put_slice(b"--\r\n");
    output_chunks.push(Chunk::Bytes(last.freeze()));
    // Step 6. Return the tuple boundary / output chunks.
    output_chunks
}

/// [Escape a `multipart/form-data`
/// name](https://andreubotella.github.io/multipart-form-data/#escape-a-multipart-form-data-name)
/// with UTF-8; HTML's encoding algorithm says the same in prose: newlines in field names are
/// normalized to CRLF, and "for field names and filenames for file fields, the result of the
/// encoding … must be escaped by replacing any 0x0A (LF) bytes with the byte sequence `%0A`,
/// 0x0D (CR) with `%0D` and 0x22 (") with `%22`. The user agent must not perform any other
/// escapes."
fn escape_a_multipart_form_data_name(name: &str, is_filename: bool) -> Vec<u8> {
    // Step 1. If isFilename is true: Set name to the result of converting name into a scalar
    // value string. (It already is.)
    // Step 2. Otherwise: … Replace every occurrence of U+000D (CR) not followed by U+000A
    // (LF), and every occurrence of U+000A (LF) not preceded by U+000D (CR), in name, by a
    // string consisting of U+000D (CR) and U+000A (LF).
    let name = if is_filename {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(normalize_newlines(name))
    };
    // Step 3. Let encoded be the result of encoding name with encoding.
    // Step 4. Replace every 0x0A (LF) bytes in encoded with the byte sequence `%0A`, 0x0D
    // (CR) with `%0D` and 0x22 (") with `%22`.
    let mut encoded = Vec::with_capacity(name.len());
    for &byte in name.as_bytes() {
        match byte {
            b'\n' => encoded.extend_from_slice(b"%0A"),
            b'\r' => encoded.extend_from_slice(b"%0D"),
            b'"' => encoded.extend_from_slice(b"%22"),
            byte => encoded.push(byte),
        }
    }
    // Step 5. Return encoded.
    encoded
}

/// "Replace every occurrence of U+000D (CR) not followed by U+000A (LF), and every
/// occurrence of U+000A (LF) not preceded by U+000D (CR), in value, by a string consisting of
/// U+000D (CR) and U+000A (LF)."
fn normalize_newlines(value: &str) -> String {
    let mut result = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                result.push_str("\r\n");
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\n' => result.push_str("\r\n"),
            c => result.push(c),
        }
    }
    result
}

/// The [`multipart/form-data`
/// parser](https://andreubotella.github.io/multipart-form-data/#multipart-form-data-parser),
/// given `input` and the `boundary` parameter of its MIME type (UTF-8 encoded), as
/// [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata) runs it.
///
/// # Errors
///
/// A `TypeError` where the parser returns failure ("If that fails for some reason, then
/// throw a TypeError").
pub(crate) fn multipart_form_data_parse(input: &[u8], boundary: &[u8]) -> Result<FormData> {
    // Step 1. Assert: mimeType's essence is "multipart/form-data".
    // Step 2. If mimeType's parameters["boundary"] does not exist, return failure. Otherwise,
    // let boundary be the result of UTF-8 decoding mimeType's parameters["boundary"].
    // (The caller looks up the parameter and hands over its bytes.)
    // Step 3. Let entry list be an empty entry list.
    let mut entry_list = FormData::new();
    // Step 4. Let position be a pointer to a byte in input, initially pointing at the first
    // byte.
    // DEVIATION: position starts at the first `--` boundary that begins input or follows a
    // CR LF, skipping a preamble, where the proposal's text requires input to start with
    // it. RFC 2046 §5.1.1: "implementations must ignore anything that appears before the
    // first boundary delimiter line or after the last one", and "it is sufficient that the
    // boundary appear in its entirety following the CRLF". Without one, position stays at
    // the first byte and step 5.1 fails.
    let mut position = first_boundary_delimiter_line(input, boundary).unwrap_or(0);
    // DEVIATION: the body loop below looks for CR LF `--` boundary, the delimiter RFC 2046
    // defines, where the proposal's text looks for the boundary alone and then removes 4 more
    // bytes; the two differ only when a part's content holds the boundary without a CR LF
    // `--` before it, which the proposal's text rejects and this keeps as content.
    let mut delimiter = Vec::with_capacity(boundary.len() + 4);
    delimiter.extend_from_slice(b"\r\n--");
    delimiter.extend_from_slice(boundary);
    // Step 5. While true:
    loop {
        // Step 5.1. If position points to a sequence of bytes starting with 0x2D 0x2D (`--`)
        // followed by boundary, advance position by 2 + the length of boundary. Otherwise,
        // return failure.
        let rest = input.get(position..).unwrap_or_default();
        match rest
            .strip_prefix(b"--")
            .and_then(|rest| rest.strip_prefix(boundary))
        {
            Some(_) => position += 2 + boundary.len(),
            None => return Err(failure("expected `--` and the boundary")),
        }
        // Step 5.2. If position points to the sequence of bytes 0x2D 0x2D 0x0D 0x0A (`--`
        // followed by CR LF) followed by the end of input, return entry list.
        // DEVIATION: `--` followed by anything returns entry list: what follows the close
        // delimiter is the epilogue, which RFC 2046 §5.1.1 says to ignore (see step 4), and
        // a payload without the final CR LF is accepted, as browsers and undici accept it.
        let rest = input.get(position..).unwrap_or_default();
        if rest.starts_with(b"--") {
            return Ok(entry_list);
        }
        // Step 5.3. If position does not point to a sequence of bytes starting with 0x0D 0x0A
        // (CR LF), return failure.
        if !rest.starts_with(b"\r\n") {
            return Err(failure("expected CR LF after the boundary"));
        }
        // Step 5.4. Advance position by 2. (This skips past the newline.)
        position += 2;
        // Step 5.5. Let name, filename and contentType be the result of parsing
        // multipart/form-data headers on input and position, if the result is not failure.
        // Otherwise, return failure.
        let (name, filename, content_type) =
            parse_multipart_form_data_headers(input, &mut position)?;
        // Step 5.6. Advance position by 2. (This skips past the empty line that marks the end
        // of the headers.)
        position += 2;
        // Step 5.7. Let body be the empty byte sequence.
        // Step 5.8. Body loop: While position is not past the end of input:
        // Step 5.8.1. Append the code point at position to body.
        // Step 5.8.2. If body ends with boundary:
        // Step 5.8.2.1. Remove the last 4 + (length of boundary) bytes from body.
        // Step 5.8.2.2. Decrease position by 4 + (length of boundary).
        // Step 5.8.2.3. Break out of body loop.
        // (The first delimiter at or after position ends the body; see the DEVIATION above.)
        let rest = input.get(position..).unwrap_or_default();
        let body = match find(rest, &delimiter) {
            Some(length) => {
                position += length;
                rest.get(..length).unwrap_or_default()
            }
            None => {
                position = input.len();
                rest
            }
        };
        // Step 5.9. If position does not point to a sequence of bytes starting with 0x0D 0x0A
        // (CR LF), return failure. Otherwise, advance position by 2.
        if !input
            .get(position..)
            .unwrap_or_default()
            .starts_with(b"\r\n")
        {
            return Err(failure("expected a closing boundary after the part's body"));
        }
        position += 2;
        let value = match filename {
            // Step 5.10. If filename is not null:
            Some(filename) => {
                // Step 5.10.1. If contentType is null, set contentType to "text/plain".
                let content_type = content_type.unwrap_or_else(|| "text/plain".to_owned());
                // Step 5.10.2. If contentType is not an ASCII string, set contentType to the
                // empty string.
                let content_type = if content_type.is_ascii() {
                    content_type
                } else {
                    String::new()
                };
                // Step 5.10.3. Let value be a new File object with name filename, type
                // contentType, and body body.
                let blob = Blob::with_raw_type(Bytes::copy_from_slice(body), content_type);
                EntryInput::Blob(BlobValue::File(File::from_blob(
                    blob,
                    filename,
                    now_millis(),
                )))
            }
            // Step 5.11. Otherwise:
            // Step 5.11.1. Let value be the UTF-8 decoding without BOM of body.
            None => EntryInput::String(utf8_decode_without_bom(body).into()),
        };
        // Step 5.12. Assert: name is a scalar value string and value is either a scalar value
        // string or a File object.
        // Step 5.13. Create an entry with name and value, and append it to entry list.
        let entry = create_an_entry(&name, value, None);
        entry_list.entry_list.push(entry);
    }
}

/// [Parse `multipart/form-data`
/// headers](https://andreubotella.github.io/multipart-form-data/#parse-multipart-form-data-headers)
/// on `input` at `position`: the part's name, filename and content type.
fn parse_multipart_form_data_headers(
    input: &[u8],
    position: &mut usize,
) -> Result<(String, Option<String>, Option<String>)> {
    // Step 1. Let name, filename and contentType be null.
    let mut name: Option<String> = None;
    let mut filename: Option<String> = None;
    let mut content_type: Option<String> = None;
    // Step 2. While true:
    loop {
        // Step 2.1. If position points to a sequence of bytes starting with 0x0D 0x0A (CR LF):
        if input
            .get(*position..)
            .unwrap_or_default()
            .starts_with(b"\r\n")
        {
            // Step 2.1.1. If name is null, return failure.
            // Step 2.1.2. Return name, filename and contentType.
            return match name {
                Some(name) => Ok((name, filename, content_type)),
                None => Err(failure("a part has no Content-Disposition name")),
            };
        }
        // Step 2.2. Let header name be the result of collecting a sequence of bytes that are
        // not 0x0A (LF), 0x0D (CR) or 0x3A (:), given position.
        let header_name = collect_a_sequence_of_bytes(input, position, |byte| {
            !matches!(byte, b'\n' | b'\r' | b':')
        });
        // Step 2.3. Remove any HTTP tab or space bytes from the start or end of header name.
        let header_name = trim_http_tab_or_space(header_name);
        // Step 2.4. If header name does not match the field-name token production, return
        // failure.
        if !is_token(header_name) {
            return Err(failure("a part header's name is not a token"));
        }
        // Step 2.5. If the byte at position is not 0x3A (:), return failure.
        if input.get(*position) != Some(&b':') {
            return Err(failure("a part header has no colon"));
        }
        // Step 2.6. Advance position by 1.
        *position += 1;
        // Step 2.7. Collect a sequence of bytes that are HTTP tab or space bytes given
        // position. (Do nothing with those bytes.)
        collect_a_sequence_of_bytes(input, position, is_http_tab_or_space_byte);
        // Step 2.8. Byte-lowercase header name and switch on the result:
        match header_name.to_ascii_lowercase().as_slice() {
            b"content-disposition" => {
                // 1. Set name and filename to null.
                // (name is set again below before it is read.)
                filename = None;
                // 2. If position does not point to a sequence of bytes starting with
                // `form-data; name="`, return failure.
                const FORM_DATA_NAME: &[u8] = b"form-data; name=\"";
                if !input
                    .get(*position..)
                    .unwrap_or_default()
                    .starts_with(FORM_DATA_NAME)
                {
                    return Err(failure(
                        "Content-Disposition is not `form-data; name=\"…\"`",
                    ));
                }
                // 3. Advance position so it points at the byte after the next 0x22 (") byte
                // (the one in the sequence of bytes matched above).
                *position += FORM_DATA_NAME.len();
                // 4. Set name to the result of parsing a multipart/form-data name given input
                // and position, if the result is not failure. Otherwise, return failure.
                name = Some(parse_a_multipart_form_data_name(input, position)?);
                // 5. If position points to a sequence of bytes starting with `; filename="`:
                const FILENAME: &[u8] = b"; filename=\"";
                if input
                    .get(*position..)
                    .unwrap_or_default()
                    .starts_with(FILENAME)
                {
                    // 5.1. Advance position so it points at the byte after the next 0x22 (")
                    // byte (the one in the sequence of bytes matched above).
                    *position += FILENAME.len();
                    // 5.2. Set filename to the result of parsing a multipart/form-data name
                    // given input and position, if the result is not failure. Otherwise,
                    // return failure.
                    filename = Some(parse_a_multipart_form_data_name(input, position)?);
                }
            }
            b"content-type" => {
                // 1. Let header value be the result of collecting a sequence of bytes that
                // are not 0x0A (LF) or 0x0D (CR), given position.
                let header_value = collect_a_sequence_of_bytes(input, position, |byte| {
                    !matches!(byte, b'\n' | b'\r')
                });
                // 2. Remove any HTTP tab or space bytes from the end of header value.
                let header_value = trim_trailing_bytes(header_value, is_http_tab_or_space_byte);
                // 3. Set contentType to the isomorphic decoding of header value.
                content_type = Some(isomorphic_decode(header_value).into_owned());
            }
            // Otherwise: Collect a sequence of bytes that are not 0x0A (LF) or 0x0D (CR),
            // given position. (Do nothing with those bytes.)
            _ => {
                collect_a_sequence_of_bytes(input, position, |byte| !matches!(byte, b'\n' | b'\r'));
            }
        }
        // Step 2.9. If position does not point to a sequence of bytes starting with 0x0D 0x0A
        // (CR LF), return failure. Otherwise, advance position by 2 (past the newline).
        if !input
            .get(*position..)
            .unwrap_or_default()
            .starts_with(b"\r\n")
        {
            return Err(failure("a part header line does not end in CR LF"));
        }
        *position += 2;
    }
}

/// [Parse a `multipart/form-data`
/// name](https://andreubotella.github.io/multipart-form-data/#parse-a-multipart-form-data-name)
/// from `input` at `position`, just after its opening quote.
fn parse_a_multipart_form_data_name(input: &[u8], position: &mut usize) -> Result<String> {
    // Step 1. Assert: The byte at (position - 1) is 0x22 (").
    debug_assert_eq!(
        position.checked_sub(1).and_then(|at| input.get(at)),
        Some(&b'"')
    );
    // Step 2. Let name be the result of collecting a sequence of bytes that are not 0x0A
    // (LF), 0x0D (CR) or 0x22 ("), given position.
    let name = collect_a_sequence_of_bytes(input, position, |byte| {
        !matches!(byte, b'\n' | b'\r' | b'"')
    });
    // Step 3. If the byte at position is not 0x22 ("), return failure. Otherwise, advance
    // position by 1.
    if input.get(*position) != Some(&b'"') {
        return Err(failure("a part's name or filename has no closing quote"));
    }
    *position += 1;
    // Step 4. Replace any occurrence of the following subsequences in name with the given
    // byte: `%0A` 0x0A (LF); `%0D` 0x0D (CR); `%22` 0x22 (").
    let mut unescaped = Vec::with_capacity(name.len());
    let mut rest = name;
    while let Some((&byte, tail)) = rest.split_first() {
        let replacement = match tail {
            [b'0', b'A', ..] if byte == b'%' => Some(b'\n'),
            [b'0', b'D', ..] if byte == b'%' => Some(b'\r'),
            [b'2', b'2', ..] if byte == b'%' => Some(b'"'),
            _ => None,
        };
        match (replacement, tail.get(2..)) {
            (Some(replacement), Some(after)) => {
                unescaped.push(replacement);
                rest = after;
            }
            _ => {
                unescaped.push(byte);
                rest = tail;
            }
        }
    }
    // Step 5. Return the UTF-8 decoding without BOM of name.
    Ok(utf8_decode_without_bom(&unescaped))
}

/// The offset of the first occurrence of `needle` in `haystack`, in time linear in both
/// whatever they hold (`memchr`'s two-way search).
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// Where the first boundary delimiter line of `input` starts: the first `--` followed by
/// `boundary` at the start of `input` or right after a CR LF (RFC 2046 §5.1.1: "The
/// boundary delimiter MUST occur at the beginning of a line"). Linear in `input`.
fn first_boundary_delimiter_line(input: &[u8], boundary: &[u8]) -> Option<usize> {
    let starts_with_dash_boundary = input
        .strip_prefix(b"--")
        .is_some_and(|rest| rest.starts_with(boundary));
    if starts_with_dash_boundary {
        return Some(0);
    }
    let mut delimiter = Vec::with_capacity(boundary.len() + 4);
    delimiter.extend_from_slice(b"\r\n--");
    delimiter.extend_from_slice(boundary);
    // The line starts after the CR LF.
    find(input, &delimiter).map(|crlf| crlf + 2)
}

/// The `TypeError` for a `multipart/form-data` payload the parser rejects.
fn failure(what: &'static str) -> Error {
    Error::type_error(format!("invalid multipart/form-data payload: {what}"))
}

/// The [`application/x-www-form-urlencoded`
/// parser](https://url.spec.whatwg.org/#concept-urlencoded-parser) run on `input`, as
/// [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata) does: "Let entries be
/// the result of parsing bytes. Return a new FormData object whose entry list is entries."
pub(crate) fn urlencoded_parse(input: &[u8]) -> FormData {
    url::form_urlencoded::parse(input)
        .map(|(name, value)| {
            (
                name.into_owned(),
                FormDataEntryValue::String(value.into_owned()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_boundaries_meet_the_definition() {
        let boundary = generate_boundary();
        assert!((27..=70).contains(&boundary.len()));
        assert!(
            boundary
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'\'' | b'-' | b'_'))
        );
        assert_ne!(boundary, generate_boundary());
    }

    #[test]
    fn names_are_normalized_then_escaped_but_filenames_only_escaped() {
        assert_eq!(
            escape_a_multipart_form_data_name("a\nb\rc\r\nd\"", false),
            b"a%0D%0Ab%0D%0Ac%0D%0Ad%22"
        );
        assert_eq!(
            escape_a_multipart_form_data_name("a\nb\rc\"", true),
            b"a%0Ab%0Dc%22"
        );
    }

    #[test]
    fn name_unescaping_is_case_sensitive_and_single_pass() {
        let parse = |raw: &[u8]| {
            let mut input = b"\"".to_vec();
            input.extend_from_slice(raw);
            input.push(b'"');
            let mut position = 1;
            parse_a_multipart_form_data_name(&input, &mut position)
                .map(|name| (name, position == input.len()))
                .unwrap()
        };
        assert_eq!(parse(b"%0A%0D%22"), ("\n\r\"".to_owned(), true));
        assert_eq!(parse(b"%0a%0d"), ("%0a%0d".to_owned(), true));
        assert_eq!(parse(b"%2522"), ("%2522".to_owned(), true));
        assert_eq!(parse(b"%%22%0"), ("%\"%0".to_owned(), true));
    }

    #[test]
    fn chunks_share_file_bytes_and_concatenate_to_the_payload() {
        let contents = Bytes::from(vec![1_u8; 4096]);
        let mut form = FormData::new();
        form.append("a", "1");
        form.append_blob("f", Blob::from_bytes(contents.clone(), ""), None);
        let chunks = multipart_form_data_chunks(&form, "B");
        assert!(chunks.iter().any(|chunk| match chunk {
            Chunk::File(file) => file.as_bytes().as_ptr() == contents.as_ptr(),
            _ => false,
        }));
        let MultipartBody::Bytes(BlobBytes::Memory(payload)) = multipart_form_data_body(&form, "B")
        else {
            panic!("a form in memory is a payload in memory");
        };
        assert_eq!(payload, multipart_form_data_encode(&form, "B"));
    }

    #[test]
    fn a_files_type_is_written_one_byte_per_code_point() {
        let mut form = FormData::new();
        let blob = Blob::from_bytes(&b"x"[..], "text/plain;x=\"\u{e9}\"");
        form.append_blob("f", blob, Some("f.txt"));
        let payload = multipart_form_data_encode(&form, "B");
        let expected: &[u8] = b"Content-Type: text/plain;x=\"\xe9\"\r\n";
        assert!(
            payload
                .windows(expected.len())
                .any(|window| window == expected)
        );
    }

    fn strings(form: &FormData) -> Vec<(&str, &str)> {
        form.iter()
            .map(|(name, value)| (name, value.as_str().unwrap_or("<file>")))
            .collect()
    }

    #[test]
    fn a_preamble_before_the_first_delimiter_is_ignored() {
        let part = b"Content-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n";
        for preamble in [
            &b"This is the preamble.\r\n"[..],
            b"\r\n",
            // Boundary text not at the start of a line is preamble too.
            b"x--B and --B inside lines\r\n\n--B\r--B\r\n",
            b"--\r\n-B\r\n",
        ] {
            let body = [preamble, b"--B\r\n", part].concat();
            assert_eq!(
                strings(&multipart_form_data_parse(&body, b"B").unwrap()),
                [("a", "1")],
                "{:?}",
                String::from_utf8_lossy(preamble)
            );
        }
        // A preamble and nothing else is an empty form, with or without an epilogue.
        let form = multipart_form_data_parse(b"preamble\r\n--B--", b"B").unwrap();
        assert!(form.is_empty());
        // A line that starts with the boundary is the first delimiter, whatever follows:
        // here a malformed one.
        assert!(multipart_form_data_parse(b"pre\r\n--Bx\r\n--B--\r\n", b"B").is_err());
    }

    #[test]
    fn an_epilogue_after_the_close_delimiter_is_ignored() {
        let head = b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--";
        for epilogue in [
            &b"\r\nThis is the epilogue.\r\n"[..],
            b"\r\n\r\n",
            b"  \t\r\nafter transport padding",
            // Delimiters in the epilogue are epilogue.
            b"\r\n--B\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n2\r\n--B--\r\n",
            b"junk without a line break",
        ] {
            let body = [&head[..], epilogue].concat();
            assert_eq!(
                strings(&multipart_form_data_parse(&body, b"B").unwrap()),
                [("a", "1")],
                "{:?}",
                String::from_utf8_lossy(epilogue)
            );
        }
        // A truncated close delimiter is still an error.
        let truncated = b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B-x";
        assert!(multipart_form_data_parse(truncated, b"B").is_err());
    }

    #[test]
    fn parsing_many_parts_and_long_header_lines_is_linear() {
        // 100,000 parts: each found by one search from where the last ended.
        let mut body = Vec::new();
        for i in 0..100_000 {
            body.extend_from_slice(b"--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n");
            body.extend_from_slice(i.to_string().as_bytes());
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"--B--\r\n");
        let form = multipart_form_data_parse(&body, b"B").unwrap();
        assert_eq!(form.len(), 100_000);
        assert_eq!(
            form.get_all("n").last().and_then(|v| v.as_str()),
            Some("99999")
        );
        // A 4 MB unknown header line and a 1 MB name are read once each.
        let mut body = b"--B\r\nX-Long: ".to_vec();
        body.extend(std::iter::repeat_n(b'x', 4 << 20));
        body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        body.extend(std::iter::repeat_n(b'%', 1 << 20));
        body.extend_from_slice(b"\"\r\n\r\nv\r\n--B--\r\n");
        let form = multipart_form_data_parse(&body, b"B").unwrap();
        assert_eq!(form.keys().next().map(str::len), Some(1 << 20));
        // A boundary whose delimiter nearly matches everywhere: the search stays linear.
        let boundary = vec![b'-'; 10_000];
        let mut body = [
            &b"--"[..],
            &boundary,
            b"\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n",
        ]
        .concat();
        for _ in 0..200 {
            body.extend_from_slice(b"\r\n");
            body.extend(std::iter::repeat_n(b'-', 9_999));
        }
        body.extend_from_slice(b"\r\n--");
        body.extend_from_slice(&boundary);
        body.extend_from_slice(b"--");
        let form = multipart_form_data_parse(&body, &boundary).unwrap();
        assert_eq!(form.len(), 1);
    }

    #[test]
    fn find_finds_the_first_occurrence() {
        assert_eq!(find(b"xx\r\n--b\r\n--b", b"\r\n--b"), Some(2));
        assert_eq!(find(b"\r\n-", b"\r\n--b"), None);
        assert_eq!(find(b"", b"a"), None);
    }

    #[test]
    fn set_replaces_the_first_and_removes_the_rest() {
        let mut form: FormData = [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("a", "5")]
            .into_iter()
            .collect();
        form.set("a", "x");
        let pairs: Vec<(&str, Option<&str>)> = form.iter().map(|(n, v)| (n, v.as_str())).collect();
        assert_eq!(
            pairs,
            [("a", Some("x")), ("b", Some("2")), ("c", Some("4"))]
        );
    }
}

//! [`Blob`] and [`File`], from the [File API](https://w3c.github.io/FileAPI/).
//!
//! A `Blob` is an immutable byte sequence with a MIME type string; a `File` is a `Blob` with
//! a name and a last-modified time. Bytes a blob is made from are held in a [`Bytes`], so
//! cloning and [slicing](Blob::slice) never copy.
//!
//! A blob's type is a [MIME type](crate::mime), parsed and serialized: `"Text/HTML;
//! Charset=UTF-8"` becomes `"text/html;charset=UTF-8"` and a string that is not a MIME type
//! becomes `""`. This follows the MIME Sniffing Standard's tests and the File API's own
//! pending correction ([w3c/FileAPI#43](https://github.com/w3c/FileAPI/issues/43)) rather
//! than the File API's older "lowercase any printable ASCII" text, so a type keeps its
//! parameter values' case and always round-trips through `Content-Type`.
//!
//! ## Files on disk
//!
//! [`File::from_path`] makes a `File` that refers to a file on disk, as a browser's file
//! picker does: its bytes stay on disk and are read, in chunks, only when the blob is (sent
//! as a body, [streamed](Blob::stream), [read](Blob::read_bytes)). Slicing it, or making a
//! blob of it and other parts, reads nothing. If the file changed since (its size or
//! modification time, the File API's [snapshot
//! state](https://w3c.github.io/FileAPI/#snapshot-state)), or is gone, the read fails with a
//! [`FileReadError`] saying which file and why; it never reads as other bytes.
//!
//! Reading is synchronous for a blob in memory: [`Blob::bytes`], [`Blob::as_bytes`] and
//! [`Blob::text`] return at once. A blob with bytes on disk cannot be read that way:
//! [`Blob::is_in_memory`] says which it is, and [`Blob::read_bytes`] and [`Blob::read_text`]
//! read either kind. A stream over a blob is a [`Body`](crate::body) concern.
//!
//! ```
//! use whatwg_fetch::{Blob, BlobPropertyBag};
//!
//! let blob = Blob::new(["hello, ", "world"], BlobPropertyBag { r#type: Some("text/plain".into()), ..Default::default() });
//! assert_eq!((blob.size(), blob.r#type()), (12, "text/plain"));
//! assert_eq!(blob.slice(Some(7), None, None).text(), "world");
//! ```

mod storage;

use std::ops::Deref;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use crate::error::Result;
use crate::mime::MimeType;

pub(crate) use storage::{BlobBytes, CHUNK_SIZE, ChunkStream, chain};
use storage::{DiskFile, Segment};
pub use storage::{FailureReason, FileReadError};

/// A [`Blob`](https://w3c.github.io/FileAPI/#blob-section): immutable bytes and a type.
///
/// Clones share the bytes.
///
/// ```
/// use whatwg_fetch::blob::{Blob, BlobPropertyBag};
///
/// let blob = Blob::new(
///     ["hello, ", "world"],
///     BlobPropertyBag { r#type: Some("Text/Plain".into()), ..Default::default() },
/// );
/// assert_eq!(blob.size(), 12);
/// assert_eq!(blob.r#type(), "text/plain");
/// assert_eq!(blob.slice(Some(-5), None, None).text(), "world");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Blob {
    /// The blob's byte sequence: in memory, or in part on disk.
    bytes: BlobBytes,
    /// <https://w3c.github.io/FileAPI/#dfn-type>, initially the empty string.
    r#type: String,
}

/// One item of the [`BlobPart`](https://w3c.github.io/FileAPI/#typedefdef-blobpart) sequence
/// given to [`Blob::new`] and [`File::new`]: `(BufferSource or Blob or USVString)`.
///
/// ```
/// use whatwg_fetch::blob::BlobPart;
/// use whatwg_fetch::{Blob, BlobPropertyBag};
///
/// let parts = [BlobPart::from("text, "), BlobPart::from(&b"bytes, "[..]), BlobPart::from(Blob::from_bytes(&b"a blob"[..], ""))];
/// assert_eq!(Blob::new(parts, BlobPropertyBag::default()).text(), "text, bytes, a blob");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlobPart {
    /// A `BufferSource`: bytes copied as they are.
    Bytes(Bytes),
    /// A `USVString`: UTF-8 encoded, with line endings converted if
    /// [`Endings::Native`] is asked for.
    Text(String),
    /// A `Blob` (or a `File`): its bytes; its type is ignored.
    Blob(Blob),
}

impl From<&str> for BlobPart {
    fn from(text: &str) -> BlobPart {
        BlobPart::Text(text.to_owned())
    }
}

impl From<String> for BlobPart {
    fn from(text: String) -> BlobPart {
        BlobPart::Text(text)
    }
}

impl From<&String> for BlobPart {
    fn from(text: &String) -> BlobPart {
        BlobPart::Text(text.clone())
    }
}

impl From<Vec<u8>> for BlobPart {
    fn from(bytes: Vec<u8>) -> BlobPart {
        BlobPart::Bytes(Bytes::from(bytes))
    }
}

impl From<&[u8]> for BlobPart {
    fn from(bytes: &[u8]) -> BlobPart {
        BlobPart::Bytes(Bytes::copy_from_slice(bytes))
    }
}

impl<const N: usize> From<&[u8; N]> for BlobPart {
    fn from(bytes: &[u8; N]) -> BlobPart {
        BlobPart::Bytes(Bytes::copy_from_slice(bytes))
    }
}

impl From<Bytes> for BlobPart {
    fn from(bytes: Bytes) -> BlobPart {
        BlobPart::Bytes(bytes)
    }
}

impl From<Blob> for BlobPart {
    fn from(blob: Blob) -> BlobPart {
        BlobPart::Blob(blob)
    }
}

impl From<&Blob> for BlobPart {
    fn from(blob: &Blob) -> BlobPart {
        BlobPart::Blob(blob.clone())
    }
}

impl From<File> for BlobPart {
    fn from(file: File) -> BlobPart {
        BlobPart::Blob(file.blob)
    }
}

impl From<&File> for BlobPart {
    fn from(file: &File) -> BlobPart {
        BlobPart::Blob(file.blob.clone())
    }
}

/// The [`EndingType`](https://w3c.github.io/FileAPI/#enumdef-endingtype) enum: what
/// [`Blob::new`] does with line endings in text parts.
///
/// ```
/// use whatwg_fetch::blob::Endings;
/// use whatwg_fetch::{Blob, BlobPropertyBag};
///
/// // `native`: line ends written as the platform writes them (`\n` on Unix).
/// let blob = Blob::new(["a\r\nb"], BlobPropertyBag { endings: Endings::Native, ..Default::default() });
/// assert_eq!(blob.text(), if cfg!(windows) { "a\r\nb" } else { "a\nb" });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Endings {
    /// `"transparent"`: text parts are encoded unchanged. The default.
    #[default]
    Transparent,
    /// `"native"`: CR, LF and CRLF in text parts become the platform's line ending (CRLF on
    /// Windows, LF elsewhere), as [convert line endings to
    /// native](https://w3c.github.io/FileAPI/#convert-line-endings-to-native) says.
    Native,
}

/// The [`BlobPropertyBag`](https://w3c.github.io/FileAPI/#dfn-BlobPropertyBag) dictionary:
/// options for [`Blob::new`].
///
/// ```
/// use whatwg_fetch::{Blob, BlobPropertyBag};
///
/// let blob = Blob::new(["a,b\n"], BlobPropertyBag { r#type: Some("text/csv".into()), ..Default::default() });
/// assert_eq!(blob.r#type(), "text/csv");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlobPropertyBag {
    /// The blob's type. Default is `None`, the same as the empty string. The type is
    /// parsed as a MIME type and serialized (`"Text/HTML; Charset=UTF-8"` becomes
    /// `"text/html;charset=UTF-8"`); one that is not a valid MIME type becomes the empty
    /// string. See the [module documentation](self) for why.
    pub r#type: Option<String>,
    /// What to do with line endings in text parts. Default is [`Endings::Transparent`].
    pub endings: Endings,
}

/// The [`FilePropertyBag`](https://w3c.github.io/FileAPI/#dfn-FilePropertyBag) dictionary:
/// options for [`File::new`].
///
/// ```
/// use whatwg_fetch::{File, FilePropertyBag};
///
/// let options = FilePropertyBag { r#type: Some("text/csv".into()), last_modified: Some(0), ..Default::default() };
/// let file = File::new(["a,b\n"], "data.csv", options);
/// assert_eq!((file.r#type(), file.last_modified()), ("text/csv", 0));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilePropertyBag {
    /// The file's type, as [`BlobPropertyBag::type`](BlobPropertyBag#structfield.type).
    /// Default is `None`, the same as the empty string.
    pub r#type: Option<String>,
    /// What to do with line endings in text parts. Default is [`Endings::Transparent`].
    pub endings: Endings,
    /// The file's last-modified time in milliseconds since the Unix epoch. Default is
    /// `None`: the current time.
    pub last_modified: Option<i64>,
}

impl Blob {
    /// The [`Blob(blobParts, options)`](https://w3c.github.io/FileAPI/#constructorBlob)
    /// constructor: the bytes of `parts` in order, typed as `options` says.
    ///
    /// ```
    /// use whatwg_fetch::blob::{Blob, BlobPart, BlobPropertyBag};
    ///
    /// let first = Blob::new(["ab"], BlobPropertyBag::default());
    /// let blob = Blob::new(
    ///     [BlobPart::from(&first), BlobPart::from(&b"\x00\xff"[..]), BlobPart::from("c")],
    ///     BlobPropertyBag::default(),
    /// );
    /// assert_eq!(&blob.bytes()[..], b"ab\x00\xffc");
    /// assert_eq!(blob.r#type(), "");
    /// ```
    pub fn new(
        parts: impl IntoIterator<Item = impl Into<BlobPart>>,
        options: BlobPropertyBag,
    ) -> Blob {
        // Step 1. If invoked with zero parameters, return a new Blob object consisting of 0
        // bytes, with size set to 0, and with type set to the empty string.
        // (Falls out of the steps below.)
        // Step 2. Let bytes be the result of processing blob parts given blobParts and
        // options.
        let bytes = process_blob_parts(parts.into_iter().map(Into::into), options.endings);
        // Step 3. If the type member of the options argument is not the empty string, run the
        // following sub-steps: … (as amended by w3c/FileAPI#43, see `normalize_type`).
        let t = normalize_type(options.r#type.as_deref().unwrap_or(""));
        // Step 4. Return a Blob object referring to bytes as its associated byte sequence,
        // with its size set to the length of bytes, and its type set to the value of t from
        // the substeps above.
        Blob { bytes, r#type: t }
    }

    /// A blob holding `bytes`, with `type` normalized as the
    /// [constructor](https://w3c.github.io/FileAPI/#constructorBlob) does (parsed as a MIME
    /// type and serialized; the empty string if it does not parse).
    ///
    /// ```
    /// use whatwg_fetch::blob::Blob;
    ///
    /// let blob = Blob::from_bytes(&b"{}"[..], "Application/JSON");
    /// assert_eq!(blob.r#type(), "application/json");
    /// assert_eq!(blob.size(), 2);
    /// ```
    pub fn from_bytes(bytes: impl Into<Bytes>, r#type: &str) -> Blob {
        Blob {
            bytes: BlobBytes::Memory(bytes.into()),
            r#type: normalize_type(r#type),
        }
    }

    /// A blob holding `bytes` whose type is `type` exactly as given, for the places where a
    /// spec sets the type attribute directly (`Body`'s `blob()` sets it to the serialized
    /// MIME type; the multipart/form-data parser to a part's `Content-Type`).
    pub(crate) fn with_raw_type(bytes: Bytes, r#type: String) -> Blob {
        Blob {
            bytes: BlobBytes::Memory(bytes),
            r#type,
        }
    }

    /// An untyped blob of `bytes`, wherever they are (in memory, in part in files on disk):
    /// a `multipart/form-data` payload that can be read again.
    pub(crate) fn from_blob_bytes(bytes: BlobBytes) -> Blob {
        Blob {
            bytes,
            r#type: String::new(),
        }
    }

    /// The blob's byte sequence, wherever it is.
    pub(crate) fn blob_bytes(&self) -> &BlobBytes {
        &self.bytes
    }

    /// The [`size`](https://w3c.github.io/FileAPI/#dfn-size) attribute: the number of bytes,
    /// known without reading them (for a file on disk, its size when the `File` was made).
    ///
    /// ```
    /// use whatwg_fetch::Blob;
    ///
    /// assert_eq!(Blob::from_bytes("héllo".as_bytes(), "").size(), 6);
    /// ```
    pub fn size(&self) -> u64 {
        self.bytes.len()
    }

    /// Whether all the blob's bytes are in memory, so that [`Blob::bytes`],
    /// [`Blob::as_bytes`] and [`Blob::text`] give them; `false` for a blob with bytes in a
    /// file on disk (made from [`File::from_path`]), which [`Blob::read_bytes`] reads.
    ///
    /// ```
    /// use whatwg_fetch::blob::Blob;
    ///
    /// assert!(Blob::from_bytes(&b"abc"[..], "").is_in_memory());
    /// ```
    pub fn is_in_memory(&self) -> bool {
        self.bytes.in_memory().is_some()
    }

    /// The [`type`](https://w3c.github.io/FileAPI/#dfn-type) attribute: the blob's MIME type
    /// as given, or the empty string.
    ///
    /// ```
    /// use whatwg_fetch::{Blob, BlobPropertyBag};
    ///
    /// // Lowercased by the constructor; a type that is not ASCII printable becomes empty.
    /// let blob = Blob::new(["{}"], BlobPropertyBag { r#type: Some("Application/JSON".into()), ..Default::default() });
    /// assert_eq!(blob.r#type(), "application/json");
    /// ```
    pub fn r#type(&self) -> &str {
        &self.r#type
    }

    /// The blob's [`type`](https://w3c.github.io/FileAPI/#dfn-type); the same as
    /// [`r#type`](Self::type) without the raw identifier.
    ///
    /// ```
    /// use whatwg_fetch::Blob;
    ///
    /// assert_eq!(Blob::from_bytes(&b"<p>"[..], "text/html").content_type(), "text/html");
    /// ```
    pub fn content_type(&self) -> &str {
        &self.r#type
    }

    /// The [`slice(start, end, contentType)`](https://w3c.github.io/FileAPI/#dfn-slice)
    /// method: the bytes from `start` up to, not including, `end`, as a new blob of type
    /// `content_type`.
    ///
    /// Negative indices count from the end; indices are clamped to the blob; a reversed
    /// range gives an empty blob. Without `content_type` the slice's type is the empty
    /// string, not this blob's type. No bytes are copied, and none of a file on disk is
    /// read: the slice refers to a range of it.
    ///
    /// ```
    /// use whatwg_fetch::blob::Blob;
    ///
    /// let blob = Blob::from_bytes(&b"0123456789"[..], "text/plain");
    /// assert_eq!(blob.slice(Some(2), Some(-2), None).text(), "234567");
    /// assert_eq!(blob.slice(Some(-3), None, Some("A/B")).r#type(), "a/b");
    /// assert_eq!(blob.slice(Some(8), Some(2), None).size(), 0);
    /// assert_eq!(blob.slice(None, None, None).r#type(), "");
    /// ```
    pub fn slice(&self, start: Option<i64>, end: Option<i64>, content_type: Option<&str>) -> Blob {
        // Step 1. Let sliceStart, sliceEnd, and sliceContentType be null.
        // Step 2. If start is given, set sliceStart to start.
        // Step 3. If end is given, set sliceEnd to end.
        // Step 4. If contentType is given, set sliceContentType to contentType.
        // Step 5. Return the result of slice blob given this, sliceStart, sliceEnd, and
        // sliceContentType.
        slice_blob(self, start, end, content_type)
    }

    /// The blob's bytes, as the [`bytes()`](https://w3c.github.io/FileAPI/#bytes-method-algo)
    /// method resolves to. Shares the blob's buffer.
    ///
    /// Synchronous, so for a blob in memory only: a blob with bytes on disk
    /// ([`is_in_memory`](Self::is_in_memory) is `false`) gives the empty sequence here, its
    /// bytes are read with [`read_bytes`](Self::read_bytes).
    ///
    /// ```
    /// use whatwg_fetch::Blob;
    ///
    /// let blob = Blob::from_bytes(&b"\x00\x01"[..], "application/octet-stream");
    /// assert_eq!(&blob.bytes()[..], b"\x00\x01");
    /// ```
    pub fn bytes(&self) -> Bytes {
        self.bytes.in_memory().cloned().unwrap_or_default()
    }

    /// The blob's bytes, borrowed. As [`bytes`](Self::bytes), for a blob in memory only: one
    /// with bytes on disk gives the empty slice.
    ///
    /// ```
    /// use whatwg_fetch::Blob;
    ///
    /// let blob = Blob::from_bytes(&b"abc"[..], "");
    /// assert_eq!(blob.as_bytes(), b"abc");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.in_memory().map_or(&[], |bytes| &bytes[..])
    }

    /// The blob's bytes, as the [`bytes()`](https://w3c.github.io/FileAPI/#bytes-method-algo)
    /// method resolves to, wherever they are: shared for a blob in memory, read from disk,
    /// a chunk at a time into one buffer, for a blob with bytes in a file.
    ///
    /// # Errors
    /// For a blob from disk, a `NotFoundError` if the file is gone and a `NotReadableError`
    /// if it changed since the `File` was made or cannot be read, as the File API's
    /// [errors](https://w3c.github.io/FileAPI/#dfn-error-codes) say; the source is a
    /// [`FileReadError`] naming the file; a `RangeError` if its size does not fit in
    /// memory. A blob in memory never fails.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::blob::File;
    ///
    /// let path = std::env::temp_dir().join(format!("read-{}.txt", std::process::id()));
    /// std::fs::write(&path, "on disk").unwrap();
    /// let file = File::from_path(&path).await?;
    /// assert!(!file.is_in_memory());
    /// assert_eq!(file.read_bytes().await?, "on disk");
    /// assert_eq!(file.slice(Some(3), None, None).read_text().await?, "disk");
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn read_bytes(&self) -> Result<Bytes> {
        self.bytes.read_all().await
    }

    /// The [`text()`](https://w3c.github.io/FileAPI/#text-method-algo) method for a blob
    /// wherever its bytes are: [`read_bytes`](Self::read_bytes), then UTF-8 decoded as
    /// [`text`](Self::text) does.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::File;
    ///
    /// let path = std::env::temp_dir().join(format!("read-text-{}.txt", std::process::id()));
    /// std::fs::write(&path, "notes on disk")?;
    /// let file = File::from_path(&path).await?;
    /// assert_eq!(file.read_text().await?, "notes on disk");
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`read_bytes`](Self::read_bytes).
    pub async fn read_text(&self) -> Result<String> {
        Ok(utf8_decode(&self.read_bytes().await?))
    }

    /// The [`text()`](https://w3c.github.io/FileAPI/#text-method-algo) method: the bytes,
    /// [UTF-8 decoded](https://encoding.spec.whatwg.org/#utf-8-decode): a leading byte order
    /// mark is dropped and invalid sequences become U+FFFD.
    ///
    /// ```
    /// use whatwg_fetch::blob::Blob;
    ///
    /// let blob = Blob::from_bytes(&b"\xEF\xBB\xBFcaf\xC3\xA9 \xFF"[..], "");
    /// assert_eq!(blob.text(), "café \u{FFFD}");
    /// ```
    ///
    /// As [`bytes`](Self::bytes), for a blob in memory only: one with bytes on disk gives
    /// the empty string, [`read_text`](Self::read_text) reads it.
    pub fn text(&self) -> String {
        utf8_decode(self.as_bytes())
    }
}

impl From<File> for Blob {
    fn from(file: File) -> Blob {
        file.blob
    }
}

impl From<&File> for Blob {
    fn from(file: &File) -> Blob {
        file.blob.clone()
    }
}

/// A [`File`](https://w3c.github.io/FileAPI/#file-section): a [`Blob`] with a name and a
/// last-modified time.
///
/// Dereferences to its [`Blob`], so `size()`, `type()`, `slice()` and `text()` work on it.
///
/// ```
/// use whatwg_fetch::blob::{File, FilePropertyBag};
///
/// let file = File::new(
///     ["a,b\n1,2\n"],
///     "data.csv",
///     FilePropertyBag {
///         r#type: Some("text/csv".into()),
///         last_modified: Some(1_700_000_000_000),
///         ..Default::default()
///     },
/// );
/// assert_eq!(file.name(), "data.csv");
/// assert_eq!(file.last_modified(), 1_700_000_000_000);
/// assert_eq!(file.r#type(), "text/csv");
/// assert_eq!(file.size(), 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// The file's bytes and type.
    blob: Blob,
    /// <https://w3c.github.io/FileAPI/#dfn-name>.
    name: String,
    /// <https://w3c.github.io/FileAPI/#dfn-lastModified>, in milliseconds since the Unix
    /// epoch.
    last_modified: i64,
}

impl File {
    /// The [`File(fileBits, fileName, options)`](https://w3c.github.io/FileAPI/#file-constructor)
    /// constructor.
    ///
    /// ```
    /// use whatwg_fetch::{File, FilePropertyBag};
    ///
    /// let file = File::new(
    ///     ["name,qty\n", "lamp,2\n"],
    ///     "order.csv",
    ///     FilePropertyBag { r#type: Some("text/csv".into()), last_modified: Some(0), ..Default::default() },
    /// );
    /// assert_eq!((file.name(), file.r#type(), file.size()), ("order.csv", "text/csv", 16));
    /// ```
    pub fn new(
        parts: impl IntoIterator<Item = impl Into<BlobPart>>,
        name: impl Into<String>,
        options: FilePropertyBag,
    ) -> File {
        // Step 1. Let bytes be the result of processing blob parts given fileBits and
        // options.
        let bytes = process_blob_parts(parts.into_iter().map(Into::into), options.endings);
        // Step 2. Let n be the fileName argument to the constructor.
        let n = name.into();
        // Step 3. Process FilePropertyBag dictionary argument by running the following
        // substeps:
        // Step 3.1. If the type member is provided and is not the empty string, let t be set
        // to the type dictionary member. If t contains any characters outside the range
        // U+0020 to U+007E, then set t to the empty string and return from these substeps.
        // Step 3.2. Convert every character in t to ASCII lowercase.
        // (Both as amended by w3c/FileAPI#43: parse and serialize, see `normalize_type`.)
        let t = normalize_type(options.r#type.as_deref().unwrap_or(""));
        // Step 3.3. If the lastModified member is provided, let d be set to the lastModified
        // dictionary member. If it is not provided, set d to the current date and time
        // represented as the number of milliseconds since the Unix Epoch.
        let d = options.last_modified.unwrap_or_else(now_millis);
        // Step 4. Return a new File object F such that: F refers to the bytes byte sequence;
        // F.size is set to the number of total bytes in bytes; F.name is set to n; F.type is
        // set to t; F.lastModified is set to d.
        File {
            blob: Blob { bytes, r#type: t },
            name: n,
            last_modified: d,
        }
    }

    /// A file that refers to the file on disk at `path`, as a browser's file picker makes
    /// one: its bytes stay on disk and are read in chunks when the file is (sent in a body,
    /// [streamed](Blob::stream), [read](Blob::read_bytes)); only the file's metadata is read
    /// here.
    ///
    /// - [`name`](File::name) is the last component of `path`.
    /// - [`type`](Blob::type) is guessed from the name's extension (`photo.png` is
    ///   `image/png`), or the empty string when the extension is unknown, which a
    ///   `multipart/form-data` body sends as `application/octet-stream`.
    ///   [`with_type`](File::with_type) sets another.
    /// - [`lastModified`](File::last_modified) is the file's modification time.
    /// - [`size`](Blob::size) is the file's size now. With the modification time it is the
    ///   File API's [snapshot state](https://w3c.github.io/FileAPI/#snapshot-state): a read
    ///   of a file that no longer has both fails rather than give other bytes.
    ///
    /// This and the reads of the file's bytes use `tokio::fs`, so they run within a Tokio
    /// runtime, as the client does.
    ///
    /// # Errors
    /// A `NotFoundError` if there is no file at `path`, a `NotReadableError` if its
    /// metadata cannot be read or it is not a regular file (a directory, a pipe, a device:
    /// send a reader with [`StreamedFile`](crate::form_data::StreamedFile) instead); the
    /// source is a [`FileReadError`] naming the path.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::blob::File;
    ///
    /// let dir = std::env::temp_dir().join(format!("from-path-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("chart.png");
    /// std::fs::write(&path, b"\x89PNG\r\n\x1a\n").unwrap();
    ///
    /// let file = File::from_path(&path).await?;
    /// assert_eq!(file.name(), "chart.png");
    /// assert_eq!(file.r#type(), "image/png");
    /// assert_eq!(file.size(), 8);
    /// assert_eq!(&file.read_bytes().await?[1..4], b"PNG");
    ///
    /// let error = File::from_path(dir.join("missing.png")).await.unwrap_err();
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::NotFoundError);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn from_path(path: impl AsRef<Path>) -> Result<File> {
        let path = path.as_ref();
        let metadata = tokio::fs::metadata(path)
            .await
            .map_err(|error| FileReadError::io(path, error).into_error())?;
        if !metadata.is_file() {
            return Err(FileReadError::not_a_file(path).into_error());
        }
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let r#type = guess_type(&name);
        let last_modified = metadata
            .modified()
            .ok()
            .map_or_else(now_millis, millis_since_epoch);
        let bytes = DiskFile::new(path.to_owned(), &metadata).into_bytes();
        Ok(File {
            blob: Blob { bytes, r#type },
            name,
            last_modified,
        })
    }

    /// This file with its type set to `type`, normalized as the
    /// [constructor](https://w3c.github.io/FileAPI/#file-constructor) does (parsed as a MIME
    /// type and serialized; the empty string if it does not parse); its bytes, name and
    /// last-modified time are kept. What reqwest's `Part::mime_str` does.
    ///
    /// ```
    /// use whatwg_fetch::blob::{File, FilePropertyBag};
    ///
    /// let file = File::new(["{}"], "data.bin", FilePropertyBag::default());
    /// assert_eq!(file.with_type("Application/JSON").r#type(), "application/json");
    /// ```
    pub fn with_type(self, r#type: &str) -> File {
        File {
            blob: Blob {
                bytes: self.blob.bytes,
                r#type: normalize_type(r#type),
            },
            ..self
        }
    }

    /// A file with `blob`'s bytes and type, named `name`, last modified at `last_modified`
    /// (milliseconds since the Unix epoch). Nothing is copied or normalized.
    ///
    /// ```
    /// use whatwg_fetch::blob::{Blob, File};
    ///
    /// let file = File::from_blob(Blob::from_bytes(&b"x"[..], "text/plain"), "x.txt", 0);
    /// assert_eq!((file.name(), file.r#type(), file.last_modified()), ("x.txt", "text/plain", 0));
    /// ```
    pub fn from_blob(blob: Blob, name: impl Into<String>, last_modified: i64) -> File {
        File {
            blob,
            name: name.into(),
            last_modified,
        }
    }

    /// The [`name`](https://w3c.github.io/FileAPI/#dfn-name) attribute.
    ///
    /// ```
    /// use whatwg_fetch::{File, FilePropertyBag};
    ///
    /// assert_eq!(File::new(["x"], "report.pdf", FilePropertyBag::default()).name(), "report.pdf");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The [`lastModified`](https://w3c.github.io/FileAPI/#dfn-lastModified) attribute, in
    /// milliseconds since the Unix epoch.
    ///
    /// ```
    /// use whatwg_fetch::{File, FilePropertyBag};
    ///
    /// let options = FilePropertyBag { last_modified: Some(1_700_000_000_000), ..Default::default() };
    /// assert_eq!(File::new(["x"], "x.txt", options).last_modified(), 1_700_000_000_000);
    /// ```
    pub fn last_modified(&self) -> i64 {
        self.last_modified
    }

    /// The file as a [`Blob`] (its bytes and type).
    ///
    /// ```
    /// use whatwg_fetch::{File, FilePropertyBag};
    ///
    /// let file = File::new(["abc"], "x.txt", FilePropertyBag::default());
    /// assert_eq!(file.as_blob().size(), 3);
    /// ```
    pub fn as_blob(&self) -> &Blob {
        &self.blob
    }

    /// The file's [`Blob`], dropping the name and last-modified time.
    ///
    /// ```
    /// use whatwg_fetch::{File, FilePropertyBag};
    ///
    /// let blob = File::new(["abc"], "x.txt", FilePropertyBag::default()).into_blob();
    /// assert_eq!(blob.text(), "abc");
    /// ```
    pub fn into_blob(self) -> Blob {
        self.blob
    }
}

impl Deref for File {
    type Target = Blob;

    fn deref(&self) -> &Blob {
        &self.blob
    }
}

impl AsRef<Blob> for File {
    fn as_ref(&self) -> &Blob {
        &self.blob
    }
}

/// [Process blob parts](https://w3c.github.io/FileAPI/#process-blob-parts) given `parts`
/// and the `endings` member of the options.
///
/// Not in the spec: the bytes are kept as the parts give them, and joined into one buffer
/// only when all are in memory (a single one is shared, not copied); a part with bytes on
/// disk stays a reference to them, read when the blob is.
fn process_blob_parts(parts: impl Iterator<Item = BlobPart>, endings: Endings) -> BlobBytes {
    // Step 1. Let bytes be an empty sequence of bytes.
    let mut bytes: Vec<Segment> = Vec::new();
    // Step 2. For each element in parts:
    for element in parts {
        match element {
            // Step 2.1. If element is a USVString, run the following substeps:
            BlobPart::Text(element) => {
                // Step 2.1.1. Let s be element.
                // Step 2.1.2. If the endings member of options is "native", set s to the
                // result of converting line endings to native of element.
                let s = match endings {
                    Endings::Native => convert_line_endings_to_native(&element),
                    Endings::Transparent => element,
                };
                // Step 2.1.3. Append the result of UTF-8 encoding s to bytes.
                bytes.push(Segment::Memory(Bytes::from(s.into_bytes())));
            }
            // Step 2.2. If element is a BufferSource, get a copy of the bytes held by the
            // buffer source, and append those bytes to bytes.
            BlobPart::Bytes(element) => bytes.push(Segment::Memory(element)),
            // Step 2.3. If element is a Blob, append the bytes it represents to bytes.
            BlobPart::Blob(element) => bytes.extend(element.bytes.into_segments()),
        }
    }
    // Step 3. Return bytes.
    BlobBytes::from_segments(bytes)
}

/// [Convert line endings to native](https://w3c.github.io/FileAPI/#convert-line-endings-to-native)
/// in `s`: CR, LF and CRLF all become the platform's line ending.
///
/// ```
/// # use whatwg_fetch::blob::convert_line_endings_to_native;
/// let native = if cfg!(windows) { "\r\n" } else { "\n" };
/// assert_eq!(convert_line_endings_to_native("a\rb\r\nc\n"), format!("a{native}b{native}c{native}"));
/// ```
pub fn convert_line_endings_to_native(s: &str) -> String {
    // Step 1. Let native line ending be the code point U+000A LF.
    // Step 2. If the underlying platform's conventions are to represent newlines as a
    // carriage return and line feed sequence, set native line ending to the code point
    // U+000D CR followed by the code point U+000A LF.
    let native_line_ending = if cfg!(windows) { "\r\n" } else { "\n" };
    // Step 3. Set result to the empty string.
    let mut result = String::with_capacity(s.len());
    // Step 4. Let position be a position variable for s, initially pointing at the start of
    // s.
    let mut position = s;
    // Step 5. Let token be the result of collecting a sequence of code points that are not
    // equal to U+000A LF or U+000D CR from s given position.
    // Step 6. Append token to result.
    let end = position.find(['\r', '\n']).unwrap_or(position.len());
    let (token, rest) = position.split_at(end);
    result.push_str(token);
    position = rest;
    // Step 7. While position is not past the end of s:
    while !position.is_empty() {
        // Step 7.1. If the code point at position within s equals U+000D CR:
        if let Some(rest) = position.strip_prefix('\r') {
            // Step 7.1.1. Append native line ending to result.
            result.push_str(native_line_ending);
            // Step 7.1.2. Advance position by 1.
            // Step 7.1.3. If position is not past the end of s and the code point at position
            // within s equals U+000A LF advance position by 1.
            position = rest.strip_prefix('\n').unwrap_or(rest);
        }
        // Step 7.2. Otherwise if the code point at position within s equals U+000A LF,
        // advance position by 1 and append native line ending to result.
        else if let Some(rest) = position.strip_prefix('\n') {
            position = rest;
            result.push_str(native_line_ending);
        }
        // Step 7.3. Let token be the result of collecting a sequence of code points that are
        // not equal to U+000A LF or U+000D CR from s given position.
        // Step 7.4. Append token to result.
        let end = position.find(['\r', '\n']).unwrap_or(position.len());
        let (token, rest) = position.split_at(end);
        result.push_str(token);
        position = rest;
    }
    // Step 8. Return result.
    result
}

/// [Slice blob](https://w3c.github.io/FileAPI/#slice-blob) given `blob`, `start`, `end` and
/// `content_type`.
pub(crate) fn slice_blob(
    blob: &Blob,
    start: Option<i64>,
    end: Option<i64>,
    content_type: Option<&str>,
) -> Blob {
    // i128 holds every sum below without overflow.
    // Step 1. Let originalSize be blob's size.
    let original_size = i128::from(blob.size());
    // Step 2. … User agents must normalize start according to the following:
    let relative_start = match start.map(i128::from) {
        // a. If start is null, let relativeStart be 0.
        None => 0,
        // b. If start is negative, let relativeStart be max((originalSize + start), 0).
        Some(start) if start < 0 => (original_size + start).max(0),
        // c. Otherwise, let relativeStart be min(start, originalSize).
        Some(start) => start.min(original_size),
    };
    // Step 3. … User agents must normalize end according to the following:
    let relative_end = match end.map(i128::from) {
        // a. If end is null, let relativeEnd be originalSize.
        None => original_size,
        // b. If end is negative, let relativeEnd be max((originalSize + end), 0).
        Some(end) if end < 0 => (original_size + end).max(0),
        // c. Otherwise, let relativeEnd be min(end, originalSize).
        Some(end) => end.min(original_size),
    };
    // Step 4. … User agents must normalize contentType according to the following:
    // a. If contentType is null, let relativeContentType be set to the empty string.
    // b. Otherwise, let relativeContentType be set to contentType and run the substeps
    // below: 1. If relativeContentType contains any characters outside the range of U+0020
    // to U+007E, then set relativeContentType to the empty string and return from these
    // substeps. 2. Convert every character in relativeContentType to ASCII lowercase.
    // (As amended by w3c/FileAPI#43: parse and serialize, see `normalize_type`.)
    let relative_content_type = normalize_type(content_type.unwrap_or(""));
    // Step 5. Let span be max((relativeEnd - relativeStart), 0).
    let span = (relative_end - relative_start).max(0);
    // Step 6. Return a new Blob object S with the following characteristics: S refers to
    // span consecutive bytes from blob's associated byte sequence, beginning with the byte at
    // byte-order position relativeStart; S.size = span; S.type = relativeContentType.
    // Both bounds lie in 0..=originalSize, so they fit in u64.
    let from = u64::try_from(relative_start).unwrap_or(0);
    let to = u64::try_from(relative_start + span).unwrap_or(0);
    Blob {
        bytes: blob.bytes.slice(from, to),
        r#type: relative_content_type,
    }
}

/// The type normalization shared by the `Blob` and `File` constructors and slice blob.
///
/// The File API text still says "if t contains any characters outside the range U+0020 to
/// U+007E, then set t to the empty string … convert every character in t to ASCII
/// lowercase". Its editors agree that this is out of date
/// ([w3c/FileAPI#43](https://github.com/w3c/FileAPI/issues/43)): a blob's type is meant to
/// be a MIME type, stored parsed and exposed serialized, so that parameter values keep their
/// case and `Content-Type` values built from a blob round-trip. The MIME Sniffing
/// Standard's tests (`mimesniff/mime-types/parsing.any.js`) check exactly that, so this
/// [parses](MimeType::parse) `t` and [serializes](MimeType::serialize) the result; a type
/// that is not a valid MIME type becomes the empty string.
pub(crate) fn normalize_type(t: &str) -> String {
    // Step 1 (as amended). If t is the empty string, it stays so.
    if t.is_empty() {
        return String::new();
    }
    // Step 2 (as amended). Let mimeType be the result of parsing t. If it is failure, t is
    // the empty string; otherwise t is mimeType, serialized.
    MimeType::parse(t).map_or_else(String::new, |mime_type| mime_type.serialize())
}

/// [UTF-8 decode](https://encoding.spec.whatwg.org/#utf-8-decode): drop a leading byte order
/// mark, then decode with replacement.
///
/// `String::from_utf8_lossy` replaces each maximal subpart of an ill-formed sequence with one
/// U+FFFD, which is the Encoding Standard's rule.
pub(crate) fn utf8_decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    utf8_decode_without_bom(bytes)
}

/// [UTF-8 decode without BOM](https://encoding.spec.whatwg.org/#utf-8-decode-without-bom):
/// decode with replacement, keeping a leading byte order mark as U+FEFF.
pub(crate) fn utf8_decode_without_bom(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The current time in milliseconds since the Unix epoch, what `Date.now()` returns.
pub(crate) fn now_millis() -> i64 {
    millis_since_epoch(SystemTime::now())
}

/// `time` in milliseconds since the Unix epoch, negative before it.
fn millis_since_epoch(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_millis()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

/// The type of a file named `name`, guessed from its extension by `mime_guess` (the File
/// API's [file type guidelines](https://w3c.github.io/FileAPI/#file-type-guidelines) leave
/// how to the user agent), normalized as a blob's type is; the empty string when the
/// extension is unknown.
pub(crate) fn guess_type(name: &str) -> String {
    mime_guess::from_path(name)
        .first()
        .map_or_else(String::new, |mime| normalize_type(mime.essence_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_part_is_shared_not_copied() {
        let source = Bytes::from_static(b"shared");
        let blob = Blob::new([source.clone()], BlobPropertyBag::default());
        assert_eq!(blob.as_bytes().as_ptr(), source.as_ptr());
    }

    #[test]
    fn many_parts_concatenate_in_order() {
        let blob = Blob::new(
            [
                BlobPart::from("a"),
                BlobPart::from(vec![0_u8, 1]),
                BlobPart::from(Blob::from_bytes(&b"z"[..], "x/y")),
            ],
            BlobPropertyBag::default(),
        );
        assert_eq!(blob.as_bytes(), b"a\x00\x01z");
    }

    #[test]
    fn now_is_after_2020() {
        assert!(now_millis() > 1_577_836_800_000);
    }

    #[test]
    fn utf8_decode_keeps_bom_only_without_bom() {
        assert_eq!(utf8_decode(b"\xEF\xBB\xBFa"), "a");
        assert_eq!(utf8_decode_without_bom(b"\xEF\xBB\xBFa"), "\u{FEFF}a");
        // Only one BOM is dropped.
        assert_eq!(utf8_decode(b"\xEF\xBB\xBF\xEF\xBB\xBFa"), "\u{FEFF}a");
    }
}

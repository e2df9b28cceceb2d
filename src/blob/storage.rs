//! Where a [`Blob`](super::Blob)'s bytes are kept: in memory, or in part as ranges of files on
//! disk that are read only when the blob is, in chunks.
//!
//! The File API says a [`File`](super::File) from disk is "a reference to a byte sequence
//! originating from a file on disk" whose [snapshot
//! state](https://w3c.github.io/FileAPI/#snapshot-state) is "the state of the file on disk at
//! the time the File object is created"; a read of a blob whose snapshot state "does not match
//! the state of the underlying storage" fails with the
//! [SnapshotState](https://w3c.github.io/FileAPI/#SnapshotStateFR) failure reason. Here the
//! snapshot state is the file's size and modification time: each range is checked against
//! them when it is opened and again after its last byte is read, and a file that ends before
//! its size fails too, so a changed file never reads as a shorter or longer blob.
//!
//! A range is read [`CHUNK_SIZE`] bytes at a time, as the reader pulls: however large the
//! file, at most one chunk of it is in memory for a read.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::SystemTime;

use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use tokio::io::{AsyncReadExt, AsyncSeekExt};

use crate::error::{Error, ErrorKind};

/// The bytes read from disk at a time: one chunk of a file range is in memory per read.
pub(crate) const CHUNK_SIZE: usize = 64 * 1024;

/// A stream of a blob's chunks.
pub(crate) type ChunkStream = Pin<Box<dyn Stream<Item = Result<Bytes, Error>> + Send + 'static>>;

/// The byte sequence a blob refers to: in memory, or a list of segments of which at least
/// one is a range of a file on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BlobBytes {
    /// All the bytes, in memory.
    Memory(Bytes),
    /// The bytes of these segments in order, `size` in all; at least one is on disk.
    Segments(Arc<Segments>),
}

/// The segments of a [`BlobBytes::Segments`] and their total size.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Segments {
    list: Vec<Segment>,
    size: u64,
}

/// One segment of a byte sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// Bytes in memory.
    Memory(Bytes),
    /// A range of a file on disk.
    File(FileRange),
}

/// `len` bytes of `file` from `offset` on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileRange {
    file: Arc<DiskFile>,
    offset: u64,
    len: u64,
}

/// A file on disk and its [snapshot state](https://w3c.github.io/FileAPI/#snapshot-state):
/// its size and modification time when the `File` was made.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DiskFile {
    path: PathBuf,
    size: u64,
    /// `None` where the platform does not say.
    modified: Option<SystemTime>,
}

impl Default for BlobBytes {
    fn default() -> BlobBytes {
        BlobBytes::Memory(Bytes::new())
    }
}

impl Segment {
    fn len(&self) -> u64 {
        match self {
            Segment::Memory(bytes) => bytes.len() as u64,
            Segment::File(range) => range.len,
        }
    }

    /// The bytes from `from` up to `to` of this segment (both within it).
    fn slice(&self, from: u64, to: u64) -> Segment {
        match self {
            // Both bounds are at most the length of the bytes, so they fit in usize.
            Segment::Memory(bytes) => {
                let from = usize::try_from(from).unwrap_or(bytes.len());
                let to = usize::try_from(to).unwrap_or(bytes.len());
                match bytes.get(from..to) {
                    Some(_) => Segment::Memory(bytes.slice(from..to)),
                    None => Segment::Memory(Bytes::new()),
                }
            }
            Segment::File(range) => Segment::File(FileRange {
                file: range.file.clone(),
                offset: range.offset.saturating_add(from),
                len: to.saturating_sub(from),
            }),
        }
    }
}

impl DiskFile {
    /// The file at `path` as its metadata describes it now: its snapshot state.
    pub(crate) fn new(path: PathBuf, metadata: &std::fs::Metadata) -> DiskFile {
        DiskFile {
            path,
            size: metadata.len(),
            modified: metadata.modified().ok(),
        }
    }

    /// The whole file, as a byte sequence.
    pub(crate) fn into_bytes(self) -> BlobBytes {
        let len = self.size;
        BlobBytes::from_segments(vec![Segment::File(FileRange {
            file: Arc::new(self),
            offset: 0,
            len,
        })])
    }

    /// Whether `metadata` still describes the file of the snapshot state; if not, the
    /// error that says how it changed.
    fn check(&self, metadata: &std::fs::Metadata) -> Result<(), FileReadError> {
        let size = metadata.len();
        if size != self.size {
            return Err(FileReadError::changed(
                &self.path,
                format!("{size} bytes long, not {}", self.size),
            ));
        }
        if metadata.modified().ok() != self.modified {
            return Err(FileReadError::changed(
                &self.path,
                "modified since".to_owned(),
            ));
        }
        Ok(())
    }
}

impl BlobBytes {
    /// The number of bytes.
    pub(crate) fn len(&self) -> u64 {
        match self {
            BlobBytes::Memory(bytes) => bytes.len() as u64,
            BlobBytes::Segments(segments) => segments.size,
        }
    }

    /// The bytes when they are all in memory.
    pub(crate) fn in_memory(&self) -> Option<&Bytes> {
        match self {
            BlobBytes::Memory(bytes) => Some(bytes),
            BlobBytes::Segments(_) => None,
        }
    }

    /// The byte sequence of `segments` in order: in memory (one buffer, shared when there
    /// is one segment, else copied once) when none is on disk.
    pub(crate) fn from_segments(segments: Vec<Segment>) -> BlobBytes {
        let mut list: Vec<Segment> = Vec::with_capacity(segments.len());
        let mut size = 0_u64;
        for segment in segments {
            if segment.len() == 0 {
                continue;
            }
            size = size.saturating_add(segment.len());
            list.push(segment);
        }
        if list
            .iter()
            .any(|segment| matches!(segment, Segment::File(_)))
        {
            return BlobBytes::Segments(Arc::new(Segments { list, size }));
        }
        let mut memory = list.into_iter().filter_map(|segment| match segment {
            Segment::Memory(bytes) => Some(bytes),
            Segment::File(_) => None,
        });
        match (memory.next(), memory.next()) {
            (None, _) => BlobBytes::Memory(Bytes::new()),
            (Some(only), None) => BlobBytes::Memory(only),
            (Some(first), Some(second)) => {
                let mut joined = BytesMut::with_capacity(usize::try_from(size).unwrap_or(0));
                joined.extend_from_slice(&first);
                joined.extend_from_slice(&second);
                for bytes in memory {
                    joined.extend_from_slice(&bytes);
                }
                BlobBytes::Memory(joined.freeze())
            }
        }
    }

    /// The segments of this byte sequence, to build a longer one of.
    pub(crate) fn into_segments(self) -> Vec<Segment> {
        match self {
            BlobBytes::Memory(bytes) => vec![Segment::Memory(bytes)],
            BlobBytes::Segments(segments) => segments.list.clone(),
        }
    }

    /// The bytes from `from` up to, not including, `to` (`from <= to <= len`), sharing
    /// what they can: no byte is copied or read.
    pub(crate) fn slice(&self, from: u64, to: u64) -> BlobBytes {
        match self {
            BlobBytes::Memory(bytes) => {
                let from = usize::try_from(from).unwrap_or(bytes.len());
                let to = usize::try_from(to).unwrap_or(bytes.len());
                match bytes.get(from..to) {
                    Some(_) => BlobBytes::Memory(bytes.slice(from..to)),
                    None => BlobBytes::Memory(Bytes::new()),
                }
            }
            BlobBytes::Segments(segments) => {
                let mut sliced = Vec::new();
                let mut start = 0_u64;
                for segment in &segments.list {
                    let end = start.saturating_add(segment.len());
                    let (lo, hi) = (from.max(start), to.min(end));
                    if lo < hi {
                        sliced.push(segment.slice(lo - start, hi - start));
                    }
                    start = end;
                }
                BlobBytes::from_segments(sliced)
            }
        }
    }

    /// A stream of the bytes, read as it is polled: memory segments as they are, file
    /// ranges [`CHUNK_SIZE`] bytes at a time, each checked against its file's snapshot
    /// state. An error ends the stream.
    pub(crate) fn stream(self) -> ChunkStream {
        match self {
            BlobBytes::Memory(bytes) => Box::pin(futures_util::stream::iter(
                (!bytes.is_empty()).then_some(Ok(bytes)),
            )),
            BlobBytes::Segments(segments) => chain(
                segments
                    .list
                    .iter()
                    .map(|segment| match segment {
                        Segment::Memory(bytes) => {
                            let bytes = bytes.clone();
                            Box::pin(futures_util::stream::iter([Ok(bytes)])) as ChunkStream
                        }
                        Segment::File(range) => read_range(range.clone()),
                    })
                    .collect(),
            ),
        }
    }

    /// All the bytes, read into one buffer.
    ///
    /// # Errors
    /// A `NotFoundError` or `NotReadableError` whose source is the [`FileReadError`], as
    /// the File API's [read errors](https://w3c.github.io/FileAPI/#dfn-error-codes) say; a
    /// `RangeError` if the bytes do not fit in memory.
    pub(crate) async fn read_all(&self) -> Result<Bytes, Error> {
        if let BlobBytes::Memory(bytes) = self {
            return Ok(bytes.clone());
        }
        let too_large = || {
            Error::range_error(format!(
                "a blob of {} bytes does not fit in memory",
                self.len()
            ))
        };
        let mut all = Vec::new();
        let len = usize::try_from(self.len()).map_err(|_| too_large())?;
        all.try_reserve_exact(len).map_err(|_| too_large())?;
        // In a `SyncWrapper`, polled through `&mut` only: the stream is `Send` and not
        // `Sync`, and the future of `Blob::read_bytes` that holds it is both.
        let mut stream = sync_wrapper::SyncWrapper::new(self.clone().stream());
        while let Some(chunk) =
            std::future::poll_fn(|cx| stream.get_mut().as_mut().poll_next(cx)).await
        {
            all.extend_from_slice(&chunk?);
        }
        Ok(Bytes::from(all))
    }
}

/// The chunks of `streams`, one stream after the other, ending at the first error.
pub(crate) fn chain(streams: VecDeque<ChunkStream>) -> ChunkStream {
    Box::pin(Chain { streams })
}

/// The stream [`chain`] returns.
struct Chain {
    /// The streams not yet at their end, the one being read first; emptied by an error.
    streams: VecDeque<ChunkStream>,
}

impl Stream for Chain {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let Some(current) = self.streams.front_mut() else {
                return Poll::Ready(None);
            };
            match ready!(current.as_mut().poll_next(cx)) {
                Some(Ok(chunk)) => return Poll::Ready(Some(Ok(chunk))),
                Some(Err(error)) => {
                    self.streams.clear();
                    return Poll::Ready(Some(Err(error)));
                }
                None => {
                    self.streams.pop_front();
                }
            }
        }
    }
}

/// The state of reading one file range.
struct RangeRead {
    range: FileRange,
    /// Open once the first chunk is asked for.
    file: Option<tokio::fs::File>,
    /// Bytes of the range still to read.
    remaining: u64,
    /// Set once the range was read or failed.
    done: bool,
}

/// The bytes of `range`, [`CHUNK_SIZE`] at a time: the file is opened when the first chunk
/// is polled, its metadata checked against the snapshot state then and after the last byte.
fn read_range(range: FileRange) -> ChunkStream {
    let state = RangeRead {
        remaining: range.len,
        range,
        file: None,
        done: false,
    };
    Box::pin(futures_util::stream::unfold(
        state,
        |mut state| async move {
            if state.done {
                return None;
            }
            match state.next_chunk().await {
                Ok(Some(chunk)) => Some((Ok(chunk), state)),
                Ok(None) => None,
                Err(error) => {
                    state.done = true;
                    state.file = None;
                    Some((Err(error.into_error()), state))
                }
            }
        },
    ))
}

impl RangeRead {
    /// The next chunk, or `None` after the last one.
    async fn next_chunk(&mut self) -> Result<Option<Bytes>, FileReadError> {
        let disk = self.range.file.clone();
        if self.file.is_none() {
            let mut file = tokio::fs::File::open(&disk.path)
                .await
                .map_err(|error| FileReadError::io(&disk.path, error))?;
            let metadata = file
                .metadata()
                .await
                .map_err(|error| FileReadError::io(&disk.path, error))?;
            disk.check(&metadata)?;
            file.seek(io::SeekFrom::Start(self.range.offset))
                .await
                .map_err(|error| FileReadError::io(&disk.path, error))?;
            self.file = Some(file);
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(None);
        };
        if self.remaining == 0 {
            // The last byte was read: the file must still be the one of the snapshot
            // state, else what was sent mixes two versions of it.
            let metadata = file
                .metadata()
                .await
                .map_err(|error| FileReadError::io(&disk.path, error))?;
            self.done = true;
            self.file = None;
            disk.check(&metadata)?;
            return Ok(None);
        }
        let want = usize::try_from(self.remaining)
            .unwrap_or(CHUNK_SIZE)
            .min(CHUNK_SIZE);
        let mut chunk = BytesMut::with_capacity(want);
        while chunk.len() < want {
            let read = (&mut *file)
                .take((want - chunk.len()) as u64)
                .read_buf(&mut chunk)
                .await
                .map_err(|error| FileReadError::io(&disk.path, error))?;
            if read == 0 {
                let read_before = self.range.len.saturating_sub(self.remaining);
                let at = self
                    .range
                    .offset
                    .saturating_add(read_before)
                    .saturating_add(chunk.len() as u64);
                return Err(FileReadError::changed(
                    &disk.path,
                    format!("it ended after {at} of its {} bytes", disk.size),
                ));
            }
        }
        self.remaining -= chunk.len() as u64;
        Ok(Some(chunk.freeze()))
    }
}

/// Why a file's bytes could not be read: one of the File API's [failure
/// reasons](https://w3c.github.io/FileAPI/#failureReason), or a reader that did not give the
/// bytes it was said to.
///
/// ```
/// use whatwg_fetch::blob::FailureReason;
///
/// // The File API's failure reasons, and the one a `StreamedFile` of the wrong length adds.
/// assert_ne!(FailureReason::NotFound, FailureReason::SnapshotState);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureReason {
    /// [NotFound](https://w3c.github.io/FileAPI/#NotFoundFR): the file is not there any more
    /// (moved or deleted since the `File` was made).
    NotFound,
    /// [SnapshotState](https://w3c.github.io/FileAPI/#SnapshotStateFR): the file changed
    /// since the `File` was made: its size or modification time differ, or it ended before
    /// its size.
    SnapshotState,
    /// [FileLock](https://w3c.github.io/FileAPI/#FileLockFR): the file, or a part's reader,
    /// could not be read (a permission or an I/O error, its source).
    FileLock,
    /// Not in the spec: the reader of a
    /// [`StreamedFile`](crate::form_data::StreamedFile) gave fewer or more bytes than the
    /// length it was made with.
    Length,
}

/// A file whose bytes could not be read: which file, and why.
///
/// The source of the `NotFoundError` or `NotReadableError` a read of a blob from disk
/// fails with ([`Blob::read_bytes`](super::Blob::read_bytes)), and in the source chain of
/// the error of a fetch whose request body could not be read.
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::ErrorKind;
/// use whatwg_fetch::blob::{FailureReason, File, FileReadError};
///
/// let path = std::env::temp_dir().join(format!("gone-{}.txt", std::process::id()));
/// std::fs::write(&path, "soon gone").unwrap();
/// let file = File::from_path(&path).await?;
/// std::fs::remove_file(&path).unwrap();
///
/// let error = file.read_bytes().await.unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::NotFoundError);
/// let cause = std::error::Error::source(&error)
///     .and_then(|cause| cause.downcast_ref::<FileReadError>())
///     .unwrap();
/// assert_eq!(cause.reason(), FailureReason::NotFound);
/// assert_eq!(cause.path(), Some(path.as_path()));
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct FileReadError {
    file: Subject,
    reason: FailureReason,
    detail: String,
    source: Option<io::Error>,
}

/// What a [`FileReadError`] failed to read.
#[derive(Debug)]
enum Subject {
    /// A file on disk.
    Path(PathBuf),
    /// The reader of a form's file part, by its file name.
    Reader(String),
}

impl FileReadError {
    /// The error of an I/O operation on the file at `path`.
    pub(crate) fn io(path: &Path, error: io::Error) -> FileReadError {
        let reason = match error.kind() {
            io::ErrorKind::NotFound => FailureReason::NotFound,
            _ => FailureReason::FileLock,
        };
        FileReadError {
            file: Subject::Path(path.to_owned()),
            reason,
            detail: String::new(),
            source: Some(error),
        }
    }

    /// The error of a file at `path` that is no longer what its snapshot state says:
    /// `detail` says how.
    pub(crate) fn changed(path: &Path, detail: String) -> FileReadError {
        FileReadError {
            file: Subject::Path(path.to_owned()),
            reason: FailureReason::SnapshotState,
            detail,
            source: None,
        }
    }

    /// The error of a path that is not a regular file, which has no size to snapshot.
    pub(crate) fn not_a_file(path: &Path) -> FileReadError {
        FileReadError {
            file: Subject::Path(path.to_owned()),
            reason: FailureReason::FileLock,
            detail: "it is not a regular file (a directory, a pipe or a device; a reader can \
                     be sent with StreamedFile)"
                .to_owned(),
            source: None,
        }
    }

    /// The error of the reader of the form part whose file name is `name`.
    pub(crate) fn reader(name: &str, error: io::Error) -> FileReadError {
        FileReadError {
            file: Subject::Reader(name.to_owned()),
            reason: FailureReason::FileLock,
            detail: String::new(),
            source: Some(error),
        }
    }

    /// The error of the reader of the part named `name` that gave other than `expected`
    /// bytes: `detail` says how many.
    pub(crate) fn length(name: &str, detail: String) -> FileReadError {
        FileReadError {
            file: Subject::Reader(name.to_owned()),
            reason: FailureReason::Length,
            detail,
            source: None,
        }
    }

    /// Why the bytes could not be read.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::File;
    /// use whatwg_fetch::blob::{FailureReason, FileReadError};
    ///
    /// let path = std::env::temp_dir().join(format!("report-{}.csv", std::process::id()));
    /// std::fs::write(&path, "a,b\n")?;
    /// let file = File::from_path(&path).await?;
    /// // The file goes before it is read.
    /// std::fs::remove_file(&path)?;
    /// let error = file.read_bytes().await.unwrap_err();
    /// let failed = std::error::Error::source(&error)
    ///     .and_then(|source| source.downcast_ref::<FileReadError>())
    ///     .expect("a read of a file");
    /// assert_eq!(failed.reason(), FailureReason::NotFound);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn reason(&self) -> FailureReason {
        self.reason
    }

    /// The path of the file on disk, or `None` for the reader of a
    /// [`StreamedFile`](crate::form_data::StreamedFile).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::File;
    /// use whatwg_fetch::blob::{FailureReason, FileReadError};
    ///
    /// let path = std::env::temp_dir().join(format!("report-{}.csv", std::process::id()));
    /// std::fs::write(&path, "a,b\n")?;
    /// let file = File::from_path(&path).await?;
    /// // The file goes before it is read.
    /// std::fs::remove_file(&path)?;
    /// let error = file.read_bytes().await.unwrap_err();
    /// let failed = std::error::Error::source(&error)
    ///     .and_then(|source| source.downcast_ref::<FileReadError>())
    ///     .expect("a read of a file");
    /// assert_eq!(failed.path(), Some(path.as_path()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn path(&self) -> Option<&Path> {
        match &self.file {
            Subject::Path(path) => Some(path),
            Subject::Reader(_) => None,
        }
    }

    /// The file's name: the last component of its path, or the name of a
    /// [`StreamedFile`](crate::form_data::StreamedFile).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::File;
    /// use whatwg_fetch::blob::{FailureReason, FileReadError};
    ///
    /// let path = std::env::temp_dir().join(format!("report-{}.csv", std::process::id()));
    /// std::fs::write(&path, "a,b\n")?;
    /// let file = File::from_path(&path).await?;
    /// // The file goes before it is read.
    /// std::fs::remove_file(&path)?;
    /// let error = file.read_bytes().await.unwrap_err();
    /// let failed = std::error::Error::source(&error)
    ///     .and_then(|source| source.downcast_ref::<FileReadError>())
    ///     .expect("a read of a file");
    /// assert!(failed.name().starts_with("report-"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn name(&self) -> String {
        match &self.file {
            Subject::Path(path) => path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Subject::Reader(name) => name.clone(),
        }
    }

    /// This error as the crate's: a `NotFoundError` for [`FailureReason::NotFound`], a
    /// `NotReadableError` otherwise, as the File API's [table of
    /// errors](https://w3c.github.io/FileAPI/#dfn-error-codes) says, with this as its source.
    pub(crate) fn into_error(self) -> Error {
        let kind = match self.reason {
            FailureReason::NotFound => ErrorKind::NotFoundError,
            _ => ErrorKind::NotReadableError,
        };
        // What failed; which file and why is the source's to say.
        Error::new(kind, "reading a file failed").with_source(self)
    }
}

impl fmt::Display for FileReadError {
    /// The file and what went wrong; the I/O error, if any, is the source (each error of a
    /// chain says its own part, see [`Error`](crate::Error)'s `Display`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Subject::Path(path) => write!(f, "file {path:?} ")?,
            Subject::Reader(name) => write!(f, "the reader of file part {name:?} ")?,
        }
        f.write_str(match self.reason {
            FailureReason::NotFound => "is not found",
            FailureReason::SnapshotState => "changed since the File was made",
            FailureReason::FileLock => "cannot be read",
            FailureReason::Length => "did not give the length it was made with",
        })?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for FileReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(size: u64) -> Segment {
        Segment::File(FileRange {
            file: Arc::new(DiskFile {
                path: PathBuf::from("/nonexistent"),
                size,
                modified: None,
            }),
            offset: 0,
            len: size,
        })
    }

    #[test]
    fn memory_segments_join_into_one_buffer_and_a_single_one_is_shared() {
        let only = Bytes::from_static(b"only");
        let BlobBytes::Memory(shared) =
            BlobBytes::from_segments(vec![Segment::Memory(only.clone())])
        else {
            panic!("in memory");
        };
        assert_eq!(shared.as_ptr(), only.as_ptr());
        let joined = BlobBytes::from_segments(vec![
            Segment::Memory(Bytes::from_static(b"ab")),
            Segment::Memory(Bytes::new()),
            Segment::Memory(Bytes::from_static(b"c")),
        ]);
        assert_eq!(joined, BlobBytes::Memory(Bytes::from_static(b"abc")));
    }

    #[test]
    fn slicing_across_segments_keeps_file_ranges_and_shares_memory() {
        let bytes = BlobBytes::from_segments(vec![
            Segment::Memory(Bytes::from_static(b"head")),
            disk(100),
            Segment::Memory(Bytes::from_static(b"tail")),
        ]);
        assert_eq!(bytes.len(), 108);
        // Inside the file: one range, offset into it.
        let BlobBytes::Segments(inner) = bytes.slice(10, 20) else {
            panic!("on disk");
        };
        assert_eq!(inner.size, 10);
        assert!(
            matches!(&inner.list[..], [Segment::File(range)] if range.offset == 6 && range.len == 10)
        );
        // Across all three.
        assert_eq!(bytes.slice(2, 106).len(), 104);
        // Only memory: back in memory.
        assert_eq!(
            bytes.slice(104, 108),
            BlobBytes::Memory(Bytes::from_static(b"tail"))
        );
        assert_eq!(bytes.slice(50, 50).len(), 0);
    }
}

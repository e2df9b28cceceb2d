//! reqwest's `multipart::{Form, Part}`, over [`FormData`]: the same calls, for code coming
//! from reqwest, building a form that is sent as HTML's `multipart/form-data` encoding
//! writes it.
//!
//! A [`Form`] is a [`FormData`] and the boundary it will be sent with, chosen when the form
//! is made (as reqwest's is), so that [`Form::boundary`] can be read before it is sent;
//! [`RequestBuilder::multipart`](crate::RequestBuilder::multipart) sends it with
//! `Content-Type: multipart/form-data; boundary=` and that boundary. A [`Part`] becomes one
//! entry of the form:
//!
//! - a [`Part::text`] with neither a file name nor a MIME type is a string entry, sent as
//!   `Content-Disposition: form-data; name="…"` and the text;
//! - any other part is a file entry, sent with a `filename` and a `Content-Type`, as every
//!   file entry of a `FormData` is: the name given with [`Part::file_name`] (the file's
//!   own for [`Part::file`], `blob` otherwise, the spec's name for a blob that is not a
//!   file) and the type given with [`Part::mime_str`] (guessed from the file's extension
//!   for [`Part::file`], `application/octet-stream` otherwise). reqwest sends a bytes or
//!   stream part without a file name or type with neither header;
//! - a [`Part::stream`] whose body is not in memory is a
//!   [`StreamedFile`]: read once as the request is sent, so the request cannot follow a
//!   redirect that needs its body again, and sent with a `Content-Length` only when every
//!   part's length is known.
//!
//! Names, file names and text are written as HTML writes them: UTF-8 as it is, with CR, LF
//! and `"` in names escaped as `%0D`, `%0A` and `%22`; reqwest percent-encodes a name that
//! is not ASCII into a `name*=utf-8''…` parameter instead, and has
//! `percent_encode_*` methods to choose, which this form does not. reqwest's
//! `Part::headers` (headers of a part's own) has no counterpart: a `FormData` entry carries
//! a name, a file name, a type and the bytes, no other header.
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::Client;
//! use whatwg_fetch::multipart::{Form, Part};
//!
//! let form = Form::new()
//!     .text("title", "a report")
//!     .part("file", Part::bytes(vec![1, 2, 3]).file_name("data.bin").mime_str("application/octet-stream")?);
//! let boundary = form.boundary().to_owned();
//!
//! let client = Client::builder().build()?;
//! let mut request = client.post("https://example.com/upload").multipart(form).build()?;
//! assert_eq!(
//!     request.headers().get("content-type")?.as_deref(),
//!     Some(format!("multipart/form-data; boundary={boundary}").as_str())
//! );
//! let body = request.bytes().await?;
//! let expected = format!(
//!     "--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\na report\r\n\
//!      --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"data.bin\"\r\n\
//!      Content-Type: application/octet-stream\r\n\r\n\x01\x02\x03\r\n--{boundary}--\r\n"
//! );
//! assert_eq!(body, expected.as_bytes());
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::borrow::Cow;
use std::io;
use std::path::Path;

use bytes::Bytes;
use futures_util::TryStreamExt;
use tokio_util::io::StreamReader;

use crate::blob::{File, FilePropertyBag};
use crate::body::Body;
use crate::error::{Error, Result};
use crate::form_data::{self, FormData, StreamedFile};
use crate::mime::MimeType;

/// The file name of a file entry given none, as the spec names a blob that is not a file.
const BLOB_NAME: &str = "blob";

/// A `multipart/form-data` form, as reqwest's `multipart::Form`: a [`FormData`] and the
/// boundary it is sent with. Send it with
/// [`RequestBuilder::multipart`](crate::RequestBuilder::multipart).
///
/// ```
/// use whatwg_fetch::multipart::Form;
///
/// let form = Form::new().text("username", "ada").text("password", "secret");
/// assert!(form.boundary().starts_with("----formdata-"));
/// assert_eq!(form.form_data().get("username").and_then(|value| value.as_str()), Some("ada"));
/// ```
#[derive(Debug)]
pub struct Form {
    /// The boundary the form is sent with.
    boundary: String,
    /// The entries.
    form: FormData,
}

impl Form {
    /// An empty form with a fresh boundary: `----formdata-` and 24 random ASCII
    /// alphanumerics, as a [`FormData`] body gets.
    ///
    /// ```
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let (one, two) = (Form::new(), Form::new());
    /// assert_ne!(one.boundary(), two.boundary());
    /// assert!(one.form_data().is_empty());
    /// ```
    pub fn new() -> Form {
        Form {
            boundary: form_data::generate_boundary(),
            form: FormData::new(),
        }
    }

    /// The boundary the form is sent with: the `boundary` parameter of the request's
    /// `Content-Type`.
    ///
    /// ```
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let form = Form::new();
    /// assert_eq!(form.boundary().len(), 37);
    /// ```
    pub fn boundary(&self) -> &str {
        &self.boundary
    }

    /// The form with a string entry named `name` added at the end, as
    /// [`FormData::append`] adds it.
    ///
    /// ```
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let form = Form::new().text("tag", "red").text(String::from("tag"), String::from("blue"));
    /// let tags: Vec<_> = form.form_data().get_all("tag").iter().filter_map(|value| value.as_str()).collect();
    /// assert_eq!(tags, ["red", "blue"]);
    /// ```
    pub fn text<T, U>(mut self, name: T, value: U) -> Form
    where
        T: Into<Cow<'static, str>>,
        U: Into<Cow<'static, str>>,
    {
        self.form.append(&name.into(), &value.into());
        self
    }

    /// The form with `part` added at the end as an entry named `name`: a string entry for
    /// a [`Part::text`] with neither a file name nor a MIME type, a file entry otherwise
    /// (see the [module](self)).
    ///
    /// ```
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let form = Form::new()
    ///     .part("note", Part::text("hello"))
    ///     .part("data", Part::bytes(&b"\x00\x01"[..]).file_name("data.bin"));
    /// assert_eq!(form.form_data().get("note").and_then(|value| value.as_str()), Some("hello"));
    /// let file = form.form_data().get("data").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((file.name(), file.size()), ("data.bin", 2));
    /// ```
    pub fn part<T>(mut self, name: T, part: Part) -> Form
    where
        T: Into<Cow<'static, str>>,
    {
        part.append_to(&mut self.form, &name.into());
        self
    }

    /// The form with the file on disk at `path` added as a file entry named `name`, as
    /// [`FormData::append_file`] adds it: named after the path's last component, typed by
    /// its extension (`application/octet-stream` when it says nothing), its bytes read in
    /// chunks as the form is sent.
    ///
    /// # Errors
    /// The crate's [`Error`] (where reqwest gives an `io::Error`), as
    /// [`File::from_path`] fails: a `NotFoundError` or `NotReadableError` naming the path.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let path = std::env::temp_dir().join(format!("form-file-{}.csv", std::process::id()));
    /// std::fs::write(&path, "a,b\n").unwrap();
    /// let form = Form::new().file("report", &path).await?;
    /// let file = form.form_data().get("report").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((file.r#type(), file.size()), ("text/csv", 4));
    ///
    /// let missing = Form::new().file("report", path.with_extension("missing")).await.unwrap_err();
    /// assert_eq!(missing.kind(), whatwg_fetch::ErrorKind::NotFoundError);
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn file<T, P>(mut self, name: T, path: P) -> Result<Form>
    where
        T: Into<Cow<'static, str>>,
        P: AsRef<Path>,
    {
        self.form.append_file(&name.into(), path).await?;
        Ok(self)
    }

    /// The form's entries.
    ///
    /// ```
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let form = Form::new().text("a", "1");
    /// assert_eq!(form.form_data().len(), 1);
    /// ```
    pub fn form_data(&self) -> &FormData {
        &self.form
    }

    /// The boundary and the entries, for the request that sends them.
    pub(crate) fn into_parts(self) -> (String, FormData) {
        (self.boundary, self.form)
    }
}

impl Default for Form {
    /// [`Form::new`]: an empty form with a fresh boundary.
    ///
    /// ```
    /// use whatwg_fetch::multipart::Form;
    ///
    /// assert!(Form::default().form_data().is_empty());
    /// ```
    fn default() -> Form {
        Form::new()
    }
}

impl From<FormData> for Form {
    /// A form of `form`'s entries, as they are, with a fresh boundary.
    ///
    /// ```
    /// use whatwg_fetch::FormData;
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let mut entries = FormData::new();
    /// entries.append("title", "Q3");
    /// let form = Form::from(entries.clone());
    /// assert_eq!(form.form_data(), &entries);
    /// ```
    fn from(form: FormData) -> Form {
        Form {
            boundary: form_data::generate_boundary(),
            form,
        }
    }
}

/// One part of a [`Form`], as reqwest's `multipart::Part`: text, bytes, a stream or a file
/// on disk, with a file name and a MIME type if given.
///
/// ```
/// use whatwg_fetch::multipart::Part;
///
/// let part = Part::bytes(vec![0xff, 0xd8]).file_name("photo.jpg").mime_str("image/jpeg")?;
/// # let _ = part;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct Part {
    /// What the part holds.
    value: Value,
    /// The file name given with [`Part::file_name`].
    file_name: Option<String>,
    /// The type given with [`Part::mime_str`], serialized.
    mime: Option<String>,
}

/// What a [`Part`] holds.
#[derive(Debug)]
enum Value {
    /// Text.
    Text(Cow<'static, str>),
    /// Bytes in memory.
    Bytes(Bytes),
    /// A file on disk.
    File(File),
    /// A body read once, of the given length if known.
    Stream(Body, Option<u64>),
}

impl Part {
    /// A part holding `value`: a string entry unless a file name or MIME type is given.
    ///
    /// ```
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let form = Form::new()
    ///     .part("plain", Part::text("hi"))
    ///     .part("typed", Part::text("{}").mime_str("application/json")?);
    /// assert_eq!(form.form_data().get("plain").and_then(|value| value.as_str()), Some("hi"));
    /// let typed = form.form_data().get("typed").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((typed.name(), typed.r#type()), ("blob", "application/json"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn text<T>(value: T) -> Part
    where
        T: Into<Cow<'static, str>>,
    {
        Part::new(Value::Text(value.into()))
    }

    /// A part holding the bytes `value`: a file entry, named `blob` and typed
    /// `application/octet-stream` unless [`file_name`](Self::file_name) and
    /// [`mime_str`](Self::mime_str) say otherwise.
    ///
    /// ```
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let form = Form::new().part("data", Part::bytes(&b"\x00\x01\x02"[..]));
    /// let file = form.form_data().get("data").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((file.name(), file.size()), ("blob", 3));
    /// ```
    pub fn bytes<T>(value: T) -> Part
    where
        T: Into<Cow<'static, [u8]>>,
    {
        let bytes = match value.into() {
            Cow::Borrowed(slice) => Bytes::from_static(slice),
            Cow::Owned(vec) => Bytes::from(vec),
        };
        Part::new(Value::Bytes(bytes))
    }

    /// A part read from `body` as the form is sent (reqwest's `Part::stream`). A body whose
    /// bytes are in memory ([`Body::from_bytes`], a string) is a part of those bytes, as
    /// [`Part::bytes`]; any other is a [`StreamedFile`], read once, of the body's length if
    /// it has one ([`Body::length`]) and of unknown length otherwise, which makes the
    /// request's body chunked.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use whatwg_fetch::Body;
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("part1 part2"))]);
    /// let form = Form::new().part("log", Part::stream(Body::from_stream(chunks)).file_name("run.log"));
    /// let file = form.form_data().get("log").and_then(|value| value.as_streamed_file()).unwrap();
    /// assert_eq!((file.name(), file.length()), ("run.log", None));
    /// # });
    /// ```
    pub fn stream<T>(body: T) -> Part
    where
        T: Into<Body>,
    {
        let body = body.into();
        let length = body.length();
        Part::stream_of(body, length)
    }

    /// A part of `length` bytes read from `body` as the form is sent (reqwest's
    /// `Part::stream_with_length`): a [`StreamedFile`] held to that length, so that the
    /// request can have a `Content-Length`. A body that gives fewer or more bytes fails
    /// the request rather than send a different part.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use whatwg_fetch::Body;
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("0123456789"))]);
    /// let form = Form::new().part("digits", Part::stream_with_length(Body::from_stream(chunks), 10));
    /// let file = form.form_data().get("digits").and_then(|value| value.as_streamed_file()).unwrap();
    /// assert_eq!(file.length(), Some(10));
    /// ```
    pub fn stream_with_length<T>(body: T, length: u64) -> Part
    where
        T: Into<Body>,
    {
        Part::stream_of(body.into(), Some(length))
    }

    /// A part of the file on disk at `path`, named after the path's last component and
    /// typed by its extension (`application/octet-stream` when it says nothing), as
    /// reqwest's `Part::file`; its bytes are read in chunks as the form is sent.
    ///
    /// # Errors
    /// The crate's [`Error`] (where reqwest gives an `io::Error`), as
    /// [`File::from_path`] fails: a `NotFoundError` or `NotReadableError` naming the path.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let path = std::env::temp_dir().join(format!("part-file-{}.png", std::process::id()));
    /// std::fs::write(&path, b"\x89PNG").unwrap();
    /// let part = Part::file(&path).await?.file_name("chart.png");
    /// let form = Form::new().part("chart", part);
    /// let file = form.form_data().get("chart").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((file.name(), file.r#type(), file.size()), ("chart.png", "image/png", 4));
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn file<P>(path: P) -> Result<Part>
    where
        P: AsRef<Path>,
    {
        Ok(Part::new(Value::File(File::from_path(path).await?)))
    }

    /// This part with its `Content-Type` set to `mime`, parsed as a MIME type and
    /// serialized (reqwest's `Part::mime_str`).
    ///
    /// # Errors
    /// A `TypeError` naming `mime` when it is not a valid MIME type.
    ///
    /// ```
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let part = Part::bytes(&b"{}"[..]).mime_str("Application/JSON; charset=utf-8")?;
    /// let form = Form::new().part("data", part);
    /// let file = form.form_data().get("data").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!(file.r#type(), "application/json;charset=utf-8");
    ///
    /// let error = Part::text("x").mime_str("not a type").unwrap_err();
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    /// assert!(error.to_string().contains("not a type"), "{error}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn mime_str(self, mime: &str) -> Result<Part> {
        let Some(parsed) = MimeType::parse(mime) else {
            return Err(Error::type_error(format!(
                "the part's MIME type {mime:?} is not a valid MIME type"
            )));
        };
        Ok(Part {
            mime: Some(parsed.serialize()),
            ..self
        })
    }

    /// This part with the file name `name`, sent as its `filename` (reqwest's
    /// `Part::file_name`); a text part with one is a file entry.
    ///
    /// ```
    /// use whatwg_fetch::multipart::{Form, Part};
    ///
    /// let form = Form::new().part("notes", Part::text("remember").file_name("notes.txt"));
    /// let file = form.form_data().get("notes").and_then(|value| value.as_file()).unwrap();
    /// assert_eq!((file.name(), file.text().as_str()), ("notes.txt", "remember"));
    /// ```
    pub fn file_name<T>(self, name: T) -> Part
    where
        T: Into<Cow<'static, str>>,
    {
        Part {
            file_name: Some(name.into().into_owned()),
            ..self
        }
    }

    /// A part holding `value`, with no file name or type given.
    fn new(value: Value) -> Part {
        Part {
            value,
            file_name: None,
            mime: None,
        }
    }

    /// A part read from `body`, of `length` bytes if known; a body whose bytes are in
    /// memory is a bytes part.
    fn stream_of(body: Body, length: Option<u64>) -> Part {
        // A body with a source, and no other length asked of it, is its bytes: a part
        // that can be sent again.
        if let Some(bytes) = body.source() {
            if length.is_none_or(|length| length == bytes.len() as u64) {
                return Part::new(Value::Bytes(bytes.clone()));
            }
        }
        Part::new(Value::Stream(body, length))
    }

    /// Appends this part to `form` as an entry named `name`.
    fn append_to(self, form: &mut FormData, name: &str) {
        let Part {
            value,
            file_name,
            mime,
        } = self;
        let bytes = match value {
            // A text part is a string entry, unless it has a file name or a type, which
            // only a file entry carries.
            Value::Text(text) if file_name.is_none() && mime.is_none() => {
                form.append(name, &text);
                return;
            }
            Value::Text(text) => Bytes::from(text.into_owned()),
            Value::Bytes(bytes) => bytes,
            Value::File(file) => {
                let file = match file_name {
                    Some(file_name) => {
                        let last_modified = file.last_modified();
                        File::from_blob(file.into_blob(), file_name, last_modified)
                    }
                    None => file,
                };
                let file = match mime {
                    Some(mime) => file.with_type(&mime),
                    None => file,
                };
                form.append_blob(name, file, None);
                return;
            }
            Value::Stream(body, length) => {
                let reader = StreamReader::new(body.map_err(io::Error::other));
                let file_name = file_name.unwrap_or_else(|| BLOB_NAME.to_owned());
                let file = match length {
                    Some(length) => StreamedFile::reader_with_length(reader, length, file_name),
                    None => StreamedFile::reader(reader, file_name),
                };
                // Typed as given, not guessed from the name, as the other parts are.
                form.append_streamed_file(name, file.with_type(mime.as_deref().unwrap_or("")));
                return;
            }
        };
        let file = File::new(
            [bytes],
            file_name.as_deref().unwrap_or(BLOB_NAME),
            FilePropertyBag {
                r#type: mime,
                ..FilePropertyBag::default()
            },
        );
        form.append_blob(name, file, None);
    }
}

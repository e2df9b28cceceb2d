//! Native operations behind `js/blob.js`: `Blob` and `File` (<https://w3c.github.io/FileAPI/>)
//! over [`whatwg_fetch::Blob`] and [`whatwg_fetch::File`].

use bytes::Bytes;
use rquickjs::{ArrayBuffer, Ctx, Exception, Function, IntoJs, Object, TypedArray, Value};
use whatwg_fetch::blob::{BlobPart, Endings};
use whatwg_fetch::{Blob, BlobPropertyBag, File, FilePropertyBag};

use crate::handle::{self, Native};
use crate::promise::future_to_promise;
use crate::state::SharedState;
use crate::streams::readable_stream;

/// Bytes on their way to JavaScript as a `Uint8Array`.
pub struct U8(pub Bytes);

impl<'js> IntoJs<'js> for U8 {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        Ok(TypedArray::<u8>::new_copy(ctx.clone(), &self.0)?.into_value())
    }
}

/// Bytes on their way to JavaScript as an `ArrayBuffer`.
pub struct Buffer(pub Bytes);

impl<'js> IntoJs<'js> for Buffer {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        Ok(ArrayBuffer::new_copy(ctx.clone(), &self.0)?.into_value())
    }
}

/// The bytes of a `Uint8Array` the script made.
///
/// # Errors
/// A `TypeError` when `value` is not a `Uint8Array`.
pub fn bytes_of<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<Bytes> {
    let array = TypedArray::<u8>::from_value(value.clone())
        .map_err(|_| Exception::throw_type(ctx, "expected a Uint8Array"))?;
    // SAFETY: the slice is copied at once; no JavaScript runs while it is borrowed.
    match unsafe { array.as_bytes() } {
        Some(b) => Ok(Bytes::copy_from_slice(b)),
        None => Err(Exception::throw_type(ctx, "the buffer is detached")),
    }
}

fn endings(ctx: &Ctx<'_>, value: &str) -> rquickjs::Result<Endings> {
    match value {
        "transparent" => Ok(Endings::Transparent),
        "native" => Ok(Endings::Native),
        _ => Err(Exception::throw_type(
            ctx,
            &format!("{value:?} is not a valid value for enumeration EndingType"),
        )),
    }
}

/// The converted `sequence<BlobPart>`: strings, `Uint8Array`s and `Blob` handles.
fn parts<'js>(ctx: &Ctx<'js>, parts: Vec<Value<'js>>) -> rquickjs::Result<Vec<BlobPart>> {
    parts
        .into_iter()
        .map(|p| {
            if let Some(s) = p.as_string() {
                Ok(BlobPart::Text(s.to_string()?))
            } else if p.is_object() && TypedArray::<u8>::from_value(p.clone()).is_ok() {
                Ok(BlobPart::Bytes(bytes_of(ctx, &p)?))
            } else {
                Ok(BlobPart::Blob(handle::blob(ctx, &p)?))
            }
        })
        .collect()
}

/// Registers `blob_new(parts, type, endings)`, `file_new(parts, name, type, endings,
/// lastModified)`, `blob_size`, `blob_type`, `file_name`, `file_last_modified`,
/// `blob_slice(h, start, end, contentType)`, `blob_text`, `blob_bytes`, `blob_array_buffer`
/// (promises), `blob_stream(h)`, and `blob_url_create(h)` / `blob_url_revoke(url)` (the blob URL
/// store of the client's environment).
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    native.set(
        "blob_new",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, p: Vec<Value<'js>>, r#type: Option<String>, e: String| {
                let options = BlobPropertyBag {
                    r#type,
                    endings: endings(&ctx, &e)?,
                };
                let blob = Blob::new(parts(&ctx, p)?, options);
                handle::new(&ctx, Native::Blob(blob))
            },
        )?,
    )?;
    native.set(
        "file_new",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             p: Vec<Value<'js>>,
             name: String,
             r#type: Option<String>,
             e: String,
             last_modified: Option<f64>| {
                let options = FilePropertyBag {
                    r#type,
                    endings: endings(&ctx, &e)?,
                    last_modified: last_modified.map(|m| m as i64),
                };
                let file = File::new(parts(&ctx, p)?, name, options);
                handle::new(&ctx, Native::File(file))
            },
        )?,
    )?;
    native.set(
        "blob_size",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            Ok::<_, rquickjs::Error>(handle::blob(&ctx, &h)?.size() as f64)
        })?,
    )?;
    native.set(
        "blob_type",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            Ok::<_, rquickjs::Error>(handle::blob(&ctx, &h)?.r#type().to_owned())
        })?,
    )?;
    native.set(
        "file_name",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>| match handle::get(&ctx, &h)? {
                Native::File(f) => Ok(f.name().to_owned()),
                _ => Err(Exception::throw_type(
                    &ctx,
                    "Illegal invocation: not a File",
                )),
            },
        )?,
    )?;
    native.set(
        "file_last_modified",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>| match handle::get(&ctx, &h)? {
                Native::File(f) => Ok(f.last_modified() as f64),
                _ => Err(Exception::throw_type(
                    &ctx,
                    "Illegal invocation: not a File",
                )),
            },
        )?,
    )?;
    native.set(
        "blob_slice",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             h: Value<'js>,
             start: Option<f64>,
             end: Option<f64>,
             content_type: Option<String>| {
                let blob = handle::blob(&ctx, &h)?;
                let sliced = blob.slice(
                    start.map(|s| s as i64),
                    end.map(|e| e as i64),
                    content_type.as_deref(),
                );
                handle::new(&ctx, Native::Blob(sliced))
            },
        )?,
    )?;
    native.set(
        "blob_text",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let blob = handle::blob(&ctx, &h)?;
            future_to_promise(&ctx, async move { blob.read_text().await })
        })?,
    )?;
    native.set(
        "blob_bytes",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let blob = handle::blob(&ctx, &h)?;
            future_to_promise(&ctx, async move { blob.read_bytes().await.map(U8) })
        })?,
    )?;
    native.set(
        "blob_array_buffer",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let blob = handle::blob(&ctx, &h)?;
            future_to_promise(&ctx, async move { blob.read_bytes().await.map(Buffer) })
        })?,
    )?;
    let st = state.clone();
    native.set(
        "blob_url_create",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, h: Value<'js>| {
            let blob = handle::blob(&ctx, &h)?;
            let client = crate::fetch::client(&ctx, &st)?;
            let environment = client.environment();
            Ok::<_, rquickjs::Error>(
                environment
                    .blob_url_store()
                    .create_object_url(environment, blob),
            )
        })?,
    )?;
    let st = state.clone();
    native.set(
        "blob_url_revoke",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, url: String| {
            let client = crate::fetch::client(&ctx, &st)?;
            client
                .environment()
                .blob_url_store()
                .revoke_object_url(&url);
            Ok::<_, rquickjs::Error>(())
        })?,
    )?;
    let streams = state.clone();
    native.set(
        "blob_stream",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, h: Value<'js>| {
            let blob = handle::blob(&ctx, &h)?;
            readable_stream(&ctx, &streams, Box::pin(blob.stream()))
        })?,
    )?;
    Ok(())
}

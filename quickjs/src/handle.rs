//! The opaque native value behind a JavaScript wrapper object: one `Handle` class for every
//! crate value the interface scripts wrap (`Headers`, `Request`, `Response`, `Blob`, `File`,
//! `FormData`, `AbortController`, `AbortSignal`). The scripts keep a handle in a private slot
//! and pass it back to the operations, which match on its kind.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use rquickjs::class::{JsClass, Readable, Trace, Tracer};
use rquickjs::function::Constructor;
use rquickjs::{Class, Ctx, Exception, JsLifetime, Value};
use whatwg_fetch::{
    AbortController, AbortSignal, Blob, File, FormData, Headers, Request, Response,
};

/// Where a `Headers` object's header list lives: its own, or a request's or response's.
#[derive(Clone)]
pub enum HeadersRef {
    /// `new Headers()`.
    Own(Rc<RefCell<Headers>>),
    /// `request.headers`.
    Request(Rc<RefCell<Request>>),
    /// `response.headers`.
    Response(Rc<RefCell<Response>>),
}

impl HeadersRef {
    /// Runs `f` on the headers.
    ///
    /// # Errors
    /// A `TypeError` if the object holding them is in use (a re-entrant call).
    pub fn with<T>(&self, ctx: &Ctx<'_>, f: impl FnOnce(&mut Headers) -> T) -> rquickjs::Result<T> {
        Ok(match self {
            HeadersRef::Own(h) => f(&mut *borrow_mut(ctx, h)?),
            HeadersRef::Request(r) => f(borrow_mut(ctx, r)?.headers_mut()),
            HeadersRef::Response(r) => f(borrow_mut(ctx, r)?.headers_mut()),
        })
    }
}

/// The crate value a wrapper refers to.
#[derive(Clone)]
pub enum Native {
    /// A `Headers` object.
    Headers(HeadersRef),
    /// A `Request` object.
    Request(Rc<RefCell<Request>>),
    /// A `Response` object.
    Response(Rc<RefCell<Response>>),
    /// A `Blob` object.
    Blob(Blob),
    /// A `File` object.
    File(File),
    /// A `FormData` object.
    FormData(Rc<RefCell<FormData>>),
    /// An `AbortController`.
    Controller(Rc<AbortController>),
    /// An `AbortSignal`.
    Signal(AbortSignal),
}

/// The JavaScript class holding a [`Native`].
pub struct Handle(pub Native);

impl<'js> Trace<'js> for Handle {
    fn trace<'a>(&self, _tracer: Tracer<'a, 'js>) {}
}

// SAFETY: `Handle` holds no JavaScript values, so it has no `'js` lifetime to change.
unsafe impl<'js> JsLifetime<'js> for Handle {
    type Changed<'to> = Handle;
}

impl<'js> JsClass<'js> for Handle {
    const NAME: &'static str = "NativeHandle";
    type Mutable = Readable;

    fn constructor(_ctx: &Ctx<'js>) -> rquickjs::Result<Option<Constructor<'js>>> {
        Ok(None)
    }
}

/// Wraps `native` in a new handle object.
///
/// # Errors
/// An engine failure (out of memory).
pub fn new<'js>(ctx: &Ctx<'js>, native: Native) -> rquickjs::Result<Value<'js>> {
    Ok(Class::instance(ctx.clone(), Handle(native))?.into_value())
}

/// Wraps `native` in a new handle and that in the interface object the script's `make`
/// function (a property of the `__fetch_idl` helpers, such as `wrapResponse`) creates for it.
///
/// # Errors
/// An engine failure, or a missing wrapper function.
pub fn wrapped<'js>(ctx: &Ctx<'js>, make: &str, native: Native) -> rquickjs::Result<Value<'js>> {
    let h = new(ctx, native)?;
    let idl: rquickjs::Object = ctx.globals().get("__fetch_idl")?;
    let f: rquickjs::Function = idl.get(make)?;
    f.call((h,))
}

/// The native value of `value`, a handle.
///
/// # Errors
/// A `TypeError` when `value` is not a handle.
pub fn get<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<Native> {
    match Class::<Handle>::from_value(value) {
        Ok(c) => Ok(c.borrow().0.clone()),
        Err(_) => Err(Exception::throw_type(ctx, "not a native handle")),
    }
}

fn wrong(ctx: &Ctx<'_>, what: &str) -> rquickjs::Error {
    Exception::throw_type(ctx, &format!("Illegal invocation: not a {what}"))
}

/// The headers of a `Headers` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn headers<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<HeadersRef> {
    match get(ctx, value)? {
        Native::Headers(h) => Ok(h),
        _ => Err(wrong(ctx, "Headers")),
    }
}

/// The request of a `Request` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn request<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<Rc<RefCell<Request>>> {
    match get(ctx, value)? {
        Native::Request(r) => Ok(r),
        _ => Err(wrong(ctx, "Request")),
    }
}

/// The response of a `Response` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn response<'js>(
    ctx: &Ctx<'js>,
    value: &Value<'js>,
) -> rquickjs::Result<Rc<RefCell<Response>>> {
    match get(ctx, value)? {
        Native::Response(r) => Ok(r),
        _ => Err(wrong(ctx, "Response")),
    }
}

/// The blob of a `Blob` or `File` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn blob<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<Blob> {
    match get(ctx, value)? {
        Native::Blob(b) => Ok(b),
        Native::File(f) => Ok(f.into_blob()),
        _ => Err(wrong(ctx, "Blob")),
    }
}

/// The form data of a `FormData` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn form_data<'js>(
    ctx: &Ctx<'js>,
    value: &Value<'js>,
) -> rquickjs::Result<Rc<RefCell<FormData>>> {
    match get(ctx, value)? {
        Native::FormData(f) => Ok(f),
        _ => Err(wrong(ctx, "FormData")),
    }
}

/// The signal of an `AbortSignal` handle.
///
/// # Errors
/// A `TypeError` for another kind of handle.
pub fn signal<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<AbortSignal> {
    match get(ctx, value)? {
        Native::Signal(s) => Ok(s),
        _ => Err(wrong(ctx, "AbortSignal")),
    }
}

/// Borrows a cell mutably, or throws if it is already borrowed (a re-entrant call).
///
/// # Errors
/// A `TypeError` when the value is in use.
pub fn borrow_mut<'a, T>(ctx: &Ctx<'_>, cell: &'a RefCell<T>) -> rquickjs::Result<RefMut<'a, T>> {
    cell.try_borrow_mut()
        .map_err(|_| Exception::throw_type(ctx, "the object is in use"))
}

/// Borrows a cell, or throws if it is mutably borrowed (a re-entrant call).
///
/// # Errors
/// A `TypeError` when the value is in use.
pub fn borrow<'a, T>(ctx: &Ctx<'_>, cell: &'a RefCell<T>) -> rquickjs::Result<Ref<'a, T>> {
    cell.try_borrow()
        .map_err(|_| Exception::throw_type(ctx, "the object is in use"))
}

/// A string of bytes as a JavaScript ByteString: each byte one code unit.
pub fn latin1_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A ByteString (every char U+0000 to U+00FF, checked by the script) as its bytes; a char
/// past U+00FF, which the script rejects first, becomes `?`.
pub fn latin1_bytes(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

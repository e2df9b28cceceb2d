//! Native operations behind `js/form_data.js`: `FormData`
//! (<https://xhr.spec.whatwg.org/#interface-formdata>) over [`whatwg_fetch::FormData`].

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Array, Ctx, Exception, Function, IntoJs, Object, Value};
use whatwg_fetch::form_data::BlobValue;
use whatwg_fetch::{FormData, FormDataEntryValue};

use crate::handle::{self, Native};

/// An entry's value for the script: a string, or a `File` handle.
///
/// A form a script can reach holds no `StreamedFile` (none is made from JavaScript, and a
/// parsed form holds none); one from the host would have no `File` to show, so it throws,
/// as does a kind of value the crate may add and this binding does not know.
fn entry_value<'js>(ctx: &Ctx<'js>, value: &FormDataEntryValue) -> rquickjs::Result<Value<'js>> {
    match value {
        FormDataEntryValue::String(s) => s.as_str().into_js(ctx),
        FormDataEntryValue::File(f) => handle::new(ctx, Native::File(f.clone())),
        FormDataEntryValue::StreamedFile(f) => Err(Exception::throw_type(
            ctx,
            &format!(
                "the entry for file {:?} is read from a reader and has no File",
                f.name()
            ),
        )),
        other => Err(Exception::throw_type(
            ctx,
            &format!("the entry value {other:?} is neither a string nor a File"),
        )),
    }
}

fn blob_value<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<BlobValue> {
    match handle::get(ctx, value)? {
        Native::Blob(b) => Ok(BlobValue::from(b)),
        Native::File(f) => Ok(BlobValue::from(f)),
        _ => Err(Exception::throw_type(ctx, "not a Blob")),
    }
}

/// Registers `form_data_new()`, `form_data_append(h, name, value)`,
/// `form_data_append_blob(h, name, blob, filename)`, `form_data_set`, `form_data_set_blob`,
/// `form_data_delete`, `form_data_get`, `form_data_get_all`, `form_data_has` and
/// `form_data_entries`. Entry values are strings or `File` handles.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "form_data_new",
        Function::new(ctx.clone(), |ctx: Ctx<'js>| {
            handle::new(
                &ctx,
                Native::FormData(Rc::new(RefCell::new(FormData::new()))),
            )
        })?,
    )?;
    for set in [false, true] {
        native.set(
            if set {
                "form_data_set"
            } else {
                "form_data_append"
            },
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, h: Value<'js>, name: String, value: String| {
                    let f = handle::form_data(&ctx, &h)?;
                    let mut f = handle::borrow_mut(&ctx, &f)?;
                    if set {
                        f.set(&name, &value);
                    } else {
                        f.append(&name, &value);
                    }
                    Ok::<_, rquickjs::Error>(())
                },
            )?,
        )?;
        native.set(
            if set {
                "form_data_set_blob"
            } else {
                "form_data_append_blob"
            },
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      h: Value<'js>,
                      name: String,
                      blob: Value<'js>,
                      filename: Option<String>| {
                    let f = handle::form_data(&ctx, &h)?;
                    let value = blob_value(&ctx, &blob)?;
                    let mut f = handle::borrow_mut(&ctx, &f)?;
                    if set {
                        f.set_blob(&name, value, filename.as_deref());
                    } else {
                        f.append_blob(&name, value, filename.as_deref());
                    }
                    Ok::<_, rquickjs::Error>(())
                },
            )?,
        )?;
    }
    native.set(
        "form_data_delete",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let f = handle::form_data(&ctx, &h)?;
            handle::borrow_mut(&ctx, &f)?.delete(&name);
            Ok::<_, rquickjs::Error>(())
        })?,
    )?;
    native.set(
        "form_data_has",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let f = handle::form_data(&ctx, &h)?;
            let has = handle::borrow(&ctx, &f)?.has(&name);
            Ok::<_, rquickjs::Error>(has)
        })?,
    )?;
    native.set(
        "form_data_get",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let f = handle::form_data(&ctx, &h)?;
            let value = handle::borrow(&ctx, &f)?.get(&name).cloned();
            match value {
                Some(v) => entry_value(&ctx, &v),
                None => Ok(Value::new_null(ctx.clone())),
            }
        })?,
    )?;
    native.set(
        "form_data_get_all",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let f = handle::form_data(&ctx, &h)?;
            let values: Vec<FormDataEntryValue> = handle::borrow(&ctx, &f)?
                .get_all(&name)
                .into_iter()
                .cloned()
                .collect();
            let list = Array::new(ctx.clone())?;
            for (i, v) in values.iter().enumerate() {
                list.set(i, entry_value(&ctx, v)?)?;
            }
            Ok::<_, rquickjs::Error>(list)
        })?,
    )?;
    native.set(
        "form_data_entries",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let f = handle::form_data(&ctx, &h)?;
            let entries: Vec<(String, FormDataEntryValue)> = handle::borrow(&ctx, &f)?
                .iter()
                .map(|(n, v)| (n.to_owned(), v.clone()))
                .collect();
            let list = Array::new(ctx.clone())?;
            for (i, (n, v)) in entries.iter().enumerate() {
                let pair = Array::new(ctx.clone())?;
                pair.set(0, n.as_str())?;
                pair.set(1, entry_value(&ctx, v)?)?;
                list.set(i, pair)?;
            }
            Ok::<_, rquickjs::Error>(list)
        })?,
    )?;
    Ok(())
}

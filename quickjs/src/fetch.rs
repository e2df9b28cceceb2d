//! Native operations behind `js/fetch.js`: the `fetch()` method
//! (<https://fetch.spec.whatwg.org/#fetch-method>) through the installation's [`Client`].
//!
//! A fetch runs on the engine's own runtime, or, when the embedder named one
//! ([`crate::Globals::network_runtime`]), as a task on that runtime: connecting, TLS, sending
//! the request and waiting for the response head happen there, and so do the connection
//! tasks the client spawns. The engine's thread only awaits the outcome and then reads the
//! body, whose bytes the connection task on the network runtime receives.

use std::cell::RefCell;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use rquickjs::{Ctx, Function, IntoJs, Object, Value};
use tokio::task::JoinHandle;
use whatwg_fetch::{Client, Error, Request, Response};

use crate::handle::{self, Native};
use crate::promise::{future_to_promise, future_to_promise_now};
use crate::state::SharedState;

/// The installation's client: the embedder's, or a server-side one built at first use
/// (an installation without `fetch()`, whose `Request` constructor still needs an
/// environment).
///
/// # Errors
/// A `TypeError` if the default client cannot be built.
pub fn client(ctx: &Ctx<'_>, state: &SharedState) -> rquickjs::Result<Client> {
    if let Some(c) = state.client.borrow().as_ref() {
        return Ok(c.clone());
    }
    let made = Client::builder()
        .build()
        .map_err(|e| crate::error::throw(ctx, &e))?;
    *state.client.borrow_mut() = Some(made.clone());
    Ok(made)
}

/// The fetched response on its way to the script, as a new `Response` object, handed first
/// to the script's `keep` function when there is one.
struct Fetched<'js>(Response, Option<Function<'js>>);

impl<'js> IntoJs<'js> for Fetched<'js> {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        let response = handle::wrapped(
            ctx,
            "wrapResponse",
            Native::Response(Rc::new(RefCell::new(self.0))),
        )?;
        if let Some(keep) = self.1 {
            keep.call::<_, ()>((response.clone(),))?;
        }
        Ok(response)
    }
}

/// A fetch running as a task on the network runtime. Dropping it (the engine let go of
/// the promise, or was dropped itself) aborts the task, and so the fetch.
struct OnNetwork(JoinHandle<Result<Response, Error>>);

impl Future for OnNetwork {
    type Output = Result<Response, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.0).poll(cx) {
            Poll::Ready(Ok(outcome)) => Poll::Ready(outcome),
            // The network runtime shut down (or the task panicked): a network error, as a
            // connection lost midway would be.
            Poll::Ready(Err(ended)) => Poll::Ready(Err(Error::type_error(format!(
                "the fetch's task on the network runtime ended before a response: {ended}"
            )))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for OnNetwork {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Registers `fetch(request, keep)`: fetches the request of a `Request` handle (taking it:
/// the request object `fetch()` makes is its own) and returns a promise of a `Response`
/// object; `keep`, unless undefined, is called with that object before the promise settles
/// (the script keeps it alive while the fetch can still be aborted: `js/abort.js`).
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let st = state.clone();
    native.set(
        "fetch",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, h: Value<'js>, keep: Option<Function<'js>>| {
                let r = handle::request(&ctx, &h)?;
                let request = {
                    let mut r = handle::borrow_mut(&ctx, &r)?;
                    let placeholder = Request::from_url(r.current_url().clone());
                    mem::replace(&mut *r, placeholder)
                };
                let client = client(&ctx, &st)?;
                let promise = match &st.network {
                    // A request whose signal is already aborted is rejected here, at once, as
                    // on the engine's runtime.
                    Some(network) if !request.signal().aborted() => {
                        let task = OnNetwork(
                            network.spawn(async move { client.fetch_request(request).await }),
                        );
                        future_to_promise(&ctx, async move { task.await.map(|r| Fetched(r, keep)) })
                    }
                    _ => future_to_promise_now(&ctx, async move {
                        client
                            .fetch_request(request)
                            .await
                            .map(|r| Fetched(r, keep))
                    }),
                };
                // A fetch that ended at once (its signal was already aborted) dropped its body.
                crate::body::cancel_dropped_streams(&ctx, &st);
                promise
            },
        )?,
    )?;
    Ok(())
}

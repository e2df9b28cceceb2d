//! The thread a blocking client's fetches run on, and the wait of the calling thread for
//! what they give back.
//!
//! The thread owns a current-thread Tokio runtime, made and dropped on that thread alone,
//! so that no runtime is ever started, entered or dropped on a caller's thread, which may
//! be inside a runtime of its own. Work crosses as futures: a caller sends one over a
//! channel, the thread spawns it, and the caller parks until the future's result comes
//! back on a oneshot channel. The caller polls nothing but those channels, which need no
//! runtime.
//!
//! The thread ends when the last [`RuntimeThread`] handle is dropped (the clients and the
//! responses share it): its job channel closes, the loop ends, and the runtime is shut
//! down on that thread without waiting for a blocking task in flight (a DNS lookup of a
//! request nobody waits for any more). The handle dropped last joins the thread, unless it
//! is dropped inside a Tokio runtime: joining there would hold a worker of the caller's
//! runtime (on a current-thread runtime, every task of it) while the thread stops, so the
//! thread is detached and stops by itself.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, JoinHandle, Thread, ThreadId};

use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot};

use crate::error::{Error, Result};

/// A future for the runtime thread to spawn.
type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The name of the runtime thread, as a debugger or `top -H` shows it.
const THREAD_NAME: &str = "whatwg-fetch-blocking";

/// A handle on the runtime thread; the thread runs while one exists.
pub(super) struct RuntimeThread {
    /// Where jobs go; `None` once dropped, which ends the thread's loop, and for a thread
    /// that could not be started.
    jobs: Option<mpsc::UnboundedSender<Job>>,
    /// The thread, joined or detached by the last handle; `None` if it never started.
    thread: Option<JoinHandle<()>>,
    /// The thread's id, to refuse a wait on the thread itself; `None` if it never started.
    id: Option<ThreadId>,
    /// Why the thread could not be started, which every call then returns.
    not_started: Option<Error>,
}

impl RuntimeThread {
    /// Starts the thread and its runtime.
    ///
    /// # Errors
    /// A `TypeError` when the thread cannot be spawned or the runtime cannot be built (the
    /// system's limit on threads or file descriptors), with the system's error as source.
    pub(super) fn start() -> Result<Arc<RuntimeThread>> {
        let (jobs, mut received) = mpsc::unbounded_channel::<Job>();
        // The runtime is built on its own thread, which says whether it could be.
        let (started, startup) = std::sync::mpsc::sync_channel::<std::io::Result<()>>(1);
        let thread = thread::Builder::new()
            .name(THREAD_NAME.to_owned())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = started.send(Err(error));
                        return;
                    }
                };
                let _ = started.send(Ok(()));
                runtime.block_on(async move {
                    while let Some(job) = received.recv().await {
                        tokio::spawn(job);
                    }
                });
                // Every handle is gone, so nobody waits for a task still here: they are
                // dropped, and a blocking task in flight is not waited for.
                runtime.shutdown_background();
            })
            .map_err(|error| {
                Error::type_error(format!(
                    "cannot spawn the blocking client's thread: {error}"
                ))
                .with_source(error)
            })?;
        match startup.recv() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                return Err(Error::type_error(format!(
                    "cannot build the blocking client's runtime: {error}"
                ))
                .with_source(error));
            }
            Err(_) => return Err(stopped()),
        }
        Ok(Arc::new(RuntimeThread {
            jobs: Some(jobs),
            id: Some(thread.thread().id()),
            thread: Some(thread),
            not_started: None,
        }))
    }

    /// A handle on no thread, for a client whose thread could not be started: each
    /// [`run`](Self::run) and [`spawn`](Self::spawn) returns `error`, the error of
    /// [`start`](Self::start).
    pub(super) fn not_started(error: Error) -> Arc<RuntimeThread> {
        Arc::new(RuntimeThread {
            jobs: None,
            thread: None,
            id: None,
            not_started: Some(error),
        })
    }

    /// Runs `future` on the runtime thread and waits for its output.
    ///
    /// # Errors
    /// A `TypeError` when called on the runtime thread itself (it would wait for itself),
    /// when `future` panicked (with the panic's message), when the thread has stopped, or
    /// the error of a thread that could not be started.
    pub(super) fn run<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Result<T> {
        if Some(thread::current().id()) == self.id {
            return Err(Error::type_error(
                "a blocking client was called from its own runtime thread, which would wait for itself",
            ));
        }
        let (output, receiver) = oneshot::channel();
        self.spawn(async move {
            // A panic of the future (a transport's, a cookie provider's) is this call's
            // error: uncaught, it would drop `output`, and the caller would be told that
            // the thread stopped, which it did not.
            let _ = output.send(AssertUnwindSafe(future).catch_unwind().await);
        })?;
        match wait(receiver) {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(panic)) => Err(panicked(&*panic)),
            Err(_) => Err(stopped()),
        }
    }

    /// Spawns `future` on the runtime thread, without waiting for it.
    ///
    /// # Errors
    /// A `TypeError` when the thread has stopped, or the error of a thread that could not
    /// be started.
    pub(super) fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        if let Some(error) = &self.not_started {
            return Err(error.clone());
        }
        let jobs = self.jobs.as_ref().ok_or_else(stopped)?;
        jobs.send(Box::pin(future)).map_err(|_| stopped())
    }
}

impl Drop for RuntimeThread {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        drop(self.jobs.take());
        let Some(thread) = self.thread.take() else {
            return;
        };
        let on_itself = Some(thread::current().id()) == self.id;
        let in_a_runtime = tokio::runtime::Handle::try_current().is_ok();
        if on_itself || in_a_runtime {
            // Detached: it stops by itself now that its channel is closed (see the module
            // documentation for why it is not joined here).
            return;
        }
        // A panic of the thread was its own; nothing is left to clean up.
        let _ = thread.join();
    }
}

impl fmt::Debug for RuntimeThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeThread")
            .field("thread", &self.id)
            .field("running", &self.jobs.is_some())
            .field("not_started", &self.not_started)
            .finish()
    }
}

/// The error of a runtime thread that is gone.
fn stopped() -> Error {
    Error::type_error("the blocking client's runtime thread has stopped")
}

/// The error of a task of the runtime thread that panicked with `payload`: the panic's
/// message, when it has one.
pub(super) fn panicked(payload: &(dyn Any + Send)) -> Error {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    Error::type_error(format!(
        "a task on the blocking client's thread panicked: {message}"
    ))
}

/// Parks the calling thread until `future` is ready, polling it each time it is woken.
///
/// Only for futures that need no runtime (the channels from the runtime thread). Polled
/// outside Tokio's cooperative budget: called from inside a Tokio task, the task's budget
/// would run out after some receives and make every poll after it `Pending` at once, and
/// this loop would spin instead of letting the task yield.
pub(super) fn wait<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(tokio::task::coop::unconstrained(future));
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // A wake between the poll and here leaves a token: this returns at once.
        thread::park();
    }
}

/// Wakes a parked thread.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

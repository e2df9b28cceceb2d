//! [`AbortController`] and [`AbortSignal`], from the DOM Standard's
//! [Aborting ongoing activities](https://dom.spec.whatwg.org/#aborting-ongoing-activities).
//!
//! A controller aborts its signal; whoever was handed the signal observes the abort in one
//! of four ways:
//!
//! - [`AbortSignal::aborted`], [`AbortSignal::reason`] and
//!   [`AbortSignal::throw_if_aborted`], polled at checkpoints;
//! - [abort algorithms](AbortSignal::add_algorithm), the spec's own mechanism, which is what
//!   `fetch()` uses;
//! - [`abort` event listeners](AbortSignal::on_abort_event), for a JavaScript binding of
//!   `addEventListener("abort", …)` and `onabort`;
//! - [`AbortSignal::aborted_future`], a future to race against other work in async code.
//!
//! # Threads and callbacks
//!
//! Signals are `Send + Sync` and cheap to clone (a clone is the same signal, as every
//! JavaScript reference to one `AbortSignal` object is). Abort algorithms and event listeners
//! run on the thread that aborts the signal: the caller of [`AbortController::abort`], or the
//! timer of [`AbortSignal::timeout`]. They never run while the signal's internal lock is held,
//! so a callback may read the signal, register or remove callbacks, or abort other
//! controllers.
//!
//! The order is the spec's, and is observable: when a signal is aborted, its reason is set,
//! and so is the reason of every signal [depending on it](AbortSignal::any); then its abort
//! algorithms run in the order they were added, then its `abort` event listeners in the
//! order they were added; then the same abort steps run for each dependent signal in turn.
//!
//! If a callback panics, the remaining abort steps still run (every algorithm, listener and
//! dependent signal), and the first panic is then resumed on the thread that aborted.
//!
//! # Memory
//!
//! A signal holds its [source signals](AbortSignal::any) weakly, and a source signal holds
//! its dependent signals weakly, except that, as the spec's
//! [garbage collection](https://dom.spec.whatwg.org/#abort-signal-garbage-collection) rule
//! asks, a dependent signal that is not aborted and still has abort algorithms or `abort`
//! event listeners is kept alive by its sources (and a signal from
//! [`AbortSignal::timeout`] by its timer) until it is aborted or they are removed. An
//! algorithm or listener that owns a clone of the signal it is registered on, or of one of
//! that signal's sources, therefore keeps that signal alive until it runs or is removed.
//!
//! A dependent signal does hold strongly those of its sources that came from
//! [`AbortSignal::timeout`], until it is aborted, so that
//! `AbortSignal::any([&AbortSignal::timeout_ms(ms)])` is aborted when the time is up even though
//! nothing else holds the timeout signal.
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{AbortController, Client};
//!
//! let controller = AbortController::new();
//! let request = Client::new().get("data:,x").signal(controller.signal());
//! controller.abort(None);
//! assert!(request.send().await.unwrap_err().is_abort());
//! # });
//! ```

use std::any::Any;
use std::cmp::Ordering as CmpOrdering;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;
use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// An abort algorithm: runs once, with the signal's abort reason.
type Algorithm = Box<dyn FnOnce(&Error) + Send + 'static>;

/// A panic caught while running the abort steps, resumed once they are all done.
type Panic = Box<dyn Any + Send + 'static>;

/// Ids for algorithms, listeners and futures: unique across all signals, so that a handle
/// from one signal never removes something from another.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// The smallest length of a signal's dependent signals at which dead entries are pruned.
const PRUNE_MIN: usize = 16;

/// An [`AbortSignal`] object.
struct Shared {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-reason>, initially undefined (`None`).
    /// The signal is [aborted](https://dom.spec.whatwg.org/#abortsignal-aborted) when this is
    /// not `None`.
    reason: Option<Error>,
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-algorithms>, initially empty. Keyed by
    /// an increasing id, so iteration is in the order they were added.
    algorithms: BTreeMap<u64, Algorithm>,
    /// <https://dom.spec.whatwg.org/#abortsignal-dependent>, initially false.
    dependent: bool,
    /// <https://dom.spec.whatwg.org/#abortsignal-source-signals>, a weak set, initially empty.
    source_signals: Vec<Weak<Shared>>,
    /// <https://dom.spec.whatwg.org/#abortsignal-dependent-signals>, a weak set, initially
    /// empty: each entry is the [`Link`] of a dependent signal.
    dependent_signals: Vec<Arc<Link>>,
    // Not in the spec:
    /// The event listeners for the `abort` event, keyed by an increasing id.
    listeners: BTreeMap<u64, Arc<Listener>>,
    /// The wakers of pending [`Aborted`] futures, keyed by the future's id. (A
    /// `BTreeMap`: a new empty one costs nothing, where a `HashMap` seeds its hasher.)
    wakers: BTreeMap<u64, Waker>,
    /// The link through which this signal can still be aborted by something other than a
    /// controller: its source signals if it is dependent, or its timer if it came from
    /// [`AbortSignal::timeout`].
    link: Weak<Link>,
    /// The length of `dependent_signals` at which dead entries are next pruned.
    prune_at: usize,
    /// Whether this signal came from [`AbortSignal::timeout`], and so can be aborted by its
    /// timer with no controller.
    has_timer: bool,
    /// The timer task of [`AbortSignal::timeout`] when it runs on a tokio runtime.
    timer: Option<tokio::task::AbortHandle>,
    /// The source signals that came from [`AbortSignal::timeout`], held strongly until this
    /// signal is aborted: often nothing else holds them (`any([&timeout(ms), ..])`), and their
    /// timers must keep running for this signal.
    timer_sources: Vec<Arc<Shared>>,
}

/// How a signal is reached by what may abort it later: its source signals, or the timer of
/// [`AbortSignal::timeout`]. Those hold the link strongly; the link holds the signal weakly,
/// and strongly only while the signal is not aborted and has abort algorithms or `abort`
/// event listeners (the spec's garbage collection rule).
struct Link {
    signal: Weak<Shared>,
    keepalive: Mutex<Option<Arc<Shared>>>,
}

/// A listener for the `abort` event.
struct Listener {
    /// The DOM's event listener "removed" flag: a listener removed while the event is being
    /// dispatched does not run.
    removed: AtomicBool,
    callback: Box<dyn Fn(&AbortSignal) + Send + Sync + 'static>,
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            state: Mutex::new(State::default()),
        })
    }

    /// Locks the state. No user callback ever runs under this lock, and no other signal's
    /// lock is taken while it is held, so a poisoned lock still holds consistent state.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new [`Link`] to this signal, which becomes the signal's link.
    fn new_link(self: &Arc<Shared>) -> Arc<Link> {
        let link = Arc::new(Link {
            signal: Arc::downgrade(self),
            keepalive: Mutex::new(None),
        });
        self.lock().link = Arc::downgrade(&link);
        link
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Nobody can observe this signal any more: stop its timer, if any.
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(timer) = state.timer.take() {
            timer.abort();
        }
    }
}

impl State {
    /// Keeps `this` (the signal whose state this is) alive through its link exactly while
    /// it is not aborted and has abort algorithms or event listeners.
    ///
    /// The caller owns a reference to `this`, so releasing the link's reference never drops
    /// the signal (and its callbacks) under the lock.
    fn update_keepalive(&self, this: &Arc<Shared>) {
        let Some(link) = self.link.upgrade() else {
            return;
        };
        let keep =
            self.reason.is_none() && !(self.algorithms.is_empty() && self.listeners.is_empty());
        let mut keepalive = link
            .keepalive
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match (keep, keepalive.is_some()) {
            (true, false) => *keepalive = Some(Arc::clone(this)),
            (false, true) => *keepalive = None,
            _ => {}
        }
    }

    /// Appends `link` to the dependent signals, first pruning the entries of signals that
    /// no longer exist once the list has doubled since the last pruning.
    fn append_dependent_signal(&mut self, link: Arc<Link>) {
        if self.dependent_signals.len() >= self.prune_at {
            // A dead entry holds no keepalive, so dropping it here runs no callback.
            self.dependent_signals
                .retain(|link| link.signal.strong_count() > 0);
            self.prune_at = (self.dependent_signals.len() * 2).max(PRUNE_MIN);
        }
        self.dependent_signals.push(link);
    }
}

/// Runs `callback`; if it panics, keeps the first panic in `panic` to resume later.
fn guarded(panic: &mut Option<Panic>, callback: impl FnOnce()) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(callback)) {
        panic.get_or_insert(payload);
    }
}

/// [Signal abort](https://dom.spec.whatwg.org/#abortsignal-signal-abort) on `signal` with
/// an optional `reason`.
fn signal_abort(signal: &Arc<Shared>, reason: Option<Error>) {
    let (reason, dependent_signals, timer_sources) = {
        let mut state = signal.lock();
        // Step 1. If signal is aborted, then return.
        if state.reason.is_some() {
            drop(state);
            return;
        }
        // Step 2. Set signal's abort reason to reason if it is given; otherwise to a new
        // "AbortError" DOMException.
        let reason = reason.unwrap_or_else(Error::abort_error);
        state.reason = Some(reason.clone());
        state.update_keepalive(signal);
        // Nothing reads an aborted signal's dependent signals again ("signal abort" returns
        // at step 1 and "create a dependent abort signal" at step 2), so take them out, to
        // use them without the lock.
        (
            reason,
            mem::take(&mut state.dependent_signals),
            mem::take(&mut state.timer_sources),
        )
    };
    // Not in the spec: an aborted signal no longer needs its timeout sources. Released
    // without the lock held, as releasing may drop them (and their callbacks).
    drop(timer_sources);

    // Step 3. Let dependentSignalsToAbort be a new list.
    let mut dependent_signals_to_abort = Vec::new();

    // Step 4. For each dependentSignal of signal's dependent signals:
    for dependent_signal in dependent_signals
        .iter()
        .filter_map(|link| link.signal.upgrade())
    {
        let mut state = dependent_signal.lock();
        // Step 4.1. If dependentSignal is not aborted:
        if state.reason.is_none() {
            // Step 4.1.1. Set dependentSignal's abort reason to signal's abort reason.
            state.reason = Some(reason.clone());
            state.update_keepalive(&dependent_signal);
            let timer_sources = mem::take(&mut state.timer_sources);
            drop(state);
            drop(timer_sources);
            // Step 4.1.2. Append dependentSignal to dependentSignalsToAbort.
            dependent_signals_to_abort.push(dependent_signal);
        }
    }
    drop(dependent_signals);

    let mut panic = None;
    // Step 5. Run the abort steps for signal.
    run_the_abort_steps(signal, &reason, &mut panic);
    // Step 6. For each dependentSignal of dependentSignalsToAbort, run the abort steps for
    // dependentSignal.
    for dependent_signal in &dependent_signals_to_abort {
        run_the_abort_steps(dependent_signal, &reason, &mut panic);
    }

    if let Some(payload) = panic {
        panic::resume_unwind(payload);
    }
}

/// [Run the abort steps](https://dom.spec.whatwg.org/#run-the-abort-steps) for `signal`,
/// whose abort reason is `reason`.
fn run_the_abort_steps(signal: &Arc<Shared>, reason: &Error, panic: &mut Option<Panic>) {
    // Step 1. For each algorithm of signal's abort algorithms: run algorithm.
    // Step 2. Empty signal's abort algorithms.
    // Each algorithm leaves the set just before it runs (without the lock held), so each runs
    // once, and one removed by an earlier algorithm does not run.
    loop {
        let next = signal.lock().algorithms.pop_first();
        let Some((_, algorithm)) = next else {
            break;
        };
        guarded(panic, || algorithm(reason));
    }

    // Step 3. Fire an event named abort at signal.
    // As in the DOM's "inner invoke", the listeners are those registered when the event is
    // fired, less any removed meanwhile.
    let listeners: Vec<Arc<Listener>> = signal.lock().listeners.values().cloned().collect();
    if !listeners.is_empty() {
        let target = AbortSignal {
            shared: Arc::clone(signal),
        };
        for listener in listeners {
            if !listener.removed.load(Ordering::Acquire) {
                guarded(panic, || (listener.callback)(&target));
            }
        }
    }

    // Not in the spec: wake the pending futures of `AbortSignal::aborted_future`.
    let wakers = mem::take(&mut signal.lock().wakers);
    for waker in wakers.into_values() {
        guarded(panic, || waker.wake());
    }
}

/// [`AbortController`](https://dom.spec.whatwg.org/#interface-abortcontroller): aborts its
/// [`AbortSignal`].
///
/// ```
/// use whatwg_fetch::abort::AbortController;
/// use whatwg_fetch::ErrorKind;
///
/// let controller = AbortController::new();
/// let signal = controller.signal();
/// assert!(!signal.aborted());
///
/// controller.abort(None);
/// assert!(signal.aborted());
/// assert_eq!(signal.reason().map(|e| e.kind()), Some(ErrorKind::AbortError));
/// ```
#[derive(Debug)]
pub struct AbortController {
    /// <https://dom.spec.whatwg.org/#abortcontroller-signal>
    signal: AbortSignal,
}

impl AbortController {
    /// [`new AbortController()`](https://dom.spec.whatwg.org/#dom-abortcontroller-abortcontroller):
    /// a controller with a new signal that is not aborted.
    ///
    /// ```
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// assert!(!controller.signal().aborted());
    /// ```
    pub fn new() -> AbortController {
        // Step 1. Let signal be a new AbortSignal object.
        let signal = AbortSignal::new_signal();
        // Step 2. Set this's signal to signal.
        AbortController { signal }
    }

    /// [`signal`](https://dom.spec.whatwg.org/#dom-abortcontroller-signal): this controller's
    /// signal, the same signal on every call ([`AbortSignal::same`]).
    ///
    /// ```
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// // Hand the signal to the work to cancel (a `RequestInit`, a builder's `signal`); keep the
    /// // controller to cancel it with.
    /// let signal = controller.signal();
    /// assert!(signal.same(&controller.signal()));
    /// ```
    pub fn signal(&self) -> AbortSignal {
        self.signal.clone()
    }

    /// [`abort(reason)`](https://dom.spec.whatwg.org/#dom-abortcontroller-abort): aborts the
    /// signal with `reason`, or with a new `AbortError` if `reason` is `None`.
    ///
    /// Does nothing if the signal is already aborted: the first reason stays. Otherwise the
    /// abort algorithms and `abort` event listeners run on this thread before this returns
    /// (see the [module documentation](self) for the order).
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, Error};
    ///
    /// let controller = AbortController::new();
    /// controller.abort(Some(Error::type_error("the user left")));
    /// // A second abort changes nothing: the first reason stays.
    /// controller.abort(None);
    /// let reason = controller.signal().reason().expect("aborted");
    /// assert_eq!(reason.message(), "the user left");
    /// ```
    pub fn abort(&self, reason: Option<Error>) {
        self.signal_abort(reason);
    }

    /// [Signal abort](https://dom.spec.whatwg.org/#abortcontroller-signal-abort) on this
    /// controller with an optional `reason`.
    fn signal_abort(&self, reason: Option<Error>) {
        // Signal abort on controller's signal with reason if it is given.
        signal_abort(&self.signal.shared, reason);
    }
}

impl Default for AbortController {
    fn default() -> AbortController {
        AbortController::new()
    }
}

/// [`AbortSignal`](https://dom.spec.whatwg.org/#interface-AbortSignal): tells an operation
/// that it is to be aborted, and why.
///
/// Cloning gives the same signal (as [`same`](AbortSignal::same) tells); see the
/// [module documentation](self) for threads, callback order and memory.
///
/// ```
/// use whatwg_fetch::abort::{AbortController, AbortSignal};
/// use whatwg_fetch::ErrorKind;
///
/// let user = AbortController::new();
/// let shutdown = AbortController::new();
/// let signal = AbortSignal::any([&user.signal(), &shutdown.signal()]);
///
/// let handle = signal.add_algorithm(|reason| println!("aborted: {reason}"));
/// assert!(handle.is_some());
///
/// shutdown.abort(None);
/// assert_eq!(signal.throw_if_aborted().map_err(|e| e.kind()), Err(ErrorKind::AbortError));
/// ```
#[derive(Clone)]
pub struct AbortSignal {
    shared: Arc<Shared>,
}

/// Identifies an abort algorithm added with [`AbortSignal::add_algorithm`], to remove it
/// with [`AbortSignal::remove_algorithm`].
///
/// ```
/// use whatwg_fetch::AbortController;
///
/// let controller = AbortController::new();
/// let handle = controller.signal().add_algorithm(|_| {});
/// // Kept to take the algorithm back once the work it guards is done.
/// assert!(handle.is_some_and(|handle| controller.signal().remove_algorithm(handle)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AlgorithmHandle {
    id: u64,
}

/// Identifies an `abort` event listener added with [`AbortSignal::on_abort_event`], to
/// remove it with [`AbortSignal::remove_abort_event_listener`].
///
/// ```
/// use whatwg_fetch::AbortController;
///
/// let controller = AbortController::new();
/// let handle = controller.signal().on_abort_event(|_| {});
/// assert!(controller.signal().remove_abort_event_listener(handle));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ListenerHandle {
    id: u64,
}

impl AbortSignal {
    /// A new signal that is not aborted ("a new `AbortSignal` object").
    fn new_signal() -> AbortSignal {
        AbortSignal {
            shared: Shared::new(),
        }
    }

    /// [`AbortSignal.abort(reason)`](https://dom.spec.whatwg.org/#dom-abortsignal-abort): a
    /// new signal that is already aborted with `reason`, or with a new `AbortError` if
    /// `reason` is `None`.
    ///
    /// No abort algorithm or event ever runs for it.
    ///
    /// ```
    /// use whatwg_fetch::AbortSignal;
    ///
    /// // Already aborted: for an operation that must not start.
    /// let signal = AbortSignal::abort(None);
    /// assert!(signal.aborted());
    /// assert!(signal.reason().is_some_and(|reason| reason.is_abort()));
    /// ```
    pub fn abort(reason: Option<Error>) -> AbortSignal {
        // Step 1. Let signal be a new AbortSignal object.
        let signal = AbortSignal::new_signal();
        // Step 2. Set signal's abort reason to reason if it is given; otherwise to a new
        // "AbortError" DOMException.
        signal.shared.lock().reason = Some(reason.unwrap_or_else(Error::abort_error));
        // Step 3. Return signal.
        signal
    }

    /// [`AbortSignal.timeout(milliseconds)`](https://dom.spec.whatwg.org/#dom-abortsignal-timeout):
    /// a new signal that is aborted with a new `TimeoutError` after `duration` (the IDL's
    /// milliseconds as a `Duration`, whole milliseconds counted; [`timeout_ms`](Self::timeout_ms)
    /// takes them as the IDL does).
    ///
    /// Called inside a tokio runtime, the timer is a task on that runtime (which needs its
    /// time driver, as `#[tokio::main]` and `#[tokio::test]` enable), and follows its clock,
    /// paused time included; the abort then runs on that runtime, so on the caller's thread
    /// with a current-thread runtime. The timer stops early if the signal is dropped, and it
    /// is lost if the runtime shuts down first.
    ///
    /// Called outside a runtime, the timer is kept by one background thread shared by all
    /// such signals (started on first use), and the abort runs on that thread. If that thread
    /// cannot be started, such signals are never aborted.
    ///
    /// A duration too long to represent never elapses. As the spec asks, a signal with `abort`
    /// event listeners (or abort algorithms) is kept alive by its timer until it fires; one
    /// without is not, and nothing runs for it if it was dropped.
    ///
    /// ```
    /// use whatwg_fetch::abort::AbortSignal;
    /// use whatwg_fetch::ErrorKind;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let signal = AbortSignal::timeout(std::time::Duration::from_secs(5));
    /// let reason = signal.aborted_future().await;
    /// assert_eq!(reason.kind(), ErrorKind::TimeoutError);
    /// # }
    /// ```
    pub fn timeout(duration: Duration) -> AbortSignal {
        AbortSignal::timeout_ms(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    /// [`AbortSignal.timeout(milliseconds)`](https://dom.spec.whatwg.org/#dom-abortsignal-timeout)
    /// with the IDL's argument, a count of milliseconds: as [`timeout`](Self::timeout).
    ///
    /// ```
    /// use whatwg_fetch::AbortSignal;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let signal = AbortSignal::timeout_ms(5_000);
    /// assert!(signal.aborted_future().await.is_timeout());
    /// # }
    /// ```
    pub fn timeout_ms(milliseconds: u64) -> AbortSignal {
        // Step 1. Let signal be a new AbortSignal object.
        let signal = AbortSignal::new_signal();
        // Step 2. Let global be signal's relevant global object.
        // (The global is the tokio runtime this is called in, if any.)
        // Step 3. Run steps after a timeout given global, "AbortSignal-timeout", milliseconds,
        // and the following step:
        //   Step 3.1. Queue a global task on the timer task source given global to signal
        //   abort given signal and a new "TimeoutError" DOMException.
        // For the duration of this timeout, if signal has any event listeners registered for
        // its abort event, there must be a strong reference from global to signal.
        // (The timer holds the signal's link, which holds the signal strongly while it has
        // listeners or algorithms.)
        let link = signal.shared.new_link();
        signal.shared.lock().has_timer = true;
        let duration = Duration::from_millis(milliseconds);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let task = runtime.spawn(async move {
                    tokio::time::sleep(duration).await;
                    abort_on_timeout(&link);
                });
                signal.shared.lock().timer = Some(task.abort_handle());
            }
            Err(_) => timer_thread::schedule(duration, link),
        }
        // Step 4. Return signal.
        signal
    }

    /// [`AbortSignal.any(signals)`](https://dom.spec.whatwg.org/#dom-abortsignal-any): a new
    /// signal that is aborted as soon as any of `signals` is, with the same reason
    /// ([`Error::same`]).
    ///
    /// If one of `signals` is already aborted, the new signal is created aborted with the
    /// first such signal's reason. A signal from `any` given as input is replaced by its own
    /// sources, so chains of `any` do not grow. With no signals, the new signal is never
    /// aborted.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, AbortSignal};
    ///
    /// // Cancelled by the user or by shutdown, whichever comes first.
    /// let user = AbortController::new();
    /// let shutdown = AbortController::new();
    /// let either = AbortSignal::any([&user.signal(), &shutdown.signal()]);
    /// assert!(!either.aborted());
    /// shutdown.abort(None);
    /// assert!(either.aborted());
    /// assert!(either.reason().expect("aborted").same(&shutdown.signal().reason().expect("aborted")));
    /// ```
    pub fn any<'a>(signals: impl IntoIterator<Item = &'a AbortSignal>) -> AbortSignal {
        // The static any(signals) method steps are to return the result of creating a
        // dependent abort signal from signals using AbortSignal and the current realm.
        let signals: Vec<&AbortSignal> = signals.into_iter().collect();
        create_a_dependent_abort_signal(&signals)
    }

    /// [`aborted`](https://dom.spec.whatwg.org/#dom-abortsignal-aborted): whether this signal
    /// is aborted.
    ///
    /// ```
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// let signal = controller.signal();
    /// assert!(!signal.aborted());
    /// controller.abort(None);
    /// assert!(signal.aborted());
    /// ```
    pub fn aborted(&self) -> bool {
        // The aborted getter steps are to return true if this is aborted; otherwise false.
        self.shared.lock().reason.is_some()
    }

    /// [`reason`](https://dom.spec.whatwg.org/#dom-abortsignal-reason): the abort reason, the
    /// very error the signal was aborted with ([`Error::same`]), or `None` if it is not
    /// aborted.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, ErrorKind};
    ///
    /// let controller = AbortController::new();
    /// assert!(controller.signal().reason().is_none());
    /// controller.abort(None);
    /// assert_eq!(controller.signal().reason().map(|reason| reason.kind()), Some(ErrorKind::AbortError));
    /// ```
    pub fn reason(&self) -> Option<Error> {
        // The reason getter steps are to return this's abort reason.
        self.shared.lock().reason.clone()
    }

    /// Whether this signal is aborted or could still be: false only for a signal that is not
    /// aborted and follows no source signal, as one from `AbortSignal::any([])` (a request
    /// made without a signal has one), which no controller or timer can reach.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, AbortSignal};
    ///
    /// assert!(AbortController::new().signal().can_abort());
    /// // Nothing can ever abort a signal that follows no other.
    /// assert!(!AbortSignal::any([]).can_abort());
    /// ```
    pub fn can_abort(&self) -> bool {
        let state = self.shared.lock();
        state.reason.is_some() || !state.dependent || !state.source_signals.is_empty()
    }

    /// [`throwIfAborted()`](https://dom.spec.whatwg.org/#dom-abortsignal-throwifaborted):
    /// `Err` with the abort reason if this signal is aborted.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, AbortSignal};
    ///
    /// fn step(signal: &AbortSignal) -> whatwg_fetch::Result<()> {
    ///     // Between two pieces of long work: stop with the reason if cancelled.
    ///     signal.throw_if_aborted()?;
    ///     Ok(())
    /// }
    ///
    /// let controller = AbortController::new();
    /// assert!(step(&controller.signal()).is_ok());
    /// controller.abort(None);
    /// assert!(step(&controller.signal()).unwrap_err().is_abort());
    /// ```
    ///
    /// # Errors
    ///
    /// The abort reason itself: an [`ErrorKind::AbortError`](crate::ErrorKind::AbortError) by
    /// default, a [`TimeoutError`](crate::ErrorKind::TimeoutError) from
    /// [`AbortSignal::timeout`], or whatever error the controller was given.
    pub fn throw_if_aborted(&self) -> Result<()> {
        // The throwIfAborted() method steps are to throw this's abort reason, if this is
        // aborted.
        match self.reason() {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// [Add](https://dom.spec.whatwg.org/#abortsignal-add) an abort algorithm: `algorithm`
    /// runs once, with the abort reason, when this signal is aborted.
    ///
    /// Returns a handle to [remove](AbortSignal::remove_algorithm) it. If the signal is
    /// already aborted, nothing is added, as in the spec: `algorithm` is dropped without
    /// running and `None` is returned, so the caller handles the abort itself (the spec's
    /// pattern is to check [`aborted`](AbortSignal::aborted) first and reject at once).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// let seen = Arc::new(Mutex::new(None));
    /// let kept = seen.clone();
    /// let handle = controller.signal().add_algorithm(move |reason| {
    ///     *kept.lock().unwrap() = Some(reason.message().to_owned());
    /// });
    /// assert!(handle.is_some());
    /// controller.abort(None);
    /// assert_eq!(seen.lock().unwrap().as_deref(), Some("This operation was aborted"));
    /// // On a signal already aborted nothing is added: the caller handles the abort itself.
    /// assert!(controller.signal().add_algorithm(|_| {}).is_none());
    /// ```
    pub fn add_algorithm(
        &self,
        algorithm: impl FnOnce(&Error) + Send + 'static,
    ) -> Option<AlgorithmHandle> {
        let mut state = self.shared.lock();
        // Step 1. If signal is aborted, then return.
        if state.reason.is_some() {
            drop(state);
            return None;
        }
        // Step 2. Append algorithm to signal's abort algorithms.
        let id = next_id();
        state.algorithms.insert(id, Box::new(algorithm));
        state.update_keepalive(&self.shared);
        Some(AlgorithmHandle { id })
    }

    /// [Remove](https://dom.spec.whatwg.org/#abortsignal-remove) an abort algorithm: it will
    /// not run.
    ///
    /// Returns whether it was still there (false once it ran, or if `handle` is from another
    /// signal).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// let ran = Arc::new(AtomicBool::new(false));
    /// let flag = ran.clone();
    /// let handle = controller.signal().add_algorithm(move |_| flag.store(true, Ordering::SeqCst));
    /// // The work finished first: the algorithm is not wanted any more.
    /// assert!(controller.signal().remove_algorithm(handle.expect("not aborted yet")));
    /// controller.abort(None);
    /// assert!(!ran.load(Ordering::SeqCst));
    /// ```
    pub fn remove_algorithm(&self, handle: AlgorithmHandle) -> bool {
        // To remove an algorithm algorithm from an AbortSignal signal, remove algorithm from
        // signal's abort algorithms.
        let removed = {
            let mut state = self.shared.lock();
            let removed = state.algorithms.remove(&handle.id);
            state.update_keepalive(&self.shared);
            removed
        };
        // Dropped here, without the lock: the algorithm's captures may use the signal.
        removed.is_some()
    }

    /// Adds a listener for the [`abort`](https://dom.spec.whatwg.org/#eventdef-abortsignal-abort)
    /// event, for a JavaScript binding of `addEventListener("abort", …)` and `onabort`.
    ///
    /// `listener` is called with this signal each time the event is fired, which is once, when
    /// the signal is aborted, after its abort algorithms and before the abort steps of its
    /// dependent signals. A listener added to a signal that is already aborted is kept but
    /// never called, as in the DOM. Listeners are called in the order they were added; one
    /// removed while the event is being fired is not called.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// let fired = Arc::new(AtomicUsize::new(0));
    /// let count = fired.clone();
    /// controller.signal().on_abort_event(move |signal| {
    ///     assert!(signal.aborted());
    ///     count.fetch_add(1, Ordering::SeqCst);
    /// });
    /// controller.abort(None);
    /// controller.abort(None);
    /// // Fired once, when the signal was aborted.
    /// assert_eq!(fired.load(Ordering::SeqCst), 1);
    /// ```
    pub fn on_abort_event(
        &self,
        listener: impl Fn(&AbortSignal) + Send + Sync + 'static,
    ) -> ListenerHandle {
        let id = next_id();
        let listener = Arc::new(Listener {
            removed: AtomicBool::new(false),
            callback: Box::new(listener),
        });
        let mut state = self.shared.lock();
        state.listeners.insert(id, listener);
        state.update_keepalive(&self.shared);
        ListenerHandle { id }
    }

    /// Removes an `abort` event listener added with [`AbortSignal::on_abort_event`].
    ///
    /// Returns whether it was still there (false if `handle` is from another signal or was
    /// removed before).
    ///
    /// ```
    /// use whatwg_fetch::AbortController;
    ///
    /// let controller = AbortController::new();
    /// let signal = controller.signal();
    /// let handle = signal.on_abort_event(|_| unreachable!("removed before the abort"));
    /// assert!(signal.remove_abort_event_listener(handle));
    /// controller.abort(None);
    /// ```
    pub fn remove_abort_event_listener(&self, handle: ListenerHandle) -> bool {
        let removed = {
            let mut state = self.shared.lock();
            let removed = state.listeners.remove(&handle.id);
            state.update_keepalive(&self.shared);
            removed
        };
        match removed {
            Some(listener) => {
                listener.removed.store(true, Ordering::Release);
                true
            }
            None => false,
        }
    }

    /// A future that resolves with the abort reason when this signal is aborted, at once if
    /// it already is.
    ///
    /// The future is cancel-safe: dropping it before it resolves unregisters it. It keeps
    /// this signal alive.
    ///
    /// ```
    /// use whatwg_fetch::abort::AbortController;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let controller = AbortController::new();
    /// let aborted = controller.signal().aborted_future();
    /// controller.abort(None);
    /// let reason = aborted.await;
    /// assert!(reason.same(&controller.signal().reason().unwrap()));
    /// # }
    /// ```
    pub fn aborted_future(&self) -> Aborted {
        Aborted {
            signal: self.clone(),
            key: None,
        }
    }

    /// Whether both are the same signal: a clone, or the signal of one controller fetched
    /// twice.
    ///
    /// ```
    /// use whatwg_fetch::AbortController;
    ///
    /// let one = AbortController::new();
    /// let two = AbortController::new();
    /// assert!(one.signal().same(&one.signal().clone()));
    /// assert!(!one.signal().same(&two.signal()));
    /// ```
    pub fn same(&self, other: &AbortSignal) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl fmt::Debug for AbortSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (reason, dependent) = {
            let state = self.shared.lock();
            (state.reason.clone(), state.dependent)
        };
        f.debug_struct("AbortSignal")
            .field("aborted", &reason.is_some())
            .field("reason", &reason)
            .field("dependent", &dependent)
            .finish()
    }
}

/// [Create a dependent abort signal](https://dom.spec.whatwg.org/#create-a-dependent-abort-signal)
/// from `signals`.
fn create_a_dependent_abort_signal(signals: &[&AbortSignal]) -> AbortSignal {
    // Step 1. Let resultSignal be a new object implementing signalInterface using realm.
    let result_signal = AbortSignal::new_signal();

    // Step 2. For each signal of signals: if signal is aborted, then set resultSignal's abort
    // reason to signal's abort reason and return resultSignal.
    for signal in signals {
        if let Some(reason) = signal.reason() {
            result_signal.shared.lock().reason = Some(reason);
            return result_signal;
        }
    }

    // Step 3. Set resultSignal's dependent to true.
    result_signal.shared.lock().dependent = true;
    // Not in the spec: with no signals there is nothing to follow, and nothing can ever
    // abort the result; it needs no link.
    if signals.is_empty() {
        return result_signal;
    }

    let link = result_signal.shared.new_link();
    // resultSignal's source signals, each with whether it came from AbortSignal::timeout.
    let mut source_signals: Vec<(Arc<Shared>, bool)> = Vec::new();
    // Not in the spec: the reason of a source found aborted by another thread since step 2.
    let mut aborted_meanwhile: Option<Error> = None;

    // Step 4. For each signal of signals:
    for signal in signals {
        let (dependent, its_sources) = {
            let state = signal.shared.lock();
            let its_sources = if state.dependent {
                state.source_signals.clone()
            } else {
                Vec::new()
            };
            (state.dependent, its_sources)
        };
        // Step 4.1. If signal's dependent is false:
        if !dependent {
            // Step 4.1.1. Append signal to resultSignal's source signals.
            // Step 4.1.2. Append resultSignal to signal's dependent signals.
            append_source_signal(
                &mut source_signals,
                &signal.shared,
                &link,
                &mut aborted_meanwhile,
            );
        } else {
            // Step 4.2. Otherwise, for each sourceSignal of signal's source signals:
            // (A source signal that no longer exists can never abort, and is skipped.)
            for source_signal in its_sources.iter().filter_map(Weak::upgrade) {
                // Step 4.2.1. Assert: sourceSignal is not aborted and not dependent.
                // (Dependent signals are never appended to source signals. It may be aborted,
                // by another thread since step 2; append_source_signal handles that.)
                // Step 4.2.2. Append sourceSignal to resultSignal's source signals.
                // Step 4.2.3. Append resultSignal to sourceSignal's dependent signals.
                append_source_signal(
                    &mut source_signals,
                    &source_signal,
                    &link,
                    &mut aborted_meanwhile,
                );
            }
        }
    }
    {
        let mut state = result_signal.shared.lock();
        state.source_signals = source_signals
            .iter()
            .map(|(signal, _)| Arc::downgrade(signal))
            .collect();
        state.timer_sources = source_signals
            .into_iter()
            .filter_map(|(signal, has_timer)| has_timer.then_some(signal))
            .collect();
    }
    if let Some(reason) = aborted_meanwhile {
        // DEVIATION: the spec runs these steps without interruption, so a source it finds
        // not aborted at step 2 is still not aborted at step 4. Another thread may abort a
        // source in between; resultSignal then follows it here, as it would have had it been
        // appended first. No algorithm or listener can be registered on it yet.
        signal_abort(&result_signal.shared, Some(reason));
    }

    // Step 5. Return resultSignal.
    result_signal
}

/// Appends `source_signal` to the result's `source_signals` and the result's `link` to
/// `source_signal`'s dependent signals, unless it is there already (both are sets).
fn append_source_signal(
    source_signals: &mut Vec<(Arc<Shared>, bool)>,
    source_signal: &Arc<Shared>,
    link: &Arc<Link>,
    aborted_meanwhile: &mut Option<Error>,
) {
    if source_signals
        .iter()
        .any(|(s, _)| Arc::ptr_eq(s, source_signal))
    {
        return;
    }
    let mut state = source_signal.lock();
    debug_assert!(
        !state.dependent,
        "a dependent signal is never a source signal"
    );
    if let Some(reason) = &state.reason {
        aborted_meanwhile.get_or_insert_with(|| reason.clone());
        return;
    }
    state.append_dependent_signal(Arc::clone(link));
    let has_timer = state.has_timer;
    drop(state);
    source_signals.push((Arc::clone(source_signal), has_timer));
}

/// The step of [`AbortSignal::timeout`] that runs when the timeout elapses: signal abort
/// given signal and a new "TimeoutError" DOMException.
fn abort_on_timeout(link: &Link) {
    if let Some(signal) = link.signal.upgrade() {
        signal_abort(&signal, Some(Error::timeout_error()));
    }
}

/// The future of [`AbortSignal::aborted_future`]: resolves with the abort reason.
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::AbortController;
///
/// let controller = AbortController::new();
/// let aborted = controller.signal().aborted_future();
/// controller.abort(None);
/// assert!(aborted.await.is_abort());
/// # });
/// ```
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Aborted {
    signal: AbortSignal,
    /// The key of this future's waker in the signal's wakers, once registered.
    key: Option<u64>,
}

impl Future for Aborted {
    type Output = Error;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Error> {
        let this = self.get_mut();
        // Cloned before locking: cloning a waker may run arbitrary code.
        let waker = cx.waker().clone();
        let mut state = this.signal.shared.lock();
        if let Some(reason) = state.reason.clone() {
            let registered = this.key.take().and_then(|key| state.wakers.remove(&key));
            drop(state);
            drop(registered);
            return Poll::Ready(reason);
        }
        let key = *this.key.get_or_insert_with(next_id);
        // The waker it replaces is dropped after the lock is released.
        let replaced = match state.wakers.get_mut(&key) {
            Some(registered) if registered.will_wake(&waker) => Some(waker),
            Some(registered) => Some(mem::replace(registered, waker)),
            None => state.wakers.insert(key, waker),
        };
        drop(state);
        drop(replaced);
        Poll::Pending
    }
}

impl Drop for Aborted {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let registered = self.signal.shared.lock().wakers.remove(&key);
            drop(registered);
        }
    }
}

/// The background thread that runs the timers of [`AbortSignal::timeout`] outside a tokio
/// runtime.
mod timer_thread {
    use super::*;

    struct Entry {
        deadline: Instant,
        /// Orders entries with the same deadline by when they were scheduled.
        seq: u64,
        link: Arc<Link>,
    }

    impl PartialEq for Entry {
        fn eq(&self, other: &Entry) -> bool {
            (self.deadline, self.seq) == (other.deadline, other.seq)
        }
    }

    impl Eq for Entry {}

    impl PartialOrd for Entry {
        fn partial_cmp(&self, other: &Entry) -> Option<CmpOrdering> {
            Some(self.cmp(other))
        }
    }

    impl Ord for Entry {
        /// Reversed, so that the max-heap pops the earliest deadline first.
        fn cmp(&self, other: &Entry) -> CmpOrdering {
            (other.deadline, other.seq).cmp(&(self.deadline, self.seq))
        }
    }

    struct Queue {
        entries: Mutex<BinaryHeap<Entry>>,
        changed: Condvar,
    }

    static QUEUE: OnceLock<Option<Arc<Queue>>> = OnceLock::new();

    /// Aborts the signal of `link` with a new `TimeoutError` after `duration`.
    pub(super) fn schedule(duration: Duration, link: Arc<Link>) {
        let Some(deadline) = Instant::now().checked_add(duration) else {
            // Beyond what the clock can represent: it never elapses.
            return;
        };
        let Some(queue) = QUEUE.get_or_init(start) else {
            return;
        };
        queue
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Entry {
                deadline,
                seq: next_id(),
                link,
            });
        queue.changed.notify_one();
    }

    fn start() -> Option<Arc<Queue>> {
        let queue = Arc::new(Queue {
            entries: Mutex::new(BinaryHeap::new()),
            changed: Condvar::new(),
        });
        let runner = Arc::clone(&queue);
        std::thread::Builder::new()
            .name("abort-signal-timeout".into())
            .spawn(move || run(&runner))
            .ok()
            .map(|_| queue)
    }

    fn run(queue: &Queue) {
        let mut entries = queue.entries.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let now = Instant::now();
            let wait = match entries.peek() {
                None => None,
                Some(entry) if entry.deadline <= now => {
                    let due = entries.pop();
                    drop(entries);
                    if let Some(due) = due {
                        // A panicking callback must not stop the timers of other signals.
                        let mut panic = None;
                        guarded(&mut panic, || abort_on_timeout(&due.link));
                    }
                    entries = queue.entries.lock().unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
                Some(entry) => Some(entry.deadline.saturating_duration_since(now)),
            };
            entries = match wait {
                None => queue
                    .changed
                    .wait(entries)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(wait) => {
                    queue
                        .changed
                        .wait_timeout(entries, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::mpsc;

    fn waker_count(signal: &AbortSignal) -> usize {
        signal.shared.lock().wakers.len()
    }

    fn dependent_count(signal: &AbortSignal) -> usize {
        signal.shared.lock().dependent_signals.len()
    }

    #[test]
    fn dropped_futures_unregister_their_wakers() {
        let controller = AbortController::new();
        let signal = controller.signal();
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..10_000 {
            let mut future = signal.aborted_future();
            assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
            assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
            assert_eq!(waker_count(&signal), 1);
        }
        assert_eq!(waker_count(&signal), 0);

        let mut pending: Vec<Aborted> = (0..100).map(|_| signal.aborted_future()).collect();
        for future in &mut pending {
            assert!(Pin::new(future).poll(&mut cx).is_pending());
        }
        assert_eq!(waker_count(&signal), 100);
        controller.abort(None);
        assert_eq!(waker_count(&signal), 0);
        for future in &mut pending {
            assert!(Pin::new(future).poll(&mut cx).is_ready());
        }
        drop(pending);
        assert_eq!(waker_count(&signal), 0);
    }

    #[test]
    fn dropped_dependents_are_pruned_from_a_long_lived_source() {
        let controller = AbortController::new();
        let source = controller.signal();
        for _ in 0..10_000 {
            drop(AbortSignal::any([&source]));
        }
        assert!(dependent_count(&source) <= 2 * PRUNE_MIN);

        let live: Vec<AbortSignal> = (0..100).map(|_| AbortSignal::any([&source])).collect();
        assert!(dependent_count(&source) >= 100);
        assert!(dependent_count(&source) <= 2 * 100 + PRUNE_MIN);
        drop(live);
    }

    #[test]
    fn dropped_dependent_without_callbacks_is_freed() {
        let controller = AbortController::new();
        let dependent = AbortSignal::any([&controller.signal()]);
        let weak = Arc::downgrade(&dependent.shared);
        drop(dependent);
        assert!(weak.upgrade().is_none());
    }

    #[test]
    fn dependent_with_an_algorithm_is_kept_until_it_runs() {
        let controller = AbortController::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let dependent = AbortSignal::any([&controller.signal()]);
        let weak = Arc::downgrade(&dependent.shared);
        let counter = Arc::clone(&ran);
        dependent.add_algorithm(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        drop(dependent);
        assert!(weak.upgrade().is_some());
        controller.abort(None);
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        assert!(weak.upgrade().is_none());
    }

    #[test]
    fn dependent_is_released_when_its_algorithm_is_removed() {
        let controller = AbortController::new();
        let dependent = AbortSignal::any([&controller.signal()]);
        let weak = Arc::downgrade(&dependent.shared);
        let handle = dependent.add_algorithm(|_| {});
        let listener = dependent.on_abort_event(|_| {});
        assert!(handle.is_some_and(|handle| dependent.remove_algorithm(handle)));
        assert!(dependent.remove_abort_event_listener(listener));
        drop(dependent);
        assert!(weak.upgrade().is_none());
    }

    #[test]
    fn dependent_is_freed_when_its_sources_are() {
        let controller = AbortController::new();
        let dependent = AbortSignal::any([&controller.signal()]);
        let weak = Arc::downgrade(&dependent.shared);
        dependent.on_abort_event(|_| {});
        drop(dependent);
        assert!(weak.upgrade().is_some());
        drop(controller);
        assert!(weak.upgrade().is_none());
    }

    #[test]
    fn timeout_outside_a_runtime_uses_the_timer_thread() {
        let (sender, receiver) = mpsc::channel();
        let signal = AbortSignal::timeout_ms(10);
        let sender = Mutex::new(sender);
        signal.on_abort_event(move |signal| {
            let reason = signal.reason().map(|reason| reason.kind());
            let _ = sender.lock().map(|sender| sender.send(reason));
        });
        // Dropped: the listener keeps it alive until the timer fires.
        drop(signal);
        let kind = receiver.recv_timeout(Duration::from_secs(10));
        assert_eq!(kind, Ok(Some(crate::ErrorKind::TimeoutError)));
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_a_timeout_signal_stops_its_timer() {
        let signal = AbortSignal::timeout_ms(60_000);
        let timer = signal.shared.lock().timer.clone();
        let timer = timer.expect("timer task inside a runtime");
        assert!(!timer.is_finished());
        drop(signal);
        tokio::task::yield_now().await;
        assert!(timer.is_finished());
    }

    #[test]
    fn panicking_algorithm_does_not_stop_the_abort_steps() {
        let controller = AbortController::new();
        let dependent = AbortSignal::any([&controller.signal()]);
        let ran = Arc::new(AtomicUsize::new(0));
        controller
            .signal()
            .add_algorithm(|_| panic!("algorithm panics"));
        let counter = Arc::clone(&ran);
        dependent.add_algorithm(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let result = panic::catch_unwind(AssertUnwindSafe(|| controller.abort(None)));
        assert!(result.is_err());
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        assert!(dependent.aborted());
    }
}

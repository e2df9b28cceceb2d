//! The read timeout's timer ([`HyperTransportBuilder::read_timeout`]): one per HTTP/1.1
//! connection, set again for each wait rather than made anew.
//!
//! A `tokio::time::Sleep` made for every response head costs an allocation, an insertion
//! into the runtime's timer wheel and a removal from it. A connection keeps one
//! [`ReadTimer`] across its requests instead, and setting it for a new wait only notes
//! the new deadline: the `Sleep` keeps the deadline it has, and when that passes, it is
//! moved to the noted one if that is later. Deadlines only grow (each is the read timeout
//! from a later moment), so a wait costs reading the clock, and a `Sleep` wakes its task
//! once per read timeout at most to be moved on. The timer still passes at the very
//! deadline of the current wait.
//!
//! The wait for a response head sets the connection's timer (kept in `io::Reused`); the
//! response body, which holds the connection until its end, sets the same timer again for
//! each of its waits between chunks. An HTTP/2 request, which shares its connection,
//! takes a timer of its own from those its connection keeps for its requests, sets it for
//! the wait for its head and then for each wait of its body, and gives it back once the
//! body ends (`LentTimer` in `net/h2.rs`); a body whose connection will not be reused
//! makes one of its own.
//!
//! Between requests the timer stays in the wheel until its deadline passes, it is set
//! again, or the connection closes: an HTTP/1.1 connection's with the waker of the last
//! task that waited on it, a kept HTTP/2 one with a waker that does nothing
//! ([`ReadTimer::forget_waker`]).
//!
//! A timer belongs to the runtime that made it, and polling it after that runtime has
//! shut down panics; a connection may be reused from another runtime than the one that
//! made it. So a timer is only ever set and polled on its own runtime: on another, a new
//! one replaces it.
//!
//! [`HyperTransportBuilder::read_timeout`]: super::HyperTransportBuilder::read_timeout

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

/// A deadline far enough away never to come: what a timeout too long for `Instant` to add
/// waits for (Tokio's own `sleep` uses the same 30 years).
pub(crate) const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// A timer to set, wait on, and set again (see the [module documentation](self)).
///
/// One allocation, moved as a pointer with its connection.
pub(crate) struct ReadTimer(Pin<Box<Timer>>);

pin_project_lite::pin_project! {
    struct Timer {
        // Its deadline may be earlier than `deadline`, never later.
        #[pin]
        sleep: Sleep,
        // When the current wait times out.
        deadline: Instant,
        // The runtime whose timer wheel holds `sleep`.
        runtime: tokio::runtime::Id,
        // The task that last set it, on `runtime`: a task runs on one runtime all its
        // life, so the same task setting it again needs no asking which runtime it is on.
        task: Option<tokio::task::Id>,
    }
}

/// The id of the runtime the current `task` runs on; `None` outside a runtime. Known
/// without asking Tokio (which clones the runtime's handle, a count every worker thread
/// touches) when `timer` was last set by that task: a task runs on one runtime all its
/// life.
fn current_runtime(
    timer: Option<&Timer>,
    task: Option<tokio::task::Id>,
) -> Option<tokio::runtime::Id> {
    match timer {
        Some(timer) if task.is_some() && timer.task == task => Some(timer.runtime),
        _ => Some(tokio::runtime::Handle::try_current().ok()?.id()),
    }
}

impl ReadTimer {
    /// Sets `timer` to pass `timeout` from now, making it if there is none, or none of
    /// the current runtime. `None` outside a Tokio runtime, where there is no timer to
    /// wait on.
    pub(crate) fn set(timer: &mut Option<ReadTimer>, timeout: Duration) -> Option<&mut ReadTimer> {
        let task = tokio::task::try_id();
        let runtime = current_runtime(timer.as_ref().map(|ReadTimer(state)| &**state), task)?;
        let now = Instant::now();
        let deadline = now
            .checked_add(timeout)
            .or_else(|| now.checked_add(FAR_FUTURE))
            .unwrap_or(now);
        match timer {
            Some(ReadTimer(state)) if state.runtime == runtime => {
                let state = state.as_mut().project();
                *state.deadline = deadline;
                *state.task = task;
                if state.sleep.deadline() > deadline {
                    // Never while deadlines grow; should one not, the `Sleep` must not
                    // pass after it.
                    state.sleep.reset(deadline);
                }
            }
            _ => {
                *timer = Some(ReadTimer(Box::pin(Timer {
                    sleep: tokio::time::sleep_until(deadline),
                    deadline,
                    runtime,
                    task,
                })));
            }
        }
        timer.as_mut()
    }

    /// Drops the waker of the task that last waited on the timer, for one that does
    /// nothing: a timer kept for later keeps no finished task's memory alive. (Only on
    /// the timer's own runtime, as polling it elsewhere may panic.)
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub(crate) fn forget_waker(&mut self) {
        if current_runtime(Some(&self.0), tokio::task::try_id()) == Some(self.0.runtime) {
            let _ = self.poll_elapsed(&mut Context::from_waker(std::task::Waker::noop()));
        }
    }

    /// Whether the deadline has passed; if not, the task is woken when it does.
    pub(crate) fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> bool {
        let mut state = self.0.as_mut().project();
        while state.sleep.as_mut().poll(cx).is_ready() {
            if state.sleep.deadline() >= *state.deadline {
                return true;
            }
            // The deadline of an earlier wait: on to this one's.
            state.sleep.as_mut().reset(*state.deadline);
        }
        false
    }
}

pin_project_lite::pin_project! {
    /// `future`, failing with `Err(())` if `timer` passes first. The timer is set before,
    /// by the caller; without one, `future` may take as long as it takes.
    pub(crate) struct ReadTimeout<'t, F> {
        #[pin]
        future: F,
        timer: Option<&'t mut ReadTimer>,
    }
}

impl<'t, F: Future> ReadTimeout<'t, F> {
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub(crate) fn new(future: F, timer: Option<&'t mut ReadTimer>) -> ReadTimeout<'t, F> {
        ReadTimeout { future, timer }
    }
}

impl<F: Future> Future for ReadTimeout<'_, F> {
    type Output = Result<F::Output, ()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Ok(output));
        }
        if let Some(timer) = this.timer.as_mut() {
            if timer.poll_elapsed(cx) {
                return Poll::Ready(Err(()));
            }
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_timer_set_again_passes_its_new_deadline_not_its_first() {
        let mut timer = None;
        ReadTimer::set(&mut timer, Duration::from_secs(10)).unwrap();
        tokio::time::sleep(Duration::from_secs(6)).await;
        let start = Instant::now();
        let timer = ReadTimer::set(&mut timer, Duration::from_secs(10)).unwrap();
        std::future::poll_fn(|cx| match timer.poll_elapsed(cx) {
            true => Poll::Ready(()),
            false => Poll::Pending,
        })
        .await;
        let waited = start.elapsed();
        assert!(
            waited >= Duration::from_secs(10) && waited < Duration::from_secs(11),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timer_made_on_another_runtime_is_replaced() {
        let other = std::thread::spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap();
            let mut timer = None;
            runtime.block_on(async {
                ReadTimer::set(&mut timer, Duration::from_secs(1));
            });
            let made_on = timer.as_ref().map(|timer| timer.0.runtime);
            (timer, made_on)
        });
        let (mut timer, made_on) = other.join().unwrap();
        let here = tokio::runtime::Handle::current().id();
        assert_ne!(made_on, Some(here));
        assert_eq!(
            ReadTimer::set(&mut timer, Duration::from_secs(1)).map(|timer| timer.0.runtime),
            Some(here)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timer_is_kept_when_set_again_by_its_task_and_replaced_on_another_runtime() {
        let mut timer = tokio::spawn(async {
            let mut timer = None;
            ReadTimer::set(&mut timer, Duration::from_secs(1));
            let made: *const Timer = &*timer.as_ref().unwrap().0;
            ReadTimer::set(&mut timer, Duration::from_secs(1));
            let again: *const Timer = &*timer.as_ref().unwrap().0;
            assert_eq!(made, again, "set again by its task, it is the same timer");
            timer
        })
        .await
        .unwrap();
        // A task of another runtime, whose id may be anything, gets a timer of its own.
        let other = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap();
            let here = runtime.handle().id();
            let set_on = runtime.block_on(async move {
                tokio::spawn(async move {
                    ReadTimer::set(&mut timer, Duration::from_secs(1)).map(|timer| timer.0.runtime)
                })
                .await
                .unwrap()
            });
            (here, set_on)
        });
        let (here, set_on) = other.join().unwrap();
        assert_eq!(set_on, Some(here));
    }

    #[test]
    fn outside_a_runtime_there_is_no_timer() {
        let mut timer = None;
        assert!(ReadTimer::set(&mut timer, Duration::from_secs(1)).is_none());
        assert!(timer.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_too_long_for_instant_never_passes() {
        let mut timer = None;
        assert!(ReadTimer::set(&mut timer, Duration::MAX).is_some());
        tokio::time::sleep(Duration::from_secs(86_400 * 365)).await;
        let timer = ReadTimer::set(&mut timer, Duration::MAX).unwrap();
        let elapsed = std::future::poll_fn(|cx| Poll::Ready(timer.poll_elapsed(cx))).await;
        assert!(!elapsed);
    }
}

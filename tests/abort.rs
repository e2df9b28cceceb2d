//! AbortController and AbortSignal, against the DOM Standard's "Aborting ongoing activities".

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use whatwg_fetch::abort::{AbortController, AbortSignal, Aborted, AlgorithmHandle, ListenerHandle};
use whatwg_fetch::{Error, ErrorKind};

/// A shared, ordered record of which callbacks ran.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }

    fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

fn custom_reason(value: &'static str) -> Error {
    Error::custom("caller's reason", Arc::new(value))
}

/// Awaits the abort of `signal`, failing the test if it takes more than a minute (of paused
/// time, in the tests that pause it) instead of hanging.
async fn aborted_within_a_minute(signal: &AbortSignal) -> Error {
    tokio::time::timeout(Duration::from_secs(60), signal.aborted_future())
        .await
        .expect("the signal was not aborted within a minute")
}

#[test]
fn signal_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    fn assert_send_future<F: std::future::Future<Output = Error> + Send + Unpin + 'static>() {}
    assert_send_sync::<AbortSignal>();
    assert_send_sync::<AbortController>();
    assert_send_sync::<Aborted>();
    assert_send_sync::<AlgorithmHandle>();
    assert_send_sync::<ListenerHandle>();
    assert_send_future::<Aborted>();
}

#[test]
fn new_controller_signal_is_not_aborted() {
    let controller = AbortController::default();
    let signal = controller.signal();
    assert!(!signal.aborted());
    assert!(signal.reason().is_none());
    assert!(signal.throw_if_aborted().is_ok());
}

#[test]
fn controller_signal_is_the_same_object_every_call() {
    let controller = AbortController::new();
    assert!(controller.signal().same(&controller.signal()));
    assert!(!controller.signal().same(&AbortController::new().signal()));
}

#[test]
fn default_reason_is_abort_error() {
    let controller = AbortController::new();
    controller.abort(None);
    let signal = controller.signal();
    assert!(signal.aborted());
    let reason = signal.reason().expect("aborted signal has a reason");
    assert_eq!(reason.kind(), ErrorKind::AbortError);
    // The reason getter returns the same value every time.
    assert!(reason.same(&signal.reason().unwrap()));
    let thrown = signal.throw_if_aborted().unwrap_err();
    assert!(thrown.same(&reason));
}

#[test]
fn custom_reason_is_kept_identically() {
    let controller = AbortController::new();
    let reason = custom_reason("why");
    controller.abort(Some(reason.clone()));
    let signal = controller.signal();
    let got = signal.reason().unwrap();
    assert!(got.same(&reason));
    assert_eq!(got.kind(), ErrorKind::Custom);
    let payload = got.payload().and_then(|p| p.downcast_ref::<&str>());
    assert_eq!(payload, Some(&"why"));
    assert!(signal.throw_if_aborted().unwrap_err().same(&reason));
}

#[test]
fn any_error_kind_can_be_a_reason() {
    let controller = AbortController::new();
    let reason = Error::type_error("not an abort");
    controller.abort(Some(reason.clone()));
    assert_eq!(
        controller.signal().reason().unwrap().kind(),
        ErrorKind::TypeError
    );
    assert!(controller.signal().reason().unwrap().same(&reason));
}

#[test]
fn aborting_twice_keeps_the_first_reason_and_runs_algorithms_once() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let runs = Arc::new(AtomicUsize::new(0));
    let events = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    signal.add_algorithm(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let counter = Arc::clone(&events);
    signal.on_abort_event(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });

    let first = custom_reason("first");
    controller.abort(Some(first.clone()));
    controller.abort(Some(custom_reason("second")));
    controller.abort(None);

    assert!(signal.reason().unwrap().same(&first));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(events.load(Ordering::SeqCst), 1);
}

#[test]
fn algorithms_run_in_the_order_added_with_the_reason() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let reason = custom_reason("r");
    for name in ["a", "b", "c"] {
        let log = log.clone();
        let expected = reason.clone();
        signal.add_algorithm(move |got| {
            assert!(got.same(&expected));
            log.push(name);
        });
    }
    controller.abort(Some(reason));
    assert_eq!(log.entries(), ["a", "b", "c"]);
}

#[test]
fn removed_algorithm_does_not_run() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let first = log.clone();
    signal.add_algorithm(move |_| first.push("kept"));
    let removed = log.clone();
    let handle = signal
        .add_algorithm(move |_| removed.push("removed"))
        .unwrap();
    assert!(signal.remove_algorithm(handle));
    assert!(!signal.remove_algorithm(handle));
    controller.abort(None);
    assert_eq!(log.entries(), ["kept"]);
}

#[test]
fn algorithm_removed_by_an_earlier_algorithm_does_not_run() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let later: Arc<Mutex<Option<AlgorithmHandle>>> = Arc::default();
    let (first_log, first_signal, first_later) = (log.clone(), signal.clone(), Arc::clone(&later));
    signal.add_algorithm(move |_| {
        first_log.push("first");
        let handle = first_later.lock().unwrap().take().unwrap();
        assert!(first_signal.remove_algorithm(handle));
    });
    let second_log = log.clone();
    *later.lock().unwrap() = signal.add_algorithm(move |_| second_log.push("second"));
    controller.abort(None);
    assert_eq!(log.entries(), ["first"]);
}

#[test]
fn algorithm_handle_from_another_signal_removes_nothing() {
    let a = AbortController::new();
    let b = AbortController::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    a.signal().add_algorithm(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let other = b.signal().add_algorithm(|_| {}).unwrap();
    assert!(!a.signal().remove_algorithm(other));
    a.abort(None);
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[test]
fn adding_an_algorithm_to_an_aborted_signal_does_nothing() {
    let signal = AbortSignal::abort(None);
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    let handle = signal.add_algorithm(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    assert!(handle.is_none());
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    // The closure was dropped, not kept.
    assert_eq!(Arc::strong_count(&ran), 1);
}

#[test]
fn algorithm_ran_cannot_be_removed() {
    let controller = AbortController::new();
    let handle = controller.signal().add_algorithm(|_| {}).unwrap();
    controller.abort(None);
    assert!(!controller.signal().remove_algorithm(handle));
}

#[test]
fn static_abort_is_aborted_without_events() {
    let signal = AbortSignal::abort(None);
    assert!(signal.aborted());
    assert_eq!(signal.reason().unwrap().kind(), ErrorKind::AbortError);

    let reason = custom_reason("static");
    let signal = AbortSignal::abort(Some(reason.clone()));
    assert!(signal.reason().unwrap().same(&reason));
    assert!(signal.throw_if_aborted().unwrap_err().same(&reason));

    // Each call is a new signal with a new default reason.
    let a = AbortSignal::abort(None);
    let b = AbortSignal::abort(None);
    assert!(!a.same(&b));
    assert!(!a.reason().unwrap().same(&b.reason().unwrap()));
}

#[test]
fn listener_added_to_an_aborted_signal_never_runs() {
    let controller = AbortController::new();
    controller.abort(None);
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    controller.signal().on_abort_event(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    controller.abort(None);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[test]
fn event_fires_after_the_algorithms_with_the_signal_as_target() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let listener_log = log.clone();
    let target = signal.clone();
    signal.on_abort_event(move |fired_at| {
        assert!(fired_at.same(&target));
        assert!(fired_at.aborted());
        listener_log.push("event 1");
    });
    let algorithm_log = log.clone();
    signal.add_algorithm(move |_| algorithm_log.push("algorithm"));
    let listener_log = log.clone();
    signal.on_abort_event(move |_| listener_log.push("event 2"));
    controller.abort(None);
    assert_eq!(log.entries(), ["algorithm", "event 1", "event 2"]);
}

#[test]
fn removed_listener_does_not_run() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let listener_log = log.clone();
    let handle = signal.on_abort_event(move |_| listener_log.push("removed"));
    assert!(signal.remove_abort_event_listener(handle));
    assert!(!signal.remove_abort_event_listener(handle));
    controller.abort(None);
    assert!(log.entries().is_empty());
}

#[test]
fn listener_removed_or_added_during_dispatch_does_not_run() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let log = Log::default();
    let second: Arc<Mutex<Option<ListenerHandle>>> = Arc::default();
    let (first_log, first_second) = (log.clone(), Arc::clone(&second));
    signal.on_abort_event(move |signal| {
        first_log.push("first");
        let handle = first_second.lock().unwrap().take().unwrap();
        assert!(signal.remove_abort_event_listener(handle));
        let added_log = first_log.clone();
        signal.on_abort_event(move |_| added_log.push("added during dispatch"));
    });
    let second_log = log.clone();
    *second.lock().unwrap() = Some(signal.on_abort_event(move |_| second_log.push("second")));
    controller.abort(None);
    assert_eq!(log.entries(), ["first"]);
}

#[test]
fn callbacks_may_call_back_into_signals() {
    let outer = AbortController::new();
    let inner = Arc::new(AbortController::new());
    let signal = outer.signal();
    let log = Log::default();

    let (algorithm_log, algorithm_inner) = (log.clone(), Arc::clone(&inner));
    signal.add_algorithm(move |reason| {
        // Reading the signal, adding to it and aborting another controller from an
        // algorithm must not deadlock.
        let signal_reason = algorithm_inner.signal().reason();
        assert!(signal_reason.is_none());
        algorithm_inner.abort(Some(reason.clone()));
        algorithm_log.push("algorithm");
    });
    let listener_log = log.clone();
    signal.on_abort_event(move |signal| {
        assert!(signal.reason().is_some());
        assert!(signal.add_algorithm(|_| {}).is_none());
        let resolved = signal.aborted_future().now_or_never();
        assert!(resolved.is_some_and(|reason| reason.same(&signal.reason().unwrap())));
        listener_log.push("event");
    });
    let inner_log = log.clone();
    inner
        .signal()
        .add_algorithm(move |_| inner_log.push("inner algorithm"));

    outer.abort(None);
    assert_eq!(log.entries(), ["inner algorithm", "algorithm", "event"]);
    assert!(
        inner
            .signal()
            .reason()
            .unwrap()
            .same(&signal.reason().unwrap())
    );
}

#[test]
fn any_with_an_already_aborted_input_is_aborted_with_its_reason() {
    let live = AbortController::new();
    let first = custom_reason("first");
    let second = custom_reason("second");
    let aborted_first = AbortSignal::abort(Some(first.clone()));
    let aborted_second = AbortSignal::abort(Some(second));

    let signal = AbortSignal::any([&live.signal(), &aborted_first, &aborted_second]);
    assert!(signal.aborted());
    assert!(signal.reason().unwrap().same(&first));

    // Nothing runs for it later.
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    signal.on_abort_event(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    live.abort(None);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert!(signal.reason().unwrap().same(&first));
}

#[test]
fn any_follows_the_first_source_to_abort() {
    let a = AbortController::new();
    let b = AbortController::new();
    let signal = AbortSignal::any([&a.signal(), &b.signal()]);
    assert!(!signal.aborted());

    let reason = custom_reason("b");
    b.abort(Some(reason.clone()));
    assert!(signal.aborted());
    assert!(signal.reason().unwrap().same(&reason));

    a.abort(None);
    assert!(signal.reason().unwrap().same(&reason));
    assert!(!a.signal().reason().unwrap().same(&reason));
}

#[test]
fn any_default_reason_is_the_sources_abort_error() {
    let controller = AbortController::new();
    let signal = AbortSignal::any([&controller.signal()]);
    controller.abort(None);
    let reason = signal.reason().unwrap();
    assert_eq!(reason.kind(), ErrorKind::AbortError);
    assert!(reason.same(&controller.signal().reason().unwrap()));
}

#[test]
fn any_of_nothing_is_never_aborted() {
    let signal = AbortSignal::any([]);
    assert!(!signal.aborted());
}

#[test]
fn any_of_the_same_signal_twice_runs_once() {
    let controller = AbortController::new();
    let source = controller.signal();
    let signal = AbortSignal::any([&source, &source, &AbortSignal::any([&source])]);
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    signal.on_abort_event(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    controller.abort(None);
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[test]
fn any_of_dependent_signals_follows_their_sources() {
    let a = AbortController::new();
    let b = AbortController::new();
    let c = AbortController::new();
    let inner = AbortSignal::any([&a.signal(), &b.signal()]);
    let outer = AbortSignal::any([&inner, &c.signal()]);
    // Flattened: outer depends on a, b and c themselves, so it does not need inner.
    drop(inner);

    let reason = custom_reason("b");
    b.abort(Some(reason.clone()));
    assert!(outer.aborted());
    assert!(outer.reason().unwrap().same(&reason));
}

#[test]
fn reason_identity_propagates_through_chains_of_any() {
    let controller = AbortController::new();
    let mut signal = controller.signal();
    let mut chain = Vec::new();
    for _ in 0..5 {
        signal = AbortSignal::any([&signal]);
        chain.push(signal.clone());
    }
    let reason = custom_reason("deep");
    controller.abort(Some(reason.clone()));
    for signal in &chain {
        assert!(signal.reason().unwrap().same(&reason));
    }
}

#[test]
fn source_steps_run_before_each_dependents_in_order() {
    let controller = AbortController::new();
    let source = controller.signal();
    let first = AbortSignal::any([&source]);
    let second = AbortSignal::any([&first]);
    let log = Log::default();

    for (name, signal) in [("second", &second), ("first", &first), ("source", &source)] {
        let algorithm_log = log.clone();
        let (dependent_1, dependent_2) = (first.clone(), second.clone());
        signal.add_algorithm(move |_| {
            // Every dependent's reason is set before any abort steps run.
            assert!(dependent_1.aborted() && dependent_2.aborted());
            algorithm_log.push(format!("{name} algorithm"));
        });
        let listener_log = log.clone();
        signal.on_abort_event(move |_| listener_log.push(format!("{name} event")));
    }
    controller.abort(None);
    assert_eq!(
        log.entries(),
        [
            "source algorithm",
            "source event",
            "first algorithm",
            "first event",
            "second algorithm",
            "second event",
        ]
    );
}

#[test]
fn dropped_dependent_with_a_listener_still_fires() {
    let controller = AbortController::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    AbortSignal::any([&controller.signal()]).on_abort_event(move |signal| {
        assert!(signal.aborted());
        counter.fetch_add(1, Ordering::SeqCst);
    });
    controller.abort(None);
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn timeout_aborts_with_timeout_error_after_the_delay() {
    let start = tokio::time::Instant::now();
    let signal = AbortSignal::timeout_ms(1_000);
    let log = Log::default();
    let event_log = log.clone();
    signal.on_abort_event(move |_| event_log.push("event"));

    tokio::time::sleep(Duration::from_millis(999)).await;
    assert!(!signal.aborted());

    let reason = aborted_within_a_minute(&signal).await;
    assert_eq!(start.elapsed(), Duration::from_millis(1_000));
    assert_eq!(reason.kind(), ErrorKind::TimeoutError);
    assert!(reason.same(&signal.reason().unwrap()));
    assert_eq!(log.entries(), ["event"]);
}

#[tokio::test(start_paused = true)]
async fn timeout_zero_aborts_on_the_next_tick() {
    let signal = AbortSignal::timeout_ms(0);
    assert!(!signal.aborted());
    assert_eq!(
        aborted_within_a_minute(&signal).await.kind(),
        ErrorKind::TimeoutError
    );
}

#[tokio::test(start_paused = true)]
async fn dropped_timeout_signal_with_a_listener_still_fires() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    AbortSignal::timeout_ms(50).on_abort_event(move |signal| {
        assert_eq!(signal.reason().unwrap().kind(), ErrorKind::TimeoutError);
        counter.fetch_add(1, Ordering::SeqCst);
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn any_with_a_timeout_takes_the_timeout_reason() {
    let controller = AbortController::new();
    let timeout = AbortSignal::timeout_ms(10);
    let signal = AbortSignal::any([&controller.signal(), &timeout]);
    let reason = aborted_within_a_minute(&signal).await;
    assert_eq!(reason.kind(), ErrorKind::TimeoutError);
    assert!(reason.same(&timeout.reason().unwrap()));
    assert!(!controller.signal().aborted());
}

#[tokio::test(start_paused = true)]
async fn any_keeps_an_otherwise_dropped_timeout_running() {
    let start = tokio::time::Instant::now();
    let signal = AbortSignal::any([&AbortSignal::timeout_ms(10)]);
    let flattened = AbortSignal::any([&AbortSignal::any([&AbortSignal::timeout_ms(20)])]);
    assert_eq!(
        aborted_within_a_minute(&signal).await.kind(),
        ErrorKind::TimeoutError
    );
    assert_eq!(start.elapsed(), Duration::from_millis(10));
    assert_eq!(
        aborted_within_a_minute(&flattened).await.kind(),
        ErrorKind::TimeoutError
    );
    assert_eq!(start.elapsed(), Duration::from_millis(20));
}

#[test]
fn any_keeps_an_otherwise_dropped_timeout_running_outside_a_runtime() {
    let signal = AbortSignal::any([&AbortSignal::timeout_ms(5)]);
    let reason = block_on(signal.aborted_future(), Duration::from_secs(10));
    assert_eq!(reason.map(|r| r.kind()), Some(ErrorKind::TimeoutError));
}

/// Runs `future` on this thread, outside any runtime; `None` if it is not done in `limit`.
fn block_on<F: std::future::Future>(future: F, limit: Duration) -> Option<F::Output> {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let deadline = std::time::Instant::now() + limit;
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Some(output);
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::park_timeout(deadline - now);
    }
}

#[tokio::test]
async fn aborted_future_resolves_when_aborted() {
    let controller = AbortController::new();
    let future = controller.signal().aborted_future();
    let waiter = tokio::spawn(future);
    tokio::task::yield_now().await;
    let reason = custom_reason("later");
    controller.abort(Some(reason.clone()));
    let got = waiter.await.unwrap();
    assert!(got.same(&reason));
}

#[tokio::test]
async fn aborted_future_resolves_at_once_when_already_aborted() {
    let reason = custom_reason("before");
    let signal = AbortSignal::abort(Some(reason.clone()));
    let got = tokio::time::timeout(Duration::from_secs(5), signal.aborted_future())
        .await
        .unwrap();
    assert!(got.same(&reason));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborted_future_is_woken_from_another_thread() {
    let controller = AbortController::new();
    let signal = controller.signal();
    let waiters: Vec<_> = (0..8)
        .map(|_| tokio::spawn(signal.aborted_future()))
        .collect();
    let aborter = std::thread::spawn(move || controller.abort(None));
    for waiter in waiters {
        let reason = tokio::time::timeout(Duration::from_secs(10), waiter)
            .await
            .unwrap()
            .unwrap();
        assert!(reason.same(&signal.reason().unwrap()));
    }
    aborter.join().unwrap();
}

#[tokio::test]
async fn aborted_future_loses_a_race_cleanly() {
    let controller = AbortController::new();
    let signal = controller.signal();
    for _ in 0..1_000 {
        tokio::select! {
            _ = signal.aborted_future() => unreachable!("never aborted"),
            _ = tokio::task::yield_now() => {}
        }
    }
    controller.abort(None);
    assert_eq!(signal.aborted_future().await.kind(), ErrorKind::AbortError);
}

#[test]
fn abort_events_of_any_signals_fire_in_creation_order() {
    let controller = AbortController::new();
    let mut signals = vec![controller.signal()];
    signals.push(AbortSignal::any([&controller.signal()]));
    signals.push(AbortSignal::any([&controller.signal()]));
    signals.push(AbortSignal::any([&signals[0]]));
    signals.push(AbortSignal::any([&signals[1]]));
    let log = Log::default();
    for (i, signal) in signals.iter().enumerate() {
        let log = log.clone();
        signal.on_abort_event(move |_| log.push(i.to_string()));
    }
    controller.abort(None);
    assert_eq!(log.entries().concat(), "01234");
}

#[test]
fn reentrant_abort_from_a_listener_fires_dependents_once() {
    let controller = Arc::new(AbortController::new());
    let dependent = AbortSignal::any([&controller.signal()]);
    let reentrant = Arc::clone(&controller);
    controller
        .signal()
        .on_abort_event(move |_| reentrant.abort(None));
    let count = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&count);
    dependent.on_abort_event(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    controller.abort(None);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[test]
fn any_racing_an_abort_on_another_thread_always_ends_aborted() {
    for _ in 0..20 {
        let controller = Arc::new(AbortController::new());
        let source = controller.signal();
        let reason = custom_reason("raced");
        let creators: Vec<_> = (0..3)
            .map(|_| {
                let source = source.clone();
                std::thread::spawn(move || {
                    let own = AbortController::new();
                    (0..200)
                        .map(|_| AbortSignal::any([&own.signal(), &source]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let aborter = {
            let (controller, reason) = (Arc::clone(&controller), reason.clone());
            std::thread::spawn(move || controller.abort(Some(reason)))
        };
        aborter.join().unwrap();
        for creator in creators {
            for signal in creator.join().unwrap() {
                assert!(signal.reason().unwrap().same(&reason));
            }
        }
    }
}

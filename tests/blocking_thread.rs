//! The blocking client's thread: one per client and its clones, kept by a response, and
//! gone when the last of them is dropped (joined on a plain thread, stopping by itself
//! when dropped inside a runtime).
//!
//! The threads are counted by name in `/proc/self/task`, so this file holds one test and
//! no other client runs in its process. Linux only. A joined thread can still be listed
//! there for a moment: `pthread_join` returns once the thread has left its stack, before
//! the kernel reaps its task, so a count that must fall to zero is waited for.
#![cfg(target_os = "linux")]

use std::thread;
use std::time::{Duration, Instant};

use whatwg_fetch::blocking::Client;

/// The threads of this process named as the blocking client names its own (the kernel
/// keeps 15 bytes of a name).
fn blocking_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end() == "whatwg-fetch-bl")
        .count()
}

/// Waits until `condition` holds, for at most five seconds.
fn eventually(condition: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    condition()
}

#[test]
fn the_thread_lives_as_long_as_the_last_client_or_response() {
    assert_eq!(blocking_threads(), 0);

    // A client and its clone share one thread, joined when the last is dropped.
    let client = Client::builder().build().unwrap();
    let copy = client.clone();
    assert_eq!(blocking_threads(), 1);
    assert_eq!(client.get("data:,x").send().unwrap().text().unwrap(), "x");
    drop(client);
    assert_eq!(blocking_threads(), 1, "the clone keeps the thread");
    drop(copy);
    assert!(
        eventually(|| blocking_threads() == 0),
        "joined when the last client is dropped"
    );

    // A response keeps it after its client is gone.
    let client = Client::builder().build().unwrap();
    let response = client.get("data:,kept").send().unwrap();
    drop(client);
    assert_eq!(blocking_threads(), 1, "the response keeps the thread");
    assert_eq!(response.text().unwrap(), "kept");
    assert!(
        eventually(|| blocking_threads() == 0),
        "joined when the response is dropped"
    );

    // Dropped inside a runtime, it is detached and stops by itself.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = Client::builder().build().unwrap();
    assert_eq!(blocking_threads(), 1);
    runtime.block_on(async move { drop(client) });
    assert!(
        eventually(|| blocking_threads() == 0),
        "the detached thread is still running"
    );

    // Two clients, two threads.
    let (one, two) = (
        Client::builder().build().unwrap(),
        Client::builder().build().unwrap(),
    );
    assert_eq!(blocking_threads(), 2);
    drop((one, two));
    assert!(eventually(|| blocking_threads() == 0), "both joined");
}

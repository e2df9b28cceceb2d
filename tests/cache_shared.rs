//! An HTTP cache on a store that several caches share (`HttpCacheStore::is_shared`): a
//! cache that holds nothing for a request reads the store's record before the network.
//! The store here is a `HashMap` that two clients' caches share, against an in-process
//! server that counts the requests it gets.

mod net_support;

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use net_support::{Server, cache_server};
use whatwg_fetch::cache::HttpCacheStore;
use whatwg_fetch::{Client, RequestInit};

/// A record, with the expiry the cache asked for.
type Record = (Vec<u8>, Option<Duration>);

/// A store shared by every cache given it.
#[derive(Debug, Default)]
struct SharedStore {
    records: Mutex<HashMap<String, Record>>,
    gets: AtomicUsize,
    max_bytes: usize,
}

impl SharedStore {
    fn new(max_bytes: usize) -> Arc<SharedStore> {
        Arc::new(SharedStore {
            max_bytes,
            ..SharedStore::default()
        })
    }

    /// The key whose URL ends with `path`, with its expiry.
    fn find(&self, path: &str) -> Option<(String, Option<Duration>)> {
        self.records
            .lock()
            .unwrap()
            .iter()
            .find(|(key, _)| key.ends_with(path))
            .map(|(key, (_, ttl))| (key.clone(), *ttl))
    }
}

impl HttpCacheStore for SharedStore {
    fn load(&self) -> Vec<(String, Vec<u8>)> {
        // A shared store is read key by key, never whole.
        Vec::new()
    }

    fn put(&self, key: &str, record: &[u8]) -> io::Result<()> {
        self.put_expiring(key, record, None)
    }

    fn put_expiring(&self, key: &str, record: &[u8], ttl: Option<Duration>) -> io::Result<()> {
        self.records
            .lock()
            .unwrap()
            .insert(key.to_owned(), (record.to_vec(), ttl));
        Ok(())
    }

    fn touch(&self, _key: &str) -> io::Result<()> {
        Ok(())
    }

    fn remove(&self, key: &str) -> io::Result<()> {
        self.records.lock().unwrap().remove(key);
        Ok(())
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> Pin<Box<dyn Future<Output = Option<Vec<u8>>> + Send + 'a>> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        let record = self
            .records
            .lock()
            .unwrap()
            .get(key)
            .map(|(record, _)| record.clone());
        Box::pin(async move { record })
    }
}

fn client(store: &Arc<SharedStore>) -> Client {
    Client::builder()
        .http_cache_store(store.clone())
        .build()
        .unwrap()
}

/// The body of a `GET` of `path`, read to the end (which is when it is stored).
async fn get(client: &Client, server: &Server, path: &str) -> String {
    let mut response = client
        .fetch(server.url(path), RequestInit::default())
        .await
        .unwrap();
    assert!(response.ok(), "{path}: {}", response.status());
    response.text().await.unwrap()
}

async fn bounded<F: Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("test timed out")
}

#[tokio::test]
async fn a_response_cached_through_one_client_is_served_to_another_without_the_network() {
    bounded(async {
        let (server, log) = cache_server().await;
        let store = SharedStore::new(1 << 20);
        let (first, second) = (client(&store), client(&store));
        assert_eq!(get(&first, &server, "/page").await, "/page");
        assert_eq!(log.count("/page"), 1);
        assert_eq!(get(&second, &server, "/page").await, "/page");
        assert_eq!(log.count("/page"), 1, "the second client read the store");
        // Once taken in, the second cache answers from its own memory.
        let gets = store.gets.load(Ordering::SeqCst);
        assert_eq!(get(&second, &server, "/page").await, "/page");
        assert_eq!(store.gets.load(Ordering::SeqCst), gets);
        assert_eq!(log.count("/page"), 1);
    })
    .await;
}

#[tokio::test]
async fn a_record_that_does_not_decode_is_a_miss() {
    bounded(async {
        let (server, log) = cache_server().await;
        let store = SharedStore::new(1 << 20);
        get(&client(&store), &server, "/page").await;
        let (key, _) = store.find("/page").unwrap();
        for garbage in [&b""[..], b"\x02", b"not a record at all", &[0xff; 64]] {
            store
                .records
                .lock()
                .unwrap()
                .insert(key.clone(), (garbage.to_vec(), None));
            let before = log.count("/page");
            assert_eq!(get(&client(&store), &server, "/page").await, "/page");
            assert_eq!(log.count("/page"), before + 1, "{garbage:?} is a miss");
        }
    })
    .await;
}

#[tokio::test]
async fn a_record_expires_when_its_responses_are_of_no_more_use() {
    bounded(async {
        let (server, _log) = cache_server().await;
        let store = SharedStore::new(1 << 20);
        let client = client(&store);
        get(&client, &server, "/page").await;
        let (_, ttl) = store.find("/page").unwrap();
        let ttl = ttl.expect("an expiry");
        assert!(
            ttl <= Duration::from_secs(3600) && ttl >= Duration::from_secs(3590),
            "max-age=3600: {ttl:?}"
        );
        // Stale at once, but with a validator: kept a day for other caches to validate.
        get(&client, &server, "/etag").await;
        let (_, ttl) = store.find("/etag").unwrap();
        let ttl = ttl.expect("an expiry");
        assert!(
            ttl <= Duration::from_secs(86_400) && ttl >= Duration::from_secs(86_390),
            "max-age=0 with an ETag: {ttl:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_cache_evicting_from_its_memory_leaves_the_shared_record() {
    bounded(async {
        let (server, log) = cache_server().await;
        // Room in memory for one 1000-byte response.
        let store = SharedStore::new(1500);
        let first = client(&store);
        get(&first, &server, "/big/1").await;
        get(&first, &server, "/big/2").await;
        assert!(store.find("/big/1").is_some(), "the evicted record stays");
        assert!(store.find("/big/2").is_some());
        // And the first cache reads it back from the store.
        get(&first, &server, "/big/1").await;
        assert_eq!(log.count("/big/1"), 1);
    })
    .await;
}

#[tokio::test]
async fn an_unsafe_request_removes_the_shared_record() {
    bounded(async {
        let (server, log) = cache_server().await;
        let store = SharedStore::new(1 << 20);
        let first = client(&store);
        get(&first, &server, "/page").await;
        let init = RequestInit {
            method: Some("POST".into()),
            ..RequestInit::default()
        };
        first
            .fetch(server.url("/page"), init)
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(store.find("/page").is_none());
        get(&client(&store), &server, "/page").await;
        assert_eq!(log.count("/page"), 3, "GET, POST, and GET again");
    })
    .await;
}

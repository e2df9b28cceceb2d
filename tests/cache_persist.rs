//! An HTTP cache that outlives its client: `DiskCacheStore` (a directory) and
//! `MemoryCacheStore`, against an in-process server that counts the requests it gets.

mod net_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use net_support::{Server, cache_server};
use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore, MemoryCacheStore};
use whatwg_fetch::{Client, HeadersInit, RequestInit};

/// A fresh directory for one test's cache.
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cache_persist")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn disk_client(dir: &Path, max_bytes: usize) -> Client {
    let store = DiskCacheStore::open(dir, max_bytes).unwrap();
    Client::builder()
        .http_cache_store(Arc::new(store))
        .build()
        .unwrap()
}

/// The body of a `GET` of `path`, read to the end (which is when it is stored).
async fn text(client: &Client, server: &Server, path: &str, init: RequestInit) -> String {
    let mut response = client.fetch(server.url(path), init).await.unwrap();
    assert!(response.ok(), "{path}: {}", response.status());
    response.text().await.unwrap()
}

async fn get(client: &Client, server: &Server, path: &str) -> String {
    text(client, server, path, RequestInit::default()).await
}

/// The record files in `dir`.
fn entry_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|file| file.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "entry"))
        .collect()
}

async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("test timed out")
}

#[tokio::test]
async fn a_cached_response_survives_a_client_rebuilt_on_the_same_directory() {
    bounded(async {
        let (server, log) = cache_server().await;
        let dir = temp_dir("survives");
        let first = disk_client(&dir, 1 << 20);
        assert_eq!(get(&first, &server, "/page").await, "/page");
        drop(first);
        assert_eq!(entry_files(&dir).len(), 1);

        let second = disk_client(&dir, 1 << 20);
        assert_eq!(get(&second, &server, "/page").await, "/page");
        assert_eq!(log.count("/page"), 1, "answered from the directory");
    })
    .await;
}

#[tokio::test]
async fn vary_and_validation_work_the_same_after_a_restart() {
    bounded(async {
        let (server, log) = cache_server().await;
        let dir = temp_dir("algorithm");
        let language = |value: &str| RequestInit {
            headers: Some(HeadersInit::from([("Accept-Language", value)])),
            ..Default::default()
        };
        let first = disk_client(&dir, 1 << 20);
        assert_eq!(text(&first, &server, "/vary", language("fr")).await, "fr");
        assert_eq!(text(&first, &server, "/vary", language("de")).await, "de");
        assert_eq!(get(&first, &server, "/etag").await, "tagged");
        drop(first);

        let second = disk_client(&dir, 1 << 20);
        assert_eq!(text(&second, &server, "/vary", language("fr")).await, "fr");
        assert_eq!(text(&second, &server, "/vary", language("de")).await, "de");
        assert_eq!(log.count("/vary"), 2, "each language from the directory");
        assert_eq!(text(&second, &server, "/vary", language("en")).await, "en");
        assert_eq!(log.count("/vary"), 3);
        // The stored response needs validation: the server answers 304 and the body comes
        // from the directory.
        assert_eq!(get(&second, &server, "/etag").await, "tagged");
        assert_eq!(log.count("/etag"), 2);
    })
    .await;
}

#[tokio::test]
async fn a_corrupt_or_truncated_entry_is_a_miss_and_is_fetched_again() {
    bounded(async {
        let (server, log) = cache_server().await;
        let dir = temp_dir("corrupt");
        let first = disk_client(&dir, 1 << 20);
        get(&first, &server, "/flipped").await;
        get(&first, &server, "/truncated").await;
        drop(first);
        let files = entry_files(&dir);
        assert_eq!(files.len(), 2);
        for file in &files {
            let mut bytes = std::fs::read(file).unwrap();
            if bytes.windows(8).any(|w| w == b"/flipped") {
                // One byte of the body changed: the hash no longer matches.
                let last = bytes.len() - 20;
                bytes[last] ^= 0x01;
            } else {
                bytes.truncate(bytes.len() / 2);
            }
            std::fs::write(file, bytes).unwrap();
        }

        let second = disk_client(&dir, 1 << 20);
        assert_eq!(get(&second, &server, "/flipped").await, "/flipped");
        assert_eq!(get(&second, &server, "/truncated").await, "/truncated");
        assert_eq!((log.count("/flipped"), log.count("/truncated")), (2, 2));
        drop(second);
        // The bad files were replaced by good ones.
        let third = disk_client(&dir, 1 << 20);
        get(&third, &server, "/flipped").await;
        get(&third, &server, "/truncated").await;
        assert_eq!((log.count("/flipped"), log.count("/truncated")), (2, 2));
    })
    .await;
}

#[tokio::test]
async fn the_size_bound_evicts_the_least_recently_used() {
    bounded(async {
        let (server, log) = cache_server().await;
        let dir = temp_dir("bound");
        // Room for two 1000-byte bodies with their headers, not three.
        let bound = 2500;
        let client = disk_client(&dir, bound);
        get(&client, &server, "/big/a").await;
        get(&client, &server, "/big/b").await;
        // "a" is used again, so "b" is the least recently used when "c" comes.
        get(&client, &server, "/big/a").await;
        assert_eq!(log.count("/big/a"), 1);
        get(&client, &server, "/big/c").await;
        assert_eq!(entry_files(&dir).len(), 2);
        drop(client);

        let client = disk_client(&dir, bound);
        get(&client, &server, "/big/a").await;
        get(&client, &server, "/big/c").await;
        assert_eq!((log.count("/big/a"), log.count("/big/c")), (1, 1));
        get(&client, &server, "/big/b").await;
        assert_eq!(log.count("/big/b"), 2, "b was evicted");
        drop(client);

        // Reopened with room for one, the most recently used ("b") is kept.
        let client = disk_client(&dir, 1500);
        assert_eq!(entry_files(&dir).len(), 1);
        get(&client, &server, "/big/b").await;
        assert_eq!(log.count("/big/b"), 2);
    })
    .await;
}

#[tokio::test]
async fn two_clients_writing_to_one_directory_leave_every_entry_whole() {
    bounded(async {
        let (server, _log) = cache_server().await;
        let dir = temp_dir("concurrent");
        let one = disk_client(&dir, 1 << 20);
        let two = disk_client(&dir, 1 << 20);
        let mut fetches = Vec::new();
        for i in 0..20 {
            for (client, name) in [(one.clone(), "one"), (two.clone(), "two")] {
                let url = server.url(&format!("/page/{name}/{i}"));
                // Both clients also write the same shared URLs.
                let shared = server.url(&format!("/shared/{}", i % 5));
                fetches.push(tokio::spawn(async move {
                    for url in [url, shared] {
                        let mut response = client
                            .fetch(url.as_str(), RequestInit::default())
                            .await
                            .unwrap();
                        response.text().await.unwrap();
                    }
                }));
            }
        }
        for fetch in fetches {
            fetch.await.unwrap();
        }
        // Every file is whole: a new store reads 45 records and deletes none.
        let store = DiskCacheStore::open(&dir, 1 << 20).unwrap();
        assert_eq!(store.load().len(), 45);
        assert_eq!(entry_files(&dir).len(), 45);
        let leftovers = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|file| {
                let path = file.as_ref().unwrap().path();
                path.extension().is_none_or(|e| e != "entry")
            })
            .count();
        assert_eq!(leftovers, 0, "no temporary file is left");
    })
    .await;
}

#[tokio::test]
async fn a_memory_store_carries_the_cache_from_one_client_to_the_next() {
    bounded(async {
        let (server, log) = cache_server().await;
        let store: Arc<dyn HttpCacheStore> = Arc::new(MemoryCacheStore::new(1 << 20));
        let build = || {
            Client::builder()
                .http_cache_store(store.clone())
                .build()
                .unwrap()
        };
        get(&build(), &server, "/page").await;
        get(&build(), &server, "/page").await;
        assert_eq!(log.count("/page"), 1);
        // `http_cache(false)` still turns the cache off.
        let off = Client::builder()
            .http_cache_store(store.clone())
            .http_cache(false)
            .build()
            .unwrap();
        get(&off, &server, "/page").await;
        assert_eq!(log.count("/page"), 2);
    })
    .await;
}

#[test]
fn touching_a_key_with_no_record_is_no_error_and_stores_nothing() {
    let dir = temp_dir("touch_missing");
    let disk = DiskCacheStore::open(&dir, 1 << 20).unwrap();
    let memory = MemoryCacheStore::new(1 << 20);
    let stores: [&dyn HttpCacheStore; 2] = [&disk, &memory];
    for store in stores {
        store.put("https://a.example/", b"a").unwrap();
        store.remove("https://a.example/").unwrap();
        // Removed (by another store on the same directory, say) before the touch.
        store.touch("https://a.example/").unwrap();
        store.touch("https://never.example/").unwrap();
        assert!(store.load().is_empty());
    }
    assert!(entry_files(&dir).is_empty());
}

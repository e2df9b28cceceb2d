//! Where a client's [HTTP cache](https://httpwg.org/specs/rfc9111.html) keeps its responses
//! so that they outlive the client: [`HttpCacheStore`], with [`DiskCacheStore`] (a
//! directory, surviving a restart) and [`MemoryCacheStore`] (this process only). Give one
//! to [`ClientBuilder::http_cache_store`](crate::ClientBuilder::http_cache_store).
//!
//! The cache's algorithm (freshness, validation, `Vary`, ranges) is the same with a store
//! or without: the cache keeps its responses in memory and writes each change through to
//! the store; a cache made with a store starts with what the store holds. A store that
//! several caches share at once ([`HttpCacheStore::is_shared`]) is also read through: a
//! cache that holds nothing for a request asks the store before the network, so a
//! response one client stored is served to another.
//!
//! [`DiskCacheStore`] keeps a file per URL rather than an SQLite database: measured on the
//! same 10,000 records (`benches/cache-stores/`, figures in `benches/README.md`), SQLite
//! writes 2–5 times as many records a second and opens a store of small records tens of
//! times faster, but a touch (which the cache makes on every hit) takes it 40 to 190 times
//! longer, and it would build a C library into every build.
//!
//! With the `redis` feature, `RedisCacheStore` is such a store on Redis, for the replicas
//! of a service: one cache among them rather than one cold cache each. It reads with a
//! timeout and writes behind the fetch, so Redis down or slow only costs misses; its
//! documentation says what it guarantees and what it leaves to Redis (the total size:
//! `maxmemory` with `allkeys-lru` on a dedicated instance or database).
//!
//! ```
//! # tokio_test::block_on(async {
//! # use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! # let url = format!("http://{}/", listener.local_addr().unwrap());
//! # tokio::spawn(async move {
//! #     let (mut stream, _) = listener.accept().await.unwrap();
//! #     let mut head = [0; 1024];
//! #     let _ = stream.read(&mut head).await;
//! #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncache-control: max-age=3600\r\n\
//! #         content-length: 5\r\n\r\nhello").await;
//! # });
//! use std::sync::Arc;
//! use whatwg_fetch::cache::DiskCacheStore;
//! use whatwg_fetch::{Client, RequestInit};
//!
//! let dir = std::env::temp_dir().join(format!("whatwg-fetch-cache-{}", std::process::id()));
//! let client = Client::builder()
//!     .http_cache_store(Arc::new(DiskCacheStore::open(&dir, 64 << 20)?))
//!     .build()?;
//! assert_eq!(client.fetch(url.as_str(), RequestInit::default()).await?.text().await?, "hello");
//! drop(client);
//!
//! // A client made later on the same directory answers from it: the server (which
//! // answers once) is not asked again.
//! let client = Client::builder()
//!     .http_cache_store(Arc::new(DiskCacheStore::open(&dir, 64 << 20)?))
//!     .build()?;
//! assert_eq!(client.fetch(url.as_str(), RequestInit::default()).await?.text().await?, "hello");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

#[cfg(feature = "redis")]
mod redis;

#[cfg(feature = "redis")]
pub use self::redis::{RedisCacheStats, RedisCacheStore, RedisCacheStoreBuilder};
pub use crate::fetch::http_cache::{DiskCacheStore, HttpCacheStore, MemoryCacheStore};

//! The spans of the `tracing` feature: one per fetch at INFO, one per network request at
//! DEBUG, with their fields, and no credentials in them. A small subscriber below keeps
//! every span's fields.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use net_support::{full, hyper_server};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};
use whatwg_fetch::{Client, RequestInit};

/// A span as recorded: its name, level and fields, each as text.
#[derive(Clone, Debug)]
struct SpanRecord {
    name: &'static str,
    level: Level,
    fields: BTreeMap<&'static str, String>,
    metadata: &'static Metadata<'static>,
}

impl SpanRecord {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// Keeps every span and what is recorded on it, and which spans are entered (one stack:
/// the tests run on a current-thread runtime), for `Span::current`.
#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<Vec<SpanRecord>>>,
    entered: Arc<Mutex<Vec<u64>>>,
}

impl Recorder {
    fn spans(&self, name: &str) -> Vec<SpanRecord> {
        let spans = self.spans.lock().unwrap();
        spans
            .iter()
            .filter(|span| span.name == name)
            .cloned()
            .collect()
    }
}

struct Fields<'a>(&'a mut BTreeMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push(SpanRecord {
            name: attributes.metadata().name(),
            level: *attributes.metadata().level(),
            fields,
            metadata: attributes.metadata(),
        });
        Id::from_u64(spans.len() as u64)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        let index = usize::try_from(span.into_u64() - 1).unwrap();
        values.record(&mut Fields(&mut spans[index].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        self.entered.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut entered = self.entered.lock().unwrap();
        if let Some(at) = entered.iter().rposition(|id| *id == span.into_u64()) {
            entered.remove(at);
        }
    }

    fn current_span(&self) -> tracing_core::span::Current {
        let Some(&id) = self.entered.lock().unwrap().last() else {
            return tracing_core::span::Current::none();
        };
        let spans = self.spans.lock().unwrap();
        let index = usize::try_from(id - 1).unwrap();
        tracing_core::span::Current::new(Id::from_u64(id), spans[index].metadata)
    }
}

/// Bounds each test, so that a hang fails it rather than the whole run.
async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test finished in time")
}

/// A server where `/start` redirects to `/end` at `user:secret@` the same origin.
async fn redirecting_server() -> net_support::Server {
    hyper_server(|request| async move {
        if request.uri().path() == "/start" {
            let host = request.headers()["host"].to_str().unwrap().to_owned();
            return http::Response::builder()
                .status(302)
                .header("location", format!("http://user:secret@{host}/end"))
                .body(full(""))
                .unwrap();
        }
        http::Response::new(full("end"))
    })
    .await
}

// The tests run on a current-thread runtime, so that the subscriber set for the test's
// thread sees every span of the fetches it makes.

#[tokio::test]
async fn a_fetch_span_records_method_url_status_redirects_and_time_without_credentials() {
    let recorder = Recorder::default();
    let _default = tracing::subscriber::set_default(recorder.clone());
    bounded(async {
        let server = redirecting_server().await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/start?q=1#top"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "end");

        let fetches = recorder.spans("fetch");
        assert_eq!(fetches.len(), 1, "{fetches:?}");
        let fetch = &fetches[0];
        assert_eq!(fetch.level, Level::INFO);
        assert_eq!(fetch.field("method"), Some("GET"));
        assert_eq!(fetch.field("url"), Some(&*server.url("/start?q=1")));
        assert_eq!(fetch.field("status"), Some("200"));
        assert_eq!(fetch.field("redirects"), Some("1"));
        assert_eq!(fetch.field("final_url"), Some(&*server.url("/end")));
        let elapsed: f64 = fetch.field("elapsed_ms").unwrap().parse().unwrap();
        assert!(elapsed >= 0.0);
        assert_eq!(fetch.field("error"), None);

        let requests = recorder.spans("http_request");
        assert_eq!(requests.len(), 2, "{requests:?}");
        for (request, status) in requests.iter().zip(["302", "200"]) {
            assert_eq!(request.level, Level::DEBUG);
            assert_eq!(request.field("method"), Some("GET"));
            assert_eq!(request.field("origin"), Some(&*server.url("")));
            assert_eq!(request.field("version"), Some("HTTP/1.1"));
            assert_eq!(request.field("status"), Some(status));
        }
        assert_eq!(requests[0].field("connection"), Some("new"));

        // The credentials of the redirect's URL are in no span.
        let spans = recorder.spans.lock().unwrap();
        for span in spans.iter() {
            for value in span.fields.values() {
                assert!(!value.contains("secret"), "{span:?}");
                assert!(!value.contains("user"), "{span:?}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_request_span_says_whether_its_connection_was_new_or_reused() {
    let recorder = Recorder::default();
    let _default = tracing::subscriber::set_default(recorder.clone());
    bounded(async {
        let server = redirecting_server().await;
        let client = Client::builder().build().unwrap();
        for _ in 0..2 {
            let mut response = client
                .fetch(server.url("/end"), RequestInit::default())
                .await
                .unwrap();
            // Read to its end, so that the connection goes back to the pool.
            assert_eq!(response.text().await.unwrap(), "end");
        }
        let requests = recorder.spans("http_request");
        let connections: Vec<_> = requests.iter().map(|r| r.field("connection")).collect();
        assert_eq!(connections, [Some("new"), Some("reused")]);
        assert_eq!(server.counts.accepts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_failed_fetch_records_its_error() {
    let recorder = Recorder::default();
    let _default = tracing::subscriber::set_default(recorder.clone());
    bounded(async {
        let client = Client::builder().build().unwrap();
        // A blocked port: refused before any connection.
        let error = client
            .fetch("http://127.0.0.1:1/", RequestInit::default())
            .await
            .unwrap_err();
        assert!(error.network_error().is_some());
        let fetches = recorder.spans("fetch");
        assert_eq!(fetches.len(), 1, "{fetches:?}");
        assert_eq!(
            fetches[0].field("error"),
            Some("TypeError: port 1 is blocked")
        );
        assert_eq!(fetches[0].field("status"), None);

        // The next fetch on the same client is traced as well.
        let mut response = client
            .fetch("data:,ok", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
        let fetches = recorder.spans("fetch");
        assert_eq!(fetches.len(), 2, "{fetches:?}");
        assert_eq!(fetches[1].field("status"), Some("200"));
        assert_eq!(fetches[1].field("redirects"), Some("0"));
    })
    .await;
}

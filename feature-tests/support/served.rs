//! One handler served over either of two protocols, so that a test written once runs for
//! both: HTTP/2 over TLS on TCP (hyper, ALPN `h2` alone) or HTTP/3 over QUIC (quinn and
//! h3, ALPN `h3`), each on 127.0.0.1 with a certificate for `localhost` from the test's
//! `TestPki`, and a client made to reach it over that protocol alone.
//!
//! The handler sees the request with its body read whole, and answers with a streamed
//! body: data frames as they come, then trailers. Over HTTP/3 the server does as hyper
//! does over HTTP/2: no body for `HEAD`, `204` or `304`; a body that fails resets the
//! stream; a client that stops the stream ends the body (which is dropped).
//!
//! The crate that mounts this module mounts `tests/net_support/mod.rs` as `net_support`.
// Each crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::{Buf, Bytes, BytesMut};
use http_body_util::BodyExt;
use whatwg_fetch::{Client, ClientBuilder};

use crate::net_support::{ServerBody, TestPki, tls_server};

/// The protocol a test runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    /// HTTP/2 over TLS on TCP.
    H2,
    /// HTTP/3 over QUIC.
    H3,
}

impl Over {
    /// The ALPN id, as `next_hop_protocol` names it.
    pub fn alpn(self) -> &'static str {
        match self {
            Over::H2 => "h2",
            Over::H3 => "h3",
        }
    }

    /// The HTTP version of a response over it.
    pub fn version(self) -> http::Version {
        match self {
            Over::H2 => http::Version::HTTP_2,
            Over::H3 => http::Version::HTTP_3,
        }
    }
}

/// The future a [`Handler`] returns.
pub type Answer = Pin<Box<dyn Future<Output = http::Response<ServerBody>> + Send>>;

/// What answers each request: the request, its body read whole.
pub type Handler = Arc<dyn Fn(http::Request<Bytes>) -> Answer + Send + Sync>;

/// A server of one handler over one protocol.
pub struct Served {
    pub over: Over,
    pub port: u16,
    connections: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
    ca_der: Vec<u8>,
    /// The HTTP/3 server's endpoint, closed when the server is dropped.
    endpoint: Option<quinn::Endpoint>,
}

impl Served {
    /// `https://localhost:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.port)
    }

    /// The connections the server has accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// The requests the server has been sent.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// A client builder trusting the server's CA, with `localhost` at 127.0.0.1, that
    /// reaches the server over its protocol: HTTP/2 by ALPN, or HTTP/3 with prior
    /// knowledge.
    pub fn client_builder(&self) -> ClientBuilder {
        let builder = Client::builder()
            .add_root_certificate_der(self.ca_der.clone())
            .resolve("localhost", SocketAddr::from(([127, 0, 0, 1], 0)));
        match self.over {
            Over::H2 => builder,
            Over::H3 => builder.http3_prior_knowledge(),
        }
    }

    /// [`client_builder`](Self::client_builder), built.
    pub fn client(&self) -> Client {
        self.client_builder().build().expect("the client builds")
    }

    /// A transport of the network layer reaching the server as its client does.
    pub fn transport(&self) -> whatwg_fetch::net::HyperTransport {
        let builder = whatwg_fetch::net::HyperTransport::builder()
            .add_root_certificate_der(self.ca_der.clone())
            .resolve("localhost", SocketAddr::from(([127, 0, 0, 1], 0)));
        let builder = match self.over {
            Over::H2 => builder,
            Over::H3 => builder.http3_prior_knowledge(true),
        };
        builder.build().expect("the transport builds")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(endpoint) = &self.endpoint {
            endpoint.close(0u32.into(), b"done");
        }
    }
}

/// Serves `handler` over `over` with `pki`'s certificate.
pub async fn serve<F, Fut>(over: Over, pki: &TestPki, handler: F) -> Served
where
    F: Fn(http::Request<Bytes>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = http::Response<ServerBody>> + Send + 'static,
{
    let handler: Handler = Arc::new(move |request| Box::pin(handler(request)));
    let requests = Arc::new(AtomicUsize::new(0));
    match over {
        Over::H2 => {
            let counted = Arc::clone(&requests);
            let server = tls_server(pki.acceptor(&[b"h2"]), move |request| {
                let (handler, counted) = (Arc::clone(&handler), Arc::clone(&counted));
                async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let (parts, body) = request.into_parts();
                    // A body the client gave up on: what came of it.
                    let body = body
                        .collect()
                        .await
                        .map(|body| body.to_bytes())
                        .unwrap_or_default();
                    handler(http::Request::from_parts(parts, body)).await
                }
            })
            .await;
            let connections = Arc::clone(&server.counts.accepts);
            Served {
                over,
                port: server.addr.port(),
                connections,
                requests,
                ca_der: pki.ca_der.clone(),
                endpoint: None,
            }
        }
        Over::H3 => {
            let connections = Arc::new(AtomicUsize::new(0));
            let endpoint =
                quinn::Endpoint::server(quic_config(pki), SocketAddr::from(([127, 0, 0, 1], 0)))
                    .expect("a UDP port of 127.0.0.1");
            let port = endpoint
                .local_addr()
                .expect("the endpoint's address")
                .port();
            tokio::spawn(accept_h3(
                endpoint.clone(),
                handler,
                Arc::clone(&connections),
                Arc::clone(&requests),
            ));
            Served {
                over,
                port,
                connections,
                requests,
                ca_der: pki.ca_der.clone(),
                endpoint: Some(endpoint),
            }
        }
    }
}

/// QUIC's server configuration: TLS 1.3 with `pki`'s certificate, ALPN `h3`.
fn quic_config(pki: &TestPki) -> quinn::ServerConfig {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![pki.cert.clone()], pki.key.clone_key())
        .expect("the test's certificate");
    tls.alpn_protocols = vec![b"h3".to_vec()];
    let quic = quinn::crypto::rustls::QuicServerConfig::try_from(tls).expect("QUIC's TLS");
    quinn::ServerConfig::with_crypto(Arc::new(quic))
}

/// Accepts connections on `endpoint` and answers each request stream with `handler`.
async fn accept_h3(
    endpoint: quinn::Endpoint,
    handler: Handler,
    connections: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
) {
    while let Some(incoming) = endpoint.accept().await {
        let (handler, connections, requests) = (
            Arc::clone(&handler),
            Arc::clone(&connections),
            Arc::clone(&requests),
        );
        tokio::spawn(async move {
            let Ok(connection) = incoming.await else {
                return;
            };
            connections.fetch_add(1, Ordering::SeqCst);
            let Ok(mut h3) =
                h3::server::Connection::<_, Bytes>::new(h3_quinn::Connection::new(connection))
                    .await
            else {
                return;
            };
            while let Ok(Some(resolver)) = h3.accept().await {
                let (handler, requests) = (Arc::clone(&handler), Arc::clone(&requests));
                tokio::spawn(async move {
                    let Ok((request, stream)) = resolver.resolve_request().await else {
                        return;
                    };
                    requests.fetch_add(1, Ordering::SeqCst);
                    answer_h3(request, stream, handler).await;
                });
            }
        });
    }
}

/// Reads the request's body, calls `handler`, and sends its answer on `stream`.
async fn answer_h3(
    request: http::Request<()>,
    mut stream: h3::server::RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>,
    handler: Handler,
) {
    let mut received = BytesMut::new();
    loop {
        match stream.recv_data().await {
            Ok(Some(mut chunk)) => {
                received.extend_from_slice(&chunk.copy_to_bytes(chunk.remaining()));
            }
            Ok(None) => break,
            // The client gave the request up.
            Err(_) => return,
        }
    }
    let head_only = request.method() == http::Method::HEAD;
    let response = handler(request.map(|()| received.freeze())).await;
    let (parts, mut body) = response.into_parts();
    // RFC 9110 §6.4.1: no content for a HEAD, a 204 or a 304.
    let bodiless = head_only
        || parts.status == http::StatusCode::NO_CONTENT
        || parts.status == http::StatusCode::NOT_MODIFIED;
    if stream
        .send_response(http::Response::from_parts(parts, ()))
        .await
        .is_err()
    {
        return;
    }
    if !bodiless {
        while let Some(frame) = body.frame().await {
            let sent = match frame {
                Ok(frame) => match frame.into_data() {
                    Ok(data) => stream.send_data(data).await,
                    Err(frame) => match frame.into_trailers() {
                        Ok(trailers) => stream.send_trailers(trailers).await,
                        Err(_) => Ok(()),
                    },
                },
                // A body that fails resets the stream, as hyper does over HTTP/2.
                Err(_) => {
                    stream.stop_stream(h3::error::Code::H3_INTERNAL_ERROR);
                    return;
                }
            };
            // The client stopped the stream: the body is dropped here.
            if sent.is_err() {
                return;
            }
        }
    }
    let _ = stream.finish().await;
}

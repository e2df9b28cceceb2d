//! An origin's first request over HTTP/3, learned from its HTTPS DNS record (RFC 9460)
//! rather than from an `Alt-Svc` field a first request over TCP would bring back.
//!
//! ```text
//! cargo run -p examples --example https_records
//! ```
//!
//! Everything runs on 127.0.0.1: a name server answering for `app.example.test` (its
//! address, and an HTTPS record `1 . alpn=h3 port=<the QUIC port>`), the origin over TCP
//! (TLS, HTTP/1.1) and over QUIC (HTTP/3), both with a certificate of a CA made for the
//! run. The client resolves with hickory (`HickoryResolver`), prints the records it finds,
//! then fetches the origin three times and prints the protocol each request went over.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::{TcpListener, UdpSocket};
use whatwg_fetch::Client;
use whatwg_fetch::net::hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts,
};
use whatwg_fetch::net::{HickoryResolver, Resolve};

const NAME: &str = "app.example.test";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let (ca, cert, key) = certificates()?;
    let tcp = tcp_origin(cert.clone(), key.clone_key()).await?;
    let quic = quic_origin(cert, key)?;
    let dns = name_server(quic.local_addr()?.port()).await?;

    let mut udp = ConnectionConfig::udp();
    udp.port = dns.port();
    let server = NameServerConfig::new(dns.ip(), true, vec![udp]);
    let resolver = HickoryResolver::new(
        ResolverConfig::from_name_servers(vec![server]),
        ResolverOpts::default(),
    )?;

    let port = tcp.port();
    let records = resolver
        .resolve_https(NAME, port)
        .ok_or("no HTTPS records")?
        .await?;
    for record in &records {
        println!(
            "HTTPS record of {NAME}:{port}: priority {}, target {}, alpn {:?}, port {:?}, ttl {:?}",
            record.priority,
            record.target.as_deref().unwrap_or("."),
            record.alpn,
            record.port,
            record.ttl,
        );
    }

    let client = Client::builder()
        .resolver(Arc::new(resolver))
        .add_root_certificate_der(ca.to_vec())
        .build()?;
    let url = format!("https://{NAME}:{port}/");
    for n in 1..=3 {
        let mut response = client.get(&url).send().await?;
        let protocol = match response.timing() {
            Some(timing) => timing.next_hop_protocol.to_string(),
            None => String::new(),
        };
        println!(
            "request {n}: {} over {protocol}: {}",
            response.status(),
            response.text().await?
        );
    }
    Ok(())
}

/// A CA, and a certificate it issued for [`NAME`] with its key.
fn certificates() -> Result<
    (
        CertificateDer<'static>,
        CertificateDer<'static>,
        PrivateKeyDer<'static>,
    ),
    BoxError,
> {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate()?;
    let ca = ca_params.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate()?;
    let cert = CertificateParams::new(vec![NAME.to_owned()])?.signed_by(&key, &issuer)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    Ok((ca.der().clone(), cert.der().clone(), key))
}

/// TLS with `cert` and `key`, offering `alpn`.
fn tls_config(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    alpn: &[u8],
) -> Result<rustls::ServerConfig, BoxError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)?;
    config.alpn_protocols = vec![alpn.to_vec()];
    Ok(config)
}

/// The origin over TCP: TLS and HTTP/1.1, answering `over TCP`, announcing nothing.
async fn tcp_origin(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
) -> Result<SocketAddr, BoxError> {
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls_config(cert, key, b"http/1.1")?));
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(stream).await else {
                    return;
                };
                let service = service_fn(|_request| async {
                    Ok::<_, hyper::Error>(hyper::Response::new(Full::new(Bytes::from("over TCP"))))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(addr)
}

/// The origin over QUIC: HTTP/3 on a UDP port of its own, answering `over QUIC`.
fn quic_origin(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
) -> Result<quinn::Endpoint, BoxError> {
    let mut tls = tls_config(cert, key, b"h3")?;
    tls.max_early_data_size = 0;
    let quic = quinn::crypto::rustls::QuicServerConfig::try_from(tls)?;
    let config = quinn::ServerConfig::with_crypto(Arc::new(quic));
    let endpoint = quinn::Endpoint::server(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
    let accepting = endpoint.clone();
    tokio::spawn(async move {
        while let Some(incoming) = accepting.accept().await {
            tokio::spawn(async move {
                let Ok(connection) = incoming.await else {
                    return;
                };
                let connection = h3_quinn::Connection::new(connection);
                let Ok(mut h3) = h3::server::Connection::<_, Bytes>::new(connection).await else {
                    return;
                };
                while let Ok(Some(resolver)) = h3.accept().await {
                    tokio::spawn(async move {
                        let Ok((_request, mut stream)) = resolver.resolve_request().await else {
                            return;
                        };
                        let response = http::Response::builder().header("content-length", "9");
                        let Ok(response) = response.body(()) else {
                            return;
                        };
                        if stream.send_response(response).await.is_ok() {
                            let _ = stream.send_data(Bytes::from("over QUIC")).await;
                            let _ = stream.finish().await;
                        }
                    });
                }
            });
        }
    });
    Ok(endpoint)
}

/// A name server on 127.0.0.1 (UDP): [`NAME`] is 127.0.0.1, and the HTTPS record of
/// every `_port._https.` name under it says `h3` on `h3_port`. Every other question gets
/// an empty answer.
async fn name_server(h3_port: u16) -> Result<SocketAddr, BoxError> {
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = socket.local_addr()?;
    tokio::spawn(async move {
        let mut buf = vec![0; 1500];
        while let Ok((n, from)) = socket.recv_from(&mut buf).await {
            if let Some(reply) = answer(&buf[..n], h3_port) {
                let _ = socket.send_to(&reply, from).await;
            }
        }
    });
    Ok(addr)
}

/// The reply to the DNS query `query` (RFC 1035 §4.1), `None` if it cannot be read.
fn answer(query: &[u8], h3_port: u16) -> Option<Vec<u8>> {
    // The question: a name of labels from byte 12, then QTYPE and QCLASS.
    let mut at = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*query.get(at)?);
        at += 1;
        if len == 0 {
            break;
        }
        labels.push(String::from_utf8_lossy(query.get(at..at + len)?).to_ascii_lowercase());
        at += len;
    }
    let qtype = u16::from_be_bytes([*query.get(at)?, *query.get(at + 1)?]);
    let question = query.get(12..at + 4)?;
    let name = labels.join(".");
    let rdata: Option<(u16, Vec<u8>)> = match qtype {
        1 if name == NAME => Some((1, vec![127, 0, 0, 1])),
        // HTTPS (type 65): priority 1, target ".", alpn=h3 (key 1), port (key 3).
        65 if name.starts_with('_') && name.ends_with(&format!("._https.{NAME}")) => {
            let mut record = vec![0, 1, 0];
            record.extend_from_slice(&[0, 1, 0, 3, 2, b'h', b'3']);
            record.extend_from_slice(&[0, 3, 0, 2]);
            record.extend_from_slice(&h3_port.to_be_bytes());
            Some((65, record))
        }
        _ => None,
    };
    // ID, then QR, RD as asked, RA; one question; one answer or none.
    let mut reply = query.get(..2)?.to_vec();
    reply.extend_from_slice(&[
        0x80 | (query.get(2)? & 1),
        0x80,
        0,
        1,
        0,
        u8::from(rdata.is_some()),
    ]);
    reply.extend_from_slice(&[0, 0, 0, 0]);
    reply.extend_from_slice(question);
    if let Some((rtype, rdata)) = rdata {
        // The question's name (a pointer to byte 12), type, class IN, TTL 300 s.
        reply.extend_from_slice(&[0xc0, 12]);
        reply.extend_from_slice(&rtype.to_be_bytes());
        reply.extend_from_slice(&[0, 1, 0, 0, 1, 0x2c]);
        reply.extend_from_slice(&u16::try_from(rdata.len()).ok()?.to_be_bytes());
        reply.extend_from_slice(&rdata);
    }
    Some(reply)
}

//! `h3_response`: the frames of an HTTP/3 response stream (RFC 9114 §4.1, §7), as a server
//! on 127.0.0.1 writes them, through a real QUIC connection to a client with
//! `http3_prior_knowledge`. What the crate reads of them itself, before h3 does, is under
//! test first: the scanner in `net/h3.rs` that takes empty `DATA` frames out of a body
//! (which h3 0.0.8 takes for its end) and holds every other frame to a size.
//!
//! The input's first byte: bit 0 writes a `HEADERS` frame of `:status: 200` (a QPACK field
//! section of the static table alone) before the rest; bit 1 writes the rest in pieces of
//! one to seven bytes (the byte's bits 2–4 say how many), each flushed on its own, so that
//! frame headers are cut across the chunks the client reads. The rest is written on the
//! request stream as it is, and the stream finished. The server speaks just enough HTTP/3
//! for a connection: a control stream with an empty `SETTINGS` frame.
//!
//! Checked: the fetch and the reading of its body end within [`HANG`]; when the response
//! is the `HEADERS` frame and then only whole `DATA` frames (empty ones included), it is a
//! `200` whose body is their payloads, in order, and nothing else; the server's side of
//! each stream ends, so no input leaves a task behind.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::runtime::Runtime;
use whatwg_fetch::{Client, RequestInit};

use crate::MAX_INPUT;
use crate::http1::lock;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(5);

/// What the server writes on the next request stream.
#[derive(Clone, Default)]
struct Script {
    /// The stream's bytes, frames and all.
    bytes: Bytes,
    /// Written in pieces of this many bytes, each flushed; 0 for all at once.
    piece: usize,
}

struct Peer {
    runtime: Runtime,
    script: Arc<Mutex<Script>>,
    url: String,
    client: Client,
    /// Request streams the server has not finished with yet.
    active: Arc<AtomicUsize>,
    exclusive: Mutex<()>,
}

fn peer() -> &'static Peer {
    static PEER: OnceLock<Peer> = OnceLock::new();
    PEER.get_or_init(|| {
        crate::ignore_sigpipe();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (ca_der, server_config) = server_config();
        let script = Arc::new(Mutex::new(Script::default()));
        let active = Arc::new(AtomicUsize::new(0));
        let _entered = runtime.enter();
        let endpoint =
            quinn::Endpoint::server(server_config, SocketAddr::from(([127, 0, 0, 1], 0)))
                .expect("a QUIC endpoint on 127.0.0.1");
        let port = endpoint.local_addr().expect("its address").port();
        runtime.spawn(serve(endpoint, Arc::clone(&script), Arc::clone(&active)));
        let client = Client::builder()
            .add_root_certificate_der(ca_der)
            .tls_built_in_roots(false)
            .resolve("localhost", SocketAddr::from(([127, 0, 0, 1], 0)))
            .http3_prior_knowledge()
            .connect_timeout(Duration::from_secs(2))
            .read_timeout(Some(Duration::from_secs(2)))
            .build()
            .expect("a client");
        Peer {
            runtime,
            script,
            url: format!("https://localhost:{port}/"),
            client,
            active,
            exclusive: Mutex::new(()),
        }
    })
}

/// A CA made for the process, and QUIC's server configuration with a certificate for
/// `localhost` it signed: TLS 1.3, ALPN `h3`.
fn server_config() -> (Vec<u8>, quinn::ServerConfig) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().expect("a CA key");
    let ca = ca_params.self_signed(&ca_key).expect("a CA certificate");
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().expect("a key");
    let cert = CertificateParams::new(vec!["localhost".to_owned()])
        .expect("certificate parameters")
        .signed_by(&key, &issuer)
        .expect("a certificate");
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .expect("the certificate and its key");
    tls.alpn_protocols = vec![b"h3".to_vec()];
    let quic = quinn::crypto::rustls::QuicServerConfig::try_from(tls).expect("a QUIC config");
    (
        ca.der().to_vec(),
        quinn::ServerConfig::with_crypto(Arc::new(quic)),
    )
}

/// Accepts connections: on each, the control stream with an empty `SETTINGS` frame, and
/// on each request stream the script of the moment.
async fn serve(endpoint: quinn::Endpoint, script: Arc<Mutex<Script>>, active: Arc<AtomicUsize>) {
    while let Some(incoming) = endpoint.accept().await {
        let (script, active) = (Arc::clone(&script), Arc::clone(&active));
        tokio::spawn(async move {
            let Ok(connection) = incoming.await else {
                return;
            };
            // The control stream (type 0x00) and an empty SETTINGS frame (0x04).
            let Ok(mut control) = connection.open_uni().await else {
                return;
            };
            if control.write_all(&[0x00, 0x04, 0x00]).await.is_err() {
                return;
            }
            while let Ok((send, recv)) = connection.accept_bi().await {
                let script = lock(&script).clone();
                let active = Arc::clone(&active);
                active.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(HANG, respond(send, recv, script)).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
            drop(control);
        });
    }
}

/// Writes `script` on a request stream and finishes it; reads the request to its end.
async fn respond(mut send: quinn::SendStream, mut recv: quinn::RecvStream, script: Script) {
    let pieces: Vec<&[u8]> = if script.piece == 0 {
        vec![&script.bytes[..]]
    } else {
        script.bytes.chunks(script.piece).collect()
    };
    for piece in pieces {
        if send.write_all(piece).await.is_err() {
            return;
        }
        // Each piece in a packet of its own, as far as QUIC lets a writer say so.
        tokio::task::yield_now().await;
    }
    let _ = send.finish();
    let _ = recv.read_to_end(64 * 1024).await;
}

/// A `HEADERS` frame of `:status: 200` alone: the QPACK field section's prefix (no dynamic
/// table), then the static table's entry 25 as an indexed field line (RFC 9204 §4.5.2).
const HEADERS_200: [u8; 5] = [0x01, 0x03, 0x00, 0x00, 0xc0 | 25];

/// A variable-length integer at the start of `bytes` (RFC 9000 §16): its value and length.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let first = *bytes.first()?;
    let length = 1usize << (first >> 6);
    let mut value = u64::from(first & 0x3f);
    for byte in bytes.get(1..length)? {
        value = (value << 8) | u64::from(*byte);
    }
    Some((value, length))
}

/// The payloads of `bytes` when it is nothing but whole `DATA` frames, in order.
fn data_frames_only(mut bytes: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    while !bytes.is_empty() {
        let (kind, kind_length) = varint(bytes)?;
        let (length, length_length) = varint(bytes.get(kind_length..)?)?;
        let start = kind_length + length_length;
        let end = start.checked_add(usize::try_from(length).ok()?)?;
        if kind != 0x00 {
            return None;
        }
        body.extend_from_slice(bytes.get(start..end)?);
        bytes = bytes.get(end..)?;
    }
    Some(body)
}

pub fn h3_response(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = Vec::with_capacity(HEADERS_200.len() + rest.len());
    if flags & 1 != 0 {
        bytes.extend_from_slice(&HEADERS_200);
    }
    bytes.extend_from_slice(rest);
    let piece = if flags & 2 != 0 {
        usize::from((flags >> 2) & 7).max(1)
    } else {
        0
    };
    // The body a well-formed answer must come to.
    let expected = (flags & 1 != 0).then(|| data_frames_only(rest)).flatten();
    let peer = peer();
    let _exclusive = lock(&peer.exclusive);
    *lock(&peer.script) = Script {
        bytes: Bytes::from(bytes),
        piece,
    };
    peer.runtime.block_on(async {
        let outcome = tokio::time::timeout(HANG, async {
            let mut response = peer
                .client
                .fetch(peer.url.as_str(), RequestInit::default())
                .await?;
            let status = response.status();
            let body = response.bytes().await?;
            Ok::<_, whatwg_fetch::Error>((status, body))
        })
        .await;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(_) => panic!("one HTTP/3 response took more than {HANG:?} to fetch and read"),
        };
        if let Some(expected) = &expected {
            match &outcome {
                Ok((status, body)) => {
                    assert_eq!(*status, 200, "a 200 of DATA frames came as {status}");
                    assert_eq!(
                        &body[..],
                        &expected[..],
                        "the body is not the DATA frames' payloads"
                    );
                }
                Err(error) => panic!("a 200 of whole DATA frames failed: {error:#}"),
            }
        }
        // The server's side of the stream ends too.
        let settled = tokio::time::timeout(HANG, async {
            while peer.active.load(Ordering::SeqCst) > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        })
        .await;
        assert!(
            settled.is_ok(),
            "a request stream of the server did not end"
        );
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_frames_are_read_as_a_client_must_read_them() {
        assert_eq!(data_frames_only(&[]), Some(vec![]));
        assert_eq!(
            data_frames_only(&[
                0x00, 0x02, b'h', b'i', 0x00, 0x00, 0x40, 0x00, 0x40, 0x01, b'!'
            ]),
            Some(b"hi!".to_vec())
        );
        // A frame of another type, or one cut short, is not a body of DATA frames.
        assert_eq!(data_frames_only(&[0x01, 0x00]), None);
        assert_eq!(data_frames_only(&[0x00, 0x05, b'h']), None);
        assert_eq!(data_frames_only(&[0x40]), None);
    }
}

//! The TLS options that read the environment: the system's trust store (which
//! `SSL_CERT_FILE` replaces) and the key log (`SSLKEYLOGFILE`). One test in a binary of
//! its own, which sets the variables before any other thread or runtime exists.

mod net_support;

use std::path::PathBuf;
use std::time::Duration;

use net_support::*;
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{HyperTransport, HyperTransportBuilder, SendOptions, Transport};

/// A file of this test's own under Cargo's temporary directory for integration tests.
fn temp_file(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("net_tls_system-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn the_system_trust_store_and_the_key_log_follow_the_environment() {
    let pki = TestPki::new(&["localhost"]);
    let ca_file = temp_file("ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).unwrap();
    let key_log = temp_file("keys.log");
    // SAFETY: this is the only test in this binary, and it sets the variables before it
    // starts a runtime: libtest's main thread is only waiting for it, and no other
    // thread reads the environment meanwhile.
    unsafe {
        // The system's store is now the test CA alone (rustls-native-certs reads only
        // this file when the variable is set, as OpenSSL does).
        std::env::set_var("SSL_CERT_FILE", &ca_file);
        std::env::remove_var("SSL_CERT_DIR");
        std::env::set_var("SSLKEYLOGFILE", &key_log);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), |_| async {
            http::Response::new(full("ok"))
        })
        .await;
        let url = format!("https://localhost:{}/", server.addr.port());
        let send = |builder: HyperTransportBuilder| {
            let url = url.clone();
            async move {
                let transport = builder.resolve("localhost", server.addr).build().unwrap();
                let sent = transport.send(get(&url), SendOptions::new());
                let response = tokio::time::timeout(Duration::from_secs(10), sent)
                    .await
                    .expect("the request ends in time")?;
                read_all(response.into_body()).await
            }
        };

        // Trusted through the system's store alone.
        let system_only = HyperTransport::builder().tls_built_in_roots(false);
        assert_eq!(send(system_only).await.unwrap(), "ok");
        // And by default, beside the built-in roots.
        assert_eq!(send(HyperTransport::builder()).await.unwrap(), "ok");
        // Not without it.
        let built_in_only = HyperTransport::builder().tls_system_roots(false);
        let error = send(built_in_only).await.unwrap_err();
        assert!(
            matches!(&error, NetworkError::Tls(reason) if whatwg_fetch::error::Chain(reason.as_ref()).to_string().ends_with("UnknownIssuer")),
            "{error:?}"
        );
        assert!(!key_log.exists(), "no key log unless asked for");

        // The key log gets the secrets of each connection, in NSS's format.
        let logging = HyperTransport::builder().tls_key_log(true);
        assert_eq!(send(logging).await.unwrap(), "ok");
        let keys = std::fs::read_to_string(&key_log).unwrap();
        let labels: Vec<&str> = keys
            .lines()
            .filter_map(|line| line.split(' ').next())
            .collect();
        assert!(
            labels.contains(&"CLIENT_HANDSHAKE_TRAFFIC_SECRET")
                && labels.contains(&"CLIENT_TRAFFIC_SECRET_0"),
            "{keys}"
        );
        assert!(
            keys.lines().all(|line| line.split(' ').count() == 3),
            "label, client random, secret: {keys}"
        );
    });
    let _ = std::fs::remove_file(&ca_file);
    let _ = std::fs::remove_file(&key_log);
}

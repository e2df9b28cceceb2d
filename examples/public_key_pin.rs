//! Prints the public-key pin of an `https:` server, in curl's `sha256//…` form: the
//! SHA-256 of the DER SubjectPublicKeyInfo of its own certificate (the end entity), which
//! `ClientBuilder::pin_public_keys` checks. Then fetches the URL again with the pin, and
//! once more with a pin of another key, to show the error a mismatch gives.
//!
//! `cargo run -p examples --example public_key_pin -- https://example.com/`
//!
//! With `--insecure`, the certificate is not validated (curl's `-k`): for a server with a
//! self-signed certificate, whose pin then goes to `pin_public_keys_only`.

use std::time::Duration;

use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
use whatwg_fetch::{Client, Url};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let insecure = args.iter().any(|arg| arg == "--insecure" || arg == "-k");
    args.retain(|arg| arg != "--insecure" && arg != "-k");
    let url = args
        .first()
        .cloned()
        .unwrap_or_else(|| "https://example.com/".to_owned());
    let host = Url::parse(&url)?
        .host_str()
        .ok_or("the URL has no host")?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();

    let response = Client::builder()
        .danger_accept_invalid_certs(insecure)
        .timeout(Duration::from_secs(30))
        .build()?
        .get(&url)
        .send()
        .await?;
    let tls = response.tls_info().ok_or("not fetched over TLS")?;
    let chain = tls.peer_certificates().to_vec();
    // Done with the connection (a one-connection-at-a-time server waits for it to close).
    drop(response);
    let Some(end_entity) = chain.first() else {
        return Err("the server presented no certificate".into());
    };
    let pin = PublicKeyPin::from_certificate_der(end_entity)?;
    println!("{host}: {pin}");
    for (index, certificate) in chain.iter().enumerate().skip(1) {
        // Not what a pin is checked against; shown so that it is not taken for the one.
        let other = PublicKeyPin::from_certificate_der(certificate)?;
        println!("  (certificate {index} of the chain, not pinned: {other})");
    }

    // The pin at work: the same fetch held to it, then to a key the server does not have.
    let pinned = |pins: Vec<PublicKeyPin>| {
        let builder = Client::builder().timeout(Duration::from_secs(30));
        match insecure {
            true => builder.pin_public_keys_only(&host, pins),
            false => builder.pin_public_keys(&host, pins),
        }
        .build()
    };
    let status = pinned(vec![pin])?.get(&url).send().await?.status();
    println!("pinned to {pin}: {status}");
    let stranger = PublicKeyPin::from_sha256([0; 32]);
    match pinned(vec![stranger])?.get(&url).send().await {
        Ok(response) => println!("pinned to another key: {} (?)", response.status()),
        Err(error) => {
            let mismatch = PinMismatch::find(&error).ok_or("not a pin mismatch")?;
            println!("pinned to another key: {error:#}");
            println!(
                "  seen {}, expected {:?}",
                mismatch.found(),
                mismatch.expected()
            );
        }
    }
    Ok(())
}

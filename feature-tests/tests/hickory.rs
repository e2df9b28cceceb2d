//! `HickoryResolver` and `ClientBuilder::hickory_dns` (the `hickory-dns` feature), against
//! a name server of the test's own on 127.0.0.1: a small DNS responder over UDP and TCP
//! (RFC 1035 §4) that answers A and AAAA questions from a table, says NXDOMAIN, or stays
//! silent, and an HTTP server the names point at.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use net_support::{full, hyper_server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};
use whatwg_fetch::net::hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts,
};
use whatwg_fetch::net::{DnsError, HickoryError, HickoryResolver, Resolve};
use whatwg_fetch::{Client, NetworkError, RequestInit};

/// Bounds each test, so that a hang fails it rather than the whole run.
async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test finished in time")
}

/// What the name server does with a question for a name.
#[derive(Clone)]
enum Answer {
    /// These addresses: the IPv4 ones for A, the IPv6 ones for AAAA (none is NOERROR with
    /// no answer).
    Addresses(Vec<IpAddr>),
    /// RCODE 3, Name Error: the name does not exist.
    NxDomain,
    /// No reply at all.
    Silent,
}

/// The name server's table and what it saw.
#[derive(Default)]
struct Zone {
    answers: HashMap<String, Answer>,
    /// Questions received over UDP and over TCP.
    udp_questions: AtomicUsize,
    tcp_questions: AtomicUsize,
}

/// A name server on 127.0.0.1, UDP and TCP on one port.
struct NameServer {
    addr: SocketAddr,
    zone: Arc<Zone>,
}

impl NameServer {
    async fn start(answers: HashMap<String, Answer>) -> NameServer {
        let zone = Arc::new(Zone {
            answers,
            ..Zone::default()
        });
        // The same port for both: bind UDP, then TCP on its port (taken by chance
        // now and then by another socket, so try again).
        let (udp, tcp) = loop {
            let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            if let Ok(tcp) = TcpListener::bind(udp.local_addr().unwrap()).await {
                break (udp, tcp);
            }
        };
        let addr = udp.local_addr().unwrap();
        let udp_zone = Arc::clone(&zone);
        tokio::spawn(async move {
            let mut buf = vec![0; 4096];
            loop {
                let Ok((n, from)) = udp.recv_from(&mut buf).await else {
                    return;
                };
                udp_zone.udp_questions.fetch_add(1, Ordering::SeqCst);
                if let Some(reply) = reply(&udp_zone, &buf[..n], Some(1232)) {
                    let _ = udp.send_to(&reply, from).await;
                }
            }
        });
        let tcp_zone = Arc::clone(&zone);
        tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = tcp.accept().await else {
                    return;
                };
                let zone = Arc::clone(&tcp_zone);
                tokio::spawn(async move {
                    // Each message with its two-byte length (RFC 1035 §4.2.2).
                    loop {
                        let Ok(len) = stream.read_u16().await else {
                            return;
                        };
                        let mut query = vec![0; usize::from(len)];
                        if stream.read_exact(&mut query).await.is_err() {
                            return;
                        }
                        zone.tcp_questions.fetch_add(1, Ordering::SeqCst);
                        if let Some(reply) = reply(&zone, &query, None) {
                            let len = u16::try_from(reply.len()).unwrap();
                            let _ = stream.write_u16(len).await;
                            let _ = stream.write_all(&reply).await;
                        }
                    }
                });
            }
        });
        NameServer { addr, zone }
    }

    /// A resolver asking only this server (UDP, then TCP for a truncated answer), with
    /// `timeout` for each of `attempts`.
    fn resolver(&self, timeout: Duration, attempts: usize) -> HickoryResolver {
        let mut udp = ConnectionConfig::udp();
        udp.port = self.addr.port();
        let mut tcp = ConnectionConfig::tcp();
        tcp.port = self.addr.port();
        let server = NameServerConfig::new(self.addr.ip(), true, vec![udp, tcp]);
        let config = ResolverConfig::from_name_servers(vec![server]);
        let mut options = ResolverOpts::default();
        options.timeout = timeout;
        options.attempts = attempts;
        HickoryResolver::new(config, options).unwrap()
    }
}

/// The reply to `query` from `zone`, or `None` for silence; over UDP (`limit` the
/// client's payload size), an answer longer than `limit` is cut to its header and
/// question with TC set, as RFC 1035 §4.1.1 says, for the client to ask again over TCP.
fn reply(zone: &Zone, query: &[u8], limit: Option<usize>) -> Option<Vec<u8>> {
    // The header is 12 bytes; the question a name of labels, then QTYPE and QCLASS.
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
    let question_end = at + 4;
    let name = labels.join(".");
    let (rcode, addresses) = match zone.answers.get(&name)? {
        Answer::Silent => return None,
        Answer::NxDomain => (3, Vec::new()),
        Answer::Addresses(all) => (
            0,
            all.iter()
                .filter(|ip| match qtype {
                    1 => ip.is_ipv4(),
                    28 => ip.is_ipv6(),
                    _ => false,
                })
                .copied()
                .collect(),
        ),
    };
    let header = |flags: u16, answers: usize| {
        let mut header = Vec::new();
        header.extend_from_slice(&query[..2]); // ID
        // QR, the query's RD, RA, RCODE.
        header.extend_from_slice(
            &(0x8080 | u16::from(query[2] & 1) << 8 | flags | rcode).to_be_bytes(),
        );
        header.extend_from_slice(&1u16.to_be_bytes()); // QDCOUNT
        header.extend_from_slice(&u16::try_from(answers).unwrap().to_be_bytes()); // ANCOUNT
        header.extend_from_slice(&[0, 0, 0, 0]); // NSCOUNT, ARCOUNT
        header
    };
    let mut message = header(0, addresses.len());
    message.extend_from_slice(&query[12..question_end]);
    for ip in &addresses {
        message.extend_from_slice(&[0xc0, 12]); // the question's name
        let (rtype, rdata) = match ip {
            IpAddr::V4(ip) => (1u16, ip.octets().to_vec()),
            IpAddr::V6(ip) => (28u16, ip.octets().to_vec()),
        };
        message.extend_from_slice(&rtype.to_be_bytes());
        message.extend_from_slice(&1u16.to_be_bytes()); // IN
        message.extend_from_slice(&60u32.to_be_bytes()); // TTL
        message.extend_from_slice(&u16::try_from(rdata.len()).unwrap().to_be_bytes());
        message.extend_from_slice(&rdata);
    }
    if limit.is_some_and(|limit| message.len() > limit) {
        let mut truncated = header(0x0200, 0);
        truncated.extend_from_slice(&query[12..question_end]);
        return Some(truncated);
    }
    Some(message)
}

fn zone(entries: &[(&str, Answer)]) -> HashMap<String, Answer> {
    entries
        .iter()
        .map(|(name, answer)| (name.to_string(), answer.clone()))
        .collect()
}

async fn hello_server() -> net_support::Server {
    hyper_server(|_request| async { http::Response::new(full("hello from the name")) }).await
}

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// The `DnsError` and the `HickoryError` under a failed fetch's `NetworkError::Dns`.
fn dns_causes(error: &whatwg_fetch::Error) -> (&DnsError, &HickoryError) {
    let Some(NetworkError::Dns(source)) = error.network_error() else {
        panic!("not a DNS error: {error:?}");
    };
    let dns = source.downcast_ref::<DnsError>().expect("a DnsError");
    let hickory = std::error::Error::source(dns)
        .and_then(|source| source.downcast_ref::<HickoryError>())
        .expect("a HickoryError under the DnsError");
    (dns, hickory)
}

/// The messages of `error`'s chain, as a report looping over `source()` sees them.
fn chain(error: &whatwg_fetch::Error) -> Vec<String> {
    let mut messages = vec![error.to_string()];
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        messages.push(error.to_string());
        cause = error.source();
    }
    messages
}

#[tokio::test]
async fn a_made_up_name_resolves_through_the_name_server_and_the_fetch_gets_the_local_response() {
    bounded(async {
        let http = hello_server().await;
        let dns = NameServer::start(zone(&[(
            "app.hickory.test",
            Answer::Addresses(vec![loopback(1)]),
        )]))
        .await;
        let resolver = dns.resolver(Duration::from_secs(2), 1);

        // The resolver alone: the address in hickory's order, with port 0.
        let addrs = resolver.resolve("app.hickory.test").await.unwrap();
        assert_eq!(addrs, vec![SocketAddr::new(loopback(1), 0)]);

        let client = Client::builder()
            .resolver(Arc::new(resolver))
            .build()
            .unwrap();
        let url = format!("http://app.hickory.test:{}/", http.addr.port());
        let mut response = client.fetch(&url, RequestInit::default()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.text().await.unwrap(), "hello from the name");
        // The questions reached the test's server: nothing else knows the name.
        assert!(dns.zone.udp_questions.load(Ordering::SeqCst) >= 1);
    })
    .await;
}

#[tokio::test]
async fn nxdomain_fails_the_fetch_with_a_dns_error_naming_the_host() {
    bounded(async {
        let dns = NameServer::start(zone(&[("gone.hickory.test", Answer::NxDomain)])).await;
        let client = Client::builder()
            .resolver(Arc::new(dns.resolver(Duration::from_secs(2), 1)))
            .build()
            .unwrap();
        let error = client
            .fetch("http://gone.hickory.test/", RequestInit::default())
            .await
            .unwrap_err();
        assert!(error.is_dns() && error.is_connect(), "{error:?}");
        let (dns_error, hickory) = dns_causes(&error);
        assert_eq!(dns_error.host(), "gone.hickory.test");
        assert!(hickory.is_nx_domain(), "{:?}", hickory.net_error());
        assert!(!hickory.is_timeout());

        // Each part of the chain said once, the host among them, the reason last.
        let parts = chain(&error);
        for (i, part) in parts.iter().enumerate() {
            for (j, other) in parts.iter().enumerate() {
                assert!(i == j || !other.contains(part.as_str()), "{parts:?}");
            }
        }
        let alternate = format!("{error:#}");
        eprintln!("{alternate}");
        assert_eq!(
            alternate.matches("gone.hickory.test").count(),
            2,
            "{alternate}"
        );
        assert!(alternate.ends_with(&hickory.to_string()), "{alternate}");
    })
    .await;
}

#[tokio::test]
async fn a_name_server_that_never_answers_fails_the_fetch_within_the_resolver_timeout() {
    bounded(async {
        let dns = NameServer::start(zone(&[("quiet.hickory.test", Answer::Silent)])).await;
        let client = Client::builder()
            .resolver(Arc::new(dns.resolver(Duration::from_millis(200), 1)))
            .build()
            .unwrap();
        let started = Instant::now();
        let error = client
            .fetch("http://quiet.hickory.test/", RequestInit::default())
            .await
            .unwrap_err();
        let took = started.elapsed();
        eprintln!("{error:#} (after {took:?})");
        // Not the 30 s connect timeout: hickory's own, 200 ms for each try.
        assert!(error.is_dns(), "{error:?}");
        let (dns_error, hickory) = dns_causes(&error);
        assert_eq!(dns_error.host(), "quiet.hickory.test");
        assert!(hickory.is_timeout(), "{:?}", hickory.net_error());
        assert!(took < Duration::from_secs(5), "took {took:?}");
        assert!(dns.zone.udp_questions.load(Ordering::SeqCst) >= 1);
    })
    .await;
}

#[tokio::test]
async fn an_answer_of_300_addresses_comes_whole_and_the_fetch_tries_the_first_32() {
    bounded(async {
        let http = hello_server().await;
        // 300 A records, 127.0.0.1 fifth: the others are loopback addresses nothing
        // listens on, refused at once. Too long for UDP: the answer comes over TCP.
        let mut addresses: Vec<IpAddr> = (2..=255).map(loopback).collect();
        addresses.extend((0..45).map(|n| IpAddr::V4(Ipv4Addr::new(127, 0, 1, n))));
        addresses.insert(4, loopback(1));
        assert_eq!(addresses.len(), 300);
        let dns = NameServer::start(zone(&[(
            "many.hickory.test",
            Answer::Addresses(addresses.clone()),
        )]))
        .await;
        let resolver = dns.resolver(Duration::from_secs(2), 1);

        // The resolver gives every address; the connect path caps what it tries.
        let addrs = resolver.resolve("many.hickory.test").await.unwrap();
        let all: Vec<SocketAddr> = addresses.iter().map(|ip| SocketAddr::new(*ip, 0)).collect();
        assert_eq!(addrs, all);
        assert!(dns.zone.tcp_questions.load(Ordering::SeqCst) >= 1);

        let client = Client::builder()
            .resolver(Arc::new(resolver))
            .build()
            .unwrap();
        let url = format!("http://many.hickory.test:{}/", http.addr.port());
        let mut response = client.fetch(&url, RequestInit::default()).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "hello from the name");
    })
    .await;
}

#[tokio::test]
async fn hickory_dns_true_reads_the_system_configuration_when_the_client_is_built() {
    // The outcome depends on the machine's /etc/resolv.conf: a client when it names a
    // name server, else a build error that says which file.
    let built = Client::builder().hickory_dns(true).build();
    let system = HickoryResolver::from_system_conf();
    match (built, system) {
        (Ok(_), Ok(_)) => {}
        (Err(built), Err(system)) => {
            assert_eq!(built.to_string(), system.to_string());
            assert!(
                matches!(built.network_error(), Some(NetworkError::Other(_))),
                "{built:?}"
            );
            assert!(
                built.to_string().contains("hickory DNS resolver"),
                "{built}"
            );
        }
        (built, system) => {
            panic!("the builder and from_system_conf disagree: {built:?} {system:?}")
        }
    }
    // A resolver of one's own takes the place of the system's, whichever comes first.
    let dns = NameServer::start(zone(&[(
        "own.hickory.test",
        Answer::Addresses(vec![loopback(1)]),
    )]))
    .await;
    let http = hello_server().await;
    let resolver: Arc<dyn Resolve> = Arc::new(dns.resolver(Duration::from_secs(2), 1));
    let url = format!("http://own.hickory.test:{}/", http.addr.port());
    for client in [
        Client::builder()
            .hickory_dns(true)
            .resolver(resolver.clone()),
        Client::builder()
            .resolver(resolver.clone())
            .hickory_dns(true),
    ] {
        let client = client.build().unwrap();
        let response = bounded(client.fetch(&url, RequestInit::default())).await;
        assert_eq!(response.unwrap().status(), 200);
    }
}

//! `HickoryResolver` and `ClientBuilder::hickory_dns` (the `hickory-dns` feature), against
//! a name server of the test's own on 127.0.0.1: a small DNS responder over UDP and TCP
//! (RFC 1035 §4) that answers A, AAAA and HTTPS (RFC 9460) questions from a table, says
//! NXDOMAIN, or stays silent, and the HTTP servers the names point at (HTTP/3 ones with
//! the `http3` feature, for what HTTPS records announce).

#[path = "../support/h3_server.rs"]
mod h3_server;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use net_support::{TestPki, full, hyper_server};
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
    /// These addresses for A and AAAA, and these HTTPS records (RDATA in wire form, see
    /// [`https_record`]) for HTTPS.
    Https(Vec<IpAddr>, Vec<Vec<u8>>),
    /// These addresses for A and AAAA; no reply to an HTTPS question.
    SilentOnHttps(Vec<IpAddr>),
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
    /// HTTPS questions, over either.
    https_questions: AtomicUsize,
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
    if qtype == HTTPS {
        zone.https_questions.fetch_add(1, Ordering::SeqCst);
    }
    let of_type = |all: &[IpAddr]| -> Vec<IpAddr> {
        all.iter()
            .filter(|ip| match qtype {
                1 => ip.is_ipv4(),
                28 => ip.is_ipv6(),
                _ => false,
            })
            .copied()
            .collect()
    };
    let mut records = Vec::new();
    let (rcode, addresses) = match zone.answers.get(&name)? {
        Answer::Silent => return None,
        Answer::NxDomain => (3, Vec::new()),
        Answer::Addresses(all) => (0, of_type(all)),
        Answer::SilentOnHttps(_) if qtype == HTTPS => return None,
        Answer::SilentOnHttps(all) => (0, of_type(all)),
        Answer::Https(all, https) => {
            if qtype == HTTPS {
                records.clone_from(https);
            }
            (0, of_type(all))
        }
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
    let mut message = header(0, addresses.len() + records.len());
    message.extend_from_slice(&query[12..question_end]);
    let answers = addresses
        .iter()
        .map(|ip| match ip {
            IpAddr::V4(ip) => (1u16, ip.octets().to_vec()),
            IpAddr::V6(ip) => (28u16, ip.octets().to_vec()),
        })
        .chain(records.into_iter().map(|rdata| (HTTPS, rdata)));
    for (rtype, rdata) in answers {
        message.extend_from_slice(&[0xc0, 12]); // the question's name
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

/// The HTTPS RR type (RFC 9460 §14.1).
const HTTPS: u16 = 65;

/// An HTTPS record's RDATA (RFC 9460 §2.2): `priority`, `target` (`""` for `.`), and
/// SvcParams as (key, value) pairs in increasing key order.
fn https_record(priority: u16, target: &str, params: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut rdata = priority.to_be_bytes().to_vec();
    for label in target.split('.').filter(|label| !label.is_empty()) {
        rdata.push(u8::try_from(label.len()).unwrap());
        rdata.extend_from_slice(label.as_bytes());
    }
    rdata.push(0);
    for (key, value) in params {
        rdata.extend_from_slice(&key.to_be_bytes());
        rdata.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        rdata.extend_from_slice(value);
    }
    rdata
}

/// The `alpn` SvcParam (key 1): each id with its length.
fn alpn(ids: &[&str]) -> (u16, Vec<u8>) {
    let mut value = Vec::new();
    for id in ids {
        value.push(u8::try_from(id.len()).unwrap());
        value.extend_from_slice(id.as_bytes());
    }
    (1, value)
}

/// The `port` SvcParam (key 3).
fn port(port: u16) -> (u16, Vec<u8>) {
    (3, port.to_be_bytes().to_vec())
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

/// An origin `svc.hickory.test` of the test's own: a TLS server over TCP (HTTP/2, body
/// `tcp`, announcing nothing) and an HTTP/3 server on UDP, both on 127.0.0.1 with a
/// certificate for the name, and a client of `dns`'s resolver.
struct Origin {
    tcp: net_support::Server,
    quic: h3_server::H3Server,
    pki: TestPki,
}

impl Origin {
    async fn start() -> Origin {
        let pki = TestPki::new(&["svc.hickory.test", "alias.hickory.test"]);
        let quic = h3_server::h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let tcp = net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), |_request| async {
            http::Response::new(full("tcp"))
        })
        .await;
        Origin { tcp, quic, pki }
    }

    /// The name whose HTTPS records speak for the origin: its port is not 443.
    fn https_name(&self) -> String {
        format!("_{}._https.svc.hickory.test", self.tcp.addr.port())
    }

    fn url(&self) -> String {
        format!("https://svc.hickory.test:{}/", self.tcp.addr.port())
    }

    fn client(&self, dns: &NameServer) -> Client {
        Client::builder()
            .resolver(Arc::new(dns.resolver(Duration::from_secs(3), 1)))
            .add_root_certificate_der(self.pki.ca_der.clone())
            .build()
            .unwrap()
    }
}

/// The protocol a `GET` of `url` went over, and its body.
async fn get(client: &Client, url: &str) -> (String, String) {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert_eq!(response.status(), 200);
    let protocol = response.timing().unwrap().next_hop_protocol.to_string();
    (protocol, response.text().await.unwrap())
}

/// Requests `url` until one goes over HTTP/3: the first, unless the QUIC handshake took
/// longer than the head start TCP gives it, on a loaded machine.
async fn until_over_h3(client: &Client, url: &str) -> (usize, String) {
    for over_tcp in 0..50 {
        let (protocol, body) = get(client, url).await;
        if protocol == "h3" {
            return (over_tcp, body);
        }
        assert_eq!((protocol.as_str(), body.as_str()), ("h2", "tcp"));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never over HTTP/3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_record_announcing_h3_takes_the_first_request_over_quic() {
    bounded(async {
        let origin = Origin::start().await;
        let record = https_record(1, "", &[alpn(&["h3", "h2"]), port(origin.quic.addr.port())]);
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (
                &origin.https_name(),
                Answer::Https(Vec::new(), vec![record]),
            ),
        ]))
        .await;
        let client = origin.client(&dns);
        // The TCP server never announces HTTP/3: the HTTPS record alone says it.
        let (over_tcp, body) = until_over_h3(&client, &origin.url()).await;
        eprintln!("requests over TCP before the first over HTTP/3: {over_tcp}");
        assert_eq!(body, "GET / 0");
        if over_tcp == 0 {
            assert_eq!(origin.tcp.counts.accepts(), 0);
        }
        for _ in 0..3 {
            assert_eq!(get(&client, &origin.url()).await.0, "h3");
        }
        assert_eq!(origin.quic.counts.connections.load(Ordering::SeqCst), 1);
        // Asked once for all of them, the records being kept for their TTL.
        assert_eq!(dns.zone.https_questions.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_record_without_h3_leaves_the_requests_on_tcp_and_is_asked_for_once() {
    bounded(async {
        let origin = Origin::start().await;
        let record = https_record(1, "", &[alpn(&["h2"])]);
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (
                &origin.https_name(),
                Answer::Https(Vec::new(), vec![record]),
            ),
        ]))
        .await;
        let client = origin.client(&dns);
        for _ in 0..4 {
            assert_eq!(
                get(&client, &origin.url()).await,
                ("h2".to_owned(), "tcp".to_owned())
            );
        }
        assert_eq!(origin.quic.counts.connections.load(Ordering::SeqCst), 0);
        assert_eq!(dns.zone.https_questions.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_h3_endpoint_that_never_answers_costs_no_request() {
    bounded(async {
        let origin = Origin::start().await;
        // A UDP port that takes datagrams and answers none.
        let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let record = https_record(
            1,
            "",
            &[alpn(&["h3"]), port(silent.local_addr().unwrap().port())],
        );
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (
                &origin.https_name(),
                Answer::Https(Vec::new(), vec![record]),
            ),
        ]))
        .await;
        let client = Client::builder()
            .resolver(Arc::new(dns.resolver(Duration::from_secs(3), 1)))
            .add_root_certificate_der(origin.pki.ca_der.clone())
            .connect_timeout(Duration::from_secs(1))
            .build()
            .unwrap();
        // Over TCP after the head start; the QUIC attempt fails after the connect
        // timeout and marks the alternative broken, so later requests go over TCP at once.
        for _ in 0..3 {
            assert_eq!(
                get(&client, &origin.url()).await,
                ("h2".to_owned(), "tcp".to_owned())
            );
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let started = Instant::now();
        assert_eq!(get(&client, &origin.url()).await.0, "h2");
        eprintln!("after the alternative failed: {:?}", started.elapsed());
        assert_eq!(dns.zone.https_questions.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_server_silent_on_https_questions_holds_the_first_request_at_most_the_wait() {
    bounded(async {
        let origin = Origin::start().await;
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (&origin.https_name(), Answer::SilentOnHttps(Vec::new())),
        ]))
        .await;
        let client = origin.client(&dns);
        let started = Instant::now();
        assert_eq!(get(&client, &origin.url()).await.0, "h2");
        let first = started.elapsed();
        eprintln!("the first request, the records unanswered: {first:?}");
        // The resolver's own timeout is 3 s: the transport's wait, 1 s, ends it first.
        assert!(first >= whatwg_fetch::net::HTTPS_RECORD_WAIT, "{first:?}");
        assert!(first < Duration::from_millis(2900), "{first:?}");
        // Not asked again for the requests after it (hickory may have sent the one
        // question more than once, over UDP and TCP).
        let asked = dns.zone.https_questions.load(Ordering::SeqCst);
        assert!(asked >= 1);
        for _ in 0..3 {
            assert_eq!(get(&client, &origin.url()).await.0, "h2");
        }
        assert_eq!(dns.zone.https_questions.load(Ordering::SeqCst), asked);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alias_record_is_followed_to_the_service_record_at_its_target() {
    bounded(async {
        let origin = Origin::start().await;
        let alias = https_record(0, "alias.hickory.test", &[]);
        let service = https_record(1, "", &[alpn(&["h3"]), port(origin.quic.addr.port())]);
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (&origin.https_name(), Answer::Https(Vec::new(), vec![alias])),
            (
                "alias.hickory.test",
                Answer::Https(vec![loopback(1)], vec![service]),
            ),
        ]))
        .await;
        // The resolver alone: the record at the end of the chain, its `.` the alias target.
        let resolver = dns.resolver(Duration::from_secs(3), 1);
        let records = resolver
            .resolve_https("svc.hickory.test", origin.tcp.addr.port())
            .unwrap()
            .await
            .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].target.as_deref(), Some("alias.hickory.test"));
        assert_eq!(records[0].alpn, ["h3"]);
        assert_eq!(records[0].port, Some(origin.quic.addr.port()));
        assert_eq!(records[0].ttl, Duration::from_secs(60));

        let client = origin.client(&dns);
        let (_, body) = until_over_h3(&client, &origin.url()).await;
        assert_eq!(body, "GET / 0");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_with_an_unknown_mandatory_key_and_an_alias_loop_are_ignored() {
    bounded(async {
        let origin = Origin::start().await;
        let h3_port = origin.quic.addr.port();
        // mandatory=ech (key 5), which this client does not speak: RFC 9460 §8 says to
        // ignore the record; the one after it, priority 2, has no h3.
        let ech = https_record(
            1,
            "",
            &[
                (0, 5u16.to_be_bytes().to_vec()),
                alpn(&["h3"]),
                port(h3_port),
                (5, vec![0, 0]),
            ],
        );
        let h2 = https_record(2, "", &[alpn(&["h2"])]);
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (
                &origin.https_name(),
                Answer::Https(Vec::new(), vec![ech, h2]),
            ),
            // a → b → a.
            (
                "a.hickory.test",
                Answer::Https(
                    vec![loopback(1)],
                    vec![https_record(0, "b.hickory.test", &[])],
                ),
            ),
            (
                "b.hickory.test",
                Answer::Https(
                    vec![loopback(1)],
                    vec![https_record(0, "a.hickory.test", &[])],
                ),
            ),
        ]))
        .await;
        let resolver = dns.resolver(Duration::from_secs(3), 1);
        let records = resolver
            .resolve_https("svc.hickory.test", origin.tcp.addr.port())
            .unwrap()
            .await
            .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            (records[0].priority, records[0].alpn.as_slice()),
            (2, &["h2".to_owned()][..])
        );
        let looped = resolver
            .resolve_https("a.hickory.test", 443)
            .unwrap()
            .await
            .unwrap();
        assert!(looped.is_empty());
        // Each name of the loop asked at most MAX_ALIAS_HOPS + 1 times in all.
        assert!(dns.zone.https_questions.load(Ordering::SeqCst) <= 1 + 9);

        let client = origin.client(&dns);
        for _ in 0..3 {
            assert_eq!(get(&client, &origin.url()).await.0, "h2");
        }
        assert_eq!(origin.quic.counts.connections.load(Ordering::SeqCst), 0);
    })
    .await;
}

#[tokio::test]
async fn https_records_off_or_a_resolver_override_asks_no_name_server() {
    bounded(async {
        let origin = Origin::start().await;
        let record = https_record(1, "", &[alpn(&["h3"]), port(origin.quic.addr.port())]);
        let dns = NameServer::start(zone(&[
            ("svc.hickory.test", Answer::Addresses(vec![loopback(1)])),
            (
                &origin.https_name(),
                Answer::Https(Vec::new(), vec![record]),
            ),
        ]))
        .await;
        let off = dns.resolver(Duration::from_secs(3), 1).https_records(false);
        assert!(off.resolve_https("svc.hickory.test", 443).is_none());
        let clients = [
            Client::builder()
                .resolver(Arc::new(off))
                .add_root_certificate_der(origin.pki.ca_der.clone())
                .build()
                .unwrap(),
            // The caller chose the addresses of this name: its records are not asked for.
            Client::builder()
                .resolver(Arc::new(dns.resolver(Duration::from_secs(3), 1)))
                .resolve("svc.hickory.test", SocketAddr::new(loopback(1), 0))
                .add_root_certificate_der(origin.pki.ca_der.clone())
                .build()
                .unwrap(),
        ];
        for client in clients {
            for _ in 0..2 {
                assert_eq!(get(&client, &origin.url()).await.0, "h2");
            }
        }
        assert_eq!(dns.zone.https_questions.load(Ordering::SeqCst), 0);
    })
    .await;
}

#[tokio::test]
async fn an_answer_of_40_records_of_40_alpn_ids_is_cut_to_16_of_16() {
    bounded(async {
        // 40 records, priorities 40 down to 1, each with 40 ALPN ids: too long for UDP,
        // the answer comes over TCP.
        let ids: Vec<String> = (0..40).map(|n| format!("proto-{n}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let records = (1..=40u16)
            .rev()
            .map(|priority| https_record(priority, "", &[alpn(&ids), port(8443)]))
            .collect();
        let dns = NameServer::start(zone(&[(
            "_8443._https.many.hickory.test",
            Answer::Https(Vec::new(), records),
        )]))
        .await;
        let resolver = dns.resolver(Duration::from_secs(3), 1);
        let found = resolver
            .resolve_https("many.hickory.test", 8443)
            .unwrap()
            .await
            .unwrap();
        assert_eq!(found.len(), 16);
        // The most preferred ones, in order.
        let priorities: Vec<u16> = found.iter().map(|record| record.priority).collect();
        assert_eq!(priorities, (1..=16).collect::<Vec<u16>>());
        assert!(found.iter().all(|record| record.alpn.len() == 16));
        assert!(dns.zone.tcp_questions.load(Ordering::SeqCst) >= 1);
    })
    .await;
}

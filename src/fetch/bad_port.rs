//! [Port blocking](https://fetch.spec.whatwg.org/#port-blocking) (Fetch § 2.9): the ports a
//! fetch refuses to connect to because other protocols listen there.

use crate::request::Request;

/// The [bad ports](https://fetch.spec.whatwg.org/#bad-port), in the spec's order.
const BAD_PORTS: &[u16] = &[
    0,     // —
    1,     // tcpmux
    7,     // echo
    9,     // discard
    11,    // systat
    13,    // daytime
    15,    // netstat
    17,    // qotd
    19,    // chargen
    20,    // ftp-data
    21,    // ftp
    22,    // ssh
    23,    // telnet
    25,    // smtp
    37,    // time
    42,    // name
    43,    // nicname
    53,    // domain
    69,    // tftp
    77,    // —
    79,    // finger
    87,    // —
    95,    // supdup
    101,   // hostname
    102,   // iso-tsap
    103,   // gppitnp
    104,   // acr-nema
    109,   // pop2
    110,   // pop3
    111,   // sunrpc
    113,   // auth
    115,   // sftp
    117,   // uucp-path
    119,   // nntp
    123,   // ntp
    135,   // epmap
    137,   // netbios-ns
    139,   // netbios-ssn
    143,   // imap
    161,   // snmp
    179,   // bgp
    389,   // ldap
    427,   // svrloc
    465,   // submissions
    512,   // exec
    513,   // login
    514,   // shell
    515,   // printer
    526,   // tempo
    530,   // courier
    531,   // chat
    532,   // netnews
    540,   // uucp
    548,   // afp
    554,   // rtsp
    556,   // remotefs
    563,   // nntps
    587,   // submission
    601,   // syslog-conn
    636,   // ldaps
    989,   // ftps-data
    990,   // ftps
    993,   // imaps
    995,   // pop3s
    1719,  // h323gatestat
    1720,  // h323hostcall
    1723,  // pptp
    2049,  // nfs
    3659,  // apple-sasl
    4045,  // npp
    4190,  // sieve
    5060,  // sip
    5061,  // sips
    6000,  // x11
    6566,  // sane-port
    6665,  // ircu
    6666,  // ircu
    6667,  // ircu
    6668,  // ircu
    6669,  // ircu
    6679,  // osaut
    6697,  // ircs-u
    10080, // amanda
];

/// Whether `port` is a [bad port](https://fetch.spec.whatwg.org/#bad-port): one listed in the
/// spec's table, such as 25 (SMTP) or 6667 (IRC).
pub(crate) fn is_bad_port(port: u16) -> bool {
    BAD_PORTS.binary_search(&port).is_ok()
}

/// [Should fetching request be blocked due to a bad port](https://fetch.spec.whatwg.org/#block-bad-port):
/// true for **blocked**, false for **allowed**.
///
/// The URL's port is the URL Standard's: null when it is the scheme's default port, which
/// [`url::Url::port`] reports as `None`. No default port of an HTTP(S) scheme is bad, so only
/// an explicit port can block. Only `http` and `https` URLs are checked; WebSocket URLs
/// reach fetch with those schemes already.
pub(crate) fn should_request_be_blocked_due_to_bad_port(request: &Request) -> bool {
    // Step 1. Let url be request's current URL.
    let url = request.current_url();
    // Step 2. If url's scheme is an HTTP(S) scheme and url's port is a bad port, then return
    // blocked.
    if matches!(url.scheme(), "http" | "https") && url.port().is_some_and(is_bad_port) {
        return true;
    }
    // Step 3. Return allowed.
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use url::Url;

    fn blocked(url: &str) -> bool {
        should_request_be_blocked_due_to_bad_port(&Request::from_url(Url::parse(url).unwrap()))
    }

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(BAD_PORTS.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(BAD_PORTS.len(), 83);
    }

    #[test]
    fn exactly_the_listed_ports_are_bad() {
        let bad: Vec<u16> = (0..=u16::MAX).filter(|&port| is_bad_port(port)).collect();
        assert_eq!(bad, BAD_PORTS);
    }

    #[test]
    fn common_ports_are_allowed() {
        for port in [80, 443, 3000, 5000, 8000, 8080, 8443, 6670, 10081, 65535] {
            assert!(!is_bad_port(port), "port {port}");
        }
    }

    #[test]
    fn http_and_https_urls_with_a_bad_port_are_blocked() {
        assert!(blocked("http://example.com:25/"));
        assert!(blocked("https://example.com:6667/"));
        assert!(blocked("http://127.0.0.1:0/"));
        assert!(blocked("HTTP://example.com:10080/x"));
    }

    #[test]
    fn default_and_good_ports_are_allowed() {
        assert!(!blocked("http://example.com/"));
        assert!(!blocked("http://example.com:80/"));
        assert!(!blocked("https://example.com:443/"));
        assert!(!blocked("http://example.com:8080/"));
        // The default port of another scheme is an explicit port on HTTP.
        assert!(!blocked("http://example.com:443/"));
        assert!(blocked("https://example.com:21/"));
    }

    #[test]
    fn other_schemes_are_not_checked() {
        assert!(!blocked("ftp://example.com:25/"));
        assert!(!blocked("ws://example.com:25/"));
        assert!(!blocked("data:text/plain,hi"));
        assert!(!blocked("file:///etc/hosts"));
    }
}

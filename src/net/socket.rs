//! Opening the socket under a connection: TCP with the builder's socket options (a local
//! address, keep-alive, `TCP_NODELAY`), raced over a host's addresses by Happy Eyeballs,
//! or a Unix domain socket; and [`ConnectError`], which says what was tried and how each
//! attempt failed.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
#[cfg(unix)]
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

use super::happy_eyeballs::{
    DEFAULT_CONNECTION_ATTEMPT_DELAY, MAX_CONNECT_ADDRESSES, first_to_try,
    race_connection_attempts, sort_addresses,
};
use crate::error::NetworkError;

/// The shortest and longest idle times before TCP keep-alive probes that the system
/// takes (`TCP_KEEPIDLE`, whole seconds; 32,767 is Linux's `MAX_TCP_KEEPIDLE`).
const MIN_TCP_KEEPIDLE: Duration = Duration::from_secs(1);
const MAX_TCP_KEEPIDLE: Duration = Duration::from_secs(32_767);

/// How sockets are made; from the transport's builder.
#[derive(Clone, Debug)]
pub(crate) struct SocketOptions {
    /// RFC 8305's Connection Attempt Delay, within its bounds.
    pub(crate) happy_eyeballs_delay: Duration,
    /// The address to bind before connecting.
    pub(crate) local_address: Option<IpAddr>,
    /// The idle time before keep-alive probes; `None` leaves `SO_KEEPALIVE` off.
    pub(crate) tcp_keepalive: Option<Duration>,
    pub(crate) tcp_nodelay: bool,
    /// Every connection goes to this socket instead of over TCP.
    #[cfg(unix)]
    pub(crate) unix_socket: Option<PathBuf>,
}

impl Default for SocketOptions {
    fn default() -> SocketOptions {
        SocketOptions {
            happy_eyeballs_delay: DEFAULT_CONNECTION_ATTEMPT_DELAY,
            local_address: None,
            tcp_keepalive: None,
            tcp_nodelay: true,
            #[cfg(unix)]
            unix_socket: None,
        }
    }
}

/// A TCP connection to one of `addrs`: ordered and raced by Happy Eyeballs (RFC 8305 §4,
/// §5), each socket set up as `options` say. With a local address, the addresses of the
/// other family are not tried (a socket cannot be bound to one family and connect to the
/// other); when that leaves none, each is reported with the reason. `deadline`, the end of
/// the connect timeout, shares what is left of it among the addresses (see the
/// `happy_eyeballs` module); the caller enforces it. At most [`MAX_CONNECT_ADDRESSES`] are
/// tried, and at most as many skipped ones reported.
pub(crate) async fn connect_tcp(
    addrs: &[SocketAddr],
    options: &SocketOptions,
    deadline: Option<Instant>,
) -> Result<TcpStream, NetworkError> {
    let mut skipped = Vec::new();
    let reachable = match options.local_address {
        None => addrs.to_vec(),
        Some(local) => {
            let (reachable, other_family): (Vec<SocketAddr>, Vec<SocketAddr>) = addrs
                .iter()
                .partition(|addr| addr.is_ipv6() == local.is_ipv6());
            skipped = other_family
                .into_iter()
                .take(MAX_CONNECT_ADDRESSES)
                .map(|addr| (addr, other_family_error(local)))
                .collect();
            reachable
        }
    };
    let attempts = sort_addresses(first_to_try(reachable, MAX_CONNECT_ADDRESSES));
    match race_connection_attempts(attempts, options.happy_eyeballs_delay, deadline, |addr| {
        connect_one(addr, options)
    })
    .await
    {
        Ok(stream) => Ok(stream),
        Err(mut failures) => {
            failures.append(&mut skipped);
            Err(NetworkError::Connect(Box::new(ConnectError {
                target: Target::Tcp(failures),
            })))
        }
    }
}

/// Why an address of the other family than the local address is not tried.
fn other_family_error(local: IpAddr) -> io::Error {
    let (family, other) = if local.is_ipv6() {
        ("IPv6", "IPv4")
    } else {
        ("IPv4", "IPv6")
    };
    io::Error::new(
        io::ErrorKind::AddrNotAvailable,
        format!("not tried: the local address {local} is {family}, and cannot reach {other}"),
    )
}

/// One connection attempt: a socket with the options set, bound if asked, connected.
async fn connect_one(addr: SocketAddr, options: &SocketOptions) -> io::Result<TcpStream> {
    let socket = if addr.is_ipv6() {
        TcpSocket::new_v6()?
    } else {
        TcpSocket::new_v4()?
    };
    if let Some(time) = options.tcp_keepalive {
        // Sets `SO_KEEPALIVE` and the idle time before the first probe; the interval and
        // count of probes stay the system's.
        // `TCP_KEEPIDLE` takes whole seconds from 1 to 32,767 (Linux's `MAX_TCP_KEEPIDLE`)
        // and refuses any other with `EINVAL`, which would fail the connection: a time
        // outside is taken as the nearest it allows.
        let time = time.clamp(MIN_TCP_KEEPIDLE, MAX_TCP_KEEPIDLE);
        socket2::SockRef::from(&socket)
            .set_tcp_keepalive(&socket2::TcpKeepalive::new().with_time(time))?;
    }
    socket.set_nodelay(options.tcp_nodelay)?;
    if let Some(local) = options.local_address {
        socket.bind(SocketAddr::new(local, 0))?;
    }
    socket.connect(addr).await
}

/// A connection to the Unix domain socket at `path`.
#[cfg(unix)]
pub(crate) async fn connect_unix(path: &Path) -> Result<tokio::net::UnixStream, NetworkError> {
    tokio::net::UnixStream::connect(path)
        .await
        .map_err(|error| {
            NetworkError::Connect(Box::new(ConnectError {
                target: Target::Unix(path.to_owned(), error),
            }))
        })
}

/// Why no connection could be made: the source of
/// [`NetworkError::Connect`](crate::NetworkError::Connect) when no socket connected. It
/// names every address tried, with its own error, in the order the attempts started:
///
/// - one address: `connect to 127.0.0.1:59999 failed: Connection refused (os error 111)`;
/// - several: `connect failed to each of 2 addresses: [::1]:8080: Connection refused
///   (os error 111); 127.0.0.1:8080: Connection refused (os error 111)`;
/// - a Unix domain socket: `connect to unix socket /run/app.sock failed: No such file or
///   directory (os error 2)`.
///
/// Its [`source`](std::error::Error::source) is the first attempt's `io::Error`.
///
/// ```
/// # tokio_test::block_on(async {
/// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// # let port = closed.local_addr().unwrap().port();
/// # drop(closed);
/// use whatwg_fetch::net::ConnectError;
/// use whatwg_fetch::{Client, NetworkError};
///
/// // `port`: one nothing listens on.
/// let error = Client::new().get(&format!("http://127.0.0.1:{port}/")).send().await.unwrap_err();
/// let Some(NetworkError::Connect(cause)) = error.network_error() else { panic!("{error:?}") };
/// let connect = cause.downcast_ref::<ConnectError>().expect("the transport's");
/// assert!(connect.to_string().starts_with(&format!("connect to 127.0.0.1:{port} failed")));
/// # });
/// ```
#[derive(Debug)]
pub struct ConnectError {
    target: Target,
}

#[derive(Debug)]
enum Target {
    Tcp(Vec<(SocketAddr, io::Error)>),
    #[cfg(unix)]
    Unix(PathBuf, io::Error),
}

impl ConnectError {
    /// The one attempt's error, when one TCP address was tried; else this error as it is.
    pub(crate) fn into_single_error(self) -> Result<io::Error, ConnectError> {
        match self.target {
            Target::Tcp(mut attempts) if attempts.len() == 1 => match attempts.pop() {
                Some((_, error)) => Ok(error),
                None => Err(ConnectError {
                    target: Target::Tcp(attempts),
                }),
            },
            target => Err(ConnectError { target }),
        }
    }

    /// The TCP addresses tried, in the order the attempts started, each with its error.
    /// An address skipped because it is of another family than the
    /// [local address](super::HyperTransportBuilder::local_address) comes last, with an
    /// error saying so. Empty for a Unix domain socket.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let port = closed.local_addr().unwrap().port();
    /// # drop(closed);
    /// use std::error::Error as _;
    /// use whatwg_fetch::net::ConnectError;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // `port`: one nothing listens on.
    /// let error = Client::new().get(&format!("http://127.0.0.1:{port}/")).send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let connect = cause.downcast_ref::<ConnectError>().expect("the transport's");
    /// let tried: Vec<_> = connect.attempts().map(|(addr, _)| addr.port()).collect();
    /// assert_eq!(tried, [port]);
    /// # let _ = connect.source();
    /// # });
    /// ```
    pub fn attempts(&self) -> impl ExactSizeIterator<Item = (SocketAddr, &io::Error)> {
        let attempts = match &self.target {
            Target::Tcp(attempts) => attempts.as_slice(),
            #[cfg(unix)]
            Target::Unix(..) => &[],
        };
        attempts.iter().map(|(addr, error)| (*addr, error))
    }

    /// The path of the Unix domain socket that could not be connected to, if that was
    /// the target.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::net::ConnectError;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let path = std::env::temp_dir().join("whatwg-fetch-doc-no-such.sock");
    /// let client = Client::builder().unix_socket(&path).build()?;
    /// let error = client.get("http://localhost/").send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let connect = cause.downcast_ref::<ConnectError>().expect("the transport's");
    /// assert_eq!(connect.unix_socket(), Some(path.as_path()));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    #[cfg(unix)]
    pub fn unix_socket(&self) -> Option<&Path> {
        match &self.target {
            Target::Unix(path, _) => Some(path),
            Target::Tcp(_) => None,
        }
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Target::Tcp(attempts) => match attempts.as_slice() {
                [] => f.write_str("no addresses to connect to"),
                [(addr, _)] => write!(f, "connect to {addr} failed"),
                attempts => {
                    write!(
                        f,
                        "connect failed to each of {} addresses: ",
                        attempts.len()
                    )?;
                    for (i, (addr, error)) in attempts.iter().enumerate() {
                        if i > 0 {
                            f.write_str("; ")?;
                        }
                        write!(f, "{addr}: {error}")?;
                    }
                    Ok(())
                }
            },
            #[cfg(unix)]
            Target::Unix(path, _) => {
                write!(f, "connect to unix socket {} failed", path.display())
            }
        }
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.target {
            // One attempt's error is the cause; several are listed in the message (and by
            // `attempts`), so none of them is the one cause.
            Target::Tcp(attempts) => match attempts.as_slice() {
                [(_, error)] => Some(error),
                _ => None,
            },
            #[cfg(unix)]
            Target::Unix(_, error) => Some(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> io::Error {
        io::Error::new(io::ErrorKind::ConnectionRefused, "Connection refused")
    }

    #[test]
    fn a_connect_error_names_each_address_with_its_error() {
        let one = ConnectError {
            target: Target::Tcp(vec![("127.0.0.1:59999".parse().unwrap(), refused())]),
        };
        // One attempt: its error is the source.
        assert_eq!(one.to_string(), "connect to 127.0.0.1:59999 failed");
        assert!(std::error::Error::source(&one).is_some());
        let two = ConnectError {
            target: Target::Tcp(vec![
                ("[::1]:80".parse().unwrap(), refused()),
                ("127.0.0.1:80".parse().unwrap(), refused()),
            ]),
        };
        assert_eq!(
            two.to_string(),
            "connect failed to each of 2 addresses: [::1]:80: Connection refused; \
             127.0.0.1:80: Connection refused"
        );
        assert_eq!(two.attempts().len(), 2);
        // Several: each said in the message (and given by `attempts`), none the source.
        assert!(std::error::Error::source(&two).is_none());
    }

    #[test]
    fn an_address_of_the_other_family_says_why_it_was_not_tried() {
        let error = other_family_error("127.0.0.1".parse().unwrap());
        assert_eq!(
            error.to_string(),
            "not tried: the local address 127.0.0.1 is IPv4, and cannot reach IPv6"
        );
    }
}

//! The handle of an HTTP/2 connection, as the pool and the transport hold it: hyper's
//! `SendRequest`, or, in a build without the `http2` feature, a type with no values, so
//! that the code around it stays one code and its HTTP/2 paths are provably never taken.

/// An HTTP/2 connection as the pool holds it: the handle its requests are sent on, and
/// what is known of its other end, which each of its responses shares.
#[derive(Clone)]
pub(crate) struct H2Connection {
    pub(crate) tx: H2Sender,
    pub(crate) peer: Option<std::sync::Arc<crate::peer::Peer>>,
}

impl H2Connection {
    /// Whether the connection can no longer take a request.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

#[cfg(feature = "http2")]
pub(crate) type H2Sender = hyper::client::conn::http2::SendRequest<super::RequestBody>;

/// The executor of hyper's HTTP/2 connections: spawns each future on Tokio, boxed.
///
/// hyper spawns a future for every request (the wait for its response) and one for the
/// connection, and both are of one type, an enum as large as the connection's state (a few
/// KiB): spawned as it is, every request's task cell would be that large, and the future
/// copied whole into it and over it again when the task ends. Boxed, it is copied once, into
/// its box, and the task holds a pointer, as hyper-util's executor does it.
#[cfg(feature = "http2")]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BoxingExecutor;

#[cfg(feature = "http2")]
impl<F> hyper::rt::Executor<F> for BoxingExecutor
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        tokio::spawn(Box::pin(future));
    }
}

#[cfg(not(feature = "http2"))]
pub(crate) use without::H2Sender;

#[cfg(not(feature = "http2"))]
mod without {
    use http::{Request, Response};
    use hyper::body::Incoming;
    use hyper::client::conn::TrySendError;

    use super::super::RequestBody;

    /// No HTTP/2 connection exists in a build without the `http2` feature: nothing offers
    /// `h2` by ALPN, and prior knowledge is refused when the transport is built.
    #[derive(Clone, Debug)]
    pub(crate) enum H2Sender {}

    impl H2Sender {
        pub(crate) fn is_closed(&self) -> bool {
            match *self {}
        }

        pub(crate) async fn ready(&mut self) -> Result<(), hyper::Error> {
            match *self {}
        }

        pub(crate) fn try_send_request(
            &mut self,
            _request: Request<RequestBody>,
        ) -> std::future::Ready<Result<Response<Incoming>, TrySendError<Request<RequestBody>>>>
        {
            match *self {}
        }
    }
}

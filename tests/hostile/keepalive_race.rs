//! The keep-alive race: a reused connection closed under a request.

//! Peers that accept and never answer.

//! Servers that flood the cookie store.

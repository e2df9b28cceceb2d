//! Request framing headers set by the caller.

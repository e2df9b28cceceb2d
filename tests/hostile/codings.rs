//! Stacked and oversized content codings.

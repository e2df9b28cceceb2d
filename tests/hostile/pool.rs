//! Connection reuse under steady load.

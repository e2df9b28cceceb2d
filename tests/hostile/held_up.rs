//! Cases that already held: oversized heads, smuggling, injection, redirect loops, leaks.

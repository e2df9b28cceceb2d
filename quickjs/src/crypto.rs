//! Native operations behind `js/crypto.js`: the parts of
//! [Web Cryptography](https://w3c.github.io/webcrypto/) that the fetch tests use —
//! `crypto.subtle.digest` with the SHA-2 family, and random values.

use rquickjs::{Ctx, Function, Object, TypedArray};
use sha2::Digest;

use crate::encoding::copy_bytes;

/// The digest of `bytes` under the [algorithm name](https://w3c.github.io/webcrypto/#algorithm-name)
/// `algorithm` (ASCII case-insensitive), or `None` for an algorithm not supported here.
pub fn digest(algorithm: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    match algorithm.to_ascii_uppercase().as_str() {
        "SHA-256" => Some(sha2::Sha256::digest(bytes).to_vec()),
        "SHA-384" => Some(sha2::Sha384::digest(bytes).to_vec()),
        "SHA-512" => Some(sha2::Sha512::digest(bytes).to_vec()),
        _ => None,
    }
}

/// Registers `crypto_digest` and `crypto_random_bytes`.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "crypto_digest",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, algorithm: String, data: TypedArray<'js, u8>| match digest(
                &algorithm,
                &copy_bytes(&data),
            ) {
                Some(out) => TypedArray::<u8>::new(ctx, out).map(Some),
                None => Ok(None),
            },
        )?,
    )?;
    native.set(
        "crypto_random_bytes",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, length: f64| {
            let length = if length.is_finite() && length > 0.0 {
                (length as usize).min(65_536)
            } else {
                0
            };
            let bytes: Vec<u8> = (0..length).map(|_| fastrand::u8(..)).collect();
            TypedArray::<u8>::new(ctx, bytes)
        })?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_the_empty_string() {
        let out = digest("sha-256", b"").unwrap();
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(digest("SHA-384", b"").unwrap().len(), 48);
        assert_eq!(digest("SHA-512", b"").unwrap().len(), 64);
        assert!(digest("MD5", b"").is_none());
    }
}

//! [Subresource Integrity](https://w3c.github.io/webappsec-subresource-integrity/): checking a
//! response body against a request's
//! [integrity metadata](https://fetch.spec.whatwg.org/#concept-request-integrity-metadata),
//! such as `sha384-H8BRh8j48O9oYatfu5AZzq6A9RINhZO5H16dQZngK7T62em8MUt1FLm52t+eX6xO`.

use std::fmt;

use sha2::{Digest, Sha256, Sha384, Sha512};

use crate::data_url::forgiving_base64_decode;

/// A hash function of the
/// [valid SRI hash algorithm token set](https://w3c.github.io/webappsec-subresource-integrity/#valid-sri-hash-algorithm-token-set),
/// ordered from weakest to strongest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum HashAlgorithm {
    /// `sha256`: SHA-256.
    Sha256,
    /// `sha384`: SHA-384.
    Sha384,
    /// `sha512`: SHA-512, the strongest.
    Sha512,
}

impl HashAlgorithm {
    /// The algorithm's token: `sha256`, `sha384` or `sha512`.
    pub(crate) fn token(self) -> &'static str {
        match self {
            HashAlgorithm::Sha256 => "sha256",
            HashAlgorithm::Sha384 => "sha384",
            HashAlgorithm::Sha512 => "sha512",
        }
    }

    /// The algorithm named by `token` if it is a
    /// [valid SRI hash algorithm token](https://w3c.github.io/webappsec-subresource-integrity/#valid-sri-hash-algorithm-token):
    /// one whose ASCII lowercase is in the set.
    pub(crate) fn from_token(token: &str) -> Option<HashAlgorithm> {
        [
            HashAlgorithm::Sha256,
            HashAlgorithm::Sha384,
            HashAlgorithm::Sha512,
        ]
        .into_iter()
        .find(|algorithm| token.eq_ignore_ascii_case(algorithm.token()))
    }

    /// The raw digest of `bytes`.
    fn digest(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            HashAlgorithm::Sha256 => Sha256::digest(bytes).to_vec(),
            HashAlgorithm::Sha384 => Sha384::digest(bytes).to_vec(),
            HashAlgorithm::Sha512 => Sha512::digest(bytes).to_vec(),
        }
    }
}

impl fmt::Display for HashAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// One parsed hash expression of integrity metadata: the ordered map
/// «["alg" → algorithm, "val" → base64 value]» of
/// [parse metadata](https://w3c.github.io/webappsec-subresource-integrity/#parse-metadata).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IntegrityMetadata {
    /// "alg": the hash function.
    pub(crate) algorithm: HashAlgorithm,
    /// "val": the expected digest as written, base64 or base64url; possibly empty.
    pub(crate) value: String,
}

/// [Parse metadata](https://w3c.github.io/webappsec-subresource-integrity/#parse-metadata):
/// the hash expressions of `metadata` whose hash function is SHA-256, SHA-384 or SHA-512.
/// Tokens with any other algorithm, or none, are skipped; options after `?` are ignored.
pub(crate) fn parse_metadata(metadata: &str) -> Vec<IntegrityMetadata> {
    // Step 1. Let result be the empty set.
    let mut result = Vec::new();
    // Step 2. For each item returned by splitting metadata on spaces:
    // DEVIATION: split on ASCII whitespace rather than strictly on U+0020, as implementations
    // do and as the spec's own examples need (an `integrity` attribute with hashes on separate
    // lines). Empty items between spaces would be skipped by step 2.6 anyway.
    for item in metadata.split_ascii_whitespace() {
        // Step 2.1. Let expression-and-options be the result of splitting item on U+003F (?).
        // Step 2.2. Let algorithm-expression be expression-and-options[0].
        let algorithm_expression = item.split('?').next().unwrap_or_default();
        // Step 2.3. Let base64-value be the empty string.
        // Step 2.4. Let algorithm-and-value be the result of splitting algorithm-expression on
        // U+002D (-).
        // DEVIATION: split on the first U+002D only, so that a base64url value, whose
        // alphabet has `-`, is kept whole rather than cut at its first `-` (as
        // implementations read the digest up to `?`).
        let mut algorithm_and_value = algorithm_expression.splitn(2, '-');
        // Step 2.5. Let algorithm be algorithm-and-value[0].
        let algorithm = algorithm_and_value.next().unwrap_or_default();
        // Step 2.6. If algorithm is not a valid SRI hash algorithm token, then continue.
        let Some(algorithm) = HashAlgorithm::from_token(algorithm) else {
            continue;
        };
        // Step 2.7. If algorithm-and-value[1] exists, set base64-value to
        // algorithm-and-value[1].
        let base64_value = algorithm_and_value.next().unwrap_or_default();
        // Step 2.8. Let metadata be the ordered map «["alg" → algorithm, "val" →
        // base64-value]».
        // Step 2.9. Append metadata to result.
        result.push(IntegrityMetadata {
            algorithm,
            value: base64_value.to_owned(),
        });
    }
    // Step 3. Return result.
    result
}

/// [Get the strongest metadata from set](https://w3c.github.io/webappsec-subresource-integrity/#get-the-strongest-metadata):
/// the items of `set` whose algorithm is the strongest present, in order.
pub(crate) fn get_the_strongest_metadata(set: &[IntegrityMetadata]) -> Vec<&IntegrityMetadata> {
    // Step 1. Let result be the empty set and strongest be null.
    let mut result: Vec<&IntegrityMetadata> = Vec::new();
    let mut strongest: Option<&IntegrityMetadata> = None;
    // Step 2. For each item in set:
    for item in set {
        // Step 2.1. Assert: item["alg"] is a valid SRI hash algorithm token.
        // (HashAlgorithm holds only valid tokens.)
        // Step 2.2. If result is the empty set, then: append item to result, set strongest to
        // item, and continue.
        let Some(current) = strongest else {
            result.push(item);
            strongest = Some(item);
            continue;
        };
        // Step 2.3. Let currentAlgorithm be strongest["alg"], and currentAlgorithmIndex be
        // the index of currentAlgorithm in the valid SRI hash algorithm token set.
        // Step 2.4. Let newAlgorithm be the item["alg"], and newAlgorithmIndex be the index of
        // newAlgorithm in the valid SRI hash algorithm token set.
        // (HashAlgorithm's order is the set's order.)
        match item.algorithm.cmp(&current.algorithm) {
            // Step 2.5. If newAlgorithmIndex is less than currentAlgorithmIndex, continue.
            std::cmp::Ordering::Less => {}
            // Step 2.6. Otherwise, if newAlgorithmIndex is greater than currentAlgorithmIndex:
            // set strongest to item and set result to « item ».
            std::cmp::Ordering::Greater => {
                strongest = Some(item);
                result = vec![item];
            }
            // Step 2.7. Otherwise, newAlgorithmIndex and currentAlgorithmIndex are the same
            // value. Append item to result.
            std::cmp::Ordering::Equal => result.push(item),
        }
    }
    // Step 3. Return result.
    result
}

/// [Do bytes match metadataList?](https://w3c.github.io/webappsec-subresource-integrity/#does-response-match-metadatalist)
///
/// True when `metadata` has no hash expression this crate understands (empty, or only
/// unknown algorithms), or when `bytes` match one of the expressions with the strongest
/// algorithm present. The expected digest may be written in base64 or in base64url, with
/// or without `=` padding.
pub(crate) fn bytes_match_metadata_list(bytes: &[u8], metadata: &str) -> bool {
    // Step 1. Let parsedMetadata be the result of parsing metadataList.
    let parsed_metadata = parse_metadata(metadata);
    // Step 2. If parsedMetadata is empty set, return true.
    if parsed_metadata.is_empty() {
        return true;
    }
    // Step 3. Let metadata be the result of getting the strongest metadata from
    // parsedMetadata.
    let metadata = get_the_strongest_metadata(&parsed_metadata);
    // Step 4. For each item in metadata:
    for item in metadata {
        // Step 4.1. Let algorithm be the item["alg"].
        let algorithm = item.algorithm;
        // Step 4.2. Let expectedValue be the item["val"].
        let expected_value = &item.value;
        // Step 4.3. Let actualValue be the result of applying algorithm to bytes.
        let actual_value = algorithm.digest(bytes);
        // Step 4.4. If actualValue is a case-sensitive match for expectedValue, return true.
        // DEVIATION: the comparison is of digests, not of strings: the expected value is
        // read as base64 or base64url (CSP's `base64-value` allows both alphabets) with
        // optional padding, as implementations do. A value that does not decode never
        // matches.
        if expected_digest(expected_value).is_some_and(|expected| expected == actual_value) {
            return true;
        }
    }
    // Step 5. Return false.
    false
}

/// The digest an expected value spells: base64url characters are read as their base64
/// counterparts, and padding is optional. `None` for anything that is not base64.
fn expected_digest(expected_value: &str) -> Option<Vec<u8>> {
    if expected_value.is_empty()
        || !expected_value
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"+/-_=".contains(&byte))
    {
        return None;
    }
    let base64: String = expected_value
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    forgiving_base64_decode(&base64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_url::forgiving_base64_encode;

    // The example script of the Subresource Integrity spec and its digests.
    const SCRIPT: &[u8] = b"alert('Hello, world.');";
    const SHA256: &str = "qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng=";
    const SHA384: &str = "H8BRh8j48O9oYatfu5AZzq6A9RINhZO5H16dQZngK7T62em8MUt1FLm52t+eX6xO";
    const SHA512: &str =
        "Q2bFTOhEALkN8hOms2FKTDLy7eugP2zFZ1T8LCvX42Fp3WoNr3bjZSAHeOsHrbV1Fu9/A0EzCinRE7Af1ofPrw==";

    #[test]
    fn digests_of_the_spec_example() {
        for (algorithm, expected) in [
            (HashAlgorithm::Sha256, SHA256),
            (HashAlgorithm::Sha384, SHA384),
            (HashAlgorithm::Sha512, SHA512),
        ] {
            assert_eq!(
                forgiving_base64_encode(&algorithm.digest(SCRIPT)),
                expected,
                "{algorithm}"
            );
        }
    }

    #[test]
    fn algorithm_tokens_are_case_insensitive() {
        assert_eq!(
            HashAlgorithm::from_token("SHA256"),
            Some(HashAlgorithm::Sha256)
        );
        assert_eq!(HashAlgorithm::from_token("sha1"), None);
        assert_eq!(HashAlgorithm::from_token(""), None);
    }

    #[test]
    fn parsing_skips_unknown_algorithms_and_ignores_options() {
        let parsed = parse_metadata("md5-xyz sha256-abc?opt SHA512-def");
        assert_eq!(
            parsed,
            [
                IntegrityMetadata {
                    algorithm: HashAlgorithm::Sha256,
                    value: "abc".into()
                },
                IntegrityMetadata {
                    algorithm: HashAlgorithm::Sha512,
                    value: "def".into()
                },
            ]
        );
    }

    #[test]
    fn strongest_keeps_every_item_of_the_strongest_algorithm() {
        let parsed = parse_metadata("sha256-a sha512-b sha384-c sha512-d");
        let strongest: Vec<&str> = get_the_strongest_metadata(&parsed)
            .into_iter()
            .map(|item| item.value.as_str())
            .collect();
        assert_eq!(strongest, ["b", "d"]);
        assert!(get_the_strongest_metadata(&[]).is_empty());
    }

    #[test]
    fn missing_value_parses_as_empty_and_never_matches() {
        let parsed = parse_metadata("sha256 sha256-");
        assert_eq!(parsed.len(), 2);
        assert!(parsed.iter().all(|item| item.value.is_empty()));
        assert!(!bytes_match_metadata_list(SCRIPT, "sha256"));
    }

    #[test]
    fn expected_digest_reads_base64_and_base64url() {
        assert_eq!(expected_digest("-_8="), Some(vec![0xfb, 0xff]));
        assert_eq!(expected_digest("+/8"), Some(vec![0xfb, 0xff]));
        assert_eq!(expected_digest("a b"), None);
        assert_eq!(expected_digest("a"), None);
        assert_eq!(expected_digest(""), None);
    }

    #[test]
    fn each_algorithm_matches_its_digest() {
        for metadata in [
            format!("sha256-{SHA256}"),
            format!("sha384-{SHA384}"),
            format!("sha512-{SHA512}"),
            format!("SHA384-{SHA384}"),
            format!("  sha384-{SHA384}\n"),
            format!("sha384-{SHA384}?some-option"),
            format!("sha384-{SHA384}?opt1?opt2"),
        ] {
            assert!(bytes_match_metadata_list(SCRIPT, &metadata), "{metadata}");
            assert!(
                !bytes_match_metadata_list(b"alert('Goodbye');", &metadata),
                "{metadata}"
            );
        }
    }

    #[test]
    fn base64url_digests_match_with_or_without_padding() {
        let url_safe = SHA256.replace('+', "-").replace('/', "_");
        assert!(bytes_match_metadata_list(
            SCRIPT,
            &format!("sha256-{url_safe}")
        ));
        let unpadded = url_safe.trim_end_matches('=');
        assert!(bytes_match_metadata_list(
            SCRIPT,
            &format!("sha256-{unpadded}")
        ));
        let unpadded = SHA512.trim_end_matches('=');
        assert!(bytes_match_metadata_list(
            SCRIPT,
            &format!("sha512-{unpadded}")
        ));
    }

    #[test]
    fn the_strongest_algorithm_decides_the_match() {
        // A wrong SHA-256 does not matter next to a right SHA-512 …
        let wrong256 = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        assert!(bytes_match_metadata_list(
            SCRIPT,
            &format!("{wrong256} sha512-{SHA512}")
        ));
        // … but a right SHA-256 does not rescue a wrong SHA-384.
        assert!(!bytes_match_metadata_list(
            SCRIPT,
            &format!("sha256-{SHA256} sha384-{SHA512}")
        ));
        // Any of several digests of the strongest algorithm may match.
        assert!(bytes_match_metadata_list(
            SCRIPT,
            &format!("sha384-{} sha384-{SHA384}", SHA384.to_lowercase())
        ));
    }

    #[test]
    fn digests_are_case_sensitive() {
        assert!(!bytes_match_metadata_list(
            SCRIPT,
            &format!("sha384-{}", SHA384.to_uppercase())
        ));
    }

    #[test]
    fn empty_or_unknown_metadata_matches_anything() {
        for metadata in [
            "",
            "   ",
            "md5-xyz",
            "sha1-abc sha-256-def",
            "sha256",
            "not metadata at all",
        ] {
            let parsed = parse_metadata(metadata);
            let matches = bytes_match_metadata_list(b"anything", metadata);
            // An algorithm with no value parses but matches nothing.
            assert_eq!(matches, parsed.is_empty(), "{metadata:?}");
        }
        assert!(bytes_match_metadata_list(b"anything", "md5-xyz sha1-abc"));
        assert!(!bytes_match_metadata_list(b"anything", "sha256"));
    }

    #[test]
    fn malformed_tokens_are_ignored() {
        // Tokens whose algorithm is not known are skipped, and the rest still decides.
        let metadata = format!("sha-384-x ?sha256 -sha512 sha384-{SHA384} md5-{SHA256}");
        assert_eq!(parse_metadata(&metadata).len(), 1);
        assert!(bytes_match_metadata_list(SCRIPT, &metadata));
        // A digest that is not base64 never matches.
        assert!(!bytes_match_metadata_list(SCRIPT, "sha384-!!!!"));
        assert!(!bytes_match_metadata_list(
            SCRIPT,
            &format!("sha384-{SHA384}-extra")
        ));
    }
}

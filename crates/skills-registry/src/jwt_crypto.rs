//! The signatures of JWTs (`jsonwebtoken`) computed with `ring`, the crypto library the
//! process already links for TLS (rustls, sqlx). jsonwebtoken's own backends are a second
//! stack: RustCrypto (`rsa`, `p256`, `p384`, `ed25519-dalek` and their big-number crates:
//! 30 s of a 2-core `cargo install`, docs/performance.md "Building", and the `rsa` crate's
//! timing advisory) or aws-lc-rs (a C toolchain). jsonwebtoken takes any
//! [`CryptoProvider`]; this one maps each algorithm to ring's implementation of it, so the
//! JOSE rules (which header, which claims) stay jsonwebtoken's and the arithmetic ring's.
//!
//! Verification is what the registry needs (OIDC bearer tokens); signing is here too so a
//! process that signs with jsonwebtoken (the tests, an embedding program) works whichever
//! provider it installed first.

use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::jwk::{EllipticCurve, ThumbprintHash};
use jsonwebtoken::signature;
use jsonwebtoken::{Algorithm, DecodingKey, DecodingKeyKind, EncodingKey};
use ring::signature::{self as sig, KeyPair as _};

/// jsonwebtoken's signatures on ring.
pub(crate) static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: signer,
    verifier_factory: verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: rsa_components_of_private,
        rsa_pub_components_from_public_key: rsa_components_of_public,
        ec_pub_components_from_private_key: ec_components_of_private,
        ed_pub_components_from_private_key: ed_component_of_private,
        compute_digest: digest,
    },
};

/// Makes [`PROVIDER`] the process's provider unless one is installed already (an
/// embedding program's choice is kept; any provider verifies the same tokens).
pub(crate) fn install() {
    let _ = PROVIDER.install_default();
}

struct Signer {
    alg: Algorithm,
    key: EncodingKey,
}

struct Verifier {
    alg: Algorithm,
    key: DecodingKey,
}

fn signer(alg: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    if key.family() != alg.family() {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    Ok(Box::new(Signer {
        alg: *alg,
        key: key.clone(),
    }))
}

fn verifier(alg: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    if key.family() != alg.family() {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    Ok(Box::new(Verifier {
        alg: *alg,
        key: key.clone(),
    }))
}

impl JwtSigner for Signer {
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
}

impl JwtVerifier for Verifier {
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
}

impl signature::Signer<Vec<u8>> for Signer {
    fn try_sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        sign(self.alg, self.key.as_bytes(), message).ok_or_else(signature::Error::new)
    }
}

impl signature::Verifier<Vec<u8>> for Verifier {
    fn verify(
        &self,
        message: &[u8],
        signature: &Vec<u8>,
    ) -> std::result::Result<(), signature::Error> {
        if verify(self.alg, self.key.kind(), message, signature) {
            Ok(())
        } else {
            Err(signature::Error::new())
        }
    }
}

/// An RSA private key: PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`).
fn rsa_key_pair(der: &[u8]) -> Option<sig::RsaKeyPair> {
    sig::RsaKeyPair::from_pkcs8(der)
        .or_else(|_| sig::RsaKeyPair::from_der(der))
        .ok()
}

fn ecdsa_signing(alg: Algorithm) -> Option<&'static sig::EcdsaSigningAlgorithm> {
    match alg {
        Algorithm::ES256 => Some(&sig::ECDSA_P256_SHA256_FIXED_SIGNING),
        Algorithm::ES384 => Some(&sig::ECDSA_P384_SHA384_FIXED_SIGNING),
        _ => None,
    }
}

fn hmac_algorithm(alg: Algorithm) -> Option<ring::hmac::Algorithm> {
    match alg {
        Algorithm::HS256 => Some(ring::hmac::HMAC_SHA256),
        Algorithm::HS384 => Some(ring::hmac::HMAC_SHA384),
        Algorithm::HS512 => Some(ring::hmac::HMAC_SHA512),
        _ => None,
    }
}

/// The signature of `message` with `key` (an HMAC secret, or a private key's DER).
fn sign(alg: Algorithm, key: &[u8], message: &[u8]) -> Option<Vec<u8>> {
    let rng = ring::rand::SystemRandom::new();
    if let Some(hmac) = hmac_algorithm(alg) {
        let tag = ring::hmac::sign(&ring::hmac::Key::new(hmac, key), message);
        return Some(tag.as_ref().to_vec());
    }
    if let Some(signing) = ecdsa_signing(alg) {
        let pair = sig::EcdsaKeyPair::from_pkcs8(signing, key, &rng).ok()?;
        return Some(pair.sign(&rng, message).ok()?.as_ref().to_vec());
    }
    let padding: &'static dyn sig::RsaEncoding = match alg {
        Algorithm::RS256 => &sig::RSA_PKCS1_SHA256,
        Algorithm::RS384 => &sig::RSA_PKCS1_SHA384,
        Algorithm::RS512 => &sig::RSA_PKCS1_SHA512,
        Algorithm::PS256 => &sig::RSA_PSS_SHA256,
        Algorithm::PS384 => &sig::RSA_PSS_SHA384,
        Algorithm::PS512 => &sig::RSA_PSS_SHA512,
        Algorithm::EdDSA => {
            let pair = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(key).ok()?;
            return Some(pair.sign(message).as_ref().to_vec());
        }
        _ => return None,
    };
    let pair = rsa_key_pair(key)?;
    let mut signature = vec![0; pair.public().modulus_len()];
    pair.sign(padding, &rng, message, &mut signature).ok()?;
    Some(signature)
}

/// Whether `signature` is `key`'s for `message`. RSA keys of fewer than 2048 bits are
/// refused, as ring refuses them.
fn verify(alg: Algorithm, key: &DecodingKeyKind, message: &[u8], signature: &[u8]) -> bool {
    let bytes = match key {
        DecodingKeyKind::SecretOrDer(bytes) => bytes.as_slice(),
        DecodingKeyKind::RsaModulusExponent { n, e } => {
            return rsa_parameters(alg).is_some_and(|params| {
                sig::RsaPublicKeyComponents { n, e }
                    .verify(params, message, signature)
                    .is_ok()
            });
        }
    };
    if let Some(hmac) = hmac_algorithm(alg) {
        // Constant-time, which comparing a recomputed tag with `==` would not be.
        return ring::hmac::verify(&ring::hmac::Key::new(hmac, bytes), message, signature).is_ok();
    }
    let params: &'static dyn sig::VerificationAlgorithm = match alg {
        Algorithm::ES256 => &sig::ECDSA_P256_SHA256_FIXED,
        Algorithm::ES384 => &sig::ECDSA_P384_SHA384_FIXED,
        Algorithm::EdDSA => &sig::ED25519,
        _ => match rsa_parameters(alg) {
            Some(params) => params,
            None => return false,
        },
    };
    sig::UnparsedPublicKey::new(params, bytes)
        .verify(message, signature)
        .is_ok()
}

fn rsa_parameters(alg: Algorithm) -> Option<&'static sig::RsaParameters> {
    match alg {
        Algorithm::RS256 => Some(&sig::RSA_PKCS1_2048_8192_SHA256),
        Algorithm::RS384 => Some(&sig::RSA_PKCS1_2048_8192_SHA384),
        Algorithm::RS512 => Some(&sig::RSA_PKCS1_2048_8192_SHA512),
        Algorithm::PS256 => Some(&sig::RSA_PSS_2048_8192_SHA256),
        Algorithm::PS384 => Some(&sig::RSA_PSS_2048_8192_SHA384),
        Algorithm::PS512 => Some(&sig::RSA_PSS_2048_8192_SHA512),
        _ => None,
    }
}

/// `(n, e)` of an RSA private key, for its JWK.
fn rsa_components_of_private(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let pair = rsa_key_pair(der)
        .ok_or_else(|| ErrorKind::InvalidRsaKey("not an RSA private key".to_string()))?;
    let components = sig::RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
    Ok((components.n, components.e))
}

/// ring reads no DER public keys (it verifies with them as they are), so a JWK is made
/// from a private key or from `(n, e)`.
fn rsa_components_of_public(_der: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    Err(ErrorKind::InvalidRsaKey(
        "a JWK of an RSA public key in DER is not supported; give its private key".to_string(),
    )
    .into())
}

/// The curve and `(x, y)` of an EC private key (PKCS#8), for its JWK.
fn ec_components_of_private(
    der: &[u8],
    alg: Algorithm,
) -> Result<(EllipticCurve, Vec<u8>, Vec<u8>)> {
    let (curve, width) = match alg {
        Algorithm::ES256 => (EllipticCurve::P256, 32),
        Algorithm::ES384 => (EllipticCurve::P384, 48),
        _ => return Err(ErrorKind::InvalidEcdsaKey.into()),
    };
    let signing = ecdsa_signing(alg).ok_or(ErrorKind::InvalidEcdsaKey)?;
    let rng = ring::rand::SystemRandom::new();
    let pair = sig::EcdsaKeyPair::from_pkcs8(signing, der, &rng)
        .map_err(|_| ErrorKind::InvalidEcdsaKey)?;
    // An uncompressed point: 0x04, then x and y, each `width` bytes.
    match pair.public_key().as_ref().split_first() {
        Some((4, xy)) if xy.len() == 2 * width => {
            let (x, y) = xy.split_at(width);
            Ok((curve, x.to_vec(), y.to_vec()))
        }
        _ => Err(ErrorKind::InvalidEcdsaKey.into()),
    }
}

/// `x` of an Ed25519 private key (PKCS#8), for its JWK.
fn ed_component_of_private(der: &[u8], curve: &EllipticCurve) -> Result<Vec<u8>> {
    if *curve != EllipticCurve::Ed25519 {
        return Err(ErrorKind::InvalidEddsaKey.into());
    }
    let pair = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
        .map_err(|_| ErrorKind::InvalidEddsaKey)?;
    Ok(pair.public_key().as_ref().to_vec())
}

/// A JWK thumbprint's digest.
fn digest(data: &[u8], hash: ThumbprintHash) -> Result<Vec<u8>> {
    let algorithm = match hash {
        ThumbprintHash::SHA256 => &ring::digest::SHA256,
        ThumbprintHash::SHA384 => &ring::digest::SHA384,
        ThumbprintHash::SHA512 => &ring::digest::SHA512,
        _ => return Err(ErrorKind::UnsupportedAlgorithm.into()),
    };
    Ok(ring::digest::digest(algorithm, data).as_ref().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RSA: &[u8] = include_bytes!("../testdata/oidc/rsa.pem");
    const RSA_ROTATED: &[u8] = include_bytes!("../testdata/oidc/rsa-rotated.pem");
    const EC: &[u8] = include_bytes!("../testdata/oidc/ec.pem");

    /// A private key for `alg` and its public half as a verifier gets it from a key set
    /// (its JWK's components): the fixtures for RSA (`other`: the rotated one) and P-256,
    /// keys made here for the others and for another P-256 key.
    fn key_pair(alg: Algorithm, other: bool) -> (EncodingKey, DecodingKey) {
        let rng = ring::rand::SystemRandom::new();
        match alg {
            Algorithm::ES256 | Algorithm::ES384 => {
                let key = if alg == Algorithm::ES256 && !other {
                    EncodingKey::from_ec_pem(EC).unwrap()
                } else {
                    let signing = ecdsa_signing(alg).unwrap();
                    let pkcs8 = sig::EcdsaKeyPair::generate_pkcs8(signing, &rng).unwrap();
                    EncodingKey::from_ec_der(pkcs8.as_ref())
                };
                let (_, x, y) = ec_components_of_private(key.as_bytes(), alg).unwrap();
                let point = [&[4][..], &x, &y].concat();
                (key, DecodingKey::from_ec_der(&point))
            }
            Algorithm::EdDSA => {
                let pkcs8 = sig::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
                let key = EncodingKey::from_ed_der(pkcs8.as_ref());
                let x = ed_component_of_private(key.as_bytes(), &EllipticCurve::Ed25519).unwrap();
                (key, DecodingKey::from_ed_der(&x))
            }
            _ => {
                let key = EncodingKey::from_rsa_pem(if other { RSA_ROTATED } else { RSA }).unwrap();
                let (n, e) = rsa_components_of_private(key.as_bytes()).unwrap();
                (key, DecodingKey::from_rsa_raw_components(&n, &e))
            }
        }
    }

    fn round_trip(key: &EncodingKey, alg: Algorithm, public_key: &DecodingKey) -> bool {
        let signer = (PROVIDER.signer_factory)(&alg, key).unwrap();
        let signature = signature::Signer::try_sign(&*signer, b"header.claims").unwrap();
        let verifier = (PROVIDER.verifier_factory)(&alg, public_key).unwrap();
        signature::Verifier::verify(&*verifier, b"header.claims", &signature).is_ok()
            && signature::Verifier::verify(&*verifier, b"header.claimz", &signature).is_err()
    }

    /// Each algorithm the registry accepts signs and verifies, and a changed message or
    /// another key of the same kind is refused; HMAC too, which tokens may not use but
    /// jsonwebtoken's callers may.
    #[test]
    fn signatures_verify_with_their_key_only() {
        for alg in crate::oidc::ALGORITHMS {
            let (key, public_key) = key_pair(alg, false);
            let (_, other) = key_pair(alg, true);
            assert!(round_trip(&key, alg, &public_key), "{alg:?}");
            assert!(!round_trip(&key, alg, &other), "{alg:?}");
        }
        let secret = EncodingKey::from_secret(b"s3cret");
        assert!(round_trip(
            &secret,
            Algorithm::HS256,
            &DecodingKey::from_secret(b"s3cret")
        ));
        assert!(!round_trip(
            &secret,
            Algorithm::HS256,
            &DecodingKey::from_secret(b"other")
        ));
    }

    /// A key of one family is not used for another family's algorithm (an RSA public key
    /// as an HMAC secret is the classic forgery).
    #[test]
    fn a_key_is_refused_for_another_family() {
        let (rsa, public_key) = key_pair(Algorithm::RS256, false);
        assert!((PROVIDER.verifier_factory)(&Algorithm::HS256, &public_key).is_err());
        assert!((PROVIDER.verifier_factory)(&Algorithm::ES256, &public_key).is_err());
        assert!((PROVIDER.signer_factory)(&Algorithm::HS256, &rsa).is_err());
    }

    #[test]
    fn thumbprint_digests_are_sha2() {
        let d = digest(b"abc", ThumbprintHash::SHA256).unwrap();
        assert_eq!(
            skills_core::digest::hex(&d),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(digest(b"abc", ThumbprintHash::SHA512).unwrap().len(), 64);
    }
}

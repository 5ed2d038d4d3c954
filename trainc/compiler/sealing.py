"""Sealing a Secret's values for the Sealed Secrets controller (bitnami-labs/sealed-secrets, `pkg/crypto`).

Each value is sealed on its own, as `kubeseal` does: a 32-byte AES-256-GCM
session key (zero nonce, no additional data) encrypts the value, RSA-OAEP
(SHA-256, MGF1-SHA-256, the label `namespace/name` of strict scope) encrypts
the session key, and the blob is the RSA ciphertext's length (2 bytes, big
endian), the RSA ciphertext, then the GCM ciphertext and tag.

`kubeseal` draws the session key and the OAEP seed at random, so every run
gives a new blob. trainc draws both from a key derived from the SSH key seed,
over the certificate, the label, the data key and the value: an unchanged job
seals to the same bytes on every route (an --output-dir, a kpt package, an
Argo CD sync), and a reader without the seed can tell only that two blobs
hold the same value for the same object and certificate. The session key is
never reused for another value, so the zero nonce stays safe.

Read against bitnami-labs/sealed-secrets 86671a8851be1e6c2dfef4e12e2d7c19ed24ac94 (pkg/crypto/crypto.go,
pkg/apis/sealedsecrets/v1alpha1/sealedsecret_expansion.go: EncryptionLabel, Unseal).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

_SEAL_INFO = b"trainc/sealed-secrets/seal/v1"
_DIGEST_INFO = b"trainc/sealed-secrets/key-digest/v1"
_SESSION_KEY_BYTES = 32
_HASH_BYTES = 32  # SHA-256, the OAEP hash
MIN_RSA_BITS = 2048


class CertError(Exception):
    """Why the certificate cannot be used (the user fixes the file or the flag)."""


class Certificate:
    """The controller's RSA public key, from the PEM certificate `kubeseal --fetch-cert` saves."""

    def __init__(self, pem: bytes):
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization as s
        from cryptography.hazmat.primitives.asymmetric import rsa

        try:
            key = x509.load_pem_x509_certificate(pem).public_key()
        except ValueError:
            raise CertError("is not a PEM certificate (save it with `kubeseal --fetch-cert`)") from None
        if not isinstance(key, rsa.RSAPublicKey):
            raise CertError("holds no RSA public key: the Sealed Secrets controller's certificate has one")
        numbers = key.public_numbers()
        self.n, self.e = numbers.n, numbers.e
        self.size = (key.key_size + 7) // 8
        if key.key_size < MIN_RSA_BITS:
            raise CertError(
                f"holds an RSA key of {key.key_size} bits, too weak to seal with (at least "
                f"{MIN_RSA_BITS}; the controller makes 4096-bit keys)"
            )
        wire = key.public_bytes(s.Encoding.OpenSSH, s.PublicFormat.OpenSSH).split()[1]
        # as the controller's PublicKeyFingerprint (ssh.FingerprintSHA256) prints it
        digest = base64.b64encode(hashlib.sha256(base64.b64decode(wire)).digest()).decode().rstrip("=")
        self.fingerprint = f"SHA256:{digest}"


def strict_label(namespace: str, name: str) -> bytes:
    return f"{namespace}/{name}".encode()


def seal(cert: Certificate, key: bytes, label: bytes, data_key: str, value: bytes) -> str:
    """The base64 blob of `encryptedData[data_key]`; `key` is the secret key sealing is derived from."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    material = hmac.new(
        key, _parts(cert.fingerprint.encode(), label, data_key.encode(), value), hashlib.sha512
    ).digest()
    session_key, oaep_seed = material[:_SESSION_KEY_BYTES], material[_SESSION_KEY_BYTES:]
    encrypted_key = _oaep_encrypt(cert, session_key, label, oaep_seed)
    sealed = AESGCM(session_key).encrypt(bytes(12), value, None)
    return base64.b64encode(len(encrypted_key).to_bytes(2, "big") + encrypted_key + sealed).decode("ascii")


def key_digest(key: bytes, label: bytes, values: dict) -> str:
    """A digest of the sealed values, keyed: it tells whether the key changed, and nothing to one without it."""
    body = _parts(label, *(part for name in sorted(values) for part in (name.encode(), values[name])))
    return hmac.new(hmac.new(key, _DIGEST_INFO, hashlib.sha256).digest(), body, hashlib.sha256).hexdigest()[:32]


def sealing_key(seed: bytes, scope: str | None) -> bytes:
    """The key sealing draws from, apart from every other use of the seed (and the scope's own)."""
    return hmac.new(seed, _parts(_SEAL_INFO, (scope or "").encode()), hashlib.sha256).digest()


def _parts(*parts: bytes) -> bytes:
    return b"".join(len(part).to_bytes(4, "big") + part for part in parts)


def _oaep_encrypt(cert: Certificate, message: bytes, label: bytes, seed: bytes) -> bytes:
    """RSAES-OAEP-ENCRYPT (RFC 8017, 7.1.1) with SHA-256 and MGF1-SHA-256, the seed given."""
    k, h = cert.size, _HASH_BYTES
    padding = bytes(k - len(message) - 2 * h - 2)
    block = hashlib.sha256(label).digest() + padding + b"\x01" + message
    masked_block = _xor(block, _mgf1(seed, k - h - 1))
    masked_seed = _xor(seed, _mgf1(masked_block, h))
    encoded = int.from_bytes(b"\x00" + masked_seed + masked_block, "big")
    return pow(encoded, cert.e, cert.n).to_bytes(k, "big")


def _mgf1(seed: bytes, length: int) -> bytes:
    out = b"".join(
        hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        for counter in range((length + _HASH_BYTES - 1) // _HASH_BYTES)
    )
    return out[:length]


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))

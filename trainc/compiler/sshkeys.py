"""SSH key pairs for the `<job>-mpi-ssh-auth` Secret of MPI TrainJobs.

Upstream Kubeflow Trainer generates a fresh random ECDSA P-521 key per
TrainJob.  trainc renders manifests ahead of time for GitOps, where a random
key would change on every render, so keys are derived from a secret seed and
the job's namespace and name instead.

Security model: the seed is a long-lived secret held by whoever runs trainc
(the rendering pipeline), never committed next to the rendered manifests.
Anyone holding the seed can derive the private key of every job it was used
for, past and future, so it deserves the same protection as those keys
together.  Rotating the seed changes every job's key on the next render.
The rendered Secret still contains the private key in the clear; the seed
only removes the churn, it does not make the manifests safer to publish.

The output matches what upstream writes: `ssh-privatekey` is a PEM
`EC PRIVATE KEY` block (SEC1 DER with named curve and public key, as Go's
`x509.MarshalECPrivateKey`), `ssh-publickey` an authorized-keys line without
comment, ending in a newline (as Go's `ssh.MarshalAuthorizedKey`).
"""

from __future__ import annotations

import os

from ..errors import Notice, Record

# --ssh-keys: how MPI keys reach the cluster (mpikeys.py); the first is the default
MODES = ("seed", "external-secrets", "sealed-secrets")
MIN_SEED_BYTES = 32
MAX_SEED_BYTES = 1 << 16  # a seed is a few dozen bytes; a longer one is the wrong file (or /dev/urandom)

# Domain separation: changing it (or the encoding below) changes every key.
_SALT = b"trainc/mpi-ssh-auth/v1"
# Order n of the P-521 base point (SEC 2, section 2.6.1).  Pinned here rather
# than read from a library so that the derivation is fixed by this file.
_P521_ORDER = int(
    "01ff"
    "ffffffff"
    "ffffffff"
    "ffffffff"
    "ffffffff"
    "ffffffff"
    "ffffffff"
    "ffffffff"
    "fffffffa"
    "51868783"
    "bf2f966b"
    "7fcc0148"
    "f709a5d0"
    "3bb5c9b8"
    "899c47ae"
    "bb6fb71e"
    "91386409",
    16,
)
# 66 bytes cover the 521-bit order; 16 more make the modular bias negligible.
_OKM_BYTES = 66 + 16


class KeyPair(Record):
    """Contents of the two Secret keys; repr shows only the public half."""

    private_pem: bytes
    public_line: bytes

    def __repr__(self) -> str:
        return f"KeyPair(public_line={self.public_line!r})"


def _check_seed(seed: bytes) -> None:
    # Messages state sizes only: the seed must never reach a log.
    if not isinstance(seed, bytes):
        raise TypeError("seed must be bytes")
    if not seed:
        raise ValueError("seed is empty")
    if len(seed) < MIN_SEED_BYTES:
        raise ValueError(f"seed is {len(seed)} bytes; at least {MIN_SEED_BYTES} are required")
    if len(seed) > MAX_SEED_BYTES:
        raise ValueError(f"seed is over {MAX_SEED_BYTES} bytes: not a seed file")


class SeedError(Exception):
    """Why the configured seed cannot be used (no traceback: the user fixes the file or the flag)."""


class SeedFile:
    """The seed, read on first use: only an MPI TrainJob needs it, so an app without one (an Argo CD
    plugin without the seed mounted) never reads it. `source` says where the path came from, for messages;
    `required` makes a missing seed an error instead of a random key. It also carries the --ssh-keys
    settings, which travel with it to every route (build, its workers, diff, fn)."""

    def __init__(
        self,
        path: str | None,
        source: str = "--ssh-key-seed",
        required: bool = False,
        *,
        _seed: bytes | None = None,
        mode: str = MODES[0],
        cert: str | None = None,
        scope: str | None = None,
        moved_to: str | None = None,
        namespace_unknown: bool = False,
    ):
        self.path, self.source, self.required = path, source, required
        self.warnings: list = []  # said once, when the file is read
        self._seed = _seed
        self.read_by_a_job = False  # whether a TrainJob needed a key (`trainc diff` says so only then)
        self.mode = mode  # --ssh-keys
        self.cert = cert  # --sealed-secrets-cert, read by `mpikeys` in sealed-secrets mode
        self.scope = scope  # --ssh-key-scope: bound into every key, so another scope derives other keys
        # Where a later tool puts the objects (settings.placement): a SealedSecret is sealed for one namespace
        self.moved_to = moved_to  # the kustomization's namespace, which kustomize moves every object to
        self.namespace_unknown = namespace_unknown  # under the kustomize generator, no namespace known at all

    def read(self) -> bytes | None:
        """The seed; None when none is configured and none is required. Raises SeedError."""
        self.read_by_a_job = True
        if self._seed is not None:
            return self._seed
        if self.path is None:
            if self.required:
                raise SeedError(
                    "none is configured (--require-ssh-key-seed): pass --ssh-key-seed FILE or set "
                    "TRAINC_SSH_KEY_SEED_FILE"
                )
            return None
        from ..formats.regular_file import open_regular

        where = f"{self.path} (from {self.source})"
        try:
            with open_regular(self.path) as handle:  # a FIFO without a writer would block forever
                status = os.fstat(handle.fileno())
                seed = handle.read(MAX_SEED_BYTES + 1)
        except OSError as exc:
            raise SeedError(f"{where} cannot be read: {exc.strerror or exc}") from None
        try:
            _check_seed(seed)
        except ValueError as exc:
            raise SeedError(f"{where} cannot be used: {exc}") from None
        warning = _exposed(status)
        if warning:
            self.warnings.append(
                Notice(
                    "warning",
                    None,
                    (),
                    f"the SSH key seed {where} is readable by group or others (mode "
                    f"{status.st_mode & 0o777:04o}); anyone who can read it can derive every MPI job's private key: "
                    f"{warning.format(self.path)}",
                )
            )
        self._seed = seed
        return seed


def _exposed(status) -> str | None:
    """What to do about a seed others may read, or None. A file someone else owns (a Kubernetes Secret volume:
    root's, read-only) readable by one of this process's groups and by no one else is the Secret mounted with
    `defaultMode: 0440` and the pod's `fsGroup`, as examples/argocd/repo-server-patch.yaml does: not a
    warning, since its readers are this container's user and no other."""
    mode = status.st_mode
    if not mode & 0o077:
        return None
    if status.st_uid == os.geteuid():
        return "chmod 600 {}"
    if not mode & 0o007 and status.st_gid in {os.getegid(), *os.getgroups()}:
        return None
    return (
        "mount the Secret with defaultMode: 0440 and the pod's securityContext.fsGroup set to this user's "
        "group (see examples/argocd/repo-server-patch.yaml)"
    )


def derive_keypair(seed: bytes, namespace: str, name: str, scope: str | None = None) -> KeyPair:
    """Derive the key pair of TrainJob `namespace/name` from `seed`.

    HKDF-SHA512 (salt `_SALT`, info = the UTF-8 namespace and name, then the
    scope when one is given, each prefixed by its 4-byte big-endian length;
    without a scope the keys are those of earlier releases) yields 82 bytes c, and the
    private scalar is d = c mod (n-1) + 1, as in FIPS 186-5 A.2.1 ("extra
    random bits").  c has 656 bits against the 521-bit order n, so d is in
    [1, n-1] and its distance from uniform is below 2**-134: negligible.
    """
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    _check_seed(seed)
    if not namespace or not name:
        raise ValueError("namespace and name must be non-empty")
    info = b"".join(
        len(part).to_bytes(4, "big") + part
        for part in (namespace.encode(), name.encode(), *([scope.encode()] if scope else []))
    )
    okm = HKDF(algorithm=hashes.SHA512(), length=_OKM_BYTES, salt=_SALT, info=info).derive(seed)
    scalar = int.from_bytes(okm, "big") % (_P521_ORDER - 1) + 1
    return _keypair(ec.derive_private_key(scalar, ec.SECP521R1()))


def random_keypair() -> KeyPair:
    """A fresh random key pair, as upstream makes per TrainJob."""
    from cryptography.hazmat.primitives.asymmetric import ec

    return _keypair(ec.generate_private_key(ec.SECP521R1()))


def _keypair(key) -> KeyPair:
    from cryptography.hazmat.primitives import serialization as s

    private_pem = key.private_bytes(s.Encoding.PEM, s.PrivateFormat.TraditionalOpenSSL, s.NoEncryption())
    public = key.public_key().public_bytes(s.Encoding.OpenSSH, s.PublicFormat.OpenSSH)
    return KeyPair(private_pem=private_pem, public_line=public + b"\n")

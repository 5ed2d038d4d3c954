"""How an MPI TrainJob's SSH key reaches the cluster: `--ssh-keys seed|external-secrets|sealed-secrets`.

Every mode ends in the same Secret `<job>-mpi-ssh-auth` (type
kubernetes.io/ssh-auth, keys ssh-privatekey and ssh-publickey) that the JobSet
mounts; they differ in who makes it and what the rendered files hold:

- seed: trainc renders the Secret, the key derived from the seed (upstream's
  format, see sshkeys.py). The files hold the private key in clear.
- external-secrets: no key at all. An External Secrets Operator SSHKey
  generator (ECDSA P-521, as upstream's key) and an ExternalSecret that writes
  its `privateKey`/`publicKey` into the Secret through the target template,
  once (`refreshInterval: "0"`: a running job's key never rotates).
- sealed-secrets: the seed mode's key, sealed for the controller's certificate
  in a SealedSecret (strict scope) that unseals into the same Secret. Two
  annotations say which certificate sealed it and, keyed by the seed, which
  key it holds, so a re-seal for a new certificate reads as "key unchanged".

Read against external-secrets/external-secrets cc5bfbc2234ace9cb0caff4ea89c435cf517b27b
(generators/v1/sshkey/sshkey.go: outputs privateKey and publicKey; ecdsa 521 is P-521;
pkg/controllers/externalsecret: ApplyTemplate, and shouldRefresh, which never refreshes a synced
ExternalSecret whose refreshInterval is 0).
"""

from __future__ import annotations

import base64
import copy

from ..errors import InputError, Notice
from . import emit, sshkeys

SEED, EXTERNAL_SECRETS, SEALED_SECRETS = sshkeys.MODES
CERT_ANNOTATION = "trainc.kubeflow.org/sealed-with"
DIGEST_ANNOTATION = "trainc.kubeflow.org/sealed-key-digest"
SEALED_VALUE = "(sealed)"
RESEALED = "applying reseals the same key (unchanged key): the Secret it unseals into stays as it is"
SSH_AUTH = "kubernetes.io/ssh-auth"
PRIVATE, PUBLIC = "ssh-privatekey", "ssh-publickey"
EXTERNAL_NOTICE = "notice: --ssh-keys {mode}: no operator runs here, so MPI jobs get a key pair made for this run"
PLAIN_NOTICE = (
    "notice: {where} holds an MPI SSH private key in clear (--ssh-keys seed); to keep keys out of "
    "git, render with --ssh-keys external-secrets or --ssh-keys sealed-secrets (see "
    "docs/guides/mpi.md#keys-and-gitops)"
)


def objects(unit, seed, name: str) -> tuple[list[dict], tuple[Notice, ...]]:
    """(objects, notices) that give TrainJob `unit` its Secret `name`; `seed` is the Context's ssh_key_seed."""
    mode = getattr(seed, "mode", SEED)
    if mode == EXTERNAL_SECRETS:
        return _external_secrets(unit, name), ()
    if mode == SEALED_SECRETS:
        return [_sealed_secret(unit, seed, name)], ()
    key_seed = _read(unit, seed)
    notices = ()
    if key_seed is not None:
        keys = sshkeys.derive_keypair(key_seed, unit.trainjob.namespace, unit.name, getattr(seed, "scope", None))
    else:
        keys = sshkeys.random_keypair()
        notices = (
            Notice(
                "notice",
                None,
                (),
                f"{unit.trainjob.namespace}/{unit.name}: the SSH key in Secret {name} is random, "
                "so it changes on every render; pass --ssh-key-seed FILE (or set TRAINC_SSH_KEY_SEED_FILE) "
                "to derive a stable one",
            ),
        )
    return [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": emit.metadata(unit, name),
            "type": SSH_AUTH,
            "immutable": True,
            "data": {PRIVATE: _base64(keys.private_pem), PUBLIC: _base64(keys.public_line)},
        }
    ], notices


def _external_secrets(unit, name: str) -> list[dict]:
    """The generator and the ExternalSecret whose target is the Secret; the labels reach it via the template."""
    generator = {
        "apiVersion": "generators.external-secrets.io/v1alpha1",
        "kind": "SSHKey",
        "metadata": emit.metadata(unit, name),
        "spec": {"keyType": "ecdsa", "keySize": 521},
    }
    labels = emit.metadata(unit, name)["labels"]
    external = {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": emit.metadata(unit, name),
        "spec": {
            "refreshInterval": "0",
            "target": {
                "name": name,
                "immutable": True,
                "template": {
                    "type": SSH_AUTH,
                    "metadata": {"labels": labels},
                    "data": {PRIVATE: "{{ .privateKey }}", PUBLIC: "{{ .publicKey }}"},
                },
            },
            "dataFrom": [
                {
                    "sourceRef": {
                        "generatorRef": {"apiVersion": generator["apiVersion"], "kind": generator["kind"], "name": name}
                    }
                }
            ],
        },
    }
    return [generator, external]


def _sealed_secret(unit, seed, name: str) -> dict:
    from . import sealing

    namespace = unit.trainjob.namespace
    key_seed = _read(unit, seed)
    if key_seed is None:
        raise InputError(
            unit.trainjob.origin,
            (),
            f"{namespace}/{name}: --ssh-keys sealed-secrets seals the key "
            "derived from the seed: pass --ssh-key-seed FILE (or set "
            "TRAINC_SSH_KEY_SEED_FILE)",
        )
    _sealable_here(unit, seed, name)
    cert = _certificate(unit, seed)
    keys = sshkeys.derive_keypair(key_seed, namespace, unit.name, seed.scope)
    values = {PRIVATE: keys.private_pem, PUBLIC: keys.public_line}
    label = sealing.strict_label(namespace, name)
    key = sealing.sealing_key(key_seed, seed.scope)
    metadata = emit.metadata(
        unit,
        name,
        annotations={CERT_ANNOTATION: cert.fingerprint, DIGEST_ANNOTATION: sealing.key_digest(key, label, values)},
    )
    return {
        "apiVersion": "bitnami.com/v1alpha1",
        "kind": "SealedSecret",
        "metadata": metadata,
        "spec": {
            "encryptedData": {
                data_key: sealing.seal(cert, key, label, data_key, value) for data_key, value in values.items()
            },
            "template": {"metadata": {"labels": metadata["labels"]}, "type": SSH_AUTH, "immutable": True},
        },
    }


def _sealable_here(unit, seed, name: str) -> None:
    """A strict-scope SealedSecret unseals only in the namespace it is sealed for: refuse one that kustomize
    would move elsewhere (its kustomization's namespace), or sealed for `default` only because no namespace is
    known (an overlay's namespace would move it): exit 0 there, and the controller never unseals it."""
    namespace = unit.trainjob.namespace
    moved_to = getattr(seed, "moved_to", None)
    if moved_to is not None and namespace != moved_to:
        raise InputError(
            unit.trainjob.origin,
            ("metadata", "namespace"),
            f"{namespace}/{name}: --ssh-keys sealed-secrets seals it for namespace {namespace!r}, but "
            f"kustomize moves it to the kustomization's namespace {moved_to!r}, where the controller can "
            f"never unseal it: set the TrainJob's namespace to {moved_to!r}, or drop it",
        )
    if getattr(seed, "namespace_unknown", False) and not _written(unit.trainjob.origin, ("metadata", "namespace")):
        raise InputError(
            unit.trainjob.origin,
            ("metadata", "namespace"),
            f"{namespace}/{name}: --ssh-keys sealed-secrets seals for one namespace, and under the "
            "kustomize generator none is known (no -n in argsOneLiner, no namespace in the "
            "kustomization): a namespace set later by kustomize would leave it unsealable; pass -n "
            "NAMESPACE in argsOneLiner or set the kustomization's namespace",
        )


def _written(origin, path: tuple) -> bool:
    """Whether the TrainJob's own text sets `path` (not a default filled in when it was read)."""
    from ..formats import position

    return position.locate(origin, path, exact=True) is not None


def _read(unit, seed) -> bytes | None:
    """The seed's bytes; a `SeedFile` is read here, so only a TrainJob that needs a key needs the file."""
    if not isinstance(seed, sshkeys.SeedFile):
        return seed
    try:
        return seed.read()
    except sshkeys.SeedError as exc:
        raise InputError(
            unit.trainjob.origin,
            (),
            f"{unit.trainjob.namespace}/{unit.name}: MPI SSH keys need the seed, and {exc} (see docs/guides/mpi.md)",
        ) from None


def _certificate(unit, seed):
    """The controller's `sealing.Certificate`, read once per run (a bounded regular file, as the seed)."""
    cached = getattr(seed, "_certificate", None)
    if cached is not None:
        return cached
    where = f"{unit.trainjob.namespace}/{unit.name}: --ssh-keys sealed-secrets"
    if seed.cert is None:
        raise InputError(
            unit.trainjob.origin,
            (),
            f"{where} needs the controller's certificate: pass "
            "--sealed-secrets-cert FILE (`kubeseal --fetch-cert > FILE`)",
        )
    from ..formats.regular_file import open_regular
    from . import sealing

    try:
        with open_regular(seed.cert) as handle:
            pem = handle.read(sshkeys.MAX_SEED_BYTES + 1)
        if len(pem) > sshkeys.MAX_SEED_BYTES:
            raise sealing.CertError(f"is over {sshkeys.MAX_SEED_BYTES} bytes: not a certificate")
        cert = sealing.Certificate(pem)
    except OSError as exc:
        raise InputError(
            unit.trainjob.origin, (), f"{where}: the certificate {seed.cert} cannot be read: {exc.strerror or exc}"
        ) from None
    except sealing.CertError as exc:
        raise InputError(unit.trainjob.origin, (), f"{where}: the certificate {seed.cert} {exc}") from None
    seed._certificate = cert
    return cert


def redacted(obj: dict) -> dict:
    """A SealedSecret as `trainc diff` compares it: each blob as one word, so a re-seal of the same key (the
    annotations the same, or only the certificate's changed) is no change to the key."""
    data = _mapping(_mapping(obj.get("spec")).get("encryptedData"))
    if not data:
        return obj
    shown = copy.deepcopy(obj)
    shown["spec"]["encryptedData"] = {key: SEALED_VALUE for key in data}
    return shown


def refusals(old: dict, new: dict) -> list[str]:
    """Why an update of a SealedSecret cannot reach its Secret: the controller cannot change an immutable one."""
    if (
        old.get("kind") != "SealedSecret"
        or _mapping(_mapping(old.get("spec")).get("template")).get("immutable") is not True
    ):
        return []
    digests = [_mapping(_mapping(obj.get("metadata")).get("annotations")).get(DIGEST_ANNOTATION) for obj in (old, new)]
    keys = [set(_mapping(_mapping(obj.get("spec")).get("encryptedData"))) for obj in (old, new)]
    if digests[0] == digests[1] and keys[0] == keys[1]:
        return []
    name = _mapping(old.get("metadata")).get("name")
    return [f"SealedSecret {name!r} unseals into an immutable Secret: the controller cannot change its key"]


def update_effect(old: dict, new: dict) -> str | None:
    """What applying a changed SealedSecret does when its key is unchanged (only the certificate's is new)."""
    if old.get("kind") != "SealedSecret":
        return None
    digests = [_mapping(_mapping(obj.get("metadata")).get("annotations")).get(DIGEST_ANNOTATION) for obj in (old, new)]
    specs = [_mapping(obj.get("spec")) for obj in (old, new)]
    if (
        digests[0] is None
        or digests[0] != digests[1]
        or specs[0].get("template") != specs[1].get("template")
        or set(_mapping(specs[0].get("encryptedData"))) != set(_mapping(specs[1].get("encryptedData")))
    ):
        return None
    return RESEALED


def _mapping(value) -> dict:
    """`value` if it is a mapping, else an empty one: diff also compares SealedSecrets users wrote."""
    return value if isinstance(value, dict) else {}


def holds_plain_key(objects) -> bool:
    """Whether rendered objects include an MPI Secret with its private key in clear."""
    return any(
        obj.get("kind") == "Secret"
        and obj.get("type") == SSH_AUTH
        and PRIVATE in (obj.get("data") or {})
        and emit.TRAINJOB_LABEL in ((obj.get("metadata") or {}).get("labels") or {})
        for obj in objects
    )


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

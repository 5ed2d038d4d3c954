import base64
import hashlib
import hmac
import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from trainc.compiler import sshkeys
from trainc.compiler.sshkeys import KeyPair, SeedError, SeedFile, derive_keypair, random_keypair

SEED = b"trainc-test-seed-0123456789abcdef"
OTHER_SEED = b"another-test-seed-0123456789abcdef"
# sha256 of derive_keypair(SEED, "team-a", "demo").private_pem.  If this
# changes, every deployed job's key changes on the next render.
KAT_PEM_SHA256 = "50cd4b33cd4b3551615a5ddfd64c7848e040a537333ef95d9f9ceeeebcca44d9"

TIMEOUT = 20


def _tool(name: str) -> str:
    """Absolute path of an OpenSSH tool; skip without it, but fail under CI."""
    path = shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))
    if path is None:
        msg = f"{name} not found (Debian: apt-get install openssh-client openssh-server)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{msg}; CI=true, so this is a failure, not a skip")
        pytest.skip(msg)
    return os.path.abspath(path)


def _write_private(path: Path, kp: KeyPair) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(kp.private_pem)
    return path


def _hkdf_sha512(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha512).digest()
    okm, block, i = b"", b"", 1
    while len(okm) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha512).digest()
        okm, i = okm + block, i + 1
    return okm[:length]


def _der(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def _ssh_string(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


# --- determinism and separation -------------------------------------------


def test_deterministic():
    a = derive_keypair(SEED, "team-a", "demo")
    b = derive_keypair(bytes(SEED), "team-a", "demo")
    assert a.private_pem == b.private_pem
    assert a.public_line == b.public_line
    assert a == b


def test_known_answer():
    kp = derive_keypair(SEED, "team-a", "demo")
    assert hashlib.sha256(kp.private_pem).hexdigest() == KAT_PEM_SHA256


def test_scalar_follows_documented_derivation():
    """Recompute the scalar with stdlib HKDF, independently of the module."""
    info = b"\0\0\0\x06team-a\0\0\0\x04demo"
    okm = _hkdf_sha512(SEED, b"trainc/mpi-ssh-auth/v1", info, 82)
    n = sshkeys._P521_ORDER
    expected = int.from_bytes(okm, "big") % (n - 1) + 1
    key = serialization.load_pem_private_key(derive_keypair(SEED, "team-a", "demo").private_pem, password=None)
    assert key.private_numbers().private_value == expected


def test_pinned_order_is_p521_order():
    n = sshkeys._P521_ORDER
    ec.derive_private_key(n - 1, ec.SECP521R1())
    with pytest.raises(ValueError):
        ec.derive_private_key(n, ec.SECP521R1())


@pytest.mark.parametrize(
    "seed,namespace,name",
    [
        (SEED, "team-a", "demo2"),
        (SEED, "team-b", "demo"),
        (SEED, "demo", "team-a"),
        (SEED, "team-ad", "emo"),
        (OTHER_SEED, "team-a", "demo"),
    ],
)
def test_different_inputs_different_keys(seed, namespace, name):
    base = derive_keypair(SEED, "team-a", "demo")
    other = derive_keypair(seed, namespace, name)
    assert other.private_pem != base.private_pem
    assert other.public_line != base.public_line


def test_random_keypairs_differ_and_are_valid():
    a, b = random_keypair(), random_keypair()
    assert a.private_pem != b.private_pem
    for kp in (a, b):
        key = serialization.load_pem_private_key(kp.private_pem, password=None)
        assert isinstance(key.curve, ec.SECP521R1)


# --- format -----------------------------------------------------------------


def test_private_key_is_sec1_p521():
    kp = derive_keypair(SEED, "team-a", "demo")
    assert kp.private_pem.startswith(b"-----BEGIN EC PRIVATE KEY-----\n")
    assert kp.private_pem.endswith(b"-----END EC PRIVATE KEY-----\n")
    key = serialization.load_pem_private_key(kp.private_pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    assert isinstance(key.curve, ec.SECP521R1)
    assert (
        key.public_key().public_bytes(
            serialization.Encoding.OpenSSH,
            serialization.PublicFormat.OpenSSH,
        )
        + b"\n"
        == kp.public_line
    )


def test_pem_is_byte_identical_to_go_layout():
    """Rebuild what x509.MarshalECPrivateKey + pem.EncodeToMemory emit."""
    kp = derive_keypair(SEED, "team-a", "demo")
    numbers = serialization.load_pem_private_key(kp.private_pem, password=None).private_numbers()
    point = b"\x04" + numbers.public_numbers.x.to_bytes(66, "big") + numbers.public_numbers.y.to_bytes(66, "big")
    der = _der(
        0x30,
        b"".join(
            [
                _der(0x02, b"\x01"),
                _der(0x04, numbers.private_value.to_bytes(66, "big")),
                _der(0xA0, _der(0x06, bytes.fromhex("2b81040023"))),  # secp521r1
                _der(0xA1, _der(0x03, b"\x00" + point)),
            ]
        ),
    )
    b64 = base64.b64encode(der)
    body = b"".join(b64[i : i + 64] + b"\n" for i in range(0, len(b64), 64))
    assert kp.private_pem == (b"-----BEGIN EC PRIVATE KEY-----\n" + body + b"-----END EC PRIVATE KEY-----\n")

    blob = _ssh_string(b"ecdsa-sha2-nistp521") + _ssh_string(b"nistp521") + _ssh_string(point)
    assert kp.public_line == b"ecdsa-sha2-nistp521 " + base64.b64encode(blob) + b"\n"


def test_public_line_format():
    line = derive_keypair(SEED, "team-a", "demo").public_line
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    parts = line.rstrip(b"\n").split(b" ")
    assert len(parts) == 2  # no comment, like ssh.MarshalAuthorizedKey
    assert parts[0] == b"ecdsa-sha2-nistp521"
    assert parts[1].startswith(b"AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjE")
    base64.b64decode(parts[1], validate=True)


def test_repr_hides_private_key():
    kp = derive_keypair(SEED, "team-a", "demo")
    body = kp.private_pem.splitlines()[1]
    for text in (repr(kp), str(kp), f"{kp}", f"{kp!r}"):
        assert b"PRIVATE" not in text.encode()
        assert body.decode() not in text
    assert kp.public_line.decode().strip() in repr(kp)


# --- seed validation ----------------------------------------------------------


@pytest.mark.parametrize("seed", [b"", b"s3cr3t-short-seed-value"])
def test_short_seed_rejected_without_echo(seed):
    with pytest.raises(ValueError) as exc:
        derive_keypair(seed, "team-a", "demo")
    if seed:
        assert seed.decode() not in str(exc.value)


def test_str_seed_rejected():
    with pytest.raises(TypeError):
        derive_keypair(SEED.decode(), "team-a", "demo")


@pytest.mark.parametrize("namespace,name", [("", "demo"), ("team-a", "")])
def test_empty_job_identity_rejected(namespace, name):
    with pytest.raises(ValueError):
        derive_keypair(SEED, namespace, name)


def test_seed_file_reads_raw_bytes(tmp_path):
    path = tmp_path / "seed"
    path.write_bytes(SEED + b"\n")
    path.chmod(0o600)
    assert SeedFile(str(path)).read() == SEED + b"\n"


@pytest.mark.parametrize("content", [b"", b"s3cr3t-short-seed-value\n"])
def test_seed_file_rejects_short_without_echo(tmp_path, content):
    path = tmp_path / "seed"
    path.write_bytes(content)
    with pytest.raises(SeedError) as exc:
        SeedFile(str(path)).read()
    assert str(path) in str(exc.value)
    if content:
        assert b"s3cr3t" not in str(exc.value).encode()


# --- real OpenSSH ---------------------------------------------------------------


def test_ssh_keygen_reproduces_public_key(tmp_path):
    keygen = _tool("ssh-keygen")
    kp = derive_keypair(SEED, "team-a", "demo")
    key = _write_private(tmp_path / "id", kp)
    out = subprocess.run([keygen, "-y", "-f", str(key)], capture_output=True, timeout=TIMEOUT, check=True).stdout
    assert out.split()[:2] == kp.public_line.split()[:2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    """A real sshd on loopback that accepts only derive_keypair(SEED, team-a, demo)."""
    sshd_bin, keygen = _tool("sshd"), _tool("ssh-keygen")
    _tool("ssh")
    d = tmp_path_factory.mktemp("sshd")
    host_key = d / "host_ed25519"
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], timeout=TIMEOUT, check=True)
    kp = derive_keypair(SEED, "team-a", "demo")
    (d / "authorized_keys").write_bytes(kp.public_line)
    if os.geteuid() == 0:
        # Privilege separation directory, required when sshd runs as root.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    port = _free_port()
    config = d / "sshd_config"
    config.write_text(f"""\
ListenAddress 127.0.0.1
Port {port}
HostKey {host_key}
PidFile {d / "sshd.pid"}
AuthorizedKeysFile {d / "authorized_keys"}
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
LogLevel VERBOSE
""")
    log_path = d / "sshd.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sshd_bin, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        ready = f"Server listening on 127.0.0.1 port {port}"
        while ready not in log_path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sshd did not start (exit {proc.poll()}):\n" + log_path.read_text(errors="replace"))
            time.sleep(0.05)
        yield port, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _ssh_true(port: int, key: Path) -> subprocess.CompletedProcess:
    user = pwd.getpwuid(os.getuid()).pw_name
    return subprocess.run(
        [
            _tool("ssh"),
            "-F",
            "/dev/null",
            "-i",
            str(key),
            "-p",
            str(port),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "IdentityAgent=none",
            "-o",
            "PreferredAuthentications=publickey",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            f"{user}@127.0.0.1",
            "true",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def test_sshd_accepts_derived_key(sshd, tmp_path):
    port, log_path = sshd
    key = _write_private(tmp_path / "id", derive_keypair(SEED, "team-a", "demo"))
    r = _ssh_true(port, key)
    assert r.returncode == 0, (
        f"ssh exit {r.returncode}\nssh stderr:\n{r.stderr}\nsshd log:\n{log_path.read_text(errors='replace')}"
    )


def test_sshd_refuses_other_jobs_key(sshd, tmp_path):
    port, log_path = sshd
    key = _write_private(tmp_path / "id", derive_keypair(SEED, "team-a", "other"))
    r = _ssh_true(port, key)
    assert r.returncode == 255, r.stderr
    assert "Permission denied" in r.stderr, f"{r.stderr}\nsshd log:\n{log_path.read_text(errors='replace')}"

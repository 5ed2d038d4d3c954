"""Flux: wrap the trainer command in a Flux cluster (spec §6.3, upstream plugins/flux).

enforce: the trainer command becomes `/bin/bash /etc/flux-config/entrypoint.sh
"<command and args>"` and `trainer.args` are not applied (upstream clears them);
the job named `node` gets the Flux volumes, the `flux-installer` init container
and the mounts. build: ConfigMap `<job>-flux-entrypoint` (entrypoint.sh, init.sh
from templates/flux-*.j2) and Secret `<job>-flux-curve` (the CURVE certificate).
PlainML runs first and sets the node count and `trainer.env`.

Broker settings start from upstream's defaults, then take same-named literal
values of the trainer container's env, then the TrainJob's env (its value, ""
for a valueFrom). Upstream dereferences `spec.trainer` and `trainer.numNodes`
without checking; trainc reports their absence as an input error.

Its webhook rule (upstream Validate): the `node` job must not already have the
`flux-installer` init container the plugin adds. Upstream reports it at
`spec.trainer.initContainers`; trainc points at the runtimePatch that adds it,
else at the runtime reference.
"""

from __future__ import annotations

import base64

from ...errors import InputError
from ...k8s import podspec
from .. import emit, ir, templates
from ..admission import error, patch_path, patch_specs
from ..ir import Unit, pod_spec
from ..provenance import Source

CONFIG_DIR = "/etc/flux-config"
INSTALL_DIR = "/mnt/flux"
INSTALLER = "flux-installer"
DEFAULT_SETTINGS = {
    "FLUX_VIEW_IMAGE": "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
    "FLUX_NETWORK_DEVICE": "eth0",
    "FLUX_QUEUE_POLICY": "fcfs",
}
# Go's strings.TrimSpace: the Unicode White_Space characters (str.strip() also drops \x1c-\x1f).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def config_map_name(unit: Unit) -> str:
    return f"{unit.name}-flux-entrypoint"


def curve_secret_name(unit: Unit) -> str:
    return f"{unit.name}-flux-curve"


def validate(unit: Unit, change) -> list[InputError]:
    return [
        error(
            unit.trainjob.origin,
            ("spec", "trainer", "initContainers"),
            "InitContainer 'flux-installer' is reserved",
            at=_where(unit),
        )
        for rjob in unit.replicated_jobs
        if rjob.get("name") == ir.NODE
        for container in pod_spec(rjob).get("initContainers") or ()
        if container.get("name") == INSTALLER
    ]


def _where(unit: Unit) -> tuple:
    for index, spec in patch_specs(unit.trainjob):
        for j, rjob in enumerate(spec.get("replicatedJobs") or ()):
            names = [c.get("name") for c in pod_spec(rjob).get("initContainers") or ()]
            if rjob.get("name") == ir.NODE and INSTALLER in names:
                return patch_path(
                    index,
                    "replicatedJobs",
                    j,
                    "template",
                    "spec",
                    "template",
                    "spec",
                    "initContainers",
                    names.index(INSTALLER),
                )
    return ("spec", "runtimeRef")


def enforce(unit: Unit, ctx) -> Unit:
    _require_num_nodes(unit)
    settings = broker_settings(unit)
    cm = config_map_name(unit)
    written = []
    for rjob in unit.replicated_jobs:
        if rjob.get("name") != ir.NODE:
            continue
        spec = ir.ensure_pod_spec(rjob)
        volumes = [
            {"name": "spack-install", "emptyDir": {}},
            {"name": "flux-install", "emptyDir": {}},
            {"name": cm, "configMap": {"name": cm, "defaultMode": 0o755}},
            {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
            {"name": "flux-curve", "secret": {"secretName": curve_secret_name(unit), "defaultMode": 0o400}},
        ]
        podspec.add_volumes(spec, *volumes)
        installer = {"name": INSTALLER}
        written += [*volumes, installer]
        if settings["FLUX_VIEW_IMAGE"]:  # upstream sets a PodSet image only when non-empty
            installer["image"] = settings["FLUX_VIEW_IMAGE"]
        installer["command"] = ["/bin/bash", f"{CONFIG_DIR}/init.sh"]
        installer["volumeMounts"] = [
            {"name": "flux-install", "mountPath": INSTALL_DIR},
            {"name": cm, "mountPath": CONFIG_DIR, "readOnly": True},
        ]
        spec.setdefault("initContainers", []).append(installer)
        container = ir.main_container(rjob, unit.kep)
        if container is not None:
            mounts = [
                {"name": "flux-install", "mountPath": INSTALL_DIR},
                {"name": "spack-install", "mountPath": "/opt/software"},
                {"name": cm, "mountPath": CONFIG_DIR, "readOnly": True},
                {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
                {"name": "shared-memory", "mountPath": "/dev/shm", "readOnly": True},
            ]
            podspec.add_mounts(container, *mounts)
            written += mounts
    if ctx.provenance is not None:
        ctx.provenance.items(written, Source("flux plugin"))
    command = ["/bin/bash", f"{CONFIG_DIR}/entrypoint.sh", original_command(unit)]
    return unit.replace(command=command, args_consumed=True)


def build(unit: Unit, ctx) -> Unit:
    settings = broker_settings(unit)
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": emit.metadata(unit, config_map_name(unit)),
        "data": {"entrypoint.sh": entrypoint_script(unit), "init.sh": init_script(unit, settings)},
    }
    cert = base64.b64encode(curve_cert(unit).encode()).decode()
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": emit.metadata(unit, curve_secret_name(unit)),
        "data": {"curve.cert": cert},
    }
    return unit.replace(objects=unit.objects + (config_map, secret))


def broker_settings(unit: Unit) -> dict:
    settings = dict(DEFAULT_SETTINGS)
    container = ir.trainer_container(unit)
    for variable in (container or {}).get("env") or ():
        if variable.get("name") in settings and variable.get("value"):  # upstream: Value set (omitempty drops "")
            settings[variable["name"]] = variable["value"]
    for variable in unit.trainer.env or ():
        if variable.get("name") in settings:
            settings[variable["name"]] = variable.get("value", "")
    return settings


def original_command(unit: Unit) -> str:
    """The TrainJob's command (else the runtime trainer container's) and args, space-joined and trimmed."""
    container = ir.trainer_container(unit)
    command = (container or {}).get("command") or []
    trainer = unit.trainer
    if trainer.command is not None:
        command = trainer.command
    return " ".join([*command, *(trainer.args or ())]).strip(_GO_SPACE)


def entrypoint_script(unit: Unit) -> str:
    trainer = unit.trainer
    nodes = trainer.num_nodes
    tasks = trainer.num_proc_per_node
    if tasks is None:
        tasks = unit.ml_policy.flux.num_proc_per_node
    flags = f"-N {nodes} -n {tasks * nodes}"
    rspec = f"--cores={generate_range(tasks)}"
    gpus = podspec.gpu_count(ir.node_resources(unit))
    if gpus > 0:
        flags += f" -g {gpus}"
        rspec += f" --gpu={generate_range(gpus)}"
    return templates.render("flux-entrypoint.sh.j2", rspec=rspec, main_host=f"{unit.name}-{ir.NODE}-0-0", flags=flags)


def init_script(unit: Unit, settings: dict) -> str:
    """init.sh with the broker config; its main host is `<job>-0`, unlike entrypoint.sh's (as upstream)."""
    hosts = generate_hostlist(unit.name, unit.trainer.num_nodes)
    broker = templates.render(
        "flux-broker.toml.j2",
        bind=f"tcp://{settings['FLUX_NETWORK_DEVICE']}:%p",
        connect=f"tcp://%h.{unit.name}.{unit.trainjob.namespace}.svc.cluster.local:%p",
        hosts=hosts,
        queue_policy=settings["FLUX_QUEUE_POLICY"],
    )
    main_host = f"{unit.name}-0"
    return templates.render("flux-init.sh.j2", flux_root="/opt/view", main_host=main_host, hosts=hosts, broker=broker)


def generate_range(size: int, start: int = 0) -> str:
    """Flux idset: `start` for one item, else `start-end` (size 0 gives upstream's `0--1`)."""
    return str(start) if size == 1 else f"{start}-{start + size - 1}"


def generate_hostlist(prefix: str, size: int) -> str:
    return f"{prefix}-{ir.NODE}-0-[{generate_range(size)}]"


def encode_z85(data: bytes) -> str:
    """ZeroMQ Z85 (RFC 32/Z85); like upstream, "" when the length is not a multiple of 4."""
    if len(data) % 4:
        return ""
    out = []
    for offset in range(0, len(data), 4):
        value = int.from_bytes(data[offset : offset + 4], "big")
        out.extend(_Z85[value // 85**power % 85] for power in (4, 3, 2, 1, 0))
    return "".join(out)


def curve_seed(unit: Unit) -> bytes:
    """The CURVE secret key: SHA-256 of the TrainJob uid, as upstream.

    TrainJobs rendered ahead of time usually have no uid (the API server assigns
    it), and upstream would then give every such job the same key pair — the
    SHA-256 of "" — so the brokers of one job would accept those of any other.
    Without a uid trainc hashes `<namespace>/<name>` instead: unique among live
    jobs, stable across renders, and never equal to the key of a Kubernetes uid
    (a UUID, which has no "/"). Neither is secret: the key protects a job's brokers from other jobs'
    brokers, not from whoever can read the TrainJob (or the Secret).
    """
    import hashlib  # loads OpenSSL: only Flux jobs pay for it

    uid = unit.trainjob.metadata.uid or f"{unit.trainjob.namespace}/{unit.name}"
    return hashlib.sha256(uid.encode()).digest()


def curve_keys(secret: bytes) -> tuple[str, str]:
    """(public, secret) Z85-encoded: the X25519 public key of `secret`, and `secret` as given (as Go's ecdh)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    public = X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes_raw()
    return encode_z85(public), encode_z85(secret)


def curve_cert(unit: Unit) -> str:
    """The `curve.cert` file, laid out as `flux keygen` writes it (CZMQ certificate, 4-space indents)."""
    public, secret = curve_keys(curve_seed(unit))
    return (
        "#  ZeroMQ CURVE Secret Certificate\n"
        "#  Generated by Kubeflow Trainer\n\n"
        "metadata\n"
        f'    name = "{unit.name}"\n'
        "curve\n"
        f'    public-key = "{public}"\n'
        f'    secret-key = "{secret}"\n'
    )


def _require_num_nodes(unit: Unit) -> None:
    """Upstream dereferences spec.trainer and trainer.numNodes unchecked, so its reconcile fails without them."""
    if unit.trainer is None or unit.trainer.num_nodes is None:
        path = ("spec",) if unit.trainer is None else ("spec", "trainer")
        message = "the Flux policy needs trainer.numNodes (upstream's controller fails without it)"
        raise InputError(unit.trainjob.origin, path, message)

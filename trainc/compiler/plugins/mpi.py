"""MPI: mpirun over SSH — keys, a hostfile and launcher env (upstream's MPI plugin, spec §5).

Counts: with `trainer.numNodes` the job named `node` runs numNodes pods, one fewer
(at least 1) when the launcher also runs as a node; the launcher's count is left
as built. Slots per node: `trainer.numProcPerNode`, else the GPUs per node when
the runtime says 1 and there are several GPUs, else the runtime's value; this
becomes the effective policy's numProcPerNode, as upstream rewrites its copy.
Jobs named `node` and `launcher` get the SSH Secret volume, their main container
the mount; the launcher also gets the hostfile and the env telling mpirun where
it is. The Secret and the hostfile ConfigMap are built last, from the endpoints.

Upstream implements OpenMPI only. The KEP (v2alpha1 runtimes) also names Intel
MPI and MPICH and reuses mpi-operator v2's SSH design; trainc renders those as the
real Hydra launchers (Intel MPI 2021, MPICH 5.0) need to span their nodes, which is
mpi-operator v2's layout (`pkg/controller/mpi_job_controller.go`), not only its env
names (see `_hydra_host` and `_hydra_search`; tests/test_mpi_launchers.py plays it):
- hostfile lines `<pod>.<subdomain>.<namespace>.svc:<slots>`, the full service name,
  except the launcher's own line (runLauncherAsNode): its bare host name;
- the `node` pods search `<subdomain>.<namespace>.svc.cluster.local`, so their Hydra
  proxies resolve the launcher's bare host name, the name they connect back to;
- on the launcher `I_MPI_HYDRA_HOST_FILE` (Intel) or `HYDRA_HOST_FILE` (MPICH), the
  variables Hydra reads the hostfile from (OMPI_* names mean nothing to it), the ssh
  retry argument in the variable each passes to ssh, and for Intel the slots as
  `I_MPI_PERHOST`.

From Trainer v2.4 (`releases.Release.prte_env`, #4029) the OpenMPI launcher also gets Open MPI 5's
PRTE_MCA_* variables beside the ORTE ones, which Open MPI 5 ignores (a job would run every rank on the
launcher); Open MPI 4 ignores the PRTE ones.

Its webhook rules (upstream Validate, spec §10): with runLauncherAsNode, a
TrainJob asking for two or more nodes needs the runtime to have both a
`launcher` and a `node` job; and the trainer must not set the OpenMPI env the
plugin owns (from v2.4 the PRTE names too).
"""

from __future__ import annotations


from ...errors import InputError
from ...k8s import podspec
from .. import emit, ir, mpikeys, provenance, templates
from ..admission import error, reserved_env
from ..ir import NODE, Unit

LAUNCHER = "launcher"
SSH_AUTH_VOLUME = "mpi-ssh-auth"
HOSTFILE_VOLUME = "mpi-hostfile"
HOSTFILE_DIR = "/etc/mpi"
HOSTFILE = "hostfile"
HOSTFILE_PATH = f"{HOSTFILE_DIR}/{HOSTFILE}"
SSH_RETRY_ARGS = "-o ConnectionAttempts=10"
RESERVED_ENV = (
    "OMPI_MCA_orte_default_hostfile",
    "OMPI_MCA_plm_rsh_args",
    "OMPI_MCA_orte_keep_fqdn_hostnames",
    "OMPI_MCA_orte_set_default_slots",
)
# Trainer v2.4 (#4029): Open MPI 5's names, in the order of the PR's table. That they follow the four ORTE
# variables on the launcher in this order is inferred from the PR text ("alongside the existing ORTE ones");
# v2.4's code is not among what trainc was read against.
PRTE_RESERVED_ENV = (
    "PRTE_MCA_prte_default_hostfile",
    "PRTE_MCA_prte_keep_fqdn_hostnames",
    "PRTE_MCA_prte_set_default_slots",
    "PRTE_MCA_plm_ssh_args",
)
SLOTS_ENV = ("OMPI_MCA_orte_set_default_slots", "PRTE_MCA_prte_set_default_slots", "I_MPI_PERHOST")  # carry the slots
HOSTFILE_TEMPLATES = {"OpenMPI": "hostfile-openmpi.j2", "Intel": "hostfile-hydra.j2", "MPICH": "hostfile-hydra.j2"}
HYDRA = ("Intel", "MPICH")  # the KEP's implementations whose mpirun is a Hydra process manager
CLUSTER_DOMAIN = "cluster.local"  # mpi-operator v2's default; the kubelet's --cluster-domain on most clusters


def ssh_secret_name(unit: Unit) -> str:
    return f"{unit.name}-mpi-ssh-auth"


def hostfile_name(unit: Unit) -> str:
    return f"{unit.name}-mpi-hostfile"


def validate(unit: Unit, change) -> list[InputError]:
    if unit.trainer is None:
        return []
    errors = []
    nodes = unit.trainer.num_nodes if unit.trainer.num_nodes is not None else 1
    if nodes >= 2 and unit.ml_policy.mpi.run_launcher_as_node:
        names = {rjob.get("name") for rjob in unit.replicated_jobs}
        if LAUNCHER not in names or NODE not in names:
            errors.append(
                error(
                    unit.trainjob.origin,
                    ("spec", "trainer", "numNodes"),
                    "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher "
                    "and node",
                )
            )
    reserved = RESERVED_ENV + (PRTE_RESERVED_ENV if unit.release.prte_env else ())
    return errors + reserved_env(unit, reserved)


def enforce(unit: Unit, ctx) -> Unit:
    mpi = unit.ml_policy.mpi
    trainer = unit.trainer
    if trainer is not None and trainer.num_nodes is not None and NODE in unit.counts:
        nodes = max(trainer.num_nodes - 1, 1) if mpi.run_launcher_as_node else trainer.num_nodes
        unit = unit.replace(counts={**unit.counts, NODE: nodes})
    unit = _with_slots(unit, _slots(unit))
    slots = unit.ml_policy.mpi.num_proc_per_node
    written = []
    for rjob in unit.replicated_jobs:
        name = rjob.get("name")
        if name not in (NODE, LAUNCHER):
            continue
        volumes = [_ssh_volume(unit)] + ([_hostfile_volume(unit)] if name == LAUNCHER else [])
        pod_spec = ir.ensure_pod_spec(rjob)
        podspec.add_volumes(pod_spec, *volumes)
        written += volumes
        if name == NODE and mpi.mpi_implementation in HYDRA:
            searches, index = _hydra_search(unit, pod_spec)
            if ctx.provenance is not None:
                ctx.provenance.record(
                    searches,
                    index,
                    provenance.runtime(
                        unit,
                        "mpi plugin (Hydra: node pods search their service)",
                        "spec",
                        "mlPolicy",
                        "mpi",
                        "mpiImplementation",
                    ),
                )
        container = ir.main_container(rjob, unit.kep)
        if container is None:
            continue
        mounts = [{"name": SSH_AUTH_VOLUME, "mountPath": mpi.ssh_auth_mount_path}]
        if name == LAUNCHER:
            mounts.append({"name": HOSTFILE_VOLUME, "mountPath": HOSTFILE_DIR})
        podspec.add_mounts(container, *mounts)
        written += mounts
        if name == LAUNCHER:
            env = _launcher_env(unit, slots)
            podspec.add_env(container, *env)
            written += env
    if ctx.provenance is not None:
        ctx.provenance.items(written, provenance.runtime(unit, "mpi plugin", "spec", "mlPolicy", "mpi"))
        ctx.provenance.items([item for item in written if item.get("name") in SLOTS_ENV], _slots_source(unit))
    return unit


def _slots_source(unit: Unit):
    """Where the slots per node come from, as `_slots` chooses them."""
    if unit.trainer is not None and unit.trainer.num_proc_per_node is not None:
        return provenance.trainjob(unit, "mpi plugin", "spec", "trainer", "numProcPerNode")
    return provenance.runtime(
        unit, "mpi plugin (slots: numProcPerNode, else GPUs per node)", "spec", "mlPolicy", "mpi", "numProcPerNode"
    )


def build(unit: Unit, ctx) -> Unit:
    keys, notices = mpikeys.objects(unit, ctx.ssh_key_seed, ssh_secret_name(unit))
    hostfile = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": emit.metadata(unit, hostfile_name(unit)),
        "data": {HOSTFILE: _hostfile(unit)},
    }
    if not emit.config_map_fits(hostfile["data"]):
        raise _too_many_hosts(unit)
    return unit.replace(
        objects=unit.objects + (*keys, hostfile), notices=unit.notices + notices + _launchers_notice(unit)
    )


def _launchers_notice(unit: Unit) -> tuple:
    """A launcher of more than one pod (the runtime's mlPolicy.numNodes sets the count of every job of the trainer
    step, the launcher's too): each pod runs mpirun, and with runLauncherAsNode each is a host of the hostfile.
    Upstream renders the same; almost never what the runtime's author meant."""
    launchers = unit.counts.get(LAUNCHER, 1)
    if launchers <= 1:
        return ()
    from ...errors import Notice

    hosts = " and in the hostfile" if unit.ml_policy.mpi.run_launcher_as_node else ""
    said = (
        f"{unit.trainjob.namespace}/{unit.name}: {launchers} launcher pods, each running mpirun{hosts} (upstream "
        "Trainer does the same)"
    )
    if unit.ml_policy.num_nodes == launchers:
        return (
            Notice(
                "warning",
                unit.runtime.origin,
                ("spec", "mlPolicy", "numNodes"),
                f"{said}: mlPolicy.numNodes sets the launcher's pod count too; set numNodes in the TrainJob's "
                "trainer instead, and 1 (or none) here",
            ),
        )
    return (
        Notice(
            "warning",
            unit.runtime.origin,
            ("spec", "template", "spec", "replicatedJobs"),
            f"{said}: an MPI job has one launcher",
        ),
    )


def _slots(unit: Unit) -> int:
    """Upstream: the TrainJob's numProcPerNode; else GPUs per node if the runtime says 1; else the runtime's."""
    runtime_slots = unit.ml_policy.mpi.num_proc_per_node
    if unit.trainer is not None and unit.trainer.num_proc_per_node is not None:
        return unit.trainer.num_proc_per_node
    if runtime_slots == 1:
        gpus = podspec.gpu_count(ir.node_resources(unit))
        if gpus > 1:
            return gpus
    return runtime_slots


def _with_slots(unit: Unit, slots: int) -> Unit:
    """The unit with `slots` as its effective mpi.numProcPerNode (the build reads it from there)."""
    runtime = unit.runtime
    policy = runtime.spec.ml_policy
    policy = policy.replace(mpi=policy.mpi.replace(num_proc_per_node=slots))
    return unit.replace(runtime=runtime.replace(spec=runtime.spec.replace(ml_policy=policy)))


def _ssh_volume(unit: Unit) -> dict:
    """Mode 0400 by default; id_rsa 0640, id_rsa.pub and authorized_keys 0644 (upstream's constants)."""
    return {
        "name": SSH_AUTH_VOLUME,
        "secret": {
            "secretName": ssh_secret_name(unit),
            "defaultMode": 0o400,
            "items": [
                {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
                {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
                {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
            ],
        },
    }


def _hostfile_volume(unit: Unit) -> dict:
    return {
        "name": HOSTFILE_VOLUME,
        "configMap": {"name": hostfile_name(unit), "items": [{"key": HOSTFILE, "path": HOSTFILE, "mode": 0o444}]},
    }


def _launcher_env(unit: Unit, slots: int) -> list:
    """The env telling the launcher's MPI where the hostfile is (upstream: OpenMPI; mpi-operator v2: the others)."""
    implementation = unit.ml_policy.mpi.mpi_implementation
    env = podspec.value_env
    if implementation == "OpenMPI":
        orte = [
            env("OMPI_MCA_orte_default_hostfile", HOSTFILE_PATH),
            env("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
            env("OMPI_MCA_orte_set_default_slots", str(slots)),
            env("OMPI_MCA_plm_rsh_args", SSH_RETRY_ARGS),
        ]
        if not unit.release.prte_env:
            return orte
        return orte + [
            env("PRTE_MCA_prte_default_hostfile", HOSTFILE_PATH),
            # deliberately not the ORTE value (#4029): the hostfile's short <pod>.<service> names never match
            # what PRTE resolves for itself, and with runLauncherAsNode it would ssh to its own entry
            env("PRTE_MCA_prte_keep_fqdn_hostnames", "false"),
            env("PRTE_MCA_prte_set_default_slots", str(slots)),
            env("PRTE_MCA_plm_ssh_args", SSH_RETRY_ARGS),
        ]
    if implementation == "Intel":
        return [
            env("I_MPI_HYDRA_HOST_FILE", HOSTFILE_PATH),
            env("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", SSH_RETRY_ARGS),
            env("I_MPI_PERHOST", str(slots)),
        ]
    if implementation == "MPICH":
        # HYDRA_LAUNCHER_EXTRA_ARGS is what Hydra (MPICH 3 to 5) passes on to ssh; mpi-operator v2's
        # HYDRA_LAUNCH_EXTRA_ARGS is read by none of them.
        return [env("HYDRA_HOST_FILE", HOSTFILE_PATH), env("HYDRA_LAUNCHER_EXTRA_ARGS", SSH_RETRY_ARGS)]
    raise InputError(
        unit.runtime.origin,
        ("spec", "mlPolicy", "mpi", "mpiImplementation"),
        f"MPI implementation {implementation!r} is not supported: use OpenMPI (v2alpha1 runtimes: also Intel or MPICH)",
    )


def _hostfile(unit: Unit) -> str:
    """One line per endpoint of `node` (and of `launcher` when it runs as a node), in template order.

    An implementation without a hostfile format yields an empty file, as upstream's
    (it is only reachable when the launcher has no container to fail on).
    """
    mpi = unit.ml_policy.mpi
    hosts, size = [], 0
    for rjob in unit.replicated_jobs:
        if rjob.get("name") == NODE or (mpi.run_launcher_as_node and rjob.get("name") == LAUNCHER):
            for host in unit.endpoints.get(rjob.get("name"), ()):
                size += len(host) + 1
                if size > emit.CONFIG_MAP_BYTES:  # stop early: the names alone overflow the ConfigMap
                    raise _too_many_hosts(unit)
                hosts.append(_hydra_host(unit, rjob.get("name"), host) if mpi.mpi_implementation in HYDRA else host)
    template = HOSTFILE_TEMPLATES.get(mpi.mpi_implementation)
    return templates.render(template, hosts=hosts, slots=mpi.num_proc_per_node) if template else ""


def _hydra_host(unit: Unit, job: str, endpoint: str) -> str:
    """A Hydra hostfile's name for a pod: a node's full service name, the launcher's own host name.

    Nodes as mpi-operator v2 names them, `<pod>.<subdomain>.<namespace>.svc`, which the
    launcher resolves whatever its namespace. The launcher (with runLauncherAsNode) by
    its bare host name `<pod>`, unlike mpi-operator: Intel MPI's Hydra runs a line's
    ranks in place only when the name is the machine's own host name, and ssh-es to
    any other, itself included (where no sshd listens); MPICH accepts either.
    """
    if job == LAUNCHER:
        return endpoint.partition(".")[0]
    return f"{endpoint}.{unit.trainjob.namespace}.svc"


def _hydra_search(unit: Unit, pod_spec: dict) -> tuple[list, int]:
    """The node pods' DNS search for their headless service (mpi-operator v2's workers have it); the
    search list and the search's place in it.

    Hydra's proxies on the nodes connect back to the launcher by the name the launcher
    gives itself: its bare host name, which the cluster's own search list does not reach.
    A dnsConfig of the runtime's is kept, the search appended unless it is there.
    """
    subdomain = (unit.jobset.get("network") or {}).get("subdomain") or unit.name
    search = f"{subdomain}.{unit.trainjob.namespace}.svc.{CLUSTER_DOMAIN}"
    searches = pod_spec.setdefault("dnsConfig", {}).setdefault("searches", [])
    if search not in searches:
        searches.append(search)
    return searches, searches.index(search)


def _too_many_hosts(unit: Unit) -> InputError:
    """Upstream's controller fails to create a hostfile ConfigMap past the API server's size limit."""
    trainer = unit.trainer
    path = (
        ("spec", "trainer", "numNodes")
        if trainer is not None and trainer.num_nodes is not None
        else ("spec", "runtimeRef")
    )
    message = f"too many MPI hosts: the hostfile would not fit in a ConfigMap ({emit.CONFIG_MAP_BYTES} bytes at most)"
    return InputError(unit.trainjob.origin, path, message)

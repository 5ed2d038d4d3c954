"""The MPI plugin beyond what the golden cases pin: SSH keys and their notice, errors, templates."""

from __future__ import annotations

import base64

import pytest
from conftest import GOLDEN_SEED

from helpers import build
from trainc.compiler import sshkeys, templates
from trainc.compiler.plugins import registry
from trainc.errors import InputErrors

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
spec:
  runtimeRef:
    name: {runtime}
{kind}"""

RUNTIME = """\
apiVersion: trainer.kubeflow.org/{version}
kind: TrainingRuntime
metadata:
  name: custom
  namespace: team-a
  labels:
    # Some cases name the launcher container unlike upstream's webhook requires.
    trainer.kubeflow.org/webhook-validation: disabled
spec:
  mlPolicy:
    mpi:
      mpiImplementation: "{implementation}"
      runLauncherAsNode: true
  template:
    spec:
      network:
        subdomain: "{subdomain}"
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:runtime
        - name: launcher
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: {launcher_container}
                      image: test:runtime
"""


def render(tmp_path, name="ds", runtime="deepspeed-distributed", seed=GOLDEN_SEED, **custom):
    """Build one TrainJob; with `custom` fields, on a TrainingRuntime made from RUNTIME."""
    paths = []
    kind = ""
    if custom:
        values = {"version": "v1alpha1", "implementation": "OpenMPI", "subdomain": name, "launcher_container": "node"}
        (tmp_path / "runtime.yaml").write_text(RUNTIME.format(**{**values, **custom}))
        paths.append(str(tmp_path / "runtime.yaml"))
        runtime, kind = "custom", "    kind: TrainingRuntime\n"
    (tmp_path / f"{name}.yaml").write_text(TRAINJOB.format(name=name, runtime=runtime, kind=kind))
    paths.append(str(tmp_path / f"{name}.yaml"))
    return build(paths, ssh_key_seed=seed)


def secret_of(output) -> dict:
    return next(o for o in output.documents() if o["kind"] == "Secret")


def hostfile_of(output) -> str:
    return next(o for o in output.documents() if o["kind"] == "ConfigMap")["data"]["hostfile"]


def test_mpi_runs_after_plainml_and_torch():
    assert [p.name for p in registry.ML_POLICIES[:3]] == ["plainml", "torch", "mpi"]


def test_seeded_key_is_the_derived_one_and_stable(tmp_path):
    expected = sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds")
    first, second = render(tmp_path), render(tmp_path)
    data = secret_of(first)["data"]
    assert base64.b64decode(data["ssh-privatekey"]) == expected.private_pem
    assert base64.b64decode(data["ssh-publickey"]) == expected.public_line
    assert first.documents() == second.documents()
    assert first.notices == []


def test_seeded_keys_differ_per_job(tmp_path):
    assert secret_of(render(tmp_path, name="a"))["data"] != secret_of(render(tmp_path, name="b"))["data"]


def test_random_key_is_announced_without_key_material(tmp_path):
    first, second = render(tmp_path, seed=None), render(tmp_path, seed=None)
    assert secret_of(first)["data"] != secret_of(second)["data"]
    assert len(first.notices) == 1
    notice = first.notices[0].render()
    assert notice.startswith("notice: team-a/ds: ") and "random" in notice
    assert "--ssh-key-seed FILE" in notice and "TRAINC_SSH_KEY_SEED_FILE" in notice
    data = secret_of(first)["data"]
    private = base64.b64decode(data["ssh-privatekey"]).decode()
    public = base64.b64decode(data["ssh-publickey"]).decode()
    for secret_text in (data["ssh-privatekey"], data["ssh-publickey"], private.splitlines()[1], public.split()[1]):
        assert secret_text[:16] not in notice


def test_secret_shape(tmp_path):
    secret = secret_of(render(tmp_path))
    assert secret["type"] == "kubernetes.io/ssh-auth" and secret["immutable"] is True
    assert secret["metadata"]["name"] == "ds-mpi-ssh-auth"
    assert list(secret["data"]) == ["ssh-privatekey", "ssh-publickey"]


def test_empty_implementation_fails_like_upstream(tmp_path):
    with pytest.raises(InputErrors) as errors:
        render(tmp_path, implementation="")
    [error] = errors.value.errors
    assert error.path == ("spec", "mlPolicy", "mpi", "mpiImplementation")
    assert error.origin.file.endswith("runtime.yaml")
    assert "'' is not supported" in error.message


def test_empty_implementation_without_launcher_container_gives_empty_hostfile(tmp_path):
    """Upstream fails only on the launcher's container; otherwise its hostfile is empty."""
    assert hostfile_of(render(tmp_path, implementation="", launcher_container="sidecar")) == ""


def test_launcher_without_mpi_container_gets_only_volumes(tmp_path):
    output = render(tmp_path, launcher_container="sidecar")
    jobset = next(o for o in output.documents() if o["kind"] == "JobSet")
    launcher = jobset["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]
    assert [v["name"] for v in launcher["volumes"]] == ["mpi-ssh-auth", "mpi-hostfile"]
    assert "env" not in launcher["containers"][0] and "volumeMounts" not in launcher["containers"][0]


@pytest.mark.parametrize("implementation", ["Intel", "MPICH"])
def test_v1alpha1_rejects_kep_implementations(tmp_path, implementation):
    with pytest.raises(InputErrors) as errors:
        render(tmp_path, implementation=implementation)
    assert [e.path for e in errors.value.errors] == [("spec", "mlPolicy", "mpi", "mpiImplementation")]


def test_template_syntax_in_values_is_not_evaluated():
    # Inputs cannot carry it into a hostfile (the JobSet webhook rules refuse such a subdomain), but the
    # sandboxed templates must not evaluate values anyway.
    assert templates.render("hostfile-openmpi.j2", hosts=["ds-node-0-0.{{ 7 * 7 }}"], slots=1) == (
        "ds-node-0-0.{{ 7 * 7 }} slots=1\n"
    )


def test_templates_fail_on_missing_values():
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        templates.render("hostfile-openmpi.j2", hosts=["a"])


def test_hostfile_formats():
    assert templates.render("hostfile-openmpi.j2", hosts=["a", "b"], slots=2) == "a slots=2\nb slots=2\n"
    assert templates.render("hostfile-hydra.j2", hosts=["a", "b"], slots=2) == "a:2\nb:2\n"
    assert templates.render("hostfile-hydra.j2", hosts=[], slots=2) == ""


def _node_pod(output) -> dict:
    jobset = next(o for o in output.documents() if o["kind"] == "JobSet")
    return jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


@pytest.mark.parametrize("implementation", ["Intel", "MPICH"])
def test_hydra_hosts_and_the_node_pods_search(tmp_path, implementation):
    """Nodes by full service name, the launcher by its bare host name; node pods search their service."""
    output = render(tmp_path, version="v2alpha1", implementation=implementation, subdomain="hosts")
    assert hostfile_of(output) == "ds-node-0-0.hosts.team-a.svc:1\nds-launcher-0-0:1\n"
    assert _node_pod(output)["dnsConfig"] == {"searches": ["hosts.team-a.svc.cluster.local"]}


def test_hydra_search_already_in_the_runtime_is_not_repeated(tmp_path):
    (tmp_path / "runtime.yaml").write_text(
        RUNTIME.format(
            version="v2alpha1",
            implementation="MPICH",
            subdomain="ds",
            launcher_container="node",
        ).replace(
            """                spec:
                  containers:
                    - name: node
                      image: test:runtime
        - name: launcher""",
            """                spec:
                  dnsConfig:
                    searches: [example.internal, ds.team-a.svc.cluster.local]
                  containers:
                    - name: node
                      image: test:runtime
        - name: launcher""",
        )
    )
    (tmp_path / "ds.yaml").write_text(TRAINJOB.format(name="ds", runtime="custom", kind="    kind: TrainingRuntime\n"))
    output = build([str(tmp_path / "runtime.yaml"), str(tmp_path / "ds.yaml")], ssh_key_seed=GOLDEN_SEED)
    assert _node_pod(output)["dnsConfig"] == {"searches": ["example.internal", "ds.team-a.svc.cluster.local"]}


def test_open_mpi_node_pods_keep_upstream_dns(tmp_path):
    output = render(tmp_path, subdomain="hosts")
    assert hostfile_of(output) == "ds-node-0-0.hosts slots=1\nds-launcher-0-0.hosts slots=1\n"
    assert "dnsConfig" not in _node_pod(output)


def test_a_runtime_numnodes_above_one_warns_of_the_launchers_it_multiplies(tmp_path):
    """mlPolicy.numNodes 2 gives the launcher two pods, both in the hostfile, as upstream does: a warning at the
    runtime's numNodes (issue 20); numNodes 1 none."""
    from conftest import ROOT
    from helpers import run

    runtime = (
        (ROOT / "runtimes" / "deepspeed-distributed.yaml")
        .read_text()
        .replace("name: deepspeed-distributed", "name: ds2", 1)
    )
    (tmp_path / "job.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata: {name: j, namespace: team-a}\nspec:\n  runtimeRef: {name: ds2}\n"
    )
    (tmp_path / "runtime.yaml").write_text(runtime)
    quiet = run("validate", ".", cwd=tmp_path)
    assert quiet.returncode == 0 and "launcher" not in quiet.stderr, quiet.stderr
    (tmp_path / "runtime.yaml").write_text(runtime.replace("    numNodes: 1", "    numNodes: 2"))
    line = next(n for n, text in enumerate(runtime.splitlines(), 1) if "numNodes" in text)
    warned = run("validate", ".", cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr
    assert (
        f"warning: runtime.yaml:{line}:15: spec.mlPolicy.numNodes: team-a/j: 2 launcher pods, each running mpirun "
        "and in the hostfile (upstream Trainer does the same)"
    ) in warned.stderr

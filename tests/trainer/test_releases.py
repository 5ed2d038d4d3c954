"""The Trainer release switch (trainc/trainer/releases.py): what v2.4 renders and refuses that v2.3 does not.

The golden cases pin the byte-exact output of both (golden/<case>-v2.3/ beside golden/<case>/); these are the
rules a case does not show: the reserved names, where the image lands and where it does not, the 20-character
runtime rule and its ratcheting, the bundled runtimes under that rule.
"""

from __future__ import annotations


import pytest
from conftest import GOLDEN_SEED
from helpers import build, HEAD, errors, job_template, runtime

from trainc.inputs import read_previous
from trainc.trainer import catalog, releases
from trainc.validation import runtime as runtime_rules

V23, V24 = releases.named("v2.3"), releases.named("v2.4")
PRTE = (
    "PRTE_MCA_prte_default_hostfile",
    "PRTE_MCA_prte_keep_fqdn_hostnames",
    "PRTE_MCA_prte_set_default_slots",
    "PRTE_MCA_plm_ssh_args",
)


def test_the_releases_are_ordered_the_newest_the_default_and_every_switch_differs():
    assert releases.NAMES == ("v2.3", "v2.4") and releases.DEFAULT is V24
    switches = [name for name in releases.Release._fields if name not in ("name", "note")]
    assert all(getattr(V23, name) != getattr(V24, name) for name in switches)
    with pytest.raises(ValueError, match=r"'v2.5' is not a Kubeflow Trainer release .*\(supported: v2.3, v2.4\)"):
        releases.named("v2.5")


def mpi_runtime(launcher_as_node: bool) -> str:
    launcher, node = job_template("launcher", "trainer"), job_template("node")
    node["template"]["spec"]["template"]["spec"]["containers"][0].update(
        image="sshd-img", command=["/usr/sbin/sshd"], args=["-De"]
    )
    return runtime(launcher, node, ml_policy={"mpi": {"runLauncherAsNode": launcher_as_node, "numProcPerNode": 2}})


def containers(tmp_path, job: str, runtime_text: str, release) -> dict:
    (tmp_path / "runtime.yaml").write_text(runtime_text)
    (tmp_path / "job.yaml").write_text(job)
    objects = build(
        [str(tmp_path / "runtime.yaml"), str(tmp_path / "job.yaml")],
        ssh_key_seed=GOLDEN_SEED,
        trainer_version=release.name,
    )
    jobset = next(obj for obj in objects.documents() if obj["kind"] == "JobSet")
    return {
        rjob["name"]: rjob["template"]["spec"]["template"]["spec"]["containers"][0]
        for rjob in jobset["spec"]["replicatedJobs"]
    }


@pytest.mark.parametrize("launcher_as_node", [True, False])
def test_v24_puts_the_trainjobs_image_on_the_mpi_nodes_but_never_its_command_or_args(tmp_path, launcher_as_node):
    job = HEAD + "  trainer:\n    image: mine:1\n    command: [mpirun]\n    args: [python, train.py]\n    numNodes: 3\n"
    old = containers(tmp_path, job, mpi_runtime(launcher_as_node), V23)
    new = containers(tmp_path, job, mpi_runtime(launcher_as_node), V24)
    assert old["launcher"]["image"] == new["launcher"]["image"] == "mine:1"
    assert new["launcher"]["command"] == ["mpirun"] and new["launcher"]["args"] == ["python", "train.py"]
    assert old["node"]["image"] == "sshd-img" and new["node"]["image"] == "mine:1"
    assert old["node"]["command"] == new["node"]["command"] == ["/usr/sbin/sshd"]
    assert old["node"]["args"] == new["node"]["args"] == ["-De"]
    names = [entry["name"] for entry in new["launcher"]["env"]]
    assert names[names.index("OMPI_MCA_plm_rsh_args") + 1 :] == list(PRTE)
    values = {entry["name"]: entry["value"] for entry in new["launcher"]["env"]}
    assert values["PRTE_MCA_prte_keep_fqdn_hostnames"] == "false"
    assert values["OMPI_MCA_orte_keep_fqdn_hostnames"] == "true"
    assert values["PRTE_MCA_prte_set_default_slots"] == values["OMPI_MCA_orte_set_default_slots"] == "2"
    assert values["PRTE_MCA_plm_ssh_args"] == values["OMPI_MCA_plm_rsh_args"]
    assert values["PRTE_MCA_prte_default_hostfile"] == values["OMPI_MCA_orte_default_hostfile"]
    assert not any(entry["name"].startswith("PRTE_") for entry in old["launcher"]["env"])
    assert "env" not in new["node"] or not any(e["name"].startswith("PRTE_") for e in new["node"]["env"])


def test_a_node_job_of_another_step_keeps_its_image(tmp_path):
    """Only a node job without an ancestor (or the trainer's) is an MPI node to #4301."""
    launcher, node = job_template("launcher", "trainer"), job_template("node", "model-initializer")
    node["template"]["spec"]["template"]["spec"]["containers"][0]["name"] = "model-initializer"
    text = runtime(launcher, node, ml_policy={"mpi": {"runLauncherAsNode": False}})
    job = HEAD + "  trainer:\n    image: mine:1\n"
    found = containers(tmp_path, job, text, V24)
    assert found["node"]["image"] == "img"


@pytest.mark.parametrize("name", PRTE)
def test_v24_reserves_the_prte_names_as_the_orte_ones(tmp_path, name):
    rt = runtime(job_template("launcher", "trainer"), job_template("node"), ml_policy={"mpi": {}})
    job = HEAD + f"  trainer:\n    env:\n      - name: {name}\n        value: x\n"
    assert errors(tmp_path, job, rt) == [
        f"job.yaml:11:15: spec.trainer.env: must not have reserved envs, invalid envs configured: [{name}]"
    ]
    assert errors(tmp_path, job, rt, trainer_version="v2.3") == []


LONG = "a-twenty-one-letters-"  # 21 characters


def test_v24_refuses_a_runtime_replicated_job_name_longer_than_20_at_the_name(tmp_path):
    assert len(LONG) == 21
    rt = runtime(job_template("node", "trainer"), job_template(LONG), job_template(LONG[:20]))
    assert errors(tmp_path, HEAD, rt) == [
        f'runtime.yaml:20:15: spec.template.spec.replicatedJobs[1].name: Invalid value: "{LONG}": must be no more '
        "than 20 characters (from Kubeflow Trainer v2.4)"
    ]
    assert errors(tmp_path, HEAD, rt, trainer_version="v2.3") == []
    skipped = rt.replace(
        "metadata:\n  name: rt\n",
        "metadata:\n  name: rt\n  labels: {trainer.kubeflow.org/webhook-validation: disabled}\n",
    )
    assert len(errors(tmp_path, HEAD, skipped)) == 1  # API validation: the webhook's label does not skip it


def test_a_long_name_the_previous_version_had_is_still_accepted(tmp_path):
    """The API server ratchets: an update that keeps a name stored before v2.4 passes; a new long one does not."""
    before = tmp_path / "before"
    before.mkdir()
    (before / "runtime.yaml").write_text(runtime(job_template("node", "trainer"), job_template(LONG)))
    stored = read_previous(str(before), [])
    kept = runtime(job_template("node", "trainer"), job_template(LONG))
    assert errors(tmp_path, HEAD, kept, previous=stored) == []
    added = runtime(job_template("node", "trainer"), job_template(LONG), job_template(LONG + "x"))
    assert [line.split(": ")[1] for line in errors(tmp_path, HEAD, added, previous=stored)] == [
        "spec.template.spec.replicatedJobs[2].name"
    ]


def test_every_bundled_runtime_passes_the_v24_rule():
    loaders = catalog.bundled()
    assert loaders
    for load in loaders.values():
        bundled = load()
        assert runtime_rules.name_lengths(bundled, release=V24) == [], bundled.name


def test_the_python_api_takes_the_release(tmp_path):
    import trainc

    (tmp_path / "job.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  name: ds\nspec:\n  runtimeRef:\n    name: deepspeed-distributed\n"
    )

    def launcher_env(**options) -> list[str]:
        jobset = next(
            obj
            for obj in trainc.objects([str(tmp_path / "job.yaml")], ssh_key_seed=GOLDEN_SEED, **options)
            if obj["kind"] == "JobSet"
        )
        launcher = next(rjob for rjob in jobset["spec"]["replicatedJobs"] if rjob["name"] == "launcher")
        return [entry["name"] for entry in launcher["template"]["spec"]["template"]["spec"]["containers"][0]["env"]]

    assert "PRTE_MCA_prte_default_hostfile" in launcher_env()
    assert not any(name.startswith("PRTE_") for name in launcher_env(trainer_version="v2.3"))
    assert "PRTE_MCA_prte_default_hostfile" in launcher_env()  # the release is the call's, nothing left set


def test_forked_build_workers_render_for_the_selected_release(tmp_path, monkeypatch):
    from trainc import parallel

    for index in range(4):
        (tmp_path / f"job{index}.yaml").write_text(
            f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: ds{index}\nspec:\n"
            "  runtimeRef:\n    name: deepspeed-distributed\n"
        )
    monkeypatch.setenv("TRAINC_PARALLEL_MIN_FILES", "2")
    forked = []
    real = parallel._build
    monkeypatch.setattr(parallel, "_build", lambda *args, **kwargs: forked.append(True) or real(*args, **kwargs))
    for release, present in ((V23, False), (V24, True)):
        output = build([str(tmp_path)], workers=2, ssh_key_seed=GOLDEN_SEED, trainer_version=release.name)
        text = str(output.documents())
        assert ("PRTE_MCA_prte_default_hostfile" in text) is present
        assert text.count("OMPI_MCA_orte_default_hostfile") == 4
    assert forked

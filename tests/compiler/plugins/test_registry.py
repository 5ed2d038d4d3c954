"""The plugin registry: one record per plugin, and `active` alone decides where a plugin's hooks run."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from trainc.compiler.plugins import registry
from trainc.trainer import api


def _runtime(ml=None, gang=None):
    return SimpleNamespace(spec=SimpleNamespace(ml_policy=ml, pod_group_policy=gang))


def _running(runtime) -> list[str]:
    return [plugin.name for plugin in registry.PLUGINS if plugin.runs(SimpleNamespace(runtime=runtime))]


def test_every_policy_of_the_api_has_one_record():
    """A policy field added to the Trainer API without a plugin record (or the reverse) fails here."""
    ml_fields = [name for name, _ in api.MLPolicy._fields if name != "num_nodes"]
    gang_fields = [name for name, _ in api.PodGroupPolicy._fields]
    assert [plugin.name for plugin in registry.FRAMEWORKS] == ml_fields
    assert [plugin.name for plugin in registry.GANG_SCHEDULERS] == gang_fields
    assert len({plugin.name for plugin in registry.PLUGINS}) == len(registry.PLUGINS)


@pytest.mark.parametrize(
    ("ml", "running"),
    [
        (None, ["plainml"]),
        (api.MLPolicy(num_nodes=2), ["plainml"]),
        (api.MLPolicy(torch=api.TorchPolicy()), ["torch"]),
        (api.MLPolicy(mpi=api.MPIPolicy()), ["mpi"]),
        (api.MLPolicy(jax={}), ["jax"]),  # an empty policy is set: {} is not None
        (api.MLPolicy(xgboost={}), ["plainml", "xgboost"]),
        (api.MLPolicy(flux=api.FluxPolicy()), ["plainml", "flux"]),
    ],
)
def test_plainml_runs_unless_a_framework_counts_its_own_pods(ml, running):
    assert _running(_runtime(ml)) == running


def test_gang_schedulers_run_by_their_own_config_beside_any_ml_policy():
    gang = api.PodGroupPolicy(volcano=api.Volcano())
    assert _running(_runtime(api.MLPolicy(torch=api.TorchPolicy()), gang)) == ["torch", "volcano"]
    assert _running(_runtime(None, api.PodGroupPolicy())) == ["plainml"]


def test_an_installed_plugin_record_without_active_runs_wherever_it_is_asked_for():
    assert registry.Plugin("acme", enforce=lambda unit, ctx: unit).runs(SimpleNamespace(runtime=_runtime()))


def test_runtimes_names_a_policy_from_its_record():
    mpi = _runtime(api.MLPolicy(mpi=api.MPIPolicy(mpi_implementation="Intel")))
    assert registry.FRAMEWORKS[1].label(mpi) == "MPI (Intel)"
    assert (
        registry.GANG_SCHEDULERS[0].label(_runtime(gang=api.PodGroupPolicy(coscheduling=api.Coscheduling())))
        == "coscheduling"
    )


@pytest.mark.parametrize(
    ("runtime", "imported", "not_imported"),
    [
        ("torch-distributed", {"torch"}, {"mpi", "flux", "jax", "xgboost", "volcano", "coscheduling"}),
        ("deepspeed-distributed", {"mpi"}, {"torch", "flux", "jax", "xgboost", "volcano", "coscheduling"}),
    ],
)
def test_a_build_imports_only_the_plugins_its_runtimes_ask_for(tmp_path, runtime, imported, not_imported):
    """A plugin's module is imported on its hooks' first call, so a run pays only for the plugins it uses."""
    import subprocess
    import sys

    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j, namespace: ns}\n"
        f"spec:\n  runtimeRef: {{name: {runtime}}}\n"
    )
    program = (
        "import sys, trainc\n"
        f"trainc.render([{str(job)!r}], ssh_key_seed=bytes(64))\n"
        "print(' '.join(sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('trainc.compiler.plugins.'))))"
    )
    found = set(
        subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    )
    assert imported <= found and not found & not_imported, found

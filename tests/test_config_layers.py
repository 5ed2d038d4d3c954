"""Which project config governs a file depends on where the file is, not on where a tool runs (issue 20,
finding 4): a team's `.trainc.yaml` in its app folder layers over the root's, key by key, and cannot drop the
platform's runtimes, house rules or policy paths. The Argo CD plugin script (run in the app's folder, as
cmp-server runs it) and `trainc build` from the root must agree, error for error and byte for byte."""

from __future__ import annotations

import subprocess

import yaml
from conftest import GOLDEN, GOLDEN_SEED, ROOT
from helpers import checkout, cmp_env, generate
from helpers import run

RUNTIME = (
    (ROOT / "runtimes" / "torch-distributed.yaml")
    .read_text()
    .replace("name: torch-distributed", "name: platform-torch", 1)
)
ROOT_CONFIG = """\
runtimes: [platform/runtimes]
ssh-keys: sealed-secrets
sealed-secrets-cert: platform/cert.pem
policies:
  - name: no-huge-jobs
    match: {kinds: [JobSet]}
    rule: "object.spec.replicatedJobs.all(j, j.replicas * j.template.spec.parallelism <= 4)"
    message: at most 4 pods per job
"""
TEAM_CONFIG = "namespace: team-a\nplugins: []\n"
JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: {runtime}
  trainer:
    numNodes: {nodes}
"""


def repository(tmp_path, jobs: dict[str, str]):
    """A checkout (a git repository, as cmp-server's) with the platform's root config and the team's own."""
    files = {
        ".trainc.yaml": ROOT_CONFIG,
        "platform/runtimes/torch.yaml": RUNTIME,
        "platform/cert.pem": (GOLDEN / "mpi-sealed-secrets" / "sealed-secrets-cert.pem").read_text(),
        "apps/training/.trainc.yaml": TEAM_CONFIG,
        **{f"apps/training/{name}.yaml": text for name, text in jobs.items()},
    }
    app = checkout(tmp_path, files)
    subprocess.run(["git", "init", "-q", str(app.parent.parent)], check=True, timeout=60)
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o600)
    return app, seed


def both(tmp_path, app, seed):
    """(the plugin's result, `trainc build apps/training -o yaml` from the root's)."""
    plugin = generate(app, cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed)}))
    root = app.parent.parent
    ci = run("build", "apps/training", "-o", "yaml", "--ssh-key-seed", str(seed), cwd=root)
    return plugin, ci


def test_the_plugin_and_a_build_from_the_root_render_the_same_under_both_configs(tmp_path):
    app, seed = repository(
        tmp_path,
        {
            "ds": JOB.format(name="ds", runtime="deepspeed-distributed", nodes=2),
            "t": JOB.format(name="t", runtime="platform-torch", nodes=2),
        },
    )
    plugin, ci = both(tmp_path, app, seed)
    assert plugin.returncode == 0, plugin.stderr
    assert ci.returncode == 0, ci.stderr
    assert plugin.stdout == ci.stdout
    documents = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(ci.stdout)}
    # the root's ssh-keys and runtimes, the team's namespace
    assert ("SealedSecret", "ds-mpi-ssh-auth") in documents and ("Secret", "ds-mpi-ssh-auth") not in documents
    assert documents["JobSet", "t"]["metadata"]["namespace"] == "team-a"


def test_a_teams_config_cannot_drop_the_platforms_house_rules(tmp_path):
    app, seed = repository(tmp_path, {"big": JOB.format(name="big", runtime="platform-torch", nodes=8)})
    plugin, ci = both(tmp_path, app, seed)
    message = "JobSet team-a/big: house rule 'no-huge-jobs' denied: at most 4 pods per job"
    assert ci.returncode == 1 and message in ci.stderr, ci.stderr
    assert plugin.returncode == 1 and message in plugin.stderr, plugin.stderr


def test_config_shows_every_layer(tmp_path):
    app, _ = repository(tmp_path, {})
    shown = run("config", cwd=app).stdout + run("config", "--", "apps/training", cwd=app.parent.parent).stdout
    assert "config=../../.trainc.yaml" in shown and "config=.trainc.yaml" in shown


def test_inputs_under_different_configs_in_one_run_are_refused(tmp_path):
    app, seed = repository(tmp_path, {"t": JOB.format(name="t", runtime="platform-torch", nodes=2)})
    (app.parent / "other").mkdir()
    (app.parent / "other" / "u.yaml").write_text(JOB.format(name="u", runtime="platform-torch", nodes=2))
    result = run("build", "apps", "--ssh-key-seed", str(seed), cwd=app.parent.parent)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("apps/training/.trainc.yaml governs some of the inputs and not the others")

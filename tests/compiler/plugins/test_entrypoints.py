"""Plugins without forking: a real distribution, installed with pip, adds an ML-policy plugin and a house-rule
check through the `trainc.plugins` entry-point group (and the former `trainc.compiler.plugins`); they load only
when a runtime or the config asks. The recipe of docs/guides/plugins.md is built and installed as written."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, need

MODULE = '''\
"""An ML-policy plugin and a house rule, as a platform team would ship them."""
from trainc.compiler import ir
from trainc.compiler.plugins.registry import Plugin
from trainc.k8s import podspec


def _enforce(unit, ctx):
    container = ir.trainer_container(unit)
    if container is not None:
        podspec.add_env(container, {"name": "ACME_POLICY", "value": "on"})
    return unit


def _cap(unit, objects):
    for rjob in objects[-1]["spec"]["replicatedJobs"]:
        for container in rjob["template"]["spec"]["template"]["spec"].get("containers", []):
            gpus = int(((container.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu", 0))
            if gpus > 4:
                yield f"{rjob['name']} pods ask for {gpus} GPUs each; the cap is 4"


def _crash(unit, objects):
    return objects[0]["replicas"]


policy = Plugin("acme-policy", enforce=_enforce)
gpu_cap = Plugin("gpu-cap", check=_cap)
crash = Plugin("crash", check=_crash)
not_a_plugin = 42
'''
ENTRY_POINTS = """\
[trainc.plugins]
acme-policy = acme_trainc:policy
gpu-cap = acme_trainc:gpu_cap
broken = acme_trainc:not_a_plugin

[trainc.compiler.plugins]
crash = acme_trainc:crash
gpu-cap = acme_trainc:crash
"""
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: {runtime}
  trainer:
    resourcesPerNode:
      limits: {{nvidia.com/gpu: {gpus}}}
"""


def _wheel(folder: Path) -> Path:
    """acme-trainc 0.1 as a wheel: a module and its dist-info (entry points included), hashed in RECORD."""
    info = "acme_trainc-0.1.dist-info"
    files = {
        "acme_trainc.py": MODULE,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: acme-trainc\nVersion: 0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": ENTRY_POINTS,
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    path = folder / "acme_trainc-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A directory the distribution is pip-installed into (not the test environment itself)."""
    need(
        subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0,
        "pip is not installed",
    )
    folder = tmp_path_factory.mktemp("plugin")
    target = folder / "site"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(_wheel(folder)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    assert (target / "acme_trainc-0.1.dist-info" / "entry_points.txt").is_file()
    return target


def trainc(site: Path, cwd: Path, *args, probe: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    env.pop("TRAINC_PLUGINS", None)
    if probe:  # run the CLI, then list the modules it imported on stderr
        code = (
            "import sys\nfrom trainc.cli import cli\ntry:\n    cli.main(sys.argv[1:], prog_name='trainc')\n"
            "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
        )
        command = [sys.executable, "-c", code, *args]
    else:
        command = [sys.executable, "-m", "trainc", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture
def inputs(tmp_path) -> Path:
    """A runtime that asks for acme-policy (a copy of the bundled torch-distributed), and TrainJobs."""
    runtime = yaml.safe_load((ROOT / "runtimes" / "torch-distributed.yaml").read_text())
    runtime["metadata"] = {"name": "acme-torch", "annotations": {"trainc.io/plugins": "acme-policy"}}
    (tmp_path / "runtime.yaml").write_text(yaml.safe_dump(runtime))
    (tmp_path / "acme.yaml").write_text(TRAINJOB.format(name="acme", runtime="acme-torch", gpus=2))
    (tmp_path / "plain.yaml").write_text(TRAINJOB.format(name="plain", runtime="torch-distributed", gpus=8))
    return tmp_path


def test_a_runtime_asks_for_an_ml_policy_plugin(site, inputs):
    result = trainc(site, inputs, "build", "acme.yaml", "runtime.yaml")
    assert result.returncode == 0, result.stderr
    assert "name: ACME_POLICY\n" in result.stdout
    listing = trainc(site, inputs, "runtimes", "list", "runtime.yaml")
    assert "acme-torch" in listing.stdout and "Torch, plugin acme-policy" in listing.stdout


def test_a_house_rule_from_the_config_or_flag_refuses_a_job(site, inputs):
    flagged = trainc(site, inputs, "build", "plain.yaml", "--plugin", "gpu-cap")
    expected = "plain.yaml:1:1: gpu-cap: node pods ask for 8 GPUs each; the cap is 4\n"
    assert (flagged.returncode, flagged.stdout, flagged.stderr) == (1, "", expected)
    (inputs / ".trainc.yaml").write_text("plugins: [gpu-cap]\n")
    configured = trainc(site, inputs, "validate", "plain.yaml", "acme.yaml", "runtime.yaml")
    assert configured.returncode == 1 and expected in configured.stderr and "acme.yaml" not in configured.stderr
    listing = trainc(site, inputs, "runtimes", "list")
    assert listing.stdout.endswith("plugins for every TrainJob: gpu-cap\n")


def test_plugins_load_only_when_asked(site, inputs):
    result = trainc(site, inputs, "build", "plain.yaml", probe=True)
    loaded = set(result.stderr.split())
    assert "kind: JobSet" in result.stdout and "trainc.build" in loaded
    assert {"acme_trainc", "importlib.metadata"} & loaded == set()
    asked = trainc(site, inputs, "build", "acme.yaml", "runtime.yaml", probe=True)
    assert "acme_trainc" in asked.stderr.split()


def test_version_lists_installed_plugins(site, inputs):
    result = trainc(site, inputs, "version")
    assert result.stdout.splitlines()[-4:] == [
        "plugin acme-policy: acme-trainc 0.1 (acme_trainc:policy)",
        "plugin broken: acme-trainc 0.1 (acme_trainc:not_a_plugin)",
        "plugin crash: acme-trainc 0.1 (acme_trainc:crash)",
        "plugin gpu-cap: acme-trainc 0.1 (acme_trainc:gpu_cap)",
    ]


def test_missing_or_broken_plugins_are_clear_errors(site, inputs):
    broken = trainc(site, inputs, "build", "plain.yaml", "--plugin", "broken")
    assert broken.returncode == 2
    assert "plugin 'broken' (acme_trainc:not_a_plugin) is not a trainc.plugins.Plugin (int)" in broken.stderr
    crashed = trainc(site, inputs, "build", "plain.yaml", "--plugin", "crash")
    assert (crashed.returncode, crashed.stderr) == (1, "plain.yaml:1:1: plugin 'crash' failed: KeyError: 'replicas'\n")
    runtime = (
        (inputs / "runtime.yaml")
        .read_text()
        .replace("trainc.io/plugins: acme-policy", "trainc.io/plugins: acme-policy, nope")
    )
    (inputs / "runtime.yaml").write_text(runtime)
    missing = trainc(site, inputs, "build", "acme.yaml", "runtime.yaml")
    line = next(n for n, text in enumerate(runtime.splitlines(), 1) if "trainc.io/plugins" in text)
    assert missing.returncode == 1 and missing.stderr.startswith(f"runtime.yaml:{line}:")
    assert (
        "metadata.annotations[trainc.io/plugins]: no installed plugin 'nope' in the entry-point group "
        "trainc.plugins (installed: acme-policy, broken, crash, gpu-cap)"
    ) in missing.stderr


GUIDE = ROOT / "docs" / "guides" / "plugins.md"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_guides_recipe_as_written_is_loaded(tmp_path, inputs):
    """docs/guides/plugins.md's pyproject.toml and module, built by pip with setuptools as a user builds them
    (issue 20, finding 9: a plugin written from the docs was never loaded)."""
    need(
        subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0,
        "pip is not installed",
    )
    guide = GUIDE.read_text()
    [pyproject], [module] = _blocks(guide, "toml"), _blocks(guide, "python")
    project = tmp_path / "acme-trainc"
    project.mkdir()
    (project / "pyproject.toml").write_text(pyproject)
    (project / "acme_trainc.py").write_text(module)
    site = tmp_path / "site"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
            str(site),
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    listing = trainc(site, inputs, "version")
    assert listing.stdout.splitlines()[-2:] == [
        "plugin acme-policy: acme-trainc 0.1.0 (acme_trainc:policy)",
        "plugin gpu-cap: acme-trainc 0.1.0 (acme_trainc:gpu_cap)",
    ]
    capped = trainc(site, inputs, "build", "plain.yaml", "--plugin", "gpu-cap")
    assert (capped.returncode, capped.stderr) == (
        1,
        "plain.yaml:1:1: gpu-cap: node pods ask for 8 GPUs each; the cap is 4\n",
    )
    assert ":1:1: gpu-cap: node pods ask for 8 GPUs each; the cap is 4`" in guide  # the message it shows
    policy = trainc(site, inputs, "build", "acme.yaml", "runtime.yaml")
    assert policy.returncode == 0 and "name: ACME_POLICY\n" in policy.stdout, policy.stderr

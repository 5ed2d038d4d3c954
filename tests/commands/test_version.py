"""`trainc version` and `trainc completion`."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, need
from helpers import run


def test_version(tmp_path):
    result = run("version", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    libyaml = f"libyaml {yaml._yaml.get_version_string()}" if yaml.__with_libyaml__ else "pure Python, no libyaml"
    assert result.stdout == (
        "trainc 0.1.0\n"
        f"Python {platform.python_version()}\n"
        f"PyYAML {yaml.__version__} ({libyaml})\n"
        "upstream kubeflow/trainer 8c0f505 (k8s.io/api v0.36.3, sigs.k8s.io/jobset v0.12.0)\n"
        "CRD schemas trainer.kubeflow.org/v1alpha1, trainer.kubeflow.org/v2alpha1\n"
        "Kubeflow Trainer releases v2.3, v2.4; rendering for v2.4 (default)\n"
    )


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_clicks_script(tmp_path, shell):
    result = run("completion", shell, cwd=tmp_path)
    assert result.returncode == 0
    generated = subprocess.run(
        [sys.executable, "-m", "trainc"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "_TRAINC_COMPLETE": f"{shell}_source"},
    )
    # click's own echo adds a newline after the script in some releases: the script is what must match
    assert result.stdout == generated.stdout.rstrip("\n") + "\n" and "_TRAINC_COMPLETE" in result.stdout


def test_bash_completes_commands_and_options(tmp_path):
    need(shutil.which("bash") is not None, "bash is not installed")
    script = run("completion", "bash", cwd=tmp_path).stdout
    wrapper = tmp_path / "trainc"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m trainc "$@"\n')
    wrapper.chmod(0o755)
    probe = script + (
        '\nCOMP_WORDS=(trainc run); COMP_CWORD=1; _trainc_completion trainc; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(
        ["bash", "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"},
    )
    assert "runtimes" in result.stdout.split(), result.stderr

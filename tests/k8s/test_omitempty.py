"""Runtime specs and patches re-encoded as upstream's Go types do (trainc/k8s/omitempty.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

from trainc.k8s.omitempty import JOBSET_SPEC, JOBSET_SPEC_PATCH, reencode


def test_non_pointer_omitempty_zero_values_are_dropped_pointers_and_required_fields_kept():
    spec = {
        "replicatedJobs": [
            {
                "name": "node",
                "replicas": 0,
                "groupName": "",
                "template": {
                    "spec": {
                        "parallelism": 0,
                        "backoffLimit": 0,
                        "template": {
                            "spec": {
                                "hostNetwork": False,
                                "containers": [
                                    {
                                        "name": "node",
                                        "image": "",
                                        "env": [{"name": "A", "value": ""}],
                                        "ports": [{"containerPort": 0, "hostPort": 0}],
                                        "resources": {"limits": {}, "requests": {"cpu": "1"}},
                                    }
                                ],
                                "initContainers": [],
                                "nodeSelector": {},
                            }
                        },
                    }
                },
            }
        ],
        "suspend": False,
        "ttlSecondsAfterFinished": 0,
    }
    assert reencode(spec, JOBSET_SPEC) == {
        "replicatedJobs": [
            {
                "name": "node",
                "template": {
                    "spec": {
                        "parallelism": 0,
                        "backoffLimit": 0,
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "node",
                                        "env": [{"name": "A"}],
                                        "ports": [{"containerPort": 0}],
                                        "resources": {"requests": {"cpu": "1"}},
                                    }
                                ],
                            }
                        },
                    }
                },
            }
        ],
        "suspend": False,
        "ttlSecondsAfterFinished": 0,
    }


def test_required_empty_lists_and_unknown_fields_survive():
    spec = {
        "replicatedJobs": [
            {
                "name": "a",
                "template": {
                    "spec": {
                        "template": {
                            "spec": {
                                "containers": [],
                                "affinity": {
                                    "nodeAffinity": {
                                        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}
                                    }
                                },
                            }
                        }
                    }
                },
            }
        ]
    }
    assert reencode(spec, JOBSET_SPEC) == spec


def test_patch_types_drop_what_the_patch_structs_omit():
    patch = {
        "replicatedJobs": [
            {
                "name": "node",
                "template": {
                    "spec": {
                        "template": {
                            "spec": {
                                "tolerations": [],
                                "containers": [
                                    {
                                        "name": "node",
                                        "volumeMounts": [
                                            {"name": "d", "mountPath": "/d", "readOnly": False, "subPath": ""}
                                        ],
                                    }
                                ],
                                "terminationGracePeriodSeconds": 0,
                            }
                        }
                    }
                },
            }
        ]
    }
    assert reencode(patch, JOBSET_SPEC_PATCH) == {
        "replicatedJobs": [
            {
                "name": "node",
                "template": {
                    "spec": {
                        "template": {
                            "spec": {
                                "containers": [{"name": "node", "volumeMounts": [{"name": "d", "mountPath": "/d"}]}],
                                "terminationGracePeriodSeconds": 0,
                            }
                        }
                    }
                },
            }
        ]
    }


MIRRORS = {  # the Go sources upstream pins, when this machine has the read-only mirrors
    "core": ("kubernetes+api", "v0.36.3", "core/v1/types.go"),
    "batch": ("kubernetes+api", "v0.36.3", "batch/v1/types.go"),
    "meta": ("kubernetes+apimachinery", "v0.36.3", "pkg/apis/meta/v1/types.go"),
    "jobset": ("kubernetes-sigs+jobset", "v0.12.0", "api/jobset/v1alpha2/jobset_types.go"),
    "trainer": ("kubeflow+trainer", "HEAD", "pkg/apis/trainer/v1alpha1/trainjob_types.go"),
}


def test_the_table_is_what_the_generator_makes_of_the_pinned_go_sources(tmp_path):
    arguments = []
    for package, (mirror, revision, path) in MIRRORS.items():
        shown = subprocess.run(
            ["git", "-C", f"/work/.mirror/{mirror}/repo", "show", f"{revision}:{path}"],
            capture_output=True,
            check=False,
        )
        if shown.returncode != 0:
            pytest.skip(f"the {mirror} mirror is not on this machine (a development check)")
        (tmp_path / f"{package}.go").write_bytes(shown.stdout)
        arguments.append(f"{package}={tmp_path / f'{package}.go'}")
    generator = ROOT / "tools" / "schemas" / "gotypes.py"
    subprocess.run([sys.executable, str(generator), "--out", str(tmp_path / "gotypes.json"), *arguments], check=True)
    assert json.loads((tmp_path / "gotypes.json").read_text()) == json.loads(
        (ROOT / "schemas" / "gotypes.json").read_text()
    )

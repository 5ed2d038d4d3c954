"""Hostile and malformed input: `trainc build|validate|status` succeed or print `file:line:col: field.path:
message` lines and exit 1 — never a traceback, partial stdout, a hang or a silently wrong manifest.

One case per bug class the fuzzing of every golden input and bundled runtime found (each fixed where
the logic lives) and the YAML features Kubernetes inputs meet; the fuzzer itself (`fuzz/fuzz.py`) runs
bounded in tests/test_fuzz.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from helpers import build

from trainc import inputs
from trainc.cli import cli
from trainc.errors import TraincError

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: demo
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
"""
# A runtime with one job, to mutate: `{jobset}` is spliced into its JobSet spec, `{job}` into its replicated job.
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: mine
spec:
{policy}  template:
    spec:
{jobset}      replicatedJobs:
        - name: {job_name}
{job}          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: python:3.12
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: mine
{trainer}"""


def runtime(policy="", jobset="", job_name="node", job="", name="demo", trainer=""):
    return RUNTIME.format(policy=policy, jobset=jobset, job_name=job_name, job=job, name=name, trainer=trainer)


def invoke(tmp_path, monkeypatch, files: dict, *args, stdin=None):
    """Run the CLI in-process on files written under tmp_path (names stay relative in messages)."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def assert_error(result, *lines):
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == list(lines)


def bomb(levels=9):
    anchors = ["&l0 [" + ",".join(["x"] * 9) + "]"]
    anchors += [f"&l{k} [" + ",".join([f"*l{k - 1}"] * 9) + "]" for k in range(1, levels)]
    return "[" + ", ".join(anchors) + "]"


# (id, files, args, expected stderr lines); `build a.yaml` unless args say otherwise.
ERRORS = [
    # YAML reader errors carry an offset only: they were printed over two lines at 1:1.
    (
        "control-character",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: de\x0cmo")},
        (),
        ["a.yaml:4:11: invalid YAML: unacceptable character #x000c: control characters are not allowed"],
    ),
    (
        "control-character-after-multibyte",
        {"a.yaml": "# ü\n" + TRAINJOB.replace("numNodes: 2", "numNodes: \x1b2")},
        (),
        ["a.yaml:10:15: invalid YAML: unacceptable character #x001b: control characters are not allowed"],
    ),
    ("not-utf8", {"a.yaml": TRAINJOB.encode() + b"\xff"}, (), ["a.yaml:1:1: not UTF-8 text"]),
    # Aliases were shared objects: defaults of one place leaked into another, bombs and cycles reached the walker.
    (
        "alias-bomb",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", f"numNodes: {bomb()}")},
        (),
        ["a.yaml:9:213: invalid YAML: aliases expand this node by more than 200000 nodes (an alias bomb?)"],
    ),
    (
        "alias-bomb-in-kind",
        {"a.yaml": TRAINJOB.replace("kind: TrainJob", f"kind: {bomb()}")},
        (),
        ["a.yaml:2:205: invalid YAML: aliases expand this node by more than 200000 nodes (an alias bomb?)"],
    ),
    (
        "recursive-alias",
        {"a.yaml": TRAINJOB.replace("metadata:\n  name: demo", "metadata: &m\n  name: demo\n  x: *m")},
        (),
        ["a.yaml:5:3: invalid YAML: recursive alias: a node cannot contain itself"],
    ),
    (
        "shared-alias-is-a-copy",
        {
            "a.yaml": TRAINJOB.replace("  runtimeRef:\n", "  runtimeRef: &r\n").replace(
                "numNodes: 2", "resourcesPerNode: *r\n    numNodes: 2"
            )
        },
        (),
        ["a.yaml:7:5: spec.trainer.resourcesPerNode.name: unknown field"],
    ),
    # Tags that make no JSON value, and explicit tags on text that is none.
    (
        "tag-binary",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: !!binary ZGVtbw==")},
        (),
        ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:binary'"],
    ),
    (
        "tag-timestamp",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: !!timestamp 2001-12-14")},
        (),
        ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:timestamp'"],
    ),
    (
        "tag-set",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!set {a, b}")},
        (),
        ["a.yaml:9:15: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:set'"],
    ),
    (
        "tag-python-object",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: !!python/object/apply:os.getpid []")},
        (),
        [
            "a.yaml:4:9: invalid YAML: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/object/apply:os.getpid'"
        ],
    ),
    (
        "tag-custom",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: !custom demo")},
        (),
        ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag '!custom'"],
    ),
    (
        "tag-int-on-text",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!int two")},
        (),
        ["a.yaml:9:15: invalid YAML: cannot read 'two' as !!int"],
    ),
    (
        "tag-float-on-text",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", 'numNodes: !!float "1\\nx"')},
        (),
        ["a.yaml:9:15: invalid YAML: cannot read '1\\nx' as !!float"],
    ),
    # Documents the typed models could not hold: refused by the schema, never a model's error or a KeyError.
    ("no-spec", {"a.yaml": TRAINJOB.split("spec:")[0]}, (), ["a.yaml:1:1: spec: required field is missing"]),
    (
        "no-metadata",
        {"a.yaml": TRAINJOB.replace("metadata:\n  name: demo\n", "")},
        (),
        ["a.yaml:1:1: metadata: required field is missing"],
    ),
    (
        "runtime-no-metadata",
        {"a.yaml": runtime().replace("metadata:\n  name: mine\n", "", 1)},
        (),
        ["a.yaml:1:1: metadata: required field is missing"],
    ),
    (
        "runtime-no-template",
        {
            "a.yaml": "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
            "metadata: {name: x}\nspec: {mlPolicy: {}}\n"
        },
        (),
        ["a.yaml:4:7: spec.template: required field is missing"],
    ),
    (
        "job-template-without-spec",
        {
            "a.yaml": runtime().replace(
                "            spec:\n              template:\n                spec:\n                  containers:\n"
                "                    - name: node\n                      image: python:3.12\n",
                "",
            )
        },
        (),
        ["a.yaml:11:13: spec.template.spec.replicatedJobs[0].template.spec: required field is missing"],
    ),
    (
        "pod-template-without-spec",
        {
            "a.yaml": runtime().replace(
                "              template:\n                spec:\n                  containers:\n"
                "                    - name: node\n                      image: python:3.12\n",
                "              template: {}\n",
            )
        },
        (),
        ["a.yaml:15:25: spec.template.spec.replicatedJobs[0].template.spec.template.spec: required field is missing"],
    ),
    (
        "kind-not-a-string",
        {"a.yaml": TRAINJOB.replace("kind: TrainJob", "kind: [TrainJob]")},
        (),
        ["a.yaml:2:7: kind: must be a string: expected TrainJob, TrainingRuntime or ClusterTrainingRuntime"],
    ),
    (
        "kep-policy-not-a-map",
        {
            "a.yaml": "apiVersion: trainer.kubeflow.org/v2alpha1\nkind: ClusterTrainingRuntime\n"
            "metadata: {name: x}\nspec: {mlPolicy: oops, template: {spec: {}}}\n"
        },
        (),
        ["a.yaml:4:18: spec.mlPolicy: must be an object, not string"],
    ),
    # CEL rules ran on values of the wrong type (AttributeError); the API server skips them (hasBlockingErr).
    (
        "cel-after-type-error",
        {"a.yaml": runtime(jobset="      volumeClaimPolicies: [{templates: [5]}]\n")},
        (),
        ["a.yaml:8:42: spec.template.spec.volumeClaimPolicies[0].templates[0]: must be an object, not integer"],
    ),
    # Python's `$` matches before a final newline; RE2's (CRD patterns, CEL) does not.
    (
        "pattern-trailing-newline",
        {"a.yaml": TRAINJOB.replace("name: demo", 'name: "demo\\n"\n  namespace: "ns\\n"')},
        (),
        [
            "a.yaml:4:9: metadata.name: metadata.name must match RFC 1035 DNS label format",
            'a.yaml:5:14: metadata.namespace: "ns\\n" must match the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        ],
    ),
    # Messages with line breaks or escape sequences broke the one-error-per-line output.
    (
        "unknown-key-with-newline",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", '"num\\nNodes\\u001b[2J": 2')},
        (),
        ["a.yaml:9:5: spec.trainer[num\\nNodes\\x1b[2J]: unknown field"],
    ),
    # Invalid -n went into the manifests unchecked.
    (
        "invalid-default-namespace",
        {"a.yaml": TRAINJOB},
        ("build", "-n", "Team A", "a.yaml"),
        ['--namespace: "Team A" must match the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'],
    ),
    # Exact arithmetic on 1e999999999 never finished; Kubernetes reads quantities as int64.
    (
        "quantity-beyond-int64",
        {"a.yaml": TRAINJOB + "    resourcesPerNode: {requests: {cpu: 1e999999999}}\n"},
        (),
        [
            'a.yaml:10:40: spec.trainer.resourcesPerNode.requests.cpu: quantity "1e999999999" is outside the int64 range '
            "Kubernetes reads quantities in (Go's Quantity.Value())"
        ],
    ),
    # Every pod endpoint was materialized: numNodes 2147483647 never finished.
    (
        "mpi-hostfile-too-large",
        {
            "a.yaml": TRAINJOB.replace("torch-distributed", "deepspeed-distributed").replace(
                "numNodes: 2", "numNodes: 2147483647"
            )
        },
        (),
        [
            "a.yaml:9:15: spec.trainer.numNodes: too many MPI hosts: the hostfile would not fit in a ConfigMap "
            "(1048576 bytes at most)"
        ],
    ),
    # ObjectMeta that ends up on emitted objects was not checked (only the document's own labels were).
    (
        "invalid-labels-and-annotations",
        {
            "a.yaml": runtime()
            .replace("  name: mine\n", '  name: mine\n  annotations: {"bad key!": x}\n', 1)
            .replace(
                "  template:\n    spec:\n", '  template:\n    metadata:\n      labels: {"k8s🚂.io/q": v}\n    spec:\n'
            )
        },
        (),
        [
            "a.yaml:5:17: metadata.annotations[bad key!]: invalid annotation key",
            "a.yaml:9:16: spec.template.metadata.labels[k8s🚂.io/q]: invalid label key",
        ],
    ),
    (
        "patch-label-value",
        {
            "a.yaml": TRAINJOB + "  runtimePatches:\n    - manager: a.io/b\n      trainingRuntimeSpec:\n"
            "        template:\n          metadata:\n"
            '            labels: {team: "a b"}\n'
        },
        (),
        [
            "a.yaml:15:28: spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.labels.team: "
            "invalid label value 'a b'"
        ],
    ),
    # Gang PodGroups the scheduler CRDs refuse.
    (
        "coscheduling-without-pods",
        {
            "a.yaml": "apiVersion: trainer.kubeflow.org/v1alpha1\n"
            "kind: ClusterTrainingRuntime\nmetadata: {name: mine}\nspec:\n"
            "  podGroupPolicy: {coscheduling: {}}\n"
            "  template: {spec: {replicatedJobs: []}}\n---\n" + runtime().split("---\n")[1]
        },
        (),
        [
            "a.yaml:6:37: spec.template.spec.replicatedJobs: coscheduling needs at least one pod: a PodGroup's "
            "minMember must be at least 1"
        ],
    ),
    (
        "volcano-queue-name",
        {
            "a.yaml": runtime(
                policy="  podGroupPolicy:\n    volcano:\n      networkTopology: {highestTierAllowed: -1}\n"
            ).replace(
                "  template:\n    spec:\n",
                "  template:\n    metadata:\n      annotations:\n"
                "        scheduling.volcano.sh/queue-name: Team_Queue\n    spec:\n",
                1,
            )
        },
        (),
        [
            "a.yaml:8:45: spec.podGroupPolicy.volcano.networkTopology.highestTierAllowed: must be greater than or equal to "
            "0 (the PodGroup's minimum)",
            "a.yaml:33:5: spec.annotations[scheduling.volcano.sh/queue-name]: Volcano queue name 'Team_Queue' must be a "
            "lowercase RFC 1123 subdomain (a PodGroup's spec.queue)",
        ],
    ),
    # JobSets the JobSet webhook refuses were emitted.
    (
        "jobset-pod-name-too-long",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: " + "a" * 50)},
        (),
        [
            "a.yaml:4:9: metadata.name: the JobSet webhook refuses replicated job 'node': Pod name '"
            + "a" * 50
            + "-node-0-1-abcde': JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
        ],
    ),
    (
        "jobset-job-name-format",
        {"a.yaml": runtime(job_name="Node")},
        (),
        [
            "a.yaml:9:17: spec.template.spec.replicatedJobs[0].name: the JobSet webhook refuses replicated job 'Node': "
            "Job name 'demo-Node-0': a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            "with an alphabetic character, and end with an alphanumeric character"
        ],
    ),
    (
        "jobset-depends-on-later-job",
        {"a.yaml": runtime(job="          dependsOn: [{name: later, status: Ready}]\n")},
        (),
        [
            "a.yaml:10:22: spec.template.spec.replicatedJobs[0].dependsOn: the JobSet webhook refuses replicated job "
            "'node' depending on 'later': only on an earlier replicated job"
        ],
    ),
    (
        "jobset-failure-policy",
        {
            "a.yaml": runtime(
                jobset=(
                    "      failurePolicy:\n        rules:\n"
                    "          - {name: '', action: FailJobSet, targetReplicatedJobs: [nodes]}\n"
                    "          - {name: failurePolicyRule0, action: FailJobSet, onJobFailureReasons: [OOMKilled]}\n"
                    "          - {name: 1st, action: FailJobSet}\n"
                )
            )
        },
        (),
        [
            "a.yaml:10:11: spec.template.spec.failurePolicy.rules: the JobSet webhook refuses rules [0, 1] all named "
            "'failurePolicyRule0': rule names must be unique",
            "a.yaml:10:66: spec.template.spec.failurePolicy.rules[0].targetReplicatedJobs: the JobSet webhook refuses "
            "'nodes': no such replicated job",
            "a.yaml:11:81: spec.template.spec.failurePolicy.rules[1].onJobFailureReasons: the JobSet webhook refuses the "
            "job failure reason 'OOMKilled': not one of BackoffLimitExceeded, DeadlineExceeded, FailedIndexes, "
            "MaxFailedIndexesExceeded, PodFailurePolicy",
            "a.yaml:12:20: spec.template.spec.failurePolicy.rules[2].name: the JobSet webhook refuses the failure policy "
            "rule name '1st': at most 128 characters, a letter, then letters, digits or '_,:', ending with a letter, "
            "digit or '_'",
        ],
    ),
    (
        "jobset-too-many-pods-in-a-runtime-job",
        {
            "a.yaml": runtime().replace(
                "      replicatedJobs:\n",
                (
                    "      replicatedJobs:\n        - name: side\n          replicas: 1073741824\n"
                    "          template: {spec: {parallelism: 4, template: {spec: {containers: [{name: s, image: s}]}}}}\n"
                ),
            )
        },
        (),
        [
            "a.yaml:10:21: spec.template.spec.replicatedJobs[0].replicas: the JobSet webhook refuses replicated job 'side': "
            "the product of replicas and parallelism must not exceed 2147483647"
        ],
    ),
    (
        "jobset-managed-by-and-gated-features",
        {
            "a.yaml": runtime(
                jobset=(
                    "      managedBy: not-a-path\n"
                    "      failurePolicy:\n        restartStrategy: InPlaceRestart\n"
                    "        rules:\n          - {name: again, action: RestartJob}\n"
                )
            )
        },
        (),
        [
            "a.yaml:8:18: spec.template.spec.managedBy: the JobSet webhook refuses managedBy 'not-a-path': must be a "
            'domain-prefixed path (such as "acme.io/foo")',
            "a.yaml:10:26: spec.template.spec.failurePolicy.restartStrategy: the JobSet webhook refuses restartStrategy "
            "'InPlaceRestart': InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
            "a.yaml:12:35: spec.template.spec.failurePolicy.rules[0].action: the JobSet webhook refuses action 'RestartJob': "
            "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature "
            "gate is disabled",
        ],
    ),
    (
        "jobset-coordinator",
        {"a.yaml": runtime(jobset=("      coordinator: {replicatedJob: node, podIndex: 1}\n"))},
        (),
        [
            "a.yaml:8:52: spec.template.spec.coordinator.podIndex: the JobSet webhook refuses the coordinator: coordinator "
            "pod index 1 is invalid for replicatedJob node job index 0"
        ],
    ),
    (
        "jobset-coordinator-missing-job",
        {"a.yaml": runtime(jobset=("      coordinator: {replicatedJob: nodes}\n"))},
        (),
        [
            "a.yaml:8:36: spec.template.spec.coordinator.replicatedJob: the JobSet webhook refuses the coordinator: "
            "coordinator replicatedJob nodes does not exist"
        ],
    ),
    (
        "jobset-coordinator-label-too-long",
        {
            "a.yaml": runtime(
                name="a" * 40, trainer="  trainer: {numNodes: 1}\n", jobset="      coordinator: {replicatedJob: node}\n"
            )
        },
        (),
        [
            "a.yaml:25:9: metadata.name: the JobSet webhook refuses the coordinator: spec will lead to invalid label value '"
            + "a" * 40
            + "-node-0-0."
            + "a" * 40
            + '\' for coordinator label "jobset.sigs.k8s.io/coordinator" (long JobSet '
            "/ ReplicatedJob / SubDomain name?): must be no more than 63 characters and start and end with an alphanumeric "
            "character"
        ],
    ),
    (
        "jobset-volume-claim-policies",
        {
            "a.yaml": runtime(
                jobset=(
                    "      volumeClaimPolicies:\n        - templates:\n"
                    "            - {metadata: {name: scratch}, spec: {accessModes: [ReadWriteOnce]}}\n"
                    "            - {metadata: {name: scratch}, spec: {accessModes: [ReadWriteOnce]}}\n"
                )
            )
        },
        (),
        [
            "a.yaml:10:33: spec.template.spec.volumeClaimPolicies[0].templates[0].metadata.name: the JobSet webhook refuses "
            "volume claim template 'scratch': replicatedJob containers don't have a matching volumeMount: scratch from "
            "VolumeClaimPolicies",
            "a.yaml:11:33: spec.template.spec.volumeClaimPolicies[0].templates[1].metadata.name: the JobSet webhook refuses "
            "volume claim template 'scratch': names must be unique for VolumeClaimPolicies template",
            "a.yaml:11:33: spec.template.spec.volumeClaimPolicies[0].templates[1].metadata.name: the JobSet webhook refuses "
            "volume claim template 'scratch': replicatedJob containers don't have a matching volumeMount: scratch from "
            "VolumeClaimPolicies",
        ],
    ),
    # A document meant for Trainer that is not read as one would silently render nothing (and a GitOps sync prune
    # its JobSet); kubectl refuses these too. Documents of other API groups stay ignored.
    (
        "no-api-version",
        {"a.yaml": TRAINJOB.replace("apiVersion: trainer.kubeflow.org/v1alpha1\n", "")},
        (),
        [
            "a.yaml:1:1: apiVersion: required field is missing: expected trainer.kubeflow.org/v1alpha1 (or the KEP's "
            "/v2alpha1)"
        ],
    ),
    (
        "api-version-number",
        {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org/v1alpha1", "5")},
        (),
        ["a.yaml:1:13: apiVersion: must be a string: expected trainer.kubeflow.org/v1alpha1 (or the KEP's /v2alpha1)"],
    ),
    (
        "api-version-without-version",
        {"a.yaml": TRAINJOB.replace("/v1alpha1", "")},
        (),
        [
            "a.yaml:1:13: apiVersion: 'trainer.kubeflow.org' has no version: expected trainer.kubeflow.org/v1alpha1 (or "
            "the KEP's /v2alpha1)"
        ],
    ),
    (
        "api-group-upper-case",
        {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org", "Trainer.Kubeflow.org")},
        (),
        [
            "a.yaml:1:13: apiVersion: API groups are lower case: expected trainer.kubeflow.org/v1alpha1 (or the KEP's "
            "/v2alpha1)"
        ],
    ),
    (
        "other-group-ignored",
        {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org/v1alpha1", "example.com/v1")},
        ("build", "--trainer-only", "a.yaml"),
        [],
    ),
    (
        "number-key-located-by-its-json-key",
        {"a.yaml": TRAINJOB.replace("  name: demo\n", ("  name: demo\n  annotations:\n    ok: fine\n    0x10: 5\n"))},
        (),
        ["a.yaml:7:11: metadata.annotations[16]: must be a string, not integer"],
    ),
    # The output directory could not be written: a traceback.
    (
        "output-dir-not-writable",
        {"a.yaml": TRAINJOB, "out": "a file"},
        ("build", "--output-dir", "out/x", "a.yaml"),
        ["Error: cannot create out/x: Not a directory"],
    ),
    # The YAML features a Kubernetes input may hold.
    (
        "empty-document-and-only-separators",
        {"a.yaml": "", "b.yaml": "---\n", "c.yaml": "---\n---\n...\n"},
        ("build", "--allow-empty", "a.yaml", "b.yaml", "c.yaml"),
        [],
    ),
    (
        "top-level-list",
        {"a.yaml": "- " + TRAINJOB.replace("\n", "\n  ")},
        (),
        ["a.yaml:1:1: a Kubernetes object must be a mapping"],
    ),
    ("top-level-scalar", {"a.yaml": "42\n---\n" + TRAINJOB}, (), ["a.yaml:1:1: a Kubernetes object must be a mapping"]),
    (
        "duplicate-key",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: 2\n    numNodes: 3")},
        (),
        ['a.yaml:10:5: invalid YAML: duplicate key "numNodes"'],
    ),
    # Keys go-yaml v2 reads as numbers or booleans become their text, as sigs.k8s.io/yaml makes them for JSON;
    # a null or a collection is no JSON key at all.
    (
        "number-key-as-text",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "1: 2")},
        (),
        ["a.yaml:9:5: spec.trainer[1]: unknown field"],
    ),
    (
        "boolean-key-as-text",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "on: 2")},
        (),
        ["a.yaml:9:5: spec.trainer.true: unknown field"],
    ),
    (
        "null-key",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "~: 2")},
        (),
        ["a.yaml:9:5: invalid YAML: mapping keys must be strings"],
    ),
    (
        "list-key",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "? [a]\n    : 2")},
        (),
        ["a.yaml:9:7: invalid YAML: mapping keys must be strings"],
    ),
    (
        "tab-indentation",
        {"a.yaml": TRAINJOB.replace("    numNodes", "\tnumNodes")},
        (),
        ["a.yaml:9:1: invalid YAML: found character that cannot start any token (while scanning for the next token)"],
    ),
    (
        "bom-inside",
        {"a.yaml": TRAINJOB.replace("spec:", "\ufeffspec:")},
        (),
        ["a.yaml:5:2: invalid YAML: did not find expected key (while parsing a block mapping at line 1, column 1)"],
    ),
    (
        "deep-json",
        {"a.json": '{"a": ' + "[" * 5000 + "]" * 5000 + "}"},
        ("build", "a.json"),
        ["a.json:1:1006: invalid JSON: nested deeper than 1000 levels"],
    ),
    # 1000 levels decode on every Python (3.11 and 3.13 differ in how deep their own limits let JSON go).
    (
        "json-at-depth-limit",
        {"a.json": '{"a": ' + "[" * 998 + "]" * 998 + ', "b": "[[["}'},
        ("build", "--trainer-only", "a.json"),
        [],
    ),
    (
        "yaml-too-deep",
        {"a.yaml": "a: " + "[" * 1000 + "]" * 1000},
        ("build", "a.yaml"),
        ["a.yaml:1:1003: invalid YAML: exceeded maximum nesting depth (while increasing flow level)"],
    ),
    # The same verdict and position with any libyaml (0.2.5 refuses no nesting) or none (`yamlshape.py`).
    ("yaml-at-depth-limit", {"a.yaml": "a: " + "[" * 999 + "]" * 999}, ("build", "--trainer-only", "a.yaml"), []),
    (
        "yaml-blocks-too-deep",
        {"a.yaml": "".join(" " * i + "a:\n" for i in range(1000))},
        ("build", "a.yaml"),
        ["a.yaml:1000:1001: invalid YAML: exceeded maximum nesting depth (while increasing block level)"],
    ),
    (
        "yaml-blocks-at-depth-limit",
        {"a.yaml": "".join(" " * i + "a:\n" for i in range(999))},
        ("build", "--trainer-only", "a.yaml"),
        [],
    ),
    (
        "yaml-tagged-too-deep",
        {"a.yaml": "c: ! 010\na: " + "[" * 1000 + "]" * 1000},
        ("build", "a.yaml"),
        ["a.yaml:2:1003: invalid YAML: exceeded maximum nesting depth (while increasing flow level)"],
    ),
    # one flow level, two data levels: libyaml accepts 600 flow levels, but not 1200 data levels
    (
        "yaml-pairs-too-deep",
        {"a.yaml": "a: 1\n---\nb: " + "[b: " * 600 + "x" + "]" * 600 + "\n---\nc: {\n"},
        ("build", "a.yaml"),
        ["a.yaml:3:2001: invalid YAML: nested deeper than 1000 levels"],
    ),
    (
        "yaml-aliases-too-deep",
        {"a.yaml": "a: &x " + "[" * 600 + "]" * 600 + "\nb: " + "[" * 600 + "*x" + "]" * 600},
        ("build", "a.yaml"),
        ["a.yaml:1:406: invalid YAML: nested deeper than 1000 levels"],
    ),
    # Scalar tags on collections raised TypeError (build, status, fn, from_objects: one reader).
    (
        "tag-int-on-a-list",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!int [1]")},
        (),
        ["a.yaml:9:15: invalid YAML: cannot read a sequence as !!int"],
    ),
    (
        "tag-bool-on-a-map",
        {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!bool {a: 1}")},
        (),
        ["a.yaml:9:15: invalid YAML: cannot read a mapping as !!bool"],
    ),
    (
        "tag-float-and-null-on-lists",
        {"a.yaml": "a: !!float [1]\n---\nb: !!null []\n"},
        (),
        ["a.yaml:1:4: invalid YAML: cannot read a sequence as !!float"],
    ),
    (
        "status-tag-null-on-a-list",
        {"js.yaml": "a: !!null [1]\n"},
        ("status", "js.yaml"),
        ["js.yaml:1:4: invalid YAML: cannot read a sequence as !!null"],
    ),
    # A duplicate key seen before the text broke: Go scans the value whole first (a traceback here).
    (
        "json-duplicate-then-garbage",
        {"a.json": '{"a":{"b":1,"b":2}{}}'},
        ("build", "a.json"),
        [
            "a.json:1:19: invalid JSON: invalid character '{' after object key:value pair (text starting with { is read "
            "as JSON, as kubectl reads it)"
        ],
    ),
    (
        "json-duplicate-then-end",
        {"a.json": '{"a":{"b":{"c":1,"c":1}'},
        ("build", "a.json"),
        [
            "a.json:1:24: invalid JSON: unexpected end of JSON input (text starting with { is read as JSON, as kubectl "
            "reads it)"
        ],
    ),
    # Any `!` in a file (a comment will do) switched to PyYAML's own parser: `\U00110000` raised ValueError, a lone
    # surrogate was read and written out where libyaml (and kubectl) cannot read it back.
    (
        "escape-past-unicode-with-a-bang",
        {"a.yaml": "# if ! ok\n" + TRAINJOB.replace("name: demo", 'name: "\\U00110000"')},
        (),
        [
            "a.yaml:5:12: invalid YAML: found invalid Unicode character escape code (while parsing a quoted scalar at "
            "line 5, column 9)"
        ],
    ),
    (
        "lone-surrogate-with-a-bang",
        {"a.yaml": TRAINJOB.replace("name: demo", 'name: "\\uD83D"') + "# todo !\n"},
        (),
        [
            "a.yaml:4:12: invalid YAML: found invalid Unicode character escape code (while parsing a quoted scalar at "
            "line 4, column 9)"
        ],
    ),
    (
        "lone-surrogate",
        {"a.yaml": TRAINJOB.replace("name: demo", 'name: "\\uD83D"')},
        (),
        [
            "a.yaml:4:12: invalid YAML: found invalid Unicode character escape code (while parsing a quoted scalar at "
            "line 4, column 9)"
        ],
    ),
    # libyaml reads `[n?]` as text; go-yaml (kubectl) refuses it: so does trainc, with or without a `!` around.
    (
        "question-mark-in-flow",
        {"a.yaml": TRAINJOB.replace("name: demo", "name: demo\n  labels: {a: b?}")},
        (),
        [
            "a.yaml:5:15: invalid YAML: '?' in a plain scalar inside a flow collection, which kubectl's reader (go-yaml) "
            "refuses: quote the text"
        ],
    ),
    # The runtime's list item lacks its merge key: upstream's (and `kubectl patch`'s) merge refuses it (a ValueError).
    (
        "patch-onto-an-item-without-its-merge-key",
        {
            "a.yaml": runtime(
                trainer=(
                    "  runtimePatches:\n    - manager: a.io/b\n      trainingRuntimeSpec:\n        template:\n          spec:\n"
                    "            replicatedJobs:\n              - name: node\n                template: {spec: {template: {spec: "
                    "{imagePullSecrets: [{name: reg}]}}}}\n"
                )
            ).replace(
                "                  containers:\n",
                "                  imagePullSecrets: [{}]\n                  containers:\n",
            )
        },
        (),
        [
            "a.yaml:34:13: spec.runtimePatches[0].trainingRuntimeSpec.template.spec: cannot apply this patch to the "
            "runtime: strategic merge: list element lacks merge key 'name'"
        ],
    ),
    # A 1 MB value made a 1 MB error line: quoted values are cut.
    (
        "long-value-cut",
        {"a.yaml": TRAINJOB + "    resourcesPerNode: {requests: {cpu: 1" + "2" * 10**6 + "x}}\n"},
        (),
        [
            'a.yaml:10:40: spec.trainer.resourcesPerNode.requests.cpu: invalid quantity "1'
            + "2" * 255
            + '…": quantities '
            "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ],
    ),
    # Limits: inputs bounded in all (a pipe or /dev/zero read until memory ran out); non-regular files refused.
    (
        "input-too-large",
        {"a.yaml": TRAINJOB, "b.yaml": TRAINJOB},
        ("build", "--max-input-bytes", "200", "a.yaml", "b.yaml"),
        [
            "b.yaml:1:1: the inputs of this run exceed 200 bytes (raise the limit with --max-input-bytes or "
            "TRAINC_MAX_INPUT_BYTES)"
        ],
    ),
    (
        "device-by-path",
        {},
        ("build", "/dev/zero"),
        ["/dev/zero:1:1: cannot read: not a regular file (a pipe or device: pass its text on stdin, as -)"],
    ),
    (
        "status-bomb",
        {"js.yaml": "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + bomb()},
        ("status", "js.yaml"),
        ["js.yaml:4:207: invalid YAML: aliases expand this node by more than 200000 nodes (an alias bomb?)"],
    ),
]


@pytest.mark.parametrize("case, files, args, lines", ERRORS, ids=[case[0] for case in ERRORS])
def test_error(tmp_path, monkeypatch, case, files, args, lines):
    result = invoke(tmp_path, monkeypatch, files, *(args or ("build", *sorted(files))))
    if not lines:
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    else:
        assert_error(result, *lines)


def test_validate_reports_like_build(tmp_path, monkeypatch):
    result = invoke(
        tmp_path, monkeypatch, {"a.yaml": TRAINJOB.replace("name: demo", "name: " + "a" * 50)}, "validate", "a.yaml"
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "invalid: 1 error"
    assert result.stderr.startswith("a.yaml:4:9: metadata.name: the JobSet webhook refuses")


@pytest.mark.parametrize("command", ["build", "validate", "status"])
def test_stdin_that_is_not_utf8(tmp_path, monkeypatch, command):
    """sys.stdin.read() raised UnicodeDecodeError (or, under surrogateescape, libyaml an encode error)."""
    result = invoke(tmp_path, monkeypatch, {}, command, "-", stdin=b"kind: \xff\n")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[0] == "<stdin>:1:1: not UTF-8 text"


@contextlib.contextmanager
def unprivileged(tmp_path):
    """Permissions as a user sees them: as root (CI), the effective user is `nobody` meanwhile, for whom a
    mode-000 path is unreadable (root reads it anyway)."""
    if os.geteuid() != 0:
        yield
        return
    nobody = pwd.getpwnam("nobody")
    tmp_path.chmod(0o755)
    os.setegid(nobody.pw_gid)
    os.seteuid(nobody.pw_uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@pytest.mark.parametrize(
    "files, unreadable, args, line",
    [
        # Reported by trainc's reader, exit 1, as inside a directory (click used to refuse it with exit 2).
        (["d/secret.yaml"], "d/secret.yaml", ("d/secret.yaml",), "d/secret.yaml:1:1: cannot read: Permission denied"),
        (["d/ok.yaml", "d/secret.yaml"], "d/secret.yaml", ("d",), "d/secret.yaml:1:1: cannot read: Permission denied"),
        # A directory that cannot be listed gave an empty render, exit 0: a GitOps sync would prune everything.
        (["d/ok.yaml", "d/sub/a.yaml"], "d/sub", ("d",), "d/sub:1:1: cannot read the directory: Permission denied"),
        (["d/a.yaml"], "d", ("d",), "d:1:1: cannot read the directory: Permission denied"),
    ],
    ids=["file", "file-in-directory", "subdirectory", "top-directory"],
)
def test_every_unreadable_path_is_an_error(tmp_path, monkeypatch, files, unreadable, args, line):
    invoke(tmp_path, monkeypatch, {name: TRAINJOB for name in files}, "build", "d")  # imports done with every right
    for path in [tmp_path / "d", *(tmp_path / "d").rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (tmp_path / unreadable).chmod(0)
    try:
        with unprivileged(tmp_path):
            result = CliRunner().invoke(cli, ["build", *args])
    finally:
        (tmp_path / unreadable).chmod(0o755)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert_error(result, line)


def test_directory_symlink_loop_and_dangling_links(tmp_path, monkeypatch):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.yaml").write_text(TRAINJOB)
    (tmp_path / "in" / "loop").symlink_to(tmp_path / "in", target_is_directory=True)
    (tmp_path / "in" / "self.yaml").symlink_to(tmp_path / "in" / "self.yaml")
    result = invoke(tmp_path, monkeypatch, {}, "build", "in")
    assert result.exit_code == 0 and result.stdout.count("kind: JobSet") == 1, result.stderr
    assert_error(
        invoke(tmp_path, monkeypatch, {}, "build", "in/self.yaml"),
        "in/self.yaml:1:1: cannot read: Too many levels of symbolic links",
    )


def jobset_of(tmp_path, files) -> dict:
    paths = [str(tmp_path / name) for name in files]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return next(o for o in build(paths).documents() if o["kind"] == "JobSet")


# Valid input in the shapes YAML and kubectl allow compiles to the same JobSet as the plain form.
LABELED = TRAINJOB.replace("name: demo", "name: demo\n  labels: {a: x, b: x}")
SAME = [
    ("crlf", TRAINJOB.replace("\n", "\r\n"), TRAINJOB),
    ("leading-bom", "\ufeff" + TRAINJOB, TRAINJOB),
    ("explicit-start-and-end", "---\n" + TRAINJOB + "...\n", TRAINJOB),
    ("yaml-directive", "%YAML 1.1\n---\n" + TRAINJOB, TRAINJOB),
    # kubectl reads text starting with `{` as JSON; after `---` a flow mapping is YAML
    (
        "flow-style",
        "---\n{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: demo}, "
        "spec: {runtimeRef: {name: torch-distributed}, trainer: {numNodes: 2}}}\n",
        TRAINJOB,
    ),
    ("json", json.dumps(yaml.safe_load(TRAINJOB)), TRAINJOB),
    ("anchor-and-alias", LABELED.replace("{a: x, b: x}", "{a: &v x, b: *v}"), LABELED),
    ("merge-key", LABELED.replace("{a: x, b: x}", "{<<: {a: x}, b: x}"), LABELED),
    (
        "explicit-json-tags",
        TRAINJOB.replace("numNodes: 2", 'numNodes: !!int "2"').replace("name: demo", "name: !!str demo"),
        TRAINJOB,
    ),
    ("comments-and-blank-lines", "# a comment\n\n" + TRAINJOB.replace("spec:", "spec: # trailing\n"), TRAINJOB),
]


@pytest.mark.parametrize("case, text, plain", SAME, ids=[case[0] for case in SAME])
def test_valid_yaml_features(tmp_path, case, text, plain):
    (tmp_path / "plain").mkdir()
    (tmp_path / "case").mkdir()
    assert jobset_of(tmp_path / "case", {"a.yaml": text}) == jobset_of(tmp_path / "plain", {"a.yaml": plain})


def test_multiple_documents_in_one_file(tmp_path):
    (tmp_path / "a.yaml").write_text(TRAINJOB + "---\n" + TRAINJOB.replace("name: demo", "name: other"))
    assert [o["metadata"]["name"] for o in build([str(tmp_path / "a.yaml")]).documents()] == ["demo", "other"]


def test_huge_node_count_compiles_without_listing_pods(tmp_path):
    """Endpoints are generated lazily: only an MPI hostfile lists them."""
    (tmp_path / "a.yaml").write_text(TRAINJOB.replace("numNodes: 2", "numNodes: 2147483647"))
    started = time.perf_counter()
    job = next(o for o in build([str(tmp_path / "a.yaml")]).documents() if o["kind"] == "JobSet")
    assert job["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2**31 - 1
    assert time.perf_counter() - started < 30  # listing 2**31 pods would take hours, not a busy machine's seconds


def _run(args, **kwargs):
    return subprocess.run([sys.executable, "-m", "trainc", *args], capture_output=True, text=True, timeout=60, **kwargs)


def test_deep_json_behind_a_run_of_escaped_quotes_is_refused_at_once(tmp_path):
    """Nesting past the limit is found by a scan that reads each character a bounded number of times: behind a
    megabyte of escaped quotes (each of which a scan trying every quote as a string's start read to the end again:
    hours), the level past the limit is refused where it opens."""
    text = '{"a": "' + '\\"' * 500_000 + " " + "[" * 1001
    (tmp_path / "a.json").write_text(text)
    result = _run(["build", str(tmp_path / "a.json")])
    assert result.returncode == 1 and result.stdout == ""
    column = len(text) - 1  # the last bracket but one: the outer object is the first level
    assert result.stderr.strip() == f"{tmp_path / 'a.json'}:1:{column}: invalid JSON: nested deeper than 1000 levels"


@pytest.mark.parametrize("command", [["build", "-"], ["fn"], ["status"]])
def test_closed_stdin_is_an_input_error(command):
    """`trainc build - <&-`: Python starts with sys.stdin None, which raised AttributeError."""
    result = subprocess.run(
        ["sh", "-c", '"$0" -m trainc "$@" <&-', sys.executable, *command], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "<stdin>:1:1: cannot read: stdin is closed\n")


def test_a_fifo_given_by_path_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "jobs.yaml")
    result = _run(["build", "jobs.yaml"], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert (
        result.stderr
        == "jobs.yaml:1:1: cannot read: not a regular file (a pipe or device: pass its text on stdin, as -)\n"
    )


def test_a_file_reached_twice_is_read_once(tmp_path, monkeypatch):
    """`trainc build jd jd/a.yaml` reported the TrainJob as defined twice."""
    result = invoke(tmp_path, monkeypatch, {"jd/a.yaml": TRAINJOB}, "build", "jd", "jd/a.yaml", "./jd/../jd")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("kind: JobSet") == 1


def test_a_file_reached_through_a_link_is_read_once(tmp_path, monkeypatch):
    """A symlink or hard link to a file is the same file (device and inode), in a directory or given by path;
    the first place it is reached names it."""
    (tmp_path / "jd").mkdir()
    (tmp_path / "jd" / "a.yaml").write_text(TRAINJOB)
    os.link(tmp_path / "jd" / "a.yaml", tmp_path / "jd" / "b.yaml")
    (tmp_path / "c.yaml").symlink_to(tmp_path / "jd" / "a.yaml")
    result = invoke(tmp_path, monkeypatch, {}, "build", "c.yaml", "jd")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("kind: JobSet") == 1
    assert inputs.listed([str(tmp_path / "c.yaml"), str(tmp_path / "jd")]) == [str(tmp_path / "c.yaml")]


def test_the_input_bound_comes_from_the_environment_too(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINC_MAX_INPUT_BYTES", "99")
    for args in (["status"], ["fn"], ["build", "-"]):
        result = invoke(tmp_path, monkeypatch, {}, *args, stdin="x" * 100)
        assert_error(
            result,
            "<stdin>:1:1: the inputs of this run exceed 99 bytes (raise the limit with "
            "--max-input-bytes or TRAINC_MAX_INPUT_BYTES)",
        )


@pytest.mark.parametrize(
    "seed, problem",
    [
        ("/dev/urandom", "cannot be read: not a regular file"),
        ("seed.fifo", "cannot be read: not a regular file"),
        ("big.seed", "cannot be used: seed is over 65536 bytes: not a seed file"),
    ],
)
def test_the_seed_file_is_read_bounded_and_never_waited_on(tmp_path, monkeypatch, seed, problem):
    """`--ssh-key-seed /dev/urandom` read until memory ran out; a FIFO seed blocked."""
    (tmp_path / "big.seed").write_bytes(b"s" * 70_000)
    os.mkfifo(tmp_path / "seed.fifo")
    result = invoke(
        tmp_path,
        monkeypatch,
        {"a.yaml": TRAINJOB.replace("torch-distributed", "deepspeed-distributed")},
        "build",
        "--ssh-key-seed",
        seed,
        "a.yaml",
    )
    assert_error(
        result,
        f"a.yaml:1:1: default/demo: MPI SSH keys need the seed, and {seed} (from --ssh-key-seed) "
        f"{problem} (see docs/guides/mpi.md)",
    )


def test_scalar_tags_on_collections_in_fn_and_the_python_api():
    import trainc
    from trainc.commands import fn as krm

    _, _, errors = krm.run("kind: ResourceList\nitems:\n- !!int [1]\n", None)
    assert errors == ["<stdin>:3:3: invalid YAML: cannot read a sequence as !!int"]
    with pytest.raises(TraincError) as error:
        trainc.from_objects(["a: !!bool {b: 1}\n"])
    assert error.value.render() == "<object 0>:1:4: invalid YAML: cannot read a mapping as !!bool"


def test_text_with_a_lone_surrogate_in_the_python_api():
    """A str no encoding can write (found by the fuzzer): libyaml raised UnicodeEncodeError."""
    import trainc

    with pytest.raises(TraincError) as error:
        trainc.from_objects(["a: \ud83d\n"])
    assert error.value.render() == "<object 0>:1:1: not UTF-8 text (a lone surrogate)"


def test_stdin_has_one_name_in_every_message(tmp_path, monkeypatch):
    """`-` in build's messages, `<stdin>` in fn's and status's: now `<stdin>` everywhere."""
    result = invoke(tmp_path, monkeypatch, {}, "build", "-", stdin="")
    assert result.exit_code == 1 and result.stderr.startswith("Error: no documents in <stdin>: ")
    for args in (["build", "-"], ["status"], ["fn"]):
        assert invoke(tmp_path, monkeypatch, {}, *args, stdin="a: [").stderr.startswith("<stdin>:2:1: invalid YAML")


def test_a_large_input_bound_allocates_nothing_up_front(tmp_path, monkeypatch):
    """One read of the whole limit allocated it: --max-input-bytes 10**12 raised MemoryError."""
    result = invoke(tmp_path, monkeypatch, {"a.yaml": TRAINJOB}, "build", "--max-input-bytes", str(10**12), "a.yaml")
    assert result.exit_code == 0 and "kind: JobSet" in result.stdout, result.stderr


def test_the_project_config_is_read_within_the_input_bound(tmp_path, monkeypatch):
    """The bound is the run's Options' (no module global): the config the settings come from is read within it."""
    config = "namespace: team-a\n" + "#" * 200 + "\n"
    result = invoke(
        tmp_path,
        monkeypatch,
        {".trainc.yaml": config, "a.yaml": TRAINJOB},
        "build",
        "--max-input-bytes",
        "100",
        "a.yaml",
    )
    assert result.exit_code == 1 and result.stderr.endswith(
        "/.trainc.yaml:1:1: the inputs of this run exceed 100 bytes (raise the limit with --max-input-bytes or "
        "TRAINC_MAX_INPUT_BYTES)\n"
    ), result.stderr
    assert invoke(tmp_path, monkeypatch, {}, "build", "a.yaml").exit_code == 0


def test_the_input_bound_holds_for_its_command_only(tmp_path, monkeypatch):
    assert (
        invoke(tmp_path, monkeypatch, {"a.yaml": TRAINJOB}, "build", "--max-input-bytes", "10", "a.yaml").exit_code == 1
    )
    assert any(o["kind"] == "JobSet" for o in build([str(tmp_path / "a.yaml")]).documents())


def test_fn_passes_json_items_with_surrogate_escapes_on_as_yaml_reads_them():
    """JSON's surrogate escapes (a pair for 💥, a lone one) are errors in YAML: the item's text, composed as YAML for
    its positions, raised ScannerError, then came out as YAML text libyaml cannot read (found by the fuzzer)."""
    from trainc.commands import fn as krm

    text = (
        '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": '
        '"ConfigMap", "metadata": {"name": "x"}, "data": {"a": "\\ud83d\\udca5", "b": "\\ud83d", "c": "\\\\ud83d"}}]}'
    )
    output, _, errors = krm.run(text)
    assert errors == []
    assert yaml.load(output, Loader=yaml.CSafeLoader)["items"][0]["data"] == {"a": "💥", "b": "\ufffd", "c": "\\ud83d"}


def test_fn_takes_a_resource_list_beside_empty_documents():
    """`---` alone before or after the ResourceList (found by the fuzzer): its items' text was composed as one
    document, a ComposerError traceback."""
    from trainc.commands import fn as krm

    output, _, errors = krm.run(
        "---\n---\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n---\n"
    )
    assert errors == []
    assert yaml.load(output, Loader=yaml.CSafeLoader)["items"] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "default", "name": "x"}}
    ]


@pytest.mark.parametrize("unreadable", ["folder", "file"])
def test_unreadable_bundled_runtimes_are_an_error(tmp_path, monkeypatch, unreadable):
    """A checkout in another user's private home: the bundled runtimes were a PermissionError traceback."""
    from trainc import shipped as data
    from trainc.trainer import catalog

    shipped = tmp_path / "shipped"
    (shipped / "runtimes").mkdir(parents=True)
    (shipped / "runtimes" / "torch-distributed.yaml").write_text(
        (Path(data.data_dir("runtimes")) / "torch-distributed.yaml").read_text()
    )
    # relative to the test's directory: `nobody` may not pass through /tmp/pytest-of-root
    monkeypatch.setattr(data, "data_dir", lambda name: f"shipped/{name}")
    catalog._bundled_names.cache_clear()
    catalog._bundled_runtime.cache_clear()
    invoke(tmp_path, monkeypatch, {"d/a.yaml": TRAINJOB}, "version")
    locked = shipped / "runtimes" / ("" if unreadable == "folder" else "torch-distributed.yaml")
    locked.chmod(0)
    try:
        with unprivileged(tmp_path):
            result = CliRunner().invoke(cli, ["build", "d"])
    finally:
        locked.chmod(0o755)
        for cached in (catalog._bundled_names, catalog._bundled_runtime):
            cached.cache_clear()
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 1 and result.stdout == ""
    if unreadable == "folder":
        assert "shipped/runtimes:1:1: cannot read the bundled runtimes: Permission denied" in result.stderr
    else:
        assert result.stderr == (
            "shipped/runtimes/torch-distributed.yaml:1:1: cannot read the bundled runtime: Permission denied\n"
        )

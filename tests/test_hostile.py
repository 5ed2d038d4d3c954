"""Hostile and malformed input: `trainc build|validate|status` succeed or print `file:line:col: field.path:
message` lines and exit 1 — never a traceback, partial stdout, a hang or a silently wrong manifest.

One case per bug class the fuzzing of every golden input and bundled runtime found (each fixed where
the logic lives), the YAML features Kubernetes inputs meet, and a bounded seeded mutation run.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest
import yaml
from click.testing import CliRunner

from conftest import GOLDEN, GOLDEN_SEED
from trainc.build import build
from trainc.cli import cli
from trainc.errors import TraincError

LINE = re.compile(r"^(warning: )?[^\n]+?:\d+:\d+: [^\n]+$")

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
    ("control-character", {"a.yaml": TRAINJOB.replace("name: demo", "name: de\x0cmo")}, (),
     ["a.yaml:4:11: invalid YAML: unacceptable character #x000c: control characters are not allowed"]),
    ("control-character-after-multibyte", {"a.yaml": "# ü\n" + TRAINJOB.replace("numNodes: 2", "numNodes: \x1b2")}, (),
     ["a.yaml:10:15: invalid YAML: unacceptable character #x001b: control characters are not allowed"]),
    ("not-utf8", {"a.yaml": TRAINJOB.encode() + b"\xff"}, (), ["a.yaml:1:1: not UTF-8 text"]),
    # Aliases were shared objects: defaults of one place leaked into another, bombs and cycles reached the walker.
    ("alias-bomb", {"a.yaml": TRAINJOB.replace("numNodes: 2", f"numNodes: {bomb()}")}, (),
     ["a.yaml:9:213: invalid YAML: aliases expand this node to more than 200000 nodes (an alias bomb?)"]),
    ("alias-bomb-in-kind", {"a.yaml": TRAINJOB.replace("kind: TrainJob", f"kind: {bomb()}")}, (),
     ["a.yaml:2:205: invalid YAML: aliases expand this node to more than 200000 nodes (an alias bomb?)"]),
    ("recursive-alias", {"a.yaml": TRAINJOB.replace("metadata:\n  name: demo", "metadata: &m\n  name: demo\n  x: *m")},
     (), ["a.yaml:5:3: invalid YAML: recursive alias: a node cannot contain itself"]),
    ("shared-alias-is-a-copy", {"a.yaml": TRAINJOB.replace(
        "  runtimeRef:\n", "  runtimeRef: &r\n").replace("numNodes: 2", "resourcesPerNode: *r\n    numNodes: 2")},
     (), ["a.yaml:7:5: spec.trainer.resourcesPerNode.name: unknown field"]),
    # Tags that make no JSON value, and explicit tags on text that is none.
    ("tag-binary", {"a.yaml": TRAINJOB.replace("name: demo", "name: !!binary ZGVtbw==")}, (),
     ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:binary'"]),
    ("tag-timestamp", {"a.yaml": TRAINJOB.replace("name: demo", "name: !!timestamp 2001-12-14")}, (),
     ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:timestamp'"]),
    ("tag-set", {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!set {a, b}")}, (),
     ["a.yaml:9:15: invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:set'"]),
    ("tag-python-object", {"a.yaml": TRAINJOB.replace("name: demo", "name: !!python/object/apply:os.getpid []")}, (),
     ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag "
      "'tag:yaml.org,2002:python/object/apply:os.getpid'"]),
    ("tag-custom", {"a.yaml": TRAINJOB.replace("name: demo", "name: !custom demo")}, (),
     ["a.yaml:4:9: invalid YAML: could not determine a constructor for the tag '!custom'"]),
    ("tag-int-on-text", {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: !!int two")}, (),
     ["a.yaml:9:15: invalid YAML: cannot read 'two' as !!int"]),
    ("tag-float-on-text", {"a.yaml": TRAINJOB.replace("numNodes: 2", 'numNodes: !!float "1\\nx"')}, (),
     ["a.yaml:9:15: invalid YAML: cannot read '1\\nx' as !!float"]),
    # Documents the typed models could not hold: refused by the schema, never a model's error or a KeyError.
    ("no-spec", {"a.yaml": TRAINJOB.split("spec:")[0]}, (), ["a.yaml:1:1: spec: required field is missing"]),
    ("no-metadata", {"a.yaml": TRAINJOB.replace("metadata:\n  name: demo\n", "")}, (),
     ["a.yaml:1:1: metadata: required field is missing"]),
    ("runtime-no-metadata", {"a.yaml": runtime().replace("metadata:\n  name: mine\n", "", 1)}, (),
     ["a.yaml:1:1: metadata: required field is missing"]),
    ("runtime-no-template", {"a.yaml": "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
                                       "metadata: {name: x}\nspec: {mlPolicy: {}}\n"}, (),
     ["a.yaml:4:7: spec.template: required field is missing"]),
    ("job-template-without-spec", {"a.yaml": runtime().replace(
        "            spec:\n              template:\n                spec:\n                  containers:\n"
        "                    - name: node\n                      image: python:3.12\n", "")}, (),
     ["a.yaml:11:13: spec.template.spec.replicatedJobs[0].template.spec: required field is missing"]),
    ("pod-template-without-spec", {"a.yaml": runtime().replace(
        "              template:\n                spec:\n                  containers:\n"
        "                    - name: node\n                      image: python:3.12\n",
        "              template: {}\n")}, (),
     ["a.yaml:15:25: spec.template.spec.replicatedJobs[0].template.spec.template.spec: required field is missing"]),
    ("kind-not-a-string", {"a.yaml": TRAINJOB.replace("kind: TrainJob", "kind: [TrainJob]")}, (),
     ["a.yaml:2:7: kind: must be a string: expected TrainJob, TrainingRuntime or ClusterTrainingRuntime"]),
    ("kep-policy-not-a-map", {"a.yaml": "apiVersion: trainer.kubeflow.org/v2alpha1\nkind: ClusterTrainingRuntime\n"
                                        "metadata: {name: x}\nspec: {mlPolicy: oops, template: {spec: {}}}\n"}, (),
     ["a.yaml:4:18: spec.mlPolicy: must be an object, not string"]),
    # CEL rules ran on values of the wrong type (AttributeError); the API server skips them (hasBlockingErr).
    ("cel-after-type-error", {"a.yaml": runtime(jobset="      volumeClaimPolicies: [{templates: [5]}]\n")}, (),
     ["a.yaml:8:42: spec.template.spec.volumeClaimPolicies[0].templates[0]: must be an object, not integer"]),
    # Python's `$` matches before a final newline; RE2's (CRD patterns, CEL) does not.
    ("pattern-trailing-newline", {"a.yaml": TRAINJOB.replace("name: demo", 'name: "demo\\n"\n  namespace: "ns\\n"')},
     (), ["a.yaml:4:9: metadata.name: metadata.name must match RFC 1035 DNS label format",
          'a.yaml:5:14: metadata.namespace: "ns\\n" must match the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$']),
    # Messages with line breaks or escape sequences broke the one-error-per-line output.
    ("unknown-key-with-newline", {"a.yaml": TRAINJOB.replace("numNodes: 2", '"num\\nNodes\\u001b[2J": 2')}, (),
     ["a.yaml:9:5: spec.trainer[num\\nNodes\\x1b[2J]: unknown field"]),
    # Invalid -n went into the manifests unchecked.
    ("invalid-default-namespace", {"a.yaml": TRAINJOB}, ("build", "-n", "Team A", "a.yaml"),
     ['a.yaml:4:3: metadata.namespace: none set, and the default namespace (-n) is invalid: '
      '"Team A" must match the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$']),
    # Exact arithmetic on 1e999999999 never finished; Kubernetes reads quantities as int64.
    ("quantity-beyond-int64", {"a.yaml": TRAINJOB + "    resourcesPerNode: {requests: {cpu: 1e999999999}}\n"}, (),
     ['a.yaml:10:40: spec.trainer.resourcesPerNode.requests.cpu: quantity "1e999999999" is outside the int64 range '
      "Kubernetes reads quantities in (Go's Quantity.Value())"]),
    # Every pod endpoint was materialized: numNodes 2147483647 never finished.
    ("mpi-hostfile-too-large", {"a.yaml": TRAINJOB.replace("torch-distributed", "deepspeed-distributed").replace(
        "numNodes: 2", "numNodes: 2147483647")}, (),
     ["a.yaml:9:15: spec.trainer.numNodes: too many MPI hosts: the hostfile would not fit in a ConfigMap "
      "(1048576 bytes at most)"]),
    # ObjectMeta that ends up on emitted objects was not checked (only the document's own labels were).
    ("invalid-labels-and-annotations", {"a.yaml": runtime().replace(
        "  name: mine\n", '  name: mine\n  annotations: {"bad key!": x}\n', 1).replace(
        "  template:\n    spec:\n", '  template:\n    metadata:\n      labels: {"k8s🚂.io/q": v}\n    spec:\n')}, (),
     ["a.yaml:5:17: metadata.annotations[bad key!]: invalid annotation key",
      "a.yaml:9:16: spec.template.metadata.labels[k8s🚂.io/q]: invalid label key"]),
    ("patch-label-value", {"a.yaml": TRAINJOB + "  runtimePatches:\n    - manager: a.io/b\n      trainingRuntimeSpec:\n"
                                                "        template:\n          metadata:\n"
                                                '            labels: {team: "a b"}\n'}, (),
     ["a.yaml:15:28: spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.labels.team: "
      "invalid label value 'a b'"]),
    # Gang PodGroups the scheduler CRDs refuse.
    ("coscheduling-without-pods", {"a.yaml": "apiVersion: trainer.kubeflow.org/v1alpha1\n"
                                             "kind: ClusterTrainingRuntime\nmetadata: {name: mine}\nspec:\n"
                                             "  podGroupPolicy: {coscheduling: {}}\n"
                                             "  template: {spec: {replicatedJobs: []}}\n---\n"
                                             + runtime().split("---\n")[1]}, (),
     ["a.yaml:6:37: spec.template.spec.replicatedJobs: coscheduling needs at least one pod: a PodGroup's "
      "minMember must be at least 1"]),
    ("volcano-queue-name", {"a.yaml": runtime(policy="  podGroupPolicy:\n    volcano:\n      networkTopology: "
                                                     "{highestTierAllowed: -1}\n").replace(
        "  template:\n    spec:\n", "  template:\n    metadata:\n      annotations:\n"
                                  "        scheduling.volcano.sh/queue-name: Team_Queue\n    spec:\n", 1)}, (),
     ["a.yaml:8:45: spec.podGroupPolicy.volcano.networkTopology.highestTierAllowed: must be greater than or equal to "
      "0 (the PodGroup's minimum)",
      "a.yaml:33:5: spec.annotations[scheduling.volcano.sh/queue-name]: Volcano queue name 'Team_Queue' must be a "
      "lowercase RFC 1123 subdomain (a PodGroup's spec.queue)"]),
    # JobSets the JobSet webhook refuses were emitted.
    ("jobset-pod-name-too-long", {"a.yaml": TRAINJOB.replace("name: demo", "name: " + "a" * 50)}, (),
     ["a.yaml:4:9: metadata.name: the JobSet webhook refuses replicated job 'node': Pod name '" + "a" * 50
      + "-node-0-1-abcde': JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"]),
    ("jobset-job-name-format", {"a.yaml": runtime(job_name="Node")}, (),
     ["a.yaml:9:17: spec.template.spec.replicatedJobs[0].name: the JobSet webhook refuses replicated job 'Node': "
      "Job name 'demo-Node-0': a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
      "with an alphabetic character, and end with an alphanumeric character"]),
    ("jobset-depends-on-later-job", {"a.yaml": runtime(job="          dependsOn: [{name: later, status: Ready}]\n")},
     (), ["a.yaml:10:22: spec.template.spec.replicatedJobs[0].dependsOn: the JobSet webhook refuses replicated job "
          "'node' depending on 'later': only on an earlier replicated job"]),
    ("jobset-failure-policy", {"a.yaml": runtime(jobset=(
        "      failurePolicy:\n        rules:\n"
        "          - {name: '', action: FailJobSet, targetReplicatedJobs: [nodes]}\n"
        "          - {name: failurePolicyRule0, action: FailJobSet, onJobFailureReasons: [OOMKilled]}\n"
        "          - {name: 1st, action: FailJobSet}\n"))}, (),
     ["a.yaml:10:11: spec.template.spec.failurePolicy.rules: the JobSet webhook refuses rules [0, 1] all named "
      "'failurePolicyRule0': rule names must be unique",
      "a.yaml:10:66: spec.template.spec.failurePolicy.rules[0].targetReplicatedJobs: the JobSet webhook refuses "
      "'nodes': no such replicated job",
      "a.yaml:11:81: spec.template.spec.failurePolicy.rules[1].onJobFailureReasons: the JobSet webhook refuses the "
      "job failure reason 'OOMKilled': not one of BackoffLimitExceeded, DeadlineExceeded, FailedIndexes, "
      "MaxFailedIndexesExceeded, PodFailurePolicy",
      "a.yaml:12:20: spec.template.spec.failurePolicy.rules[2].name: the JobSet webhook refuses the failure policy "
      "rule name '1st': at most 128 characters, a letter, then letters, digits or '_,:', ending with a letter, "
      "digit or '_'"]),
    ("jobset-too-many-pods-in-a-runtime-job", {"a.yaml": runtime().replace("      replicatedJobs:\n", (
        "      replicatedJobs:\n        - name: side\n          replicas: 1073741824\n"
        "          template: {spec: {parallelism: 4, template: {spec: {containers: [{name: s, image: s}]}}}}\n"))}, (),
     ["a.yaml:10:21: spec.template.spec.replicatedJobs[0].replicas: the JobSet webhook refuses replicated job 'side': "
      "the product of replicas and parallelism must not exceed 2147483647"]),
    ("jobset-managed-by-and-gated-features", {"a.yaml": runtime(jobset=(
        "      managedBy: not-a-path\n"
        "      failurePolicy:\n        restartStrategy: InPlaceRestart\n"
        "        rules:\n          - {name: again, action: RestartJob}\n"))}, (),
     ["a.yaml:8:18: spec.template.spec.managedBy: the JobSet webhook refuses managedBy 'not-a-path': must be a "
      "domain-prefixed path (such as \"acme.io/foo\")",
      "a.yaml:10:26: spec.template.spec.failurePolicy.restartStrategy: the JobSet webhook refuses restartStrategy "
      "'InPlaceRestart': InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
      "a.yaml:12:35: spec.template.spec.failurePolicy.rules[0].action: the JobSet webhook refuses action 'RestartJob': "
      "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature "
      "gate is disabled"]),
    ("jobset-coordinator", {"a.yaml": runtime(jobset=(
        "      coordinator: {replicatedJob: node, podIndex: 1}\n"))}, (),
     ["a.yaml:8:52: spec.template.spec.coordinator.podIndex: the JobSet webhook refuses the coordinator: coordinator "
      "pod index 1 is invalid for replicatedJob node job index 0"]),
    ("jobset-coordinator-missing-job", {"a.yaml": runtime(jobset=(
        "      coordinator: {replicatedJob: nodes}\n"))}, (),
     ["a.yaml:8:36: spec.template.spec.coordinator.replicatedJob: the JobSet webhook refuses the coordinator: "
      "coordinator replicatedJob nodes does not exist"]),
    ("jobset-coordinator-label-too-long", {"a.yaml": runtime(
        name="a" * 40, trainer="  trainer: {numNodes: 1}\n", jobset="      coordinator: {replicatedJob: node}\n")}, (),
     ["a.yaml:25:9: metadata.name: the JobSet webhook refuses the coordinator: spec will lead to invalid label value '"
      + "a" * 40 + "-node-0-0." + "a" * 40 + "' for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long JobSet "
      "/ ReplicatedJob / SubDomain name?): must be no more than 63 characters and start and end with an alphanumeric "
      "character"]),
    ("jobset-volume-claim-policies", {"a.yaml": runtime(jobset=(
        "      volumeClaimPolicies:\n        - templates:\n"
        "            - {metadata: {name: scratch}, spec: {accessModes: [ReadWriteOnce]}}\n"
        "            - {metadata: {name: scratch}, spec: {accessModes: [ReadWriteOnce]}}\n"))}, (),
     ["a.yaml:10:33: spec.template.spec.volumeClaimPolicies[0].templates[0].metadata.name: the JobSet webhook refuses "
      "volume claim template 'scratch': replicatedJob containers don't have a matching volumeMount: scratch from "
      "VolumeClaimPolicies",
      "a.yaml:11:33: spec.template.spec.volumeClaimPolicies[0].templates[1].metadata.name: the JobSet webhook refuses "
      "volume claim template 'scratch': names must be unique for VolumeClaimPolicies template",
      "a.yaml:11:33: spec.template.spec.volumeClaimPolicies[0].templates[1].metadata.name: the JobSet webhook refuses "
      "volume claim template 'scratch': replicatedJob containers don't have a matching volumeMount: scratch from "
      "VolumeClaimPolicies"]),
    # A document meant for Trainer that is not read as one would silently render nothing (and a GitOps sync prune
    # its JobSet); kubectl refuses these too. Documents of other API groups stay ignored.
    ("no-api-version", {"a.yaml": TRAINJOB.replace("apiVersion: trainer.kubeflow.org/v1alpha1\n", "")}, (),
     ["a.yaml:1:1: apiVersion: required field is missing: expected trainer.kubeflow.org/v1alpha1 (or the KEP's "
      "/v2alpha1)"]),
    ("api-version-number", {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org/v1alpha1", "5")}, (),
     ["a.yaml:1:13: apiVersion: must be a string: expected trainer.kubeflow.org/v1alpha1 (or the KEP's /v2alpha1)"]),
    ("api-version-without-version", {"a.yaml": TRAINJOB.replace("/v1alpha1", "")}, (),
     ["a.yaml:1:13: apiVersion: 'trainer.kubeflow.org' has no version: expected trainer.kubeflow.org/v1alpha1 (or "
      "the KEP's /v2alpha1)"]),
    ("api-group-upper-case", {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org", "Trainer.Kubeflow.org")}, (),
     ["a.yaml:1:13: apiVersion: API groups are lower case: expected trainer.kubeflow.org/v1alpha1 (or the KEP's "
      "/v2alpha1)"]),
    ("other-group-ignored", {"a.yaml": TRAINJOB.replace("trainer.kubeflow.org/v1alpha1", "example.com/v1")},
     ("build", "--trainer-only", "a.yaml"), []),
    ("number-key-located-by-its-json-key", {"a.yaml": TRAINJOB.replace("  name: demo\n", (
        "  name: demo\n  annotations:\n    ok: fine\n    0x10: 5\n"))}, (),
     ["a.yaml:7:11: metadata.annotations[16]: must be a string, not integer"]),
    # The output directory could not be written: a traceback.
    ("output-dir-not-writable", {"a.yaml": TRAINJOB, "out": "a file"}, ("build", "--output-dir", "out/x", "a.yaml"),
     ["Error: cannot create out/x: Not a directory"]),
    # The YAML features a Kubernetes input may hold.
    ("empty-document-and-only-separators", {"a.yaml": "", "b.yaml": "---\n", "c.yaml": "---\n---\n...\n"},
     ("build", "--allow-empty", "a.yaml", "b.yaml", "c.yaml"), []),
    ("top-level-list", {"a.yaml": "- " + TRAINJOB.replace("\n", "\n  ")}, (),
     ["a.yaml:1:1: a Kubernetes object must be a mapping"]),
    ("top-level-scalar", {"a.yaml": "42\n---\n" + TRAINJOB}, (), ["a.yaml:1:1: a Kubernetes object must be a mapping"]),
    ("duplicate-key", {"a.yaml": TRAINJOB.replace("numNodes: 2", "numNodes: 2\n    numNodes: 3")}, (),
     ['a.yaml:10:5: invalid YAML: duplicate key "numNodes"']),
    # Keys go-yaml v2 reads as numbers or booleans become their text, as sigs.k8s.io/yaml makes them for JSON;
    # a null or a collection is no JSON key at all.
    ("number-key-as-text", {"a.yaml": TRAINJOB.replace("numNodes: 2", "1: 2")}, (),
     ["a.yaml:9:5: spec.trainer[1]: unknown field"]),
    ("boolean-key-as-text", {"a.yaml": TRAINJOB.replace("numNodes: 2", "on: 2")}, (),
     ["a.yaml:9:5: spec.trainer.true: unknown field"]),
    ("null-key", {"a.yaml": TRAINJOB.replace("numNodes: 2", "~: 2")}, (),
     ["a.yaml:9:5: invalid YAML: mapping keys must be strings"]),
    ("list-key", {"a.yaml": TRAINJOB.replace("numNodes: 2", "? [a]\n    : 2")}, (),
     ["a.yaml:9:7: invalid YAML: mapping keys must be strings"]),
    ("tab-indentation", {"a.yaml": TRAINJOB.replace("    numNodes", "\tnumNodes")}, (),
     ["a.yaml:9:1: invalid YAML: found character that cannot start any token (while scanning for the next token)"]),
    ("bom-inside", {"a.yaml": TRAINJOB.replace("spec:", "\ufeffspec:")}, (),
     ["a.yaml:5:2: invalid YAML: did not find expected key (while parsing a block mapping at line 1, column 1)"]),
    ("deep-json", {"a.json": '{"a": ' + "[" * 5000 + "]" * 5000 + "}"}, ("build", "a.json"),
     ["a.json:1:1006: invalid JSON: nested deeper than 1000 levels"]),
    # 1000 levels decode on every Python (3.11 and 3.13 differ in how deep their own limits let JSON go).
    ("json-at-depth-limit", {"a.json": '{"a": ' + "[" * 998 + "]" * 998 + ', "b": "[[["}'}, ("build", "--trainer-only", "a.json"), []),
    ("yaml-too-deep", {"a.yaml": "a: " + "[" * 1000 + "]" * 1000}, ("build", "a.yaml"),
     ["a.yaml:1:1003: invalid YAML: exceeded maximum nesting depth (while increasing flow level)"]),
    # The same verdict and position with any libyaml (0.2.5 refuses no nesting) or none (`yamlshape.py`).
    ("yaml-at-depth-limit", {"a.yaml": "a: " + "[" * 999 + "]" * 999}, ("build", "--trainer-only", "a.yaml"), []),
    ("yaml-blocks-too-deep", {"a.yaml": "".join(" " * i + "a:\n" for i in range(1000))}, ("build", "a.yaml"),
     ["a.yaml:1000:1001: invalid YAML: exceeded maximum nesting depth (while increasing block level)"]),
    ("yaml-blocks-at-depth-limit", {"a.yaml": "".join(" " * i + "a:\n" for i in range(999))},
     ("build", "--trainer-only", "a.yaml"), []),
    ("yaml-tagged-too-deep", {"a.yaml": "c: ! 010\na: " + "[" * 1000 + "]" * 1000}, ("build", "a.yaml"),
     ["a.yaml:2:1003: invalid YAML: exceeded maximum nesting depth (while increasing flow level)"]),
    # one flow level, two data levels: libyaml accepts 600 flow levels, but not 1200 data levels
    ("yaml-pairs-too-deep", {"a.yaml": "a: 1\n---\nb: " + "[b: " * 600 + "x" + "]" * 600 + "\n---\nc: {\n"},
     ("build", "a.yaml"), ["a.yaml:3:2001: invalid YAML: nested deeper than 1000 levels"]),
    ("yaml-aliases-too-deep", {"a.yaml": "a: &x " + "[" * 600 + "]" * 600 + "\nb: " + "[" * 600 + "*x" + "]" * 600},
     ("build", "a.yaml"), ["a.yaml:1:406: invalid YAML: nested deeper than 1000 levels"]),
    ("status-bomb", {"js.yaml": "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + bomb()},
     ("status", "js.yaml"),
     ["js.yaml:4:207: invalid YAML: aliases expand this node to more than 200000 nodes (an alias bomb?)"]),
]


@pytest.mark.parametrize("case, files, args, lines", ERRORS, ids=[case[0] for case in ERRORS])
def test_error(tmp_path, monkeypatch, case, files, args, lines):
    result = invoke(tmp_path, monkeypatch, files, *(args or ("build", *sorted(files))))
    if not lines:
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    else:
        assert_error(result, *lines)


def test_validate_reports_like_build(tmp_path, monkeypatch):
    result = invoke(tmp_path, monkeypatch, {"a.yaml": TRAINJOB.replace("name: demo", "name: " + "a" * 50)},
                    "validate", "a.yaml")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "invalid: 1 error"
    assert result.stderr.startswith("a.yaml:4:9: metadata.name: the JobSet webhook refuses")


@pytest.mark.parametrize("command", ["build", "validate", "status"])
def test_stdin_that_is_not_utf8(tmp_path, monkeypatch, command):
    """sys.stdin.read() raised UnicodeDecodeError (or, under surrogateescape, libyaml an encode error)."""
    result = invoke(tmp_path, monkeypatch, {}, command, "-", stdin=b"kind: \xff\n")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[0] == "-:1:1: not UTF-8 text"


def test_unreadable_file_is_an_input_error(tmp_path, monkeypatch):
    """Reported by trainc's reader, exit 1, as inside a directory (click used to refuse it with exit 2)."""
    real_open = open

    def deny(path, *args, **kwargs):
        if str(path).endswith("secret.yaml"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", deny)
    result = invoke(tmp_path, monkeypatch, {"d/secret.yaml": TRAINJOB}, "build", "d/secret.yaml")
    assert_error(result, "d/secret.yaml:1:1: cannot read: Permission denied")


def test_directory_symlink_loop_and_dangling_links(tmp_path, monkeypatch):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.yaml").write_text(TRAINJOB)
    (tmp_path / "in" / "loop").symlink_to(tmp_path / "in", target_is_directory=True)
    (tmp_path / "in" / "self.yaml").symlink_to(tmp_path / "in" / "self.yaml")
    result = invoke(tmp_path, monkeypatch, {}, "build", "in")
    assert result.exit_code == 0 and result.stdout.count("kind: JobSet") == 1, result.stderr
    assert_error(invoke(tmp_path, monkeypatch, {}, "build", "in/self.yaml"),
                 "in/self.yaml:1:1: cannot read: Too many levels of symbolic links")


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
    ("flow-style", "---\n{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: demo}, "
                   "spec: {runtimeRef: {name: torch-distributed}, trainer: {numNodes: 2}}}\n", TRAINJOB),
    ("json", json.dumps(yaml.safe_load(TRAINJOB)), TRAINJOB),
    ("anchor-and-alias", LABELED.replace("{a: x, b: x}", "{a: &v x, b: *v}"), LABELED),
    ("merge-key", LABELED.replace("{a: x, b: x}", "{<<: {a: x}, b: x}"), LABELED),
    ("explicit-json-tags", TRAINJOB.replace("numNodes: 2", 'numNodes: !!int "2"').replace(
        "name: demo", "name: !!str demo"), TRAINJOB),
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
    assert time.perf_counter() - started < 2


# ---------------------------------------------------------------------------------------------------------------
# Bounded seeded mutation: structural changes to golden inputs must give TraincError lines, never an exception.

POOL = ["", "x", "node", "💥", "a\nb", "\x1b[31m", 0, -1, 2**31, 2**70, 1.5, True, None, [], {}, [None], [1, "a"],
        {"name": None}, {"a": {"b": []}}, "1e999999999", "Node", "-", "auto", "trainer"]
TEXT_EDITS = [
    lambda text: text.replace("\n", "\r\n"),
    lambda text: "\ufeff" + text,
    lambda text: text.replace(": ", ": &a ", 1) + "\nextra: *a\n",
    lambda text: text[: len(text) // 2],
    lambda text: text + "\n---\n- 1\n",
    lambda text: text.replace("  ", "\t", 1),
    lambda text: text.replace("name: ", "name: !!binary ", 1),
    lambda text: text.replace(":", ": [", 1),
]


def _paths(node, prefix=()):
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield from _paths(value, prefix + (key,))


def _mutate(rng: random.Random, text: str) -> str:
    if rng.random() < 0.25:
        return rng.choice(TEXT_EDITS)(text)
    documents = list(yaml.safe_load_all(text))
    document = rng.choice([d for d in documents if isinstance(d, dict)])
    for _ in range(rng.randint(1, 3)):
        path = rng.choice([p for p in _paths(document) if p])
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        action = rng.random()
        if action < 0.3 and isinstance(parent, dict):
            del parent[path[-1]]
        elif action < 0.4 and isinstance(parent, dict):
            parent[rng.choice(["unknown", "$patch", "name", "<<"])] = rng.choice(POOL)
        else:
            parent[path[-1]] = rng.choice(POOL)
    return yaml.safe_dump_all(documents, allow_unicode=True)


def test_seeded_mutations_raise_only_input_errors(tmp_path):
    cases = sorted(p for p in GOLDEN.iterdir() if (p / "expected.out.yaml").exists())
    rng = random.Random(2170)
    started = time.perf_counter()
    outcomes = {"valid": 0, "invalid": 0}
    for number in range(300):
        case = rng.choice(cases)
        inputs = sorted(p for p in case.iterdir() if p.suffix in (".yaml", ".json") and p.name != "expected.out.yaml")
        target = rng.choice(inputs)
        folder = tmp_path / str(number)
        folder.mkdir()
        for path in inputs:
            text = path.read_text()
            (folder / path.name).write_text(_mutate(rng, text) if path == target else text)
        try:
            build([str(folder)], ssh_key_seed=GOLDEN_SEED)
            outcomes["valid"] += 1
        except TraincError as exc:
            outcomes["invalid"] += 1
            bad = [line for line in exc.render().splitlines() if not LINE.match(line)]
            assert not bad, (case.name, bad)
    assert outcomes["valid"] > 10 and outcomes["invalid"] > 100, outcomes
    assert time.perf_counter() - started < 5

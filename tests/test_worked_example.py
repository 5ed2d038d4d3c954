"""Spec §3.10's worked example, compared semantically (trainc drops ownerReferences and suspend: false)."""

from __future__ import annotations

from pathlib import Path

import yaml

import trainc

ROOT = Path(__file__).resolve().parent.parent

SPEC_JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: demo, namespace: team-a}
spec:
  replicatedJobs:
  - name: node
    groupName: default
    replicas: 1
    template:
      metadata:
        labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            containers:
            - name: node
              image: my/img:1
              command: [torchrun, train.py]
              resources: {requests: {cpu: "4"}}
              env:
              - {name: FOO, value: bar}
              - {name: PET_NNODES, value: "2"}
              - {name: PET_NPROC_PER_NODE, value: "4"}
              - name: PET_NODE_RANK
                valueFrom: {fieldRef: {fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
              - {name: PET_MASTER_ADDR, value: demo-node-0-0.demo}
              - {name: PET_MASTER_PORT, value: "29500"}
              ports:
              - containerPort: 29500
"""


def test_worked_example():
    (jobset,) = trainc.objects([str(ROOT / "examples/torch-ddp.yaml")])
    assert jobset["metadata"].pop("labels") == {"trainer.kubeflow.org/trainjob-name": "demo"}
    assert jobset == yaml.safe_load(SPEC_JOBSET)

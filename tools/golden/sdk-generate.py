"""Regenerate the golden/sdk-* inputs with the real Kubeflow SDK (`pip install kubeflow`).

Run with the SDK's own interpreter, never trainc's: `python tools/golden/sdk-generate.py`.
Each case calls `TrainerClient().train(...)` of the SDK's Kubernetes backend against a
throwaway in-process stand-in for the API server on 127.0.0.1, which serves the bundled
runtimes (runtimes/*.yaml) the way the real one would and records the exact bytes of the
TrainJob the SDK POSTs. Those bytes are written as the case's trainjob.json; the YAML cases
hold the same object as `yaml.safe_dump` writes it. Only this file's training functions and
the SDK version decide the output; the job names are fixed by the `Name` option (or, for the
default-name case, by a fixed uuid and random seed).
"""

import glob
import http.server
import importlib.metadata
import json
import os
import random
import re
import threading
import uuid
from unittest import mock

import yaml
from kubernetes import client as k8s

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import (
    BuiltinTrainer,
    CustomTrainer,
    CustomTrainerContainer,
    DataFormat,
    DataType,
    HuggingFaceDatasetInitializer,
    HuggingFaceModelInitializer,
    Initializer,
    Loss,
    LoraConfig,
    S3DatasetInitializer,
    S3ModelInitializer,
    TorchTuneConfig,
    TorchTuneInstructDataset,
    TrainerClient,
)
from kubeflow.trainer.options import (
    ActiveDeadlineSeconds,
    Annotations,
    ContainerPatch,
    JobSetSpecPatch,
    JobSetTemplatePatch,
    JobSpecPatch,
    JobTemplatePatch,
    Labels,
    Name,
    PodSpecPatch,
    PodTemplatePatch,
    ReplicatedJobPatch,
    RuntimePatch,
    TrainerArgs,
    TrainerCommand,
    TrainingRuntimeSpecPatch,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "golden")  # the case folders it writes
NAMESPACE = "default"


# --- training functions: the SDK ships their source inside `bash -c` -----------------------


def train_hello():
    import os

    print("🚀 Training on", os.environ.get("PET_NNODES"), "nodes — ünïcödé ✓")


def train_ddp(lr: float, epochs: int, model_name: str = "resnet"):
    """DDP training with awkward characters: quotes ' " `, $HOME, \\ and a tab."""
    import os

    import torch
    import torch.distributed as dist

    dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    print(f"rank={rank} lr={lr} epochs={epochs} model={model_name!r} home=$HOME `id`")
    table = "col1	col2"  # a literal tab between the columns
    # The next line ends in three blanks, on purpose (tests/test_sdk.py checks they survive).
    for epoch in range(epochs):   
        loss = torch.tensor(1.0 / (epoch + 1))
        print(f"epoch {epoch}: loss={loss.item():.4f} {table}")
    print("done\\n", os.getcwd(), "— 日本語 😀")
    dist.destroy_process_group()


def train_deepspeed(zero_stage: int):
    import deepspeed

    print("DeepSpeed", deepspeed.__version__, "zero", zero_stage)


def train_plain():
    print('plain python, no launcher:  "two  spaces" and trailing tab	')


# --- the API server stand-in -------------------------------------------------------------


def _runtimes() -> dict:
    found = {}
    for path in glob.glob(os.path.join(ROOT, "runtimes", "*.yaml")) + glob.glob(os.path.join(HERE, "sdk-*", "runtime.yaml")):
        with open(path, encoding="utf-8") as handle:
            for doc in yaml.safe_load_all(handle):
                found[(doc["kind"], doc["metadata"]["name"])] = doc
    return found


class _Server(http.server.BaseHTTPRequestHandler):
    runtimes: dict = {}
    posted: list = []

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.endswith("/configmaps/kubeflow-trainer-public"):
            return self._reply(200, {"kind": "ConfigMap", "apiVersion": "v1", "data": {"kubeflow_trainer_version": "2.1.0"}})
        match = re.fullmatch(r"/apis/trainer\.kubeflow\.org/v1alpha1/(?:namespaces/[^/]+/)?(\w+)/([^/?]+)", self.path)
        kind = match and {"trainingruntimes": "TrainingRuntime", "clustertrainingruntimes": "ClusterTrainingRuntime"}.get(match[1])
        if kind and (kind, match[2]) in self.runtimes:
            return self._reply(200, self.runtimes[(kind, match[2])])
        return self._reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.posted.append(body)
        self._reply(201, json.loads(body))

    def log_message(self, *args):
        return


# --- the cases ---------------------------------------------------------------------------

HF_TOKEN = "hf_ExampleTokenNotReal"

CASES = {
    # TrainerClient().train(trainer=CustomTrainer(func=...)): the SDK's default runtime and name.
    "sdk-torch-default": ("json", dict(trainer=CustomTrainer(func=train_hello))),
    "sdk-torch-gpu-packages": ("json", dict(
        runtime="torch-distributed",
        trainer=CustomTrainer(
            func=train_ddp,
            func_args={"lr": 0.001, "epochs": 3, "model_name": "it's \"quoted\""},
            packages_to_install=["transformers[torch]>=4.40", "datasets", "peft==0.11.1"],
            pip_index_urls=["https://pypi.org/simple", "https://download.pytorch.org/whl/cu121"],
            num_nodes=2,
            resources_per_node={"CPU": 4, "memory": "16Gi", "gpu": 2},
            env={"NCCL_DEBUG": "INFO", "GREETING": "multi\nline value with trailing space ", "EMPTY": ""},
        ),
        options=[Name("ddp-gpu"), Labels({"team": "ml", "kueue.x-k8s.io/queue-name": "gpu-queue"}),
                 Annotations({"example.com/owner": "ada@example.com"})],
    )),
    "sdk-torch-yaml-image": ("yaml", dict(
        runtime="torch-distributed",
        trainer=CustomTrainer(
            func=train_ddp,
            func_args={"lr": 0.01, "epochs": 1},
            image="docker.io/pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime",
            resources_per_node={"cpu": "500m", "memory": "2Gi", "storage": "10Gi"},
        ),
        options=[Name("ddp-cpu")],
    )),
    "sdk-mpi-deepspeed": ("json", dict(
        runtime="deepspeed-distributed",
        trainer=CustomTrainer(
            func=train_deepspeed,
            func_args={"zero_stage": 3},
            packages_to_install=["deepspeed"],
            num_nodes=2,
            resources_per_node={"gpu": 1},
        ),
        options=[Name("deepspeed-zero3")],
    )),
    "sdk-plain-trainingruntime": ("yaml", dict(
        runtime="plain-python",
        trainer=CustomTrainer(func=train_plain, env={"LOG_LEVEL": "debug"}),
        options=[Name("plain"), ActiveDeadlineSeconds(3600)],
    )),
    "sdk-container-trainer": ("yaml", dict(
        runtime="torch-distributed",
        trainer=CustomTrainerContainer(
            image="ghcr.io/example/trainer:v1",
            num_nodes=3,
            resources_per_node={"cpu": "2", "memory": "8Gi", "mig-1g.5gb": 1},
            env={"WANDB_MODE": "offline"},
        ),
        options=[
            Name("container"),
            TrainerCommand(["torchrun", "/app/train.py"]),
            TrainerArgs(["--epochs=2", "--note=two\nlines", "--empty="]),
        ],
    )),
    "sdk-torchtune-lora-hf": ("json", dict(
        runtime="torchtune-llama3.2-1b",
        initializer=Initializer(
            dataset=HuggingFaceDatasetInitializer(storage_uri="hf://tatsu-lab/alpaca/data", access_token=HF_TOKEN),
            model=HuggingFaceModelInitializer(storage_uri="hf://meta-llama/Llama-3.2-1B-Instruct", access_token=HF_TOKEN),
        ),
        trainer=BuiltinTrainer(config=TorchTuneConfig(
            dtype=DataType.BF16,
            batch_size=4,
            epochs=2,
            loss=Loss.CEWithChunkedOutputLoss,
            resources_per_node={"gpu": 2},
            peft_config=LoraConfig(apply_lora_to_mlp=True, lora_rank=8, lora_alpha=16, lora_dropout=0.1),
            dataset_preprocess_config=TorchTuneInstructDataset(
                source=DataFormat.PARQUET,
                split="train[:10%]",
                train_on_input=True,
                new_system_prompt="You are a helpful assistant. ",
                column_map={"input": "question", "output": "answer"},
            ),
        )),
        options=[Name("llama-lora")],
    )),
    "sdk-torchtune-qlora-s3": ("yaml", dict(
        runtime="torchtune-llama3.2-3b",
        initializer=Initializer(
            dataset=S3DatasetInitializer(
                storage_uri="s3://datasets/alpaca.json", endpoint="https://minio.example.com",
                access_key_id="AKIAEXAMPLE", secret_access_key="secret/with+chars=", region="us-east-1",
            ),
            model=S3ModelInitializer(storage_uri="s3://models/llama-3.2-3b", endpoint="https://minio.example.com"),
        ),
        trainer=BuiltinTrainer(config=TorchTuneConfig(
            num_nodes=1,
            resources_per_node={"gpu": 1},
            peft_config=LoraConfig(quantize_base=True, lora_rank=16, lora_attn_modules=["q_proj", "k_proj", "v_proj"]),
        )),
        options=[Name("llama-qlora")],
    )),
    # upstream's opt-in data-cache runtime, without a DataCacheInitializer (its runtime lacks the
    # `initializer` mount the webhook wants, upstream as here)
    "sdk-torch-data-cache": ("json", dict(
        runtime="torch-distributed-with-cache",
        trainer=CustomTrainer(func=train_hello, num_nodes=2),
        options=[Name("cached")],
    )),
    "sdk-runtime-patch": ("json", dict(
        runtime="torch-distributed",
        trainer=CustomTrainer(func=train_hello, num_nodes=2, resources_per_node={"cpu": 1, "memory": "1Gi"}),
        options=[
            Name("patched"),
            RuntimePatch(training_runtime_spec=TrainingRuntimeSpecPatch(template=JobSetTemplatePatch(
                metadata={"labels": {"example.com/cost-center": "42"}},
                spec=JobSetSpecPatch(replicated_jobs=[ReplicatedJobPatch(
                    name="node",
                    template=JobTemplatePatch(spec=JobSpecPatch(template=PodTemplatePatch(
                        metadata={"annotations": {"example.com/profile": "on"}},
                        spec=PodSpecPatch(
                            service_account_name="trainer-sa",
                            node_selector={"example.com/accelerator": "a100"},
                            tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                            volumes=[{"name": "cache", "emptyDir": {}}],
                            # No env: upstream's webhook refuses env patches of the node container.
                            containers=[ContainerPatch(
                                name="node",
                                volume_mounts=[{"name": "cache", "mountPath": "/cache"}],
                                security_context={"allowPrivilegeEscalation": False},
                            )],
                        ),
                    ))),
                )]),
            ))),
        ],
    )),
}


def _provenance(case: str, form: str) -> str:
    how = "as yaml.safe_dump writes it" if form == "yaml" else "byte for byte (JSON has no comments: this note is beside it)"
    return (f"Produced by the Kubeflow SDK (PyPI kubeflow {importlib.metadata.version('kubeflow')}, kubeflow_trainer_api "
            f"{importlib.metadata.version('kubeflow_trainer_api')}): TrainerClient().train(...) of case "
            f"{case!r} in tools/golden/sdk-generate.py; the TrainJob it POSTed, {how}.\n")


def main() -> None:
    _Server.runtimes = _runtimes()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = k8s.Configuration()
        config.host = f"http://127.0.0.1:{server.server_address[1]}"
        trainer_client = TrainerClient(KubernetesBackendConfig(namespace=NAMESPACE, client_configuration=config))
        for case, (form, call) in CASES.items():
            _Server.posted.clear()
            random.seed(case)  # the default name: a random letter, then uuid4's first 11 hex digits
            with mock.patch("uuid.uuid4", return_value=uuid.UUID(int=0x5D1C0FFEE)):
                trainer_client.train(**call)
            (body,) = _Server.posted
            folder = os.path.join(HERE, case)
            os.makedirs(folder, exist_ok=True)
            for stale in ("trainjob.yaml", "trainjob.json", "provenance.txt"):
                if os.path.exists(os.path.join(folder, stale)):
                    os.remove(os.path.join(folder, stale))
            with open(os.path.join(folder, f"trainjob.{form}"), "wb") as handle:
                if form == "json":
                    handle.write(body)
                else:
                    text = yaml.safe_dump(json.loads(body), sort_keys=False)
                    handle.write(("# " + _provenance(case, form) + text).encode())
            if form == "json":
                with open(os.path.join(folder, "provenance.txt"), "w", encoding="utf-8") as handle:
                    handle.write(_provenance(case, form))
            print(case, f"trainjob.{form}")
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()

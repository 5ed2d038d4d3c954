"""Torchtune helpers, ported from upstream pkg/runtime/framework/plugins/torch/torchtune_test.go."""

import pytest

from trainc.compiler.ir import Unit
from trainc.compiler.plugins import torchtune
from trainc.trainer.api import TrainJob

LORA = ["model.lora_attn_modules=['q_proj']"]
QLORA = ["model.quantize_base=True"]


@pytest.mark.parametrize(
    ("runtime_name", "model"),
    [
        ("torchtune-llama3.2-1b", "llama3_2/1B"),
        ("torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"),
        ("torchtune-llama3.3-70b", "llama3_3/70B"),
        ("torchtune-llama3.2", ""),  # fewer than three parts
        ("torchtune-llama3.2-1b-extra", ""),  # more than three parts
        ("", ""),
    ],
)
def test_model_of(runtime_name, model):
    assert torchtune.model_of(runtime_name) == model


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["batch_size=32", "model.lora_attn_modules=['q_proj','v_proj']"], True),
        (["batch_size=32", "epochs=10"], False),
        (None, False),
    ],
)
def test_lora(args, expected):
    assert torchtune.lora(args) is expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["model.quantize_base=True"], True),
        (["model.quantize_base=False"], False),
        (["model.quantize_base=True", "model.use_dora=True"], False),  # DoRA turns QLoRA off
        (["model.quantize_base=True", "model.use_dora=False"], True),
        (["batch_size=32"], False),
        (None, False),
        ([" model.quantize_base = TRUE "], True),  # key by substring, value trimmed and case-insensitive
        (["model.quantize_base"], False),  # no `=`: not a key=value flag
    ],
)
def test_qlora(args, expected):
    assert torchtune.qlora(args) is expected


@pytest.mark.parametrize(
    ("nodes", "procs", "gpus", "args", "recipe", "suffix"),
    [
        (1, "auto", 1, None, "full_finetune_single_device", "_full_single_device"),
        (1, "auto", 1, LORA, "lora_finetune_single_device", "_lora_single_device"),
        (1, "auto", 1, QLORA, "lora_finetune_single_device", "_qlora_single_device"),
        (1, "auto", 4, None, "full_finetune_distributed", "_full"),
        (1, "auto", 4, LORA, "lora_finetune_distributed", "_lora"),
        (1, "auto", 4, QLORA, "lora_finetune_distributed", "_qlora"),
        (2, "auto", 8, None, "full_finetune_distributed", "_full_multinode"),
        (1, 1, 4, None, "full_finetune_single_device", "_full_single_device"),  # numProcPerNode 1 wins over GPUs
        (1, 4, 4, None, "full_finetune_distributed", "_full"),
    ],
    ids=[
        "single device full",
        "single device lora",
        "single device qlora",
        "single node multi-gpu full",
        "single node multi-gpu lora",
        "single node multi-gpu qlora",
        "multi-node full",
        "numProcPerNode=1 forces single device even with multiple gpus",
        "numProcPerNode>1 uses distributed",
    ],
)
def test_recipe_and_config(nodes, procs, gpus, args, recipe, suffix):
    assert torchtune.recipe_and_config(nodes, procs, gpus, args, "torchtune-llama3.2-1b") == (
        recipe,
        "llama3_2/1B" + suffix,
    )


def test_multi_node_ignores_lora_args():
    """Upstream falls through to full fine-tuning for several nodes (its webhook rejects the combination)."""
    assert torchtune.recipe_and_config(2, "auto", 8, LORA, "torchtune-llama3.3-70b") == (
        "full_finetune_distributed",
        "llama3_3/70B_full_multinode",
    )


def _unit(ancestor: str, container: str, command: list) -> Unit:
    rjob = {
        "name": "node",
        "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": ancestor}},
            "spec": {"template": {"spec": {"containers": [{"name": container, "command": command}]}}},
        },
    }
    return Unit(trainjob=None, jobset={"replicatedJobs": [rjob]})


PINNED = [
    "output_dir=/out",
    "tokenizer.path=/tok",
    "batch_size=32",
    "checkpointer.checkpoint_dir=/ckpt",
    "tokenizer.merges_file=/merges.txt",
    "dataset.data_dir=/data",
]


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        (Unit(trainjob=None), []),
        (
            _unit("trainer", "node", PINNED),
            [
                "output_dir=/out",
                "tokenizer.path=/tok",
                "checkpointer.checkpoint_dir=/ckpt",
                "tokenizer.merges_file=/merges.txt",
            ],
        ),
        (_unit("other", "node", PINNED), []),
        (_unit("trainer", "sidecar", PINNED), []),
    ],
    ids=["no template", "trainer node container", "non-trainer ancestor", "non-node container"],
)
def test_runtime_overrides(unit, expected):
    """Upstream TestExtractOverridesFromRuntime: only the pinned paths of the trainer `node` command, in order."""
    assert torchtune.runtime_overrides(unit) == expected


def _tune_unit(args=None) -> Unit:
    trainjob = TrainJob.from_data(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "tune", "namespace": "default"},
            "spec": {
                "runtimeRef": {"name": "torchtune-llama3.2-1b"},
                "trainer": {"command": ["tune", "run"], "args": args},
            },
        }
    )
    runtime_job = _unit("trainer", "node", ["tune", "run", "--rdzv_endpoint=localhost:29500", *PINNED[:2]])
    return Unit(trainjob=trainjob, jobset=runtime_job.jobset)


@pytest.mark.parametrize(
    ("nodes", "procs", "gpus", "rendezvous"),
    [
        (1, 1, 0, False),
        (1, 2, 0, True),  # an integer numProcPerNode above 1
        (1, "auto", 1, False),
        (1, "auto", 2, True),  # "auto" with several GPUs
        (2, 1, 1, True),  # several nodes
    ],
)
def test_command_rendezvous(nodes, procs, gpus, rendezvous):
    """Spec §4.4: the rank-0 endpoint is added only for multi-node or multi-process runs."""
    command = torchtune.command(_tune_unit(), nodes, procs, gpus)
    endpoint = "--rdzv_endpoint=tune-node-0-0.tune:29500"
    assert command[:2] == ["tune", "run"]
    assert (endpoint in command) is rendezvous
    assert command[-2:] == ["output_dir=/out", "tokenizer.path=/tok"]  # runtime items kept, its endpoint dropped
    assert "--rdzv_endpoint=localhost:29500" not in command

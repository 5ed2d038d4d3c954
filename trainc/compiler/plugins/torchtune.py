"""Torchtune: the `tune run` command rewrite of upstream's Torch plugin (spec §4.4), and its webhook rules.

The rules (upstream validateTorchTune, spec §10): the runtime name must name a
supported model; numNodes (the TrainJob's, default 1: the runtime's
mlPolicy.numNodes is not consulted) must be 1 except for llama3_3/70B and for
any LoRA; the QLoRA limits per model; and args must not set the configs the
runtime pins. The recipe is picked as the plugin picks it, with numProcPerNode
`auto` unless the TrainJob sets it.
"""

from __future__ import annotations

from ...errors import InputError
from ...k8s import podspec
from .. import ir
from ..admission import error

ENTRYPOINT = ["tune", "run"]
IMMUTABLE_CONFIGS = ("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file")
SUPPORTED_MODELS = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")
MULTI_NODE_MODEL = "llama3_3/70B"
NO_QLORA_MODEL = "qwen2_5/1.5B"
SINGLE_DEVICE_QLORA_MODELS = ("llama3_2/1B", "llama3_2/3B")


def model_of(runtime_name: str) -> str:
    """`torchtune-llama3.2-1b` → `llama3_2/1B`; anything not X-Y-Z → ""."""
    fields = runtime_name.split("-")
    if len(fields) != 3:
        return ""
    return f"{fields[1].replace('.', '_')}/{fields[2].upper()}"


def lora(args) -> bool:
    return any("model.lora_attn_modules" in arg for arg in args or ())


def _flag(args, item: str) -> bool:
    for arg in args or ():
        name, found, value = arg.partition("=")
        if found and item in name and value.strip().lower() == "true":
            return True
    return False


def qlora(args) -> bool:
    return not _flag(args, "model.use_dora") and _flag(args, "model.quantize_base")


def recipe_and_config(nodes: int, procs, gpus: int, args, runtime_name: str) -> tuple[str, str]:
    single = (isinstance(procs, int) and procs == 1) or gpus == 1
    recipe, suffix = "full_finetune_distributed", "_full"
    if nodes == 1 and single:
        if qlora(args):
            recipe, suffix = "lora_finetune_single_device", "_qlora_single_device"
        elif lora(args):
            recipe, suffix = "lora_finetune_single_device", "_lora_single_device"
        else:
            recipe, suffix = "full_finetune_single_device", "_full_single_device"
    elif nodes == 1 and qlora(args):
        recipe, suffix = "lora_finetune_distributed", "_qlora"
    elif nodes == 1 and lora(args):
        recipe, suffix = "lora_finetune_distributed", "_lora"
    elif nodes > 1:
        suffix = "_full_multinode"
    return recipe, model_of(runtime_name) + suffix


def runtime_overrides(unit: ir.Unit) -> list[str]:
    """Command items of the runtime's trainer `node` containers that pin paths (output_dir, …)."""
    found = []
    for rjob in ir.jobs_with_step(unit, ir.TRAINER):
        for container in ir.containers(rjob):
            if container.get("name") == ir.NODE:
                found += [item for item in container.get("command") or () if item.split("=")[0] in IMMUTABLE_CONFIGS]
    return found


def command(unit: ir.Unit, nodes: int, procs, gpus: int) -> list[str]:
    args = unit.trainer.args
    new = list(ENTRYPOINT)
    if nodes > 1 or (isinstance(procs, int) and procs > 1) or (procs == "auto" and gpus > 1):
        new.append(f"--rdzv_endpoint={ir.coordinator(unit)}:{ir.TRAINER_PORT}")
    recipe, config = recipe_and_config(nodes, procs, gpus, args, unit.trainjob.spec.runtime_ref.name)
    return new + [recipe, "--config", config] + runtime_overrides(unit)


def validate(unit: ir.Unit) -> list[InputError]:
    """Upstream's validateTorchTune, for a TrainJob whose command is `tune run`."""
    origin, trainer = unit.trainjob.origin, unit.trainer
    ref_name = unit.trainjob.spec.runtime_ref.name
    name_path, nodes_path = ("spec", "runtimeRef", "name"), ("spec", "trainer", "numNodes")
    errors = []
    model = model_of(ref_name)
    if model not in SUPPORTED_MODELS:
        message = f"must have a supported pretrained model, invalid model configured: {model}"
        errors.append(error(origin, name_path, message))
    nodes = trainer.num_nodes if trainer.num_nodes is not None else 1
    if nodes > 1 and model != MULTI_NODE_MODEL:
        errors.append(error(origin, nodes_path, f"must be 1 for {model} model"))
    procs = trainer.num_proc_per_node if trainer.num_proc_per_node is not None else "auto"
    gpus = podspec.gpu_count(ir.node_resources(unit))
    _, config = recipe_and_config(nodes, procs, gpus, trainer.args, ref_name)
    if "_qlora" in config:
        if model == NO_QLORA_MODEL:
            errors.append(error(origin, name_path, f"QLoRA is not supported for {model} model"))
        if "_qlora_single_device" not in config and model in SINGLE_DEVICE_QLORA_MODELS:
            errors.append(
                error(
                    origin,
                    ("spec", "trainer", "numProcPerNode"),
                    f"must be auto or 1 for {model} model when using QLoRA",
                )
            )
            errors.append(
                error(
                    origin,
                    ("spec", "trainer", "resourcesPerNode"),
                    f"must have gpu resource with value 1 for {model} model when using QLoRA",
                )
            )
    if nodes > 1 and (lora(trainer.args) or qlora(trainer.args)):
        message = "LoRA fine-tuning is not supported for multi-node training in TorchTune"
        errors.append(error(origin, nodes_path, message))
    for index, arg in enumerate(trainer.args or ()):
        key = arg.split("=", 1)[0]
        if key in IMMUTABLE_CONFIGS:
            errors.append(
                error(
                    origin,
                    ("spec", "trainer", "args", index),
                    f'must not set immutable config "{key}" in trainer args; it is managed by the runtime',
                )
            )
    return errors

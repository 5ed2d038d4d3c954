"""[TJ] Torch policy rules (upstream Torch plugin Validate and validateTorchTune, spec §10).

Always: no reserved PET_* env in the trainer, and every envInjection target
container exists in the (patched) runtime template, as a container or an init
container of the named job.

With the torchtune entrypoint (`command: [tune, run]`): the runtime name must
name a supported model; numNodes (the TrainJob's, default 1: the runtime's
mlPolicy.numNodes is not consulted) must be 1 except for llama3_3/70B and for
any LoRA; the QLoRA limits per model; and args must not set the configs the
runtime pins. The recipe is picked as the plugin picks it, with numProcPerNode
`auto` unless the TrainJob sets it.
"""

from __future__ import annotations

from ..compiler import ir
from ..compiler.ir import Unit
from ..compiler.plugins import torchtune
from ..compiler.plugins.torch import RESERVED_ENV
from ..errors import InputError
from ..k8s import podspec
from .base import container_names, error, reserved_env

MULTI_NODE_MODEL = "llama3_3/70B"
NO_QLORA_MODEL = "qwen2_5/1.5B"
SINGLE_DEVICE_QLORA_MODELS = ("llama3_2/1B", "llama3_2/3B")


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.ml_policy
    if policy is None or policy.torch is None:
        return []
    errors = _env_injection(unit, policy.torch.env_injection)
    if unit.trainer is not None:
        errors += reserved_env(unit, RESERVED_ENV)
        if unit.trainer.command == torchtune.ENTRYPOINT:
            errors += _torchtune(unit)
    return errors


def _env_injection(unit: Unit, injection) -> list[InputError]:
    jobs = {rjob.get("name"): container_names(rjob) for rjob in unit.replicated_jobs}
    return [
        error(unit.trainjob.origin, ("spec", "runtimeRef"),
              f'envInjection target podSet "{target.job_name}" container "{name}" not found in runtime template')
        for target in (injection.targets if injection is not None else ())
        for name in target.container_names
        if name not in jobs.get(target.job_name, ())
    ]


def _torchtune(unit: Unit) -> list[InputError]:
    origin, trainer = unit.trainjob.origin, unit.trainer
    ref_name = unit.trainjob.spec.runtime_ref.name
    name_path, nodes_path = ("spec", "runtimeRef", "name"), ("spec", "trainer", "numNodes")
    errors = []
    model = torchtune.model_of(ref_name)
    if model not in torchtune.SUPPORTED_MODELS:
        message = f"must have a supported pretrained model, invalid model configured: {model}"
        errors.append(error(origin, name_path, message))
    nodes = trainer.num_nodes if trainer.num_nodes is not None else 1
    if nodes > 1 and model != MULTI_NODE_MODEL:
        errors.append(error(origin, nodes_path, f"must be 1 for {model} model"))
    procs = trainer.num_proc_per_node if trainer.num_proc_per_node is not None else "auto"
    gpus = podspec.gpu_count(ir.node_resources(unit))
    _, config = torchtune.recipe_and_config(nodes, procs, gpus, trainer.args, ref_name)
    if "_qlora" in config:
        if model == NO_QLORA_MODEL:
            errors.append(error(origin, name_path, f"QLoRA is not supported for {model} model"))
        if "_qlora_single_device" not in config and model in SINGLE_DEVICE_QLORA_MODELS:
            errors.append(error(origin, ("spec", "trainer", "numProcPerNode"),
                                f"must be auto or 1 for {model} model when using QLoRA"))
            errors.append(error(origin, ("spec", "trainer", "resourcesPerNode"),
                                f"must have gpu resource with value 1 for {model} model when using QLoRA"))
    if nodes > 1 and (torchtune.lora(trainer.args) or torchtune.qlora(trainer.args)):
        message = "LoRA fine-tuning is not supported for multi-node training in TorchTune"
        errors.append(error(origin, nodes_path, message))
    for index, arg in enumerate(trainer.args or ()):
        key = arg.split("=", 1)[0]
        if key in torchtune.IMMUTABLE_CONFIGS:
            errors.append(error(origin, ("spec", "trainer", "args", index),
                                f'must not set immutable config "{key}" in trainer args; it is managed by the runtime'))
    return errors

"""Torchtune: the `tune run` command rewrite of upstream's Torch plugin (spec §4.4)."""

from __future__ import annotations

from .. import ir

ENTRYPOINT = ["tune", "run"]
IMMUTABLE_CONFIGS = ("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file")
SUPPORTED_MODELS = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")


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

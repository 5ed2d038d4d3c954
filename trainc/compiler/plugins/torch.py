"""Torch: PET_* rendezvous env for torchrun, port 29500, envInjection, torchtune commands.

Implements upstream's Torch plugin (spec §4): numProcPerNode is the TrainJob's
value or `auto`, and `auto` without GPUs becomes the CPU count rounded up.

Its webhook rules (upstream Validate, spec §10): no reserved PET_* env in the
trainer, and every envInjection target container exists in the (patched)
runtime template, as a container or an init container of the named job; with
the torchtune entrypoint (`command: [tune, run]`), `torchtune.validate`.
"""

from __future__ import annotations

import copy

from ...errors import InputError
from ...k8s import podspec
from .. import ir, provenance
from ..admission import container_names, error, reserved_env
from ..ir import Unit
from ..provenance import Source
from . import plainml, torchtune

BY = "torch plugin"
RESERVED_ENV = ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT")


def proc_per_node(unit: Unit) -> tuple[int | str, int]:
    """(numProcPerNode, GPUs per node) as upstream resolves them."""
    resources = ir.node_resources(unit)
    gpus = podspec.gpu_count(resources)
    if unit.trainer is not None and unit.trainer.num_proc_per_node is not None:
        return unit.trainer.num_proc_per_node, gpus
    if gpus == 0:
        return max(1, podspec.cpu_count(resources)), gpus
    return "auto", gpus


def validate(unit: Unit, change) -> list[InputError]:
    errors = _env_injection(unit, unit.ml_policy.torch.env_injection)
    if unit.trainer is not None:
        errors += reserved_env(unit, RESERVED_ENV)
        if unit.trainer.command == torchtune.ENTRYPOINT:
            errors += torchtune.validate(unit)
    return errors


def _env_injection(unit: Unit, injection) -> list[InputError]:
    jobs = {rjob.get("name"): container_names(rjob) for rjob in unit.replicated_jobs}
    return [
        error(
            unit.trainjob.origin,
            ("spec", "runtimeRef"),
            f'envInjection target podSet "{target.job_name}" container "{name}" not found in runtime template',
        )
        for target in (injection.targets if injection is not None else ())
        for name in target.container_names
        if name not in jobs.get(target.job_name, ())
    ]


def enforce(unit: Unit, ctx) -> Unit:
    unit = plainml.with_trainer_count(unit)
    trainer_job = ir.first_job_with_step(unit, ir.TRAINER)
    nodes = unit.counts.get(trainer_job["name"], 1) if trainer_job is not None else 1
    procs, gpus = proc_per_node(unit)
    pet = [
        podspec.value_env("PET_NNODES", str(nodes)),
        podspec.value_env("PET_NPROC_PER_NODE", str(procs)),
        podspec.field_env("PET_NODE_RANK", ir.COMPLETION_INDEX),
    ]
    master = [
        podspec.value_env("PET_MASTER_ADDR", ir.coordinator(unit)),
        podspec.value_env("PET_MASTER_PORT", str(ir.TRAINER_PORT)),
    ]
    container = ir.trainer_container(unit) if unit.trainer is not None else None
    if container is not None:
        env = podspec.api_envs(unit.trainer.env)
        podspec.add_env(container, *env)
        podspec.add_env(container, *pet)
        if unit.trainer.command == torchtune.ENTRYPOINT:
            unit = unit.replace(command=torchtune.command(unit, nodes, procs, gpus))
        else:
            podspec.add_env(container, *master)
        port = {"containerPort": ir.TRAINER_PORT}
        podspec.add_ports(container, port)
        if ctx.provenance is not None:
            ctx.provenance.trainer_env(unit, env)
            for variable, source in zip(pet + master, _sources(unit)):
                ctx.provenance.record(variable, None, source)
            ctx.provenance.record(port, None, Source(BY))
    injection = unit.ml_policy.torch.env_injection
    for target in injection.targets if injection is not None else ():
        for name in target.container_names:
            target_container = _find(unit, target.job_name, name)
            if target_container is None:
                raise InputError(
                    unit.trainjob.origin,
                    ("spec", "runtimeRef"),
                    f'envInjection target podSet "{target.job_name}" container "{name}" not found in runtime template',
                )
            injected = copy.deepcopy(pet + master)
            podspec.add_env(target_container, *injected)
            if ctx.provenance is not None:
                ctx.provenance.items(
                    injected, provenance.runtime(unit, BY, "spec", "mlPolicy", "torch", "envInjection")
                )
    return unit


def _sources(unit: Unit) -> list:
    """Where PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT come from."""
    trainer = unit.trainer
    nodes = (
        provenance.trainjob(unit, BY, "spec", "trainer", "numNodes")
        if trainer.num_nodes is not None
        else provenance.runtime(unit, BY, "spec", "mlPolicy", "numNodes")
    )
    procs = (
        provenance.trainjob(unit, BY, "spec", "trainer", "numProcPerNode")
        if trainer.num_proc_per_node is not None
        else provenance.trainjob(unit, BY, "spec", "trainer", "resourcesPerNode")
        if trainer.resources_per_node
        else provenance.runtime(
            unit, f"{BY} (numProcPerNode auto: CPUs or GPUs per node)", "spec", "mlPolicy", "torch", "numProcPerNode"
        )
    )
    name = provenance.trainjob(unit, BY, "metadata", "name")
    return [nodes, procs, Source(BY), name, Source(BY)]


def _find(unit: Unit, job_name: str, name: str) -> dict | None:
    """Upstream FindContainerByPodSetName: regular containers win over init containers."""
    rjob = next((j for j in unit.replicated_jobs if j.get("name") == job_name), None)
    if rjob is None:
        return None
    spec = ir.pod_spec(rjob)
    for group in ("containers", "initContainers"):
        found = next((c for c in spec.get(group) or () if c.get("name") == name), None)
        if found is not None:
            return found
    return None

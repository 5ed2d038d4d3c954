"""How deep and how big input data may be, the same on every Python.

YAML (`yamlshape.py`), JSON and in-memory data nest at most MAX_DEPTH levels,
libyaml 0.2.6's limit, and every recursive walk over data (composing,
decoding, validation, serialization) runs with room for it, whatever Python's
own recursion limit and however deep the caller's stack already is. Data that shares parts (YAML
aliases, Python objects referenced twice) may not expand by more than MAX_NODES nodes. A run reads
at most MAX_INPUT_BYTES of input unless told otherwise (`engine.Options.max_input_bytes`; a --cluster-state
file among them), and at most MAX_CLUSTER_STATE_ITEMS objects of a cluster state, each of which Kueue's
preemption may weigh.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

MAX_DEPTH = 1000
MAX_NODES = 200_000  # aliases adding more nodes than this make an alias bomb, not a TrainJob
MAX_INPUT_BYTES = 64 * 2**20  # read in one run, by default
MAX_CLUSTER_STATE_ITEMS = 100_000  # objects of a --cluster-state file: a cluster's queues and workloads, not more


@contextmanager
def room_for_depth(frames_per_level: int = 1):
    """Python's recursion limit raised by `frames_per_level` frames for each of MAX_DEPTH levels."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + frames_per_level * MAX_DEPTH)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)

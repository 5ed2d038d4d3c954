"""JSON data from the objects Python clients hold in memory, as those clients would send them.

The Kubeflow SDK builds TrainJobs and runtimes as OpenAPI-generated pydantic models
(`kubeflow_trainer_api`) whose `to_dict()` keeps datetimes; the `kubernetes` client
builds OpenAPI model objects (`V1ObjectMeta`, …). Both send what
`ApiClient.sanitize_for_serialization` makes of them: JSON keys from each model's
attribute map, `None` fields left out, datetimes in ISO 8601. `json_data` does the
same without importing either client, so `trainc.from_objects` takes what they hold.
"""

from __future__ import annotations

import datetime
import enum
import math
import re

from ..errors import InputError, Origin, Path
from .limits import MAX_DEPTH, MAX_NODES

_SCALARS = (str, bool, int, float)


def _plain(value):
    """A str/int/float/bool subclass as its base type, as JSON writes it."""
    for kind in (bool, str, int, float):
        if isinstance(value, kind):
            return kind(value) if kind is not str else value[:]
    return value


def json_data(value, origin: Origin):
    """`value` as JSON data; an InputError at its path for what no client would send as JSON, or for
    objects shared so often that sending them would add more than MAX_NODES nodes (only repeats count:
    a large object sent once is no bomb)."""
    return _Converter(origin).convert(value, ())


_SURROGATE = re.compile("[\ud800-\udfff]")


class _Converter:
    def __init__(self, origin: Origin):
        self.origin, self.nodes = origin, 0
        self.seen: dict[int, object] = {}  # every collection converted, by id (kept alive, so no id is reused)

    def fail(self, path: Path, message: str) -> InputError:
        return InputError(self.origin, path, message)

    def convert(self, value, path: Path, repeated: bool = False):
        if not repeated and not isinstance(value, (str, int, float, type(None))):
            repeated = id(value) in self.seen
            self.seen[id(value)] = value
        if repeated:
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise self.fail(
                    path, f"shared objects expand it by more than {MAX_NODES} nodes (objects shared this often?)"
                )
        if isinstance(value, enum.Enum):  # the SDK's enums (DataType, Loss, …) send their values
            return self.convert(value.value, path, repeated)
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(path, f"{value} is not a JSON number")
        if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
            raise self.fail(path, "is out of the 64-bit range of JSON numbers Kubernetes reads")
        if isinstance(value, str) and _SURROGATE.search(value):
            # json.dumps escapes them; Go joins a pair into one character and reads a lone one as U+FFFD
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        if value is None or isinstance(value, _SCALARS):
            return _plain(value)
        if len(path) >= MAX_DEPTH:
            raise self.fail(path, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    raise self.fail(path, f"mapping keys must be strings, not {type(key).__name__} {key!r}")
            return {self.convert(key, path): self.convert(item, (*path, key), repeated) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.convert(item, (*path, index), repeated) for index, item in enumerate(value)]
        if isinstance(value, (datetime.datetime, datetime.date)):
            return value.isoformat()
        if isinstance(getattr(value, "openapi_types", None), dict) and isinstance(
            getattr(value, "attribute_map", None), dict
        ):
            fields = {value.attribute_map[name]: getattr(value, name) for name in value.openapi_types}
            return self.convert({key: item for key, item in fields.items() if item is not None}, path, repeated)
        if callable(getattr(value, "model_dump", None)):  # pydantic: the SDK's models alias fields to JSON keys
            to_dict = getattr(value, "to_dict", None)
            return self.convert(
                to_dict() if callable(to_dict) else value.model_dump(by_alias=True, exclude_none=True), path, repeated
            )
        raise self.fail(
            path,
            f"cannot be sent as JSON: a {type(value).__name__} (pass dicts, lists, strings, "
            "numbers, booleans, None, YAML/JSON text or the Kubeflow SDK's models)",
        )

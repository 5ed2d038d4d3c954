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

from .depth import MAX_DEPTH
from .errors import InputError, Origin, Path

_SCALARS = (str, bool, int, float)


def _plain(value):
    """A str/int/float/bool subclass as its base type, as JSON writes it."""
    for kind in (bool, str, int, float):
        if isinstance(value, kind):
            return kind(value) if kind is not str else value[:]
    return value


def json_data(value, origin: Origin, path: Path = ()):
    """`value` as JSON data; an InputError at `path` for what no client would send as JSON."""
    if isinstance(value, enum.Enum):  # the SDK's enums (DataType, Loss, …) send their values
        return json_data(value.value, origin, path)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(origin, path, f"{value} is not a JSON number")
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise InputError(origin, path, "is out of the 64-bit range of JSON numbers Kubernetes reads")
    if value is None or isinstance(value, _SCALARS):
        return _plain(value)
    if len(path) >= MAX_DEPTH:
        raise InputError(origin, path, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise InputError(origin, path, f"mapping keys must be strings, not {type(key).__name__} {key!r}")
        return {key: json_data(item, origin, (*path, key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_data(item, origin, (*path, index)) for index, item in enumerate(value)]
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(getattr(value, "openapi_types", None), dict) and isinstance(getattr(value, "attribute_map", None), dict):
        fields = {value.attribute_map[name]: getattr(value, name) for name in value.openapi_types}
        return json_data({key: item for key, item in fields.items() if item is not None}, origin, path)
    if callable(getattr(value, "model_dump", None)):  # pydantic: the SDK's models alias fields to JSON keys
        to_dict = getattr(value, "to_dict", None)
        data = to_dict() if callable(to_dict) else value.model_dump(by_alias=True, exclude_none=True)
        return json_data(data, origin, path)
    raise InputError(origin, path, f"cannot be sent as JSON: a {type(value).__name__} (pass dicts, lists, strings, "
                                   "numbers, booleans, None, YAML/JSON text or the Kubeflow SDK's models)")

"""`trainc.from_objects` takes what Python clients hold, as they would send it.

The Kubeflow SDK's models are OpenAPI-generated pydantic models (`to_dict()` by alias, datetimes
kept); the `kubernetes` client's are objects with `openapi_types`/`attribute_map`. Stand-ins with
the same interfaces are built here, so the tests run without either client installed.
"""

from __future__ import annotations

import datetime
import json

import pydantic
import pytest
from conftest import GOLDEN

import trainc
from trainc.errors import InputErrors

SDK_CASE = GOLDEN / "sdk-torch-default"


def posted() -> dict:
    """What the SDK POSTed for one of the captured golden cases."""
    return json.loads((SDK_CASE / "trainjob.json").read_text(encoding="utf-8"))


class V1ObjectMeta:
    """The `kubernetes` client's model shape: Python attribute names, JSON keys in attribute_map."""

    openapi_types = {"name": "str", "namespace": "str", "creation_timestamp": "datetime", "labels": "dict"}
    attribute_map = {
        "name": "name",
        "namespace": "namespace",
        "creation_timestamp": "creationTimestamp",
        "labels": "labels",
    }

    def __init__(self, **fields):
        for name in self.openapi_types:
            setattr(self, name, fields.get(name))


class SdkTrainJob(pydantic.BaseModel):
    """The SDK's model shape: snake_case fields aliased to JSON keys, `to_dict()` by alias without None."""

    model_config = pydantic.ConfigDict(populate_by_name=True)
    api_version: str = pydantic.Field(alias="apiVersion")
    kind: str
    metadata: dict
    spec: dict
    status: dict | None = None

    def to_dict(self) -> dict:
        return self.model_dump(by_alias=True, exclude_none=True)


def test_sdk_model_kubernetes_objects_datetimes_and_bytes_render_as_the_posted_json():
    body = posted()
    expected = trainc.from_objects([body])
    created = datetime.datetime(2026, 5, 1, 10, 0, tzinfo=datetime.timezone.utc)
    meta = V1ObjectMeta(
        name=body["metadata"]["name"],
        namespace=body["metadata"].get("namespace"),
        creation_timestamp=created,
        labels=body["metadata"].get("labels"),
    )
    forms = {
        "sdk model": SdkTrainJob.model_validate(body),
        "kubernetes metadata object": {**body, "metadata": meta},
        "bytes": (SDK_CASE / "trainjob.json").read_bytes(),
        "tuples": {
            **body,
            "spec": {
                **body["spec"],
                "trainer": {**body["spec"]["trainer"], "command": tuple(body["spec"]["trainer"]["command"])},
            },
        },
    }
    for form, document in forms.items():
        assert trainc.from_objects([document]) == expected, form
    for document in (body, json.dumps(body), json.dumps(body).encode()):  # one document alone is one
        assert trainc.from_objects(document) == expected


def test_datetimes_become_iso_8601_strings():
    body = posted()
    stamped = datetime.datetime(2026, 5, 1, 10, 0, tzinfo=datetime.timezone.utc)
    body["spec"]["runtimePatches"] = [{"manager": "example.com/tool", "time": stamped}]
    (jobset,) = trainc.from_objects([body])
    assert jobset["kind"] == "JobSet"


@pytest.mark.parametrize(
    "document, line",
    [
        (
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"labels": {1: "a"}}},
            "<object 0>:1:1: metadata.labels: mapping keys must be strings, not int 1",
        ),
        (
            {"kind": "TrainJob", "spec": {"trainer": {"numNodes": float("nan")}}},
            "<object 0>:1:1: spec.trainer.numNodes: nan is not a JSON number",
        ),
        (
            {"kind": "TrainJob", "metadata": {"labels": {"a": {"b"}}}},
            "<object 0>:1:1: metadata.labels.a: cannot be sent as JSON: a set (pass dicts, lists, strings, numbers, "
            "booleans, None, YAML/JSON text or the Kubeflow SDK's models)",
        ),
        (b"\xff\xfe", "<object 0>:1:1: not UTF-8 text"),
    ],
)
def test_what_no_client_sends_as_json_is_an_input_error(document, line):
    with pytest.raises(InputErrors) as error:
        trainc.from_objects([document])
    assert error.value.render() == line


def test_nesting_is_limited_to_1000_levels_whatever_the_stack_depth():
    def nested(levels: int) -> dict:
        root = node = {}
        for _ in range(levels - 1):
            node["a"] = {}
            node = node["a"]
        return root

    with pytest.raises(InputErrors) as error:
        trainc.from_objects([nested(1001)])
    assert error.value.render().endswith(": nested deeper than 1000 levels")
    with pytest.raises(InputErrors) as error:  # within the limit: read, then refused as no Kubernetes object
        trainc.from_objects([{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", **nested(999)}])
    assert "nested" not in error.value.render()


def test_enums_and_scalar_subclasses_are_sent_as_their_values():
    """The SDK's DataType/Loss enums are str enums; an IntEnum or (int, Enum) sends its number."""
    import enum

    class Nodes(int, enum.Enum):
        TWO = 2

    class Text(str):
        def __str__(self):
            return "not the value"

    body = posted()
    body["spec"]["trainer"]["numNodes"] = Nodes.TWO
    body["metadata"]["name"] = Text(body["metadata"]["name"])
    (jobset,) = trainc.from_objects([body])
    assert jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2
    assert jobset["metadata"]["name"] == posted()["metadata"]["name"]


def test_integers_past_64_bits_are_refused():
    body = posted()
    body["spec"]["trainer"]["numNodes"] = 10**5000
    with pytest.raises(InputErrors) as error:
        trainc.from_objects([body])
    assert (
        error.value.render() == "<object 0>:1:1: spec.trainer.numNodes: is out of the 64-bit range of JSON numbers "
        "Kubernetes reads"
    )


def test_objects_shared_past_the_node_limit_are_refused_like_alias_bombs():
    shared: list = ["x"]
    for _ in range(26):
        shared = [shared, shared]  # 2**26 leaves when sent
    body = posted()
    body["metadata"]["labels"] = {"a": shared}
    with pytest.raises(InputErrors) as error:
        trainc.from_objects([body])
    assert "shared objects expand it by more than 200000 nodes" in error.value.render()


def test_surrogates_in_strings_are_sent_as_go_reads_them():
    """A pair becomes the character it encodes; a lone one U+FFFD, as the JSON of json.dumps reads in Go."""
    body = posted()
    body["spec"]["trainer"]["env"] = [{"name": "A", "value": "a\ud800b\ud83d\ude00"}]
    (jobset,) = trainc.from_objects([body])
    env = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env[0] == {"name": "A", "value": "a\ufffdb\U0001f600"}


def test_a_large_object_sent_once_is_no_bomb():
    """Only repeats count: 250,000 distinct nodes were refused as if shared."""
    from trainc.errors import Origin
    from trainc.formats.clientdata import json_data

    big = {"items": [{"name": f"E{index}", "value": "v"} for index in range(50_000)]}
    assert json_data(big, Origin("<object 0>")) == big

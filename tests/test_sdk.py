"""TrainJobs made by the real Kubeflow SDK compile with every string it wrote intact.

golden/sdk-*/ hold what `TrainerClient().train(...)` of the SDK's Kubernetes backend POSTs
(tools/golden/sdk-generate.py, run with the SDK installed): the JSON bytes themselves, or the same
object as YAML. The SDK's side is read here with `json`/`yaml.safe_load`, never with trainc's
reader, and trainc's side is its rendered YAML read back the same way, so a string changed by
reading, compiling or writing (a `bash -c` script with tabs, trailing blanks, emoji) fails.
"""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import GOLDEN, GOLDEN_SEED

from trainc import inputs as inputset
from helpers import build
from trainc.output.manifests import dump
from trainc.errors import InputErrors
from trainc.formats import source

CASES = sorted(p.name for p in GOLDEN.glob("sdk-*") if p.is_dir())
TRAINER_STEP = "trainer.kubeflow.org/trainjob-ancestor-step"


def inputs(case: str) -> list[str]:
    return sorted(str(p) for p in (GOLDEN / case).iterdir() if p.suffix in (".json", ".yaml") and ".out." not in p.name)


def sdk_trainjob(case: str) -> dict:
    """The TrainJob as the SDK wrote it."""
    (path,) = (GOLDEN / case).glob("trainjob.*")
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def rendered(paths) -> list[dict]:
    """trainc's output as any consumer of the YAML reads it."""
    return list(yaml.safe_load_all(dump(build(paths, ssh_key_seed=GOLDEN_SEED).documents())))


def jobset_of(documents: list[dict]) -> dict:
    (jobset,) = [d for d in documents if d["kind"] == "JobSet"]
    return jobset


def container(jobset: dict, step: str, name: str) -> dict:
    for rjob in jobset["spec"]["replicatedJobs"]:
        if rjob["template"].get("metadata", {}).get("labels", {}).get(TRAINER_STEP) == step:
            return next(c for c in rjob["template"]["spec"]["template"]["spec"]["containers"] if c["name"] == name)
    raise AssertionError(f"no {step} job")


def in_order(wanted: list, found: list) -> bool:
    """Every entry of `wanted`, unchanged, in `found`, in the same order."""
    rest = iter(found)
    return all(any(entry == candidate for candidate in rest) for entry in wanted)


def test_cases_exist():
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES)
def test_trainer_strings_reach_the_jobset_unchanged(case):
    trainer = sdk_trainjob(case)["spec"].get("trainer", {})
    node = container(jobset_of(rendered(inputs(case))), "trainer", "node")
    if trainer.get("command") == ["tune", "run"]:
        # BuiltinTrainer: the Torch plugin puts the recipe and config after `tune run` (spec §4.4).
        assert node["command"][:2] == ["tune", "run"]
    elif "command" in trainer:
        assert node["command"] == trainer["command"]
    if "args" in trainer:
        assert node["args"] == trainer["args"]
    assert in_order(trainer.get("env", []), node.get("env", []))
    if "image" in trainer:
        assert node["image"] == trainer["image"]


@pytest.mark.parametrize("case", [c for c in CASES if "initializer" in sdk_trainjob(c)["spec"]])
def test_initializer_strings_reach_the_jobset_unchanged(case):
    spec = sdk_trainjob(case)["spec"]["initializer"]
    jobset = jobset_of(rendered(inputs(case)))
    for kind in ("dataset", "model"):
        env = container(jobset, f"{kind}-initializer", f"{kind}-initializer")["env"]
        assert env[0] == {"name": "STORAGE_URI", "value": spec[kind]["storageUri"]}
        assert in_order(spec[kind]["env"], env[1:])


@pytest.mark.parametrize("case", CASES)
def test_name_and_kueue_labels(case):
    metadata = sdk_trainjob(case)["metadata"]
    jobset = jobset_of(rendered(inputs(case)))
    assert jobset["metadata"]["name"] == metadata["name"]
    queue = metadata.get("labels", {}).get("kueue.x-k8s.io/queue-name")
    assert jobset["metadata"]["labels"].get("kueue.x-k8s.io/queue-name") == queue


def test_sdk_script_is_long_and_awkward():
    """The cases keep what makes a `bash -c` script hard to carry: guard against a regenerated set losing it."""
    script = sdk_trainjob("sdk-torch-gpu-packages")["spec"]["trainer"]["command"][2]
    for needle in ("\t", "   \n", "😀", "日本語", "\\\\", "${PACKAGES[@]}", "'transformers[torch]>=4.40'"):
        assert needle in script
    assert "\\ud83d\\ude00" in (GOLDEN / "sdk-torch-gpu-packages" / "trainjob.json").read_text()


def _forms(trainjob: dict) -> dict:
    """The same TrainJob written the ways `kubectl apply -f` takes it."""
    return {
        "ascii.json": json.dumps(trainjob),
        "indented.json": json.dumps(trainjob, indent="\t", ensure_ascii=False) + "\n",
        "compact.json": json.dumps(trainjob, separators=(",", ":")),
        "pyyaml.yaml": yaml.safe_dump(trainjob, sort_keys=False, allow_unicode=True, width=60),
        "blocks.yaml": dump([trainjob]),
        "crlf.yaml": yaml.safe_dump(trainjob, sort_keys=False).replace("\n", "\r\n"),
    }


@pytest.mark.parametrize("case", CASES)
def test_every_serialization_compiles_alike(case, tmp_path):
    others = [p for p in inputs(case) if "trainjob." not in p]
    expected = rendered(inputs(case))
    for name, text in _forms(sdk_trainjob(case)).items():
        path = tmp_path / name
        path.write_bytes(text.encode())
        assert rendered([str(path), *others]) == expected, name


SCRIPTS = [
    "\nread -r -d '' SCRIPT << EOM\n\ndef f():\n    pass   \n\tx = 'a\tb'\n\nf()\n\nEOM\n",
    "line with trailing tab\t\nnext",
    "ends with blank lines\n\n\n",
    "  leading spaces\nthen text",
    "unicode: \u2028 \u2029 \x85 \xa0 \ufeff é 🚀",
    "cr\r\nlf",
    "- looks: like yaml\n# a comment\n---\n...",
    "",
    "yes",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_round_trip_through_json_and_yaml(script, tmp_path):
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "s"},
        "spec": {
            "runtimeRef": {"name": "torch-distributed"},
            "trainer": {"command": ["bash", "-c", script], "env": [{"name": "S", "value": script}]},
        },
    }
    for name, text in (("j.json", json.dumps(trainjob)), ("y.yaml", yaml.safe_dump(trainjob))):
        (tmp_path / name).write_text(text, encoding="utf-8")
        node = container(jobset_of(rendered([str(tmp_path / name)])), "trainer", "node")
        assert node["command"] == ["bash", "-c", script]
        assert node["env"][0] == {"name": "S", "value": script}


# JSON input: decoded as JSON (as kubectl does), not as YAML.


def _values(text: str) -> list:
    return [value for _, value in source.load_text(text, "x.json")]


def test_json_escapes_and_numbers_are_json():
    assert _values('{"a": "\\ud83d\\ude80 \\u00e9 \\/", "b": 1e3, "c": 2.0}') == [
        {"a": "🚀 é /", "b": 1000.0, "c": 2.0}
    ]


def test_json_unpaired_surrogate_is_the_replacement_character_as_in_go():
    assert _values('{"a": "x\\ud83dy\\ude00z\\\\ud83d"}') == [{"a": "x\ufffdy\ufffdz\\ud83d"}]


def test_json_stream_of_objects():
    assert _values('{"a": 1}\n{"b": 2} null\n') == [{"a": 1}, {"b": 2}]


def test_text_led_by_a_brace_that_is_not_json_is_refused_as_kubectl_refuses_it(tmp_path):
    """kubectl sniffs `{` and decodes JSON; it does not fall back to YAML (a flow mapping needs `---` first)."""
    path = tmp_path / "flow.yaml"
    path.write_text("{a: 1, b: [x, z]}\n")
    with pytest.raises(InputErrors) as info:
        build([str(path)])
    assert info.value.render() == (
        f"{path}:1:2: invalid JSON: invalid character 'a' looking for beginning of object "
        "key string (text starting with { is read as JSON, as kubectl reads it)"
    )
    assert _values("---\n{a: 1, b: [x, z]}\n") == [{"a": 1, "b": ["x", "z"]}]


def test_json_duplicate_key_is_an_error_where_it_is(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"kind": "TrainJob",\n "kind": "TrainJob"}')
    with pytest.raises(InputErrors) as info:
        build([str(path)])
    assert info.value.render() == f'{path}:2:2: invalid JSON: duplicate key "kind"'


def test_json_field_errors_point_into_the_json(tmp_path):
    trainjob = sdk_trainjob("sdk-torch-default")
    trainjob["spec"]["trainer"]["numNodez"] = 2
    text = json.dumps(trainjob, indent=2)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "numNodez" in row)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(InputErrors) as info:
        build([str(path)])
    assert info.value.render() == f'{path}:{line}:7: spec.trainer.numNodez: unknown field (did you mean "numNodes"?)'


def test_directories_yield_json_files(tmp_path):
    for name in ("a.json", "b.yaml", "c.yml", "d.txt", "e.JSON.bak"):
        (tmp_path / name).write_text("{}")
    assert [p.rsplit("/", 1)[1] for p in inputset.listed([str(tmp_path)])] == ["a.json", "b.yaml", "c.yml"]


def test_flow_yaml_field_errors_still_point_into_it(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text(
        "--- {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: f},\n"
        " spec: {runtimeRef: {name: torch-distributed}, trainer: {numNodez: 2}}}\n"
    )
    with pytest.raises(InputErrors) as info:
        build([str(path)])
    assert info.value.render() == f'{path}:2:58: spec.trainer.numNodez: unknown field (did you mean "numNodes"?)'

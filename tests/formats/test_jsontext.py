"""JSON input: decoded as Go decodes it, errors located in the JSON text as JSON counts lines."""

from __future__ import annotations

import json

import pytest

from helpers import build

from trainc.errors import InputErrors

TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "demo"},
    "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": "two"}},
}


def errors(tmp_path, text: str) -> list[str]:
    path = tmp_path / "job.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        build([str(path)])
    return [e.render().replace(f"{tmp_path}/", "") for e in caught.value.errors]


@pytest.mark.parametrize("odd", ["\x7f", "\u0085", "\u2028", "\u2029", "\ufffe", "\x9b"])
def test_characters_yaml_reads_differently_do_not_move_positions(tmp_path, odd):
    """Raw in a JSON string (json.dumps(ensure_ascii=False) writes them so), they are no line breaks
    and no errors in JSON, though YAML takes some for either."""
    document = json.loads(json.dumps(TRAINJOB))
    document["metadata"]["annotations"] = {"note": f"a{odd}b{odd}c"}
    text = json.dumps(document, indent=2, ensure_ascii=False)
    line = next(number for number, content in enumerate(text.split("\n"), 1) if '"numNodes"' in content)
    assert errors(tmp_path, text) == [f"job.json:{line}:19: spec.trainer.numNodes: must be an integer, not string"]


def test_keys_longer_than_yaml_allows_do_not_move_positions(tmp_path):
    key = "example.com/" + "k" * 2000
    document = json.loads(json.dumps(TRAINJOB))
    document["metadata"]["annotations"] = {key: "v"}
    text = json.dumps(document)
    value_at, key_at = text.index('"two"') + 1, text.index(key)  # a key's position is its opening quote
    assert [line.partition(": ")[0] for line in errors(tmp_path, text)] == [
        f"job.json:1:{at}"
        for at in sorted((value_at, key_at))  # errors come in the order of their places
    ]


def test_every_item_of_a_long_list_is_located(tmp_path):
    items = [{**TRAINJOB, "metadata": {"name": f"job-{i}"}} for i in range(300)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1)
    lines = [number for number, content in enumerate(text.splitlines(), 1) if '"numNodes"' in content]
    assert [line.partition(":")[2].partition(":")[0] for line in errors(tmp_path, text)] == [str(n) for n in lines]


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"a": 1,\n "b": 1e400}', "job.json:2:7: invalid JSON: number 1e400 is out of range"),
        ('{"a": "1e400",\n "b": 1e400}', "job.json:2:7: invalid JSON: number 1e400 is out of range"),
        ('{"a": NaN}', "job.json:1:7: invalid JSON: NaN is not JSON"),
        (
            '{"name": "j",}',
            "job.json:1:14: invalid JSON: invalid character '}' looking for beginning of object key "
            "string (text starting with { is read as JSON, as kubectl reads it)",
        ),
        (
            '{"a": [1 2]}',
            "job.json:1:10: invalid JSON: invalid character '2' after array element (text starting with { "
            "is read as JSON, as kubectl reads it)",
        ),
        (
            '{"a": "x\ny"}',
            "job.json:1:9: invalid JSON: invalid character '\\n' in string literal (text starting with { "
            "is read as JSON, as kubectl reads it)",
        ),
        (
            '{"a": 1',
            "job.json:1:8: invalid JSON: unexpected end of JSON input (text starting with { is read as JSON, as "
            "kubectl reads it)",
        ),
        ('{"a": {"x": 1,\n  "x": 2}}', 'job.json:2:3: invalid JSON: duplicate key "x"'),
    ],
)
def test_what_go_refuses_is_an_error_where_it_is(tmp_path, text, message):
    assert errors(tmp_path, text) == [message]


def test_integers_past_int64_become_floats_as_apimachinery_decodes_them(tmp_path):
    from trainc.formats import jsontext

    assert jsontext.values('{"a": 9223372036854775807, "b": 9223372036854775808, "c": -9223372036854775808}') == [
        {"a": 2**63 - 1, "b": 9.223372036854776e18, "c": -(2**63)}
    ]
    with pytest.raises(jsontext.JsonError):  # past float64 too: refused, as Go refuses it
        jsontext.values('{"a": ' + "9" * 5000 + "}")


def test_values_glued_together_are_located(tmp_path):
    """A JSON stream may hold values with no space between them, scalars too."""
    job = json.dumps(TRAINJOB)
    column = 7 + job.index('"two"')
    assert errors(tmp_path, "{}null" + job) == [
        f"job.json:1:{column}: spec.trainer.numNodes: must be an integer, "
        "not string",  # and the empty object, as kubectl apply refuses it
        "job.json:1:1: apiVersion: required for kubectl apply: a non-empty string",
    ]


def test_depth_counts_the_brackets_outside_strings_only(monkeypatch):
    """The text is decoded first and scanned for depth only when its values nest too deep or the decoder stops (a
    cluster state is megabytes), from bracket to bracket, the strings between skipped whole: brackets in strings,
    escaped quotes among them, never count; the level past the limit is refused where it opens, before a syntax
    error or a duplicate key. Over random texts of quotes, escapes and brackets (a limit of 3), it refuses exactly what a scan
    of every string and bracket token refuses, at the same offset."""
    import random

    from trainc.formats import jsontext

    strings = ", ".join(f'"k{index}": "\\"{"[" * 600}\\\\"' for index in range(5))
    nested = "[" * 999 + "]" * 999
    assert len(jsontext.values(f'{{{strings}, "deep": {nested}}}')) == 1
    deeper = f'{{{strings}, "deep": [{nested}]}}'
    with pytest.raises(jsontext.JsonError) as caught:
        jsontext.values(deeper)
    assert caught.value.args == ("nested deeper than 1000 levels", deeper.index('"deep": ') + 8 + 999)
    for broken in (deeper[:-1] + ", }", deeper.replace('"k3"', '"k1"')):  # too deep is said before what else is wrong
        with pytest.raises(jsontext.JsonError) as caught:
            jsontext.values(broken)
        assert caught.value.args[0] == "nested deeper than 1000 levels"

    def scanned(text: str):  # every token, one by one
        depth = 0
        for token in jsontext._patterns().token.finditer(text):
            depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(token.group(), 0)
            if depth > 3 and token.group() in "[{":
                return token.start()
        return None

    monkeypatch.setattr(jsontext, "MAX_DEPTH", 3)
    draw = random.Random(2170)
    for _ in range(5000):
        text = "".join(draw.choice('""\\[[]{{}a, ') for _ in range(draw.randrange(40)))
        try:
            jsontext._check_depth(text)
            found = None
        except jsontext.JsonError as error:
            found = error.args[1]
        assert found == scanned(text), text

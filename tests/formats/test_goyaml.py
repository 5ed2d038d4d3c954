"""Plain scalars and map keys read as kubectl reads them (go-yaml v2 through sigs.k8s.io/yaml)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from conftest import need

from trainc.errors import InputError
from trainc.formats import source
from trainc.formats.goyaml import BOOL, FLOAT, INT, NULL, STR, key_text, resolve

SCALARS = [
    # go-yaml v2's booleans are YAML 1.1's plus y/n; no sexagesimal numbers, timestamps stay text
    ("y", BOOL, True),
    ("N", BOOL, False),
    ("on", BOOL, True),
    ("Off", BOOL, False),
    ("yes", BOOL, True),
    ("12:30", STR, "12:30"),
    ("1:30.5", STR, "1:30.5"),
    ("2001-12-14", STR, "2001-12-14"),
    ("~", NULL, None),
    ("", NULL, None),
    ("Null", NULL, None),
    # strconv.ParseInt(s, 0, 64) after dropping underscores: Go's prefixes, a leading 0 is octal
    ("0o17", INT, 15),
    ("017", INT, 15),
    ("0x1F", INT, 31),
    ("-0b101", INT, -5),
    ("1_000", INT, 1000),
    ("+5", INT, 5),
    ("00", INT, 0),
    ("9223372036854775808", INT, 2**63),  # ParseUint takes what ParseInt cannot
    # the yamlStyleFloat pattern, then ParseFloat (which fails past float64)
    ("1e3", FLOAT, 1000.0),
    ("1.", FLOAT, 1.0),
    (".5e3", FLOAT, 500.0),
    ("08", FLOAT, 8.0),
    ("18446744073709551616", FLOAT, 2.0**64),
    ("1e999", STR, "1e999"),
    ("1e", STR, "1e"),
    ("0b", STR, "0b"),
    ("-", STR, "-"),
    (".x", STR, ".x"),
]


@pytest.mark.parametrize("text, tag, value", SCALARS, ids=[case[0] or "empty" for case in SCALARS])
def test_plain_scalars_resolve_as_go_yaml_v2(text, tag, value):
    assert resolve(text) == (tag, value)


@pytest.mark.parametrize(
    "key, text",
    [
        (1, "1"),
        (True, "true"),
        (False, "false"),
        (1.5, "1.5"),
        (1e6, "1e+06"),
        (123456.0, "123456"),
        (0.0001, "0.0001"),
        (1e-5, "1e-05"),
        (0.1, "0.1"),
        (math.inf, ".inf"),
        (None, None),
    ],
)
def test_map_keys_become_the_text_sigs_k8s_io_yaml_gives_them(key, text):
    assert key_text(key) == text


def load(text: str):
    (document,) = [data for _, data in source.load_text(text, "a.yaml")]
    return document


def test_numbers_are_what_the_json_kubectl_sends_says():
    """Go's JSON writes an integral float without a fraction, and the API server reads an integer."""
    assert load("[2.0, 1e3, 1.5, -0.0, 1e21]") == [2, 1000, 1.5, 0, 1e21]
    assert [type(value) for value in load("[2.0, 1e21]")] == [int, float]


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: .nan", "a.yaml:1:4: invalid YAML: .nan is not a JSON number (kubectl cannot send it)"),
        ("a: !!int abc", "a.yaml:1:4: invalid YAML: cannot read 'abc' as !!int"),
        ("a: !!bool 1", "a.yaml:1:4: invalid YAML: cannot read '1' as !!bool"),
        ("a: !!null x", "a.yaml:1:4: invalid YAML: cannot read 'x' as !!null"),
        ("1: a\n'1': b", 'a.yaml:2:1: invalid YAML: duplicate key "1"'),
    ],
)
def test_what_kubectl_cannot_send_is_refused(text, message):
    with pytest.raises(InputError) as error:
        load(text)
    assert error.value.render() == message


def test_explicit_tags_convert_as_go_yaml_does():
    assert load('a: !!int "12"\nb: !!float 3\nc: !!str 12\nd: !!bool "on"') == {"a": 12, "b": 3, "c": "12", "d": True}


KUBECTL_DOCUMENT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: scalars
data:
  plain: [y, N, 12:30, 1:30.5, 1e3, 0o17, 017, 08, 0x1F, -0b101, 1_000, +5, 1., 1.5, 1e999, .5, .5e3, 2001-12-14,
          0b, true, Off, ~, 0, -0, 00, 1__0, 2.0, 1e21, -1.5e-7, yes, NO, "12", 1e+3, 0.1, "y", on]
  keys: {1: x, true: y, 1.5: z, 1e6: w, 0.0001: v}
"""


def test_trainc_reads_a_document_as_kubectl_does(tmp_path):
    need(shutil.which("kubectl") is not None, "kubectl is not installed")
    path = tmp_path / "scalars.yaml"
    path.write_text(KUBECTL_DOCUMENT)
    result = subprocess.run(
        ["kubectl", "patch", "--local", "--type", "merge", "-p", "{}", "-f", str(path), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert load(KUBECTL_DOCUMENT)["data"] == json.loads(result.stdout)["data"]


@pytest.mark.parametrize("text", ["9" * 4301, "0x" + "f" * 17, "0b" + "1" * 65])
def test_integers_past_64_bits_are_read_as_go_yaml_reads_them_without_slow_conversions(text):
    assert resolve(text)[0] in (STR, FLOAT)
    assert resolve("9" * 4301) == (STR, "9" * 4301)  # past float64 too: text


def test_float_keys_past_float32_and_merge_markers_as_values():
    assert (key_text(1e39), key_text(-1e308)) == (".inf", "-.inf")
    assert load("a: <<\nb: [<<]\n") == {"a": "<<", "b": ["<<"]}


def test_the_non_specific_tag_makes_text_as_in_go_yaml():
    """libyaml resolves `! 010` like a plain scalar; go-yaml (kubectl) reads the text."""
    assert load('a: ! 010\nb: ! y\nc: ! "1"\nd: [! 1, ! ~]\ne: 010\nf: "hi! there"\ng: ! [1]\n') == {
        "a": "010",
        "b": "y",
        "c": "1",
        "d": ["1", "~"],
        "e": 8,
        "f": "hi! there",
        "g": [1],
    }


def test_a_map_tag_on_a_scalar_is_an_error_not_a_traceback():
    with pytest.raises(InputError) as error:
        load("image: !!map x")
    assert error.value.render() == "a.yaml:1:8: invalid YAML: cannot read 'x' as !!map"


def test_uint64_keys_are_refused_as_sigs_k8s_io_yaml_refuses_them():
    with pytest.raises(InputError) as error:
        load("9223372036854775808: a")
    assert error.value.render() == "a.yaml:1:1: invalid YAML: mapping keys must be strings"
    assert load("9223372036854775807: a") == {"9223372036854775807": "a"}


# Where libyaml (trainc's one reader) and go-yaml (kubectl's) can differ: tags, `?` and tabs in plain scalars,
# block scalar headers, escapes past Unicode and lone surrogates. Each once held a different verdict as soon as
# the file held a `!` anywhere (PyYAML's own parser then read it).
EDGES = [
    "[n?]",
    "[a?b]",
    "{a?: b}",
    "[?a]",
    "[a, ? b]",
    "[http://x?y]",
    "x?",
    "x\t",
    "b\tc",
    "|#",
    '"\\U00110000"',
    '"\\uD83D"',
    '"\\ud83d\\ude00"',
    '"\\U0001F600"',
    "! 010",
    "&a ! 010",
    "! &a 010",
    "[! 1, ! y]",
    "! [1]",
]
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {}\n"


def _trainc(text: str):
    try:
        return load(text)["data"]
    except InputError as error:
        return error.mark or error.render()


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_edges_read_as_kubectl_reads_them_whatever_else_the_file_holds(tmp_path, value):
    need(shutil.which("kubectl") is not None, "kubectl is not installed")
    text = CONFIG_MAP.format(value)
    (tmp_path / "a.yaml").write_text(text)
    kubectl = subprocess.run(
        ["kubectl", "patch", "--local", "--type", "merge", "-p", "{}", "-f", str(tmp_path / "a.yaml"), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    ours = _trainc(text)
    if kubectl.returncode != 0:
        assert "error converting YAML to JSON" in kubectl.stderr
        assert isinstance(ours, tuple), ours  # refused, at a position
        assert ours[0] == 6
    else:
        assert ours == json.loads(kubectl.stdout)["data"]
    with_bang = _trainc("# todo !\n" + text)
    assert with_bang == (ours if isinstance(ours, dict) else (ours[0] + 1, ours[1]))

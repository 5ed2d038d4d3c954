"""The YAML writer: every string reads back identically, by PyYAML and by go-yaml (kubectl kustomize)."""

from __future__ import annotations

import random
import shutil
import subprocess

import yaml
from conftest import need

from trainc.formats.serialize import dump_all

TRICKY = [
    "yes",
    "No",
    "ON",
    "off",
    "true",
    "null",
    "~",
    "0777",
    "0x1F",
    "1e3",
    "1_000",
    ".5",
    ".inf",
    "-.Inf",
    "NaN",
    "2026-01-01",
    "12:30",
    "1:20",
    "-",
    "- a",
    "? x",
    "a: b",
    "a:",
    "a #b",
    "@x",
    "`x",
    "%x",
    "!x",
    "&x",
    "*x",
    "|",
    ">",
    "'",
    '"',
    "",
    "  ",
    " a",
    "a ",
    "y",
    "n",
    "=",
    "<<",
    "1.0",
    "+1",
    "-1",
    "0o17",
    "[x]",
    "x[0]",
    "a,b",
    "\t",
    "a\tb",
    "line\n",
    "two\nlines",
    "trailing \nspace",
    "\ttab\nstart",
    "keep\n\n",
    "no newline\nend",
    "\n",
    "é😀",
    "\x85",
    "\u2028",
    "\x00",
    "\ufeff",
    "\\",
    "C:\\path",
]


def strings(count: int, seed: int):
    rng = random.Random(seed)
    alphabet = list("abcXYZ019 :#-_./@'\"\\\n\t{}[],&*!|>%?`~=+()") + ["é", "😀", " \n", "\n\n"]
    yield from TRICKY
    for _ in range(count):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))


def test_plain_and_block_styles_where_safe():
    text = dump_all([{"image": "my/img:1", "n": 2, "ok": True, "empty": {}, "script": "a\nb\n", "num": "29500"}])
    assert text == '---\nimage: my/img:1\n"n": 2\nok: true\nempty: {}\nscript: |\n  a\n  b\nnum: "29500"\n'


def test_every_string_reads_back_with_pyyaml():
    for text in strings(3000, 1):
        document = {"k": text, text or "e": [text, {"n": text}], "l": [[text, 1], True, None, 0]}
        assert yaml.safe_load(dump_all([document])) == document, repr(text)


def test_every_string_reads_back_with_go_yaml(tmp_path):
    need(shutil.which("kubectl") is not None, "kubectl (with kustomize) is not installed")
    # NEL (U+0085) is excluded: kustomize writes it back raw, and PyYAML then folds it.
    data = {f"k{i}": text for i, text in enumerate(strings(1500, 2)) if "\x85" not in text}
    (tmp_path / "cm.yaml").write_text(
        dump_all([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": data}])
    )
    (tmp_path / "kustomization.yaml").write_text("resources:\n- cm.yaml\n")
    result = subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert yaml.load(result.stdout, Loader=yaml.BaseLoader)["data"] == data


def test_floats_are_floats_to_yaml_1_1_and_go_yaml_readers():
    """PyYAML (YAML 1.1) wants a `.` and a signed exponent; `1e-05` would read back as a string there."""
    values = [1e-05, 1e21, 1.5, 2.0, -3e-07, 1e100, 0.1]
    text = dump_all([{"v": values}])
    assert text == "---\nv:\n- 1.0e-05\n- 1.0e+21\n- 1.5\n- 2.0\n- -3.0e-07\n- 1.0e+100\n- 0.1\n"
    assert yaml.safe_load(text) == {"v": values}


def test_ascii_text_is_escaped_as_by_the_whole_class():
    # quote() escapes ASCII text with the class's ASCII part alone: the same escapes, ASCII or not
    import re

    from trainc.formats import serialize

    whole = re.compile(serialize._ESCAPE)
    rng = random.Random(3)
    ranges = [(0, 0x80), (0x80, 0xA0), (0x2020, 0x2030), (0xD7F0, 0xE010), (0xFEF0, 0xFFFF)]
    for _ in range(20000):
        text = "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(0, 10)))
        assert serialize.quote(text) == '"' + whole.sub(serialize._escape, text) + '"', repr(text)

"""blockyaml reads the common shape to exactly what libyaml's loader gives, and hands everything else back."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import yaml

from trainc.formats import blockyaml, position, yamltext

ROOT = Path(__file__).resolve().parents[2]


def same(left, right) -> bool:
    """Equal values of the same types (1 is not 1.0 nor True), keys in the same order."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    return left == right


def libyaml(text: str):
    try:
        return yamltext.load_all(text)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        return exc


def agrees(text: str) -> bool | None:
    """Whether blockyaml's reading is the loader's (None: blockyaml handed the text back)."""
    fast = blockyaml.documents(text)
    if fast is None:
        return None
    return same(fast, libyaml(text))


CORPUS = sorted(
    path
    for folder in ("golden", "runtimes", "examples", "tests")
    for pattern in ("*.yaml", "*.yml")
    for path in (ROOT / folder).rglob(pattern)
)


def test_every_yaml_file_of_the_project_is_read_as_libyaml_reads_it():
    read = [path for path in CORPUS if agrees(path.read_text(encoding="utf-8", errors="replace")) is not None]
    wrong = [path for path in read if not agrees(path.read_text(encoding="utf-8", errors="replace"))]
    assert wrong == []
    assert len(read) > 0.8 * len(CORPUS)  # the common shape is what it is for: most files never reach libyaml


READ = [
    "a: 1\nb: 1.0\nc: 1.5\nd: 1e3\ne: 0x1F\nf: 0o17\ng: 017\nh: 1_000\ni: +1\nj: -2\nk: .5\n",
    "a: y\nb: n\nc: on\nd: off\ne: yes\nf: ~\ng: null\nh:\ni: true\nj: False\nk: <<\n",
    "a: 9223372036854775807\nb: 9223372036854775808\nc: 18446744073709551616\nd: 1.0e20\ne: 1.0e21\n",
    "a: '1'\nb: \"2\"\nc: 'it''s'\nd: \"a # b\"\ne: 'x' # c\nf: \"\" \ng: ''\n",
    "a: b # comment\nc: d#e\nf: http://x:80/p\ng: 12:30\nh: 2024-01-01\ni: a b  c \n",
    "list:\n- a\n- 1\n-   b: 2\n    c: 3\n- name: x\n  args: [--epochs, \"3\", -1, 'q']\n",
    "a:\n  b:\n  - c\n  -  d: [ ]\n     e: {}\n  f: {name: x, key: 'y'}\nz: [1, 2.0, y, y z, -w]\n",
    "---\na: 1\n---\n# only a comment\nb: 2\n",
    "# leading comment\n\n---\nkind: List\nitems:\n- a: 1\n",
    "a: caf\u00e9\nb: \u00e9t\u00e9 # \u00a7 3.10\n",
    "a: [b, [c]]\nb: {c: {d: 1}, e: []}\nc: [ {x: [y, {}]} , [ ] ,[[1]]] # nested\n",
    "rules:\n- {apiGroups: [\"*\"], resources: [pods, 'jobs'], verbs: [get]}\n- match: {kinds: [a/B]}\n",
    *(
        BLOCK_SCALARS := [
            "a: |\n  text\n",
            "a: |-\n  x\n\n  y\nb: 1\n",
            "a: >\n  x\n  y\n\n\n  z\n\nb: 2\n",
            "a: >-\n  one: two\n  [three] # four\n",
            "- |\n x\n-   >-\n      a\n      b\n- c\n",
            "- k: |\n    x # not a comment\n    # nor this\n\n  j: |  # a comment\n      y  \n",
            "a:\n  b: |\n    #!/bin/sh\n      indented: kept\n    - x\n  c: >-\n    caf\u00e9\nd: |\n  last",
            "a: |\n  x\n  \n  y\n---\nb: >\n  z\n",
            "a: >-\n  x\n  y\n\n  z\n   indented\n  v\n\n   w\n  u\n",
            "- e: >-\n    all(c,\n      c.x)\n  f: >\n      first\n        indented\n      not\n",
        ]
    ),
    "",
    "# nothing\n",
    "---\n",
    "a: 1\n---\n",
    "# c\n---\n---\na: 1\n---",
]
HANDED_BACK = [
    "c: -\n",
    "d: - x\n",
    "e: ?x\n",
    "f: :x\n",
    "h: [a, ]\n",
    "a: 1\n b: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "- a\n  b\n",
    "a: b\n  c\n",
    "a: 1\na: 2\n",
    "y: 1\n",
    "1: x\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: |+\n  kept\n\n",
    "a: |2\n   x\n",
    "a: |\n\n  x\n",
    "a: |\nb: 1\n",
    "a: |\n  x\n     \n",
    "a: | x\n  y\n",
    "a:\n  |\n  x\n",
    'a: "x\\ty"\n',
    "a:\tb\n",
    "a: 1\r\n",
    "a: x\u2028y\n",
    "a: x\x85y\n",
    "\ufeffa: 1\n",
    "a: .inf\n",
    "a: .nan\n",
    "a: [n?]\n",
    "a: x: y\n",
    "a: x:\n",
    "a: 'x\n",
    "a: [b\n",
    "...\n",
    "--- a\n",
    "%YAML 1.1\n---\na: 1\n",
    "  a: 1\n",
    "a: [b, [c]\n",
    "a: {b: [c}}\n",
    "a: [[b], ]\n",
    "a: [" + "[" * 70 + "]" * 70 + "]\n",
]


@pytest.mark.parametrize("text", READ)
def test_the_common_shape_is_read_as_libyaml_reads_it(text):
    assert agrees(text) is True


@pytest.mark.parametrize("text", HANDED_BACK)
def test_what_it_cannot_be_sure_of_goes_to_libyaml(text):
    """Anchors, tags, block scalars, escapes, scalars over lines, repeats, errors: libyaml reads them (and
    positions their errors)."""
    assert blockyaml.documents(text) is None


def _mutated(rng: random.Random, text: str) -> str:
    pieces = [" ", "-", ":", "#", "'", '"', "[", "]", "{", "}", ",", "|", ">", "&", "*", "!", "?", "%", "@", "`"]
    pieces += ["\\", "\t", "\r", "\u00e9", "\u2028", "\x85", "\ufeff", "  ", "- ", ": ", " #", "---\n", "..."]
    pieces += ["true", "null", "y", "on", "0x1F", "1e3", ".5", "+1", "-.inf", "0o17", "1_000", "2.0", "<<"]
    pieces += ["'a''b'", '"a\\"b"', "[a, b]", "{a: 1}", "{}", "[]", "9223372036854775808", "\n"]
    pieces += [": |", ": >-", "- |-", "|+", ">2", "[[", "]]", "{a: [b]}", "[{}]"]
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(lines))
        line, draw = lines[at], rng.random()
        if draw < 0.5:
            cut = rng.randrange(len(line) + 1)
            lines[at] = line[:cut] + rng.choice(pieces) + line[cut + rng.randint(0, 2) :]
        elif draw < 0.7:
            lines.insert(at, rng.choice(lines))
        elif draw < 0.85:
            lines[at] = " " * rng.randint(0, 3) + line
        else:
            lines[at] = line[rng.randint(0, 3) :]
    return "\n".join(lines)


def mutations(seed: int, count: int):
    """`count` random edits of the project's YAML files (`_mutated`), the same for the same seed."""
    rng = random.Random(seed)
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in CORPUS]
    texts = [text for text in texts if text.strip()] + BLOCK_SCALARS * 20  # few project files hold block scalars
    return (_mutated(rng, rng.choice(texts)) for _ in range(count))


@pytest.mark.parametrize("seed", range(2))
def test_documents_are_cut_where_libyaml_starts_them(seed):
    """The spans of the documents of a stream (what passes through as written) are libyaml's, for the project's
    files and random edits of them that blockyaml reads."""
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in CORPUS] if seed == 0 else []
    cut = 0
    for text in [*texts, *READ, *mutations(seed, 1500)]:
        found = blockyaml.spans(text)
        if found is not None:
            assert found == yamltext.document_spans(text), text
            cut += len(found) > 1
    assert cut > 20


@pytest.mark.parametrize("seed", range(4))
def test_mutated_project_files_are_read_as_libyaml_reads_them_or_handed_back(seed):
    """Random edits of the project's YAML (characters, indentation, lines): whatever blockyaml reads, libyaml
    reads the same; run at length with more seeds when this module changes."""
    read = 0
    for text in mutations(seed, 1500):
        verdict = agrees(text)
        assert verdict is not False, text
        read += verdict is True
    assert read > 100  # the mutations reach the shapes it reads, not only what it hands back


@pytest.mark.parametrize(
    "line",
    [
        "key: [a" + " " * 1_000_000 + "x]",
        "key: [a" + " " * 1_000_000 + "#]",
        "key: [" + "a, " * 300_000 + "]",
        "key: " + "[" * 1_000_000,
        "key: [" + "[{a: [b]}], " * 200_000 + "[]]",
        "key: |\n" + "  a line of a script\n" * 1_000_000 + "other: 1",
        "key: >-\n" + "  a line of a rule\n\n" * 1_000_000 + "other: 1",
    ],
    ids=[
        "spaces-then-text",
        "spaces-then-comment",
        "items-then-trailing-comma",
        "deep",
        "nested-items",
        "literal-lines",
        "folded-lines",
    ],
)
def test_a_hostile_line_or_block_scalar_is_read_in_linear_time(line):
    """A million spaces or items in one flow collection, a million lines in one block scalar: read (or handed back)
    at once, where a backtracking pattern, a slice per item or a string grown line by line took hours. Run apart, so
    that a regression fails at the bound instead of hanging."""
    import subprocess
    import sys

    probe = "import sys; from trainc.formats import blockyaml; print(blockyaml.documents(sys.stdin.read()) is None)"
    done = subprocess.run(
        [sys.executable, "-c", probe], input=line + "\n", capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0 and done.stdout.strip() in ("True", "False"), done.stderr


# --- positions: `locate` against libyaml's composed nodes (`position.composed_mark`, what it falls back on)


def every_path(data, prefix=()):
    """Each node's path, and paths one step past it that are not there (a missing key, an index too far, a step
    into a scalar)."""
    yield prefix
    if isinstance(data, dict):
        for name, value in data.items():
            yield from every_path(value, (*prefix, name))
        yield from ((*prefix, "no-such-key"), (*prefix, 0))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from every_path(value, (*prefix, index))
        yield from ((*prefix, len(data)), (*prefix, "name"))
    else:
        yield from ((*prefix, "below"), (*prefix, 0))


def placed_as_libyaml_places(text: str) -> tuple[int, int]:
    """(lookups answered, lookups handed back) for every path of every document of `text`, both ways of asking
    (a key's place, exactly written); fails on the first answer libyaml's nodes do not give."""
    answered = unsure = 0
    for index, document in enumerate(blockyaml.documents(text)):
        for path in every_path(document):
            for key in (False, True):
                for exact in (False, True):
                    found = blockyaml.locate(text, index, path, key, exact)
                    if found is blockyaml.UNSURE:
                        unsure += 1
                        continue
                    assert found == position.composed_mark(text, index, path, key, exact), (
                        text,
                        index,
                        path,
                        key,
                        exact,
                    )
                    answered += 1
    return answered, unsure


def test_every_place_in_the_project_s_yaml_is_where_libyaml_puts_it():
    answered = unsure = 0
    for path in CORPUS:
        text = path.read_text(encoding="utf-8", errors="replace")
        if blockyaml.documents(text) is not None:
            done = placed_as_libyaml_places(text)
            answered, unsure = answered + done[0], unsure + done[1]
    assert answered > 100_000 and unsure < answered / 5  # flow items and empty values are libyaml's


@pytest.mark.parametrize("text", [text for text in READ if any(blockyaml.documents(text) or ())])
def test_the_common_shape_is_placed_as_libyaml_places_it(text):
    assert placed_as_libyaml_places(text)[0] > 0


def test_what_it_cannot_place_is_handed_back():
    text = "a:\n  b: {c: 1}\n  d: [x]\n  e:\nf: 1\n---\n"
    assert blockyaml.locate(text, 0, ("a", "e")) is blockyaml.UNSURE  # an empty value
    assert blockyaml.locate("a: &x 1\n", 0, ("a",)) is blockyaml.UNSURE  # not of the shape it reads
    assert blockyaml.locate(text, 1, ()) is blockyaml.UNSURE  # an empty document
    assert blockyaml.locate(text, 2, ()) is blockyaml.UNSURE  # no such document


def test_flow_items_are_placed_at_their_first_character():
    """A flow collection's items, keys and values, nested too: a scalar at its first character (a quoted one at its
    quote), a collection at its bracket, as libyaml marks them."""
    text = 'a:\n  b: {c: 1, d: [x, "y", {e: f}]}\n'
    places = {
        ("a", "b"): (1, 5),
        ("a", "b", "c"): (1, 9),
        ("a", "b", "d", 1): (1, 19),
        ("a", "b", "d", 2): (1, 24),
        ("a", "b", "d", 2, "e"): (1, 28),
    }
    for path, place in places.items():
        assert blockyaml.locate(text, 0, path) == place == position.composed_mark(text, 0, path, False, False)
    assert blockyaml.locate(text, 0, ("a", "b", "d", 2, "e"), key=True) == (1, 25)
    assert blockyaml.locate(text, 0, ("a", "b", "d", 3), exact=True) is None


@pytest.mark.parametrize("seed", range(2))
def test_mutated_project_files_are_placed_as_libyaml_places_them(seed):
    placed = 0
    for text in mutations(seed, 400):
        if blockyaml.documents(text) is not None:
            placed += placed_as_libyaml_places(text)[0] > 0
    assert placed > 20


def test_a_long_list_is_read_through_once_however_many_places_are_asked():
    """A List of 3000 TrainJobs with a message at each: every item is found from an index of the list's entries,
    made once, not by reading the list from its top for each (quadratic: a 4000-item List took 6 s to print)."""
    items = "".join(f"- kind: TrainJob\n  metadata:\n    name: job-{i}\n  spec: {{}}\n" for i in range(3000))
    text = "kind: List\nitems:\n" + items
    reads = []

    class Counted(list):
        def __getitem__(self, at):
            reads.append(at)
            return super().__getitem__(at)

    outline = blockyaml._outline(text)
    outline[0] = (Counted(outline[0][0]), outline[0][1])
    for i in (*range(3000), *range(2999, -1, -7)):
        assert blockyaml.locate(text, 0, ("items", i, "metadata", "name")) == (4 * i + 4, 10)
    assert len(reads) < 20 * len(outline[0][0])  # a few reads per line, not one per line per item asked


def test_a_text_read_already_is_placed_without_reading_it_again(monkeypatch):
    """A parallel build's worker reads its files, then places each TrainJob's messages in its text as it compiles
    it: within `remembering`, a text read is not read a second time to know it can be placed (a fifth of a build's
    time with every check on); outside it, as one that was never read."""
    text = "kind: TrainJob\nmetadata:\n  name: a\n  labels: {team: x}\nspec: {}\n"
    read = []
    real = blockyaml._document
    monkeypatch.setattr(blockyaml, "_document", lambda lines: read.append(1) or real(lines))
    with blockyaml.remembering():
        texts = [text.replace("name: a", f"name: a{index}") for index in range(20)]
        assert all(blockyaml.documents(each) is not None for each in texts) and len(read) == 20
        assert [blockyaml.locate(each, 0, ("metadata", "labels", "team")) for each in texts] == [(3, 17)] * 20
        assert len(read) == 20 and blockyaml._READ == [{}]  # each forgotten once outlined
        other = text.replace("name: a", "name: b")
        assert blockyaml.locate(other, 0, ("metadata", "name")) == (2, 8) and len(read) == 21  # never read: read
        assert blockyaml.locate("kind: [a, b", 0, ("kind",)) is blockyaml.UNSURE  # libyaml's to place
    assert blockyaml._READ == []
    read.clear()
    blockyaml.documents(text)
    assert blockyaml.locate(text, 0, ("metadata", "name")) == (2, 8) and len(read) == 2  # read again to know


def test_a_mapping_s_keys_are_read_off_the_lines():
    text = "metadata:\n  name: a\n  labels: {x: y, z: w}\nspec: [1]\nempty:\n"
    assert blockyaml.keys(text, 0, ()) == ["metadata", "spec", "empty"]
    assert blockyaml.keys(text, 0, ("metadata",)) == ["name", "labels"]
    assert blockyaml.keys(text, 0, ("metadata", "labels")) == ["x", "z"]  # a flow mapping's
    assert blockyaml.keys(text, 0, ("spec",)) is None and blockyaml.keys(text, 0, ("metadata", "name")) is None
    assert blockyaml.keys(text, 0, ("status",)) is None  # not written
    assert blockyaml.keys(text, 0, ("empty",)) is blockyaml.UNSURE  # an empty value: libyaml's to place
    assert blockyaml.keys("a: &x 1\n", 0, ()) is blockyaml.UNSURE  # not of the shape it reads

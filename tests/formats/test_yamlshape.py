"""YAML nesting is refused the same with any PyYAML: libyaml 0.2.6's rule, applied by PyYAML's scanner
(`trainc/yamlshape.py`), matches libyaml 0.2.6 itself; the verdict does not depend on unrelated text; and
ordinary inputs never pay for the check."""

from __future__ import annotations

import random

import pytest
import yaml
from conftest import GOLDEN, need

from trainc.errors import InputError
from trainc.formats import source, yamlshape, yamltext
from trainc.formats.limits import MAX_DEPTH, room_for_depth


def _libyaml_version() -> tuple[int, ...]:
    try:
        from yaml import _yaml
    except ImportError:
        return ()
    return tuple(int(part) for part in _yaml.get_version_string().split("."))


def _tokens(loader, text: str):
    """How scanning `text` ends: "ok", or the error's words and 0-based position."""
    scanner = loader(text)
    try:
        with room_for_depth(yamlshape.FRAMES_PER_LEVEL):
            while scanner.check_token():
                scanner.get_token()
        return "ok"
    except yaml.YAMLError as exc:
        return exc.problem, exc.context, (exc.problem_mark.line, exc.problem_mark.column)
    finally:
        scanner.dispose()


def _block(rng: random.Random, levels: int, tail: str) -> str:
    """`levels` block collections that each raise the indentation, `tail` innermost: a few mappings,
    key or value, each holding a sequence at its own indentation (which raises none), then compact
    sequences (`- - -`), which keep the text short."""
    lines, indent = [], 0
    for _ in range(min(levels, rng.randint(0, 12))):
        lines += [" " * indent + rng.choice(["a:", "?"]), " " * indent + "-"]
        indent += 2
        levels -= 1
    return "\n".join(lines + [" " * indent + "- " * max(levels, 0) + tail]) + "\n"


def _flow(rng: random.Random, levels: int) -> str:
    opened = [rng.choice(["[", "{a: ", "[b: ", "[? ", "[1, {e: f}, "]) for _ in range(levels)]
    return "".join(opened) + "x" + "".join("]" if bracket[0] == "[" else "}" for bracket in reversed(opened))


def _cases() -> list[str]:
    """Block and flow levels summing to just under, at and just over the limit; PyYAML's scanner
    takes time quadratic in flow levels, so most of the levels are blocks."""
    rng = random.Random(2170)
    cases = []
    for blocks in (0, 1, 700, 990, 998, 999, 1000, 1001):
        for flows in sorted({max(MAX_DEPTH - blocks + delta, 0) for delta in (-1, 0, 1)}):
            cases.append(_block(rng, blocks, _flow(rng, flows)))
    for _ in range(30):
        blocks = rng.randint(900, 1000)
        cases.append(_block(rng, blocks, _flow(rng, MAX_DEPTH - blocks + rng.randint(-3, 3))))
    return cases


CASES = _cases()


def test_nesting_rule_is_libyaml_0_2_6s():
    need(
        _libyaml_version() >= (0, 2, 6), "needs libyaml 0.2.6 or newer (PyYAML 6.0.4's wheels), the rule compared with"
    )
    outcomes = [(_tokens(yaml.CSafeLoader, text), _tokens(yamltext._DepthScanner, text)) for text in CASES]
    assert [libyaml for libyaml, ours in outcomes if libyaml != ours] == []
    refused = sum(libyaml != "ok" for libyaml, _ in outcomes)
    assert 0.2 * len(CASES) < refused < 0.8 * len(CASES)  # the cases straddle the limit


def _load(text: str):
    try:
        with room_for_depth():  # to compare and print what was read
            return repr([data for _, data in source.load_text(text, "a.yaml")])
    except InputError as exc:
        return exc.mark, exc.message


NESTED = [
    "- " * 990 + "[" * 10 + "]" * 10,  # 1000 levels: read
    "- " * 990 + "[" * 11 + "]" * 11,  # 1001 levels
    "".join(" " * i + "a:\n" for i in range(1000)),
    "- " * 999 + "x",
    "a: 1\n---\nb: " + "[b: " * 600 + "x" + "]" * 600 + "\n",
    "a: &x " + "[" * 600 + "]" * 600 + "\nb: " + "[" * 600 + "*x" + "]" * 600,
    "a: &x " + "[" * 400 + "]" * 400 + "\nb: " + "[" * 400 + "*x" + "]" * 400,
    "a: &x [*x]\nb:\n" + "- " * 1000 + "x",  # a recursive alias, but the nesting is refused first
    *CASES[-30::6],
]


def _shifted(result, lines: int):
    return result if isinstance(result, str) else ((result[0][0] + lines, result[0][1]), result[1])


@pytest.mark.parametrize("text", NESTED, ids=range(len(NESTED)))
def test_the_verdict_does_not_depend_on_unrelated_text(text):
    """A `!` elsewhere (a comment) once switched to PyYAML's own parser, which reads and refuses differently;
    and text PyYAML's scanner refuses (a tab after a plain scalar), which libyaml and kubectl read, in an earlier
    document must not change the nesting verdict, which that scanner gives."""
    alone = _load(text)
    assert _load("# todo !\n" + text) == _shifted(alone, 1)
    after_a_tab = _load("t: x\t\n---\n" + text)
    assert after_a_tab == _shifted(alone, 2) if isinstance(alone, tuple) else after_a_tab.startswith("[{'t': 'x'}")


def test_data_nested_past_the_limit_is_refused_where_it_passes_it():
    text = "a: " + "[b: " * 500 + "[" + "]" * 501
    assert _load(text) == ((1, 2001), "invalid YAML: nested deeper than 1000 levels")
    text = "a: " + "[b: " * 499 + "[" + "]" * 500  # 1000 levels: read
    assert _load(text).startswith("[{'a': [{'b': [{'b': ")


@pytest.mark.parametrize(
    "text",
    [
        "".join(" " * i + "a:\n" for i in range(MAX_DEPTH)),  # one column a level
        "- " * MAX_DEPTH + "x",
        "".join(" " * (2 * i) + "a:\n" + " " * (2 * i) + "- " for i in range(MAX_DEPTH // 2)) + "x",  # indentless
        "a: " + "[b: " * (MAX_DEPTH // 2) + "x" + "]" * (MAX_DEPTH // 2),  # two data levels a bracket
    ],
)
def test_cheap_bound_never_misses_a_deep_document(text):
    assert yamlshape.may_nest(text)


def test_ordinary_inputs_skip_the_shape_check():
    texts = [path.read_text() for path in sorted(GOLDEN.glob("*/*.yaml")) if not path.name.startswith("expected")]
    assert len(texts) > 100
    assert not any(yamlshape.may_nest(text) and "*" not in text for text in texts)


def test_only_aliases_count_towards_an_alias_bomb():
    """A large document without aliases (200,001 items; a ResourceList of 30k ConfigMaps) was refused as one."""
    assert len(_load_data("x: [" + "1," * 200_001 + "1]")["x"]) == 200_002
    assert len(_load_data("a: &a [1]\nb: *a\nx: [" + "1," * 200_001 + "1]")["x"]) == 200_002
    aliases = "x: &x [" + "1," * 1000 + "1]\nz: [{}]"  # each alias adds 1002 nodes
    assert len(_load_data(aliases.format(", ".join(["*x"] * 199)))["z"]) == 199
    assert _load(aliases.format(", ".join(["*x"] * 200))) == (
        (2, 4),
        "invalid YAML: aliases expand this node by more than 200000 nodes (an alias bomb?)",
    )


def _load_data(text: str):
    (document,) = [data for _, data in source.load_text(text, "a.yaml")]
    return document

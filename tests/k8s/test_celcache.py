"""The CEL compile cache: what is read back means what compiling means, and nothing about it is an error."""

from __future__ import annotations

import pytest

from trainc.k8s import celast, celcache, celengine

NAMES = ("object", "params")
EXPRESSIONS = (
    "object.spec.replicas <= 4 && has(object.metadata.name)",
    "object.spec.items.all(i, i.startsWith(params.prefix))",  # the standard environment
    "quantity(object.spec.memory).compareTo(quantity('2Gi')) <= 0",  # Kubernetes' libraries: the full one
    "params.data.split(',').exists(r, object.spec.image.startsWith(r))",
    "object.spec.missing == 1",  # an error at evaluation
)
DATA = (
    {"object": {"metadata": {"name": "a"}, "spec": {"replicas": 2, "items": ["xa"], "memory": "1Gi", "image": "r/x"}}},
    {"object": {"metadata": {}, "spec": {"replicas": 9, "items": ["y"], "memory": "3Gi", "image": "q/x"}}},
)
PARAMS = {"prefix": "x", "data": {"registries": "r/,s/"}}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(tmp_path))
    celengine.compile.cache_clear()
    yield tmp_path / "cel"
    celengine.compile.cache_clear()


def outcome(program, data):
    try:
        value = celengine.evaluate(program, data)
    except celengine.EvalError as exc:
        return ("error", str(exc), celengine.cost())
    return ("value", value, celengine.cost())


def uncompilable(monkeypatch):
    """Environments whose compile fails the test: a program must come from the cache."""

    class Reading:
        def __init__(self, env):
            self.env = env

        def compile(self, expression):
            raise AssertionError(f"compiled again: {expression}")

        def deserialize(self, data):
            return self.env.deserialize(data)

    for name in ("standard", "full"):
        made = celengine._ENVS[name]
        monkeypatch.setitem(celengine._ENVS, name, lambda names, made=made: Reading(made(names)))


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_program_read_back_answers_as_the_one_compiled(cache, monkeypatch, expression):
    """Values, errors and the charged cost agree, and so does the checked AST the CRD cost estimate reads."""
    compiled = celengine.compile(expression, NAMES)
    expected = [outcome(compiled, {**data, "params": PARAMS}) for data in DATA]
    checked = celast.checked(celengine.checked_ast(expression, NAMES))
    assert len(list(cache.rglob("*"))) >= 2  # a folder and the entry
    celengine.compile.cache_clear()
    uncompilable(monkeypatch)
    read = celengine.compile(expression, NAMES)
    assert read is not compiled
    assert [outcome(read, {**data, "params": PARAMS}) for data in DATA] == expected
    assert celast.checked(celengine.checked_ast(expression, NAMES)) == checked  # its maps in another order


def test_an_entry_of_another_expression_or_variables_is_not_taken(cache, monkeypatch):
    """An entry names what it compiled: one at the same place for another text (a colliding name), or for other
    variables, is compiled again."""
    program = celengine.compile(EXPRESSIONS[0], NAMES)
    (entry,) = [path for path in cache.rglob("*") if path.is_file()]
    other = EXPRESSIONS[0].replace("4", "5")
    monkeypatch.setattr(celcache, "_path", lambda expression, names: str(entry))
    assert celcache.read(other, NAMES, celengine._ENVS) is None
    assert celcache.read(EXPRESSIONS[0], ("object",), celengine._ENVS) is None
    assert celcache.read(EXPRESSIONS[0], NAMES, celengine._ENVS) is not None
    assert program is not None


@pytest.mark.parametrize("damage", [b"", b"trainc-cel 1\n\xff\xff\xff\xff", b"not an entry", None])
def test_a_damaged_entry_is_compiled_again_and_written_anew(cache, damage):
    celengine.compile(EXPRESSIONS[1], NAMES)
    (entry,) = [path for path in cache.rglob("*") if path.is_file()]
    whole = entry.read_bytes()
    entry.write_bytes(whole[: len(whole) // 2] if damage is None else damage)  # None: cut short
    celengine.compile.cache_clear()
    program = celengine.compile(EXPRESSIONS[1], NAMES)
    assert outcome(program, {**DATA[0], "params": PARAMS}) == ("value", True, 1.0)
    written, first = celcache._fields(entry.read_bytes()), celcache._fields(whole)
    assert written[:4] == first[:4] and celast.checked(written[4]) == celast.checked(first[4])


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(blocked))  # a file: no folder can be made under it
    celengine.compile.cache_clear()
    try:
        assert outcome(celengine.compile(EXPRESSIONS[0], NAMES), {**DATA[0], "params": PARAMS})[:2] == ("value", True)
    finally:
        celengine.compile.cache_clear()


def test_an_empty_cache_dir_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINC_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    celengine.compile.cache_clear()
    try:
        celengine.compile(EXPRESSIONS[0], NAMES)
    finally:
        celengine.compile.cache_clear()
    assert celcache._folder() is None and list(tmp_path.iterdir()) == []


def test_a_full_folder_makes_room_for_a_new_entry(cache, monkeypatch):
    """Each of the 256 folders keeps its newest entries: the cache stays bounded, whatever a repository writes."""
    monkeypatch.setattr(celcache, "_PER_FOLDER", 3)
    monkeypatch.setattr(celcache, "_path", lambda expression, names: str(cache / "00" / f"{len(expression)}"))
    texts = [f"object.a == '{'x' * count}'" for count in range(5)]
    for text in texts:
        celengine.compile(text, NAMES)
    kept = sorted(path.name for path in (cache / "00").iterdir())
    assert kept == sorted(str(len(text)) for text in texts[-3:])


def test_what_is_no_regular_file_at_an_entry_s_place_is_not_read(cache, monkeypatch, tmp_path):
    """A FIFO there would make the run wait for a writer, a link read another file: both are compiled past."""
    import os

    entry = cache / "00" / "entry"
    entry.parent.mkdir(parents=True)
    monkeypatch.setattr(celcache, "_path", lambda expression, names: str(entry))
    os.mkfifo(entry)
    assert celcache.read(EXPRESSIONS[0], NAMES, celengine._ENVS) is None  # at once: no writer is waited for
    entry.unlink()
    celengine.compile(EXPRESSIONS[0], NAMES)  # written
    target = tmp_path / "elsewhere"
    entry.rename(target)
    entry.symlink_to(target)
    assert celcache.read(EXPRESSIONS[0], NAMES, celengine._ENVS) is None
    entry.unlink()
    target.rename(entry)
    assert celcache.read(EXPRESSIONS[0], NAMES, celengine._ENVS) is not None

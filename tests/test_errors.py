"""trainc.errors: Record, typing.NamedTuple's class syntax and behavior, made as collections.namedtuple makes it."""

from __future__ import annotations

import pickle

import pytest

from trainc.errors import Origin
from trainc.errors import Record


class Point(Record):
    """Somewhere."""

    x: int
    y: int = 0
    label: str | None = None

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)


def test_a_record_is_the_tuple_typing_namedtuple_makes():
    point = Point(3, label="a")
    assert point == (3, 0, "a") and isinstance(point, tuple)
    assert Point._fields == ("x", "y", "label") and Point._field_defaults == {"y": 0, "label": None}
    assert (point.norm, point.moved(2), point._asdict()) == (3, Point(5, 0, "a"), {"x": 3, "y": 0, "label": "a"})
    assert Point.__doc__ == "Somewhere." and Point.__module__ == __name__ and Point.__qualname__ == "Point"
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str | None"}  # as written, never evaluated
    with pytest.raises(TypeError):
        Point()  # x has no default


def test_a_record_pickles_by_its_module_and_name():
    """A parallel build's workers send records to the parent."""
    for value in (Point(1, 2), Origin("a.yaml", 3)):
        assert pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL)) == value


def test_what_typing_namedtuple_refuses_is_refused():
    with pytest.raises(TypeError, match="without a default follows"):

        class Wrong(Record):
            a: int = 1
            b: int

    with pytest.raises(AttributeError, match="_replace"):

        class Overwrites(Record):
            a: int

            def _replace(self, **changes):
                return self


@pytest.mark.parametrize(
    "fields, defaults", [((), ()), (("a",), ()), (("a",), (1,)), (("a", "b"), (None,)), (("x", "y", "z"), (1, [2]))]
)
def test_a_record_class_is_what_collections_namedtuple_makes(fields, defaults):
    """Made in one step, with a __new__ compiled once per number of fields: the same class, the same errors."""
    import collections

    namespace = {"__module__": __name__, "__qualname__": "P", "__annotations__": dict.fromkeys(fields, "int")}
    namespace.update(zip(fields[len(fields) - len(defaults) :], defaults))
    ours, theirs = (
        type(Record)("P", (Record,), namespace),
        collections.namedtuple("P", fields, defaults=defaults, module=__name__),
    )
    for name in ("_fields", "_field_defaults", "__match_args__", "__doc__", "__slots__", "__module__"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert (ours.__new__.__doc__, ours.__new__.__defaults__) == (theirs.__new__.__doc__, theirs.__new__.__defaults__)
    for name in ("__new__", "_make", "_replace", "__repr__", "_asdict", "__getnewargs__"):
        assert getattr(ours, name).__qualname__ == getattr(theirs, name).__qualname__
    assert [getattr(ours, field).__doc__ for field in fields] == [getattr(theirs, field).__doc__ for field in fields]
    values = tuple(range(len(fields)))
    mine, made = ours(*values), theirs(*values)
    assert (mine, repr(mine), mine._asdict(), mine.__getnewargs__()) == (made, repr(made), made._asdict(), values)
    assert ours(**dict(zip(fields, values))) == mine and ours._make(values) == mine

    def failure(call, cls):
        with pytest.raises((TypeError, ValueError)) as raised:
            call(cls)
        return type(raised.value), str(raised.value)

    for call in (
        lambda cls: cls(*values, 9),
        lambda cls: cls._make((*values, 1)),
        lambda cls: cls(*values)._replace(other=1),
        lambda cls: cls(other=1),
    ):
        assert failure(call, ours) == failure(call, theirs)

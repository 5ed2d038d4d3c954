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

"""The API server's rule for immutable Secrets and ConfigMaps (validation/configdata.py)."""

from __future__ import annotations

from trainc.validation.configdata import refused_change


def _stored(kind: str, immutable) -> dict:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "keys"}, "immutable": immutable, "data": {}}


def test_an_immutable_one_keeps_its_data_and_its_flag():
    for kind in ("Secret", "ConfigMap"):
        assert refused_change(_stored(kind, True), [("metadata", "labels", "a"), ("data", "x")]) == (
            ("data", "x"),
            f"{kind} 'keys' is immutable: its data cannot change",
        )
        assert refused_change(_stored(kind, True), [("immutable",)])[0] == ("immutable",)
        assert refused_change(_stored(kind, True), [("binaryData", "y")])[0] == ("binaryData", "y")


def test_metadata_and_mutable_ones_change_freely():
    assert refused_change(_stored("Secret", True), [("metadata", "labels", "a")]) is None
    assert refused_change(_stored("Secret", False), [("data", "x")]) is None
    assert refused_change(_stored("ConfigMap", "true"), [("data", "x")]) is None  # not a stored bool: not immutable
    assert refused_change(_stored("Widget", True), [("data", "x")]) is None  # only Secrets and ConfigMaps have it

"""Where the shipped data lives: schemas/, runtimes/ and templates/.

An installed wheel carries them inside the package (trainc/_schemas, …, see
pyproject.toml); a source checkout or editable install reads the top-level folders.
Plain os.path, not pathlib: pathlib's import (urllib, ipaddress) is a few ms of every run's start-up.
"""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def data_dir(name: str) -> str:
    packaged = os.path.join(_HERE, f"_{name}")
    return packaged if os.path.isdir(packaged) else os.path.join(os.path.dirname(_HERE), name)


def read_text(name: str, file: str) -> str:
    """The text of `file` in the shipped folder `name`."""
    with open(os.path.join(data_dir(name), file), encoding="utf-8") as handle:
        return handle.read()

"""Where the shipped data lives: schemas/, runtimes/ and templates/.

An installed wheel carries them inside the package (trainc/_schemas, …, see
pyproject.toml); a source checkout or editable install reads the top-level folders.
"""

from pathlib import Path

_HERE = Path(__file__).parent


def data_dir(name: str) -> Path:
    packaged = _HERE / f"_{name}"
    return packaged if packaged.is_dir() else _HERE.parent / name

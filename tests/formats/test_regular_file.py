"""trainc.formats.regular_file: a file read whole without blocking; what is not a regular file is refused in words
that say what it is."""

import os

import pytest

from trainc.errors import InputError
from trainc.formats import regular_file, source


def test_a_file_is_read_whole_and_within_its_bound(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 100_000)
    assert regular_file.read_regular(str(path), 1 << 20) == b"x" * 100_000
    assert regular_file.read_regular(str(path), 10) == b"x" * 11  # one past the bound: enough to see it is over
    (tmp_path / "empty.yaml").write_bytes(b"")
    assert regular_file.read_regular(str(tmp_path / "empty.yaml"), 10) == b""


def test_a_folder_or_a_pipe_is_refused_as_what_it_is(tmp_path):
    with pytest.raises(IsADirectoryError):
        regular_file.read_regular(str(tmp_path), 10)
    with pytest.raises(IsADirectoryError):
        regular_file.open_regular(tmp_path)
    os.mkfifo(tmp_path / "pipe")  # no writer: a plain open would wait forever
    with pytest.raises(OSError, match=regular_file.NOT_REGULAR):
        regular_file.read_regular(str(tmp_path / "pipe"), 10)
    with pytest.raises(InputError, match="cannot read: Is a directory$"):
        source.read_bytes(str(tmp_path))

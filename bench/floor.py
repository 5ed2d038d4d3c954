"""The floor `trainc build` is measured against: a bare Python process that only loads the inputs with
libyaml and dumps trainc's output objects with libyaml, with none of trainc's reading rules, checks or
compilation. Usage: python bench/floor.py INPUT_DIR OBJECTS (OBJECTS: trainc's output objects, marshalled
by bench.py). Prints the YAML it dumps, as `trainc build` does.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

import yaml


def main() -> None:
    inputs, objects = Path(sys.argv[1]), Path(sys.argv[2])
    for path in sorted(inputs.rglob("*.yaml")):
        list(yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader))
    sys.stdout.write(yaml.dump_all(marshal.loads(objects.read_bytes()), Dumper=yaml.CSafeDumper, sort_keys=False))


if __name__ == "__main__":
    main()

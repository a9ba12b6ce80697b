"""Print each of the pins given (`name==version`, extras such as
`ray[default]` ignored) that the running Python does not have at exactly
that version: the setup scripts install only what this prints."""

import importlib.metadata as metadata
import re
import sys

for spec in sys.argv[1:]:
    name, version = spec.split("==")
    name = re.sub(r"\[.*\]", "", name)
    try:
        ok = metadata.version(name) == version
    except metadata.PackageNotFoundError:
        ok = False
    if not ok:
        print(spec)

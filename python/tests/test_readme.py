"""The README's Python example runs as printed (from the repository root)."""

import os
import re
import subprocess
import sys


def test_readme_example_runs(repo_root):
    text = (repo_root / "README.md").read_text(encoding="utf-8")
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "README: one python block under 'From Python'"
    code = blocks[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=repo_root, capture_output=True, text=True, timeout=300, env=os.environ.copy()
    )
    assert proc.returncode == 0, proc.stderr
    termination, *rest = proc.stdout.split()
    assert termination in {"flag_captured", "no_movable_pieces", "no_legal_move", "quiet_plies", "max_plies"}

"""What tests/fast/test_ci_recipe.py and tests/slow/test_ci_recipe.py share."""

from __future__ import annotations


def run_of(page: str, step: str) -> str:
    """The shell commands of the job step named ``step`` in ``page``'s YAML: its ``run:`` value,
    inline or a ``|`` block (the lines indented deeper than the key)."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- name: {step}")
    key = next(i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("run:"))
    value = lines[key].split("run:", 1)[1].strip()
    if value != "|":
        return value
    indent = len(lines[key]) - len(lines[key].lstrip())
    block = []
    for line in lines[key + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line.strip())
    return "\n".join(block).strip() + "\n"

"""Long runs say what they are doing and how far they are: in a CI log (stderr not a terminal)
one plain line per stage, through the one helper ``outputs.StageProgress``."""

from __future__ import annotations

import re

import pytest

from mcp_resume.model.verify.suite import RULES

from tests.helpers.progress import run



def test_explore_design_logs_how_far_it_got(tmp_path):
    """A design beside the spec reports its count of states while it walks, not only at the start."""
    done = run("explore-design", "3", cwd=tmp_path)  # several hundred product states expanded
    assert done.returncode == 1, done.stderr
    counts = re.findall(r"^exploring: ([\d,]+) states so far, depth (\d+)", done.stderr, re.MULTILINE)
    assert counts and all(int(depth) <= 7 for _, depth in counts), done.stderr
    final = re.search(r"distinct states\s*│\s*([\d,]+)", done.stdout)  # the table's count is the whole walk's
    assert final and all(int(n.replace(",", "")) <= int(final[1].replace(",", "")) for n, _ in counts), done.stdout


@pytest.mark.timeout(900)
def test_prove_logs_its_four_stages_with_counts(prove_to_dev_full):
    done = prove_to_dev_full  # every stage runs before the --json report fails to be written
    assert done.returncode == 2 and "/dev/full" in done.stderr.splitlines()[-1], done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("prove: boundary: stage")]
    assert [re.sub(r":.*", "", line.split("stage ", 1)[1]) for line in lines] == [f"{n} of 4" for n in (1, 2, 3, 4)]
    assert re.search(r"stage 1 of 4: proof obligations, \d+ queries", lines[0])
    assert re.search(r"stage 3 of 4: bounded model checking of the faulty designs, \d+ queries", lines[2])


def test_verify_logs_rule_n_of_all(tmp_path):
    # --max-seconds 5: the first rules judged, the rest INCONCLUSIVE; each is logged as it is made
    done = run("verify", "design-1", "--timeout", "2", "--max-seconds", "5", cwd=tmp_path)
    lines = [line for line in done.stderr.splitlines() if line.startswith("verify: rule ")]
    assert len(lines) == len(RULES), done.stderr
    rule_ids = {rule.id for rule in RULES}
    judged = [re.fullmatch(rf"verify: rule (\d+) of {len(RULES)}: ([a-z0-9-]+): [A-Z]+( \(provisional\))?", line)
              for line in lines]
    assert all(judged), lines
    assert {m.group(2) for m in judged} == rule_ids  # each rule once, in the order they were judged
    assert [int(m.group(1)) for m in judged] == list(range(1, len(RULES) + 1))
    assert all(m.group(3) for m in judged[:-1]) and not judged[-1].group(3)  # no scenario after the last one


@pytest.mark.timeout(900)
def test_docs_logs_each_stage(docs_cli_run):
    done, _ = docs_cli_run
    assert done.returncode == 0, done.stderr
    stages = [line for line in done.stderr.splitlines() if line.startswith("docs: stage ")]
    assert len(stages) >= 2 and stages[-1].endswith("diagrams and pages"), done.stderr
    total = int(stages[0].split(" of ")[1].split(":")[0])
    assert len(stages) == total

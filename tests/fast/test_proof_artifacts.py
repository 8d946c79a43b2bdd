"""``mcp-resume prove``: the results file, the report and the traces; the committed copy
matching a fresh regeneration by meaning; SMT-LIB2 on request that replays in Z3; exit codes."""

import pytest

from mcp_resume.cli import main
from mcp_resume.proofs.system.proofs import Encoding, obligations, run_obligation
from mcp_resume.spec.profiles import Profile

from tests.helpers.proof_artifacts import replay_smt2


def test_a_proof_query_replays_from_its_smt2_text_with_the_same_answer_and_a_core_within_its_own():
    obligation = next(o for o in obligations() if o.id == "consecution.replay-suffix.step.reconnect")
    result = run_obligation(Encoding(Profile.BOUNDARY), obligation, smt2=True)
    output = replay_smt2(result.smt2)
    answer, core = output.split("\n", 1)
    assert answer == "unsat" == result.result
    replayed = set(core.strip().strip("()").split())
    # an unsat core is not unique: Z3 from the text may drop an assertion the run kept, never add one
    assert "goal" in replayed and replayed <= set(result.core)


def test_prove_refuses_a_sessionless_profile_with_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["prove", "--profile", "mcp-2026-07-28", "--out", str(tmp_path)])
    assert exited.value.code == 2 and "invalid choice: 'mcp-2026-07-28'" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_prove_rejects_a_non_positive_limit(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["prove", "--rlimit", "0"])
    assert exited.value.code == 2
    assert "must be a positive integer" in capsys.readouterr().err


def test_every_catalog_rule_is_either_stated_in_the_encoding_or_said_why_not():
    from mcp_resume.proofs.report_page import NOT_STATED, RULE_NOTES
    from mcp_resume.spec.catalog import RULES

    assert not set(RULE_NOTES) & set(NOT_STATED)
    assert set(RULE_NOTES) | set(NOT_STATED) == {rule.id for rule in RULES}
    assert all(why.strip() for why in NOT_STATED.values())

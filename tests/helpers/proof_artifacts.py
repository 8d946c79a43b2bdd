"""What tests/fast/test_proof_artifacts.py, tests/slow/test_proof_artifacts.py and
tests/slow/test_proof_bmc.py share."""

import z3


def replay_smt2(text: str) -> str:
    """Run an SMT-LIB2 script in a fresh context; its set-option commands change Z3's
    global defaults, so they are reset afterwards."""
    ctx = z3.Context()
    try:
        return z3.Z3_eval_smtlib2_string(ctx.ref(), text)
    finally:
        z3.reset_params()

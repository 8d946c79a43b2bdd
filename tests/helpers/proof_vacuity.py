"""What tests/fast/test_proof_vacuity.py and tests/slow/test_proof_vacuity.py share."""

import pytest

from mcp_resume.proofs.system.proofs import Encoding
from mcp_resume.spec.profiles import Profile


@pytest.fixture(scope="module")
def encoding():
    return Encoding(Profile.BOUNDARY)

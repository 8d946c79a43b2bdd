"""The memos the checkers put on the spec's pure functions (``model.harness.memos``) give
what the spec's own functions give, on every input those functions take."""

from __future__ import annotations

import itertools

from mcp_resume.model.harness import memos
from mcp_resume.spec import decision, invariants, transitions
from mcp_resume.spec.decision import Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile


def test_install_wraps_each_function_once_and_keeps_the_spec_s_own_behind_it():
    memos.install()
    memos.install()
    for module, name in memos.MEMOIZED:
        wrapped = getattr(module, name)
        assert hasattr(wrapped, "cache_info")
        assert not hasattr(wrapped.__wrapped__, "cache_info")


def test_the_memoized_decision_table_entry_is_the_spec_s_for_every_class_and_profile():
    memos.install()
    plain = memos.plain(decision, "_class_outcome")
    for method, session, event, profile in itertools.product(Method, SessionClass, EventClass, Profile):
        assert decision._class_outcome(method, session, event, profile) == plain(method, session, event, profile)


def test_the_memoized_answer_is_the_spec_s():
    memos.install()
    plain = memos.plain(transitions, "_answer")
    for status, error in itertools.product((200, 202, 400, 404, 405, 409), (None, -32600, -32000)):
        assert transitions._answer(status, error) == plain(status, error)


def test_the_memoized_checks_in_scope_are_the_spec_s_for_every_scope():
    memos.install()
    plain = memos.plain(invariants, "_in_scope")
    for checks, delivered, resumed in itertools.product((invariants.SERVER_CHECKS, invariants.GENERIC_CHECKS),
                                                        (False, True), (False, True)):
        assert invariants._in_scope(checks, delivered, resumed) == plain(checks, delivered, resumed)

"""The catalog's levels, pinned: every (rule, profile) level and the rule ids it comes from, every case
level, the verdict each level gives when broken, and the sources behind them (docs/design.md §3-§4).

The tables below are literal on purpose: flipping one level or dropping one source in
``spec/catalog.py`` makes a test here fail. Source ids are those of the project's notes on the MCP
transport rules (``shared/reference/mcp-transport-rules.md``), ``§3.x`` where MCP is silent, and
``decision-*`` for the boundary's own decision (docs/design.md §2).
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from mcp_resume.docgen.collect import DocsModel
from mcp_resume.spec import actions as a
from mcp_resume.spec import invariants as inv
from mcp_resume.spec.decision import NEVER_ISSUED
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import Delivered, step
from mcp_resume.docgen.pages_rules import rule_page
from mcp_resume.docgen.pages_spec import profiles_page
from mcp_resume.spec import catalog
from mcp_resume.spec.catalog import AGREEMENT, PROFILE_ORDER, RULES, RULES_BY_ID, SILENT, level
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.sources import SOURCES
from mcp_resume.spec.verdicts import Verdict, verdict_for_broken, verdict_for_finding

MCP_PROFILES = (Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25)
LETTER = {Profile.MCP_2025_03_26: "B", Profile.MCP_2025_06_18: "C", Profile.MCP_2025_11_25: "D",
          Profile.BOUNDARY: "D", Profile.MCP_2026_07_28: "F"}

# (rule, profile, level, the ids the level comes from)
LEVELS = [
    # replay-suffix
    ('replay-suffix', 'mcp-2025-03-26', 'MAY', ('B25',)),
    ('replay-suffix', 'mcp-2025-06-18', 'MAY', ('C22-C27',)),
    ('replay-suffix', 'mcp-2025-11-25', 'MAY', ('D30',)),
    ('replay-suffix', 'boundary', 'MUST', ('D30', 'decision-1')),
    ('replay-suffix', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    # no-cross-session
    ('no-cross-session', 'mcp-2025-03-26', 'MUST', ('B26', 'B21')),
    ('no-cross-session', 'mcp-2025-06-18', 'MUST', ('C22-C27', 'C20-C21')),
    ('no-cross-session', 'mcp-2025-11-25', 'MUST', ('D30', 'D24-D25')),
    ('no-cross-session', 'boundary', 'MUST', ('D30', 'D24-D25')),
    ('no-cross-session', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10', 'F17')),
    # no-replay-on-session-resume
    ('no-replay-on-session-resume', 'mcp-2025-03-26', 'MUST', ('B26',)),
    ('no-replay-on-session-resume', 'mcp-2025-06-18', 'MUST', ('C22-C27',)),
    ('no-replay-on-session-resume', 'mcp-2025-11-25', 'MUST', ('D30', 'D31')),
    ('no-replay-on-session-resume', 'boundary', 'MUST', ('D30', 'D31', 'decision-2')),
    ('no-replay-on-session-resume', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10', 'F17')),
    # no-reemit-on-stream-resume
    ('no-reemit-on-stream-resume', 'mcp-2025-03-26', 'MUST', ('B21', 'B26')),
    ('no-reemit-on-stream-resume', 'mcp-2025-06-18', 'MUST', ('C20-C21', 'C22-C27')),
    ('no-reemit-on-stream-resume', 'mcp-2025-11-25', 'MUST', ('D24-D25', 'D30')),
    ('no-reemit-on-stream-resume', 'boundary', 'MUST', ('D24-D25', 'D30', 'decision-1')),
    ('no-reemit-on-stream-resume', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7', 'F10')),
    # reemit-pending
    ('reemit-pending', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('§3.7', 'B39')),
    ('reemit-pending', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('§3.7', 'C42')),
    ('reemit-pending', 'mcp-2025-11-25', 'NOT_APPLICABLE', ('§3.7', 'D51')),
    ('reemit-pending', 'boundary', 'MUST', ('§3.7', 'decision-2', 'decision-pending')),
    ('reemit-pending', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7', 'F20')),
    # reemit-keeps-pending
    ('reemit-keeps-pending', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('§3.7', 'B39')),
    ('reemit-keeps-pending', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('§3.7', 'C42')),
    ('reemit-keeps-pending', 'mcp-2025-11-25', 'NOT_APPLICABLE', ('§3.7', 'D51')),
    ('reemit-keeps-pending', 'boundary', 'MUST', ('§3.7', 'D51', 'decision-pending')),
    ('reemit-keeps-pending', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7', 'F11')),
    # reject-orphan-event-id
    ('reject-orphan-event-id', 'mcp-2025-03-26', 'SHOULD', ('B32',)),
    ('reject-orphan-event-id', 'mcp-2025-06-18', 'SHOULD', ('C28-C36',)),
    ('reject-orphan-event-id', 'mcp-2025-11-25', 'SHOULD', ('D37-D41',)),
    ('reject-orphan-event-id', 'boundary', 'MUST', ('D37-D41', 'decision-4')),
    ('reject-orphan-event-id', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # reject-foreign-event-id
    ('reject-foreign-event-id', 'mcp-2025-03-26', 'MAY', ('§3.2', 'B15')),
    ('reject-foreign-event-id', 'mcp-2025-06-18', 'MAY', ('§3.2', 'C13-C19')),
    ('reject-foreign-event-id', 'mcp-2025-11-25', 'MAY', ('§3.2', 'D16-D22')),
    ('reject-foreign-event-id', 'boundary', 'MUST', ('§3.2', 'decision-3')),
    ('reject-foreign-event-id', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # unknown-session-404
    ('unknown-session-404', 'mcp-2025-03-26', 'MUST', ('B33',)),
    ('unknown-session-404', 'mcp-2025-06-18', 'MUST', ('C28-C36',)),
    ('unknown-session-404', 'mcp-2025-11-25', 'MUST', ('D37-D41',)),
    ('unknown-session-404', 'boundary', 'MUST', ('D37-D41', 'decision-guards')),
    ('unknown-session-404', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F14', 'F17')),
    # session-identity-stable
    ('session-identity-stable', 'mcp-2025-03-26', 'MUST', ('B7', 'B15', 'B31')),
    ('session-identity-stable', 'mcp-2025-06-18', 'MUST', ('C7', 'C13-C19', 'C28-C36')),
    ('session-identity-stable', 'mcp-2025-11-25', 'MUST', ('D3-D7', 'D16-D22', 'D37-D41')),
    ('session-identity-stable', 'boundary', 'MUST', ('D3-D7', 'D16-D22', 'D37-D41', 'decision-1', 'decision-2')),
    ('session-identity-stable', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # expiry-independent
    ('expiry-independent', 'mcp-2025-03-26', 'MAY', ('B33', 'B23')),
    ('expiry-independent', 'mcp-2025-06-18', 'MAY', ('C28-C36', 'C22-C27')),
    ('expiry-independent', 'mcp-2025-11-25', 'MAY', ('D37-D41', 'D13', 'D27')),
    ('expiry-independent', 'boundary', 'MUST', ('D13', 'D27', 'decision-expiry')),
    ('expiry-independent', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # event-id-unique
    ('event-id-unique', 'mcp-2025-03-26', 'MUST', ('B23',)),
    ('event-id-unique', 'mcp-2025-06-18', 'MUST', ('C22-C27',)),
    ('event-id-unique', 'mcp-2025-11-25', 'MUST', ('D27',)),
    ('event-id-unique', 'boundary', 'MUST', ('D27', 'D28', 'decision-1')),
    ('event-id-unique', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    # server-request-ownership
    ('server-request-ownership', 'mcp-2025-03-26', 'MUST', ('B26', 'B41')),
    ('server-request-ownership', 'mcp-2025-06-18', 'MUST', ('C22-C27', 'C42')),
    ('server-request-ownership', 'mcp-2025-11-25', 'MUST', ('D30', 'D51')),
    ('server-request-ownership', 'boundary', 'MUST', ('D30', 'D51')),
    ('server-request-ownership', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7',)),
    # no-duplicate-tool-call
    ('no-duplicate-tool-call', 'mcp-2025-03-26', 'SHOULD', ('§3.8', 'B33', 'B34')),
    ('no-duplicate-tool-call', 'mcp-2025-06-18', 'SHOULD', ('§3.8', 'C28-C36')),
    ('no-duplicate-tool-call', 'mcp-2025-11-25', 'SHOULD', ('§3.8', 'D37-D41')),
    ('no-duplicate-tool-call', 'boundary', 'MUST', ('§3.8', 'D37-D41', 'decision-client')),
    ('no-duplicate-tool-call', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F21',)),
    # no-broadcast
    ('no-broadcast', 'mcp-2025-03-26', 'MUST', ('B21',)),
    ('no-broadcast', 'mcp-2025-06-18', 'MUST', ('C20-C21',)),
    ('no-broadcast', 'mcp-2025-11-25', 'MUST', ('D24-D25',)),
    ('no-broadcast', 'boundary', 'MUST', ('D24-D25', 'decision-2')),
    ('no-broadcast', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7',)),
    # standalone-stream-scope
    ('standalone-stream-scope', 'mcp-2025-03-26', 'SHOULD', ('B17', 'B9')),
    ('standalone-stream-scope', 'mcp-2025-06-18', 'SHOULD', ('C13-C19',)),
    ('standalone-stream-scope', 'mcp-2025-11-25', 'SHOULD', ('D16-D22', 'D47')),
    ('standalone-stream-scope', 'boundary', 'MUST', ('D16-D22', 'D47', 'decision-2')),
    ('standalone-stream-scope', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7',)),
    # missing-session-400
    ('missing-session-400', 'mcp-2025-03-26', 'SHOULD', ('B32',)),
    ('missing-session-400', 'mcp-2025-06-18', 'SHOULD', ('C28-C36',)),
    ('missing-session-400', 'mcp-2025-11-25', 'SHOULD', ('D37-D41',)),
    ('missing-session-400', 'boundary', 'MUST', ('D37-D41', 'decision-5')),
    ('missing-session-400', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # malformed-session-400
    ('malformed-session-400', 'mcp-2025-03-26', 'SHOULD', ('§3.8', 'B30')),
    ('malformed-session-400', 'mcp-2025-06-18', 'SHOULD', ('§3.8', 'C28-C36')),
    ('malformed-session-400', 'mcp-2025-11-25', 'SHOULD', ('§3.8', 'D34-D35')),
    ('malformed-session-400', 'boundary', 'MUST', ('D34-D35', 'decision-guards')),
    ('malformed-session-400', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # new-session-on-initialize
    ('new-session-on-initialize', 'mcp-2025-03-26', 'MAY', ('B28',)),
    ('new-session-on-initialize', 'mcp-2025-06-18', 'MAY', ('C28-C36',)),
    ('new-session-on-initialize', 'mcp-2025-11-25', 'MAY', ('D33',)),
    ('new-session-on-initialize', 'boundary', 'MUST', ('D33', 'decision-5')),
    ('new-session-on-initialize', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # session-delete
    ('session-delete', 'mcp-2025-03-26', 'MAY', ('B35', 'B36')),
    ('session-delete', 'mcp-2025-06-18', 'MAY', ('C28-C36',)),
    ('session-delete', 'mcp-2025-11-25', 'MAY', ('D37-D41',)),
    ('session-delete', 'boundary', 'MAY', ('D37-D41',)),
    ('session-delete', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # sessionless-get-405
    ('sessionless-get-405', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('B15',)),
    ('sessionless-get-405', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('C13-C19',)),
    ('sessionless-get-405', 'mcp-2025-11-25', 'NOT_APPLICABLE', ('D16-D22',)),
    ('sessionless-get-405', 'boundary', 'NOT_APPLICABLE', ('D16-D22',)),
    ('sessionless-get-405', 'mcp-2026-07-28', 'SHOULD', ('F17', 'F1')),
    # sessionless-ignores-headers
    ('sessionless-ignores-headers', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('B28',)),
    ('sessionless-ignores-headers', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('C28-C36',)),
    ('sessionless-ignores-headers', 'mcp-2025-11-25', 'NOT_APPLICABLE', ('D33',)),
    ('sessionless-ignores-headers', 'boundary', 'NOT_APPLICABLE', ('D33',)),
    ('sessionless-ignores-headers', 'mcp-2026-07-28', 'SHOULD', ('F17', 'F10')),
    # priming-event
    ('priming-event', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('D8',)),
    ('priming-event', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('D8',)),
    ('priming-event', 'mcp-2025-11-25', 'SHOULD', ('D8', '§3.6')),
    ('priming-event', 'boundary', 'SHOULD', ('D8', '§3.6')),
    ('priming-event', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    # protocol-version-accepted
    ('protocol-version-accepted', 'mcp-2025-03-26', 'MUST', ('B15',)),
    ('protocol-version-accepted', 'mcp-2025-06-18', 'MUST', ('C40', 'C13-C19')),
    ('protocol-version-accepted', 'mcp-2025-11-25', 'MUST', ('D42-D45', 'D16-D22')),
    ('protocol-version-accepted', 'boundary', 'MUST', ('D42-D45', 'D16-D22')),
    ('protocol-version-accepted', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    # unsupported-version-400
    ('unsupported-version-400', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('C37',)),
    ('unsupported-version-400', 'mcp-2025-06-18', 'MUST', ('C40',)),
    ('unsupported-version-400', 'mcp-2025-11-25', 'MUST', ('D42-D45',)),
    ('unsupported-version-400', 'boundary', 'MUST', ('D42-D45',)),
    ('unsupported-version-400', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F13',)),
    # retry-before-close
    ('retry-before-close', 'mcp-2025-03-26', 'NOT_APPLICABLE', ('D9', 'D10')),
    ('retry-before-close', 'mcp-2025-06-18', 'NOT_APPLICABLE', ('D9', 'D10')),
    ('retry-before-close', 'mcp-2025-11-25', 'SHOULD', ('D9', 'D10', 'D23')),
    ('retry-before-close', 'boundary', 'SHOULD', ('D9', 'D10', 'D23')),
    ('retry-before-close', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    # sessionless-request-scope (the 2026-07-28 state machine)
    ('call-answered', 'mcp-2025-03-26', 'SHOULD', ('B8', 'B10', 'B12')),
    ('call-answered', 'mcp-2025-06-18', 'SHOULD', ('C8', 'C10', 'C12')),
    ('call-answered', 'mcp-2025-11-25', 'SHOULD', ('D11', 'D15')),
    ('call-answered', 'boundary', 'MUST', ('D11', 'D15', 'decision-1')),
    ('call-answered', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F8', 'F11')),
    ('cancel-notifies', 'mcp-2025-03-26', 'SHOULD', ('B39',)),
    ('cancel-notifies', 'mcp-2025-06-18', 'SHOULD', ('C42',)),
    ('cancel-notifies', 'mcp-2025-11-25', 'SHOULD', ('D51',)),
    ('cancel-notifies', 'boundary', 'MUST', ('D51', 'decision-2')),
    ('cancel-notifies', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7',)),
    ('sessionless-request-scope', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'mcp-2026-07-28', 'MUST', ('F6', 'F7')),
    # sessionless-no-server-requests (the 2026-07-28 state machine)
    ('sessionless-no-server-requests', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-no-server-requests', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-no-server-requests', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-no-server-requests', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-no-server-requests', 'mcp-2026-07-28', 'MUST', ('F7', 'F20')),
    # sessionless-close-cancels (the 2026-07-28 state machine)
    ('sessionless-close-cancels', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-close-cancels', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-close-cancels', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-close-cancels', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-close-cancels', 'mcp-2026-07-28', 'MUST', ('F11', 'F21')),
    # sessionless-input-required-retry (the 2026-07-28 state machine)
    ('sessionless-input-required-retry', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-input-required-retry', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-input-required-retry', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-input-required-retry', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-input-required-retry', 'mcp-2026-07-28', 'MUST', ('F20',)),
    # sessionless-notification-202 (the 2026-07-28 state machine)
    ('sessionless-notification-202', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-notification-202', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-notification-202', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-notification-202', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-notification-202', 'mcp-2026-07-28', 'MUST', ('F4',)),
    # sessionless-request-validated (the 2026-07-28 state machine)
    ('sessionless-request-validated', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-request-validated', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-request-validated', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-request-validated', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-request-validated', 'mcp-2026-07-28', 'MUST', ('F12', 'F13', 'F14', 'F16')),
]

# (rule, case, profile, level, the ids the level comes from)
CASE_LEVELS = [
    ('replay-suffix', 'extra-events', 'mcp-2025-03-26', 'SHOULD', ('§3.1', 'B25')),
    ('replay-suffix', 'extra-events', 'mcp-2025-06-18', 'SHOULD', ('§3.1', 'C22-C27')),
    ('replay-suffix', 'extra-events', 'mcp-2025-11-25', 'SHOULD', ('§3.1', 'D30')),
    ('replay-suffix', 'extra-events', 'boundary', 'MUST', ('§3.1', 'D30', 'decision-1')),
    ('replay-suffix', 'extra-events', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    ('replay-suffix', 'no-answer', 'mcp-2025-03-26', 'MUST', ('B15',)),
    ('replay-suffix', 'no-answer', 'mcp-2025-06-18', 'MUST', ('C13-C19',)),
    ('replay-suffix', 'no-answer', 'mcp-2025-11-25', 'MUST', ('D16-D22',)),
    ('replay-suffix', 'no-answer', 'boundary', 'MUST', ('D16-D22',)),
    ('replay-suffix', 'no-answer', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    ('replay-suffix', 'stranded', 'mcp-2025-03-26', 'SHOULD', ('B8', 'B25')),
    ('replay-suffix', 'stranded', 'mcp-2025-06-18', 'SHOULD', ('C8', 'C22-C27')),
    ('replay-suffix', 'stranded', 'mcp-2025-11-25', 'SHOULD', ('D11', 'D30')),
    ('replay-suffix', 'stranded', 'boundary', 'MUST', ('D11', 'D30', 'decision-1')),
    ('replay-suffix', 'stranded', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F10',)),
    ('reject-foreign-event-id', 'no-answer', 'mcp-2025-03-26', 'MUST', ('B15',)),
    ('reject-foreign-event-id', 'no-answer', 'mcp-2025-06-18', 'MUST', ('C13-C19',)),
    ('reject-foreign-event-id', 'no-answer', 'mcp-2025-11-25', 'MUST', ('D16-D22',)),
    ('reject-foreign-event-id', 'no-answer', 'boundary', 'MUST', ('D16-D22', 'decision-3')),
    ('reject-foreign-event-id', 'no-answer', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    ('unknown-session-404', 'never-issued', 'mcp-2025-03-26', 'SHOULD', ('§3.8', 'B33')),
    ('unknown-session-404', 'never-issued', 'mcp-2025-06-18', 'SHOULD', ('§3.8', 'C28-C36')),
    ('unknown-session-404', 'never-issued', 'mcp-2025-11-25', 'SHOULD', ('§3.8', 'D37-D41')),
    ('unknown-session-404', 'never-issued', 'boundary', 'MUST', ('§3.8', 'decision-guards')),
    ('unknown-session-404', 'never-issued', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F14', 'F17')),
    ('expiry-independent', 'ended-session-id', 'mcp-2025-03-26', 'SHOULD', ('§3.8', 'B23', 'B33')),
    ('expiry-independent', 'ended-session-id', 'mcp-2025-06-18', 'SHOULD', ('§3.8', 'C22-C27', 'C28-C36')),
    ('expiry-independent', 'ended-session-id', 'mcp-2025-11-25', 'SHOULD', ('§3.8', 'D27', 'D37-D41')),
    ('expiry-independent', 'ended-session-id', 'boundary', 'MUST', ('§3.8', 'D13', 'D27', 'decision-expiry')),
    ('expiry-independent', 'ended-session-id', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    ('standalone-stream-scope', 'response-elsewhere', 'mcp-2025-03-26', 'MUST', ('B18',)),
    ('standalone-stream-scope', 'response-elsewhere', 'mcp-2025-06-18', 'MUST', ('C13-C19',)),
    ('standalone-stream-scope', 'response-elsewhere', 'mcp-2025-11-25', 'MUST', ('D16-D22',)),
    ('standalone-stream-scope', 'response-elsewhere', 'boundary', 'MUST', ('D16-D22',)),
    ('standalone-stream-scope', 'response-elsewhere', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F7',)),
    ('new-session-on-initialize', 'malformed-id', 'mcp-2025-03-26', 'MUST', ('B30',)),
    ('new-session-on-initialize', 'malformed-id', 'mcp-2025-06-18', 'MUST', ('C28-C36',)),
    ('new-session-on-initialize', 'malformed-id', 'mcp-2025-11-25', 'MUST', ('D34-D35',)),
    ('new-session-on-initialize', 'malformed-id', 'boundary', 'MUST', ('D34-D35',)),
    ('new-session-on-initialize', 'malformed-id', 'mcp-2026-07-28', 'NOT_APPLICABLE', ('F17',)),
    ('sessionless-request-scope', 'after-final', 'mcp-2025-03-26', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'after-final', 'mcp-2025-06-18', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'after-final', 'mcp-2025-11-25', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'after-final', 'boundary', 'NOT_APPLICABLE', ()),
    ('sessionless-request-scope', 'after-final', 'mcp-2026-07-28', 'SHOULD', ('F8',)),
]

AGREEMENT_LEVELS = {"mcp-2025-03-26": "NOT_APPLICABLE", "mcp-2025-06-18": "NOT_APPLICABLE",
                    "mcp-2025-11-25": "NOT_APPLICABLE", "boundary": "NOT_APPLICABLE",
                    "mcp-2026-07-28": "NOT_APPLICABLE"}

BROKEN = {"MUST": "FAIL", "SHOULD": "WARN", "MAY": "PASS", "NOT_APPLICABLE": "PASS"}

# Every MCP id the catalog cites: its Level column in the rules file, and the RFC 2119 keywords
# in force (for a row that repeats an earlier one, "—", those of the rows it repeats).
RULES_FILE = {
    "B7": ("MUST", {"MUST"}),
    "B8": ("SHOULD / MAY", {"SHOULD", "MAY"}),
    "B9": ("MAY / SHOULD / MAY", {"MAY", "SHOULD"}),
    "B10": ("SHOULD NOT", {"SHOULD NOT"}),
    "B12": ("MAY / SHOULD NOT / SHOULD / MAY", {"MAY", "SHOULD NOT", "SHOULD"}),
    "B15": ("MUST", {"MUST"}),
    "B17": ("SHOULD", {"SHOULD"}),
    "B18": ("MUST NOT", {"MUST NOT"}),
    "B21": ("MUST / MUST NOT / MAY", {"MUST", "MUST NOT", "MAY"}),
    "B23": ("MUST", {"MUST"}),
    "B25": ("MAY", {"MAY"}),
    "B26": ("MUST NOT", {"MUST NOT"}),
    "B28": ("MAY", {"MAY"}),
    "B30": ("MUST", {"MUST"}),
    "B31": ("MUST", {"MUST"}),
    "B32": ("SHOULD", {"SHOULD"}),
    "B33": ("MAY / MUST", {"MAY", "MUST"}),
    "B34": ("MUST", {"MUST"}),
    "B35": ("SHOULD", {"SHOULD"}),
    "B36": ("MAY", {"MAY"}),
    "B39": ("SHOULD / SHOULD / SHOULD / MAY / SHOULD", {"SHOULD", "MAY"}),
    "B41": ("MUST NOT", {"MUST NOT"}),
    "C7": ("MUST", {"MUST"}),
    "C8": ("SHOULD", {"SHOULD", "MAY"}),  # =B8
    "C10": ("SHOULD NOT", {"SHOULD NOT"}),
    "C12": ("—", {"MAY", "SHOULD NOT", "SHOULD"}),  # =B12
    "C13-C19": ("—", {"MAY", "MUST", "SHOULD", "MUST NOT"}),  # =B13-B19
    "C20-C21": ("—", {"MAY", "MUST", "MUST NOT"}),  # =B20-B21
    "C22-C27": ("—", {"MAY", "MUST", "SHOULD", "MUST NOT"}),  # =B22-B27
    "C28-C36": ("—", {"MAY", "SHOULD", "MUST"}),  # =B28-B36
    "C37": ("MUST", {"MUST"}),
    "C40": ("MUST", {"MUST"}),
    "C42": ("—", {"SHOULD NOT", "SHOULD", "MAY", "MUST NOT"}),  # =B38, B39, B41
    "D3-D7": ("—", {"MUST", "MAY"}),  # =C3-C7
    "D8": ("SHOULD", {"SHOULD"}),
    "D9": ("MAY / SHOULD", {"MAY", "SHOULD"}),
    "D10": ("SHOULD / MUST", {"SHOULD", "MUST"}),
    "D11": ("SHOULD", {"SHOULD"}),
    "D13": ("MAY", {"MAY"}),
    "D15": ("—", {"MAY", "SHOULD NOT", "SHOULD"}),  # =B12
    "D16-D22": ("—", {"MAY", "MUST", "SHOULD", "MUST NOT"}),  # =C13-C19
    "D23": ("SHOULD", {"SHOULD"}),
    "D24-D25": ("—", {"MAY", "MUST", "MUST NOT"}),  # =B20-B21
    "D27": ("MUST", {"MUST"}),
    "D28": ("SHOULD", {"SHOULD"}),
    "D30": ("MAY / MUST NOT", {"MAY", "MUST NOT"}),
    "D31": ("(clarification)", set()),
    "D33": ("MAY", {"MAY"}),
    "D34-D35": ("SHOULD / MUST", {"SHOULD", "MUST"}),
    "D37-D41": ("—", {"MAY", "SHOULD", "MUST"}),  # =B31-B36
    "D42-D45": ("—", {"MUST", "SHOULD"}),  # =C37-C40
    "D47": ("SHOULD / SHOULD NOT / MAY", {"SHOULD", "SHOULD NOT", "MAY"}),
    "D51": ("—", {"SHOULD NOT", "SHOULD", "MAY", "MUST NOT", "MUST"}),  # =C42/C43
    "F1": ("MUST", {"MUST"}),
    "F6": ("MAY / MUST", {"MAY", "MUST"}),
    "F7": ("MUST NOT", {"MUST NOT"}),
    "F8": ("SHOULD", {"SHOULD"}),
    "F10": ("(statement)", set()),
    "F11": ("MUST / SHOULD / MUST NOT", {"MUST", "SHOULD", "MUST NOT"}),
    "F4": ("MUST", {"MUST"}),
    "F12": ("MUST", {"MUST"}),
    "F13": ("MUST", {"MUST"}),
    "F14": ("MUST", {"MUST"}),
    "F16": ("REQUIRED", {"MUST"}),
    "F17": ("SHOULD", {"SHOULD"}),
    "F20": ("various", {"MUST", "MUST NOT", "MAY"}),
    "F21": ("MUST (changelog only)", {"MUST"}),
}

OPEN_QUESTIONS = {"§3.1", "§3.2", "§3.6", "§3.7", "§3.8"}
SILENCES = {"§3.1", "§3.2", "§3.7", "§3.8"}  # the open questions where MCP says nothing (§3.6 is about priming's level)
DECISION_IDS = {"decision-guards", "decision-1", "decision-2", "decision-3", "decision-4", "decision-5",
                "decision-pending", "decision-expiry", "decision-client", "decision-reference"}

RULES_FILE_PATH = Path(os.environ.get("MCP_RESUME_RULES_FILE", "/work/shared/reference/mcp-transport-rules.md"))


def _grade_levels():
    return [(r.id, p.value, g.level.name, g.sources) for r in RULES for p, g in zip(PROFILE_ORDER, r.grades)]


def _every_grade():
    for r in RULES:
        for p, g in zip(PROFILE_ORDER, r.grades):
            yield r.id, None, p, g
        for case, grades in r.cases.items():
            for p, g in zip(PROFILE_ORDER, grades):
                yield r.id, case, p, g


# -- the levels, pinned -------------------------------------------------------------


def test_every_rule_and_profile_has_exactly_the_pinned_level_and_sources():
    assert _grade_levels() == LEVELS


@pytest.mark.parametrize("row", LEVELS, ids=lambda row: f"{row[0]}/{row[1]}")
def test_a_level_and_its_sources(row):
    rule_id, profile, expected, sources = row
    grade = catalog.grade(rule_id, Profile.parse(profile))
    assert (grade.level.name, grade.sources) == (expected, sources)
    assert level(rule_id, Profile.parse(profile)) is Level[expected]


@pytest.mark.parametrize("row", CASE_LEVELS, ids=lambda row: f"{row[0]}/{row[1]}/{row[2]}")
def test_a_case_level_and_its_sources(row):
    rule_id, case, profile, expected, sources = row
    grade = catalog.grade(rule_id, Profile.parse(profile), case)
    assert (grade.level.name, grade.sources) == (expected, sources)
    assert level(rule_id, Profile.parse(profile), case) is Level[expected]


def test_cases_are_exactly_the_pinned_ones():
    cases = [(r.id, case, p.value, g.level.name, g.sources)
             for r in RULES for case, grades in r.cases.items() for p, g in zip(PROFILE_ORDER, grades)]
    assert cases == CASE_LEVELS


def test_a_stream_resumption_left_unanswered_fails_under_every_session_era_profile():
    # replaying is a MAY of the MCP revisions, answering a GET is not (B15, C15, D18)
    for profile in MCP_PROFILES:
        assert verdict_for_broken("replay-suffix", profile, outside=True) is Verdict.WARN
        assert verdict_for_broken("replay-suffix", profile, "no-answer", outside=True) is Verdict.FAIL
    assert verdict_for_broken("replay-suffix", Profile.BOUNDARY, "no-answer") is Verdict.FAIL


def test_a_cursor_refusal_left_unanswered_fails_under_every_session_era_profile():
    # how to refuse a cursor the server cannot resume is open (a MAY), leaving the GET unanswered is not (B15)
    for profile in MCP_PROFILES:
        assert verdict_for_broken("reject-foreign-event-id", profile, outside=True) is Verdict.WARN
        assert verdict_for_broken("reject-foreign-event-id", profile, "no-answer", outside=True) is Verdict.FAIL


def test_a_malformed_minted_session_id_fails_where_minting_one_is_a_may():
    # minting a session id is optional (B28), minting one outside 0x21-0x7E is not (B30, D35)
    for profile in MCP_PROFILES:
        assert verdict_for_broken("new-session-on-initialize", profile) is Verdict.PASS
        assert verdict_for_broken("new-session-on-initialize", profile, "malformed-id") is Verdict.FAIL


def test_a_never_issued_id_warns_under_mcp_and_an_ended_session_fails():
    for profile in MCP_PROFILES:
        assert verdict_for_broken("unknown-session-404", profile, "never-issued") is Verdict.WARN
        assert verdict_for_broken("unknown-session-404", profile) is Verdict.FAIL
    assert verdict_for_broken("unknown-session-404", Profile.BOUNDARY, "never-issued") is Verdict.FAIL


def test_a_case_the_rule_does_not_name_falls_back_to_the_rule_level():
    for profile in Profile:
        assert level("replay-suffix", profile, "never-issued") is level("replay-suffix", profile)
        assert level("unknown-session-404", profile, None) is level("unknown-session-404", profile)


@pytest.mark.parametrize("profile", list(AGREEMENT_LEVELS))
def test_agreement_with_the_reference_is_a_note_under_every_profile(profile):
    assert level(AGREEMENT, Profile.parse(profile)).name == AGREEMENT_LEVELS[profile]
    assert catalog.grade(AGREEMENT, Profile.parse(profile)).sources == ("decision-reference",)
    assert verdict_for_broken(AGREEMENT, Profile.parse(profile)).value == BROKEN[AGREEMENT_LEVELS[profile]]


def test_no_broadcast_is_a_must_of_the_session_era_checked_by_its_own_invariant():
    rule = RULES_BY_ID["no-broadcast"]
    assert rule.invariants == ("no-broadcast",)
    assert [level("no-broadcast", p) for p in PROFILE_ORDER] == [Level.MUST] * 4 + [Level.NOT_APPLICABLE]


def test_an_unknown_rule_is_a_key_error_naming_the_known_ones():
    with pytest.raises(KeyError, match="known rules: replay-suffix"):
        level("no-such-rule", Profile.BOUNDARY)


# -- the verdict of each level -------------------------------------------------------


@pytest.mark.parametrize("row", LEVELS + [(r, p, lv, s) for r, _, p, lv, s in CASE_LEVELS],
                         ids=lambda row: f"{row[0]}/{row[1]}")
def test_the_verdict_of_a_broken_rule_follows_its_level(row):
    rule_id, profile, expected, _ = row
    case = next((c for r, c, p, lv, _ in CASE_LEVELS if (r, p, lv) == (rule_id, profile, expected)), None)
    case = case if row not in LEVELS else None
    assert verdict_for_broken(rule_id, Profile.parse(profile), case).value == BROKEN[expected]


def test_a_finding_is_judged_with_its_case():
    finding = SimpleNamespace(rule="unknown-session-404", message="x", case="never-issued")
    plain = SimpleNamespace(rule="unknown-session-404", message="x")
    assert verdict_for_finding(finding, Profile.MCP_2025_11_25) is Verdict.WARN
    assert verdict_for_finding(plain, Profile.MCP_2025_11_25) is Verdict.FAIL
    assert verdict_for_finding(replace_rule(plain, "session-delete"), Profile.BOUNDARY) is Verdict.PASS  # a MAY allows it


def test_an_answer_outside_everything_the_profile_accepts_is_never_a_pass():
    """docs/profiles.md: what a MAY allows is a PASS, but a 5xx (or no answer) meets no expectation."""
    allowed = SimpleNamespace(rule="reject-foreign-event-id", message="x")
    server_error = SimpleNamespace(rule="reject-foreign-event-id", message="x", outside=True)
    assert verdict_for_finding(allowed, Profile.MCP_2025_11_25) is Verdict.PASS
    assert verdict_for_finding(server_error, Profile.MCP_2025_11_25) is Verdict.WARN
    assert verdict_for_finding(server_error, Profile.BOUNDARY) is Verdict.FAIL
    assert verdict_for_finding(replace_rule(server_error, "sessionless-get-405"), Profile.BOUNDARY) is Verdict.PASS


def replace_rule(finding, rule_id):
    return SimpleNamespace(**{**vars(finding), "rule": rule_id})


def _run(*actions, profile=Profile.BOUNDARY):
    state = INITIAL_STATE
    for action in actions:
        state = step(state, action, profile).after
    return state


def _answered(transition, **changes):
    return replace(transition, observation=replace(transition.observation, **changes))


def test_the_decision_names_the_case_the_catalog_grades():
    assert NEVER_ISSUED in RULES_BY_ID["unknown-session-404"].cases


@pytest.mark.covers("unknown-session-404")
@pytest.mark.parametrize("profile", PROFILE_ORDER[:4], ids=lambda p: p.value)
def test_a_200_to_a_never_issued_session_id_warns_under_mcp_and_to_an_ended_one_fails(profile):
    live = _run(a.Initialize(), profile=profile)
    never = _answered(step(live, a.Reconnect("S2", None), profile), status=200)
    ended_state = _run(a.Initialize(), a.DeleteSession("S1"), profile=profile)
    ended = _answered(step(ended_state, a.Reconnect("S1", None), profile), status=200)
    [never_finding] = inv.check_transition(never)
    [ended_finding] = inv.check_transition(ended)
    assert (never_finding.rule, never_finding.case, ended_finding.rule) == ("unknown-session-404", NEVER_ISSUED, "unknown-session-404")
    assert verdict_for_finding(never_finding, profile) is (Verdict.FAIL if profile is Profile.BOUNDARY else Verdict.WARN)
    assert verdict_for_finding(ended_finding, profile) is Verdict.FAIL


@pytest.mark.covers("no-broadcast")
@pytest.mark.parametrize("profile", PROFILE_ORDER[:4], ids=lambda p: p.value)
def test_a_request_sent_again_while_its_stream_is_connected_fails_every_session_era_profile(profile):
    state = _run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), profile=profile)
    resumed = step(state, a.Reconnect("S1", None), profile)
    assert not [f for f in inv.check_transition(resumed) if f.rule == "no-broadcast"]
    request = state.requests[0]
    again = _answered(resumed, events=(Delivered("E9", request.id, resumed.observation.stream),))
    broadcast = [f for f in inv.check_transition(again) if f.rule == "no-broadcast"]
    assert broadcast and verdict_for_finding(broadcast[0], profile) is Verdict.FAIL


# -- the levels agree with the MCP text ----------------------------------------------


def _mcp_ids(grade):
    return [s for s in grade.sources if s not in OPEN_QUESTIONS and s not in DECISION_IDS]


def _keywords(grade):
    return set().union(*(RULES_FILE[s][1] for s in _mcp_ids(grade))) if _mcp_ids(grade) else set()


@pytest.mark.parametrize("rule_id, case, profile, grade",
                         [g for g in _every_grade() if g[2] in MCP_PROFILES + (Profile.MCP_2026_07_28,)],
                         ids=lambda v: getattr(v, "value", None) or (v if isinstance(v, str) else None))
def test_an_mcp_profile_level_rests_on_that_keyword_of_its_revision_or_on_silence(rule_id, case, profile, grade):
    assert not set(grade.sources) & DECISION_IDS, "only boundary rests on the boundary's decision"
    if grade.level is Level.NOT_APPLICABLE:
        assert grade.reason, "a rule a profile does not apply says why"
        return
    assert all(s[0] == LETTER[profile] for s in _mcp_ids(grade)), "an MCP profile cites its own revision"
    keywords = _keywords(grade)
    assert grade.silent == bool(set(grade.sources) & SILENCES), "where MCP is silent, the reason says so"
    if grade.level is Level.MUST:
        assert keywords & {"MUST", "MUST NOT"} and not grade.silent
    elif grade.silent:
        assert grade.reason.startswith(SILENT)
    elif grade.level is Level.SHOULD:
        assert keywords & {"SHOULD", "SHOULD NOT"}
    else:
        assert "MAY" in keywords


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_boundary_is_2025_11_25_plus_the_decision_as_musts(rule):
    order = [Level.NOT_APPLICABLE, Level.MAY, Level.SHOULD, Level.MUST]
    below, boundary = rule.grade(Profile.MCP_2025_11_25), rule.grade(Profile.BOUNDARY)
    if boundary.level is below.level:
        added = set(_mcp_ids(boundary)) - set(_mcp_ids(below)) - set(below.sources)
        # a source only boundary cites is one its decision raises (event-id-unique: D28's SHOULD, by decision 1)
        assert not added or set(boundary.sources) & DECISION_IDS
    else:
        assert boundary.level is Level.MUST and order.index(below.level) < order.index(Level.MUST)
        assert set(boundary.sources) & DECISION_IDS, "a level boundary raises names the part of the decision"
    assert all(s[0] == "D" for s in _mcp_ids(boundary))


def test_the_revision_boundaries():
    assert [level("priming-event", p) for p in PROFILE_ORDER] == [Level.NOT_APPLICABLE] * 2 + [Level.SHOULD] * 2 + [Level.NOT_APPLICABLE]
    for rule in RULES:
        if rule.id.startswith("sessionless-"):
            assert [rule.level(p) for p in PROFILE_ORDER][:4] == [Level.NOT_APPLICABLE] * 4
        else:
            assert rule.level(Profile.MCP_2026_07_28) is Level.NOT_APPLICABLE
    header_rules = {"unsupported-version-400"}  # MCP-Protocol-Version begins with 2025-06-18 (C37)
    assert all(rule.grade(Profile.MCP_2025_03_26).level is rule.grade(Profile.MCP_2025_06_18).level
               for rule in RULES if rule.id not in header_rules)
    assert [level("unsupported-version-400", p) for p in PROFILE_ORDER] == [Level.NOT_APPLICABLE] + [Level.MUST] * 3 + [Level.NOT_APPLICABLE]


# -- the sources exist ---------------------------------------------------------------


def test_every_cited_id_has_a_source_entry_and_every_entry_is_cited():
    cited = {s for _, _, _, g in _every_grade() for s in g.sources} | {s for g in catalog.AGREEMENT_GRADES for s in g.sources}
    assert cited == set(SOURCES)
    assert cited == set(RULES_FILE) | OPEN_QUESTIONS | DECISION_IDS
    for source in SOURCES.values():
        assert source.section and source.gist and source.kind
        assert source.is_decision == (source.id in DECISION_IDS)
        assert source.is_open_question == (source.id in OPEN_QUESTIONS)
        assert (source.revision is None) == (source.is_decision or source.is_open_question)


def _rules_file_rows(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 3 and re.fullmatch(r"[A-F]\d+([–-][A-F]\d+)?", cells[0]):
            rows[cells[0].replace("–", "-")] = cells[1].replace("*", "")
    return rows


@pytest.mark.skipif(not RULES_FILE_PATH.exists(), reason="the MCP rules file is not on this machine")
def test_the_pinned_ids_and_keywords_are_those_of_the_rules_file():
    rows = _rules_file_rows(RULES_FILE_PATH.read_text())
    assert {sid: rows.get(sid) for sid in RULES_FILE} == {sid: text for sid, (text, _) in RULES_FILE.items()}


# -- the docs show them --------------------------------------------------------------


def _model():
    return DocsModel(rules=RULES, tests={}, decision_wide=[], obligations={}, designs={},
                     scenarios=frozenset(), diagrams=[])


def _unlinked(text: str) -> str:
    """``text`` with each MCP rule id's link to its gist in docs/sources.md reduced to the id."""
    return re.sub(r"\[([^\]]+)\]\((?:\.\./)?sources\.md#source-[\w-]+\)", r"\1", text)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_a_rule_page_shows_each_profile_level_its_sources_and_why(rule):
    linked = rule_page(_model(), rule)
    text = _unlinked(linked)
    for source_id in rule.grade(Profile.BOUNDARY).sources:
        assert f"[`{source_id}`](../sources.md#source-" in linked
    for profile in PROFILE_ORDER:
        grade = rule.grade(profile)
        sources = ", ".join(f"`{s}`" for s in grade.sources)
        assert f"| `{profile.value}` | {grade.level.value} | {sources} | {grade.explanation} |" in text
    for case in rule.cases:
        assert f"### Case `{case}`" in text


def test_the_profiles_page_shows_cases_and_agreement():
    text = _unlinked(profiles_page(_model()))
    assert "| [`unknown-session-404`](rules/unknown-session-404.md) | `never-issued` | SHOULD | SHOULD | SHOULD | MUST | n/a |" in text
    assert "| `boundary` | n/a | `decision-reference` | no rule of the catalog names the difference: it is a note in " \
           "the report, never a verdict (docs/design.md §3) |" in text
    assert "| [`sessionless-request-scope`](rules/sessionless-request-scope.md) | `after-final` | n/a | n/a | n/a | " \
           "n/a | SHOULD |" in text

"""The 2026-07-28 revision (rules file §F): its own state machine and checks.

``machine`` is the sessionless state machine (POST only, no session, no server
requests); ``checks`` judges what a server sends in it. Nothing here is shared
with the session-era modules of ``spec/``.
"""

"""The library of the command line: what the ``mcp-resume`` commands compose out of ``spec``,
``model`` and ``proofs``, one module per concern.

A command module (``mcp_resume.<command>``, named by ``cli``) parses its arguments, calls one
function here and prints; it never imports another command module, and nothing here imports a
command module or ``cli`` (``tests/fast/test_command_modules.py`` reads the imports). This package
imports nothing when imported: each command pulls in only the stack it needs (Z3, Hypothesis,
httpx ...).
"""

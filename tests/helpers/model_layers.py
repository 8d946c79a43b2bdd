"""What tests/fast/test_model_layers.py and tests/slow/test_model_layers.py share."""

from __future__ import annotations


ALLOWED = {
    "servers": set(),
    "http": set(),
    "harness": {"servers"},
    "explore": {"harness", "servers"},
    "traffic": {"harness", "http", "servers"},
    "sessionless": {"harness", "http", "servers", "traffic"},
    "oracle": {"harness", "http", "servers", "traffic", "sessionless"},
    "verify": {"harness", "http", "servers", "traffic", "sessionless", "oracle"},
    "serving": {"http", "servers", "verify"},
    "targets": {"serving"},
}

"""Implementations held to the spec: adapters, servers under test, the Hypothesis machine."""

"""Shared pytest set-up: ``pytester`` runs the test kit's plugin the way a user's suite does."""

pytest_plugins = ["pytester"]

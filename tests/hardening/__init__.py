"""Adversarial solutions and the defences against them (see docs/threat-model.md). A package, so
that its conftest does not take the place of other folders' `conftest` module."""

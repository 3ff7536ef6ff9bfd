"""The companion tests' shared runs (companion_runs.py) as fixtures."""

from companion_runs import notebook_run, venv_kernel  # noqa: F401

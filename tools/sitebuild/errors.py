"""The one error type the build raises: its message is what the author needs to read."""


class BuildError(Exception):
    pass

"""The engine's single error type.

Every malformed input, illegal decision or impossible card record raises `EngineError` with a plain one-line
message, so callers (the replay command, the API) can show it to staff as it is, without a traceback.
"""


class EngineError(ValueError):
    """A round or script that cannot be played or settled correctly."""

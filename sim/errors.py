"""The project's error types: every bad input raises one of these with a message that
names what is wrong, so the CLI can print it in one line and exit non-zero."""


class SimError(ValueError):
    """Base of every error this package raises on bad input."""


class NotationError(SimError):
    """A tile, card, rack or meld written in the notation could not be read (docs/rules.md, Notation)."""


class RulesError(SimError):
    """A rules value, preset name or rules JSON is not allowed."""


class DatasetError(SimError):
    """A dataset on disk is missing, corrupt or not one of ours."""


class PlayError(SimError):
    """Rules under which play cannot go on: a match that does not end, a hand too long to
    trace. Raised with the unit and the cap it reached."""


class OutputError(SimError):
    """A place to write output to cannot take it: not a directory, not writable, full, or
    holding a link that writing would follow. Raised naming the path."""

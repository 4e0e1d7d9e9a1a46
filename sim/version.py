"""The package version (here so that the low layers read it without importing ``sim``)."""

__version__ = "0.2.0"

"""The package's version, in one place below every stage that prints it."""

__version__ = "0.1.0"

"""What every stage shares: the error classes, how numbers and texts are written for people,
natural id order, JSON helpers, API-key redaction, keyword checks and the garbage-collector
settings of a run. Imports nothing else of the package."""

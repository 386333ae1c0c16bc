"""The session's reports, written from one document: its records (:mod:`.record`), the
terminal summary, JSON, Markdown, HTML and the GitHub step summary, the status words all of
them use (:mod:`.labels`) and the per-case entries of large runs. Pure: the pytest face
(:mod:`pytest_ragcheck.plugin.reporting`) hands it the session's records."""

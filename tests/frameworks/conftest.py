"""Framework tests: no network. Haystack's usage telemetry is switched off before it loads
(workers of ``-n 2`` runs inherit the environment)."""

from __future__ import annotations

import os

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

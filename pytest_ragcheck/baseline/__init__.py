"""The stored baseline file: its format (:mod:`.document`), the per-case rows written and
compared as text in bulk (:mod:`.rows`, :mod:`.bulk`), and the keep / write / compare decision of
one check (:mod:`.decision`). syrupy itself is reached only from the pytest face."""

"""Looking across runs and systems: ``compare()`` of several retrievers side by side
(:mod:`.systems`, :mod:`.table`), pandas DataFrames (:mod:`.frames`) and the
``--ragcheck-history`` lines with their trends (:mod:`.history`)."""

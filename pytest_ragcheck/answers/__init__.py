"""Answer metrics: what a RAG pipeline's answer is worth, next to what it retrieved.

Modules, one job each (a pipeline's return value is split into answer and contexts in
:mod:`pytest_ragcheck.run.output`): ``text``
(normalisation and tokenisation, CJK included), ``lexical`` (exact match, token F1, ROUGE-L),
``bleu`` (sentence BLEU as sacrebleu computes it), ``quotes`` (checking the judge's evidence
against the contexts), ``judged`` (the judge-based formulas), ``score`` (the metrics of a run's
cases). Stdlib only: nothing here needs numpy, pydantic or litellm.
"""

from __future__ import annotations

"""SQuAD v1.1's official evaluation script, re-implemented from its published source (tests only).

``evaluate-v1.1.py`` as written: ``normalize_answer`` (lower case, ``string.punctuation``
removed character by character, ``\\b(a|an|the)\\b`` replaced by a space, white space
collapsed), ``exact_match_score`` on the normalised strings, ``f1_score`` over a ``Counter`` of
the tokens, and ``metric_max_over_ground_truths``. Only the command-line part is left out.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence

__all__ = ["exact_match_score", "f1_score", "metric_max_over_ground_truths", "normalize_answer"]


def normalize_answer(s: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def metric_max_over_ground_truths(
    metric_fn: Callable[[str, str], float], prediction: str, ground_truths: Sequence[str]
) -> float:
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)

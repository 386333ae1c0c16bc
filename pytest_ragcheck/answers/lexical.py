"""The lexical answer metrics (no LLM): exact match, token F1, CMRC's EM and F1, BLEU, ROUGE-L.

Each takes the answer and the case's references and returns the best score over the
references (BLEU scores all references at once, as sacrebleu does). Verified in the tests
against re-implementations of the SQuAD v1.1 and CMRC 2018 evaluation scripts, sacrebleu and
rouge-score on thousands of generated English and Chinese pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pytest_ragcheck.answers.bleu import sentence_bleu
from pytest_ragcheck.answers.cmrc import cmrc_em, cmrc_f1
from pytest_ragcheck.answers.text import answer_tokens, has_cjk, rouge_tokens

__all__ = ["LEXICAL", "bleu", "exact_match", "lcs_length", "rouge_l", "token_f1"]


def exact_match(answer: str, references: Sequence[str]) -> float:
    """1.0 when the normalised answer equals a normalised reference, else 0.0."""
    tokens = answer_tokens(answer)
    return 1.0 if any(tokens == answer_tokens(ref) for ref in references) else 0.0


def _f1(prediction: Sequence[str], truth: Sequence[str]) -> float:
    same = sum((Counter(prediction) & Counter(truth)).values())
    if same == 0:  # SQuAD v1.1: also 0 when both are empty
        return 0.0
    precision = same / len(prediction)
    recall = same / len(truth)
    return 2 * precision * recall / (precision + recall)


def token_f1(answer: str, references: Sequence[str]) -> float:
    """SQuAD v1.1 token F1 (bag of tokens), best over the references."""
    tokens = answer_tokens(answer)
    return max((_f1(tokens, answer_tokens(ref)) for ref in references), default=0.0)


def bleu(answer: str, references: Sequence[str]) -> float:
    """sacrebleu's sentence BLEU / 100; the ``zh`` tokeniser when any text holds CJK."""
    chinese = has_cjk(answer) or any(has_cjk(ref) for ref in references)
    return sentence_bleu(answer, references, chinese=chinese)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, Hyyrö 2004): O(|a|·|b| / 64)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        matches = row & masks.get(token, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(a) - row.bit_count()


def _rouge(prediction: Sequence[str], target: Sequence[str]) -> float:
    if not prediction or not target:
        return 0.0
    common = lcs_length(target, prediction)
    precision = common / len(prediction)
    recall = common / len(target)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def rouge_l(answer: str, references: Sequence[str]) -> float:
    """rouge-score's ``rougeL`` F-measure (no stemming), best over the references."""
    tokens = rouge_tokens(answer)
    return max((_rouge(tokens, rouge_tokens(ref)) for ref in references), default=0.0)


#: Metric name -> function(answer, references).
LEXICAL: dict[str, Callable[[str, Sequence[str]], float]] = {
    "exact_match": exact_match,
    "token_f1": token_f1,
    "cmrc_em": cmrc_em,
    "cmrc_f1": cmrc_f1,
    "bleu": bleu,
    "rouge_l": rouge_l,
}

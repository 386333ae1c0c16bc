"""Sentence BLEU exactly as ``sacrebleu.sentence_bleu(answer, references).score / 100``.

sacrebleu's defaults: the ``13a`` tokeniser (``zh`` when the text holds CJK characters, as
chosen by the caller), exponential smoothing, effective n-gram order, 4-grams, the closest
reference length for the brevity penalty and n-gram counts clipped by their maximum over the
references. Re-implemented (and verified against sacrebleu in the tests) so that the plugin
needs no extra dependency and no lru-cached tokeniser state for a handful of sentences.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["sentence_bleu"]

MAX_ORDER = 4

_REGEXP = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)

# sacrebleu's ``zh`` ranges, written as it writes them: '\u20000' is the two characters
# U+2000 '0' (the intended U+20000 needs \U), so the range it compares against is
# U+2000'0'..U+2A6D'6'; kept as is, for equal results.
_ZH_RANGES = (
    ("\u3400", "\u4db5"),
    ("\u4e00", "\u9fa5"),
    ("\u9fa6", "\u9fbb"),
    ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"),
    ("\ufa70", "\ufad9"),
    ("\u2000" + "0", "\u2a6d" + "6"),
    ("\u2f80" + "0", "\u2fa1" + "d"),
    ("\uff00", "\uffef"),
    ("\u2e80", "\u2eff"),
    ("\u3000", "\u303f"),
    ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"),
    ("\u2ff0", "\u2fff"),
    ("\u3100", "\u312f"),
    ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"),
    ("\ufe30", "\ufe4f"),
    ("\u2600", "\u26ff"),
    ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"),
    ("\u3300", "\u33ff"),
)


def _regexp(line: str) -> str:
    for pattern, replacement in _REGEXP:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def _tokenize_13a(line: str) -> list[str]:
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    return _regexp(f" {line} ").split()


def _is_zh(char: str) -> bool:
    return any(start <= char <= end for start, end in _ZH_RANGES)


def _tokenize_zh(line: str) -> list[str]:
    spaced = "".join(f" {c} " if _is_zh(c) else c for c in line.strip())
    return _regexp(spaced).split()


def _ngrams(tokens: Sequence[str]) -> Counter[tuple[str, ...]]:
    return Counter(
        tuple(tokens[i : i + n])
        for n in range(1, MAX_ORDER + 1)
        for i in range(len(tokens) - n + 1)
    )


def _closest(hyp_len: int, ref_lens: Sequence[int]) -> int:
    best_diff, best = -1, -1
    for length in ref_lens:
        diff = abs(hyp_len - length)
        if best_diff == -1 or diff < best_diff or (diff == best_diff and length < best):
            best_diff, best = diff, length
    return best


def sentence_bleu(answer: str, references: Sequence[str], *, chinese: bool) -> float:
    """BLEU in [0, 1] of ``answer`` against ``references`` (``chinese``: the zh tokeniser)."""
    tokenize = _tokenize_zh if chinese else _tokenize_13a
    hyp = tokenize(answer.rstrip())
    ref_counts: Counter[tuple[str, ...]] = Counter()
    ref_lens = []
    for reference in references:
        tokens = tokenize(reference.rstrip())
        ref_lens.append(len(tokens))
        for gram, count in _ngrams(tokens).items():
            ref_counts[gram] = max(ref_counts[gram], count)
    correct = [0] * MAX_ORDER
    total = [0] * MAX_ORDER
    for gram, count in _ngrams(hyp).items():
        total[len(gram) - 1] += count
        correct[len(gram) - 1] += min(count, ref_counts.get(gram, 0))
    if not any(correct):
        return 0.0
    sys_len, ref_len = len(hyp), _closest(len(hyp), ref_lens)
    brevity = math.exp(1 - ref_len / sys_len) if sys_len < ref_len else 1.0
    precisions: list[float] = []
    smooth = 1.0
    for n in range(MAX_ORDER):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            precisions.append(100.0 / (smooth * total[n]))
        else:
            precisions.append(100.0 * correct[n] / total[n])
    score = brevity * math.exp(sum(math.log(p) for p in precisions) / len(precisions))
    return min(score / 100.0, 1.0)  # sacrebleu gives 100.00000000000004 for a perfect match

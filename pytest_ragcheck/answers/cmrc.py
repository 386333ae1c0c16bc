"""``cmrc_em`` and ``cmrc_f1``: the CMRC 2018 evaluation script's exact match and F1.

The script (``cmrc2018_evaluate.py``) differs from SQuAD's on purpose, and so do these from
``exact_match`` / ``token_f1``:

* segmentation (``mixed_segmentation``): lower case, strip, then each Chinese character
  (U+4E00-U+9FA5, the script's range) and each of its separator characters is a segment of its
  own; the runs in between go to nltk's word tokenizer. Separators are dropped for F1.
* F1 is the **longest common substring** of the two segment lists (contiguous, in order), not
  a bag of tokens: ``大学北京`` against ``北京大学`` is 0.5 here and 1.0 for ``token_f1``.
* exact match (``remove_punctuation``) compares the lower-cased, stripped texts with only the
  separators removed: spaces and other ASCII punctuation count (``北京.`` is not ``北京``).

The separators are the script's list as written: its ``……`` is one two-character item, which
no single character equals, so a lone ``…`` is kept. nltk is not needed: its word tokenizer
splits a run at whitespace and around ``; @ # $ % & ? ! ( ) [ ] { } < > ‘ “ „ « » — –``, a comma not
followed by a digit, ``..``/``...``, ``--`` and a final period, and splits six words (``cannot``
is ``can`` ``not``; ``gimme``, ``gonna``, ``gotta``, ``lemme``, ``wanna`` alike), which
:func:`segments` does too. It differs from nltk only on quotes and apostrophes (nltk rewrites
``"`` and splits ``don't``) and on a period inside a run, where nltk's sentence splitter may cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["cmrc_em", "cmrc_f1", "longest_common_substring", "segments"]

#: The script's ``sp_char``, as written (``"……"`` is one item).
SEPARATORS: tuple[str, ...] = (
    "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
    "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
    "「", "」", "（", "）", "－", "～", "『", "』",
)  # fmt: skip
_SINGLE = frozenset(s for s in SEPARATORS if len(s) == 1)
_CHINESE = re.compile(r"[\u4e00-\u9fa5]")
_DROP = str.maketrans(dict.fromkeys(_SINGLE))
#: What nltk's word tokenizer pads with spaces (its punctuation, brackets and dashes rules).
_MARKS = re.compile(r"([;@#$%&?!()\[\]{}<>‘’“”«»„—–]|,(?!\d)|\.{2,}|--)")
_FINAL_PERIOD = re.compile(r"(?<!\.)\.\s*$")
#: The words nltk's word tokenizer splits in two (its ``CONTRACTIONS2`` without apostrophes).
_CONTRACTIONS = re.compile(
    r"\b(can)(not)\b|\b(gim)(me)\b|\b(gon)(na)\b|\b(got)(ta)\b|\b(lem)(me)\b|\b(wan)(na)(?=\s)"
)


def _split(match: re.Match[str]) -> str:
    return " " + " ".join(part for part in match.groups() if part) + " "


def _word_tokens(run: str) -> list[str]:
    """A (lower-case) run between Chinese characters and separators, split as nltk's
    tokenizer splits it."""
    padded = _MARKS.sub(r" \1 ", _FINAL_PERIOD.sub(" . ", run)) + " "
    return _CONTRACTIONS.sub(_split, padded).split()


def segments(text: str) -> list[str]:
    """The script's ``mixed_segmentation(text, rm_punc=True)``: what its F1 compares."""
    out: list[str] = []
    run: list[str] = []
    for char in text.lower().strip():
        if char in _SINGLE:
            continue
        if _CHINESE.match(char):
            if run:
                out.extend(_word_tokens("".join(run)))
                run.clear()
            out.append(char)
        else:
            run.append(char)
    if run:
        out.extend(_word_tokens("".join(run)))
    return out


def longest_common_substring(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest run of segments that ``a`` and ``b`` share (the script's
    ``find_lcs``), one row of the table at a time."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                length = previous[j - 1] + 1
                row[j] = length
                if length > best:
                    best = length
        previous = row
    return best


def _f1(answer: list[str], reference: list[str]) -> float:
    common = longest_common_substring(reference, answer)
    if common == 0:
        return 0.0
    precision = common / len(answer)
    recall = common / len(reference)
    return 2 * precision * recall / (precision + recall)


def cmrc_f1(answer: str, references: Sequence[str]) -> float:
    """The script's ``calc_f1_score``: longest-common-substring F1, best over references."""
    tokens = segments(answer)
    return max((_f1(tokens, segments(ref)) for ref in references), default=0.0)


def _punctuation_removed(text: str) -> str:
    return text.lower().strip().translate(_DROP)


def cmrc_em(answer: str, references: Sequence[str]) -> float:
    """The script's ``calc_em_score``: 1.0 when the answer equals a reference once both are
    lower-cased, stripped and rid of the separators (spaces count), else 0.0."""
    text = _punctuation_removed(answer)
    return 1.0 if any(text == _punctuation_removed(ref) for ref in references) else 0.0

"""Normalising and tokenising answers for the lexical metrics, Chinese and Japanese included.

``answer_tokens`` is SQuAD v1.1's ``normalize_answer`` (lower case, ``string.punctuation``
removed, the articles a/an/the removed, whitespace split). On a text holding a CJK character it
adds two steps from the CMRC 2018 script: every CJK character is a token of its own, and CJK
punctuation separates tokens and is dropped (ASCII punctuation is removed without separating,
as SQuAD does: ``boundary-layer`` is one token ``boundarylayer``). A text without CJK
characters gets SQuAD's normalisation and nothing else, code point for code point: curly
quotes, ``…`` and other Unicode punctuation stay inside tokens, as in SQuAD's script.
:mod:`.cmrc` has the CMRC 2018 script's own metrics.

``rouge_tokens`` is rouge-score's default tokeniser (lower case, maximal ``[a-z0-9]`` runs,
everything else dropped) plus CJK characters as tokens of their own: rouge-score drops them,
which scores any two Chinese texts 0. On text without CJK characters it equals rouge-score's.

CJK here means Han ideographs (with extensions and compatibility forms) and Japanese kana,
the scripts written without spaces between words; Hangul is written with spaces and is split
like other scripts.
"""

from __future__ import annotations

import re
import string

__all__ = ["CJK_PATTERN", "answer_tokens", "has_cjk", "rouge_tokens"]

CJK_PATTERN = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Unified Ideographs Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0002fa1f"  # Extensions B-F, Compatibility Supplement
)
_CJK_RE = re.compile(f"[{CJK_PATTERN}]")
#: The Chinese punctuation the CMRC 2018 evaluation script removes (its ``sp_char``).
_CJK_PUNCTUATION = "，。：？！“”；’《》…·、「」（）－～『』"
_SQUAD_DROP = str.maketrans(dict.fromkeys(string.punctuation))
_CJK_DROP = str.maketrans(dict.fromkeys(_CJK_PUNCTUATION, " ") | dict.fromkeys(string.punctuation))
_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_ROUGE_RE = re.compile(f"[a-z0-9]+|[{CJK_PATTERN}]")


def has_cjk(text: str) -> bool:
    """True when ``text`` holds a CJK character (Han or kana)."""
    return _CJK_RE.search(text) is not None


def answer_tokens(text: str) -> list[str]:
    """SQuAD v1.1 normalisation split into tokens; in a text with CJK characters, each of
    them a token and CJK punctuation a separator."""
    lowered = text.lower()
    if has_cjk(lowered):
        lowered = _CJK_RE.sub(r" \g<0> ", lowered.translate(_CJK_DROP))
    else:
        lowered = lowered.translate(_SQUAD_DROP)
    return _ARTICLES_RE.sub(" ", lowered).split()


def rouge_tokens(text: str) -> list[str]:
    """rouge-score's default tokens (no stemming), CJK characters one token each."""
    return _ROUGE_RE.findall(text.lower())

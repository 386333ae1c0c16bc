"""CMRC 2018's official evaluation script, re-implemented from its published source (tests only).

``squad-style-data/cmrc2018_evaluate.py`` (version "v5 - special") as written, ported from
Python 2: ``str(x).decode('utf-8')`` is the text itself, ``ur'[\\u4e00-\\u9fa5]'`` is
``r'[\\u4e00-\\u9fa5]'``. ``mixed_segmentation``, ``remove_punctuation``, ``find_lcs``,
``calc_f1_score`` and ``calc_em_score`` are otherwise the script's lines.

The one replacement is ``nltk.word_tokenize``, which the script applies to the runs of
characters between Chinese characters and separators. nltk's ``word_tokenize`` is punkt's
sentence splitter (which needs a data download) followed by ``NLTKWordTokenizer`` on each
sentence. On a run with no sentence end inside it (no ``.``, ``!`` or ``?`` before its last
character) punkt returns the run as one sentence, so :func:`word_tokenize` calls
``NLTKWordTokenizer`` alone, and refuses any other run: a comparison can never silently leave
the domain where the replacement is exact. (On a single alphanumeric word, the case SPEC §13
names, it returns the word, except for the six words nltk splits, such as ``cannot``.)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["calc_em_score", "calc_f1_score", "mixed_segmentation", "word_tokenize"]

_SENTENCE_END = re.compile(r"[.!?].")


class OutsideDomain(ValueError):
    """A run that punkt might split into sentences."""


@functools.cache
def _tokenizer() -> Any:
    from nltk.tokenize import NLTKWordTokenizer  # rouge-score's dependency, in the dev extra

    return NLTKWordTokenizer()


def word_tokenize(run: str) -> list[str]:
    return list(_word_tokenize(run))


@functools.lru_cache(maxsize=65536)  # runs repeat: the tokenizer is the reference's slow part
def _word_tokenize(run: str) -> tuple[str, ...]:
    if _SENTENCE_END.search(run.strip()):
        raise OutsideDomain(repr(run))
    return tuple(_tokenizer().tokenize(run))


# split Chinese with English
def mixed_segmentation(in_str: str, rm_punc: bool = False) -> list[str]:
    in_str = str(in_str).lower().strip()
    segs_out = []
    temp_str = ""
    sp_char = ['-',':','_','*','^','/','\\','~','`','+','=',
               '，','。','：','？','！','“','”','；','’','《','》','……','·','、',
               '「','」','（','）','－','～','『','』']  # fmt: skip
    for char in in_str:
        if rm_punc and char in sp_char:
            continue
        if re.search(r"[\u4e00-\u9fa5]", char) or char in sp_char:
            if temp_str != "":
                ss = word_tokenize(temp_str)
                segs_out.extend(ss)
                temp_str = ""
            segs_out.append(char)
        else:
            temp_str += char

    # handling last part
    if temp_str != "":
        ss = word_tokenize(temp_str)
        segs_out.extend(ss)

    return segs_out


# remove punctuation
def remove_punctuation(in_str: str) -> str:
    in_str = str(in_str).lower().strip()
    sp_char = ['-',':','_','*','^','/','\\','~','`','+','=',
               '，','。','：','？','！','“','”','；','’','《','》','……','·','、',
               '「','」','（','）','－','～','『','』']  # fmt: skip
    out_segs = []
    for char in in_str:
        if char in sp_char:
            continue
        else:
            out_segs.append(char)
    return "".join(out_segs)


# find longest common string
def find_lcs(s1: Sequence[str], s2: Sequence[str]) -> tuple[Sequence[str], int]:
    m = [[0 for i in range(len(s2) + 1)] for j in range(len(s1) + 1)]
    mmax = 0
    p = 0
    for i in range(len(s1)):
        for j in range(len(s2)):
            if s1[i] == s2[j]:
                m[i + 1][j + 1] = m[i][j] + 1
                if m[i + 1][j + 1] > mmax:
                    mmax = m[i + 1][j + 1]
                    p = i + 1
    return s1[p - mmax : p], mmax


def calc_f1_score(answers: Sequence[str], prediction: str) -> float:
    f1_scores = []
    for ans in answers:
        ans_segs = mixed_segmentation(ans, rm_punc=True)
        prediction_segs = mixed_segmentation(prediction, rm_punc=True)
        lcs, lcs_len = find_lcs(ans_segs, prediction_segs)  # noqa: RUF059 (as the script)
        if lcs_len == 0:
            f1_scores.append(0)
            continue
        precision = 1.0 * lcs_len / len(prediction_segs)
        recall = 1.0 * lcs_len / len(ans_segs)
        f1 = (2 * precision * recall) / (precision + recall)
        f1_scores.append(f1)
    return max(f1_scores)


def calc_em_score(answers: Sequence[str], prediction: str) -> int:
    em = 0
    for ans in answers:
        ans_ = remove_punctuation(ans)
        prediction_ = remove_punctuation(prediction)
        if ans_ == prediction_:
            em = 1
            break
    return em

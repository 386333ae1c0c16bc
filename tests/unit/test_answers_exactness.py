"""``exact_match`` / ``token_f1`` equal SQuAD v1.1's script on text without CJK characters, and
``cmrc_em`` / ``cmrc_f1`` equal CMRC 2018's script, compared on thousands of generated pairs
with no difference allowed (SPEC §13).

The scripts are re-implemented from their published source in ``tests/squad_reference.py``
and ``tests/cmrc_reference.py``. The generated text holds what the scripts treat differently
from a naive reading: Unicode punctuation (curly quotes, ``…``, full-width marks), full-width
letters and digits, other scripts, several kinds of white space, articles, mixed Chinese and
English, the CMRC separators (``……`` included) and one to three references per answer.
"""

from __future__ import annotations

import functools
import random
import string
from collections.abc import Callable

import cmrc_reference as cmrc
import pytest
import squad_reference as squad

from pytest_ragcheck.answers.cmrc import cmrc_em, cmrc_f1, segments
from pytest_ragcheck.answers.lexical import exact_match, token_f1
from pytest_ragcheck.answers.text import has_cjk

PAIRS = 3000

Pair = tuple[str, list[str]]

_WORDS = [
    *("the", "a", "an", "The", "AN", "A", "paris", "Paris", "france", "capital", "river"),
    *("seine", "is", "of", "in", "1889", "42", "x-ray", "it's", "U.S.", "don't", "WING"),
    *(
        "café",
        "Straße",
        "Ñandú",
        "Αθήνα",
        "Москва",
        "서울",
        "Ｐａｒｉｓ",
        "ＴＨＥ",
        "１２３",
        "ﬁne",
    ),
]
#: Punctuation SQuAD's script keeps (not in string.punctuation), the CJK marks included.
_UNICODE_PUNCT = list("“”‘’…·（）、。，«»—–¿¡【】！？＂＇′″§•〈〉《》「」；：～－")
_SPACES = [" ", " ", " ", "  ", "\n", "\t", "\u3000", "\u00a0"]


def _english(rng: random.Random) -> str:
    """Text without a CJK character (kana and Han excluded; CJK punctuation allowed)."""
    out: list[str] = []
    for _ in range(rng.randint(0, 14)):
        roll = rng.random()
        if roll < 0.6:
            word = rng.choice(_WORDS)
            if rng.random() < 0.25:  # a word wrapped or followed by punctuation, no space
                mark = rng.choice(_UNICODE_PUNCT + list(string.punctuation))
                word = rng.choice([mark + word, word + mark, f"{mark}{word}{mark}"])
            out.append(word)
        elif roll < 0.8:
            out.append(rng.choice(_UNICODE_PUNCT))
        else:
            out.append(rng.choice(string.punctuation))
        out.append(rng.choice(_SPACES))
    return "".join(out).strip() if rng.random() < 0.8 else "".join(out)


def _variant(rng: random.Random, text: str) -> str:
    """A near copy: words dropped, punctuation added or removed, case changed."""
    words = [w for w in text.split() if rng.random() < 0.85]
    if rng.random() < 0.5:
        words = [w.strip("“”‘’\"'.,!?…") or w for w in words]
    if rng.random() < 0.3:
        words.insert(rng.randint(0, len(words)), rng.choice(["the", "a", "“", "’", "…"]))
    joined = " ".join(words)
    return joined.upper() if rng.random() < 0.1 else joined


def _pairs(make: Callable[[random.Random], str], seed: int) -> list[Pair]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(PAIRS):
        refs = [make(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        roll = rng.random()
        if roll < 0.4:
            answer = _variant(rng, rng.choice(refs))
        elif roll < 0.5:
            answer = rng.choice(refs)
        else:
            answer = make(rng)
        pairs.append((answer, refs))
    return pairs


@functools.cache
def english() -> list[Pair]:
    return _pairs(_english, 11)


def _old_tokens(text: str) -> list[str]:
    """The normalisation before SPEC §13: CJK punctuation turned into spaces in any text."""
    marks = "，。：？！“”；’《》…·、「」（）－～『』"
    return squad.normalize_answer(text.translate(str.maketrans(dict.fromkeys(marks, " ")))).split()


def test_english_pairs_have_no_cjk_character() -> None:
    assert not any(has_cjk(a) or any(has_cjk(r) for r in refs) for a, refs in english())


def test_exact_match_and_token_f1_equal_squad_v1_1_on_text_without_cjk() -> None:
    em_diff = f1_diff = full = partial = changed = 0
    for answer, refs in english():
        em = squad.metric_max_over_ground_truths(squad.exact_match_score, answer, refs)
        f1 = squad.metric_max_over_ground_truths(squad.f1_score, answer, refs)
        em_diff += exact_match(answer, refs) != float(em)
        f1_diff += token_f1(answer, refs) != f1
        full += bool(em)
        partial += 0 < f1 < 1
        changed += any(_old_tokens(answer) == _old_tokens(r) for r in refs) != bool(em)
    assert (em_diff, f1_diff) == (0, 0)
    # the pairs exercise full and partial matches, and the Unicode punctuation the project
    # used to turn into separators (where it disagreed with SQuAD's script)
    assert full > PAIRS // 10
    assert partial > PAIRS // 5
    assert changed > 30


@pytest.mark.parametrize(
    ("answer", "references", "em", "f1"),
    [
        ("“Paris”", ["Paris"], 0.0, 0.0),  # curly quotes stay inside the token
        ("don’t know", ["dont know"], 0.0, 0.5),
        ("‘Paris’", ["'Paris'"], 0.0, 0.0),
        ("Paris…", ["Paris..."], 0.0, 0.0),
        ("The Eiffel Tower!", ["eiffel tower"], 1.0, 1.0),
        ("Ｐａｒｉｓ", ["ｐａｒｉｓ"], 1.0, 1.0),  # full-width letters are lower-cased
    ],
)
def test_squad_documented_examples(
    answer: str, references: list[str], em: float, f1: float
) -> None:
    assert exact_match(answer, references) == em
    assert token_f1(answer, references) == f1


# ------------------------------------------------------------------- CMRC 2018

_HAN = "北京大学是中国的首都上海城市长江流经海洋风速边界层实验结果表明压力分布"
#: Han outside the script's U+4E00-U+9FA5 (Extension A, the block's late additions) and kana:
#: characters of a run for the script, tokens of their own for ``token_f1``.
_OTHER_CJK = ["㐀", "鿦", "の", "カ"]
_ASCII_WORDS = [
    "paris",
    "Beijing",
    "MIT",
    "2019",
    "3",
    "x1",
    "cannot",
    "gonna",
    "abc",
    "Ｐｅｋｉｎｇ",
]
_SEPARATORS = [
    "-",
    ":",
    "_",
    "*",
    "^",
    "/",
    "\\",
    "~",
    "`",
    "+",
    "=",
    *"，。：？！“”；’《》·、「」（）－～『』",
]
#: Characters the script does not list (they stay in runs and in its exact match).
_KEPT = [
    ",",
    ";",
    "(",
    ")",
    "%",
    "$",
    "#",
    "@",
    "&",
    "[",
    "]",
    "‘",
    "«",
    "»",
    "【",
    "】",
    "…",
    "％",
    "．",
]
_ENDS = [".", "!", "?"]


def _chinese(rng: random.Random) -> str:
    out: list[str] = []
    for _ in range(rng.randint(0, 22)):
        roll = rng.random()
        if roll < 0.55:
            out.append(rng.choice(_HAN))
        elif roll < 0.62:
            out.append(rng.choice(_OTHER_CJK))
        elif roll < 0.75:
            out.append(rng.choice([*_SEPARATORS, "……"]))
        elif roll < 0.88:
            word = rng.choice(_ASCII_WORDS)
            out.append(rng.choice([word, f" {word} ", f"{word} "]))
        elif roll < 0.95:
            out.append(rng.choice(_KEPT))
        elif roll < 0.97:
            out.append(rng.choice(_ENDS) + rng.choice(_HAN))  # a sentence end closes a run
        else:
            out.append(rng.choice(_SPACES))
    return "".join(out)


def _in_domain(text: str) -> bool:
    try:
        cmrc.mixed_segmentation(text, rm_punc=True)
    except cmrc.OutsideDomain:
        return False
    return True


def _chinese_in_domain(rng: random.Random) -> str:
    while True:
        text = _chinese(rng)
        if _in_domain(text):
            return text


def _chinese_variant(rng: random.Random, text: str) -> str:
    chars = [c for c in text if rng.random() < 0.85]
    if rng.random() < 0.3:
        chars.insert(rng.randint(0, len(chars)), rng.choice(["，", " ", ".", "-", "。"]))
    if rng.random() < 0.2:  # the same characters in another order
        rng.shuffle(chars)
    return "".join(chars)


def _chinese_pairs(seed: int) -> list[Pair]:
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < PAIRS:
        refs = [_chinese_in_domain(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        roll = rng.random()
        if roll < 0.45:
            answer = _chinese_variant(rng, rng.choice(refs))
        elif roll < 0.55:
            answer = rng.choice(refs)
        else:
            answer = _chinese_in_domain(rng)
        if _in_domain(answer):
            pairs.append((answer, refs))
    return pairs


@functools.cache
def chinese() -> list[Pair]:
    """Generated on first use (not at collection: the reference imports nltk)."""
    return _chinese_pairs(12)


def test_cmrc_em_and_f1_equal_the_cmrc_2018_script() -> None:
    em_diff = f1_diff = full = partial = bag_differs = 0
    for answer, refs in chinese():
        em = cmrc.calc_em_score(refs, answer)
        f1 = cmrc.calc_f1_score(refs, answer)
        em_diff += cmrc_em(answer, refs) != float(em)
        f1_diff += cmrc_f1(answer, refs) != f1
        full += em
        partial += 0 < f1 < 1
        bag_differs += token_f1(answer, refs) != f1
    assert (em_diff, f1_diff) == (0, 0)
    assert full > PAIRS // 20
    assert partial > PAIRS // 4
    assert bag_differs > PAIRS // 4  # longest common substring is not SQuAD's bag of tokens


def test_segments_equal_the_scripts_mixed_segmentation() -> None:
    for answer, refs in chinese()[:1000]:
        for text in (answer, *refs):
            assert segments(text) == cmrc.mixed_segmentation(text, rm_punc=True), text


@pytest.mark.parametrize(
    ("answer", "references", "em", "f1"),
    [
        ("大学北京", ["北京大学"], 0.0, 0.5),  # token_f1: 1.0 (the same bag of characters)
        ("北京.", ["北京"], 0.0, 0.8),  # "." is no separator for the script
        ("北京。", ["北京"], 1.0, 1.0),
        ("北京 大学", ["北京大学"], 0.0, 1.0),  # exact match keeps spaces
        ("北京…", ["北京"], 0.0, 0.8),  # "……" is listed, a lone "…" is not
        ("北京……", ["北京"], 0.0, 0.8),
        ("MIT的cannot", ["mit的can not"], 0.0, 1.0),  # nltk splits "cannot"
        ("上海", ["北京", "上海"], 1.0, 1.0),  # best over the references
        ("", ["北京"], 0.0, 0.0),
    ],
)
def test_cmrc_documented_examples(answer: str, references: list[str], em: float, f1: float) -> None:
    assert cmrc_em(answer, references) == em
    assert cmrc_f1(answer, references) == pytest.approx(f1, abs=1e-12)
    assert cmrc.calc_em_score(references, answer) == em
    assert cmrc.calc_f1_score(references, answer) == pytest.approx(f1, abs=1e-12)


def test_token_f1_and_cmrc_f1_differ_as_the_docs_say() -> None:
    assert token_f1("大学北京", ["北京大学"]) == 1.0
    assert cmrc_f1("大学北京", ["北京大学"]) == 0.5
    assert exact_match("北京.", ["北京"]) == 1.0
    assert cmrc_em("北京.", ["北京"]) == 0.0

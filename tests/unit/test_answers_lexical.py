"""Lexical answer metrics against their references on generated English and Chinese text.

References: sacrebleu's ``sentence_bleu`` (defaults; ``tokenize="zh"`` for CJK text),
rouge-score's ``RougeScorer(["rougeL"])``, SQuAD v1.1's normalisation and, for ``token_f1`` on
Chinese text, SQuAD's bag-of-tokens F1 over CMRC 2018's per-character segmentation (SPEC §10).
``test_answers_exactness.py`` compares with the two scripts themselves (SPEC §13).
"""

from __future__ import annotations

import random
import re
import string
from collections import Counter
from collections.abc import Sequence

import pytest
import sacrebleu

from pytest_ragcheck.answers.lexical import bleu, exact_match, lcs_length, rouge_l, token_f1
from pytest_ragcheck.answers.text import answer_tokens, rouge_tokens

PAIRS = 2000

_WORDS = [
    "the",
    "a",
    "an",
    "paris",
    "france",
    "capital",
    "river",
    "seine",
    "is",
    "of",
    "in",
    "on",
    "was",
    "built",
    "1889",
    "tower",
    "eiffel",
    "Engine",
    "WING",
    "flow",
    "boundary-layer",
    "3.5",
    "42",
    "x-ray",
    "it's",
    "U.S.",
    "don't",
]
_PUNCT = [",", ".", "!", "?", ";", ":", "(", ")", '"', "'", "-", "&", "/", "<", ">", "&amp;"]
_HAN = "北京是中国的首都上海城市长江流经海洋风速边界层实验结果表明压力分布"
_ZH_PUNCT = "，。：？！“”；《》、（）"


def _english(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 18)):
        parts.append(rng.choice(_WORDS))
        if rng.random() < 0.2:
            parts.append(rng.choice(_PUNCT))
    sep = rng.choice([" ", " ", "  ", "\n"])
    return sep.join(parts) if rng.random() < 0.7 else "".join(f"{p} " for p in parts)


def _chinese(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(0, 25)):
        roll = rng.random()
        if roll < 0.75:
            out.append(rng.choice(_HAN))
        elif roll < 0.88:
            out.append(rng.choice(_ZH_PUNCT))
        elif roll < 0.95:
            out.append(f" {rng.choice(_WORDS)} ")
        else:
            out.append(rng.choice(["3", "2019", " "]))
    return "".join(out)


def _pairs(make: object, seed: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    gen = make  # type: ignore[assignment]
    pairs = []
    for _ in range(PAIRS):
        answer = gen(rng)  # type: ignore[operator]
        refs = [gen(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        if rng.random() < 0.3 and refs[0]:  # overlapping pairs, not only random ones
            words = refs[0].split()
            answer = " ".join(w for w in words if rng.random() < 0.8)
        pairs.append((answer, refs))
    return pairs


ENGLISH = _pairs(_english, 1)
CHINESE = _pairs(_chinese, 2)


# ------------------------------------------------------------------- SQuAD v1.1 script


def squad_normalize(s: str) -> str:
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def squad_f1(prediction_tokens: Sequence[str], ground_truth_tokens: Sequence[str]) -> float:
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


# ------------------------------------------------------------------- CMRC 2018 script

CMRC_SP_CHAR = [
    "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
    "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
    "「", "」", "（", "）", "－", "～", "『", "』",
]  # fmt: skip


def cmrc_tokens(in_str: str) -> list[str]:
    """CMRC 2018's ``mixed_segmentation`` + ``remove_punctuation``, with the non-Chinese runs
    normalised as SQuAD does (the script passes them to nltk's word tokenizer, and also splits
    them at its ASCII separators such as ``-``: we keep SQuAD's ``boundarylayer``, so that
    English text scores exactly as SQuAD's script scores it). A text without a Chinese
    character is SQuAD's alone (SPEC §13)."""
    if not re.search(r"[\u4e00-\u9fff]", in_str):
        return squad_normalize(in_str).split()
    in_str = in_str.lower().strip()
    segs: list[str] = []
    temp = ""
    for char in in_str:
        if re.search(r"[\u4e00-\u9fa5]", char) or (char in CMRC_SP_CHAR and not char.isascii()):
            segs.extend(squad_normalize(temp).split())
            temp = ""
            segs.append(char)
        else:
            temp += char
    segs.extend(squad_normalize(temp).split())
    punct = set(string.punctuation) | set(CMRC_SP_CHAR) | set("“”’")
    return [s for s in segs if s not in punct]


# ------------------------------------------------------------------- the checks


@pytest.mark.parametrize(("answer", "refs"), ENGLISH[:5] + CHINESE[:5])
def test_samples_are_strings(answer: str, refs: list[str]) -> None:
    assert isinstance(answer, str)
    assert all(isinstance(r, str) for r in refs)


def test_exact_match_and_token_f1_equal_squad_on_english() -> None:
    hits = 0
    for answer, refs in ENGLISH:
        em = max(float(squad_normalize(answer) == squad_normalize(r)) for r in refs)
        f1 = max(
            squad_f1(squad_normalize(answer).split(), squad_normalize(r).split()) for r in refs
        )
        assert exact_match(answer, refs) == em, (answer, refs)
        assert token_f1(answer, refs) == pytest.approx(f1, abs=1e-12), (answer, refs)
        hits += em == 1.0 or 0 < f1 < 1
    assert hits > PAIRS // 10  # the pairs exercise partial and full matches, not only zeros


def test_token_f1_equals_cmrc_tokens_with_squad_f1_on_chinese() -> None:
    partial = 0
    for answer, refs in CHINESE:
        expected = max(squad_f1(cmrc_tokens(answer), cmrc_tokens(r)) for r in refs)
        assert token_f1(answer, refs) == pytest.approx(expected, abs=1e-12), (answer, refs)
        em = max(float(cmrc_tokens(answer) == cmrc_tokens(r)) for r in refs)
        assert exact_match(answer, refs) == em
        partial += 0 < expected < 1
    assert partial > PAIRS // 4


def test_bleu_equals_sacrebleu_on_english() -> None:
    for answer, refs in ENGLISH:
        expected = sacrebleu.sentence_bleu(answer, refs).score / 100
        assert bleu(answer, refs) == pytest.approx(expected, abs=1e-12), (answer, refs)


def test_bleu_equals_sacrebleu_zh_on_chinese() -> None:
    nonzero = 0
    for answer, refs in CHINESE:
        expected = sacrebleu.sentence_bleu(answer, refs, tokenize="zh").score / 100
        assert bleu(answer, refs) == pytest.approx(expected, abs=1e-12), (answer, refs)
        nonzero += expected > 0
    assert nonzero > PAIRS // 4


def test_rouge_l_equals_rouge_score_on_english() -> None:
    from rouge_score import rouge_scorer  # imports nltk (~2½ s): only where it is used

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    for answer, refs in ENGLISH:
        expected = max(scorer.score(r, answer)["rougeL"].fmeasure for r in refs)
        assert rouge_l(answer, refs) == pytest.approx(expected, abs=1e-12), (answer, refs)


class _PerCharacter:
    """rouge-score's tokeniser with Chinese characters kept as tokens of their own."""

    def tokenize(self, text: str) -> list[str]:
        spaced = re.sub(r"([\u4e00-\u9fff])", r" \1 ", text.lower())
        return [t for t in re.split(r"[^a-z0-9\u4e00-\u9fff]+|\s+", spaced) if t]


def test_rouge_l_on_chinese_is_rouge_score_with_per_character_tokens() -> None:
    from rouge_score import rouge_scorer

    plain = rouge_scorer.RougeScorer(["rougeL"])
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_PerCharacter())
    differs = 0
    for answer, refs in CHINESE:
        expected = max(scorer.score(r, answer)["rougeL"].fmeasure for r in refs)
        assert rouge_l(answer, refs) == pytest.approx(expected, abs=1e-12), (answer, refs)
        differs += expected != max(plain.score(r, answer)["rougeL"].fmeasure for r in refs)
    # rouge-score's own tokeniser drops every Chinese character: scores would be ~0
    assert differs > PAIRS // 4


def test_lcs_length_matches_dynamic_programming() -> None:
    rng = random.Random(3)
    for _ in range(500):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                table[i + 1][j + 1] = (
                    table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
                )
        assert lcs_length(a, b) == table[-1][-1]


def test_documented_values_for_empty_text() -> None:
    assert exact_match("", [""]) == 1.0  # SQuAD: two empty normalised strings are equal
    assert token_f1("", [""]) == 0.0  # SQuAD v1.1: no common token
    assert token_f1("", ["paris"]) == 0.0
    assert bleu("", ["paris"]) == 0.0
    assert rouge_l("", ["paris"]) == 0.0
    assert rouge_l("paris", ["", "Paris!"]) == 1.0  # best over the references
    assert token_f1("The Paris.", ["paris", "london"]) == 1.0


def test_tokens() -> None:
    assert answer_tokens("The 北京, an apple!") == ["北", "京", "apple"]
    assert rouge_tokens("Hello, 北京 world") == ["hello", "北", "京", "world"]
    assert rouge_tokens("café") == ["caf"]  # as rouge-score: non-[a-z0-9] characters dropped

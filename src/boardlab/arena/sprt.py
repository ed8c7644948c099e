"""The sequential probability ratio test of a match, over game pairs, as fishtest,
fastchess and OpenBench run it.

``Sprt.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")`` tests H0: the Elo difference of A
over B is ``elo0`` against H1: it is ``elo1`` (logistic Elo: an expected score of
1 / (1 + 10^(-elo/400))). The games come in pairs with the seats swapped, and a pair's
two results add up to one of five outcomes (0, 0.5, 1, 1.5, 2 points for A): the
pentanomial counts, which see that the two games of a pair share their opening and are
not independent. The log-likelihood ratio is the generalised one (GSPRT): for each
hypothesis, the most likely distribution of the five outcomes whose mean is that
hypothesis's expected score, and the ratio of the two likelihoods of the counts. The
test accepts H1 when it reaches log((1 - beta) / alpha), H0 at log(beta / (1 - alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _

#: A pair's points for A, scaled to [0, 1]: the values of the five pentanomial outcomes.
OUTCOMES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: What stands in for an outcome not seen yet (fishtest's regularisation).
UNSEEN = 1e-3
FORMAT = "elo0=0,elo1=10,alpha=0.05,beta=0.05"


def expected_score(elo: float) -> float:
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """A test from ``elo0=..,elo1=..[,alpha=..][,beta=..]``, or a clear error."""
        values: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in ("elo0", "elo1", "alpha", "beta") or key in values:
                raise BoardlabError(
                    _(
                        "bad SPRT parameter {item!r} in {text!r}: expected {format} (each once)"
                    ).format(item=item, text=text, format=FORMAT)
                )
            try:
                number = float(value)
            except ValueError:
                raise BoardlabError(
                    _("bad SPRT value {value!r} for {key} in {text!r}: expected a number").format(
                        value=value.strip(), key=key, text=text
                    )
                ) from None
            if not math.isfinite(number):
                raise BoardlabError(
                    _("bad SPRT value {value!r} for {key}: not finite").format(
                        value=value.strip(), key=key
                    )
                )
            values[key] = number
        if "elo0" not in values or "elo1" not in values:
            raise BoardlabError(
                _("bad SPRT {text!r}: elo0 and elo1 are needed, like {format}").format(
                    text=text, format=FORMAT
                )
            )
        test = cls(
            values["elo0"], values["elo1"], values.get("alpha", 0.05), values.get("beta", 0.05)
        )
        if not test.elo0 < test.elo1 or abs(test.elo1) > 1000 or abs(test.elo0) > 1000:
            raise BoardlabError(
                _("bad SPRT {text!r}: expected elo0 < elo1, both within 1000 Elo").format(text=text)
            )
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(test, name) < 0.5:
                raise BoardlabError(
                    _("bad SPRT {text!r}: {name} must lie between 0 and 0.5").format(
                        text=text, name=name
                    )
                )
        return test

    def bounds(self) -> tuple[float, float]:
        """The log-likelihood ratios at which H0 and H1 are accepted."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, pairs: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 over H0 given the pentanomial counts."""
        if len(pairs) != len(OUTCOMES) or min(pairs) < 0:
            raise ValueError(f"expected 5 pentanomial counts, got {list(pairs)}")
        total = sum(pairs)
        if total == 0:
            return 0.0
        seen = [max(count, UNSEEN) for count in pairs]
        scale = sum(seen)
        observed = [count / scale for count in seen]
        p0 = most_likely(observed, expected_score(self.elo0))
        p1 = most_likely(observed, expected_score(self.elo1))
        return sum(n * math.log(a / b) for n, a, b in zip(pairs, p1, p0, strict=True) if n)

    def verdict(self, pairs: Sequence[int]) -> str | None:
        """``H1`` or ``H0`` once the test accepts it, else None."""
        low, high = self.bounds()
        value = self.llr(pairs)
        return "H1" if value >= high else "H0" if value <= low else None


def most_likely(observed: Sequence[float], mean: float) -> list[float]:
    """The distribution over ``OUTCOMES`` with the given mean that is most likely to have
    produced the observed frequencies: p_i = q_i / (1 + t (x_i - mean)) with t such that
    the p_i add up to 1 (and so have that mean)."""
    shifted = [x - mean for x in OUTCOMES]
    present = [d for d, q in zip(shifted, observed, strict=True) if q > 0]
    low = -1.0 / max(present) if max(present) > 0 else -1e9
    high = -1.0 / min(present) if min(present) < 0 else 1e9

    def excess(t: float) -> float:  # decreasing in t; 0 where the mean is right
        return sum(q * d / (1 + t * d) for d, q in zip(shifted, observed, strict=True))

    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)
    for _round in range(100):
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    t = (low + high) / 2
    return [q / (1 + t * d) for d, q in zip(shifted, observed, strict=True)]


def pentanomial(pair_points: Sequence[float]) -> list[int]:
    """The pentanomial counts of pairs given A's points in each (0, 0.5, ... 2)."""
    counts = [0] * len(OUTCOMES)
    for points in pair_points:
        counts[round(points * 2)] += 1
    return counts


def pair_counts(results: Sequence[Any]) -> list[int]:
    """The pentanomial counts of the complete pairs among a match's game results (games
    2k and 2k + 1, with the seats swapped, form pair k)."""
    by_pair: dict[int, list[float]] = {}
    for result in results:
        by_pair.setdefault(result.index // 2, []).append(result.a_score)
    return pentanomial([sum(scores) for scores in by_pair.values() if len(scores) == 2])

"""Every theoretical figure of one configuration, exactly: side bets, insurance and the main game, each with its
return and the variance of one unit's result per round. Cached per configuration (the Django cache, keyed by a
hash of the canonical configuration), because the main game's analysis takes seconds.

No database: a configuration is an engine ``Rules`` (a table's, or a profile's with flags).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from fractions import Fraction
from typing import Any

from django.core.cache import cache

from rounds.engine.errors import EngineError
from rounds.engine.rtp import side_bets as side_bet_math
from rounds.engine.rtp.main_game import main_game_ev
from rounds.engine.rtp.rules_config import RtpRules, rtp_rules_from_engine
from rounds.engine.rules import Rules, rules_for

# Bump when the analysis changes, so no cached figure outlives the code that computed it.
ANALYSIS_VERSION = 1
CACHE_SECONDS = 30 * 24 * 3600
PROGRESS_SECONDS = 120  # longer than an analysis takes on a busy worker
BLACKJACK_PAYS = {"3:2": 1.5, "6:5": 1.2}
# Flags the analysis accepts beside the engine's table flags (the tables themselves always pay 3:2).
ANALYSIS_ONLY_FLAGS = ("blackjack_pays",)


def configuration_rules(*, profile: str, flags: dict[str, Any]) -> tuple[Rules, RtpRules]:
    """A profile plus flags, as the engine's Rules and the analysis's RtpRules; EngineError on a bad flag."""
    flags = dict(flags)
    pays = flags.pop("blackjack_pays", "3:2")
    if pays not in BLACKJACK_PAYS:
        raise EngineError(f"flag blackjack_pays must be one of {', '.join(BLACKJACK_PAYS)}, not {pays!r}")
    rules = rules_for(profile, flags)
    if not 1 <= rules.decks <= 8:
        raise EngineError(f"the analysis covers 1 to 8 decks, not {rules.decks}")
    return rules, replace(rtp_rules_from_engine(rules), blackjack_pays=BLACKJACK_PAYS[pays])


def _key(rtp_rules: RtpRules, side_bets: dict[str, dict[str, int]]) -> str:
    canonical = {k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(rtp_rules).items()}
    canonical.pop("name")
    text = json.dumps({"rules": canonical, "side_bets": side_bets, "v": ANALYSIS_VERSION}, sort_keys=True)
    return "rtp-exact:" + hashlib.sha256(text.encode()).hexdigest()


def _fraction(value: Fraction) -> dict[str, Any]:
    return {"value": float(value), "exact": f"{value.numerator}/{value.denominator}"}


def main_game_cached(rtp_rules: RtpRules) -> dict[str, Any] | None:
    """The main game's figures if some process has computed them already, else None (nothing is computed)."""
    return cache.get(_key(rtp_rules, {}))


def main_game_progress(rtp_rules: RtpRules) -> dict[str, int] | None:
    """How far a queued analysis of this configuration is ({"done", "of"} up cards), None if none is queued."""
    return cache.get(_key(rtp_rules, {}) + ":progress")


def main_game_queue(rtp_rules: RtpRules) -> bool:
    """Queue the analysis of a configuration on a worker, once: True if this call queued it. The progress mark
    expires, so an analysis lost with its worker is queued again by the next page that asks."""
    from casino.queue import task_queue

    if not cache.add(_key(rtp_rules, {}) + ":progress", {"done": 0, "of": 10}, PROGRESS_SECONDS):
        return False
    task_queue(name="tables.tasks.rtp_exact_compute", args=(rtp_rules_document(rtp_rules),))
    return True


def rtp_rules_document(rtp_rules: RtpRules) -> dict[str, Any]:
    return {k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(rtp_rules).items()}


def rtp_rules_load(document: dict[str, Any]) -> RtpRules:
    values = dict(document)
    values["peek_up_cards"] = frozenset(values["peek_up_cards"])
    values["free_double_totals"] = tuple(values["free_double_totals"])
    return RtpRules(**values)


def main_game_figures(rtp_rules: RtpRules, *, report_progress: bool = False) -> dict[str, Any]:
    """The main game's exact figures (cached per configuration across processes); with `report_progress`, the
    progress mark main_game_progress reads is kept up to date as the analysis goes."""
    key = _key(rtp_rules, {})
    cached = cache.get(key)
    if cached is not None:
        return cached

    def progress(done: int, of: int) -> None:
        cache.set(key + ":progress", {"done": done, "of": of}, PROGRESS_SECONDS)

    # Imported here: the analysis needs numba, which costs every process that imports this module (each web and
    # worker process, through the help pages) about 70 MiB and half a second, while only the worker computes.
    from rounds.engine.rtp.exact import exact_main_game

    result = exact_main_game(rtp_rules, progress if report_progress else None)
    figures = {
        "decks": rtp_rules.decks,
        "rtp": result.total_dependent.rtp,
        "variance": result.total_dependent.variance,
        "rtp_composition_dependent": result.composition_dependent.rtp,
        "variance_composition_dependent": result.composition_dependent.variance,
        "rtp_infinite_deck_strategy": result.infinite_deck_strategy.rtp,
        "rtp_infinite_deck": 1.0 + main_game_ev(rtp_rules),
        "seconds": round(result.seconds, 2),
    }
    cache.set(key, figures, CACHE_SECONDS)
    if report_progress:
        cache.delete(key + ":progress")
    return figures


def side_bet_figures(rules: Rules) -> dict[str, dict[str, Any]]:
    """Side bets offered by the rules, and insurance where offered: exact return and variance per unit."""
    bets: dict[str, dict[str, Any]] = {}
    for bet in rules.side_bets:
        paytable = rules.paytable(bet)
        bets[bet] = {
            "paytable": paytable,
            "rtp": _fraction(side_bet_math.side_bet_rtp(bet, paytable, rules.decks)),
            "variance": _fraction(side_bet_math.side_bet_variance(bet, paytable, rules.decks)),
        }
    if rules.insurance:
        paytable = dict(side_bet_math.INSURANCE_PAYTABLE)
        bets[side_bet_math.INSURANCE] = {
            "paytable": paytable,
            "rtp": _fraction(side_bet_math.side_bet_rtp(side_bet_math.INSURANCE, paytable, rules.decks)),
            "variance": _fraction(
                side_bet_math.side_bet_variance(side_bet_math.INSURANCE, paytable, rules.decks)
            ),
        }
    return bets


def configuration_figures(*, rules: Rules, rtp_rules: RtpRules | None = None) -> dict[str, Any]:
    """Every figure of one configuration, as a JSON-ready document."""
    rtp_rules = rtp_rules or rtp_rules_from_engine(rules)
    return {
        "configuration": {
            "profile": rules.profile,
            "dealing": rules.dealing,
            "decks": rules.decks,
            "blackjack_pays": next(k for k, v in BLACKJACK_PAYS.items() if v == rtp_rules.blackjack_pays),
        },
        "main_game": main_game_figures(rtp_rules),
        "side_bets": side_bet_figures(rules),
        "method": "first hand of a fresh shoe, combinatorial; main game under the optimal total-dependent "
        "strategy (composition-dependent beside it); side bets and insurance from their paytables",
    }


def rtp_preview(*, current: Rules, proposed: Rules) -> dict[str, Any]:
    """What a change of settings does to each RTP, before it is saved: side bets and insurance at once (exact
    fractions), the main game from the cache or, the first time a configuration is seen, queued on a worker
    ("pending" with its progress until it is done)."""
    from tables import rtp

    def side(rules: Rules) -> dict[str, Fraction]:
        figures = {bet: side_bet_math.side_bet_rtp(bet, rules.paytable(bet), rules.decks) for bet in rules.side_bets}
        if rules.insurance:
            figures[side_bet_math.INSURANCE] = rtp.insurance_rtp(rules.decks)
        return figures

    before, after = side(current), side(proposed)
    bets = [{"bet": bet, "now": rtp.percent(before[bet]) if bet in before else None,
             "after": rtp.percent(after[bet]) if bet in after else None,
             "changed": before.get(bet) != after.get(bet)} for bet in [*after, *(b for b in before if b not in after)]]
    current_main = main_game_cached(rtp_rules_from_engine(current))
    proposed_rules = rtp_rules_from_engine(proposed)
    main = main_game_cached(proposed_rules)
    progress = None
    if main is None:
        main_game_queue(proposed_rules)
        progress = main_game_progress(proposed_rules) or {"done": 0, "of": 10}
    return {
        "side_bets": bets,
        "main_now": rtp.float_percent(current_main["rtp"], 4) if current_main else None,
        "main_after": rtp.float_percent(main["rtp"], 4) if main else None,
        "main_sd": f"{main['variance'] ** 0.5:.4f}" if main else None,
        "main_changed": proposed_rules != rtp_rules_from_engine(current),
        "pending": main is None,
        "progress": progress,
    }

"""What reversing a settled round moves, player by player: the one computation the reversal service, its
confirmation, the void box, the player's game history and its CSV all read, so they state the same money.

Reversing puts each player where a void would have: every stake back, no payout stands. For each bet, the
player's cash moves by (stake - cash paid); a Golden Chip bet gives its chips back and takes its cash payout.
A player who won therefore gives money back; a player who lost gets the stake back.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from casino.formatting import money as money_format
from rounds.models import Round, RoundBet
from wallet.models import AccountKind, Funding


@dataclass
class PlayerReversal:
    player_id: int
    username: str
    staked: dict[str, int] = field(default_factory=dict)  # currency -> every stake of the round
    paid: dict[str, int] = field(default_factory=dict)  # currency -> cash and chips the settlement returned
    # (account kind, currency) -> the signed adjustment (> 0 credits the player); zero moves are left out
    moves: dict[tuple[str, str], int] = field(default_factory=dict)

    def sentence(self, *, done: bool) -> str:
        """What the reversal does to this player, in words support can read aloud (in the page's language: the
        player's own game history may be Swedish)."""
        what = "; ".join(_move_words(kind, currency, amount, done=done)
                         for (kind, currency), amount in self.moves.items())
        why = ", ".join(_("staked %(staked)s and was paid %(paid)s") % {
            "staked": money_format(self.staked.get(c, 0), c), "paid": money_format(self.paid.get(c, 0), c)}
            for c in sorted(self.staked))
        words = {"who": self.username, "what": what, "why": why}
        if not what:
            return (_("%(who)s: nothing moved (%(why)s: the stake came back exactly).") if done
                    else _("%(who)s: nothing moves (%(why)s: the stake came back exactly).")) % words
        return _("%(who)s %(what)s (%(why)s; reversing returns every stake and takes back every payout).") % words

    @property
    def cash(self) -> dict[str, int]:
        return {currency: amount for (kind, currency), amount in self.moves.items()
                if kind == AccountKind.PLAYER_CASH}

    @property
    def chips(self) -> dict[str, int]:
        return {currency: amount for (kind, currency), amount in self.moves.items()
                if kind == AccountKind.PLAYER_GOLDEN_CHIPS}


def _move_words(kind: str, currency: str, amount: int, *, done: bool) -> str:
    words = {"amount": money_format(abs(amount), currency)}
    if kind == AccountKind.PLAYER_GOLDEN_CHIPS:
        if amount < 0:
            return (_("gave back %(amount)s in Golden Chips") if done
                    else _("gives back %(amount)s in Golden Chips")) % words
        return (_("got back %(amount)s in Golden Chips") if done else _("gets back %(amount)s in Golden Chips")) % words
    if amount < 0:
        return (_("gave back %(amount)s") if done else _("gives back %(amount)s")) % words
    return (_("got back %(amount)s") if done else _("gets back %(amount)s")) % words


def round_reversal_moves(*, round: Round, players: list[int] | None = None) -> list[PlayerReversal]:
    """Each player's reversal of this settled (or reversed) round, in player order; `players` narrows it to a
    batch. Reads the settlement's resolutions only, so it answers the same before and after the money moved."""
    bets = RoundBet.objects.filter(round=round).select_related("wallet_bet__resolution", "spot__player")
    if players is not None:
        bets = bets.filter(spot__player_id__in=players)
    by_player: dict[int, PlayerReversal] = {}
    staked: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    paid: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    moves: dict[int, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    for bet in bets.order_by("id"):
        player = bet.spot.player
        by_player.setdefault(player.pk, PlayerReversal(player_id=player.pk, username=player.get_username()))
        resolution = getattr(bet.wallet_bet, "resolution", None)
        cash_return = resolution.cash_return if resolution else 0
        chips_return = resolution.chips_return if resolution else 0
        staked[player.pk][bet.currency] += bet.amount
        paid[player.pk][bet.currency] += cash_return + chips_return
        if bet.funding == Funding.GOLDEN_CHIPS:
            moves[player.pk][(AccountKind.PLAYER_GOLDEN_CHIPS, bet.currency)] += bet.amount - chips_return
            moves[player.pk][(AccountKind.PLAYER_CASH, bet.currency)] -= cash_return
        else:
            moves[player.pk][(AccountKind.PLAYER_CASH, bet.currency)] += bet.amount - cash_return
    result = []
    for player_id in sorted(by_player):
        entry = by_player[player_id]
        entry.staked = dict(staked[player_id])
        entry.paid = dict(paid[player_id])
        entry.moves = {key: amount for key, amount in sorted(moves[player_id].items()) if amount}
        result.append(entry)
    return result


def reversal_totals(moves: list[PlayerReversal]) -> dict[str, dict[str, int]]:
    """Per currency: what the players give back in all, what they get back in all, and how many of each."""
    totals: dict[str, dict[str, int]] = {}
    for entry in moves:
        for (_kind, currency), amount in entry.moves.items():
            row = totals.setdefault(currency, {"give_back": 0, "get_back": 0, "givers": 0, "getters": 0})
            if amount < 0:
                row["give_back"] -= amount
                row["givers"] += 1
            else:
                row["get_back"] += amount
                row["getters"] += 1
    return dict(sorted(totals.items()))

"""The lobby: every table a player may sit at, as the game client's API and the player's tables page show it.

One reader for both doors. Per table: the game and its profile in plain words, EU or US dealing, the main bet's
limits per currency, seats free (a common draw has no seats: room for everybody), Bet Behind, whether it is
played alongside other tables, and open or paused (a paused table stays in the lobby, saying so). A handful of
queries for the whole lobby, whatever the number of tables.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext

from casino.formatting import money as money_text
from players import selectors
from players.help import game_name
from rounds import selectors as round_selectors
from rounds import table_now
from tables import selectors as table_selectors
from tables.models import BetType, Dealing, Profile, TableState

PROFILE_WORDS = {
    Profile.FREE_BET: gettext_lazy("Free Bet Blackjack: everyone plays one shared hand, with free doubles and splits"),
    Profile.FREE_BET_SEATED: gettext_lazy("Live Free Bet Blackjack: seven seats, with free doubles and splits"),
    Profile.CLASSIC: gettext_lazy("Live Blackjack: seven seats, classic rules"),
}
# Lazy: in the language of the page that reads them (the API and English pages: English; a Swedish page's).
# EU: no hole card until the players are done; US: the dealer takes a face-down second card at the deal.
DEALING_STYLE = {Dealing.EU: "eu", Dealing.ACE_PEEK: "us", Dealing.US_PEEK_BEFORE: "us", Dealing.US_PEEK_AFTER: "us"}
DEALING_WORDS = {
    Dealing.EU: gettext_lazy("European: the dealer's second card comes after the players have played"),
    Dealing.ACE_PEEK: gettext_lazy("American: the dealer takes a face-down second card and checks it under an ace"),
    Dealing.US_PEEK_BEFORE: gettext_lazy("American: the dealer takes a face-down second card and checks it under "
                                         "an ace or a ten before you play"),
    Dealing.US_PEEK_AFTER: gettext_lazy("American: the dealer takes a face-down second card, turned over after the players"),
}


def lobby(*, player=None, session_key: str = "") -> list[dict[str, Any]]:
    tables = table_selectors.tables_in_lobby()
    limits = table_selectors.limits_of_tables(tables=tables, bet_type=BetType.MAIN)
    taken = table_now.seats_taken_at_tables(tables=tables)
    live = {p.table_id: p for p in selectors.player_presences_live(player=player)} if player is not None else {}
    rows = []
    for table in tables:
        presence = live.get(table.pk)
        seats_free = None if table.seats is None else table.seats - len(taken.get(table.pk, ()))
        rows.append({
            "table": table,
            "code": table.code,
            "name": table.name,
            "game": game_name(table.profile),
            "profile": table.profile,
            "profile_text": str(PROFILE_WORDS[table.profile]),
            "dealing": DEALING_STYLE[table.dealing],
            "dealing_text": str(DEALING_WORDS[table.dealing]),
            "main_limits": [{"currency": limit.currency, "min": limit.min, "max": limit.max,
                             "min_text": money_text(limit.min, limit.currency),
                             "max_text": money_text(limit.max, limit.currency)}
                            for limit in limits.get(table.pk, [])],
            "seats": table.seats,
            "seats_free": seats_free,
            "seats_text": (gettext("Room for everyone (one shared hand)") if seats_free is None
                           else ngettext("%(free)s of %(seats)s seat free", "%(free)s of %(seats)s seats free",
                                         table.seats) % {"free": seats_free, "seats": table.seats}),
            "bet_behind": table.bet_behind,
            "multi_game": table.multi_game,
            "multi_game_text": (gettext("Playable alongside other tables") if table.multi_game
                                else gettext("Played on its own: you switch to it from other tables")),
            "state": table.state,
            "paused": table_now.pause_notice(table=table, round=round_selectors.round_active_for_table(table=table))
            if table.state == TableState.PAUSED else None,
            "seated": presence is not None,
            "here": presence is not None and bool(session_key) and presence.session_key == session_key,
        })
    return rows

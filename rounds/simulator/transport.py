"""How the simulator talks to the system: straight to the services, or through the HTTP API as clients do.

Both transports offer the same calls with the same answers, so a run gives the same game with either. A refusal
(betting closed, not your turn, insufficient funds...) is an ordinary answer at a live table: both raise
`Refused` with the error's stable code, and the simulator carries on.

The API transport drives Django's URL routing, DRF views, serializers, permissions, sessions and
Idempotency-Key headers in-process (django.test.Client); no server is needed. Timers, sweeps and system voids
are not client calls: both transports reach them through the services, as the worker and the timer sweep do.
Tips have no API endpoint yet: both transports call `wallet.services.tip`.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from casino.api_errors import DomainError
from rounds.simulator.habits import Offer


class Refused(Exception):
    """The system said no, with a stable code (the API's `code`, the domain error's `code`)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class RoundRef:
    id: int
    game_number: str


def new_key() -> str:
    return uuid.uuid4().hex


class ServiceTransport:
    """In-process calls to rounds.services and wallet.services, as the API views make them."""

    name = "services"

    def call(self, function, **kwargs):
        try:
            return function(**kwargs)
        except DomainError as error:
            raise Refused(error.code, error.message) from None

    # --- the studio -------------------------------------------------------------------------------------------
    def round_open(self, *, studio, table, now=None) -> RoundRef:
        from rounds import services

        round = self.call(services.round_open, table=table, actor=studio, now=now)
        return RoundRef(round.pk, round.game_number)

    def shoe_start(self, *, studio, table, burn_card: str) -> None:
        from rounds import services

        self.call(services.shoe_start, table=table, actor=studio, burn_card=burn_card)

    def cut_card(self, *, studio, round: RoundRef) -> None:
        from rounds import services

        self.call(services.shoe_cut_card, round_id=round.id, actor=studio)

    def betting_close(self, *, studio, round: RoundRef, now=None) -> None:
        from rounds import services

        self.call(services.round_betting_close, round_id=round.id, actor=studio, now=now)

    def card(self, *, studio, round: RoundRef, card: str, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.card_record, round_id=round.id, card=card, actor=studio, now=now)

    def dealer_complete(self, *, studio, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.dealer_complete, round_id=round.id, actor=studio, now=now)

    def table_pause(self, *, studio, table, reason: str) -> None:
        from rounds import services

        self.call(services.table_pause, table=table, actor=studio, reason=reason)

    def table_resume(self, *, studio, table) -> None:
        from rounds import services

        self.call(services.table_resume, table=table, actor=studio)

    # --- the players ------------------------------------------------------------------------------------------
    def bets_place(self, *, player, round: RoundRef, currency: str, bets: dict[str, int], seat=None,
                   behind=False, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.bets_place, round_id=round.id, player=player, currency=currency, bets=bets,
                         seat=seat, behind=behind, idempotency_key=new_key(), now=now)

    def bets_repeat(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.bets_repeat, round_id=round.id, player=player, idempotency_key=new_key(), now=now)

    def bets_double(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.bets_double, round_id=round.id, player=player, idempotency_key=new_key(), now=now)

    def confirm(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.betting_confirm, round_id=round.id, player=player, now=now)

    def bets_confirm(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.bets_confirm, round_id=round.id, player=player, now=now)

    def bets_undo(self, *, player, round: RoundRef, everything: bool, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.bets_undo, round_id=round.id, player=player, everything=everything,
                         idempotency_key=new_key(), now=now)

    def seat_move(self, *, player, round: RoundRef, from_seat: int, to_seat: int, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.seat_move, round_id=round.id, player=player, from_seat=from_seat,
                         to_seat=to_seat, idempotency_key=new_key(), now=now)

    def leave(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.player_disconnect, round_id=round.id, player=player, now=now)

    def insurance(self, *, player, round: RoundRef, take: bool, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.insurance_decide, round_id=round.id, player=player, take=take,
                         idempotency_key=new_key(), now=now)

    def decide(self, *, player, round: RoundRef, action: str, seat=None, now=None) -> dict[str, Any]:
        from rounds import services

        return self.call(services.decision_make, round_id=round.id, player=player, action=action, seat=seat,
                         idempotency_key=new_key(), now=now)

    def offers(self, *, player, round: RoundRef) -> list[Offer]:
        """The decisions this player is asked for now (their own spots only, as their game client sees them)."""
        return self.offers_many(players=[player], round=round).get(player.pk, [])

    def offers_many(self, *, players: list, round: RoundRef) -> dict[int, list[Offer]]:
        """The decisions each of these players is asked for now, from one read of the round: at a common draw
        every player of a step decides on the same cards, so one read serves them all."""
        from rounds import selectors
        from rounds.engine_adapter import spot_turn
        from rounds.models import Round, RoundState, Spot, SpotStatus

        live = Round.objects.filter(pk=round.id).only("id", "state", "turn_seat", "config").first()
        if live is None or live.state != RoundState.DECISIONS:
            return {}
        spots = Spot.objects.filter(round_id=round.id, player__in=[p.pk for p in players], behind=False,
                                    voided_at__isnull=True, status=SpotStatus.DECIDING)
        if not live.common_draw:
            spots = spots.filter(seat=live.turn_seat)
        owners = dict(spots.order_by("id").values_list("id", "player_id"))
        if not owners:
            return {}
        # A few spots: only theirs is read; a whole common draw: the round in one go.
        record = selectors.round_record_load(live, spot_ids=list(owners) if len(owners) < 50 else None)
        up = str(record.dealer_cards[0])
        by_id = {spot.id: spot for spot in record.spots}
        offers: dict[int, list[Offer]] = {}
        for spot_id, player_id in owners.items():
            spot = by_id[spot_id]
            play = spot_turn(record, spot)
            point = play.decision()
            if point is None:
                continue
            hand = play.hands[point.hand_index]
            offers.setdefault(player_id, []).append(Offer(
                spot_id=spot_id, seat=spot.seat, hand_index=point.hand_index,
                cards=tuple(str(card) for card in point.cards), total=point.total, soft=point.soft,
                actions=point.actions, double=point.double, split=point.split,
                free_hand=hand.stake == 0 and hand.golden == 0 and hand.free > 0, up=up,
            ))
        return offers

    # --- sitting at tables -----------------------------------------------------------------------------------
    def table_join(self, *, player, table) -> None:
        """Sit down before playing: the API's moves need the player's presence there (rounds.presence)."""
        from players import services

        self.call(services.table_join, player=player, table=table, session_key=self.session(player))

    def session(self, player) -> str:
        return f"simulator:{player.pk}"

    def table_switch(self, *, player, leave, join, now=None) -> None:
        from players import services

        self.call(services.table_switch, player=player, leave=leave, join=join, session_key=self.session(player),
                  now=now)

    def confirm_by_hand(self, *, player) -> None:
        """The player switches automatic confirmation off in their settings (the rest stays as stored)."""
        from players import selectors, services

        profile = selectors.player_profile(player=player)
        self.call(services.player_settings_update, player=player, sound_on=profile.sound_on,
                  sound_volume=profile.sound_volume, dealer_voice=profile.dealer_voice,
                  video_quality=profile.video_quality, hide_others_chat=profile.hide_others_chat,
                  auto_confirm_bets=False)

    # --- the table's chat -------------------------------------------------------------------------------------
    def chat_post(self, *, player, table, body: str, now=None) -> None:
        from chat import services

        self.call(services.chat_post, player=player, table=table, body=body, now=now)

    def chat_host_post(self, *, studio, table, body: str, now=None) -> None:
        from chat import services

        self.call(services.chat_host_post, actor=studio, table=table, body=body, now=now)

    # --- the wallet -------------------------------------------------------------------------------------------
    def deposit(self, *, player, currency: str, amount: int) -> None:
        from wallet import services

        self.call(services.deposit, player=player, currency=currency, amount=amount, idempotency_key=new_key(),
                  actor=player)

    def withdraw(self, *, player, currency: str, amount: int) -> None:
        from wallet import services

        self.call(services.withdraw, player=player, currency=currency, amount=amount, idempotency_key=new_key(),
                  actor=player)

    def tip(self, *, player, currency: str, amount: int, table_code: str) -> None:
        from wallet import services

        self.call(services.tip, player=player, currency=currency, amount=amount, table_ref=table_code,
                  idempotency_key=new_key(), actor=player)


class ApiTransport(ServiceTransport):
    """The studio and every player as HTTP clients of /api/ (in-process, one logged-in client per user)."""

    name = "api"
    ROUNDS = "/api/rounds/"

    def __init__(self):
        from django.conf import settings

        hosts = [host for host in settings.ALLOWED_HOSTS if host and not host.startswith(".") and host != "*"]
        self.host = hosts[0] if hosts else ("localhost" if "*" in settings.ALLOWED_HOSTS else None)
        if self.host is None:
            raise RuntimeError("The API transport needs a host name in ALLOWED_HOSTS (or DEBUG=1).")
        self.clients: dict[int, Any] = {}
        # Refusals are ordinary answers here (a dealer hand not complete yet is a 409): the in-process server
        # would log each one as a warning. Its errors still show.
        logging.getLogger("django.request").setLevel(logging.ERROR)

    def client(self, user):
        from django.test import Client

        client = self.clients.get(user.pk)
        if client is None:
            from accounts.sign_in import client_sign_in

            client = Client(SERVER_NAME=self.host)
            client_sign_in(client, user)  # the studio (an operator) passes its second factor as well
            self.clients[user.pk] = client
        return client

    def request(self, user, method: str, url: str, data: dict | None = None, *, key: bool = False) -> Any:
        headers = {"Idempotency-Key": new_key()} if key else {}
        client = self.client(user)
        if method == "GET":
            response = client.get(url, headers=headers)
        elif method == "PUT":
            response = client.put(url, json.dumps(data or {}), content_type="application/json", headers=headers)
        else:
            response = client.post(url, json.dumps(data or {}), content_type="application/json", headers=headers)
        body = response.json() if response.content else {}
        if response.status_code >= 500:
            raise RuntimeError(f"{method} {url} answered {response.status_code}: {body}")
        if response.status_code >= 400:
            raise Refused(str(body.get("code", response.status_code)), str(body.get("message", body)))
        return body

    def url(self, round: RoundRef, tail: str = "") -> str:
        return f"{self.ROUNDS}{round.game_number}/{tail}"

    # --- the studio -------------------------------------------------------------------------------------------
    def round_open(self, *, studio, table, now=None) -> RoundRef:
        from rounds.models import Round

        body = self.request(studio, "POST", self.ROUNDS, {"table": table.code})
        return RoundRef(Round.objects.values_list("pk", flat=True).get(game_number=body["game_number"]),
                        body["game_number"])

    def shoe_start(self, *, studio, table, burn_card: str) -> None:
        self.request(studio, "POST", f"{self.ROUNDS}tables/{table.code}/shoe/", {"burn_card": burn_card})

    def cut_card(self, *, studio, round: RoundRef) -> None:
        self.request(studio, "POST", self.url(round, "cut-card/"))

    def betting_close(self, *, studio, round: RoundRef, now=None) -> None:
        self.request(studio, "POST", self.url(round, "close-betting/"))

    def card(self, *, studio, round: RoundRef, card: str, now=None) -> dict[str, Any]:
        return self.request(studio, "POST", self.url(round, "cards/"), {"card": card})

    def dealer_complete(self, *, studio, round: RoundRef, now=None) -> dict[str, Any]:
        body = self.request(studio, "POST", self.url(round, "dealer-complete/"))
        return {"state": body["state"]}

    def table_pause(self, *, studio, table, reason: str) -> None:
        self.request(studio, "POST", f"{self.ROUNDS}tables/{table.code}/pause/", {"reason": reason})

    def table_resume(self, *, studio, table) -> None:
        self.request(studio, "POST", f"{self.ROUNDS}tables/{table.code}/resume/")

    # --- the players ------------------------------------------------------------------------------------------
    def bets_place(self, *, player, round: RoundRef, currency: str, bets: dict[str, int], seat=None,
                   behind=False, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "bets/"),
                            {"currency": currency, "bets": bets, "seat": seat, "behind": behind}, key=True)

    def bets_repeat(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "bets/repeat/"), key=True)

    def bets_double(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "bets/double/"), key=True)

    def confirm(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "confirm/"))

    def bets_confirm(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "bets/confirm/"))

    def bets_undo(self, *, player, round: RoundRef, everything: bool, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "bets/undo/"), {"all": everything}, key=True)

    def seat_move(self, *, player, round: RoundRef, from_seat: int, to_seat: int, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "seats/move/"),
                            {"from_seat": from_seat, "to_seat": to_seat}, key=True)

    def leave(self, *, player, round: RoundRef, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "leave/"))

    def insurance(self, *, player, round: RoundRef, take: bool, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "insurance/"), {"take": take}, key=True)

    def decide(self, *, player, round: RoundRef, action: str, seat=None, now=None) -> dict[str, Any]:
        return self.request(player, "POST", self.url(round, "decisions/"), {"action": action, "seat": seat},
                            key=True)

    def table_join(self, *, player, table) -> None:
        self.request(player, "POST", f"/api/players/me/tables/{table.code}/join/")

    def table_switch(self, *, player, leave, join, now=None) -> None:
        self.request(player, "POST", f"/api/players/me/tables/{leave.code}/switch/", {"to": join.code})

    def confirm_by_hand(self, *, player) -> None:
        settings = self.request(player, "GET", "/api/players/me/settings/")
        for read_only in ("chat_disabled", "chat_disabled_reason"):
            settings.pop(read_only, None)
        self.request(player, "PUT", "/api/players/me/settings/", {**settings, "auto_confirm_bets": False})

    def chat_post(self, *, player, table, body: str, now=None) -> None:
        self.request(player, "POST", f"/api/chat/tables/{table.code}/messages/", {"body": body})

    def chat_host_post(self, *, studio, table, body: str, now=None) -> None:
        self.request(studio, "POST", f"/api/chat/tables/{table.code}/host-messages/", {"body": body})

    def offers_many(self, *, players: list, round: RoundRef) -> dict[int, list[Offer]]:
        # Each game client asks for its own view.
        return {player.pk: self.offers(player=player, round=round) for player in players}

    def offers(self, *, player, round: RoundRef) -> list[Offer]:
        view = self.request(player, "GET", self.url(round))
        if view["state"] != "decisions" or not view["cards"]["dealer"]:
            return []
        up = view["cards"]["dealer"][0]
        offers = []
        for spot in view["spots"]:
            point = spot.get("decision")
            if not spot["mine"] or spot["behind"] or point is None or spot["status"] != "deciding":
                continue
            hand = spot["hands"][point["hand"]]
            offers.append(Offer(
                spot_id=spot["id"], seat=spot["seat"], hand_index=point["hand"], cards=tuple(hand["cards"]),
                total=hand["total"], soft=hand["soft"], actions=tuple(point["actions"]), double=point["double"],
                split=point["split"], free_hand=hand["stake"] == 0 and hand["golden"] == 0 and hand["free"] > 0,
                up=up,
            ))
        return offers

    # --- the wallet -------------------------------------------------------------------------------------------
    def deposit(self, *, player, currency: str, amount: int) -> None:
        self.request(player, "POST", "/api/wallet/deposit/", {"currency": currency, "amount": amount}, key=True)

    def withdraw(self, *, player, currency: str, amount: int) -> None:
        self.request(player, "POST", "/api/wallet/withdraw/", {"currency": currency, "amount": amount}, key=True)


TRANSPORTS = {"services": ServiceTransport, "api": ApiTransport}

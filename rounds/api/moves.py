"""The game client's betting moves besides placing bets (`play`): UNDO, confirming, Multi Seat seat changes.

Deal Now is `client.ConfirmApi` (POST .../confirm/)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.error_schema import ERRORS
from casino.ratelimit import BetRateThrottle
from casino.retry import retried_on_contention
from rounds import services
from rounds.api._common import IDEMPOTENCY_HEADER, PLAYER, idempotency_key, round_id_for_move, validated
from rounds.api.serializers import (
    ConfirmResultSerializer,
    SeatGiveUpResultSerializer,
    SeatMoveResultSerializer,
    SeatMoveSerializer,
    SeatSerializer,
    UndoResultSerializer,
    UndoSerializer,
)


class BetsUndoApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="UNDO: take back my last bet, or every unconfirmed bet with all=true (betting open)",
                   request=UndoSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={200: UndoResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(UndoSerializer, request)
        round_id = round_id_for_move(request, game_number)
        result = services.bets_undo(round_id=round_id, player=request.user,
                                    everything=data["all"], idempotency_key=idempotency_key(request))
        return Response(UndoResultSerializer(result).data)


class BetsConfirmApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Confirm my bets (Live Blackjack tables; unconfirmed bets go back when betting closes)",
                   request=None, responses={200: ConfirmResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number)
        result = services.bets_confirm(round_id=round_id, player=request.user)
        return Response(ConfirmResultSerializer(result).data)


class SeatMoveApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Multi Seat: move my position and its bets to a free seat (no confirmed bets)",
                   request=SeatMoveSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={200: SeatMoveResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(SeatMoveSerializer, request)
        round_id = round_id_for_move(request, game_number)
        result = services.seat_move(round_id=round_id, player=request.user,
                                    from_seat=data["from_seat"], to_seat=data["to_seat"],
                                    idempotency_key=idempotency_key(request))
        return Response(SeatMoveResultSerializer(result).data)


class SeatGiveUpApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Multi Seat: give up one seat and get its bets back (no confirmed bets)",
                   request=SeatSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={200: SeatGiveUpResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(SeatSerializer, request)
        round_id = round_id_for_move(request, game_number)
        result = services.seat_give_up(round_id=round_id, player=request.user,
                                       seat=data["seat"], idempotency_key=idempotency_key(request))
        return Response(SeatGiveUpResultSerializer(result).data)

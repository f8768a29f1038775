"""The game client's endpoints (`play`): bets, Deal Now, leaving, insurance, decisions, my rounds; and what
players and staff both watch (a round, a table's current round, common-draw statistics).
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.error_schema import ERRORS, ErrorSerializer
from casino.ratelimit import BetRateThrottle
from casino.retry import retried_on_contention
from rounds import game_history, selectors, services, visibility
from rounds.api._common import (
    IDEMPOTENCY_HEADER,
    PLAYER,
    WATCHER,
    RoundCursorPagination,
    idempotency_key,
    round_id_for_move,
    round_or_404,
    state_response,
    table_or_404,
    validated,
)
from rounds.api.serializers import (
    BetPlaceSerializer,
    BetResultSerializer,
    DecisionResultSerializer,
    DecisionSerializer,
    InsuranceResultSerializer,
    InsuranceSerializer,
    PlayerRoundSerializer,
    RoundViewSerializer,
    StatsSerializer,
    bet_place_data,
    bet_result_data,
)
from rounds.presence import round_id_where_present


class MyRoundsApi(generics.ListAPIView):
    """A player's own rounds, newest first."""

    pagination_class = RoundCursorPagination
    serializer_class = PlayerRoundSerializer
    permission_classes = [PLAYER]

    def get_queryset(self):
        return game_history.player_rounds_query(player=self.request.user)

    @extend_schema(summary="My rounds, newest first (game client history)",
                   responses={200: PlayerRoundSerializer(many=True), 403: ErrorSerializer})
    def get(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        rows = game_history.game_rows(player=request.user, rounds=page)
        return self.get_paginated_response(PlayerRoundSerializer(rows, many=True).data)


class TableCurrentRoundApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="The round being played (or last played) at a table", responses={
        200: RoundViewSerializer, **ERRORS})
    def get(self, request, code: str):
        table = table_or_404(code)
        round = visibility.round_current_for_table(table=table)
        if round is None:
            raise Http404
        return state_response(request, round)


class RoundApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="A round's state: players see their own spots in detail, staff everything",
                   responses={200: RoundViewSerializer, **ERRORS})
    def get(self, request, game_number: str):
        round = visibility.round_readable_or_404(round=round_or_404(game_number), user=request.user)
        return state_response(request, round)


def bets_placed(request, data, game_number: str) -> dict:
    # The busiest request of all: its body, round lookup, play gate and response without the general
    # machinery (bet_place_data, round_id_where_present, bet_result_data), with the same answers.
    body = bet_place_data(data)
    round_id = round_id_where_present(request, game_number)
    if round_id is None:
        raise Http404
    result = services.bets_place(round_id=round_id, player=request.user,
                                 currency=body["currency"], bets=dict(body["bets"]), seat=body["seat"],
                                 behind=body["behind"], idempotency_key=idempotency_key(request))
    return bet_result_data(result)


class BetsApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Place bets on a spot (game client)", request=BetPlaceSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={201: BetResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        return Response(bets_placed(request, request.data, game_number), status=status.HTTP_201_CREATED)


class BetsRepeatApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Repeat my bets of the last round at this table", request=None,
                   parameters=[IDEMPOTENCY_HEADER], responses={201: BetResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number)
        result = services.bets_repeat(round_id=round_id, player=request.user,
                                      idempotency_key=idempotency_key(request))
        return Response(BetResultSerializer(result).data, status=status.HTTP_201_CREATED)


class BetsDoubleApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Double all my bets in this round", request=None, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: BetResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number)
        result = services.bets_double(round_id=round_id, player=request.user,
                                      idempotency_key=idempotency_key(request))
        return Response(BetResultSerializer(result).data, status=status.HTTP_201_CREATED)


class ConfirmApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Deal Now: I am ready (betting closes once every seated player is)",
                   request=None, responses={200: inline_serializer("Confirmed", {
                       "confirmed": serializers.BooleanField(), "betting_closed": serializers.BooleanField()}),
                       **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number)
        return Response(services.betting_confirm(round_id=round_id, player=request.user))


class LeaveApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="I disconnect: the table's disconnection policy says whether my bets are refunded",
                   request=None, responses={200: inline_serializer("Left", {
                       "spots": serializers.ListField(child=serializers.IntegerField()),
                       "refunded": serializers.BooleanField(),
                       "policy": serializers.ChoiceField(choices=["void_while_betting", "bets_stand", "non_live"])}),
                       **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number)
        return Response(services.player_disconnect(round_id=round_id, player=request.user))


class InsuranceApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Take or decline insurance", request=InsuranceSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={200: InsuranceResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(InsuranceSerializer, request)
        round_id = round_id_for_move(request, game_number)
        result = services.insurance_decide(round_id=round_id, player=request.user, take=data["take"],
                                           idempotency_key=idempotency_key(request))
        return Response(InsuranceResultSerializer(result).data)


class DecisionApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Decide: hit, stand, double or split (in turn, when legal)", request=DecisionSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={200: DecisionResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(DecisionSerializer, request)
        round_id = round_id_for_move(request, game_number)
        result = services.decision_make(round_id=round_id, player=request.user, action=data["action"],
                                        seat=data["seat"], idempotency_key=idempotency_key(request))
        return Response(DecisionResultSerializer(result).data)


class ContinuationApi(APIView):
    """My non-live continuations in a round: the cards carried over, the cards drawn since, what I may do."""

    permission_classes = [PLAYER]

    @extend_schema(summary="My non-live continuations in this round (rules.md, Disconnection)", responses={
        200: inline_serializer("Continuations", {"continuations": serializers.ListField(
            child=serializers.DictField())}), **ERRORS})
    def get(self, request, game_number: str):
        round = round_or_404(game_number)
        rows = round.continuations.filter(player=request.user).select_related("spot", "round").order_by("id")
        return Response({"continuations": [services.continuation_view(row) for row in rows]})


class ContinuationReconnectApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="I am back: open my non-live continuations of this round for my decisions (once)",
                   request=None, responses={200: inline_serializer("Reconnected", {
                       "continuations": serializers.ListField(child=serializers.IntegerField())}), **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round_id = round_id_for_move(request, game_number, closed_table_ok=True)
        return Response(services.continuation_reconnect(round_id=round_id, player=request.user))


class ContinuationDecisionApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Decide in my non-live continuation: hit, stand, double or split (when legal)",
                   request=DecisionSerializer, parameters=[IDEMPOTENCY_HEADER], responses={
                       200: inline_serializer("ContinuationDecision", {
                           "continuation": serializers.IntegerField(), "action": serializers.CharField(),
                           "hand": serializers.IntegerField(), "status": serializers.CharField()}), **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(DecisionSerializer, request)
        round_id = round_id_for_move(request, game_number, closed_table_ok=True)
        return Response(services.continuation_decide(
            round_id=round_id, player=request.user, action=data["action"], seat=data["seat"],
            idempotency_key=idempotency_key(request)))


class StatsApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="Common draw: what the players chose at the current step", responses={
        200: StatsSerializer, **ERRORS})
    def get(self, request, game_number: str):
        round = visibility.round_readable_or_404(round=round_or_404(game_number), user=request.user)
        if not round.common_draw:
            raise serializers.ValidationError("Decision statistics are served for common-draw rounds only.")
        return Response(StatsSerializer(selectors.decision_stats(round=round)).data)

"""The studio's endpoints (`configure_tables`): table pause/resume/close, shoes, betting close, cards and
the dealer's hand.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.staffaudit import origin_from_request
from casino.error_schema import ERRORS
from casino.retry import retried_on_contention
from rounds import services
from rounds.api._common import STUDIO, round_or_404, state_response, table_or_404, validated
from rounds.api.serializers import (
    CardResultSerializer,
    CardSerializer,
    ReasonSerializer,
    RoundViewSerializer,
    ShoeSerializer,
    TableStateSerializer,
)
from tables.models import Table


class _TableActionApi(APIView):
    permission_classes = [STUDIO]
    action = ""

    def act(self, request, table: Table) -> Table:
        raise NotImplementedError

    @retried_on_contention
    def post(self, request, code: str):
        table = self.act(request, table_or_404(code))
        return Response(TableStateSerializer(table).data)


class TablePauseApi(_TableActionApi):
    @extend_schema(summary="Pause a table on an error (studio)", request=ReasonSerializer,
                   responses={200: TableStateSerializer, **ERRORS})
    def post(self, request, code: str):
        return super().post(request, code)

    def act(self, request, table):
        return services.table_pause(table=table, actor=request.user,
                                    reason=validated(ReasonSerializer, request)["reason"],
                                    origin=origin_from_request(request))


class TableResumeApi(_TableActionApi):
    @extend_schema(summary="Resume a paused table (studio)", request=None,
                   responses={200: TableStateSerializer, **ERRORS})
    def post(self, request, code: str):
        return super().post(request, code)

    def act(self, request, table):
        return services.table_resume(table=table, actor=request.user, origin=origin_from_request(request))


class TableCloseApi(_TableActionApi):
    @extend_schema(summary="Close a table; its unfinished round is voided (studio)", request=ReasonSerializer,
                   responses={200: TableStateSerializer, **ERRORS})
    def post(self, request, code: str):
        return super().post(request, code)

    def act(self, request, table):
        return services.table_close(table=table, actor=request.user,
                                    reason=validated(ReasonSerializer, request)["reason"],
                                    origin=origin_from_request(request))


class TableShoeApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Start a new shoe at a table (studio)", request=ShoeSerializer, responses={
        201: inline_serializer("ShoeStarted", {"table": serializers.CharField(), "number": serializers.IntegerField(),
                                               "burned": serializers.IntegerField()}), **ERRORS})
    @retried_on_contention
    def post(self, request, code: str):
        data = validated(ShoeSerializer, request)
        shoe = services.shoe_start(table=table_or_404(code), actor=request.user, burn_card=data["burn_card"])
        return Response({"table": code, "number": shoe.number, "burned": shoe.burned},
                        status=status.HTTP_201_CREATED)


class CloseBettingApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Close betting (studio)", request=None, responses={200: RoundViewSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        services.round_betting_close(round_id=round.pk, actor=request.user)
        return state_response(request, round)


class CutCardApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="The cut card came out in this round: the next round is the shoe's last (studio)",
                   request=None, responses={200: inline_serializer("CutCard", {
                       "shoe": serializers.IntegerField(), "cut_card_round": serializers.CharField(),
                       "message": serializers.CharField()}), **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        shoe = services.shoe_cut_card(round_id=round.pk, actor=request.user)
        return Response({"shoe": shoe.number, "cut_card_round": round.game_number,
                         "message": "the cards will be replaced in the following round"})


class CardApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Record the next card from the table (studio)", request=CardSerializer,
                   responses={200: CardResultSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(CardSerializer, request)
        round = round_or_404(game_number)
        result = services.card_record(round_id=round.pk, card=data["card"], target=data["target"],
                                      seat=data["seat"], actor=request.user)
        return Response(CardResultSerializer(result).data)


class DealerCompleteApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="The dealer's hand is complete: settle the round (studio)", request=None,
                   responses={200: RoundViewSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        services.dealer_complete(round_id=round.pk, actor=request.user)
        return state_response(request, round)

"""Staff endpoints: every round (and opening one, for the studio), voids and reversals (`void_rounds`), a
round's full record and its replay (`view_backoffice`).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.staffaudit import origin_from_request
from casino.error_schema import ERRORS, ErrorSerializer
from casino.retry import retried_on_contention
from rounds import selectors, services
from rounds.api._common import (
    BACKOFFICE,
    STUDIO,
    VOIDER,
    RoundCursorPagination,
    round_or_404,
    state_response,
    table_or_404,
    validated,
)
from rounds.api.serializers import (
    OpenRoundSerializer,
    ReasonSerializer,
    RecordSerializer,
    ReplaySerializer,
    RoundSummarySerializer,
    RoundViewSerializer,
)
from rounds.models import RoundState


class RoundListApi(generics.ListAPIView):
    """Staff: every round, newest first. Studio: POST opens a round at a table."""

    pagination_class = RoundCursorPagination
    serializer_class = RoundSummarySerializer

    def get_permissions(self):
        return [STUDIO()] if self.request.method == "POST" else [BACKOFFICE()]

    def get_queryset(self):
        state = self.request.query_params.get("state")
        if state is not None and state not in RoundState.values:
            raise serializers.ValidationError({"state": f"must be one of {', '.join(RoundState.values)}"})
        table = self.request.query_params.get("table")
        return selectors.rounds_list(table=table_or_404(table) if table else None, state=state)

    @extend_schema(
        summary="Every round, newest first (staff)",
        parameters=[OpenApiParameter("state", str, enum=RoundState.values, required=False),
                    OpenApiParameter("table", str, required=False, description="a table code")],
        responses={200: RoundSummarySerializer(many=True), 403: ErrorSerializer},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Open a round at a table (studio)", request=OpenRoundSerializer,
                   responses={201: RoundViewSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request):
        data = validated(OpenRoundSerializer, request)
        round = services.round_open(table=table_or_404(data["table"]), actor=request.user)
        return state_response(request, round, code=status.HTTP_201_CREATED)


class VoidApi(APIView):
    permission_classes = [VOIDER]

    @extend_schema(summary="Void a round that is not settled; its stakes are refunded by a worker",
                   request=ReasonSerializer, responses={200: RoundViewSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(ReasonSerializer, request)
        round = round_or_404(game_number)
        services.round_void(round_id=round.pk, actor=request.user, reason=data["reason"],
                            origin=origin_from_request(request))
        return state_response(request, round)


class ReverseApi(APIView):
    permission_classes = [VOIDER]

    @extend_schema(summary="Reverse a settled round with compensating transactions (staff)",
                   request=ReasonSerializer, responses={200: RoundViewSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, game_number: str):
        data = validated(ReasonSerializer, request)
        round = round_or_404(game_number)
        services.round_reverse(round_id=round.pk, actor=request.user, reason=data["reason"],
                               origin=origin_from_request(request))
        return state_response(request, round)


class RecordApi(APIView):
    permission_classes = [BACKOFFICE]

    @extend_schema(summary="A round's full record: cards, spots, bets, decisions, transactions, audit trail",
                   responses={200: RecordSerializer, **ERRORS})
    def get(self, request, game_number: str):
        return Response(RecordSerializer(selectors.round_full_record(round=round_or_404(game_number))).data)


class ReplayApi(APIView):
    permission_classes = [BACKOFFICE]

    @extend_schema(summary="Replay a round's audit trail through the engine and compare with its settlement",
                   responses={200: ReplaySerializer, **ERRORS})
    def get(self, request, game_number: str):
        replay = selectors.round_replay(round=round_or_404(game_number))
        data = {**replay.__dict__, "matches": replay.matches}
        return Response(ReplaySerializer(data).data)

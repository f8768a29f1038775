"""For game clients: sitting at tables. Join (add a table), leave, switch (leave one and join another in one
step), the tables I sit at; each presence belongs to this session (the browser's, or the API key's), and the
play gate (rounds.presence) refuses moves from any other."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api_permissions import role_permission
from casino.error_schema import ERRORS
from casino.retry import retried_on_contention
from players import lobby, selectors, services
from rounds.api.serializers import PauseNoticeSerializer
from rounds.presence import request_session
from tables import selectors as table_selectors
from tables.models import Table

PLAYER = role_permission("play")


def _table_or_404(code: str) -> Table:
    try:
        return table_selectors.table_detail(code=code)
    except Table.DoesNotExist:
        raise NotFound(f"No table {code[:20]}.") from None


class TablePresenceSerializer(serializers.Serializer):
    table = serializers.CharField(source="table.code")
    joined_at = serializers.DateTimeField()
    here = serializers.BooleanField(help_text="in this session (the browser's, or this API key's); false: the "
                                    "player sits there from another device, and only that one may play")


class TableJoinedSerializer(serializers.Serializer):
    table = serializers.CharField()
    joined_at = serializers.DateTimeField()


class TableLeftSerializer(serializers.Serializer):
    table = serializers.CharField()
    left = serializers.BooleanField(help_text="false: this session was not at the table (nothing changed)")
    disconnection = serializers.DictField(
        allow_null=True, help_text="when you had bets in a round in play: the round's disconnection answer "
        "(spots, refunded, policy, continuations), as POST /api/rounds/<game>/leave/ gives it")


def _joined(presence) -> dict:
    return {"table": presence.table.code, "joined_at": presence.joined_at}


class MyTablesApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="The tables I sit at (here: in this session)", responses={
        200: TablePresenceSerializer(many=True), **ERRORS})
    def get(self, request):
        session = request_session(request)
        rows = [{"table": p.table, "joined_at": p.joined_at, "here": p.session_key == session}
                for p in selectors.player_presences_live(player=request.user)]
        return Response(TablePresenceSerializer(rows, many=True).data)


class TableJoinApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Join a table (add it to the tables I play); from another device, it moves here",
                   request=None, responses={200: TableJoinedSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, code: str):
        presence = services.table_join(player=request.user, table=_table_or_404(code),
                                       session_key=request_session(request))
        return Response(TableJoinedSerializer(_joined(presence)).data)


class TableLeaveApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Leave a table; with bets in a round in play, that is a disconnection from it",
                   request=None, responses={200: TableLeftSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, code: str):
        table = _table_or_404(code)
        left = services.table_leave(player=request.user, table=table, session_key=request_session(request))
        return Response(TableLeftSerializer({"table": table.code, "left": left.left,
                                        "disconnection": left.disconnection}).data, status=status.HTTP_200_OK)


class TableSwitchSerializer(serializers.Serializer):
    to = serializers.CharField(max_length=8, help_text="the code of the table to join instead")


class TableSwitchApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Switch tables: leave this one and join another in one step (also between tables "
                   "not played alongside others)", request=TableSwitchSerializer,
                   responses={200: TableJoinedSerializer, **ERRORS})
    @retried_on_contention
    def post(self, request, code: str):
        serializer = TableSwitchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        leave = _table_or_404(code)
        presence = services.table_switch(player=request.user, leave=leave, join=_table_or_404(
            serializer.validated_data["to"]), session_key=request_session(request))
        return Response(TableJoinedSerializer(_joined(presence)).data)


class LobbyLimitSerializer(serializers.Serializer):
    currency = serializers.CharField()
    min = serializers.IntegerField(help_text="minor units")
    max = serializers.IntegerField(help_text="minor units")
    min_text = serializers.CharField()
    max_text = serializers.CharField()


class LobbyTableSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    profile = serializers.CharField(help_text="free_bet, free_bet_seated or classic")
    profile_text = serializers.CharField(help_text="the profile in plain words")
    dealing = serializers.ChoiceField(choices=["eu", "us"], help_text="EU (no hole card) or US (hole card) dealing")
    dealing_text = serializers.CharField()
    main_limits = LobbyLimitSerializer(many=True, help_text="the main position's limits, per currency")
    seats = serializers.IntegerField(allow_null=True, help_text="null: a common draw, room for everyone")
    seats_free = serializers.IntegerField(allow_null=True, help_text="seats nobody plays in the round now")
    seats_text = serializers.CharField()
    bet_behind = serializers.BooleanField()
    multi_game = serializers.BooleanField(help_text="false: played on its own; join it by switching to it")
    multi_game_text = serializers.CharField()
    state = serializers.ChoiceField(choices=["open", "paused"])
    paused = PauseNoticeSerializer(allow_null=True)
    seated = serializers.BooleanField(help_text="I sit at this table (in any session)")
    here = serializers.BooleanField(help_text="I sit at this table in this session")


class LobbyApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="The lobby: every open or paused table, with its limits, dealing, seats and features",
                   responses={200: LobbyTableSerializer(many=True), **ERRORS})
    def get(self, request):
        rows = lobby.lobby(player=request.user, session_key=request_session(request))
        return Response(LobbyTableSerializer(rows, many=True).data)

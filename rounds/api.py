"""The rounds API: the studio drives rounds, game clients bet and decide, staff void, reverse and look up.

Who may call what: studio endpoints need `configure_tables` (operators run the tables), voids and reversals
`void_rounds`, game-client endpoints `play`, records and replays `view_backoffice`. Every refusal is a JSON body
{"code", "message"}. Bets, decisions and insurance answers take an `Idempotency-Key` header: a retried
request returns the first result and holds nothing twice.
"""

from __future__ import annotations

import uuid

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import has_role_permission, missing_permission_message
from casino.ratelimit import BetRateThrottle
from rounds import selectors, services
from rounds.models import CardTarget, Round, RoundState
from tables.models import Table

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="A unique key per request (e.g. a UUID): a retry with the same key returns the first result "
                "and moves no money twice. Without it, every request is new.",
)


def role(*codenames: str) -> type[BasePermission]:
    """A DRF permission: the user holds any of these role permissions."""

    class HasRole(BasePermission):
        message = missing_permission_message(codenames[0])

        def has_permission(self, request, view) -> bool:
            return any(has_role_permission(request.user, codename) for codename in codenames)

    HasRole.__name__ = "Has_" + "_or_".join(codenames)
    return HasRole


STUDIO = role("configure_tables")
PLAYER = role("play")
VOIDER = role("void_rounds")
BACKOFFICE = role("view_backoffice")
WATCHER = role("play", "view_backoffice", "configure_tables")


def is_staff(user) -> bool:
    return has_role_permission(user, "view_backoffice") or has_role_permission(user, "configure_tables")


def round_or_404(game_number: str) -> Round:
    round = selectors.round_by_game_number(game_number=game_number)
    if round is None:
        raise Http404
    return round


def round_id_or_404(game_number: str) -> int:
    round_id = selectors.round_id_by_game_number(game_number=game_number)
    if round_id is None:
        raise Http404
    return round_id


def table_or_404(code: str) -> Table:
    table = Table.objects.filter(code=code).first()
    if table is None:
        raise Http404
    return table


def idempotency_key(request) -> str:
    return request.headers.get("Idempotency-Key") or f"auto-{uuid.uuid4()}"


def validated(serializer_class, request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# --- serializers ---------------------------------------------------------------------------------------------

class RoundErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(required=False, help_text="per-field problems, for invalid input")


ERRORS = {400: RoundErrorSerializer, 403: RoundErrorSerializer, 404: RoundErrorSerializer, 409: RoundErrorSerializer}


class BetViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    hand = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="minor units")
    funding = serializers.CharField()


class HandViewSerializer(serializers.Serializer):
    cards = serializers.ListField(child=serializers.CharField())
    total = serializers.IntegerField()
    soft = serializers.BooleanField()
    stake = serializers.IntegerField()
    golden = serializers.IntegerField()
    double = serializers.IntegerField()
    free = serializers.IntegerField()
    bust = serializers.BooleanField()
    blackjack = serializers.BooleanField()


class DecisionOfferSerializer(serializers.Serializer):
    hand = serializers.IntegerField()
    actions = serializers.ListField(child=serializers.CharField())
    double = serializers.CharField(allow_null=True, help_text='"free", "paid" or null')
    split = serializers.CharField(allow_null=True, help_text='"free", "paid" or null')
    double_cost = serializers.IntegerField()
    split_cost = serializers.IntegerField()
    double_funded = serializers.BooleanField()
    split_funded = serializers.BooleanField()
    timeout_action = serializers.CharField()


class SpotViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    behind = serializers.BooleanField()
    currency = serializers.CharField()
    player = serializers.IntegerField()
    mine = serializers.BooleanField()
    voided = serializers.BooleanField()
    status = serializers.CharField()
    insurance = serializers.BooleanField(allow_null=True)
    confirmed = serializers.BooleanField()
    bets = BetViewSerializer(many=True)
    hands = HandViewSerializer(many=True)
    decision = DecisionOfferSerializer(allow_null=True, help_text="what you may decide now, if it is your turn")


class CardsViewSerializer(serializers.Serializer):
    dealer = serializers.ListField(child=serializers.CharField(), help_text='"??" is the face-down hole card')
    player = serializers.ListField(child=serializers.CharField(), help_text="common draw: the shared two cards")
    stream = serializers.ListField(child=serializers.CharField(), help_text="common draw: the shared stream")
    seats = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class RoundViewSerializer(serializers.Serializer):
    game_number = serializers.CharField()
    table = serializers.CharField()
    profile = serializers.CharField()
    rules = serializers.CharField()
    common_draw = serializers.BooleanField()
    state = serializers.ChoiceField(choices=RoundState.choices)
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the running timer ends")
    turn_seat = serializers.IntegerField(allow_null=True)
    opened_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField(allow_blank=True)
    cards = CardsViewSerializer()
    spots = SpotViewSerializer(many=True)
    settlement = serializers.DictField(allow_null=True)


class OpenRoundSerializer(serializers.Serializer):
    table = serializers.CharField(help_text="the table code, e.g. FB01")


class BetPlaceSerializer(serializers.Serializer):
    currency = serializers.CharField(max_length=3)
    seat = serializers.IntegerField(required=False, allow_null=True, default=None,
                                    help_text="seated tables: the seat (1-7); none on a common draw")
    behind = serializers.BooleanField(required=False, default=False, help_text="a Bet Behind on `seat`")
    bets = serializers.DictField(
        child=serializers.IntegerField(), help_text='stakes in minor units: "main" or "golden_chip", and side bets '
                                                    'by name (any_pair, 21+3, hot3, perfect_pairs)')


class BetResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField(required=False)
    spots = serializers.ListField(child=serializers.IntegerField(), required=False)
    bets = serializers.ListField(child=serializers.IntegerField())
    replayed = serializers.BooleanField(default=False)


class CardSerializer(serializers.Serializer):
    card = serializers.CharField(max_length=8, help_text="rank A23456789TJQK + suit shdc, e.g. Ah")
    target = serializers.ChoiceField(choices=CardTarget.values, required=False, allow_null=True, default=None,
                                     help_text="optional check: where the studio believes the card goes")
    seat = serializers.IntegerField(required=False, allow_null=True, default=None)


class CardResultSerializer(serializers.Serializer):
    target = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    card = serializers.CharField()
    state = serializers.CharField()
    malfunction = serializers.CharField(allow_blank=True, help_text="set when the card voided the round")


class DecisionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=services.PLAYER_ACTIONS)
    seat = serializers.IntegerField(required=False, allow_null=True, default=None)


class DecisionResultSerializer(serializers.Serializer):
    spot = serializers.IntegerField()
    action = serializers.CharField()
    effective = serializers.CharField(help_text="what the rules made of it (free_double, hit after a fallback...)")
    hand = serializers.IntegerField()
    funded = serializers.BooleanField(allow_null=True)
    status = serializers.CharField()
    replayed = serializers.BooleanField(default=False)


class InsuranceSerializer(serializers.Serializer):
    take = serializers.BooleanField()


class InsuranceResultSerializer(serializers.Serializer):
    spots = serializers.ListField(child=serializers.IntegerField())
    insurance = serializers.BooleanField()
    bets = serializers.ListField(child=serializers.IntegerField())
    replayed = serializers.BooleanField(default=False)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class ShoeSerializer(serializers.Serializer):
    burn_card = serializers.CharField(required=False, allow_blank=True, default="", max_length=8)


class TableStateSerializer(serializers.Serializer):
    code = serializers.CharField()
    state = serializers.CharField()


class RoundSummarySerializer(serializers.Serializer):
    game_number = serializers.CharField()
    table = serializers.CharField(source="table.code")
    state = serializers.CharField()
    opened_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)


class PlayerRoundSerializer(RoundSummarySerializer):
    staked = serializers.DictField(child=serializers.IntegerField(), help_text="currency -> stakes, minor units")
    returned = serializers.DictField(child=serializers.IntegerField(), help_text="currency -> paid back so far")
    net = serializers.DictField(allow_null=True, help_text="the settled result of your spots, by label")


class StatsSituationSerializer(serializers.Serializer):
    history = serializers.ListField(child=serializers.CharField(), help_text="the choices that led here")
    players = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField())
    shares = serializers.DictField(child=serializers.FloatField())


class StatsSerializer(serializers.Serializer):
    game_number = serializers.CharField()
    step = serializers.IntegerField(help_text="stream cards dealt so far")
    still_deciding = serializers.IntegerField()
    situations = StatsSituationSerializer(many=True)


class ReplaySerializer(serializers.Serializer):
    game_number = serializers.CharField()
    state = serializers.CharField()
    matches = serializers.BooleanField()
    differences = serializers.ListField(child=serializers.CharField())
    error = serializers.CharField(allow_blank=True)
    scripts = serializers.ListField(child=serializers.DictField(), help_text="round-script.md objects")
    results = serializers.ListField(child=serializers.DictField())
    bet_returns = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))
    wallet_returns = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))


class RecordSerializer(serializers.Serializer):
    round = RoundSummarySerializer()
    spots = serializers.ListField(child=serializers.DictField())
    cards = serializers.ListField(child=serializers.DictField())
    bets = serializers.ListField(child=serializers.DictField())
    decisions = serializers.ListField(child=serializers.DictField())
    transactions = serializers.ListField(child=serializers.DictField())
    events = serializers.ListField(child=serializers.DictField())


class RoundCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 20
    max_page_size = 100
    page_size_query_param = "page_size"


# --- views ---------------------------------------------------------------------------------------------------

def state_response(request, round: Round, *, code: int = status.HTTP_200_OK) -> Response:
    round.refresh_from_db()
    data = selectors.round_view(round=round, viewer=request.user, staff=is_staff(request.user))
    return Response(RoundViewSerializer(data).data, status=code)


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
        responses={200: RoundSummarySerializer(many=True), 403: RoundErrorSerializer},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Open a round at a table (studio)", request=OpenRoundSerializer,
                   responses={201: RoundViewSerializer, **ERRORS})
    def post(self, request):
        data = validated(OpenRoundSerializer, request)
        round = services.round_open(table=table_or_404(data["table"]), actor=request.user)
        return state_response(request, round, code=status.HTTP_201_CREATED)


class MyRoundsApi(generics.ListAPIView):
    """A player's own rounds, newest first."""

    pagination_class = RoundCursorPagination
    serializer_class = PlayerRoundSerializer
    permission_classes = [PLAYER]

    def get_queryset(self):
        return selectors.rounds_for_player_query(player=self.request.user)

    @extend_schema(summary="My rounds, newest first (game client history)",
                   responses={200: PlayerRoundSerializer(many=True), 403: RoundErrorSerializer})
    def get(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        rows = selectors.player_rounds_totals(player=request.user, rounds=page)
        return self.get_paginated_response(PlayerRoundSerializer(rows, many=True).data)


class TableCurrentRoundApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="The round being played (or last played) at a table", responses={
        200: RoundViewSerializer, **ERRORS})
    def get(self, request, code: str):
        table = table_or_404(code)
        round = selectors.round_active_for_table(table=table) or selectors.round_latest_for_table(table=table)
        if round is None:
            raise Http404
        return state_response(request, round)


class _TableActionApi(APIView):
    permission_classes = [STUDIO]
    action = ""

    def act(self, request, table: Table) -> Table:
        raise NotImplementedError

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
                                    reason=validated(ReasonSerializer, request)["reason"])


class TableResumeApi(_TableActionApi):
    @extend_schema(summary="Resume a paused table (studio)", request=None,
                   responses={200: TableStateSerializer, **ERRORS})
    def post(self, request, code: str):
        return super().post(request, code)

    def act(self, request, table):
        return services.table_resume(table=table, actor=request.user)


class TableCloseApi(_TableActionApi):
    @extend_schema(summary="Close a table; its unfinished round is voided (studio)", request=ReasonSerializer,
                   responses={200: TableStateSerializer, **ERRORS})
    def post(self, request, code: str):
        return super().post(request, code)

    def act(self, request, table):
        return services.table_close(table=table, actor=request.user,
                                    reason=validated(ReasonSerializer, request)["reason"])


class TableShoeApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Start a new shoe at a table (studio)", request=ShoeSerializer, responses={
        201: inline_serializer("ShoeStarted", {"table": serializers.CharField(), "number": serializers.IntegerField(),
                                               "burned": serializers.IntegerField()}), **ERRORS})
    def post(self, request, code: str):
        data = validated(ShoeSerializer, request)
        shoe = services.shoe_start(table=table_or_404(code), actor=request.user, burn_card=data["burn_card"])
        return Response({"table": code, "number": shoe.number, "burned": shoe.burned},
                        status=status.HTTP_201_CREATED)


class RoundApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="A round's state: players see their own spots in detail, staff everything",
                   responses={200: RoundViewSerializer, **ERRORS})
    def get(self, request, game_number: str):
        return state_response(request, round_or_404(game_number))


class CloseBettingApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Close betting (studio)", request=None, responses={200: RoundViewSerializer, **ERRORS})
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        services.round_betting_close(round_id=round.pk, actor=request.user)
        return state_response(request, round)


class CardApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="Record the next card from the table (studio)", request=CardSerializer,
                   responses={200: CardResultSerializer, **ERRORS})
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
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        services.dealer_complete(round_id=round.pk, actor=request.user)
        return state_response(request, round)


class VoidApi(APIView):
    permission_classes = [VOIDER]

    @extend_schema(summary="Void a round that is not settled; its stakes are refunded by a worker",
                   request=ReasonSerializer, responses={200: RoundViewSerializer, **ERRORS})
    def post(self, request, game_number: str):
        data = validated(ReasonSerializer, request)
        round = round_or_404(game_number)
        services.round_void(round_id=round.pk, actor=request.user, reason=data["reason"])
        return state_response(request, round)


class ReverseApi(APIView):
    permission_classes = [VOIDER]

    @extend_schema(summary="Reverse a settled round with compensating transactions (staff)",
                   request=ReasonSerializer, responses={200: RoundViewSerializer, **ERRORS})
    def post(self, request, game_number: str):
        data = validated(ReasonSerializer, request)
        round = round_or_404(game_number)
        services.round_reverse(round_id=round.pk, actor=request.user, reason=data["reason"])
        return state_response(request, round)


class BetsApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Place bets on a spot (game client)", request=BetPlaceSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={201: BetResultSerializer, **ERRORS})
    def post(self, request, game_number: str):
        data = validated(BetPlaceSerializer, request)
        result = services.bets_place(round_id=round_id_or_404(game_number), player=request.user,
                                     currency=data["currency"], bets=dict(data["bets"]), seat=data["seat"],
                                     behind=data["behind"], idempotency_key=idempotency_key(request))
        return Response(BetResultSerializer(result).data, status=status.HTTP_201_CREATED)


class BetsRepeatApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Repeat my bets of the last round at this table", request=None,
                   parameters=[IDEMPOTENCY_HEADER], responses={201: BetResultSerializer, **ERRORS})
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        result = services.bets_repeat(round_id=round.pk, player=request.user,
                                      idempotency_key=idempotency_key(request))
        return Response(BetResultSerializer(result).data, status=status.HTTP_201_CREATED)


class BetsDoubleApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [BetRateThrottle]

    @extend_schema(summary="Double all my bets in this round", request=None, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: BetResultSerializer, **ERRORS})
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        result = services.bets_double(round_id=round.pk, player=request.user,
                                      idempotency_key=idempotency_key(request))
        return Response(BetResultSerializer(result).data, status=status.HTTP_201_CREATED)


class ConfirmApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Confirm my bets (Deal Now closes betting once every seated player has)",
                   request=None, responses={200: inline_serializer("Confirmed", {
                       "confirmed": serializers.BooleanField(), "betting_closed": serializers.BooleanField()}),
                       **ERRORS})
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        return Response(services.betting_confirm(round_id=round.pk, player=request.user))


class LeaveApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="I disconnect: while betting is open my bets are refunded, later they stand",
                   request=None, responses={200: inline_serializer("Left", {
                       "spots": serializers.ListField(child=serializers.IntegerField()),
                       "refunded": serializers.BooleanField()}), **ERRORS})
    def post(self, request, game_number: str):
        round = round_or_404(game_number)
        return Response(services.player_disconnect(round_id=round.pk, player=request.user))


class InsuranceApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Take or decline insurance", request=InsuranceSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={200: InsuranceResultSerializer, **ERRORS})
    def post(self, request, game_number: str):
        data = validated(InsuranceSerializer, request)
        round = round_or_404(game_number)
        result = services.insurance_decide(round_id=round.pk, player=request.user, take=data["take"],
                                           idempotency_key=idempotency_key(request))
        return Response(InsuranceResultSerializer(result).data)


class DecisionApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Decide: hit, stand, double or split (in turn, when legal)", request=DecisionSerializer,
                   parameters=[IDEMPOTENCY_HEADER], responses={200: DecisionResultSerializer, **ERRORS})
    def post(self, request, game_number: str):
        data = validated(DecisionSerializer, request)
        round = round_or_404(game_number)
        result = services.decision_make(round_id=round.pk, player=request.user, action=data["action"],
                                        seat=data["seat"], idempotency_key=idempotency_key(request))
        return Response(DecisionResultSerializer(result).data)


class StatsApi(APIView):
    permission_classes = [WATCHER]

    @extend_schema(summary="Common draw: what the players chose at the current step", responses={
        200: StatsSerializer, **ERRORS})
    def get(self, request, game_number: str):
        round = round_or_404(game_number)
        if not round.common_draw:
            raise serializers.ValidationError("Decision statistics are served for common-draw rounds only.")
        return Response(StatsSerializer(selectors.decision_stats(round=round)).data)


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

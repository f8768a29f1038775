"""The game client's wallet API (a player's own wallet) and the back office's read of any player's wallet."""

from django.urls import reverse
from django.utils.http import urlencode
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api_permissions import role_permission
from casino.error_schema import ERRORS
from casino.untrusted import InputError, amount_minor_parse, whole_number_parse
from wallet import selectors, services
from wallet.currencies import CURRENCIES, money_format
from wallet.errors import IdempotencyKeyRequired, InvalidAmount, InvalidRequest, UnknownAccount
from wallet.keys import client_key
from wallet.selectors import HISTORY_MAX_PAGE_SIZE, HISTORY_PAGE_SIZE


class AccountSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    kind = serializers.CharField()
    currency = serializers.CharField()
    balance = serializers.IntegerField(help_text="Minor units")
    balance_display = serializers.SerializerMethodField()

    def get_balance_display(self, account) -> str:
        return money_format(account.balance, account.currency)


class HistoryRowSerializer(serializers.Serializer):
    entry_id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    kind = serializers.CharField()
    game = serializers.CharField()
    game_number = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField(help_text="Signed, minor units")
    bet_amount = serializers.IntegerField(allow_null=True)
    payout = serializers.IntegerField(allow_null=True)
    balance_after = serializers.IntegerField(allow_null=True)


class HistoryPageSerializer(serializers.Serializer):
    account = AccountSerializer(allow_null=True)
    results = HistoryRowSerializer(many=True)
    next_before = serializers.IntegerField(allow_null=True, help_text="Cursor of the next (older) page")
    next = serializers.CharField(allow_null=True, help_text="URL of the next (older) page")


class MovementRequestSerializer(serializers.Serializer):
    currency = serializers.ChoiceField(choices=sorted(CURRENCIES), help_text="ISO code, e.g. EUR")
    amount = serializers.IntegerField(min_value=1, help_text="Minor units, > 0 (1250 = 12.50 EUR); each currency "
                                                             "has its own least and largest deposit and withdrawal")


class MovementSerializer(serializers.Serializer):
    transaction_id = serializers.IntegerField()
    kind = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    balance = serializers.IntegerField(help_text="The cash balance right after this movement")
    created_at = serializers.DateTimeField()
    replayed = serializers.BooleanField(help_text="True when this answers a repeat of an earlier request")


HISTORY_PARAMETERS = [
    OpenApiParameter("account", {"type": "integer", "minimum": 0},
                     description="Account id (default: the first cash account)"),
    OpenApiParameter("before", {"type": "integer", "minimum": 0},
                     description="Cursor: entries older than this entry id"),
    OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": HISTORY_MAX_PAGE_SIZE},
                     description=f"Page size, 1-{HISTORY_MAX_PAGE_SIZE}"),
]


def _int_param(request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return whole_number_parse(raw, field=name)
    except InputError as error:
        raise InvalidRequest(error.message) from None


def _balances(player):
    return Response(AccountSerializer(selectors.player_accounts(player=player), many=True).data)


def _history(request, player):
    accounts = selectors.player_accounts(player=player)
    account_id = _int_param(request, "account", None)
    if account_id is None:
        account = accounts[0] if accounts else None
    else:
        account = selectors.player_account_get(player=player, account_id=account_id)
        if account is None:
            raise UnknownAccount(f"No account {account_id} in this wallet.")
    limit = _int_param(request, "limit", HISTORY_PAGE_SIZE)
    if not 1 <= limit <= HISTORY_MAX_PAGE_SIZE:
        raise InvalidRequest(f"'limit' must be between 1 and {HISTORY_MAX_PAGE_SIZE}.")
    before = _int_param(request, "before", None)  # checked even for an empty wallet
    page = selectors.account_history(account=account, before=before, limit=limit) if account else None
    next_url = None
    if page and page.next_before:
        query = urlencode({"account": account.pk, "before": page.next_before, "limit": limit})
        next_url = request.build_absolute_uri(f"{request.path}?{query}")
    return Response(HistoryPageSerializer({
        "account": account, "results": page.rows if page else [],
        "next_before": page.next_before if page else None, "next": next_url,
    }).data)


class BalancesView(APIView):
    permission_classes = [role_permission("play")]

    @extend_schema(summary="My balances", responses={200: AccountSerializer(many=True), **ERRORS})
    def get(self, request):
        return _balances(request.user)


class HistoryView(APIView):
    permission_classes = [role_permission("play")]

    @extend_schema(summary="My account history, newest first (keyset cursor)", parameters=HISTORY_PARAMETERS,
                   responses={200: HistoryPageSerializer, **ERRORS})
    def get(self, request):
        return _history(request, request.user)


class _MovementView(APIView):
    permission_classes = [role_permission("play")]
    service = None
    operation = ""

    def post(self, request):
        data = request.data if hasattr(request.data, "get") else {}
        for name in ("currency", "amount"):
            if data.get(name) in (None, ""):
                raise InvalidRequest(f"'{name}' is required.")
        amount = data["amount"]
        if isinstance(amount, str):
            try:
                amount = amount_minor_parse(amount)
            except InputError as error:
                raise InvalidAmount(error.message) from None
        key = request.headers.get("Idempotency-Key")
        if not key:
            raise IdempotencyKeyRequired("Send an Idempotency-Key header (e.g. a UUID) so a retry moves money once.")
        txn = type(self).service(
            player=request.user, currency=data["currency"], amount=amount, actor=request.user,
            idempotency_key=client_key(user=request.user, operation=self.operation, key=key),
        )
        entry = txn.entries.filter(account__player=request.user).select_related("account").get()
        body = MovementSerializer({
            "transaction_id": txn.pk, "kind": txn.kind, "currency": entry.account.currency,
            "amount": abs(entry.amount), "balance": entry.balance_after, "created_at": txn.created_at,
            "replayed": txn.replayed,
        }).data
        # A replay answers what the first request answered, marked as such (as the rounds API does).
        response = Response(body, status=status.HTTP_201_CREATED)
        response["Location"] = reverse("wallet_home") + "?" + urlencode({"account": entry.account_id})
        if txn.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1}, location=OpenApiParameter.HEADER, required=True,
    description="Unique per request among your own deposits (or withdrawals); repeating it returns the first "
                "answer (201, `replayed` true, header Idempotent-Replayed) and moves nothing",
)


class DepositView(_MovementView):
    service = staticmethod(services.deposit)
    operation = "deposit"

    @extend_schema(summary="Deposit cash", request=MovementRequestSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: MovementSerializer, **ERRORS})
    def post(self, request):
        return super().post(request)


class WithdrawView(_MovementView):
    service = staticmethod(services.withdraw)
    operation = "withdraw"

    @extend_schema(summary="Withdraw cash", request=MovementRequestSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: MovementSerializer, **ERRORS})
    def post(self, request):
        return super().post(request)


def _player_or_404(user_id: int):
    player = selectors.player_get(user_id=user_id)
    if player is None:
        raise UnknownAccount(f"No user {user_id}.")
    return player


class PlayerBalancesView(APIView):
    permission_classes = [role_permission("view_backoffice")]

    @extend_schema(summary="A player's balances (back office)", responses={200: AccountSerializer(many=True),
                                                                          **ERRORS})
    def get(self, request, user_id: int):
        return _balances(_player_or_404(user_id))


class PlayerHistoryView(APIView):
    permission_classes = [role_permission("view_backoffice")]

    @extend_schema(summary="A player's account history (back office)", parameters=HISTORY_PARAMETERS,
                   responses={200: HistoryPageSerializer, **ERRORS})
    def get(self, request, user_id: int):
        return _history(request, _player_or_404(user_id))

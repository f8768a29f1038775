"""What every rounds endpoint shares: its role guards, lookups that answer 404, the
Idempotency-Key header and the round view response.
"""

from __future__ import annotations

import uuid

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from accounts.api_permissions import role_permission
from accounts.permissions import has_role_permission
from casino.pagination import StrictCursorPagination
from rounds import selectors
from rounds.api.serializers import RoundViewSerializer
from rounds.models import Round
from rounds.presence import require_presence
from tables.models import Table

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="A unique key per request (e.g. a UUID): a retry with the same key returns the first result "
                "and moves no money twice. Without it, every request is new.",
)


STUDIO = role_permission("configure_tables")

PLAYER = role_permission("play")

VOIDER = role_permission("void_rounds")

BACKOFFICE = role_permission("view_backoffice")

WATCHER = role_permission("play", "view_backoffice", "configure_tables")


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


def round_id_for_move(request, game_number: str, *, closed_table_ok: bool = False) -> int:
    """The round a player's move is for: 404 if there is none, 409 unless this session is at its table (the
    play gate, rounds.presence). Every game-client move calls it before its service."""
    round_id = round_id_or_404(game_number)
    require_presence(request, round_id=round_id, closed_table_ok=closed_table_ok)
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


class RoundCursorPagination(StrictCursorPagination):
    ordering = "-id"
    page_size = 20
    max_page_size = 100
    page_size_query_param = "page_size"


def state_response(request, round: Round, *, code: int = status.HTTP_200_OK) -> Response:
    round.refresh_from_db()
    data = selectors.round_view(round=round, viewer=request.user, staff=is_staff(request.user))
    return Response(RoundViewSerializer(data).data, status=code)

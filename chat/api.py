"""For game clients and the studio: a table's chat. Players read and write at a table they sit at (their
"hide other players' chat" setting honoured); the host (the studio, `configure_tables`) reads everything and
writes to everyone. Clients poll with `after`, the id of the last message they hold."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api_permissions import role_permission
from casino.api_fields import JsonStringField
from casino.error_schema import ERRORS, ErrorSerializer
from casino.query_params import cursor_param
from casino.ratelimit import ChatRateThrottle
from chat import selectors, services
from chat.models import BODY_MAX_LENGTH, ChatAuthor, ChatMessage
from rounds.presence import require_presence
from tables import selectors as table_selectors
from tables.models import Table

PLAYER = role_permission("play")
STUDIO = role_permission("configure_tables")

AFTER = OpenApiParameter("after", OpenApiTypes.INT, required=False,
                         description="the id of the last message you hold: only newer ones come back (oldest "
                                     "first); without it, the latest messages")


class ChatMessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.DateTimeField(source="posted_at")
    kind = serializers.ChoiceField(source="author_kind", choices=ChatAuthor.choices,
                                   help_text="player, or host (the studio)")
    author = serializers.SerializerMethodField(help_text="the player's user name, or Host")
    mine = serializers.SerializerMethodField()
    body = serializers.CharField(help_text="plain text as written: escape it when you show it")

    def get_author(self, message: ChatMessage) -> str:
        return "Host" if message.author_kind == ChatAuthor.HOST else message.author.get_username()

    def get_mine(self, message: ChatMessage) -> bool:
        return message.author_id == self.context["viewer"].pk


class ChatMessagesSerializer(serializers.Serializer):
    messages = ChatMessageSerializer(many=True)


class ChatPostSerializer(serializers.Serializer):
    body = JsonStringField(max_length=BODY_MAX_LENGTH, help_text="one line of plain text")


def _table_or_404(code: str) -> Table:
    try:
        return table_selectors.table_detail(code=code)
    except Table.DoesNotExist:
        raise NotFound(f"No table {code[:20]}.") from None


def _body(request) -> str:
    serializer = ChatPostSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["body"]


def _after(request) -> int | None:
    try:
        return cursor_param(request, "after")
    except ValueError as error:
        raise ValidationError({"after": [str(error)]}) from None


def _listed(request, messages) -> Response:
    return Response(ChatMessagesSerializer({"messages": messages}, context={"viewer": request.user}).data)


def _posted(request, message) -> Response:
    return Response(ChatMessageSerializer(message, context={"viewer": request.user}).data,
                    status=status.HTTP_201_CREATED)


THROTTLED = {429: ErrorSerializer}


class TableChatApi(APIView):
    permission_classes = [PLAYER]
    throttle_classes = [ChatRateThrottle]

    @extend_schema(summary="The chat of a table I sit at (game client)", parameters=[AFTER],
                   responses={200: ChatMessagesSerializer, **ERRORS})
    def get(self, request, code: str):
        table = _table_or_404(code)
        after = _after(request)
        require_presence(request, table)
        return _listed(request, selectors.chat_for_player(player=request.user, table=table, after=after))

    @extend_schema(summary="Write in the chat of a table I sit at (game client)", request=ChatPostSerializer,
                   responses={201: ChatMessageSerializer, **ERRORS, **THROTTLED})
    def post(self, request, code: str):
        table = _table_or_404(code)
        body = _body(request)
        require_presence(request, table)
        return _posted(request, services.chat_post(player=request.user, table=table, body=body))


class HostChatApi(APIView):
    permission_classes = [STUDIO]

    @extend_schema(summary="A table's whole chat, for the host (studio)", parameters=[AFTER],
                   responses={200: ChatMessagesSerializer, **ERRORS})
    def get(self, request, code: str):
        table = _table_or_404(code)
        return _listed(request, selectors.chat_for_studio(table=table, after=_after(request)))

    @extend_schema(summary="The host writes to everyone at a table (studio)", request=ChatPostSerializer,
                   responses={201: ChatMessageSerializer, **ERRORS})
    def post(self, request, code: str):
        table = _table_or_404(code)
        body = _body(request)
        return _posted(request, services.chat_host_post(actor=request.user, table=table, body=body))

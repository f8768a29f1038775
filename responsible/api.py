"""For game clients: the player's responsible-gambling state (limits with pending changes, whether they may play,
the session and its reality check) and their answer to a reality check."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api_permissions import role_permission
from casino.api_errors import ApiErrorSerializer
from responsible import services
from responsible.models import RealityCheckChoice
from responsible.overview import overview

PLAYER = role_permission("play")


class ResponsibleLimitSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="deposit, loss or session")
    period = serializers.CharField(help_text="day, week, month or session")
    currency = serializers.CharField(help_text="empty for a session limit")
    name = serializers.CharField()
    value = serializers.IntegerField(allow_null=True, help_text="minor units, or minutes; null: no limit")
    pending_value = serializers.IntegerField(allow_null=True)
    pending_at = serializers.DateTimeField(allow_null=True, help_text="when the pending change takes effect")


class SessionNetSerializer(serializers.Serializer):
    currency = serializers.CharField()
    net = serializers.IntegerField(help_text="cash returned minus cash staked in the session, minor units")


class RealityCheckStateSerializer(serializers.Serializer):
    interval_minutes = serializers.IntegerField(allow_null=True)
    due = serializers.BooleanField(help_text="show the check now; bets are refused (409) until it is answered")
    session_started_at = serializers.DateTimeField(allow_null=True)
    played_minutes = serializers.IntegerField()
    net = SessionNetSerializer(many=True)


class ResponsibleStateSerializer(serializers.Serializer):
    jurisdiction = serializers.CharField()
    may_play = serializers.BooleanField()
    refusal = serializers.CharField(help_text="why not, when may_play is false")
    limits = ResponsibleLimitSerializer(many=True)
    reality_check = RealityCheckStateSerializer()


def _state(player) -> dict:
    o = overview(player=player)
    return {
        "jurisdiction": o.jurisdiction.code, "may_play": not o.refusal, "refusal": o.refusal,
        "limits": [row.__dict__ for row in o.limits],
        "reality_check": {
            "interval_minutes": o.reality_check_minutes, "due": o.reality_check_due,
            "session_started_at": o.session.started_at if o.session else None, "played_minutes": o.played_minutes,
            "net": [{"currency": c, "net": n} for c, n in (o.session.net().items() if o.session else [])],
        },
    }


class RealityCheckAnswerSerializer(serializers.Serializer):
    choice = serializers.ChoiceField(choices=RealityCheckChoice.choices)


class MyState(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="My limits, exclusions and reality check", responses=ResponsibleStateSerializer)
    def get(self, request):
        return Response(ResponsibleStateSerializer(_state(request.user)).data)


class RealityCheckAnswerApi(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="Answer the reality check (continue or stop)", request=RealityCheckAnswerSerializer,
                   responses={200: ResponsibleStateSerializer, 400: ApiErrorSerializer})
    def post(self, request):
        serializer = RealityCheckAnswerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.reality_check_answer(player=request.user, choice=serializer.validated_data["choice"])
        return Response(ResponsibleStateSerializer(_state(request.user)).data)

"""Read-only table configuration for game clients: what is played, the limits and the paytables with their RTP."""

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from tables import rtp, selectors, services
from tables.models import Table, TableState


class TableSummarySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    profile = serializers.CharField()
    state = serializers.CharField()
    seats = serializers.IntegerField(allow_null=True, help_text="null: unlimited players on a common draw")
    currencies = serializers.ListField(child=serializers.CharField())
    version = serializers.IntegerField(source="config_version")


class LimitSerializer(serializers.Serializer):
    min = serializers.IntegerField(help_text="minor units")
    max = serializers.IntegerField(help_text="minor units")
    chips = serializers.ListField(child=serializers.IntegerField(), help_text="minor units")


class PaytableSerializer(serializers.Serializer):
    side_bet = serializers.CharField()
    paytable = serializers.DictField(child=serializers.IntegerField(), help_text='pays "to 1" per outcome line')
    rtp_percent = serializers.CharField(help_text="exact RTP for the table's deck count, 4 decimals")


class TableDetailSerializer(TableSummarySerializer):
    version = serializers.IntegerField()
    rules = serializers.DictField(help_text="the rules engine's Rules.to_dict()")
    features = serializers.DictField(child=serializers.BooleanField())
    timers = serializers.DictField(child=serializers.IntegerField())
    side_bets = PaytableSerializer(many=True)
    limits = serializers.DictField(
        child=serializers.DictField(child=LimitSerializer()), help_text="bet type -> currency -> limits"
    )


class TableListApi(APIView):
    @extend_schema(
        responses=TableSummarySerializer(many=True),
        parameters=[OpenApiParameter("state", str, enum=TableState.values, required=False)],
        summary="Tables and their state",
    )
    def get(self, request):
        state = request.query_params.get("state")
        if state is not None and state not in TableState.values:
            raise serializers.ValidationError({"state": f"must be one of {', '.join(TableState.values)}"})
        tables = selectors.tables_list(state=state)
        return Response(TableSummarySerializer(tables, many=True).data)


class TableDetailApi(APIView):
    @extend_schema(responses=TableDetailSerializer, summary="One table's rules, limits and paytables")
    def get(self, request, code: str):
        try:
            table = selectors.table_detail(code=code)
        except Table.DoesNotExist:
            raise Http404 from None
        snapshot = services.table_config_snapshot(table)
        decks = snapshot["rules"]["decks"]
        data = {
            **snapshot,
            "state": table.state,
            "side_bets": [
                {"side_bet": bet, "paytable": lines,
                 "rtp_percent": rtp.percent(rtp.side_bet_rtp(bet, lines, decks))}
                for bet, lines in snapshot["paytables"].items()
            ],
        }
        return Response(TableDetailSerializer(data).data)

"""For game clients: the player's settings (every device reads and writes the same stored preferences) and a
table's help (its rules, paytables, limits and RTPs, in English or Swedish)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api_permissions import role_permission
from casino.api_fields import JsonBooleanField, JsonIntegerField
from players import help as table_help_text
from players import selectors, services
from players.models import LANGUAGE_CHOICES, VideoQuality

PLAYER = role_permission("play")


class SettingsSerializer(serializers.Serializer):
    sound_on = JsonBooleanField()
    sound_volume = JsonIntegerField(min_value=0, max_value=100, help_text="the game sound, 0-100")
    dealer_voice = JsonBooleanField()
    voice_volume = JsonIntegerField(min_value=0, max_value=100, required=False,
                                    help_text="the dealer's voice, 0-100, beside the game sound's sound_volume; "
                                              "left as stored when absent")
    video_quality = serializers.ChoiceField(choices=VideoQuality.choices)
    hide_others_chat = JsonBooleanField()
    auto_confirm_bets = JsonBooleanField(
        required=False, help_text="where the table confirms bets when betting time ends; false: I confirm by hand "
                                  "(unconfirmed bets are returned when betting closes)")
    language = serializers.ChoiceField(
        choices=[code for code, _ in LANGUAGE_CHOICES], required=False, allow_blank=True,
        help_text="the language of the player's pages, statement and table help (en, sv; blank: the browser's); "
                  "left as stored when absent")
    chat_disabled = serializers.BooleanField(read_only=True)
    chat_disabled_reason = serializers.CharField(read_only=True)


class MySettings(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="My settings (sound, video, chat, bet confirmation, language)", responses=SettingsSerializer)
    def get(self, request):
        return Response(SettingsSerializer(selectors.player_profile(player=request.user)).data)

    @extend_schema(summary="Store my settings for every device", request=SettingsSerializer,
                   responses=SettingsSerializer)
    def put(self, request):
        serializer = SettingsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        profile = services.player_settings_update(player=request.user, **serializer.validated_data)
        return Response(SettingsSerializer(profile).data)


class HelpSectionSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="game, dealer, decisions, features, timers or rtp")
    heading = serializers.CharField()
    paragraphs = serializers.ListField(child=serializers.CharField())


class HelpPaytableLineSerializer(serializers.Serializer):
    line = serializers.CharField(help_text="the paytable's line, as in the table configuration")
    name = serializers.CharField()
    pays = serializers.IntegerField(help_text="pays this many to 1")
    pays_text = serializers.CharField()


class HelpPaytableSerializer(serializers.Serializer):
    bet = serializers.CharField()
    name = serializers.CharField()
    rule = serializers.CharField()
    rtp = serializers.FloatField(help_text="return to player as a ratio (0.9253), exact to float precision")
    rtp_text = serializers.CharField()
    lines = HelpPaytableLineSerializer(many=True)


class HelpLimitSerializer(serializers.Serializer):
    bet = serializers.CharField()
    name = serializers.CharField()
    currency = serializers.CharField()
    min = serializers.IntegerField(help_text="minor units")
    max = serializers.IntegerField(help_text="minor units")
    min_text = serializers.CharField()
    max_text = serializers.CharField()


class TableHelpSerializer(serializers.Serializer):
    table = serializers.CharField()
    name = serializers.CharField()
    language = serializers.ChoiceField(choices=["en", "sv"])
    game = serializers.CharField()
    profile = serializers.CharField()
    config_version = serializers.IntegerField()
    rules_since = serializers.DateTimeField()
    rules_since_text = serializers.CharField()
    facts = serializers.DictField(help_text="decks, dealing, seats, common_draw, dealer_22_push, "
                                  "double_after_split, charlie_cards, new_shoe_burn, features, timers "
                                  "(betting_seconds, decision_seconds, timeout_rule), rtp (main, insurance) and "
                                  "currencies")
    sections = HelpSectionSerializer(many=True)
    paytables = HelpPaytableSerializer(many=True)
    limits = HelpLimitSerializer(many=True)


class TableHelp(APIView):
    """Any signed-in client: the help a player reads before sitting down."""

    @extend_schema(
        summary="A table's rules, paytables, limits and RTPs for players, in English or Swedish",
        parameters=[OpenApiParameter("lang", str, enum=["en", "sv"], required=False,
                                     description="the language; without it, the one the player chose in "
                                                 "their settings, else the Accept-Language header's")],
        responses=TableHelpSerializer,
    )
    def get(self, request, code: str):
        from tables import selectors as table_selectors
        from tables.models import Table

        try:
            table = table_selectors.table_detail(code=code)
        except Table.DoesNotExist:
            raise NotFound(f"No table {code[:20]}.") from None
        try:
            language = table_help_text.language_of(request)
        except table_help_text.UnknownLanguage as error:
            raise ValidationError({"lang": [str(error)]}) from None
        help = table_help_text.table_help(table=table, language=language)
        response = Response(TableHelpSerializer(help).data)
        response.headers["Content-Language"] = language
        return response

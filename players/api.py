"""The player's settings for game clients: every device reads and writes the same stored preferences."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import has_role_permission, missing_permission_message
from casino.api_fields import JsonBooleanField, JsonIntegerField
from players import selectors, services
from players.models import VideoQuality


class PLAYER(BasePermission):
    message = missing_permission_message("play")

    def has_permission(self, request, view) -> bool:
        return has_role_permission(request.user, "play")


class SettingsSerializer(serializers.Serializer):
    sound_on = JsonBooleanField()
    sound_volume = JsonIntegerField(min_value=0, max_value=100)
    dealer_voice = JsonBooleanField()
    video_quality = serializers.ChoiceField(choices=VideoQuality.choices)
    hide_others_chat = JsonBooleanField()
    chat_disabled = serializers.BooleanField(read_only=True)
    chat_disabled_reason = serializers.CharField(read_only=True)


class MySettings(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="My settings (sound, video, chat)", responses=SettingsSerializer)
    def get(self, request):
        return Response(SettingsSerializer(selectors.player_profile(player=request.user)).data)

    @extend_schema(summary="Store my settings for every device", request=SettingsSerializer,
                   responses=SettingsSerializer)
    def put(self, request):
        serializer = SettingsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        profile = services.player_settings_update(player=request.user, **serializer.validated_data)
        return Response(SettingsSerializer(profile).data)

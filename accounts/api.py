"""API keys: a player creates one per game client and revokes it; support revokes any player's."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.models import ApiToken
from accounts.permissions import has_role_permission, missing_permission_message
from casino.api_fields import JsonStringField


class PLAYER(BasePermission):
    message = missing_permission_message("play")

    def has_permission(self, request, view) -> bool:
        return has_role_permission(request.user, "play")


class ApiTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "revoked_at"]


class ApiTokenCreateSerializer(serializers.Serializer):
    name = JsonStringField(max_length=100, help_text="Which client or device the key is for.")


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown this once: only its digest is stored.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]


class ApiTokens(APIView):
    permission_classes = [PLAYER]

    @extend_schema(summary="My API keys (revoked ones too)", responses=ApiTokenSerializer(many=True))
    def get(self, request):
        return Response(ApiTokenSerializer(selectors.api_tokens_of(user=request.user), many=True).data)

    @extend_schema(summary="Create an API key for a game client (the key is in this answer only)",
                   request=ApiTokenCreateSerializer, responses={201: ApiTokenCreatedSerializer})
    def post(self, request):
        serializer = ApiTokenCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = services.api_token_create(user=request.user, name=serializer.validated_data["name"])
        token.key = key
        return Response(ApiTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED)


class ApiTokenDetail(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Revoke an API key: the owner's own, or any player's for support",
                   responses={204: None})
    def delete(self, request, token_id: int):
        try:
            token = selectors.api_token_get(token_id=token_id)
        except ApiToken.DoesNotExist:
            raise Http404 from None
        if token.user_id != request.user.pk and not has_role_permission(request.user, "lookup_players"):
            raise Http404  # another player's key: not even its existence is told
        try:
            services.api_token_revoke(actor=request.user, token=token)
        except PermissionDenied:
            raise Http404 from None
        return Response(status=status.HTTP_204_NO_CONTENT)

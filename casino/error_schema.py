"""The error body every API answers with (casino.api_errors makes it), as the OpenAPI schema shows it."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(required=False, help_text="per-field problems, for invalid input")


ERRORS = {400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}

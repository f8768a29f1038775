"""The API schema documents, for every operation, the error responses it really gives, all with one body.

Views declare their success responses and the errors of their own rules (400, 409...); the rest follows from what
every view shares: authentication and permissions (401, 403), a path with a parameter or a cursor (404), a request
body (400 for a body that cannot be parsed, 415 for a media type no parser reads), throttles (429) and a database
or cache that cannot answer (503, see casino.api_errors)."""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.pagination import CursorPagination

from casino.api_errors import ApiErrorSerializer

ERROR_DESCRIPTIONS = {
    400: "Invalid input",
    401: "Not signed in (a client that sends credentials the API does not accept)",
    403: "Not signed in, or the role lacks the permission",
    404: "Not found (or not yours)",
    409: "Refused by the state of the game or the wallet",
    415: "Unsupported media type",
    429: "Too many requests",
    503: "Temporarily unavailable; nothing changed, retry",
}


class AutoSchema(SpectacularAutoSchema):
    def _error_codes(self, declared: set[int]) -> set[int]:
        # 400 for every operation: casino.request_guard refuses a control character in any path, query or header
        # before a view runs.
        codes = {code for code in declared if code >= 400} | {400, 401, 403, 503}
        paginator = getattr(self.view, "pagination_class", None)
        if "{" in self.path or (paginator is not None and issubclass(paginator, CursorPagination)):
            codes.add(404)  # a cursor that is not one of ours is not found
        if self.method in ("POST", "PUT", "PATCH") and self.get_request_serializer() is not None:
            codes |= {400, 415}
        if self.view.get_throttles():
            codes.add(429)
        return codes

    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        query = any(parameter.get("in") == "query" for parameter in operation.get("parameters", []))
        if query and "400" not in operation["responses"]:
            # A query parameter that is not one of its values (a state, a page size) is invalid input.
            operation["responses"]["400"] = self._get_response_for_code(
                OpenApiResponse(ApiErrorSerializer, description=ERROR_DESCRIPTIONS[400]), "400")
            operation["responses"] = dict(sorted(operation["responses"].items()))
        return operation

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        # DRF refuses an empty string unless a field allows it; the schema should say so.
        if (isinstance(field, serializers.CharField) and not isinstance(field, serializers.ChoiceField)
                and not field.allow_blank and not field.read_only and direction == "request"
                and schema.get("type") == "string" and "minLength" not in schema):
            schema["minLength"] = 1
        return schema

    def _get_response_bodies(self, direction="response"):
        # Not get_response_serializers: @extend_schema replaces that method on each view it decorates.
        responses = self.get_response_serializers()
        if direction != "response" or responses is None:
            return super()._get_response_bodies(direction)
        if not isinstance(responses, dict):
            success = 204 if self.method == "DELETE" else 201 if self._is_create_operation() else 200
            responses = {success: responses}
        kept = {int(code): value for code, value in responses.items() if int(code) < 400}
        errors = {code: OpenApiResponse(ApiErrorSerializer, description=ERROR_DESCRIPTIONS.get(code, "Error"))
                  for code in sorted(self._error_codes({int(code) for code in responses}))}
        return {str(code): self._get_response_for_code(value, str(code), direction=direction)
                for code, value in {**kept, **errors}.items()}

"""Serializer fields that take JSON's own types only, as the schema says: DRF alone also turns "yes", "1" and
0 into booleans, and "5" or 5.0 into integers, which a client reading the schema would not expect to work."""

from rest_framework import serializers


class JsonBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class JsonIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class JsonStringField(serializers.CharField):
    """DRF's CharField turns 0 or true into "0" and "True"; a string field takes strings only."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)

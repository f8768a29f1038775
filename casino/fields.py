"""Form and serializer fields for whole numbers that read their text through casino.untrusted.

Django's forms.IntegerField and DRF's IntegerField call int() on the text, which takes any script's digits
("١٢" is 12) and, for DRF, up to 1,000 of them; these fields take 0-9 only and stay within a bigint.
"""

from django import forms
from django.core.exceptions import ValidationError
from rest_framework import serializers

from casino.untrusted import MAX_ID, InputError, whole_number_parse


class WholeNumberField(forms.IntegerField):
    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return whole_number_parse(str(value), field=str(self.label or "the number"), minimum=-MAX_ID)
        except InputError:
            raise ValidationError("Enter a whole number, written with the digits 0-9.", code="invalid") from None


class ApiWholeNumberField(serializers.IntegerField):
    def to_internal_value(self, data):
        try:
            return whole_number_parse(data, field=self.field_name or "value", minimum=-MAX_ID)
        except InputError as error:
            raise serializers.ValidationError(error.message, code="invalid") from None

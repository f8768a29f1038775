"""Cursor pages whose page size is checked: a page size that is not a whole number from 1 up is invalid input,
where DRF would quietly serve its default page instead."""

import re

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination

_WHOLE = re.compile(r"[0-9]{1,9}")


class StrictCursorPagination(CursorPagination):
    def get_page_size(self, request):
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        if len(values) > 1 or not _WHOLE.fullmatch(values[0]) or int(values[0]) < 1:
            raise ValidationError({self.page_size_query_param: [
                f"must be one whole number from 1 to {self.max_page_size}"]})
        return min(int(values[0]), self.max_page_size)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1,
                                       "description": f"more than {self.max_page_size} serves {self.max_page_size}"}
        return parameters

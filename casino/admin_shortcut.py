"""The admin's "view on site" shortcut (/admin/r/<content type>/<object>/), answering 404 for a model without a
table: the role-permission holders (accounts.Backoffice and the like) are unmanaged models, and the stock view
queried their missing tables and failed with a 500."""

from django.contrib.contenttypes.models import ContentType
from django.contrib.contenttypes.views import shortcut
from django.http import Http404


def admin_shortcut(request, content_type_id: int, object_id: str):
    content_type = ContentType.objects.filter(pk=content_type_id).first()
    model = content_type.model_class() if content_type is not None else None
    if model is None or not model._meta.managed or not hasattr(model, "get_absolute_url"):
        raise Http404("This kind of record has no page to show.")
    return shortcut(request, content_type_id, object_id)

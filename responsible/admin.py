"""Read-only: these rows are written by responsible.services only (each staff change with its staff action)."""

from django.contrib import admin

from accounts.read_only_admin import ReadOnlyAdmin
from responsible.models import (
    Exclusion,
    ExclusionEnd,
    Jurisdiction,
    JurisdictionChange,
    LimitChange,
    PlayerSettings,
    RealityCheckAnswer,
    RegisterEntry,
)


def _all_fields(model) -> list[str]:
    return [field.name for field in model._meta.fields]


@admin.register(Jurisdiction)
class JurisdictionAdmin(ReadOnlyAdmin):
    list_display = ("code", "name", "cooling_off_hours", "deposit_limit_required", "time_zone", "promotions",
                    "exclusion_end", "version")
    readonly_fields = _all_fields(Jurisdiction)


@admin.register(PlayerSettings)
class PlayerSettingsAdmin(ReadOnlyAdmin):
    list_display = ("player", "jurisdiction", "reality_check_minutes", "updated_at")
    readonly_fields = _all_fields(PlayerSettings)


@admin.register(LimitChange)
class LimitChangeAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "period", "currency", "value", "requested_at", "effective_at", "actor")
    readonly_fields = _all_fields(LimitChange)


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at", "actor")
    readonly_fields = _all_fields(Exclusion)


@admin.register(RegisterEntry)
class RegisterEntryAdmin(ReadOnlyAdmin):
    list_display = ("identity", "added_at", "ends_at", "removed_at")
    readonly_fields = _all_fields(RegisterEntry)


@admin.register(RealityCheckAnswer)
class RealityCheckAnswerAdmin(ReadOnlyAdmin):
    list_display = ("player", "choice", "answered_at")
    readonly_fields = _all_fields(RealityCheckAnswer)


@admin.register(JurisdictionChange)
class JurisdictionChangeAdmin(ReadOnlyAdmin):
    list_display = ("jurisdiction", "version", "actor", "at")
    readonly_fields = _all_fields(JurisdictionChange)


@admin.register(ExclusionEnd)
class ExclusionEndAdmin(ReadOnlyAdmin):
    list_display = ("player", "exclusion", "requested_at", "effective_at", "actor", "withdrawn_at")
    readonly_fields = _all_fields(ExclusionEnd)

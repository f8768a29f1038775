"""Read-only admin: rounds are written only by rounds.services (studio, players, workers), never by hand."""

from django.contrib import admin

from accounts.read_only_admin import ReadOnlyAdmin, ReadOnlyInline
from rounds.models import CardRecord, Decision, Round, RoundBet, RoundEvent, Shoe, Spot


class CardInline(ReadOnlyInline):
    model = CardRecord
    fields = ("position", "target", "seat", "sequence", "card", "recorded_at", "recorded_by")
    readonly_fields = fields


class EventInline(ReadOnlyInline):
    model = RoundEvent
    fields = ("at", "kind", "actor_kind", "actor", "payload")
    readonly_fields = fields


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("game_number", "table", "state", "opened_at", "settled_at", "voided_at")
    list_filter = ("state", "table")
    search_fields = ("game_number",)
    list_select_related = ("table",)
    inlines = [CardInline, EventInline]


@admin.register(Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "decks", "burn_card", "burned", "started_at", "ended_at")
    list_filter = ("table",)


@admin.register(Spot)
class SpotAdmin(ReadOnlyAdmin):
    list_display = ("id", "round", "player", "seat", "behind", "currency", "status", "voided_at")
    search_fields = ("round__game_number", "player__username")
    list_select_related = ("round", "player")


@admin.register(RoundBet)
class RoundBetAdmin(ReadOnlyAdmin):
    list_display = ("id", "round", "spot", "kind", "hand_index", "amount", "currency", "funding", "wallet_bet")
    list_filter = ("kind", "currency")
    search_fields = ("round__game_number",)
    list_select_related = ("round",)


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ("id", "round", "spot", "sequence", "kind", "action", "effective", "funded", "actor_kind")
    search_fields = ("round__game_number",)
    list_select_related = ("round",)

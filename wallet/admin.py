"""Read-only admin: the ledger is written only by wallet.services, never by hand."""

from django.contrib import admin

from accounts.read_only_admin import ReadOnlyAdmin, ReadOnlyInline
from wallet.models import Account, Bet, BetResolution, Entry, LedgerTransaction


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ("account", "amount", "balance_after", "created_at")
    readonly_fields = fields
    show_change_link = True


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "kind", "currency", "balance", "created_at")
    list_filter = ("kind", "currency")
    search_fields = ("player__username",)
    list_select_related = ("player",)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "reference", "actor", "created_at")
    list_filter = ("kind",)
    search_fields = ("reference", "idempotency_key")
    list_select_related = ("actor",)
    inlines = [EntryInline]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "amount", "balance_after", "created_at")
    list_select_related = ("transaction", "account")
    raw_id_fields = ("transaction", "account")


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = ("id", "reference", "kind", "amount", "account", "created_at")
    search_fields = ("reference",)
    list_select_related = ("account",)
    raw_id_fields = ("account", "hold_transaction")


@admin.register(BetResolution)
class BetResolutionAdmin(ReadOnlyAdmin):
    list_display = ("bet", "outcome", "cash_return", "chips_return", "transaction", "created_at")
    list_filter = ("outcome",)
    raw_id_fields = ("bet", "transaction")

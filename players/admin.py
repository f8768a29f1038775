from django.contrib import admin

from accounts.read_only_admin import ReadOnlyAdmin
from players.models import PlayerNote, PlayerProfile, TablePresence


@admin.register(PlayerProfile)
class PlayerProfileAdmin(ReadOnlyAdmin):
    list_display = ("player", "chat_disabled", "video_quality", "updated_at")
    readonly_fields = [field.name for field in PlayerProfile._meta.fields]


@admin.register(PlayerNote)
class PlayerNoteAdmin(ReadOnlyAdmin):
    list_display = ("player", "author", "created_at")
    readonly_fields = ("player", "author", "body", "created_at")


@admin.register(TablePresence)
class TablePresenceAdmin(ReadOnlyAdmin):
    list_display = ("player", "table", "joined_at", "ended_at", "end_reason")
    readonly_fields = [field.name for field in TablePresence._meta.fields]

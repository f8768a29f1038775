from django.contrib import admin

from players.models import PlayerNote, PlayerProfile, TablePresence


@admin.register(PlayerProfile)
class PlayerProfileAdmin(admin.ModelAdmin):
    list_display = ("player", "chat_disabled", "video_quality", "updated_at")
    readonly_fields = [field.name for field in PlayerProfile._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(PlayerNote)
class PlayerNoteAdmin(admin.ModelAdmin):
    list_display = ("player", "author", "created_at")
    readonly_fields = ("player", "author", "body", "created_at")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(TablePresence)
class TablePresenceAdmin(admin.ModelAdmin):
    list_display = ("player", "table", "joined_at", "ended_at", "end_reason")
    readonly_fields = [field.name for field in TablePresence._meta.fields]

    def has_add_permission(self, request):
        return False

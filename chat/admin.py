from django.contrib import admin

from accounts.read_only_admin import ReadOnlyAdmin
from chat.models import ChatMessage


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    """Staff read the chat here too; nobody edits it (support disables a player's chat from the chat log)."""

    list_display = ("posted_at", "table", "author", "author_kind", "body")
    list_filter = ("author_kind",)
    readonly_fields = ("table", "author", "author_kind", "body", "posted_at")
    list_select_related = ("table", "author")

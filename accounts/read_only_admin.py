"""The admin of what only services write (ledger, rounds, table history, player records): staff may look, no one
may add, change or delete by hand. Anyone who may read the back office may look; so may a superuser."""

from django.contrib import admin

from accounts.permissions import has_role_permission


class BackOfficeReadableAdmin(admin.ModelAdmin):
    """Looking is for whoever reads the back office; what may be written is for each admin to say."""

    def has_module_permission(self, request):
        return has_role_permission(request.user, "view_backoffice") or request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)


class ReadOnlyAdmin(BackOfficeReadableAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

"""The second-factor devices in the admin: a list for a superuser to see who has enrolled, nothing more.

django-otp's own admin adds a page with a device's secret and QR code (a secret that must never be shown again
after enrolment), and answers a device id beyond a bigint with a 500; a lost device is reset with
`manage.py second_factor_reset`, so the admin only lists."""

from django.contrib import admin
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice


class DeviceListAdmin(admin.ModelAdmin):
    list_display = ("user", "name", "confirmed")
    list_select_related = ("user",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


for device_model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(device_model):
        admin.site.unregister(device_model)
    admin.site.register(device_model, DeviceListAdmin)

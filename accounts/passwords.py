"""Staff passwords follow stricter rules than players': each of Django's validators, applied to staff only."""

from django.contrib.auth import password_validation

from accounts.permissions import is_staff_user


class _StaffOnly:
    def validate(self, password, user=None):
        if user is not None and is_staff_user(user):
            super().validate(password, user)

    def get_help_text(self):
        return f"For staff: {super().get_help_text()}"


class StaffMinimumLengthValidator(_StaffOnly, password_validation.MinimumLengthValidator):
    pass


class StaffUserAttributeSimilarityValidator(_StaffOnly, password_validation.UserAttributeSimilarityValidator):
    pass


class StaffNumericPasswordValidator(_StaffOnly, password_validation.NumericPasswordValidator):
    pass

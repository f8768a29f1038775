from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self):
        from accounts import signals, tokens  # noqa: F401 - login receivers; the API key's schema extension

from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    verbose_name = "Players: settings, chat moderation, staff notes, table presence"

    def ready(self) -> None:
        from players import signals  # noqa: F401 - connects the receivers

from django.apps import AppConfig


class ResponsibleConfig(AppConfig):
    name = "responsible"
    verbose_name = "Responsible gambling: limits, time-outs, self-exclusion, reality checks"

    def ready(self) -> None:
        from responsible import signals  # noqa: F401 - connects the receivers

"""The navigation each role sees. Apps add their pages here as they grow."""

from dataclasses import dataclass

from django.conf import settings
from django.core.signals import setting_changed
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.translation import gettext_lazy

from accounts.permissions import has_role_permission


@dataclass(frozen=True)
class NavItem:
    label: str  # lazy for the player's pages: read in the language the page renders in
    url_name: str
    permission: str | None  # None: every signed-in user


NAV_ITEMS: list[NavItem] = [
    NavItem(gettext_lazy("Home"), "home", None),
    NavItem("Search", "backoffice_search", "view_backoffice"),
    NavItem("Chat log", "chat_log", "view_backoffice"),
    NavItem("Dashboard", "backoffice_dashboard", "view_dashboard"),
    NavItem("RTP report", "backoffice_rtp", "view_dashboard"),
    NavItem("GGR report", "backoffice_ggr", "view_dashboard"),
    NavItem("Reconciliation", "backoffice_reconciliation", "view_dashboard"),
    NavItem("Worker health", "worker_health", "view_dashboard"),
    NavItem("Staff activity", "staff_activity", "view_staff_activity"),
    NavItem("Tables", "tables_list", "view_backoffice"),
    NavItem(gettext_lazy("Play"), "player_tables", "play"),
    NavItem(gettext_lazy("My games"), "player_games", "play"),
    NavItem(gettext_lazy("My account"), "wallet_home", "play"),
    NavItem(gettext_lazy("Statement"), "player_statement", "play"),
    NavItem(gettext_lazy("Cashier"), "wallet_cashier", "play"),
    NavItem(gettext_lazy("Settings"), "player_settings", "play"),
    NavItem(gettext_lazy("Responsible gambling"), "responsible_page", "play"),
    NavItem("Exclusion register", "responsible_register", "lookup_players"),
    NavItem("Player wallets", "wallet_players", "view_backoffice"),
]


def _nav_urls() -> list[tuple[NavItem, str]]:
    """Every item with its address, reversed once per URL configuration and script prefix rather than on every
    page; an item whose page is not installed is left out."""
    key = (get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
    urls = _URLS.get(key)
    if urls is None:
        urls = []
        for item in NAV_ITEMS:
            try:
                urls.append((item, reverse(item.url_name)))
            except NoReverseMatch:
                continue
        _URLS[key] = urls
    return urls


_URLS: dict[tuple[str, str], list[tuple[NavItem, str]]] = {}


def _urls_changed(*, setting, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _URLS.clear()


setting_changed.connect(_urls_changed, dispatch_uid="accounts.navigation.urls_changed")


def nav_items_for(user, *, current: str | None = None) -> list[dict]:
    """The items the user may open; `current` (a URL name) marks the page being shown."""
    allowed: dict[str, bool] = {}  # each permission asked once, not once per item
    items = []
    for item, url in _nav_urls():
        if item.permission:
            if item.permission not in allowed:
                allowed[item.permission] = has_role_permission(user, item.permission)
            if not allowed[item.permission]:
                continue
        items.append({"label": item.label, "url": url, "url_name": item.url_name, "current": item.url_name == current})
    return items

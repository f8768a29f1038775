"""The navigation each role sees. Apps add their pages here as they grow."""

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse
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


def nav_items_for(user) -> list[dict]:
    items = []
    for item in NAV_ITEMS:
        if item.permission and not has_role_permission(user, item.permission):
            continue
        try:
            url = reverse(item.url_name)
        except NoReverseMatch:
            continue
        items.append({"label": item.label, "url": url, "url_name": item.url_name})
    return items

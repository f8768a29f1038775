"""The navigation each role sees. Apps add their pages here as they grow."""

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse

from accounts.permissions import has_role_permission


@dataclass(frozen=True)
class NavItem:
    label: str
    url_name: str
    permission: str | None  # None: every signed-in user


NAV_ITEMS: list[NavItem] = [
    NavItem("Home", "home", None),
    NavItem("Search", "backoffice_search", "view_backoffice"),
    NavItem("Chat log", "chat_log", "view_backoffice"),
    NavItem("Dashboard", "backoffice_dashboard", "view_dashboard"),
    NavItem("RTP report", "backoffice_rtp", "view_dashboard"),
    NavItem("GGR report", "backoffice_ggr", "view_dashboard"),
    NavItem("Reconciliation", "backoffice_reconciliation", "view_dashboard"),
    NavItem("Worker health", "worker_health", "view_dashboard"),
    NavItem("Staff activity", "staff_activity", "view_staff_activity"),
    NavItem("Tables", "tables_list", "view_backoffice"),
    NavItem("Play", "player_tables", "play"),
    NavItem("My games", "player_games", "play"),
    NavItem("My account", "wallet_home", "play"),
    NavItem("Statement", "player_statement", "play"),
    NavItem("Cashier", "wallet_cashier", "play"),
    NavItem("Settings", "player_settings", "play"),
    NavItem("Responsible gambling", "responsible_page", "play"),
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

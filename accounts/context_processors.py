from accounts.navigation import nav_items_for
from accounts.selectors import user_role


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "user_role": None}
    current = getattr(getattr(request, "resolver_match", None), "url_name", None)
    return {"nav_items": nav_items_for(user, current=current), "user_role": user_role(user)}

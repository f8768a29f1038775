from accounts.navigation import nav_items_for
from accounts.selectors import user_role


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "user_role": None}
    return {"nav_items": nav_items_for(user), "user_role": user_role(user)}

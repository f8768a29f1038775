"""Django's login signals, which every door sends (the login page, the admin's, a test client's login): each
writes its login record, and a login starts the session's clocks. Connected in AccountsConfig.ready."""

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver

from accounts import selectors, services
from accounts.middleware import PASSWORD_CHANGE_KEY, session_start
from accounts.models import LoginEvent
from accounts.permissions import is_staff_user


@receiver(user_logged_in, dispatch_uid="accounts_login")
def _logged_in(sender, request, user, **kwargs):
    if request is None:
        return
    session_start(request, staff=is_staff_user(user))
    if selectors.password_change_demanded(user=user):
        request.session[PASSWORD_CHANGE_KEY] = True
    services.login_record_write(event=LoginEvent.LOGIN, request=request, username=user.get_username(), user=user,
                                detail="password")


@receiver(user_logged_out, dispatch_uid="accounts_logout")
def _logged_out(sender, request, user, **kwargs):
    if request is None or user is None:
        return
    services.login_record_write(event=LoginEvent.LOGOUT, request=request, username=user.get_username(), user=user,
                                detail=getattr(request, "session_end_reason", "logged out"))


@receiver(user_login_failed, dispatch_uid="accounts_login_failed")
def _login_failed(sender, credentials, request=None, **kwargs):
    from django.contrib.auth import get_user_model

    username = str(credentials.get("username", ""))
    user = get_user_model().objects.filter(username=username).first() if username else None
    # django-axes handles the same signal first: it counts this failure (axes_failures_since_start) and flags the
    # request when that locked it; a try while already locked is flagged without being counted.
    detail = "wrong username or password"
    if getattr(request, "axes_locked_out", False):
        counted = getattr(request, "axes_failures_since_start", None) is not None
        detail = f"{detail}; now locked out" if counted else "refused: locked out (password not checked)"
    services.login_record_write(event=LoginEvent.LOGIN_FAILED, request=request, username=username, user=user,
                                detail=detail)

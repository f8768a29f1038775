"""Signing a known user into a Django test client without their password, as far as a real login goes: the
test suite's `client_for` and the simulator's in-process API transport. Staff also pass their second factor,
on a real enrolled authenticator, the way django-otp records it in the session."""

from django.conf import settings
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import services
from accounts.permissions import is_staff_user


def totp_code_now(device: TOTPDevice) -> str:
    """The code the authenticator app shows at this moment."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    return f"{totp.token():0{device.digits}d}"


def staff_authenticator(*, user) -> TOTPDevice:
    """The user's confirmed authenticator, enrolled now (with the code an app would show) if they have none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    if device is None:
        device = services.second_factor_enrolment_start(user=user)
        if services.second_factor_enrolment_confirm(user=user, device=device, token=totp_code_now(device)) is None:
            raise RuntimeError(f"The authenticator enrolled for {user.get_username()} refused its own code")
        device.refresh_from_db()
    return device


def client_sign_in(client, user, *, second_factor: bool = True) -> None:
    """Signs `user` into the test client through django.contrib.auth.login, so every login receiver (the
    session's clocks, the login record, the responsible-gambling checks) writes the session as a real login
    does; staff also pass their second factor unless `second_factor` is False (a stolen password's state).

    What Client.force_login adds around that login is left out: it saves an empty session first (the client's
    `session` property does, for a client without a cookie) which the login then replaces and deletes, and the
    second factor cost a further read and write of the session. Here the session is written once, with the
    device in it. The test suite signs in about 700 clients per run; this is a third of each one's statements."""
    from importlib import import_module

    from django.contrib.auth import login
    from django.http import HttpRequest

    request = HttpRequest()
    # A client that already holds a session keeps it through the login, as with force_login.
    if client.cookies.get(settings.SESSION_COOKIE_NAME):
        request.session = client.session
    else:
        request.session = import_module(settings.SESSION_ENGINE).SessionStore()
    login(request, user, backend=settings.ROLE_BACKEND)
    if second_factor and is_staff_user(user):
        # What django_otp.login stores once a code is verified.
        request.session[DEVICE_ID_SESSION_KEY] = staff_authenticator(user=user).persistent_id
    request.session.save()
    client._set_login_cookies(request)

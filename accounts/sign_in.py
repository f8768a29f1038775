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


def client_sign_in(client, user) -> None:
    client.force_login(user, backend=settings.ROLE_BACKEND)
    if is_staff_user(user):
        session = client.session
        # What django_otp.login stores once a code is verified.
        session[DEVICE_ID_SESSION_KEY] = staff_authenticator(user=user).persistent_id
        session.save()

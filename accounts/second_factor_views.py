"""Staff's second step after the password: enrolling an authenticator app once, then a code at each login."""

from base64 import b32encode

import segno
from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_http_methods
from django_otp import login as otp_login

from accounts import selectors, services
from accounts.models import LoginEvent
from accounts.permissions import is_staff_user


class CodeForm(forms.Form):
    code = forms.CharField(label="Code", max_length=20, strip=True,
                           widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "text",
                                                         "autofocus": True, "spellcheck": "false"}))


def _next_url(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return target
    return reverse("home")


def _with_next(url_name: str, next_url: str) -> str:
    return f"{reverse(url_name)}?{urlencode({'next': next_url})}"


def _verified(request, device, *, detail: str) -> None:
    otp_login(request, device)
    # The session now carries more than a password: a new key, so a key seen before this step is worth nothing.
    request.session.cycle_key()
    services.login_record_write(event=LoginEvent.SECOND_FACTOR, request=request,
                                username=request.user.get_username(), user=request.user, detail=detail)


@login_required
@require_http_methods(["GET", "POST"])
def second_factor_verify(request):
    next_url = _next_url(request)
    if not is_staff_user(request.user) or request.user.is_verified():
        return redirect(next_url)
    if not selectors.second_factor_enrolled(user=request.user):
        return redirect(_with_next("second_factor_enrol", next_url))
    form = CodeForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        device, reason = services.second_factor_verify(user=request.user, token=form.cleaned_data["code"])
        if device is not None:
            kind = "authenticator code" if device.__class__.__name__ == "TOTPDevice" else "recovery code"
            _verified(request, device, detail=kind)
            return redirect(next_url)
        services.login_record_write(event=LoginEvent.SECOND_FACTOR_FAILED, request=request,
                                    username=request.user.get_username(), user=request.user, detail=reason)
        form.add_error("code", reason)
    if request.method == "POST":
        status = 400
    return render(request, "accounts/second_factor_verify.html",
                  {"form": form, "next": next_url,
                   "recovery_codes_left": selectors.recovery_codes_left(user=request.user)}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def second_factor_enrol(request):
    next_url = _next_url(request)
    if not is_staff_user(request.user) or request.user.is_verified():
        return redirect(next_url)
    if selectors.second_factor_enrolled(user=request.user):
        return redirect(_with_next("second_factor_verify", next_url))
    device = services.second_factor_enrolment_start(user=request.user)
    form = CodeForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            codes = services.second_factor_enrolment_confirm(user=request.user, device=device,
                                                             token=form.cleaned_data["code"])
            if codes is not None:
                device.refresh_from_db()
                _verified(request, device, detail="authenticator enrolled")
                return render(request, "accounts/recovery_codes.html", {"codes": codes, "next": next_url})
            form.add_error("code", "That code does not match: check the phone's clock and type the newest code.")
    secret = b32encode(device.bin_key).decode()
    context = {
        "form": form, "next": next_url, "qr_svg": segno.make(device.config_url, error="m").svg_inline(scale=5),
        "secret": " ".join(secret[i:i + 4] for i in range(0, len(secret), 4)),
    }
    return render(request, "accounts/second_factor_enrol.html", context, status=status)

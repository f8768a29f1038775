"""A DEBUG=0 server serves the pages' stylesheet and htmx itself (WhiteNoise), under names carrying their
content's hash, compressed and cached for good: the same pages as `make run`, with nothing for a proxy to add."""

import gzip
import re
import urllib.request

from django.conf import settings

from tests.helpers import REPO


def fetch(url: str, **headers) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()


def test_a_debug_off_server_serves_css_and_htmx_by_their_hashed_names(live_server):
    assert settings.DEBUG is False
    status, _headers, body = fetch(f"{live_server.url}/login/")
    assert status == 200
    page = body.decode()
    links = {
        "css/app.css": re.search(r'<link rel="stylesheet" href="([^"]+)"', page).group(1),
        "js/htmx.min.js": re.search(r'<script src="([^"]+htmx[^"]*)"', page).group(1),
    }
    for source, link in links.items():
        stem, suffix = source.rsplit(".", 1)
        assert re.fullmatch(rf"/static/{re.escape(stem)}\.[0-9a-f]{{12}}\.{suffix}", link), link
        status, headers, body = fetch(f"{live_server.url}{link}", **{"Accept-Encoding": "gzip"})
        assert status == 200
        assert headers["content-encoding"] == "gzip"
        assert "immutable" in headers["cache-control"] and "max-age=315360000" in headers["cache-control"]
        assert gzip.decompress(body) == (REPO / "static" / source).read_bytes()
        # A client that takes no compression gets the file as it is.
        status, headers, body = fetch(f"{live_server.url}{link}")
        assert "content-encoding" not in headers and body == (REPO / "static" / source).read_bytes()


def test_an_unknown_static_name_is_a_plain_404(live_server):
    import urllib.error

    try:
        fetch(f"{live_server.url}/static/css/app.000000000000.css")
    except urllib.error.HTTPError as error:
        assert error.code == 404
    else:
        raise AssertionError("a made-up hashed name was served")

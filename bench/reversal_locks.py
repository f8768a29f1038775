"""How long a reversal of a big round holds one player's account: probes lock the first, middle and last
player's cash account in short transactions of their own while staff reverse the round, and report the longest
wait. Runs on DATABASE_URL (migrated first); makes its own table, players and round.

    DATABASE_URL=... .venv/bin/python bench/reversal_locks.py --players 2000
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    call_command("migrate", verbosity=0)
    from accounts.services import roles_sync, user_create
    from rounds import services
    from tables import services as table_services
    from wallet import services as wallet
    from wallet.models import Account

    roles_sync()
    tag = uuid.uuid4().hex[:6]
    staff = user_create(username=f"bench_op_{tag}", password="x", role="operator")
    table = table_services.table_create(actor=None, profile="free_bet", code=f"B{tag[:4]}".upper(),
                                        name=f"Reversal bench {tag}", currencies=["EUR"], state="open",
                                        betting_seconds=120, decision_seconds=60)
    players = []
    for i in range(args.players):
        player = user_create(username=f"bench_{tag}_{i}", password="x", role="player")
        wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key=f"{tag}-dep-{i}")
        players.append(player)
    round = services.round_open(table=table, actor=staff)
    for i, player in enumerate(players):
        services.bets_place(round_id=round.pk, player=player, currency="EUR", bets={"main": 1000},
                            idempotency_key=f"{tag}-bet-{i}")
    services.round_betting_close(round_id=round.pk, actor=staff)
    for card in ("8h", "9s", "8d", "7c"):
        services.card_record(round_id=round.pk, card=card, actor=staff)
    for i, player in enumerate(players):
        services.decision_make(round_id=round.pk, player=player, action="stand", idempotency_key=f"{tag}-d-{i}")
    services.card_record(round_id=round.pk, card="Tc", actor=staff)
    services.dealer_complete(round_id=round.pk, actor=staff)
    services.round_settle(round_id=round.pk)

    ordered = sorted(players, key=lambda p: p.pk)
    probes = {"first": ordered[0], "middle": ordered[len(ordered) // 2], "last": ordered[-1]}
    account_ids = {name: Account.objects.get(player=p, kind="player_cash", currency="EUR").pk
                   for name, p in probes.items()}
    stop = threading.Event()
    longest = dict.fromkeys(probes, 0.0)

    def probe(name: str) -> None:
        try:
            while not stop.is_set():
                started = time.monotonic()
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute("SELECT id FROM wallet_account WHERE id = %s FOR UPDATE", [account_ids[name]])
                longest[name] = max(longest[name], time.monotonic() - started)
                time.sleep(0.002)
        finally:
            connection.close()

    threads = [threading.Thread(target=probe, args=(name,)) for name in probes]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    services.round_reverse(round_id=round.pk, actor=staff, reason="reversal bench")
    elapsed = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join()
    print(f"players={args.players} reversal={elapsed:.2f}s longest account wait: "
          + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in longest.items()))


if __name__ == "__main__":
    main()

"""Our own round scripts for rules.md cases the shared vectors do not cover. Expectations are worked by hand
from rules.md (the comment on each says how), never copied from the engine's output."""

from typing import Any


def seat(actions: list[str], pid: str = "p1", **fields: Any) -> dict[str, Any]:
    bets = fields.pop("bets", {"main": 1000})
    return {"id": pid, "bets": bets, "actions": actions, **fields}


def vector(
    vid: str, rules: str, player: str, dealer: str, stream: str, players: list[dict[str, Any]], expect: dict
) -> dict[str, Any]:
    return {
        "id": vid,
        "rules": rules,
        "cards": {"player": player.split(), "dealer": dealer.split(), "stream": stream.split()},
        "players": players,
        "expect": expect,
    }


VECTORS: list[dict[str, Any]] = [
    # EU, ace up, dealer blackjack at the end takes every real stake: both split hands doubled -> 2 x 2000 lost.
    vector(
        "O01",
        "classic_eu",
        "8h 8d",
        "As Kc",
        "3c Td 2s 9h",
        [seat(["split", "double", "double"])],
        {"p1": {"hands": [-2000, -2000]}},
    ),
    # EU, ten up: the doubled portions come back, the original split stakes are lost.
    vector(
        "O02",
        "classic_eu",
        "8h 8d",
        "Ks Ac",
        "3c Td 2s 9h",
        [seat(["split", "double", "double"])],
        {"p1": {"hands": [-1000, -1000]}},
    ),
    # EU, ten up: a busted doubled hand is lost in full before the reveal (T-2 doubled, K: 22).
    vector("O03", "classic_eu", "Th 2d", "Ks Ac", "Kc", [seat(["double"])], {"p1": {"hands": [-2000]}}),
    # Ten Card Charlie: A2 + A 2 A 2 A 2 A 3 = ten cards, 16, beats a dealer 19.
    vector(
        "O04",
        "classic_eu",
        "Ah 2d",
        "Ts 9c",
        "Ac 2c Ad 2h As 2s Ah 3c",
        [seat(["hit"] * 8)],
        {"p1": {"hands": [1000]}},
    ),
    # Six Card Charlie (2 3 2 A 4 3 = 15) wins against a dealer 22...
    vector(
        "O05", "free_bet", "2h 3d", "6s 6c Tc", "2c Ah 4d 3s", [seat(["hit"] * 4)], {"p1": {"hands": [1000]}}
    ),
    # ...and against a dealer blackjack found at the end.
    vector(
        "O06", "free_bet", "2h 3d", "Ts Ac", "2c Ah 4d 3s", [seat(["hit"] * 4)], {"p1": {"hands": [1000]}}
    ),
    # Free split: dealer 22 pushes hand 1 and leaves free hand 2 at 0.
    vector(
        "O07",
        "free_bet",
        "9h 9d",
        "6s 6c Td",
        "Ts 8c",
        [seat(["split", "stand", "stand"])],
        {"p1": {"hands": [0, 0]}},
    ),
    # 10-value pair split with real money: hand 2 wins a real 1x.
    vector(
        "O08",
        "free_bet",
        "Kh Qd",
        "7s Tc",
        "9c 8d",
        [seat(["split", "stand", "stand"])],
        {"p1": {"hands": [1000, 1000]}},
    ),
    # ...and loses a real 1x (19 pushes 19, 18 loses).
    vector(
        "O09",
        "free_bet",
        "Kh Qd",
        "9s Tc",
        "9c 8d",
        [seat(["split", "stand", "stand"])],
        {"p1": {"hands": [0, -1000]}},
    ),
    # Golden Chips: reported like a cash hand.
    vector(
        "O10",
        "classic_eu",
        "Th 9d",
        "7s Tc",
        "",
        [seat(["stand"], bets={"golden_chip": 1000})],
        {"p1": {"hands": [1000]}},
    ),
    vector(
        "O11",
        "classic_eu",
        "Th 9d",
        "Ts Kc",
        "",
        [seat(["stand"], bets={"golden_chip": 1000})],
        {"p1": {"hands": [-1000]}},
    ),
    vector(
        "O12",
        "classic_eu",
        "Th 9d",
        "9s Tc",
        "",
        [seat(["stand"], bets={"golden_chip": 1000})],
        {"p1": {"hands": [0]}},
    ),
    vector(
        "O13",
        "classic_eu",
        "As Kd",
        "9s 8c",
        "",
        [seat([], bets={"golden_chip": 1000})],
        {"p1": {"hands": [1500]}},
    ),
    # Golden Chip position doubles with cash: 11 + T = 21 beats 17, winning on chips and cash.
    vector(
        "O14",
        "classic_eu",
        "6h 5d",
        "7s Tc",
        "Tc",
        [seat(["double"], bets={"golden_chip": 1000}, balance=5000)],
        {"p1": {"hands": [2000]}},
    ),
    # Bet Behind that cannot fund the double takes the same card at single stake.
    vector(
        "O15",
        "classic_eu",
        "6h 5d",
        "7s Tc",
        "9c",
        [seat(["double"]), {"id": "bb", "bets": {"main": 1000}, "behind": True, "balance": 0}],
        {"p1": {"hands": [2000]}, "bb": {"hands": [1000]}},
    ),
    # Bet Behind that cannot fund the split follows hand 1 only (9 2, then hit-and-stand on the double: 21).
    vector(
        "O16",
        "classic_eu",
        "9h 9d",
        "5s Tc 3d",
        "2c Kd 7h",
        [
            seat(["split", "double", "stand"], pid="seat"),
            {"id": "bb", "bets": {"main": 1000}, "behind": True, "balance": 0},
        ],
        {"seat": {"hands": [2000, -1000]}, "bb": {"hands": [1000]}},
    ),
    # Bet Behind funds the split (balance 1000) but not the double after it.
    vector(
        "O17",
        "classic_eu",
        "9h 9d",
        "5s Tc 3d",
        "2c Kd 7h",
        [
            seat(["split", "double", "stand"], pid="seat"),
            {"id": "bb", "bets": {"main": 1000}, "behind": True, "balance": 1000},
        ],
        {"seat": {"hands": [2000, -1000]}, "bb": {"hands": [1000, -1000]}},
    ),
    # The seat places no bet: the Bet Behind is refunded (0) and the seat has nothing to report.
    vector(
        "O18",
        "classic_eu",
        "Th 9d",
        "7s Tc",
        "",
        [{"id": "seat", "bets": {}, "actions": []}, {"id": "bb", "bets": {"main": 1000}, "behind": True}],
        {"bb": {"hands": [0]}},
    ),
    # Bet Behind follows free doubles and free splits with its own free bet, whatever its balance.
    vector(
        "O19",
        "free_bet_seated",
        "8h 8d",
        "Ts 7c",
        "3c Th Td",
        [
            seat(["split", "hit", "stand"], pid="seat"),
            {"id": "bb", "bets": {"main": 400}, "behind": True, "balance": 0},
        ],
        {"seat": {"hands": [1000, 1000]}, "bb": {"hands": [400, 400]}},
    ),
    # Timeouts: 4-4 is 8 -> HIT (never a split), 13 -> STAND.
    vector(
        "O20", "free_bet", "4h 4d", "Ts 7c", "5c", [seat(["timeout", "timeout"])], {"p1": {"hands": [-1000]}}
    ),
    # Timeout on each split hand: 8+3 = 11 HIT (21), 8+5 = 13 STAND.
    vector(
        "O21",
        "free_bet",
        "8h 8d",
        "Ts 7c",
        "3c Th 5d",
        [seat(["split", "timeout", "timeout"])],
        {"p1": {"hands": [1000, 0]}},
    ),
    # Classic timeout is STAND, even on 5.
    vector("O22", "classic_eu", "3h 2d", "7s Tc", "", [seat(["timeout"])], {"p1": {"hands": [-1000]}}),
    # Unfunded paid split below 11: HIT (4-4 -> 14), then a decision.
    vector(
        "O23",
        "classic_eu",
        "4h 4d",
        "7s Tc",
        "6c",
        [seat(["split", "stand"], balance=0)],
        {"p1": {"hands": [-1000]}},
    ),
    # Free split and free double need no balance.
    vector(
        "O24",
        "free_bet",
        "8h 8d",
        "Ts 7c",
        "3c Th Td",
        [seat(["split", "hit", "stand"], balance=0)],
        {"p1": {"hands": [1000, 1000]}},
    ),
    vector(
        "O25", "free_bet", "6h 5d", "6s Tc 7d", "Th", [seat(["double"], balance=0)], {"p1": {"hands": [2000]}}
    ),
    # A-8 is not a hard 9: a paid double, so a loss costs 2x.
    vector("O26", "free_bet", "Ah 8d", "7s Tc", "7c", [seat(["double"])], {"p1": {"hands": [-2000]}}),
    # Dealer 22 pushes a paid doubled hand.
    vector("O27", "free_bet", "Ah 7d", "5s 7c Td", "3c", [seat(["double"])], {"p1": {"hands": [0]}}),
    # A busted hand loses against a dealer 22.
    vector("O28", "free_bet", "Th 6d", "6s 6c Tc", "9c", [seat(["hit"])], {"p1": {"hands": [-1000]}}),
    # Peek before, ace up: blackjack ends the round; insurance pays 2:1.
    vector(
        "O29",
        "classic_us_peek_before",
        "Th 9d",
        "As Kc",
        "",
        [seat([], insurance=True)],
        {"p1": {"hands": [-1000], "insurance": 1000}},
    ),
    # Peek before, 10 up, no blackjack: the round is played normally.
    vector(
        "O30", "classic_us_peek_before", "Th 6d", "Ts 7c", "5c", [seat(["hit"])], {"p1": {"hands": [1000]}}
    ),
    # Peek after, ace up, blackjack at the end takes the doubled stake too.
    vector(
        "O31", "classic_us_peek_after", "6h 5d", "As Kc", "Tc", [seat(["double"])], {"p1": {"hands": [-2000]}}
    ),
    # EU: every hand busted, the dealer's second card is never dealt.
    vector("O32", "classic_eu", "Th 6d", "7s", "Kc", [seat(["hit"])], {"p1": {"hands": [-1000]}}),
    # EU: double after split allowed, but split aces take one card each and stop.
    vector(
        "O33", "classic_eu", "Ah Ad", "9s 8c", "Kc 9h", [seat(["split"])], {"p1": {"hands": [1000, 1000]}}
    ),
    # Insurance lost, hand won; balance covers the insurance then the double.
    vector(
        "O34",
        "classic_eu",
        "6h 5d",
        "Ac 6h",
        "Tc",
        [seat(["double"], insurance=True, balance=1500)],
        {"p1": {"hands": [2000], "insurance": -500}},
    ),
    # Insurance eats the balance: the double falls back to a hit.
    vector(
        "O35",
        "classic_eu",
        "6h 5d",
        "Ac 6h",
        "9c",
        [seat(["double", "stand"], insurance=True, balance=1000)],
        {"p1": {"hands": [1000], "insurance": -500}},
    ),
    # Common draw: a Six Card Charlie, a soft 18 and a 5 on the same stream (each k-th request is the k-th card).
    vector(
        "O36",
        "free_bet",
        "2h 3d",
        "Ts 7c",
        "2c Ah 4d 3s",
        [seat(["hit"] * 4, pid="a"), seat(["hit", "hit", "stand"], pid="b"), seat(["stand"], pid="c")],
        {"a": {"hands": [1000]}, "b": {"hands": [1000]}, "c": {"hands": [-1000]}},
    ),
    # Dealer soft 17 stands.
    vector("O37", "classic_eu", "Th 8d", "As 6c", "", [seat(["stand"])], {"p1": {"hands": [1000]}}),
    # Perfect Pairs: hearts and diamonds are a coloured pair; hearts and spades a mixed one. 8-8-9 is no 21+3.
    vector(
        "O38",
        "free_bet_seated",
        "8h 8d",
        "9s Tc",
        "",
        [seat(["stand"], bets={"main": 1000, "perfect_pairs": 100, "21+3": 100})],
        {"p1": {"hands": [-1000], "perfect_pairs": 1200, "21+3": -100}},
    ),
    vector(
        "O39",
        "classic_eu",
        "8h 8s",
        "9s Tc",
        "",
        [seat(["stand"], bets={"main": 1000, "perfect_pairs": 100, "21+3": 100})],
        {"p1": {"hands": [-1000], "perfect_pairs": 600, "21+3": -100}},
    ),
]

"""Rounds the back-office tests play again and again."""


def settle_classic(play, table, *players):
    """Seat 1 stands on 20 and wins; seat 2 (if any) stands on 16 and loses: dealer 9 then T 9 = 19."""
    r = play(table)
    r.bet(players[0], {"main": 1000}, seat=1)
    if len(players) > 1:
        r.bet(players[1], {"main": 3000}, seat=2)
    r.close()
    if len(players) > 1:
        r.cards("Th", "Ts", "9c", "Kd", "6c")  # seat 1, seat 2, dealer up, seat 1, seat 2 (EU: no hole card)
    else:
        r.cards("Th", "9c", "Kd")
    r.decide(players[0], "stand", seat=1)
    if len(players) > 1:
        r.decide(players[1], "stand", seat=2)
    r.cards("Ts")
    r.complete()
    return r.settle()

"""A live table simulator: a studio and its players, playing real rounds through the services or the API.

`simulation_run(config)` sets up (or reuses) tables, players and their wallets, then plays rounds the way a
studio and game clients would: it opens rounds, places bets from simulated players with their own bankrolls and
habits, deals from shuffled 8-deck shoes with a cut card (and the new-shoe burn where the table has it), takes
decisions with the optimal strategy, by habit or by letting the timer run out, records every card, waits for the
settlement, and injects what a live table sees: disconnecting players, malfunction voids, paused tables.

Nothing here writes a round, bet or ledger row itself: every write goes through `rounds.services`,
`wallet.services` and `tables.services`, or through the HTTP API (`via="api"`). The simulator only reads
(round state, whose turn it is) as a client would.

A run is reproducible from its seed: every table and every player has its own random generator derived from the
seed, each player plays at one table, and a table opens its next round only once the last one is settled, so the
game outcomes (cards, decisions, results) do not depend on thread timing. `run_fingerprint` reduces a run to those
outcomes so two runs can be compared.
"""

from rounds.simulator.run import (
    ScriptedEvent,
    SimulationConfig,
    SimulationReport,
    run_fingerprint,
    simulation_run,
)

__all__ = ["ScriptedEvent", "SimulationConfig", "SimulationReport", "run_fingerprint", "simulation_run"]

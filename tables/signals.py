"""What other apps may react to without tables knowing them (players depend on tables, not the reverse)."""

from django.dispatch import Signal

# Sent inside the transaction that closes a table (kwargs: table, at), so what receivers write commits with it.
table_closed = Signal()

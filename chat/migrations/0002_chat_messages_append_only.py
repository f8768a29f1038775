"""PostgreSQL refuses UPDATE and DELETE on chat messages, so not even raw SQL can rewrite what a player wrote.

Row triggers do not fire on TRUNCATE, which is how test databases are flushed. SQLite (development only) relies
on the model and queryset guards. The SQL is casino.append_only's.
"""

from django.db import migrations

from casino import append_only

FORWARD, BACKWARD = append_only.guard(
    "chat_chatmessage", function="chat_chatmessage_refuse_change", args="TG_OP",
    message="chat_chatmessage is append-only: % refused; a chat message is never rewritten")


class Migration(migrations.Migration):
    dependencies = [("chat", "0001_chat_messages")]

    operations = [append_only.on_postgres(FORWARD, BACKWARD)]

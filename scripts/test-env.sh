# Sourced by scripts/test.sh and scripts/check.sh: the services the tests use (TEST_* variables override them).
export DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/casino}"
export CELERY_BROKER_URL="${TEST_CELERY_BROKER_URL:-redis://127.0.0.1:6379/0}"
export CELERY_RESULT_BACKEND="${TEST_CELERY_RESULT_BACKEND:-redis://127.0.0.1:6379/1}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/2}"
export SECRET_KEY="test-only-not-a-secret" FAST_PASSWORD_HASHER=1 DEBUG=0

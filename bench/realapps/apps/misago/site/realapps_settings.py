"""Django settings of the bench's Misago (issue 33): Misago's own dev project, made local.

Copied to `.realapps/misago/site/` and run by the app's own virtualenv (never imported by the
service). Postgres on 127.0.0.1, database from REALAPPS_MISAGO_DB; no outgoing mail (console
backend), no Celery broker (tasks run inline), no debug toolbar, file cache wiped on reset.
"""

# ruff: noqa: F403, F405
import os

from devproject.settings import *

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
SECRET_KEY = "realapps-misago-bench-only-not-a-secret"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("REALAPPS_MISAGO_DB", "realapps_misago"),
        "USER": os.environ.get("REALAPPS_PG_USER", "postgres"),
        "PASSWORD": "",
        "HOST": "127.0.0.1",
        "PORT": 5432,
    }
}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": os.path.join(DATA, "cache"),
    }
}
INSTALLED_APPS = [a for a in INSTALLED_APPS if a != "debug_toolbar"]
MIDDLEWARE = [m for m in MIDDLEWARE if not m.startswith("debug_toolbar")]
ROOT_URLCONF = "realapps_urls"
STATIC_ROOT = os.path.join(DATA, "static")
MEDIA_ROOT = os.path.join(DATA, "media")
MISAGO_USER_DATA_DOWNLOADS_WORKING_DIR = os.path.join(DATA, "userdata")
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
CELERY_BROKER_URL = "memory://"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = False
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}

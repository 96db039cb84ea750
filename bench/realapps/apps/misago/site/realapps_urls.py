"""URLs of the bench's Misago: Misago's dev project URLs plus media files (DEBUG is off)."""

# ruff: noqa: F403, F405
from devproject.urls import *
from django.conf import settings
from django.urls import re_path
from django.views.static import serve

urlpatterns = [
    *urlpatterns,
    re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
]

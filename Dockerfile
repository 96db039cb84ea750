# webagent: API + workers in one image. `webagent serve` (default) or `webagent worker`.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Debian's Chromium (Playwright drives it; `playwright install` is not used), fonts for
# readable screenshots, tini to reap Chromium's zombie processes and forward SIGTERM.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji ca-certificates tini \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 webagent \
    && mkdir -p /data \
    && chown webagent:webagent /data

WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY app ./app
COPY workers ./workers
COPY migrations ./migrations
# the lock file pins every Python package, so a rebuild next month installs the same versions
RUN pip install -c constraints.txt .

USER webagent
ENV WEBAGENT_CHROMIUM_PATH=/usr/bin/chromium \
    WEBAGENT_HOST=0.0.0.0 \
    WEBAGENT_PORT=8000 \
    WEBAGENT_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

ENTRYPOINT ["tini", "--"]
CMD ["webagent", "serve"]

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite:////data/fatebot.sqlite3 \
    HEALTH_PORT=8080

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY migrations ./migrations
RUN pip install . \
    && useradd --create-home --uid 10001 fatebot \
    && mkdir /data \
    && chown fatebot /data

USER fatebot
VOLUME ["/data"]
# Healthy: every shard of the process connected and the database answering (`GET /health` on HEALTH_PORT).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["fatebot", "health"]
CMD ["fatebot", "run"]

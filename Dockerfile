FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite:////data/fatebot.sqlite3

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
CMD ["fatebot", "run"]
